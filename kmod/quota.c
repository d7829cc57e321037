// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem quota: per-cgroup charge counters kept at allocation time, limits,
 * the allow/deny decision and the events it produces.
 *
 * Attribution rule (like the kernel's dmem controller): a placement in a
 * hooked region is charged to the cgroup v2 of the task that allocates it,
 * and to every ancestor of that cgroup (a cgroup's usage includes its
 * descendants), when the TTM resource is allocated; it is uncharged when the
 * resource is freed. Charges follow residency: an evicted buffer is
 * uncharged and charged again to whoever makes it resident later. Kernel
 * threads are never charged (evictions and restores done by kworkers,
 * driver-internal work), nor are exiting tasks (what a driver allocates while
 * a process closes its files on the way out, such as qxl's release and
 * console buffers, is the driver's, not the container's). Placements made
 * before gpumem was loaded were never charged and are never uncharged.
 *
 * Driver-internal buffers that a user task happens to allocate (qxl release
 * buffers, an fbdev image allocated on last close) must not stay charged to a
 * container: a sweep moves every charge whose buffer has had no GEM handle
 * and no dma-buf for GPUMEM_ORPHAN_AGE to the root cgroup (charged to
 * nobody's limit) and out of its allocating process's counters (see
 * proc_usage.c), see gpumem_charge_orphan().
 *
 * Locking: gpumem_charges_lock (a mutex) serialises adding and removing
 * charge records with the sweep, which reads the records' buffers: a buffer
 * outlives its resource, whose free removes the record under this mutex.
 * gpumem_quota_lock (a spinlock, taken inside it or alone)
 * protects the counter hash and every field of struct gpumem_cg_node. The
 * decision and the charge of every level happen under it in one step, so two
 * racing allocations can never both pass a limit. Charge records live in an
 * rhashtable keyed by the resource pointer; a record is only removed by the
 * free of its resource or by gpumem_quota_forget_device() after the
 * device's hooks are gone, never concurrently for the same resource.
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "classify.h"
#include "netlink.h"
#include "proc_usage.h"
#include "quota.h"

static unsigned int event_rate = 100;
static unsigned int event_burst = 200;

static int gpumem_param_set_rate(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1000000);
}

static const struct kernel_param_ops gpumem_rate_ops = {
	.set = gpumem_param_set_rate,
	.get = param_get_uint,
};

module_param_cb(event_rate, &gpumem_rate_ops, &event_rate, 0644);
MODULE_PARM_DESC(event_rate, "events per second per cgroup before rate limiting (1..1000000, default 100)");
module_param_cb(event_burst, &gpumem_rate_ops, &event_burst, 0644);
MODULE_PARM_DESC(event_burst, "burst of events per cgroup allowed at once (1..1000000, default 200)");

/* A charge whose buffer no handle reaches for this long goes to the root. */
#define GPUMEM_ORPHAN_AGE	(2 * HZ)

/**
 * struct gpumem_cg_node - usage and limit of one (cgroup, device, region)
 * @hnode: entry in gpumem_cg_hash
 * @row: its key, usage, limit and denied count, as gpumem_quota_rows()
 *	reports them (see struct gpumem_limit_row)
 * @above_high: usage is above @row.high (high-crossed fires on the way up)
 * @rl_stamp: jiffies of the last token refill
 * @rl_tokens: events that may still be sent now
 * @suppressed: events dropped since the last one sent
 *
 * All fields are protected by gpumem_quota_lock.
 */
struct gpumem_cg_node {
	struct hlist_node hnode;
	struct gpumem_limit_row row;
	bool above_high;
	unsigned long rl_stamp;
	u32 rl_tokens;
	u64 suppressed;
};

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
static DEFINE_SPINLOCK(gpumem_quota_lock);
static DEFINE_HASHTABLE(gpumem_cg_hash, 8);	/* under gpumem_quota_lock */

static const struct rhashtable_params gpumem_charge_params = {
	.key_len = sizeof(struct ttm_resource *),
	.key_offset = offsetof(struct gpumem_charge, res),
	.head_offset = offsetof(struct gpumem_charge, rnode),
	.automatic_shrinking = true,
};

static struct rhashtable gpumem_charges;
static void gpumem_quota_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_quota_sweep_work, gpumem_quota_sweep_fn);

