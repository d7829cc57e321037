/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem snapshot rows: the result of one walk of every DRM device, client
 * and GEM object (or of one copy of the counters), aggregated per process,
 * device and region, and what builds them (the walk, account.c,
 * proc_usage.c). A snapshot is private to its reader: it is built, printed
 * and freed without locks. Readers take and release snapshots through
 * snapshot.h.
 */
#ifndef GPUMEM_ROWS_H
#define GPUMEM_ROWS_H

#include <linux/types.h>
#include <linux/sched.h>
#include <linux/xarray.h>
#include "classify.h"
#include "dmem.h"
#include "frag.h"

struct cgroup;
struct pid;

/* Also record one row per buffer object (the debugfs `buffers` view). */
#define GPUMEM_SNAP_BUFFERS	BIT(0)
/* Only the device rows: no client or object is visited. */
#define GPUMEM_SNAP_DEVICES	BIT(1)
/*
 * The device rows, and process rows from the per-process counters kept at
 * allocation time (hooked VRAM/GTT placements, "allocated by"; see
 * proc_usage.c) instead of a walk (every placement, "held by").
 */
#define GPUMEM_SNAP_CHARGED	BIT(2)
/*
 * With the device rows, each counted region's free space as its managers'
 * printers describe it (frag.c); at most once a second per device, else
 * the figures of the last reading.
 */
#define GPUMEM_SNAP_FRAG	BIT(3)

/**
 * struct gpumem_dev_row - one DRM device as seen by a snapshot
 * @minor: index of the primary minor (the netlink device id)
 * @name: primary minor name ("card0")
 * @driver: &drm_driver.name
 * @unique: &drm_device.unique, or the parent device's name
 * @desc: the driver's description (&drm_driver.desc), "" if none
 * @render: index of the render minor (N of renderDN), -1 if none
 * @ttm: the device's objects are TTM buffer objects gpumem classifies
 * @regions: bitmask of regions the device has a TTM resource manager for
 * @cap_known: bitmask of regions whose capacity is known
 * @capacity: bytes per region (sum of the region's managers)
 * @used: bytes in use per region, from the managers (includes kernel BOs)
 * @frag: free space per region (GPUMEM_SNAP_FRAG only)
 * @frag_age_ms: how old @frag is, in milliseconds
 * @dmem: per region, the dmem cgroup regions of its managers (dmem.c)
 * @ndmem: per region, how many of @dmem are filled
 * @procs: struct gpumem_proc_row by tgid
 */
struct gpumem_dev_row {
	int minor;
	char name[16];
	char driver[32];
	char unique[64];
	char desc[64];
	int render;
	bool ttm;
	u32 regions;
	u32 cap_known;
	u64 capacity[GPUMEM_REGION_COUNT];
	u64 used[GPUMEM_REGION_COUNT];
	struct gpumem_frag frag[GPUMEM_REGION_COUNT];
	u32 frag_age_ms;
	struct gpumem_dmem_info dmem[GPUMEM_REGION_COUNT][GPUMEM_DMEM_PER_REGION];
	u8 ndmem[GPUMEM_REGION_COUNT];
	struct xarray procs;
};

/**
 * struct gpumem_task_row - identity of a process, resolved once per snapshot
 * @tgid: thread group id in the initial pid namespace (0: kernel clients)
 * @comm: command name, "?" when the process is gone
 * @cgroup_id: id of its cgroup v2 (the directory's inode number), 0 if none
 * @cgroup: path of that cgroup (in &gpumem_snapshot.cgroups), or NULL
 */
struct gpumem_task_row {
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	u64 cgroup_id;
	const char *cgroup;
};

/**
 * struct gpumem_proc_row - one process's usage on one device
 * @tgid: the process
 * @dev: index into &gpumem_snapshot.devs
 * @task: the process's identity, a row of the same snapshot (set by
 *	gpumem_snapshot_finish() at the latest; NULL: none)
 * @bytes: bytes of distinct BOs held, per region
 * @shared: bytes of those BOs also held elsewhere or exported/imported
 * @owned: bytes of BOs this process owns (see gpumem_account_device())
 * @bos: number of distinct BOs held
 * @skipped: distinct BOs held whose placement could not be read (their
 *	reservation stayed busy): in none of the figures above
 */
struct gpumem_proc_row {
	pid_t tgid;
	unsigned int dev;
	const struct gpumem_task_row *task;
	u64 bytes[GPUMEM_REGION_COUNT];
	u64 shared;
	u64 owned;
	u32 bos;
	u32 skipped;
};

/**
 * struct gpumem_buf_row - one buffer object (GPUMEM_SNAP_BUFFERS only)
 * @dev: index into &gpumem_snapshot.devs
 * @owner: the owning process
 * @handle: GEM handle of the object in the owner's file
 * @size: bytes
 * @mem_type: TTM memory type, -1 for a non-TTM object
 * @region: enum gpumem_region
 * @shared: held by several processes or a dma-buf
 * @first_holder: index of the first holder in &gpumem_snapshot.holders
 * @nr_holders: number of holders (owner first)
 * @kernel_holder: one of them is pid 0, an in-kernel client
 * @obj: the buffer (a key to compare only, never dereferenced)
 *
 * The buffers reached through one client file only share that file's
 * holder list: equal @first_holder means equal holders.
 */
