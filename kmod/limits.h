/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem limits: per-cgroup usage counters, the limits set on them and the
 * allow/deny decision.
 */
#ifndef GPUMEM_LIMITS_H
#define GPUMEM_LIMITS_H

#include <linux/types.h>

struct gpumem_leak_params;
struct gpumem_leak_hit;
/* A cgroup's counter on a device (or all devices) and region; limits.c's. */
struct gpumem_cg_node;

/* No limit. */
#define GPUMEM_NO_LIMIT		U64_MAX
/* A limit or counter on every device. */
#define GPUMEM_ALL_DEVICES	(-1)

/**
 * struct gpumem_charge_req - one placement, as the limits see it
 * @cgids: the cgroup charged, then each of its ancestors up to the root
 * @depth: number of entries in @cgids
 * @minor: the device
 * @region: enum gpumem_region
 * @bytes: size of the placement
 * @tgid: the process that owns the buffer (for events)
 * @comm: its command name, or NULL for the current task's (for events)
 * @forced: a placement no request stands behind (TTM's eviction move, a
 *	kernel thread's restore, an exiting task's): charged, never denied;
 *	beyond an enforced max it is reported as in monitor mode
 * @requester: the current task is not of the owning process (another
 *	process asks in the owner's name, or a kernel thread works for it):
 *	its events name it too (the task that asked)
 * @nodes: NULL, or room for GPUMEM_LIMITS_NODES(@depth) counters: the
 *	charge fills in the device's counter of each level it charged (each
 *	stays allocated while charged; the all-devices counters are found
 *	from them), and the uncharge of the same request finds them there
 *	instead of looking them up
 */
struct gpumem_charge_req {
	const u64 *cgids;
	u32 depth;
	int minor;
	u8 region;
	u64 bytes;
	pid_t tgid;
	const char *comm;
	bool forced;
	bool requester;
	struct gpumem_cg_node **nodes;
};

/*
 * The counters a charge keeps for its uncharge: per level, its device's (the
 * all-devices one is found from it)
 */
#define GPUMEM_LIMITS_NODES(depth)	(depth)

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

/**
 * struct gpumem_limit_change - new values for a limit
 * @max: hard limit, GPUMEM_NO_LIMIT for none
 * @high: soft limit, GPUMEM_NO_LIMIT for none
 * @mode: enum gpumem_limit_mode
 * @keep_max: leave max as it is (@max unused)
 * @keep_high: leave high as it is (@high unused)
 * @keep_mode: leave the mode as it is (@mode unused)
 */
struct gpumem_limit_change {
	u64 max;
	u64 high;
	u32 mode;
	bool keep_max;
	bool keep_high;
	bool keep_mode;
};

int gpumem_limits_charge(const struct gpumem_charge_req *req, bool quiet);
void gpumem_limits_uncharge(const struct gpumem_charge_req *req);
int gpumem_limits_set(u64 cgid, int minor, u8 region, u64 max, u64 high,
		      u32 mode);
int gpumem_limits_update(u64 cgid, int minor, u8 region,
			 const struct gpumem_limit_change *chg);
int gpumem_limits_del(u64 cgid, int minor, u8 region);
bool gpumem_limits_device_present(int minor);
int gpumem_limits_device_add(int minor);
void gpumem_limits_device_gone(int minor);

/**
 * struct gpumem_limits_cursor - a reader's position in the counters
 * @bucket: the next hash bucket to copy
 * @rows: the rows of the last chunk (kvmalloc'ed, charged to the reader)
 * @cap: room in @rows
 * @nrows: rows in @rows
 */
struct gpumem_limits_cursor {
	unsigned int bucket;
	struct gpumem_limit_row *rows;
	size_t cap;
	size_t nrows;
};

struct gpumem_device_listener;
extern const struct gpumem_device_listener gpumem_limits_listener;
int gpumem_limits_rows(struct gpumem_limit_row **rowsp, size_t *nrowsp,
		       bool limits_only);
int gpumem_limits_rows_next(struct gpumem_limits_cursor *cur, bool limits_only);
void gpumem_limits_cursor_free(struct gpumem_limits_cursor *cur);
int gpumem_limits_get(u64 cgid, int minor, u8 region,
		      struct gpumem_limit_row *row);
size_t gpumem_limits_leaks(const struct gpumem_leak_params *p,
			   unsigned int first, unsigned int nr,
			   struct gpumem_leak_hit *hits, size_t max);
unsigned int gpumem_limits_leak_buckets(void);
size_t gpumem_limits_suspects(struct gpumem_leak_hit *hits, size_t max);
void gpumem_limits_exit(void);

#endif /* GPUMEM_LIMITS_H */