static u64 gpumem_cg_key(u64 cgid, int minor, u8 region)
{
	return cgid * 1000003ULL + (u64)(minor + 1) * 31 + region;
}

static struct gpumem_cg_node *gpumem_cg_find(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n;

	lockdep_assert_held(&gpumem_quota_lock);
	hash_for_each_possible(gpumem_cg_hash, n, hnode,
			       gpumem_cg_key(cgid, minor, region))
		if (n->row.cgid == cgid && n->row.minor == minor && n->row.region == region)
			return n;
	return NULL;
}

/* Make sure the node exists. Context: may sleep. */
static int gpumem_cg_ensure(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n;

	spin_lock(&gpumem_quota_lock);
	n = gpumem_cg_find(cgid, minor, region);
	spin_unlock(&gpumem_quota_lock);
	if (n)
		return 0;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->row.cgid = cgid;
	n->row.minor = minor;
	n->row.region = region;
	n->row.max = GPUMEM_NO_LIMIT;
	n->row.high = GPUMEM_NO_LIMIT;
	n->rl_stamp = jiffies;
	n->rl_tokens = READ_ONCE(event_burst);
	spin_lock(&gpumem_quota_lock);
	if (!gpumem_cg_find(cgid, minor, region)) {
		hash_add(gpumem_cg_hash, &n->hnode,
			 gpumem_cg_key(cgid, minor, region));
		n = NULL;
	}
	spin_unlock(&gpumem_quota_lock);
	kfree(n);
	return 0;
}

/* Free a node nobody needs. Caller holds gpumem_quota_lock. */
static void gpumem_cg_put(struct gpumem_cg_node *n)
{
	if (!n->row.usage && !n->row.has_limit) {
		hash_del(&n->hnode);
		kfree(n);
	}
}

/*
 * Per-cgroup token bucket. Returns true when an event may be sent; then
 * @ev->suppressed says how many were dropped before it. Caller holds
 * gpumem_quota_lock.
 */
static bool gpumem_cg_ratelimit(struct gpumem_cg_node *n,
				struct gpumem_quota_event *ev)
{
	unsigned int rate = READ_ONCE(event_rate);
	unsigned long now = jiffies;
	u64 refill;

	refill = (u64)(now - n->rl_stamp) * rate / HZ;
	if (refill) {
		n->rl_tokens = min_t(u64, n->rl_tokens + refill,
				     READ_ONCE(event_burst));
		/*
		 * Advance by the whole jiffies those tokens took (never more
		 * than elapsed), keeping the fraction of a token already earned.
		 */
		n->rl_stamp += DIV_ROUND_UP_ULL(refill * HZ, rate);
		if (n->rl_tokens == READ_ONCE(event_burst))
			n->rl_stamp = now;
	}
	if (!n->rl_tokens) {
		n->suppressed++;
		return false;
	}
	n->rl_tokens--;
	ev->suppressed = n->suppressed;
	n->suppressed = 0;
	return true;
}

static void gpumem_event_fill(struct gpumem_quota_event *ev, u32 type,
			      const struct gpumem_charge *c,
			      const struct gpumem_cg_node *n, u64 limit,
			      bool denied)
{
	ev->type = type;
	ev->cgid = n->row.cgid;
	ev->pid = c->tgid;
	get_task_comm(ev->comm, current);
	ev->minor = c->minor;
	ev->region = c->region;
	ev->requested = c->bytes;
	ev->usage = n->row.usage;
	ev->limit = limit;
	ev->mode = n->row.mode;
	ev->denied = denied;
}

#define GPUMEM_MAX_EVENTS 2

/*
 * Check every level of @c against its limits and charge them all, or none.
 * Caller holds gpumem_quota_lock. Returns 0, -ENOSPC (denied) or -EAGAIN
 * (a node vanished: ensure them again).
 */
static int gpumem_quota_try(struct gpumem_charge *c, bool quiet,
			    struct gpumem_quota_event *ev, int *nev)
{
	struct gpumem_cg_node *deny = NULL, *report = NULL, *n;
	int scopes[2] = { c->minor, GPUMEM_ALL_DEVICES };
	bool high_sent = false;
	u32 d, s;

