// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem charges: one record per charged placement (a TTM resource), who
 * owns it, and how long.
 *
 * Attribution rule (like the kernel's dmem controller): a placement in a
 * hooked region is charged to the cgroup v2 of the task that allocates it,
 * and to every ancestor of that cgroup (a cgroup's usage includes its
 * descendants), when the TTM resource is allocated; it is uncharged when the
 * resource is freed. An evicted buffer is uncharged (its resource is freed)
 * and charged again to whoever makes it resident later. Kernel threads are
 * never charged (evictions and restores done by kworkers, driver-internal
 * work), nor are exiting tasks (what a driver allocates while a process
 * closes its files on the way out, such as qxl's release and console
 * buffers, is the driver's, not the container's). Placements made before
 * gpumem was loaded were never charged and are never uncharged.
 *
 * A charge stays with its cgroups until its resource is freed: closing the
 * last handle while a mapping or a dma-buf keeps the buffer, or the exit of
 * the allocating process, changes nothing (a tenant cannot shed a charge
 * and allocate again). What a driver allocates in a user task's close()
 * (qxl's release buffers, an fbdev image restored on last close) is
 * therefore charged to that task's cgroup while it exists; it is bounded by
 * the driver. Only the allocating process's counters (the charged view, see
 * proc_usage.c) let go of a charge whose buffer has had no GEM handle and no
 * dma-buf for GPUMEM_ORPHAN_AGE, see gpumem_charge_orphan().
 *
 * Locking: gpumem_charges_lock (a mutex) serialises adding and removing
 * charge records with the sweep, which reads the records' buffers: a buffer
 * outlives its resource, whose free removes the record under this mutex.
 * Charge records live in an rhashtable keyed by the resource pointer; a
 * record is only removed by the free of its resource or by
 * gpumem_charge_forget_device() after the device's hooks are gone, never
 * concurrently for the same resource. The counters and limits have their
 * own lock (limits.c), taken inside this one or alone.
 */
#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/overflow.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_gem.h>
#include "charge.h"
#include "fault_inject.h"
#include "limits.h"
#include "proc_usage.h"

/* A charge whose buffer no handle reaches for this long leaves its process. */
#define GPUMEM_ORPHAN_AGE	(2 * HZ)

/**
 * struct gpumem_charge - one charged placement
 * @rnode: entry in gpumem_charges, keyed by @res
 * @rcu: for freeing after rhashtable readers
 * @res: the resource (a key only: never dereferenced)
 * @obj: its buffer, or NULL once the device is being detached (inert)
 * @bytes: size charged
 * @minor: the device
 * @region: enum gpumem_region
 * @tgid: the allocating process
 * @pu: its per-process counters, NULL once the charge left them
 * @since: jiffies since which no handle or dma-buf reaches @obj
 * @depth: number of entries in @cgids
 * @cgids: the cgroup charged, then its ancestors up to the root
 */
struct gpumem_charge {
	struct rhash_head rnode;
	struct rcu_head rcu;
	struct ttm_resource *res;
	struct drm_gem_object *obj;
	u64 bytes;
	int minor;
	u8 region;
	pid_t tgid;
	struct gpumem_proc_usage *pu;
	unsigned long since;
	u32 depth;
	u64 cgids[];
};

static DEFINE_MUTEX(gpumem_charges_lock);

static const struct rhashtable_params gpumem_charge_params = {
	.key_len = sizeof(struct ttm_resource *),
	.key_offset = offsetof(struct gpumem_charge, res),
	.head_offset = offsetof(struct gpumem_charge, rnode),
	.automatic_shrinking = true,
};

static struct rhashtable gpumem_charges;
/*
 * Devices being detached (minor -> xa_mk_value(1)): their records are inert
 * (no buffer pointer) and new charges are given back at once. Changed under
 * gpumem_charges_lock.
 */
static DEFINE_XARRAY(gpumem_detaching);
static void gpumem_charge_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_charge_sweep_work, gpumem_charge_sweep_fn);

