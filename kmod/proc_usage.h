/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem per-process usage counters: bytes of the hooked placements (VRAM,
 * GTT) each process allocated, per device and region, kept current at
 * allocation and free time by the charge records of quota.c.
 */
#ifndef GPUMEM_PROC_USAGE_H
#define GPUMEM_PROC_USAGE_H

#include <linux/sched.h>
#include <linux/types.h>
#include "classify.h"

struct pid;
struct gpumem_snapshot;
struct gpumem_snap_filter;
struct gpumem_leak_params;
struct gpumem_leak_hit;

/* The counters of one (process, device); private to proc_usage.c. */
struct gpumem_proc_usage;

/**
 * struct gpumem_proc_usage_row - a copy of one (process, device) counter
 * @pid: the process (thread group), referenced: gpumem_proc_usage_rows_free()
 * @comm: its command name when its counters were created (for a process
 *	that has exited since)
 * @minor: the device
 * @bytes: bytes charged, per region
 * @bos: placements charged
 */
struct gpumem_proc_usage_row {
	struct pid *pid;
	char comm[TASK_COMM_LEN];
	int minor;
	u64 bytes[GPUMEM_REGION_COUNT];
	u32 bos;
};

struct gpumem_proc_usage *gpumem_proc_usage_get(struct pid *pid,
						const char *comm, int minor);
struct gpumem_proc_usage *
gpumem_proc_usage_get_charge(struct pid *pid, const char comm[TASK_COMM_LEN],
			     int minor, u8 region, u64 bytes);
void gpumem_proc_usage_put(struct gpumem_proc_usage *pu);
bool gpumem_proc_usage_exited(const struct gpumem_proc_usage *pu);
void gpumem_proc_usage_charge(struct gpumem_proc_usage *pu, u8 region,
			      u64 bytes);
void gpumem_proc_usage_uncharge(struct gpumem_proc_usage *pu, u8 region,
				u64 bytes);
int gpumem_proc_usage_rows(struct gpumem_proc_usage_row **rowsp,
			   size_t *nrowsp);
void gpumem_proc_usage_rows_free(struct gpumem_proc_usage_row *rows,
				 size_t nrows);
int gpumem_proc_usage_fill(struct gpumem_snapshot *snap, char *path,
			   const struct gpumem_snap_filter *filter);
size_t gpumem_proc_usage_leaks(const struct gpumem_leak_params *p,
			       unsigned int first, unsigned int nr,
			       struct gpumem_leak_hit *hits, size_t max);
unsigned int gpumem_proc_usage_leak_buckets(void);
size_t gpumem_proc_usage_suspects(struct gpumem_leak_hit *hits, size_t max);
void gpumem_proc_usage_exit(void);

#endif /* GPUMEM_PROC_USAGE_H */