	for (d = 0; d < c->depth; d++) {
		for (s = 0; s < 2; s++) {
			n = gpumem_cg_find(c->cgids[d], scopes[s], c->region);
			if (!n)
				return -EAGAIN;
			if (!n->row.has_limit || n->row.max == GPUMEM_NO_LIMIT ||
			    n->row.usage + c->bytes <= n->row.max)
				continue;
			if (n->row.mode == GPUMEM_LIMIT_MODE_ENFORCE && !deny)
				deny = n;
			else if (n->row.mode == GPUMEM_LIMIT_MODE_MONITOR && !report)
				report = n;
		}
	}
	if (deny) {
		if (!quiet) {
			deny->row.denied++;
			if (gpumem_cg_ratelimit(deny, &ev[*nev]))
				gpumem_event_fill(&ev[(*nev)++],
						  GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
						  c, deny, deny->row.max, true);
		}
		return -ENOSPC;
	}
	if (report) {
		report->row.denied++;
		if (gpumem_cg_ratelimit(report, &ev[*nev]))
			gpumem_event_fill(&ev[(*nev)++],
					  GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
					  c, report, report->row.max, false);
	}
	for (d = 0; d < c->depth; d++) {
		for (s = 0; s < 2; s++) {
			n = gpumem_cg_find(c->cgids[d], scopes[s], c->region);
			if (n->row.has_limit && n->row.high != GPUMEM_NO_LIMIT &&
			    !n->above_high && n->row.usage + c->bytes > n->row.high) {
				n->above_high = true;
				if (!high_sent && *nev < GPUMEM_MAX_EVENTS &&
				    gpumem_cg_ratelimit(n, &ev[*nev])) {
					gpumem_event_fill(&ev[(*nev)++],
							  GPUMEM_EVENT_TYPE_HIGH_CROSSED,
							  c, n, n->row.high, false);
					high_sent = true;
				}
			}
			n->row.usage += c->bytes;
		}
	}
	return 0;
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
 * gpumem_quota_charge() - charge a placement to the current task's cgroups
 * @minor: the device
 * @region: the region of the placement (enum gpumem_region)
 * @bytes: its size
 * @quiet: a repeat of a placement just denied (the same request retried by
 *	TTM): decide the same way, but count and report it only once
 * @chargep: the charge, to commit to the resource or cancel; NULL when
 *	nothing was charged (kernel threads, exiting tasks)
 *
 * Checks the limits of the task's cgroup and all its ancestors, on this
 * device and on all devices, and charges them all in one step. Sends the
 * events that this produces.
 *
 * Context: process context, may sleep (the TTM resource allocation path).
 * Return: 0, -ENOSPC when a limit in enforce mode denies the placement, or
 *	-ENOMEM.
 */
int gpumem_quota_charge(int minor, u8 region, u64 bytes, bool quiet,
			struct gpumem_charge **chargep)
{
	struct gpumem_quota_event ev[GPUMEM_MAX_EVENTS] = {};
	char comm[TASK_COMM_LEN];
	struct gpumem_charge *c;
	int nev = 0, ret, tries, i;
	u32 d;

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

	for (tries = 0; tries < 8; tries++) {
		for (d = 0, ret = 0; d < c->depth && !ret; d++) {
			ret = gpumem_cg_ensure(c->cgids[d], minor, region);
			if (!ret)
				ret = gpumem_cg_ensure(c->cgids[d],
						       GPUMEM_ALL_DEVICES,
						       region);
		}
		if (ret)
			break;
		spin_lock(&gpumem_quota_lock);
		ret = gpumem_quota_try(c, quiet, ev, &nev);
		spin_unlock(&gpumem_quota_lock);
		if (ret != -EAGAIN)
			break;
	}
	for (i = 0; i < nev; i++)
		gpumem_netlink_event(&ev[i]);
	if (ret) {
		gpumem_proc_usage_put(c->pu);
		kfree(c);
		return ret == -EAGAIN ? -ENOMEM : ret;
	}
	gpumem_proc_usage_charge(c->pu, region, bytes);
	*chargep = c;
	return 0;
}

/* Uncharge the first @depth levels of @c (the cgroup, then its ancestors). */
static void gpumem_quota_uncharge_levels(const struct gpumem_charge *c,
					 u32 depth)
{
	int scopes[2] = { c->minor, GPUMEM_ALL_DEVICES };
	struct gpumem_cg_node *n;
	u32 d, s;

	spin_lock(&gpumem_quota_lock);
	for (d = 0; d < depth; d++) {
		for (s = 0; s < 2; s++) {
			n = gpumem_cg_find(c->cgids[d], scopes[s], c->region);
			if (WARN_ON_ONCE(!n || n->row.usage < c->bytes)) {
				if (n)
					n->row.usage = 0;
				continue;
			}
			n->row.usage -= c->bytes;
			if (n->above_high && n->row.usage <= n->row.high)
				n->above_high = false;
			gpumem_cg_put(n);
		}
	}
	spin_unlock(&gpumem_quota_lock);
}

/* Stop counting @c for its allocating process (the orphan sweep, or free). */
static void gpumem_charge_drop_process(struct gpumem_charge *c)
{
	if (c->pu)
		gpumem_proc_usage_uncharge(c->pu, c->region, c->bytes);
	c->pu = NULL;
}

static void gpumem_quota_uncharge(struct gpumem_charge *c)
{
	gpumem_quota_uncharge_levels(c, c->depth);
	gpumem_charge_drop_process(c);
}

/**
 * gpumem_quota_commit() - tie a charge to the resource it paid for
 * @charge: from gpumem_quota_charge() (may be NULL: nothing to do)
 * @res: the resource the allocation produced
 * @obj: the buffer object the resource belongs to
 *
 * Context: may sleep.
 */
void gpumem_quota_commit(struct gpumem_charge *charge,
			 struct ttm_resource *res, struct drm_gem_object *obj)
{
	int ret;