/* The limits' view of @c. */
static struct gpumem_charge_req gpumem_charge_req(const struct gpumem_charge *c)
{
	return (struct gpumem_charge_req) {
		.cgids = c->cgids, .depth = c->depth, .minor = c->minor,
		.region = c->region, .bytes = c->bytes, .tgid = c->tgid,
	};
}

static struct gpumem_charge *gpumem_charge_alloc_current(void)
{
	struct gpumem_charge *c;
	struct cgroup *cgrp;
	u32 depth, d;

	for (;;) {
		rcu_read_lock();
		depth = task_dfl_cgroup(current)->level + 1;
		rcu_read_unlock();
		if (gpumem_fail_charge())
			return NULL;
		c = kzalloc(struct_size(c, cgids, depth), GFP_KERNEL);
		if (!c)
			return NULL;
		rcu_read_lock();
		cgrp = task_dfl_cgroup(current);
		for (d = 0; cgrp && d < depth; cgrp = cgroup_parent(cgrp))
			c->cgids[d++] = cgroup_id(cgrp);
		rcu_read_unlock();
		if (!cgrp) {
			c->depth = d;
			return c;
		}
		kfree(c);	/* moved to a deeper cgroup meanwhile */
	}
}

/**
 * gpumem_charge_new() - charge a placement to the current task's cgroups
 * @minor: the device
 * @region: the region of the placement (enum gpumem_region)
 * @bytes: its size
 * @quiet: a repeat of a placement just denied (the same request retried by
 *	TTM): decide the same way, but count and report it only once
 * @chargep: the charge, to commit to the resource or cancel; NULL when
 *	nothing was charged (kernel threads, exiting tasks)
 *
 * Context: process context, may sleep (the TTM resource allocation path).
 * Return: 0, -ENOSPC when a limit in enforce mode denies the placement, or
 *	-ENOMEM when gpumem itself is out of memory (nothing is charged then;
 *	the caller lets the placement through uncharged).
 */
int gpumem_charge_new(int minor, u8 region, u64 bytes, bool quiet,
		      struct gpumem_charge **chargep)
{
	struct gpumem_charge_req req;
	char comm[TASK_COMM_LEN];
	struct gpumem_charge *c;
	int ret;

	*chargep = NULL;
	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return 0;
	c = gpumem_charge_alloc_current();
	if (!c)
		return -ENOMEM;
	c->bytes = bytes;
	c->minor = minor;
	c->region = region;
	c->tgid = task_tgid_nr(current);
	c->since = jiffies;
	get_task_comm(comm, current->group_leader);
	c->pu = gpumem_proc_usage_get(task_tgid(current), comm, minor);
	if (!c->pu) {
		kfree(c);
		return -ENOMEM;
	}
	req = gpumem_charge_req(c);
	ret = gpumem_limits_charge(&req, quiet);
	if (ret) {
		gpumem_proc_usage_put(c->pu);
		kfree(c);
		return ret;
	}
	gpumem_proc_usage_charge(c->pu, region, bytes);
	*chargep = c;
	return 0;
}

/* Stop counting @c for its allocating process (the orphan sweep, or free). */
static void gpumem_charge_drop_process(struct gpumem_charge *c)
{
	if (c->pu)
		gpumem_proc_usage_uncharge(c->pu, c->region, c->bytes);
	c->pu = NULL;
}

static void gpumem_charge_uncharge(struct gpumem_charge *c)
{
	struct gpumem_charge_req req = gpumem_charge_req(c);

	gpumem_limits_uncharge(&req);
	gpumem_charge_drop_process(c);
}

/*
 * A record for the same resource address exists: only an inert record of a
 * device being detached can be stale (its resource was freed without
 * gpumem and the address reused). Drop it and insert @charge. Caller holds
 * gpumem_charges_lock.
 */
