/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem walker: visits every client of every tracked DRM device and every
 * GEM object they hold, and builds a snapshot from them.
 */
#ifndef GPUMEM_WALK_H
#define GPUMEM_WALK_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/list.h>

struct gpumem_snapshot;
struct gpumem_snap_filter;

/**
 * struct gpumem_file_holders - the processes one client file counts for
 * @first: index of the first of their tgids in the device's tgid array
 * @nr: how many (at least one), ascending, each once
 *
 * Resolved once per file and walk; its entries refer to it by index.
 */
struct gpumem_file_holders {
	size_t first;
	u32 nr;
};

/**
 * struct gpumem_walk_ent - one (client file, object handle) pair of a walk
 * @obj: the object, referenced by the walker (opaque to the accounting)
 * @size: object size in bytes
 * @order: the client's position on its device, 0 = opened first
 * @handle: the GEM handle in that client's file
 * @file: index of the client's struct gpumem_file_holders on the device
 * @mem_type: TTM memory type, -1 for a non-TTM object
 * @region: enum gpumem_region
 * @flags: GPUMEM_ENT_*
 * @head: accounting scratch: index of the object's first entry
 * @next: accounting scratch: next entry of the same object
 * @hnode: accounting scratch: the first entry's node in the object hash
 */
struct gpumem_walk_ent {
	void *obj;
	u64 size;
	u32 order;
	u32 handle;
	u32 file;
	s16 mem_type;
	u8 region;
	u8 flags;
	u32 head;
	u32 next;
	struct hlist_node hnode;
};

#define GPUMEM_ENT_PENDING	BIT(0)	/* placement not read yet */
#define GPUMEM_ENT_DMABUF	BIT(1)	/* exported as a dma-buf */
#define GPUMEM_ENT_IMPORTED	BIT(2)	/* imported from a dma-buf */
#define GPUMEM_ENT_SKIPPED	BIT(3)	/* placement unreadable: reservation busy */

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
 * @last_work: the last walk's work units (tasks, fd slots, files, handles
 *	and holders it visited: what an unprivileged caller pays, budget.c)
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
	u64 last_work;
	u64 devices;
};

struct gpumem_snapshot *gpumem_snapshot_take(unsigned int flags);
struct gpumem_snapshot *
gpumem_snapshot_take_filtered(unsigned int flags,
			      const struct gpumem_snap_filter *filter,
			      size_t max_bytes);
void gpumem_walk_stats(struct gpumem_walk_stats *stats);
void gpumem_walk_exit(void);

#endif /* GPUMEM_WALK_H */