	if (!charge)
		return;
	charge->res = res;
	charge->obj = obj;
	mutex_lock(&gpumem_charges_lock);
	ret = rhashtable_insert_fast(&gpumem_charges, &charge->rnode,
				     gpumem_charge_params);
	mutex_unlock(&gpumem_charges_lock);
	if (WARN_ON_ONCE(ret)) {
		/* cannot track it: give the charge back at once */
		gpumem_quota_uncharge(charge);
		kfree(charge);
		return;
	}
	/* queue, never postpone: steady allocation must not starve the sweep */
	queue_delayed_work(system_wq, &gpumem_quota_sweep_work,
			   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_quota_cancel() - give back a charge whose allocation failed
 * @charge: from gpumem_quota_charge() (may be NULL)
 */
void gpumem_quota_cancel(struct gpumem_charge *charge)
{
	if (!charge)
		return;
	gpumem_quota_uncharge(charge);
	kfree(charge);
}

/**
 * gpumem_quota_release() - uncharge a resource that is being freed
 * @res: the resource; called before the driver frees it
 *
 * Resources gpumem never charged (allocated before it was loaded, by kernel
 * threads) have no record and are left alone.
 *
 * Context: may sleep.
 */
void gpumem_quota_release(struct ttm_resource *res)
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
	gpumem_quota_uncharge(c);
	kfree_rcu(c, rcu);
}

/*
 * Walk every charge record with gpumem_charges_lock held; @fn returns true
 * to drop the record (it is then uncharged and freed).
 */
static void gpumem_quota_walk(bool (*fn)(struct gpumem_charge *c, void *arg),
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
		gpumem_quota_uncharge(c);
		kfree_rcu(c, rcu);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

static bool gpumem_charge_on_device(struct gpumem_charge *c, void *arg)
{
	return c->minor == *(int *)arg;
}

/**
 * gpumem_quota_forget_device() - drop every charge of a device
 * @minor: the device, whose hooks are already removed
 *
 * Its resources are freed without gpumem from now on: uncharge them now.
 */
void gpumem_quota_forget_device(int minor)
{
	mutex_lock(&gpumem_charges_lock);
	gpumem_quota_walk(gpumem_charge_on_device, &minor);
	mutex_unlock(&gpumem_charges_lock);
}

/*
 * Move an orphaned charge (its buffer has no GEM handle and no dma-buf) to
 * the root cgroup: uncharge every level but the last (the root), and stop
 * counting it for the process that allocated it. A charge whose process has
 * exited leaves that process's counters at once (its cgroup keeps it).
 */
static bool gpumem_charge_orphan(struct gpumem_charge *c, void *arg)
{
	bool *more = arg;

	if (c->depth <= 1 && !c->pu)
		return false;
	*more = true;	/* charged to a cgroup or process: look again later */
	if (c->pu && gpumem_proc_usage_exited(c->pu))
		gpumem_charge_drop_process(c);	/* its process is gone */
	if (READ_ONCE(c->obj->handle_count) || READ_ONCE(c->obj->dma_buf)) {
		c->since = jiffies;
		return false;
	}
	if (time_before(jiffies, c->since + GPUMEM_ORPHAN_AGE))
		return false;
	gpumem_quota_uncharge_levels(c, c->depth - 1);	/* all but the root */
	c->cgids[0] = c->cgids[c->depth - 1];
	c->depth = 1;
	gpumem_charge_drop_process(c);
	return false;
}

static void gpumem_quota_sweep_fn(struct work_struct *work)
{
	bool more = false;

	mutex_lock(&gpumem_charges_lock);
	gpumem_quota_walk(gpumem_charge_orphan, &more);
	mutex_unlock(&gpumem_charges_lock);
	if (more)
		queue_delayed_work(system_wq, &gpumem_quota_sweep_work,
				   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_quota_set_limit() - set the limit of a cgroup on a device and region
 * @cgid: the cgroup (the caller checked it exists)
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @max: hard limit, GPUMEM_NO_LIMIT for none
 * @high: soft limit, GPUMEM_NO_LIMIT for none
 * @mode: enum gpumem_limit_mode
 *
 * A limit below the current usage is allowed: nothing is evicted, new
 * placements are denied. That is reported as a quota-exceeded event with
 * nothing requested.
 *
 * Return: 0 or -ENOMEM.
 */
int gpumem_quota_set_limit(u64 cgid, int minor, u8 region, u64 max, u64 high,
			   u32 mode)
{
	struct gpumem_quota_event ev = {};
	struct gpumem_cg_node *n;
	bool over = false;
	int ret;

	ret = gpumem_cg_ensure(cgid, minor, region);
	if (ret)
		return ret;
	spin_lock(&gpumem_quota_lock);
	n = gpumem_cg_find(cgid, minor, region);
	if (!n) {
		spin_unlock(&gpumem_quota_lock);
		return -EAGAIN;
	}
	n->row.has_limit = true;
	n->row.max = max;
	n->row.high = high;
	n->row.mode = mode;
	n->above_high = high != GPUMEM_NO_LIMIT && n->row.usage > high;
	if (max != GPUMEM_NO_LIMIT && n->row.usage > max &&
	    gpumem_cg_ratelimit(n, &ev)) {
		over = true;
		ev.type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED;
		ev.cgid = cgid;
		ev.minor = minor;
		ev.region = region;
		ev.usage = n->row.usage;
		ev.limit = max;
		ev.mode = mode;
	}
	spin_unlock(&gpumem_quota_lock);
	if (over)
		gpumem_netlink_event(&ev);
	return 0;
}

/**
 * gpumem_quota_del_limit() - remove a limit
 * @cgid: the cgroup
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 *
 * Return: 0, or -ENOENT when there is no such limit.
 */
int gpumem_quota_del_limit(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n;
	int ret = -ENOENT;

	spin_lock(&gpumem_quota_lock);
	n = gpumem_cg_find(cgid, minor, region);
	if (n && n->row.has_limit) {
		n->row.has_limit = false;
		n->row.max = GPUMEM_NO_LIMIT;
		n->row.high = GPUMEM_NO_LIMIT;
		n->above_high = false;
		gpumem_cg_put(n);
		ret = 0;
	}
	spin_unlock(&gpumem_quota_lock);
	return ret;
}

/* Drop the limits of cgroups that no longer exist. */
static void gpumem_quota_drop_removed(void)
{
	struct gpumem_cg_node *n;
	u64 *ids = NULL;
	size_t nids = 0, cap = 0, i;
	int bkt;

	do {
		kfree(ids);
		nids = 0;
		ids = cap ? kmalloc_array(cap, sizeof(*ids), GFP_KERNEL) : NULL;
		if (cap && !ids)
			return;
		spin_lock(&gpumem_quota_lock);
		hash_for_each(gpumem_cg_hash, bkt, n, hnode) {
			if (!n->row.has_limit)
				continue;
			if (nids < cap)
				ids[nids] = n->row.cgid;
			nids++;
		}
		spin_unlock(&gpumem_quota_lock);
		if (nids <= cap)
			break;
		cap = nids + 16;
	} while (1);

	for (i = 0; i < nids; i++) {
		struct cgroup *cgrp = cgroup_get_from_id(ids[i]);
		struct hlist_node *tmp;

		if (!IS_ERR(cgrp)) {
			cgroup_put(cgrp);
			continue;
		}
		spin_lock(&gpumem_quota_lock);
		hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
			if (n->row.cgid != ids[i] || !n->row.has_limit)
				continue;
			n->row.has_limit = false;
			n->row.max = GPUMEM_NO_LIMIT;
			n->row.high = GPUMEM_NO_LIMIT;
			gpumem_cg_put(n);
		}
		spin_unlock(&gpumem_quota_lock);
	}
	kfree(ids);
}

/**
 * gpumem_cgroup_path() - the path of a cgroup v2, by id
 * @cgid: the cgroup id
 * @buf: where to write the path
 * @len: size of @buf (PATH_MAX holds any path)
 *
 * Return: true when the cgroup exists and its path fit in @buf.
 */
bool gpumem_cgroup_path(u64 cgid, char *buf, size_t len)
{
	struct cgroup *cgrp = cgroup_get_from_id(cgid);
	bool ok;

	if (IS_ERR(cgrp))
		return false;
	ok = cgroup_path(cgrp, buf, len) >= 0;
	cgroup_put(cgrp);
	return ok;
}

/**
 * gpumem_quota_rows() - copy every counter (or every limit) out
 * @rowsp: a kvmalloc'ed array of rows (kvfree() it)
 * @nrowsp: the number of rows
 * @limits_only: only nodes with a limit
 *
 * Limits of removed cgroups are dropped first.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int gpumem_quota_rows(struct gpumem_limit_row **rowsp, size_t *nrowsp,
		      bool limits_only)
{
	struct gpumem_limit_row *rows = NULL;
	struct gpumem_cg_node *n;
	size_t nrows, cap = 0;
	int bkt;

	gpumem_quota_drop_removed();
	for (;;) {
		nrows = 0;
		spin_lock(&gpumem_quota_lock);
		hash_for_each(gpumem_cg_hash, bkt, n, hnode) {
			if (limits_only && !n->row.has_limit)
				continue;
			if (nrows < cap)
				rows[nrows] = n->row;
			nrows++;
		}
		spin_unlock(&gpumem_quota_lock);
		if (nrows <= cap)
			break;
		kvfree(rows);
		cap = nrows + 16;
		rows = kvmalloc_array(cap, sizeof(*rows), GFP_KERNEL);
		if (!rows)
			return -ENOMEM;
	}
	*rowsp = rows;
	*nrowsp = nrows;
	return 0;
}

/**
 * gpumem_quota_device_event() - report a device region crossing its threshold
 * @minor: the device
 * @region: enum gpumem_region
 * @usage: bytes in use after the placement
 * @requested: bytes of the placement that crossed it
 * @threshold: the threshold in bytes
 */
void gpumem_quota_device_event(int minor, u8 region, u64 usage, u64 requested,
			       u64 threshold)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD,
		.minor = minor,
		.region = region,
		.usage = usage,
		.requested = requested,
		.limit = threshold,
	};

	if (!(current->flags & PF_KTHREAD)) {
		ev.pid = task_tgid_nr(current);
		get_task_comm(ev.comm, current);
	}
	gpumem_netlink_event(&ev);
}

/**
 * gpumem_quota_init() - set up the charge records
 *
 * Return: 0 or a negative errno.
 */
int gpumem_quota_init(void)
{
	return rhashtable_init(&gpumem_charges, &gpumem_charge_params);
}

static void gpumem_charge_free(void *ptr, void *arg)
{
	struct gpumem_charge *c = ptr;

	gpumem_quota_uncharge(c);
	kfree(c);
}

/**
 * gpumem_quota_exit() - free every record, counter and limit
 *
 * Context: module exit, after every hook is gone.
 */
void gpumem_quota_exit(void)
{
	struct gpumem_cg_node *n;
	struct hlist_node *tmp;
	int bkt;

	cancel_delayed_work_sync(&gpumem_quota_sweep_work);
	rhashtable_free_and_destroy(&gpumem_charges, gpumem_charge_free, NULL);
	rcu_barrier();	/* kfree_rcu() of released records */
	spin_lock(&gpumem_quota_lock);
	hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
		hash_del(&n->hnode);
		kfree(n);
	}
	spin_unlock(&gpumem_quota_lock);
}
