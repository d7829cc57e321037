/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem walker: visits every client of every tracked DRM device and every
 * GEM object they hold, and builds a snapshot from them.
 */
#ifndef GPUMEM_WALK_H
#define GPUMEM_WALK_H

#include <linux/types.h>

struct gpumem_snapshot;

/**
 * struct gpumem_walk_stats - counters about walks, for the stats file
 * @walks: walks completed since load
 * @failed: walks that failed (out of memory, interrupted)
 * @last_ns: duration of the last completed walk
 * @last_clients: DRM files visited by the last walk
 * @last_bos: object handles visited by the last walk
 * @last_skipped: objects the last walk could not read the placement of
 * @last_collect_ns: time the last walk spent visiting clients and objects
 * @last_account_ns: time it spent aggregating (dedup, owner rule)
 * @last_release_ns: time it spent dropping object references
 * @devices: devices tracked now
 */
struct gpumem_walk_stats {
	u64 walks;
	u64 failed;
	u64 last_ns;
	u64 last_clients;
	u64 last_bos;
	u64 last_skipped;
	u64 last_collect_ns;
	u64 last_account_ns;
	u64 last_release_ns;
	u64 devices;
};

struct gpumem_snapshot *gpumem_snapshot_take(unsigned int flags);
void gpumem_walk_stats(struct gpumem_walk_stats *stats);
void gpumem_walk_exit(void);

#endif /* GPUMEM_WALK_H */
