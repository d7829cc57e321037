/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem leak suspicion: a staircase detector over the allocation-time
 * counters of each process (proc_usage.c) and cgroup (limits.c): the
 * windows, their passes over the counters, the events and the listing.
 * The state each counter keeps, and one window's judgement of it, are
 * staircase.h's (the counters include that, never this).
 */
#ifndef GPUMEM_LEAK_H
#define GPUMEM_LEAK_H

#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/types.h>
#include "staircase.h"

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

struct gpumem_leak_list *gpumem_leak_list_take(size_t max_bytes);
void gpumem_leak_list_free(struct gpumem_leak_list *list);
unsigned int gpumem_leak_stats(u64 *runs, u64 *passes, u64 *pass_runs,
			       u64 *buckets);
void gpumem_leak_init(void);
void gpumem_leak_exit(void);

extern const struct file_operations gpumem_leaks_fops;

#endif /* GPUMEM_LEAK_H */
