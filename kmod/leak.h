/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem leak suspicion: a staircase detector over the allocation-time
 * counters of each process (proc_usage.c) and cgroup (limits.c).
 */
#ifndef GPUMEM_LEAK_H
#define GPUMEM_LEAK_H

#include <linux/fs.h>
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

/**
 * struct gpumem_leak_row - one current suspect, as listed (debugfs `leaks`,
 *	netlink leak-get)
 * @pid: the process (host pid), or 0 for a cgroup's own usage
 * @comm: the process's command name ("" for a cgroup)
 * @cgid: the process's cgroup now (0 when it has exited), or the cgroup
 * @cgroup: @cgid's host path (kmalloc'ed), or NULL when it has none
 * @minor: the device
 * @region: enum gpumem_region
 * @usage: bytes charged now
 * @growth: how much the floor rose since the rise began
 * @rate: @growth per second over the windows since the rise began
 * @windows: the windows since the rise began
 * @since_ms: milliseconds since it became a suspect
 */
struct gpumem_leak_row {
	pid_t pid;
	char comm[TASK_COMM_LEN];
	u64 cgid;
	char *cgroup;
	int minor;
	u8 region;
	u64 usage;
	u64 growth;
	u64 rate;
	u32 windows;
	u32 since_ms;
};

/**
 * struct gpumem_leak_list - the suspects now, sorted by device, region,
 *	process (processes first) and cgroup
 * @window_ms: the window length they were judged with (0: detection off)
 * @nr: the number of @rows
 * @rows: the suspects
 */
struct gpumem_leak_list {
	u32 window_ms;
	size_t nr;
	struct gpumem_leak_row rows[];
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
struct gpumem_leak_list *gpumem_leak_list_take(size_t max_bytes);
void gpumem_leak_list_free(struct gpumem_leak_list *list);
unsigned int gpumem_leak_stats(u64 *runs, u64 *passes, u64 *pass_runs,
			       u64 *buckets);
void gpumem_leak_init(void);
void gpumem_leak_exit(void);

extern const struct file_operations gpumem_leaks_fops;

#endif /* GPUMEM_LEAK_H */