static int gpumem_charge_replace_inert(struct gpumem_charge *charge)
{
	struct gpumem_charge *old;

	lockdep_assert_held(&gpumem_charges_lock);
	old = rhashtable_lookup_fast(&gpumem_charges, &charge->res,
				     gpumem_charge_params);
	if (!old || old->obj)
		return -EEXIST;
	rhashtable_remove_fast(&gpumem_charges, &old->rnode, gpumem_charge_params);
	gpumem_charge_uncharge(old);
	kfree_rcu(old, rcu);
	return rhashtable_insert_fast(&gpumem_charges, &charge->rnode,
				      gpumem_charge_params);
}

/**
 * gpumem_charge_commit() - tie a charge to the resource it paid for
 * @charge: from gpumem_charge_new() (may be NULL: nothing to do)
 * @res: the resource the allocation produced
 * @obj: the buffer object the resource belongs to
 *
 * Context: may sleep.
 */
void gpumem_charge_commit(struct gpumem_charge *charge,
			  struct ttm_resource *res, struct drm_gem_object *obj)
{
	int ret;

	if (!charge)
		return;
	charge->res = res;
	charge->obj = obj;
	mutex_lock(&gpumem_charges_lock);
	if (xa_load(&gpumem_detaching, charge->minor)) {
		ret = -ENODEV;	/* its free may bypass gpumem from now on */
	} else {
		ret = rhashtable_insert_fast(&gpumem_charges, &charge->rnode,
					     gpumem_charge_params);
		if (ret == -EEXIST)
			ret = gpumem_charge_replace_inert(charge);
	}
	mutex_unlock(&gpumem_charges_lock);
	if (ret == -ENODEV) {
		gpumem_charge_uncharge(charge);
		kfree(charge);
		return;
	}
	if (WARN_ON_ONCE(ret)) {
		/* cannot track it: give the charge back at once */
		gpumem_charge_uncharge(charge);
		kfree(charge);
		return;
	}
	/* queue, never postpone: steady allocation must not starve the sweep */
	queue_delayed_work(system_wq, &gpumem_charge_sweep_work,
			   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_charge_cancel() - give back a charge whose allocation failed
 * @charge: from gpumem_charge_new() (may be NULL)
 */
void gpumem_charge_cancel(struct gpumem_charge *charge)
{
	if (!charge)
		return;
	gpumem_charge_uncharge(charge);
	kfree(charge);
}

/**
 * gpumem_charge_release() - uncharge a resource that is being freed
 * @res: the resource; called before the driver frees it
 *
 * Resources gpumem never charged (allocated before it was loaded, by kernel
 * threads) have no record and are left alone.
 *
 * Context: may sleep.
 */
void gpumem_charge_release(struct ttm_resource *res)
{
	struct gpumem_charge *c;

	mutex_lock(&gpumem_charges_lock);
	c = rhashtable_lookup_fast(&gpumem_charges, &res, gpumem_charge_params);
	if (c)
		rhashtable_remove_fast(&gpumem_charges, &c->rnode,
				       gpumem_charge_params);
	mutex_unlock(&gpumem_charges_lock);
	if (!c)
		return;
	gpumem_charge_uncharge(c);
	kfree_rcu(c, rcu);
}

/*
 * Walk every charge record with gpumem_charges_lock held; @fn returns true
 * to drop the record (it is then uncharged and freed).
 */
static void gpumem_charge_walk(bool (*fn)(struct gpumem_charge *c, void *arg),
			       void *arg)
{
	struct rhashtable_iter iter;
	struct gpumem_charge *c;

	lockdep_assert_held(&gpumem_charges_lock);
	rhashtable_walk_enter(&gpumem_charges, &iter);
	rhashtable_walk_start(&iter);
	while ((c = rhashtable_walk_next(&iter))) {
		if (IS_ERR(c))
			continue;	/* -EAGAIN: table resized, go on */
		if (!fn(c, arg))
			continue;
		rhashtable_remove_fast(&gpumem_charges, &c->rnode,
				       gpumem_charge_params);
		gpumem_charge_uncharge(c);
		kfree_rcu(c, rcu);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

static bool gpumem_charge_on_device(struct gpumem_charge *c, void *arg)
{
	return c->minor == *(int *)arg;
}

static bool gpumem_charge_make_inert(struct gpumem_charge *c, void *arg)
{
	if (c->minor == *(int *)arg)
		c->obj = NULL;
	return false;
}

/**
 * gpumem_charge_device_inert() - a device is about to be detached
 * @minor: the device, whose hooks are still in place
 *
 * From now on its buffers may be freed without gpumem seeing it: no record
 * of the device keeps a buffer pointer, and charges committed meanwhile are
 * given back at once. gpumem_charge_forget_device() ends this.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM (nothing changed).
 */
int gpumem_charge_device_inert(int minor)
{
	int ret;

	mutex_lock(&gpumem_charges_lock);
	ret = xa_err(xa_store(&gpumem_detaching, minor, xa_mk_value(1),
			      GFP_KERNEL));
	if (!ret)
		gpumem_charge_walk(gpumem_charge_make_inert, &minor);
	mutex_unlock(&gpumem_charges_lock);
	return ret;
}

/**
 * gpumem_charge_forget_device() - drop every charge of a device
 * @minor: the device, whose hooks are already removed
 *
 * Its resources are freed without gpumem from now on: uncharge them now.
 */
void gpumem_charge_forget_device(int minor)
{
	mutex_lock(&gpumem_charges_lock);
	gpumem_charge_walk(gpumem_charge_on_device, &minor);
	xa_erase(&gpumem_detaching, minor);
	mutex_unlock(&gpumem_charges_lock);
}

/*
 * The sweep's visit of one charge. A charge stays with its cgroups until
 * its resource is freed, whatever becomes of handles, mappings, dma-bufs or
 * the allocating process (memcg's and dmem's rule: a tenant that mmaps a
 * buffer and closes its handle keeps paying for it). Only the per-process
 * counters (the charged view) let go: of a charge whose process has exited,
 * and of one whose buffer no handle or dma-buf has reached for
 * GPUMEM_ORPHAN_AGE.
 */
static bool gpumem_charge_orphan(struct gpumem_charge *c, void *arg)
{
	bool *more = arg;

	if (!c->pu)
		return false;
	*more = true;	/* still counted for a process: look again later */
	if (!c->obj)
		return false;	/* inert: its device is being detached */
	if (gpumem_proc_usage_exited(c->pu)) {
		gpumem_charge_drop_process(c);	/* its process is gone */
		return false;
	}
	if (READ_ONCE(c->obj->handle_count) || READ_ONCE(c->obj->dma_buf)) {
		c->since = jiffies;
		return false;
	}
	if (time_before(jiffies, c->since + GPUMEM_ORPHAN_AGE))
		return false;
	gpumem_charge_drop_process(c);
	return false;
}

static void gpumem_charge_sweep_fn(struct work_struct *work)
{
	bool more = false;

	mutex_lock(&gpumem_charges_lock);
	gpumem_charge_walk(gpumem_charge_orphan, &more);
	mutex_unlock(&gpumem_charges_lock);
	if (more)
		queue_delayed_work(system_wq, &gpumem_charge_sweep_work,
				   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_charge_init() - set up the charge records
 *
 * Return: 0 or a negative errno.
 */
int gpumem_charge_init(void)
{
	return rhashtable_init(&gpumem_charges, &gpumem_charge_params);
}

static void gpumem_charge_free(void *ptr, void *arg)
{
	struct gpumem_charge *c = ptr;

	gpumem_charge_uncharge(c);
	kfree(c);
}

/**
 * gpumem_charge_exit() - give back and free every record
 *
 * Context: module exit, after every hook is gone.
 */
void gpumem_charge_exit(void)
{
	cancel_delayed_work_sync(&gpumem_charge_sweep_work);
	rhashtable_free_and_destroy(&gpumem_charges, gpumem_charge_free, NULL);
	rcu_barrier();	/* kfree_rcu() of released records */
}
