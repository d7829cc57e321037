/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem quota: per-cgroup charge counters kept at allocation time, the
 * limits set on them, the allow/deny decision and the events it produces.
 */
#ifndef GPUMEM_QUOTA_H
#define GPUMEM_QUOTA_H

#include <linux/types.h>
#include <linux/sched.h>

struct ttm_resource;
struct drm_gem_object;

/* No limit. */
#define GPUMEM_NO_LIMIT		U64_MAX
/* A limit or counter on every device. */
#define GPUMEM_ALL_DEVICES	(-1)

/* One charged placement (a TTM resource); private to quota.c. */
struct gpumem_charge;

/**
 * struct gpumem_quota_event - what a quota or threshold event reports
 * @type: enum gpumem_event_type
 * @seq: sequence number (filled when sent)
 * @cgid: cgroup whose limit or usage the event is about (0: none)
 * @pid: allocating process (0: none)
 * @comm: its command name
 * @minor: device
 * @region: enum gpumem_region
 * @requested: bytes of the placement
 * @usage: bytes charged before the placement
 * @limit: the limit or threshold crossed, in bytes
 * @mode: enum gpumem_limit_mode
 * @denied: the placement was denied
 * @suppressed: events of this cgroup dropped by rate limiting since the last
 */
struct gpumem_quota_event {
	u32 type;
	u64 seq;
	u64 cgid;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	int minor;
	u8 region;
	u64 requested;
	u64 usage;
	u64 limit;
	u32 mode;
	bool denied;
	u64 suppressed;
};

/**
 * struct gpumem_limit_row - one limit or counter, as reported
 * @cgid: cgroup id
 * @minor: device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @usage: bytes charged to the cgroup and its descendants
 * @has_limit: a limit is set on exactly this (cgroup, device, region)
 * @max: hard limit, GPUMEM_NO_LIMIT if none
 * @high: soft limit, GPUMEM_NO_LIMIT if none
 * @mode: enum gpumem_limit_mode
 * @denied: placements denied (or reported in monitor mode)
 */
struct gpumem_limit_row {
	u64 cgid;
	int minor;
	u8 region;
	u64 usage;
	bool has_limit;
	u64 max;
	u64 high;
	u32 mode;
	u64 denied;
};

int gpumem_quota_init(void);
void gpumem_quota_exit(void);

int gpumem_quota_charge(int minor, u8 region, u64 bytes, bool quiet,
			struct gpumem_charge **chargep);
void gpumem_quota_commit(struct gpumem_charge *charge,
			 struct ttm_resource *res, struct drm_gem_object *obj);
void gpumem_quota_cancel(struct gpumem_charge *charge);
void gpumem_quota_release(struct ttm_resource *res);
void gpumem_quota_forget_device(int minor);

int gpumem_quota_set_limit(u64 cgid, int minor, u8 region, u64 max, u64 high,
			   u32 mode);
int gpumem_quota_del_limit(u64 cgid, int minor, u8 region);
int gpumem_quota_rows(struct gpumem_limit_row **rowsp, size_t *nrowsp,
		      bool limits_only);
bool gpumem_cgroup_path(u64 cgid, char *buf, size_t len);
void gpumem_quota_device_event(int minor, u8 region, u64 usage, u64 requested,
			       u64 threshold);

#endif /* GPUMEM_QUOTA_H */
