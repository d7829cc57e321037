// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem snapshots: take one (the device rows and a walk, walk.c, or the
 * device rows and a copy of the per-process counters, proc_usage.c), finish
 * it (rows.c) and count the walks. The faces (debugfs.c, netlink.c) and the
 * orphans report read snapshots only through here and rows.h.
 */
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "proc_usage.h"
#include "snapshot.h"
#include "walk.h"

/* Protects gpumem_walk_counts (@devices unused: counted when read). */
static DEFINE_SPINLOCK(gpumem_stats_lock);
static struct gpumem_snapshot_stats gpumem_walk_counts;

/* Count a walk into the stats. */
static void gpumem_walk_count(const struct gpumem_snapshot *snap, int ret)
{
	spin_lock(&gpumem_stats_lock);
	if (ret) {
		gpumem_walk_counts.failed++;
	} else {
		gpumem_walk_counts.walks++;
		gpumem_walk_counts.last_ns = snap->walk_ns;
		gpumem_walk_counts.last_clients = snap->clients;
		gpumem_walk_counts.last_bos = snap->bos;
		gpumem_walk_counts.last_skipped = snap->skipped;
		gpumem_walk_counts.last_collect_ns = snap->collect_ns;
		gpumem_walk_counts.last_account_ns = snap->account_ns;
		gpumem_walk_counts.last_release_ns = snap->release_ns;
		gpumem_walk_counts.last_work = snap->work;
	}
	spin_unlock(&gpumem_stats_lock);
}

/**
 * gpumem_snapshot_take_filtered() - build a snapshot of some rows
 * @flags: GPUMEM_SNAP_*
 * @filter: for a GPUMEM_SNAP_CHARGED snapshot, the process rows wanted
 *	(NULL: all); other snapshots are complete whatever it says (a walk
 *	counts every buffer once across all its holders)
 * @max_bytes: the most the snapshot may keep (gpumem_snapshot_bytes(); 0:
 *	no cap): checked as its arrays grow and after each device, so that
 *	one that would keep more stops there; a finished snapshot's arrays
 *	are fitted to their rows (gpumem_snapshot_shrink()). All of it, and
 *	the walk's scratch space, is charged to the caller's memory cgroup.
 *
 * A device snapshot (GPUMEM_SNAP_DEVICES, GPUMEM_SNAP_CHARGED) costs
 * O(devices) here (plus the charged rows, proc_usage.c) and visits no
 * client. A held walk costs what gpumem_walk_fill() says: linear in every
 * number a tenant can multiply, and no lock held across devices.
 *
 * Context: process context, may sleep.
 * Return: the snapshot (free with gpumem_snapshot_free()) or an ERR_PTR:
 *	-EINTR when a signal interrupted the walk, -ENOMEM, -EMSGSIZE when
 *	it would keep more than @max_bytes.
 */
struct gpumem_snapshot *
gpumem_snapshot_take_filtered(unsigned int flags,
			      const struct gpumem_snap_filter *filter,
			      size_t max_bytes)
{
	bool walk = !(flags & (GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_CHARGED));
	struct gpumem_snapshot *snap;
	unsigned int nr;
	char *path;
	u64 start;
	int ret;

	path = kmalloc(PATH_MAX, GFP_KERNEL_ACCOUNT);
	if (!path)
		return ERR_PTR(-ENOMEM);
	ret = gpumem_walk_nr_devices(&nr, true);
	if (ret) {
		kfree(path);
		return ERR_PTR(ret);
	}
	start = ktime_get_ns();
	snap = gpumem_snapshot_alloc(nr, flags);
	if (!snap) {
		kfree(path);
		return ERR_PTR(-ENOMEM);
	}
	snap->max_bytes = max_bytes;
	ret = gpumem_walk_fill(snap, flags, path);
	if (!ret && (flags & GPUMEM_SNAP_CHARGED))
		ret = gpumem_proc_usage_fill(snap, path, filter);
	if (!ret)
		ret = gpumem_snapshot_finish(snap);
	if (!ret) {
		gpumem_snapshot_shrink(snap);
		ret = gpumem_snapshot_check(snap);
	}
	if (walk) {
		snap->walk_ns = ktime_get_ns() - start;
		gpumem_walk_count(snap, ret);
	}
	kfree(path);
	if (ret) {
		gpumem_snapshot_free(snap);
		return ERR_PTR(ret);
	}
	return snap;
}

/**
 * gpumem_snapshot_take() - walk every device and build a whole snapshot
 * @flags: GPUMEM_SNAP_*
 *
 * No cap: for gpumem's own use (the orphaned events' report, a device
 * list); a snapshot kept for a reader is taken with its cap.
 *
 * Context: process context, may sleep.
 * Return: as gpumem_snapshot_take_filtered().
 */
struct gpumem_snapshot *gpumem_snapshot_take(unsigned int flags)
{
	return gpumem_snapshot_take_filtered(flags, NULL, 0);
}

/**
 * gpumem_snapshot_stats() - copy the walk counters
 * @stats: where to copy them
 *
 * Context: may sleep (takes the registry lock to count the devices).
 */
void gpumem_snapshot_stats(struct gpumem_snapshot_stats *stats)
{
	unsigned int devices;

	gpumem_walk_nr_devices(&devices, false);
	spin_lock(&gpumem_stats_lock);
	*stats = gpumem_walk_counts;
	spin_unlock(&gpumem_stats_lock);
	stats->devices = devices;
}