struct gpumem_buf_row {
	const void *obj;
	unsigned int dev;
	pid_t owner;
	u32 handle;
	u64 size;
	s16 mem_type;
	u8 region;
	bool shared;
	size_t first_holder;
	u32 nr_holders;
	bool kernel_holder;
};

/**
 * struct gpumem_snapshot - everything one reader sees
 * @flags: GPUMEM_SNAP_*
 * @nr_devs: number of devices
 * @devs: the devices, in minor order
 * @tasks: while a walk builds the snapshot, its struct gpumem_task_row by
 *	tgid (kmalloc'ed, each freed with the snapshot)
 * @cgroups: cgroup paths (kmalloc'ed strings) by cgroup id
 * @task_list: every task row, by tgid (gpumem_snapshot_finish())
 * @nr_tasks: number of @task_list
 * @procs: every process row, by device then tgid (gpumem_snapshot_finish())
 * @nr_procs: number of @procs
 * @task_pool: a charged snapshot's task rows, in one allocation (then
 *	@tasks is empty); see gpumem_proc_usage_fill()
 * @proc_pool: a charged snapshot's process rows, in one allocation (then
 *	the devices' &gpumem_dev_row.procs are empty)
 * @bufs: buffer rows, by device, in walk order
 * @nr_bufs: number of @bufs
 * @cap_bufs: allocated @bufs
 * @holders: holder pids referenced by @bufs (a list may be shared by
 *	several buffers)
 * @nr_holders: number of @holders
 * @cap_holders: allocated @holders
 * @walk_ns: how long the walk took
 * @collect_ns: of which visiting clients and objects
 * @account_ns: of which aggregating
 * @release_ns: of which dropping object references
 * @work: a walk's work units: tasks, fd slots, files, handles and holders
 *	it visited (0 for a snapshot without a walk)
 * @clients: DRM files visited
 * @bos: object handles visited
 * @skipped: objects whose placement could not be read (busy)
 * @rows_bytes: bytes of the task and process rows and cgroup paths a walk
 *	allocated one by one (gpumem_snapshot_bytes())
 * @max_bytes: the most gpumem_snapshot_bytes() may reach while the
 *	snapshot is made and kept (0: no cap)
 *
 * Everything a snapshot holds is charged to the task that makes it
 * (GFP_KERNEL_ACCOUNT: its memory cgroup).
 */
struct gpumem_snapshot {
	unsigned int flags;
	unsigned int nr_devs;
	struct gpumem_dev_row *devs;
	struct xarray tasks;
	struct xarray cgroups;
	struct gpumem_task_row **task_list;
	size_t nr_tasks;
	struct gpumem_proc_row **procs;
	size_t nr_procs;
	struct gpumem_task_row *task_pool;
	struct gpumem_proc_row *proc_pool;
	struct gpumem_buf_row *bufs;
	size_t nr_bufs, cap_bufs;
	pid_t *holders;
	size_t nr_holders, cap_holders;
	u64 walk_ns;
	u64 collect_ns, account_ns, release_ns;
	u64 work;
	u32 clients;
	u64 bos;
	u64 skipped;
	size_t rows_bytes;
	size_t max_bytes;
};

/**
 * struct gpumem_snap_filter - the rows a charged snapshot is built for
 * @has_pid: only the process @pid
 * @pid: a tgid, as the initial pid namespace sees it
 * @minor: only this device, or -1
 * @cgrp: only processes in this cgroup or below it, or NULL (referenced by
 *	the caller for as long as the snapshot is built)
 *
 * A filtered snapshot does work in proportion to what it returns: counters
 * of other processes and devices are skipped before anything is resolved.
 * Its device rows are complete.
 */
struct gpumem_snap_filter {
	bool has_pid;
	pid_t pid;
	int minor;
	struct cgroup *cgrp;
};

struct gpumem_snapshot *gpumem_snapshot_alloc(unsigned int nr_devs,
					      unsigned int flags);
void gpumem_snapshot_free(struct gpumem_snapshot *snap);
int gpumem_snapshot_finish(struct gpumem_snapshot *snap);
int gpumem_snapshot_dev_index(const struct gpumem_snapshot *snap, int minor);
struct gpumem_proc_row *gpumem_snapshot_proc(struct gpumem_snapshot *snap,
					     unsigned int dev, pid_t tgid);
int gpumem_vec_reserve(void **vec, size_t *cap, size_t need, size_t elem);
void gpumem_vec_shrink(void **vec, size_t *cap, size_t n, size_t elem);
size_t gpumem_snapshot_bytes(const struct gpumem_snapshot *snap);
int gpumem_snapshot_check(const struct gpumem_snapshot *snap);
int gpumem_snapshot_reserve(struct gpumem_snapshot *snap, void **vec,
			    size_t *cap, size_t need, size_t elem);
void gpumem_snapshot_shrink(struct gpumem_snapshot *snap);
size_t gpumem_snapshot_max_bytes(void);
int gpumem_snapshot_task(struct gpumem_snapshot *snap, struct pid *pid,
			 const char *gone_comm, char *path, pid_t *tgidp);
void gpumem_snapshot_task_identity(struct gpumem_snapshot *snap,
				   struct gpumem_task_row *row, struct pid *pid,
				   const char *gone_comm, char *path);

#endif /* GPUMEM_ROWS_H */
