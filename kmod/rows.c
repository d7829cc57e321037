// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem snapshot rows: allocation, row lookup, ordering and release (the
 * builders' side; readers take snapshots through snapshot.c).
 */
#include <linux/cgroup.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "rows.h"

/*
 * The most a report may keep: a netlink dump's snapshot stays until its
 * requester has read it (or closed the socket), a debugfs file's until it
 * is closed, so this is what one socket or open file can pin.
 */
static unsigned long dump_max_bytes = SZ_64M;
module_param(dump_max_bytes, ulong, 0644);
MODULE_PARM_DESC(dump_max_bytes, "most bytes of rows a dump or report (proc-get, buf-get, dev-get, orphan-get, leak-get; the debugfs views) may keep until it is read; a larger one fails with EMSGSIZE, an orphans report lists fewer holder pids (default 64 MiB)");

/**
 * gpumem_snapshot_max_bytes() - the cap of a dump's or report's rows
 *
 * Return: the module parameter dump_max_bytes (0: no cap).
 */
size_t gpumem_snapshot_max_bytes(void)
{
	return READ_ONCE(dump_max_bytes);
}

/**
 * gpumem_vec_reserve() - grow a kvmalloc'ed array to hold @need elements
 * @vec: the array (kvfree()d and replaced when it grows)
 * @cap: its capacity in elements
 * @need: the number of elements needed
 * @elem: the size of one element
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM (the array is unchanged then).
 */
int gpumem_vec_reserve(void **vec, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = max_t(size_t, *cap, 16);
	void *nvec;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (check_mul_overflow(ncap, (size_t)2, &ncap))
			return -ENOMEM;
	}
	nvec = kvmalloc_array(ncap, elem, GFP_KERNEL_ACCOUNT);
	if (!nvec)
		return -ENOMEM;
	if (*cap)
		memcpy(nvec, *vec, *cap * elem);
	kvfree(*vec);
	*vec = nvec;
	*cap = ncap;
	return 0;
}

/**
 * gpumem_vec_shrink() - give back what an array grown by
 *	gpumem_vec_reserve() does not use
 * @vec: the array (replaced by a copy of its first @n elements when that
 *	saves more than a quarter of it)
 * @cap: its capacity in elements
 * @n: the elements in use
 * @elem: the size of one element
 *
 * Without memory for the copy the array stays as it is.
 *
 * Context: may sleep.
 */
void gpumem_vec_shrink(void **vec, size_t *cap, size_t n, size_t elem)
{
	void *nvec = NULL;

	if (n >= *cap - *cap / 4)
		return;
	if (n) {
		nvec = kvmalloc_array(n, elem, GFP_KERNEL_ACCOUNT);
		if (!nvec)
			return;
		memcpy(nvec, *vec, n * elem);
	}
	kvfree(*vec);
	*vec = nvec;
	*cap = n;
}

/**
 * gpumem_snapshot_bytes() - the bytes of rows a snapshot keeps
 * @snap: the snapshot (complete, or being made)
 *
 * Its device rows, task and process rows with the lists of them, cgroup
 * paths (one per cgroup), buffer rows and holder pids as allocated.
 *
 * Return: the bytes.
 */
size_t gpumem_snapshot_bytes(const struct gpumem_snapshot *snap)
{
	size_t b = snap->nr_devs * sizeof(*snap->devs) + snap->rows_bytes +
		   snap->nr_tasks * sizeof(*snap->task_list) +
		   snap->nr_procs * sizeof(*snap->procs) +
		   snap->cap_bufs * sizeof(*snap->bufs) +
		   snap->cap_holders * sizeof(*snap->holders);

	if (snap->task_pool)
		b += snap->nr_tasks * sizeof(*snap->task_pool);
	if (snap->proc_pool)
		b += snap->nr_procs * sizeof(*snap->proc_pool);
	return b;
}

/**
 * gpumem_snapshot_check() - is a snapshot within its cap?
 * @snap: the snapshot
 *
 * Return: 0, or -EMSGSIZE when it keeps more than &gpumem_snapshot.max_bytes.
 */
int gpumem_snapshot_check(const struct gpumem_snapshot *snap)
{
	if (snap->max_bytes && gpumem_snapshot_bytes(snap) > snap->max_bytes)
		return -EMSGSIZE;
	return 0;
}

/**
 * gpumem_snapshot_reserve() - grow one of a snapshot's arrays, within its cap
 * @snap: the snapshot
 * @vec: one of its arrays (as gpumem_vec_reserve())
 * @cap: its capacity in elements
 * @need: the number of elements needed
 * @elem: the size of one element
 *
 * Context: may sleep.
 * Return: 0, -ENOMEM, or -EMSGSIZE when the snapshot would keep more than
 *	&gpumem_snapshot.max_bytes (it is to be freed then).
 */
int gpumem_snapshot_reserve(struct gpumem_snapshot *snap, void **vec,
			    size_t *cap, size_t need, size_t elem)
{
	int ret;

	if (need <= *cap)
		return 0;
	ret = gpumem_vec_reserve(vec, cap, need, elem);
	return ret ? ret : gpumem_snapshot_check(snap);
}

