/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - command-line values: pids, counts, intervals, sizes, device
 * names and cgroup paths. Each parser returns 0, or -1 with a message for
 * the user in err (which names what is wrong; no "gpumemctl:" prefix).
 */
#ifndef GPUMEMCTL_PARSE_H
#define GPUMEMCTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "query.h"

#define GM_PID_MAX 4194304	/* PID_MAX_LIMIT on 64-bit */
#define GM_ERR_LEN 256

/* A decimal number without sign or blanks, <= max. */
int parse_uint(const char *s, uint64_t max, uint64_t *out);

/* A process id, 0..GM_PID_MAX (0: in-kernel DRM clients, "[kernel]"). */
int parse_pid(const char *s, uint32_t *pid, char *err, size_t errlen);

/* A count >= 1 (what names the option in the message). */
int parse_count(const char *s, const char *what, uint64_t *n, char *err, size_t errlen);

/* Seconds, decimals allowed ("2", "0.5"), 0.1 to 86400; in milliseconds. */
int parse_interval(const char *s, unsigned int *ms, char *err, size_t errlen);

/*
 * A size in bytes: a number with an optional binary suffix K, M, G, T
 * (also KiB, MiB, ... and k; B alone means bytes), e.g. "4096", "64K",
 * "1.5M" (rounded down to a byte).
 */
int parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

/*
 * parse_limit_size: a limit in bytes, strictly: a decimal number with an
 * optional suffix K, M, G, T or KiB, MiB, GiB, TiB (also KB..TB, B; any
 * case; powers of 1024), e.g. "4096", "512M", "1.5G". Rejected, with a
 * message that says why: 0, a sign, a fraction that is not a whole number of
 * bytes ("1.5", "0.1K"), more than UINT64_MAX bytes, anything else.
 */
int parse_limit_size(const char *s, uint64_t *bytes, char *err, size_t errlen);

/* "vram", "gtt", "system", "other" (any case) -> enum gpumem_region */
int parse_region(const char *s, uint32_t *region, char *err, size_t errlen);

/* "enforce", "monitor" (any case) -> enum gpumem_limit_mode */
int parse_mode(const char *s, uint32_t *mode, char *err, size_t errlen);

/* How a device was named on the command line. */
struct dev_spec {
	bool by_id;		/* "cardN" or "N" */
	uint32_t id;
	char name[128];		/* otherwise: a PCI address (normalized) or bus id */
};

/*
 * parse_device: "card3", "3", a PCI address "0000:03:00.0" or "03:00.0"
 * (domain 0000 added, lower case), or another bus id as the kernel names
 * it. Only syntax is checked here; resolve_device() finds the device.
 */
int parse_device(const char *s, struct dev_spec *spec, char *err, size_t errlen);

/* The id of the device spec names in l; -1 with a message if there is none. */
int resolve_device(const struct dev_spec *spec, const char *arg,
		   const struct gm_dev_list *l, uint32_t *id, char *err, size_t errlen);

/*
 * resolve_cgroup: a cgroup v2 directory -> its cgroup id (the inode number
 * of the directory on cgroup2). PATH is absolute (e.g.
 * /sys/fs/cgroup/a.slice/b) or relative to root (e.g. a.slice/b); an
 * absolute path that is not a cgroup2 directory is tried below root too,
 * so the paths `gpumemctl ps` prints (/a.slice/b) work.
 */
int resolve_cgroup(const char *path, const char *root, uint64_t *id,
		   char *err, size_t errlen);

/* Where cgroup2 is mounted (/proc/self/mounts), /sys/fs/cgroup if nowhere. */
const char *cgroup2_root(char *buf, size_t len);

#endif
