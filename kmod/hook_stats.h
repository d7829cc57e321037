/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem hook statistics: what the allocation hooks, the eviction guard and
 * the events did since the module was loaded (stats-get, debugfs stats).
 */
#ifndef GPUMEM_HOOK_STATS_H
#define GPUMEM_HOOK_STATS_H

#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/types.h>

/**
 * enum gpumem_hook_stat - one monotonic counter of the hooks
 * @GPUMEM_HOOK_CHARGED: charge records tied to a resource (charge.c): a
 *	placement of a buffer with an owner (VRAM and GTT, and the system
 *	placements that carry an owner, see charge.c); unattributed records
 *	(a buffer that has no owner and never gets one) are not counted
 * @GPUMEM_HOOK_UNCHARGED: charge records given back and freed: their
 *	resource was freed, or their device went
 * @GPUMEM_HOOK_CHARGE_FAILED: placements that went unaccounted because
 *	gpumem had no memory for their record or counters (the user's
 *	allocation succeeded all the same)
 * @GPUMEM_HOOK_DENIED: placements a limit in enforce mode refused (a
 *	request counted once, as the limit's own denied counter does)
 * @GPUMEM_HOOK_GUARD_REFUSED: evictions the eviction guard refused
 * @GPUMEM_HOOK_EVENTS_SENT: events handed to their listeners
 * @GPUMEM_HOOK_EVENTS_SUPPRESSED: events dropped by a rate limit
 * @GPUMEM_HOOK_EVENTS_LOST: events that took a sequence number but could
 *	not be built or delivered (the gaps listeners see)
 * @GPUMEM_HOOK_UNATTRIBUTED: VRAM and GTT placements charged to nobody:
 *	of a buffer whose first placement was made by a kernel thread with
 *	no process's mm or an exiting task, or that was placed before
 *	gpumem was loaded (charge.c)
 * @GPUMEM_HOOK_RESV_RELEASED: buffer reservations a driver leaked after a
 *	denied placement, released by gpumem when the task was about to
 *	return to user space (evict_guard.c; qxl's QXL_UPDATE_AREA)
 * @GPUMEM_HOOK_NR_STATS: the number of counters
 */
enum gpumem_hook_stat {
	GPUMEM_HOOK_CHARGED,
	GPUMEM_HOOK_UNCHARGED,
	GPUMEM_HOOK_CHARGE_FAILED,
	GPUMEM_HOOK_DENIED,
	GPUMEM_HOOK_GUARD_REFUSED,
	GPUMEM_HOOK_EVENTS_SENT,
	GPUMEM_HOOK_EVENTS_SUPPRESSED,
	GPUMEM_HOOK_EVENTS_LOST,
	GPUMEM_HOOK_UNATTRIBUTED,
	GPUMEM_HOOK_RESV_RELEASED,
	GPUMEM_HOOK_NR_STATS
};

/**
 * struct gpumem_hook_stats - the hook statistics at one moment
 * @count: per enum gpumem_hook_stat, the counter's value. Each counter is
 *	read on its own: the values are no atomic snapshot, but once nothing
 *	allocates or frees, charged minus uncharged equals the charge records
 *	alive (gpumem_charge_records(), which readers report next to these).
 */
struct gpumem_hook_stats {
	u64 count[GPUMEM_HOOK_NR_STATS];
};

/* One CPU's counters: hook_stats.c's, incremented inline below. */
struct gpumem_hook_counts {
	u64 count[GPUMEM_HOOK_NR_STATS];
};

DECLARE_PER_CPU(struct gpumem_hook_counts, gpumem_hook_counts);

/**
 * gpumem_hook_stats_inc() - count one occurrence
 * @stat: the counter
 *
 * Inline: every placement and free is counted, and a call costs more
 * than the increment.
 *
 * Context: any (a per-CPU increment: no lock, no sleep).
 */
static inline void gpumem_hook_stats_inc(enum gpumem_hook_stat stat)
{
	if (WARN_ON_ONCE((unsigned int)stat >= GPUMEM_HOOK_NR_STATS))
		return;
	this_cpu_inc(gpumem_hook_counts.count[stat]);
}

void gpumem_hook_stats_read(struct gpumem_hook_stats *st);
const char *gpumem_hook_stat_name(enum gpumem_hook_stat stat);

#endif /* GPUMEM_HOOK_STATS_H */