/**
 * gpumem_snapshot_shrink() - fit a finished snapshot's arrays to their rows
 * @snap: the snapshot
 *
 * The buffer rows and holder pids grow by doubling while a walk adds them;
 * once it is done, what they do not use is given back.
 *
 * Context: may sleep.
 */
void gpumem_snapshot_shrink(struct gpumem_snapshot *snap)
{
	gpumem_vec_shrink((void **)&snap->bufs, &snap->cap_bufs, snap->nr_bufs,
			  sizeof(*snap->bufs));
	gpumem_vec_shrink((void **)&snap->holders, &snap->cap_holders,
			  snap->nr_holders, sizeof(*snap->holders));
}

/**
 * gpumem_snapshot_alloc() - allocate an empty snapshot
 * @nr_devs: number of device rows
 * @flags: GPUMEM_SNAP_*
 *
 * Return: the snapshot, or NULL.
 */
struct gpumem_snapshot *gpumem_snapshot_alloc(unsigned int nr_devs,
					      unsigned int flags)
{
	struct gpumem_snapshot *snap;
	unsigned int i;

	snap = kzalloc(sizeof(*snap), GFP_KERNEL_ACCOUNT);
	if (!snap)
		return NULL;
	snap->flags = flags;
	xa_init(&snap->tasks);
	xa_init(&snap->cgroups);
	if (nr_devs) {
		snap->devs = kcalloc(nr_devs, sizeof(*snap->devs),
				     GFP_KERNEL_ACCOUNT);
		if (!snap->devs) {
			kfree(snap);
			return NULL;
		}
	}
	snap->nr_devs = nr_devs;
	for (i = 0; i < nr_devs; i++)
		xa_init(&snap->devs[i].procs);
	return snap;
}

/**
 * gpumem_snapshot_free() - free a snapshot and everything it holds
 * @snap: the snapshot, or NULL
 */
void gpumem_snapshot_free(struct gpumem_snapshot *snap)
{
	struct gpumem_proc_row *proc;
	struct gpumem_task_row *task;
	unsigned long idx;
	unsigned int i;
	char *path;

	if (!snap)
		return;
	for (i = 0; i < snap->nr_devs; i++) {
		xa_for_each(&snap->devs[i].procs, idx, proc)
			kfree(proc);
		xa_destroy(&snap->devs[i].procs);
	}
	xa_for_each(&snap->tasks, idx, task)
		kfree(task);
	xa_destroy(&snap->tasks);
	xa_for_each(&snap->cgroups, idx, path)
		kfree(path);
	xa_destroy(&snap->cgroups);
	kvfree(snap->task_list);
	kvfree(snap->task_pool);
	kvfree(snap->procs);
	kvfree(snap->proc_pool);
	kvfree(snap->bufs);
	kvfree(snap->holders);
	kfree(snap->devs);
	kfree(snap);
}

/**
 * gpumem_snapshot_dev_index() - the index of a device in a snapshot
 * @snap: the snapshot
 * @minor: the device's primary minor (its netlink id)
 *
 * Return: the index into &gpumem_snapshot.devs, or -1 if it has no such
 *	device.
 */
int gpumem_snapshot_dev_index(const struct gpumem_snapshot *snap, int minor)
{
	unsigned int i;

	for (i = 0; i < snap->nr_devs; i++)
		if (snap->devs[i].minor == minor)
			return i;
	return -1;
}

/**
 * gpumem_snapshot_proc() - the row of a process on a device, created empty
 * @snap: the snapshot
 * @dev: device index
 * @tgid: the process
 *
 * Return: the row, or NULL when out of memory.
 */
struct gpumem_proc_row *gpumem_snapshot_proc(struct gpumem_snapshot *snap,
					     unsigned int dev, pid_t tgid)
{
	struct xarray *xa = &snap->devs[dev].procs;
	struct gpumem_proc_row *proc;

	proc = xa_load(xa, tgid);
	if (proc)
		return proc;
	proc = kzalloc(sizeof(*proc), GFP_KERNEL_ACCOUNT);
	if (!proc)
		return NULL;
	proc->tgid = tgid;
	proc->dev = dev;
	if (xa_err(xa_store(xa, tgid, proc, GFP_KERNEL_ACCOUNT))) {
		kfree(proc);
		return NULL;
	}
	snap->rows_bytes += sizeof(*proc);
	return proc;
}

/* The task rows a walk added to &gpumem_snapshot.tasks, as a list by tgid. */
static int gpumem_snapshot_list_tasks(struct gpumem_snapshot *snap)
{
	struct gpumem_task_row *task;
	size_t n = 0, cap = 0;
	unsigned long idx;
	int ret;

	xa_for_each(&snap->tasks, idx, task)
		n++;
	ret = gpumem_vec_reserve((void **)&snap->task_list, &cap, n,
				 sizeof(*snap->task_list));
	if (ret)
		return ret;
	n = 0;
	xa_for_each(&snap->tasks, idx, task)
		snap->task_list[n++] = task;
	snap->nr_tasks = n;
	return 0;
}

