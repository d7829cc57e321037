/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem orphans: resident VRAM/GTT placements whose allocating process has
 * exited, per buffer group, with who keeps them alive now.
 */
#ifndef GPUMEM_ORPHANS_H
#define GPUMEM_ORPHANS_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/types.h>

/* What, besides processes with a handle, keeps a group's buffers. */
#define GPUMEM_ORPHAN_KERNEL	BIT(0)	/* an in-kernel DRM client's handle */
#define GPUMEM_ORPHAN_DMABUF	BIT(1)	/* exported: a dma-buf may keep it */
#define GPUMEM_ORPHAN_MAPPING	BIT(2)	/* no handle, no dma-buf: mappings */
#define GPUMEM_ORPHAN_BUSY	BIT(3)	/* has handles the walk could not read */

/**
 * struct gpumem_orphan_row - one group of orphaned placements
 * @minor: the device's primary minor
 * @dev: its name ("card0")
 * @region: enum gpumem_region
 * @bytes: bytes of the group's placements
 * @buffers: number of placements
 * @cgid: the cgroup charged for them (the allocator's)
 * @cgroup: its path as the host sees it (kmalloc'ed), NULL if removed
 * @tgid: the allocating process (exited)
 * @comm: its command name
 * @since_ms: milliseconds since gpumem first saw the allocator gone (the
 *	longest of the group)
 * @first_holder: index of the first holder pid in &gpumem_orphans.pids
 * @nr_holders: number of live processes holding a handle (or the file)
 *	listed in the report
 * @nr_dropped: holders left out of the report (its bound, below)
 * @kinds: GPUMEM_ORPHAN_*
 */
struct gpumem_orphan_row {
	int minor;
	char dev[16];
	u8 region;
	u64 bytes;
	u32 buffers;
	u64 cgid;
	char *cgroup;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	u32 since_ms;
	size_t first_holder;
	u32 nr_holders;
	u32 nr_dropped;
	u8 kinds;
};

/**
 * struct gpumem_orphans - one orphans report
 * @rows: the groups, by device, region, cgroup, allocator, holders
 * @nr_rows: number of @rows
 * @cap_rows: the room @rows has
 * @pids: holder pids referenced by @rows
 * @nr_pids: number of @pids, at most GPUMEM_ORPHANS_MAX_PIDS
 * @cap_pids: the room @pids has
 * @truncated: holder pids left out (the rows that lost some say so)
 * @max_bytes: the most the report may keep (gpumem_orphans_take())
 * @str_bytes: bytes of its rows' cgroup paths
 */
struct gpumem_orphans {
	struct gpumem_orphan_row *rows;
	size_t nr_rows, cap_rows;
	pid_t *pids;
	size_t nr_pids, cap_pids;
	u64 truncated;
	size_t max_bytes;
	size_t str_bytes;
};

/* Holder pids one report lists at most (a row beyond: its count only). */
#define GPUMEM_ORPHANS_MAX_PIDS	65536

struct gpumem_charge_watch;

/* What the charge records tell about owners gone (charge.h): main.c sets it. */
extern const struct gpumem_charge_watch gpumem_orphans_watch;

struct gpumem_orphans *gpumem_orphans_take(size_t max_bytes);
void gpumem_orphans_init(void);
void gpumem_orphans_exit(void);
void gpumem_orphans_free(struct gpumem_orphans *o);
u64 gpumem_orphans_truncated(void);
void gpumem_orphans_holders_str(const struct gpumem_orphans *o,
				const struct gpumem_orphan_row *row,
				char *buf, size_t len);

extern const struct file_operations gpumem_orphans_fops;

#endif /* GPUMEM_ORPHANS_H */
