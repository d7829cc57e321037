/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem staircase: the state the leak detector keeps in each counter it
 * watches (a process's bytes on a device and region, proc_usage.c; a
 * cgroup's own, limits.c), under that counter's own lock, and what one
 * window's end makes of it. The counters keep the window's floor (an
 * inline compare where they change) and, when leak.c's pass asks them,
 * end a window or hand out a suspect with these; they call nothing of the
 * detector's (leak.c drives the windows and raises the events).
 */
#ifndef GPUMEM_STAIRCASE_H
#define GPUMEM_STAIRCASE_H

#include <linux/sched.h>
#include <linux/types.h>

struct pid;

/**
 * struct gpumem_leak_state - the detector's state for one counter
 * @floor: the lowest the counter was in the current window
 * @prev: the floor of the previous window
 * @base: the floor before the current rise began
 * @rises: consecutive windows whose floor rose by more than the slack
 * @suspect: an event was raised for this rise; none again until the floor
 *	falls back to @base
 * @pending: an event is due and not yet collected
 * @span: windows since the current rise began (0 when none is going on)
 * @since: jiffies when it became a suspect (valid while @suspect)
 *
 * Kept in the counter's own record and protected by its lock; all zero is
 * the state of a counter created empty.
 */
struct gpumem_leak_state {
	u64 floor;
	u64 prev;
	u64 base;
	u32 rises;
	bool suspect;
	bool pending;
	u32 span;
	unsigned long since;
};

/**
 * struct gpumem_leak_params - what one window end applies
 * @windows: consecutive rising windows that make a suspect
 * @slack: bytes the floor must rise by for a window to count as rising
 * @reset: the detector (re)starts: forget the history, decide nothing
 */
struct gpumem_leak_params {
	u32 windows;
	u64 slack;
	bool reset;
};

/**
 * struct gpumem_leak_hit - a suspect, as collected from a counter
 * @pid: the process (referenced: put_pid()), or NULL for a cgroup
 * @cgid: the cgroup, for a cgroup's counter
 * @comm: the process's command name
 * @minor: the device
 * @region: enum gpumem_region
 * @usage: bytes charged when collected
 * @growth: how much the floor rose over @windows windows
 * @windows: the windows it rose over
 * @since_ms: listing only, milliseconds since it became a suspect
 */
struct gpumem_leak_hit {
	struct pid *pid;
	u64 cgid;
	char comm[TASK_COMM_LEN];
	int minor;
	u8 region;
	u64 usage;
	u64 growth;
	u32 windows;
	u32 since_ms;
};

/* Suspects collected per pass under a counter lock. */
#define GPUMEM_LEAK_BATCH	16

/**
 * gpumem_leak_note() - the counter changed: keep the window's floor
 * @st: the counter's state (under the counter's lock)
 * @usage: the counter's new value
 */
static inline void gpumem_leak_note(struct gpumem_leak_state *st, u64 usage)
{
	if (usage < st->floor)
		st->floor = usage;
}

bool gpumem_leak_window_end(struct gpumem_leak_state *st, u64 usage,
			    const struct gpumem_leak_params *p);
bool gpumem_leak_collect(struct gpumem_leak_state *st, u64 usage,
			 struct gpumem_leak_hit *hit);
bool gpumem_leak_describe(const struct gpumem_leak_state *st, u64 usage,
			  struct gpumem_leak_hit *hit);

#endif /* GPUMEM_STAIRCASE_H */