/**
 * gpumem_snapshot_finish() - list the rows for printing
 * @snap: the snapshot, fully accounted
 *
 * Lists the process rows by device then tgid and the task rows by tgid,
 * and points each process row at its task row. A charged snapshot's rows
 * come listed already (gpumem_proc_usage_fill()).
 *
 * Return: 0 or -ENOMEM.
 */
int gpumem_snapshot_finish(struct gpumem_snapshot *snap)
{
	struct gpumem_proc_row *proc;
	size_t n = 0, cap = 0;
	unsigned long idx;
	unsigned int i;
	int ret;

	if (snap->proc_pool)
		return 0;
	ret = gpumem_snapshot_list_tasks(snap);
	if (ret)
		return ret;
	for (i = 0; i < snap->nr_devs; i++)
		xa_for_each(&snap->devs[i].procs, idx, proc)
			n++;
	ret = gpumem_vec_reserve((void **)&snap->procs, &cap, n,
				 sizeof(*snap->procs));
	if (ret)
		return ret;
	n = 0;
	for (i = 0; i < snap->nr_devs; i++) {
		xa_for_each(&snap->devs[i].procs, idx, proc) {
			proc->task = xa_load(&snap->tasks, proc->tgid);
			snap->procs[n++] = proc;
		}
	}
	snap->nr_procs = n;
	return 0;
}

/**
 * gpumem_snapshot_task_identity() - fill in a process's identity
 * @snap: the snapshot the row belongs to (its cgroup paths are shared)
 * @row: the task row; its @tgid is the caller's
 * @pid: a thread or thread group pid of the process
 * @gone_comm: the command name to show when the process has exited
 * @path: PATH_MAX bytes of scratch for cgroup paths
 *
 * Sets the command name and the cgroup id and path (all of the row but its
 * @tgid), each path resolved once per cgroup and snapshot; a path that
 * cannot be copied (out of memory) is left out.
 *
 * Context: may sleep.
 */
void gpumem_snapshot_task_identity(struct gpumem_snapshot *snap,
				   struct gpumem_task_row *row, struct pid *pid,
				   const char *gone_comm, char *path)
{
	struct task_struct *task;
	bool have_path = false;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_PID);
	if (!task)
		task = pid_task(pid, PIDTYPE_TGID);
	if (task) {
		struct cgroup *cgrp = task_dfl_cgroup(task);

		get_task_comm(row->comm, task);
		row->cgroup_id = cgroup_id(cgrp);
		row->cgroup = xa_load(&snap->cgroups, row->cgroup_id);
		if (!row->cgroup)
			have_path = cgroup_path(cgrp, path, PATH_MAX) >= 0;
	} else {
		strscpy(row->comm, gone_comm, sizeof(row->comm));
		row->cgroup_id = 0;
		row->cgroup = NULL;
	}
	rcu_read_unlock();
	/* Paths are resolved once per cgroup and shared by its processes. */
	if (have_path) {
		char *copy = kstrdup(path, GFP_KERNEL_ACCOUNT);

		if (copy && xa_err(xa_store(&snap->cgroups, row->cgroup_id,
					    copy, GFP_KERNEL_ACCOUNT))) {
			kfree(copy);
			copy = NULL;
		}
		if (copy)
			snap->rows_bytes += strlen(copy) + 1;
		row->cgroup = copy;
	}
}

/**
 * gpumem_snapshot_task() - the process a pid belongs to, once per snapshot
 * @snap: the snapshot
 * @pid: a thread or thread group pid
 * @gone_comm: the command name to show when the process has exited
 * @path: PATH_MAX bytes of scratch for cgroup paths
 * @tgidp: returns the process's tgid, the key of its row in @snap->tasks
 *
 * Adds the process's row (gpumem_snapshot_task_identity()) to @snap->tasks
 * unless it is there.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int gpumem_snapshot_task(struct gpumem_snapshot *snap, struct pid *pid,
			 const char *gone_comm, char *path, pid_t *tgidp)
{
	struct gpumem_task_row *row;
	struct task_struct *task;
	pid_t tgid;
	int ret;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_PID);
	if (!task)
		task = pid_task(pid, PIDTYPE_TGID);
	tgid = task ? task_tgid_nr(task) : pid_nr(pid);
	rcu_read_unlock();
	*tgidp = tgid;
	if (xa_load(&snap->tasks, tgid))
		return 0;

	row = kzalloc(sizeof(*row), GFP_KERNEL_ACCOUNT);
	if (!row)
		return -ENOMEM;
	row->tgid = tgid;
	gpumem_snapshot_task_identity(snap, row, pid, gone_comm, path);
	ret = xa_err(xa_store(&snap->tasks, tgid, row, GFP_KERNEL_ACCOUNT));
	if (ret)
		kfree(row);
	else
		snap->rows_bytes += sizeof(*row);
	return ret;
}
