/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem snapshots, as their readers (debugfs.c, netlink.c, orphans.c) take
 * and release them: one consistent look at every device, made by a walk or
 * a copy of the counters, private to its reader. The rows themselves are
 * described in rows.h.
 */
#ifndef GPUMEM_SNAPSHOT_H
#define GPUMEM_SNAPSHOT_H

#include <linux/types.h>
#include "rows.h"

/**
 * struct gpumem_snapshot_stats - counters about walks, for the stats file
 * @walks: walks completed since load
 * @failed: walks that failed (out of memory, interrupted)
 * @last_ns: duration of the last completed walk
 * @last_clients: DRM files visited by the last walk
 * @last_bos: object handles visited by the last walk
 * @last_skipped: objects the last walk could not read the placement of
 * @last_collect_ns: time the last walk spent visiting clients and objects
 * @last_account_ns: time it spent aggregating (dedup, owner rule)
 * @last_release_ns: time it spent dropping object references
 * @last_work: the last walk's work units (tasks, fd slots, files, handles
 *	and holders it visited: what an unprivileged caller pays, budget.c)
 * @devices: devices tracked now
 */
struct gpumem_snapshot_stats {
	u64 walks;
	u64 failed;
	u64 last_ns;
	u64 last_clients;
	u64 last_bos;
	u64 last_skipped;
	u64 last_collect_ns;
	u64 last_account_ns;
	u64 last_release_ns;
	u64 last_work;
	u64 devices;
};

struct gpumem_snapshot *gpumem_snapshot_take(unsigned int flags);
struct gpumem_snapshot *
gpumem_snapshot_take_filtered(unsigned int flags,
			      const struct gpumem_snap_filter *filter,
			      size_t max_bytes);
void gpumem_snapshot_stats(struct gpumem_snapshot_stats *stats);

#endif /* GPUMEM_SNAPSHOT_H */
