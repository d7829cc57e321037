// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem hook statistics: monotonic counters of what the allocation hooks
 * (charge.c, hooks.c, limits.c), the eviction guard (evict_guard.c) and the
 * events (events.c) did since the module was loaded, each counted where its
 * concept lives; read by stats-get (netlink.c) and debugfs stats.
 *
 * Locking: none. The counters are per CPU (this_cpu_inc(), safe from any
 * context, also under a spinlock or with interrupts off): the allocation
 * path takes no shared cache line and no lock for them. A reader sums every
 * possible CPU's counters; a CPU's counter is a u64 read with READ_ONCE(),
 * so a sum is never torn on a 64-bit kernel and never goes backwards.
 */
#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include "hook_stats.h"

/* Every CPU's counters (gpumem_hook_stats_inc() is inline, hook_stats.h). */
DEFINE_PER_CPU(struct gpumem_hook_counts, gpumem_hook_counts);

/* The names of the counters (debugfs stats: "hook_" and this). */
static const char *const gpumem_hook_stat_names[GPUMEM_HOOK_NR_STATS] = {
	[GPUMEM_HOOK_CHARGED] = "charged",
	[GPUMEM_HOOK_UNCHARGED] = "uncharged",
	[GPUMEM_HOOK_CHARGE_FAILED] = "charge_failed",
	[GPUMEM_HOOK_DENIED] = "denied",
	[GPUMEM_HOOK_GUARD_REFUSED] = "guard_refused",
	[GPUMEM_HOOK_EVENTS_SENT] = "events_sent",
	[GPUMEM_HOOK_EVENTS_SUPPRESSED] = "events_suppressed",
	[GPUMEM_HOOK_EVENTS_LOST] = "events_lost",
	[GPUMEM_HOOK_UNATTRIBUTED] = "unattributed",
	[GPUMEM_HOOK_RESV_RELEASED] = "resv_released",
};

/**
 * gpumem_hook_stats_read() - the counters now
 * @st: filled in
 *
 * Each counter is the sum over every possible CPU (also those offline now:
 * their counts stay). The values are read one after the other, not as one
 * snapshot.
 *
 * Context: any.
 */
void gpumem_hook_stats_read(struct gpumem_hook_stats *st)
{
	const struct gpumem_hook_counts *c;
	unsigned int i;
	int cpu;

	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(&gpumem_hook_counts, cpu);
		for (i = 0; i < GPUMEM_HOOK_NR_STATS; i++)
			st->count[i] += READ_ONCE(c->count[i]);
	}
}

/**
 * gpumem_hook_stat_name() - a counter's name, for debugfs
 * @stat: the counter
 *
 * Return: its name in lower case with underscores ("charge_failed"), or
 *	NULL for a value out of range.
 */
const char *gpumem_hook_stat_name(enum gpumem_hook_stat stat)
{
	if ((unsigned int)stat >= GPUMEM_HOOK_NR_STATS)
		return NULL;
	return gpumem_hook_stat_names[stat];
}
