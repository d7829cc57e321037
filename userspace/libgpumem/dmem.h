/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmem.h - the kernel's dmem cgroup controller (kernel/cgroup/dmem.c) as
 * its cgroup files show it: dmem.capacity (root), dmem.current, dmem.peak,
 * dmem.min, dmem.low and dmem.max of a cgroup v2 directory, one
 * "<region> <bytes|max>" line per region. gpumem's kernel reports which
 * device regions dmem charges and the names (dev-dmem); the figures are
 * read here, from the files every other tool reads and writes.
 */
#ifndef GM_DMEM_H
#define GM_DMEM_H

#include <stdbool.h>
#include <stdint.h>

enum gm_dmem_file {
	GM_DMEM_CAPACITY, GM_DMEM_CURRENT, GM_DMEM_PEAK,
	GM_DMEM_MIN, GM_DMEM_LOW, GM_DMEM_MAX, GM_DMEM_NFILES
};

/* one figure: known (the file has the region), unlimited ("max") or bytes */
struct gm_dmem_val {
	bool known;
	bool unlimited;
	uint64_t bytes;
};

/* "dmem.current" etc. */
const char *gm_dmem_file_name(enum gm_dmem_file file);

/*
 * Read FILE of the cgroup directory DIR (absolute) for REGION into *out.
 * 0 (out->known false when the file has no such region), or -errno when
 * the file cannot be read (-ENOENT: no dmem controller there) or a line of
 * it is not "<name> <bytes|max>" (-EPROTO).
 */
int gm_dmem_read(const char *dir, enum gm_dmem_file file, const char *region,
		 struct gm_dmem_val *out);

/*
 * The same, for the cgroup at PATH below the cgroup2 mount (the host's
 * view, as gpumem's kernel reports paths; "" or "/": the root).
 */
int gm_dmem_read_cgroup(const char *path, enum gm_dmem_file file, const char *region,
			struct gm_dmem_val *out);

struct gm_dev_list;
struct gm_limit_list;

/*
 * Each dmem region of L's devices: the root cgroup's dmem.current (all
 * that dmem charged there). Whether any device region has a dmem region.
 */
bool gm_dmem_enrich(struct gm_dev_list *l);

/*
 * Each row of L on a device region with a dmem region (the first, in
 * DEVS): its name and the row's cgroup's dmem.current, dmem.max,
 * dmem.min and dmem.low. Whether any row got a dmem region.
 */
bool gm_dmem_limits(const struct gm_dev_list *devs, struct gm_limit_list *l);

/*
 * The device and gpumem region whose dmem regions in DEVS include NAME
 * (drm/<unique>/<name>): 0, or -ENOENT.
 */
int gm_dmem_region_lookup(const struct gm_dev_list *devs, const char *name, uint32_t *dev,
			  uint32_t *region);

struct gm_nl;
/* gm_dmem_limits() with the devices asked of the kernel on NL (none: no-op) */
void gm_limits_dmem(struct gm_nl *nl, struct gm_limit_list *l);

#endif /* GM_DMEM_H */
