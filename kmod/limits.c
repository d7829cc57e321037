// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem limits: per-cgroup usage counters, the limits set on them and the
 * allow/deny decision.
 *
 * A node counts one (cgroup, device or all devices, region): the bytes
 * charged to the cgroup and its descendants, and the limit set on exactly
 * that key. A charge request (struct gpumem_charge_req) names a cgroup and
 * all its ancestors; gpumem_limits_charge() checks every one of their
 * nodes, on the device and on all devices, and charges them all, or none.
 *
 * All devices, lazily: a cgroup's all-devices node (minor
 * GPUMEM_ALL_DEVICES) is counted only while a limit is set on it. Every
 * device node is on its cgroup's all-devices node's list (@devs, made with
 * the device node, kept while it exists) and points to it (@all). Without a
 * limit, the all-devices usage is not kept: gpumem_cg_usage() sums the
 * device nodes of the list where it is read (O(devices) per row). With a
 * limit, the charge decides against its usage and charges it like a device
 * node; setting the limit starts it at that sum, and every charge and
 * uncharge from then on changes it with its device node, so it stays
 * exactly the sum. A charge of a cgroup without an all-devices limit
 * touches only its device's node per level.
 *
 * The root, lazily too: a request's last level is always the root cgroup
 * (the chain goes up to it), and its one before a child of the root. The
 * root's device node is charged by every placement only while a limit is
 * set on it; otherwise it counts only what the root's own processes charge
 * (requests of depth 1), and the rest is summed from its children's device
 * nodes where read: each of those is on the root's node's list (@kids)
 * and points to it (@up), linked when a charge first makes it. Setting the
 * limit starts the counter at that sum, removing it takes the sum off
 * again. So a placement in a child of the root, with no limit on the root,
 * charges its own cgroups' device nodes and none of the root's.
 *
 * Limits: enforce (deny beyond max) or monitor (report beyond max), and a
 * soft limit (high) that reports the crossing once on the way up. A limit
 * holds a reference on its cgroup and is dropped by the limits sweep once
 * the cgroup is removed, never because a lookup failed; readers see a
 * removed cgroup's limit as gone and change nothing.
 *
 * Locking: gpumem_limits_lock (a spinlock) protects the node hash and every
 * field of struct gpumem_cg_node, the all-devices lists among them. The
 * decision and the charge of every level happen under it in one step, so
 * two racing allocations can never both pass a limit; the all-devices
 * usage a charge decides against and the sum a reader computes are the
 * same figure at every moment the lock is free. A limit set or removed on
 * all devices or on the root switches its node's counting under it too.
 * Events are sent after it is dropped.
 */
#include <linux/cgroup.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include "../uapi/gpumem.h"
#include "cgroup_lookup.h"
#include "discover.h"
#include "events.h"
#include "hook_stats.h"
#include "staircase.h"
#include "limits.h"

/* How often removed cgroups' limits are looked for while any limit exists. */
#define GPUMEM_LIMITS_SWEEP	(2 * HZ)
/*
 * How long an unused node (no usage, no limit) is kept for reuse before the
 * reaper frees it: a process that allocates and frees its only buffer in a
 * loop would otherwise allocate and free its cgroups' nodes every time.
 */
#define GPUMEM_CG_IDLE		(5 * HZ)
/* At most this many are kept (beyond, an unused node is freed at once). */
#define GPUMEM_CG_IDLE_MAX	1024
/* A reader copies at least this many rows per hold of gpumem_limits_lock. */
#define GPUMEM_LIMITS_CHUNK	64
/* A reader's pass holds gpumem_limits_lock for this many buckets at a time. */
#define GPUMEM_LIMITS_SCAN_BUCKETS	16

/**
 * struct gpumem_cg_node - usage and limit of one (cgroup, device, region)
 * @hnode: entry in gpumem_cg_hash
 * @row: its key, usage, limit and denied count, as gpumem_limits_rows()
 *	reports them (see struct gpumem_limit_row)
 * @above_high: usage is above @row.high (high-crossed fires on the way up)
 * @cgrp: the cgroup, referenced while @row.has_limit: a limit goes when its
 *	cgroup is removed (gpumem_limits_drop_removed()), never because a
 *	lookup failed
 * @self: of @row.usage, the bytes charged by the cgroup's own processes
 *	(not its descendants'); kept on the device's nodes only
 * @leak: the leak detector's state of @self (leak.c)
 * @idle_since: jiffies when the node became unused (no usage, no limit);
 *	an unused node is as good as a new one (gpumem_cg_put() resets it)
 *	and is freed by the reaper once unused for GPUMEM_CG_IDLE
 * @kept: unused and kept for reuse (counted in gpumem_cg_kept)
 * @charges: placements charged to it (each may hold a pointer to it, see
 *	&gpumem_charge_req.nodes); device nodes only
 * @all: a device node's all-devices node (same cgroup and region), set
 *	while it is in the hash; NULL on an all-devices node
 * @sib: a device node's entry in @all's @devs
 * @devs: an all-devices node's device nodes; it stays while any is there.
 *	Its @row.usage is their sum while @row.has_limit, else 0 (the sum is
 *	made where it is read, gpumem_cg_usage())
 * @up: the device node of a child of the root: the root's device node
 *	(same device and region), set while it is in the hash once a charge
 *	made it; NULL on any other
 * @kid: its entry in @up's @kids
 * @kids: the root's device node: its children's device nodes; it stays
 *	while any is there. Its @row.usage is the usage of the root's own
 *	processes plus their sum while @row.has_limit, else without it
 *
 * All fields are protected by gpumem_limits_lock.
 */
struct gpumem_cg_node {
	struct hlist_node hnode;
	struct gpumem_limit_row row;
	struct cgroup *cgrp;
	bool above_high;
	u64 self;
	struct gpumem_leak_state leak;
	unsigned long idle_since;
	bool kept;
	unsigned long charges;
	struct gpumem_cg_node *all;
	struct list_head sib;
	struct list_head devs;
	struct gpumem_cg_node *up;
	struct list_head kid;
	struct list_head kids;
};

static DEFINE_SPINLOCK(gpumem_limits_lock);
static DEFINE_HASHTABLE(gpumem_cg_hash, 8);	/* under gpumem_limits_lock */
static size_t gpumem_cg_kept;			/* under gpumem_limits_lock */
/*
 * The minors of the devices present (discover.c). A limit names a device by
 * its minor, which the next device may reuse: a limit is set only on a
 * present device and goes with it (as dmem's limits go with their region).
 * Changed under gpumem_limits_lock, so no limit-set can outlive a removal.
 */
static DEFINE_XARRAY(gpumem_limits_devs);
static void gpumem_limits_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_limits_sweep_work, gpumem_limits_sweep_fn);
static void gpumem_cg_reap_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_cg_reap_work, gpumem_cg_reap_fn);

static u64 gpumem_cg_key(u64 cgid, int minor, u8 region)
{
	return cgid * 1000003ULL + (u64)(minor + 1) * 31 + region;
}

static __always_inline struct gpumem_cg_node *
gpumem_cg_find(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n;

	lockdep_assert_held(&gpumem_limits_lock);
	hash_for_each_possible(gpumem_cg_hash, n, hnode,
			       gpumem_cg_key(cgid, minor, region))
		if (n->row.cgid == cgid && n->row.minor == minor && n->row.region == region)
			return n;
	return NULL;
}

/* A new node of (@cgid, @minor, @region), unused. Context: may sleep. */
static struct gpumem_cg_node *gpumem_cg_alloc(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (!n)
		return NULL;
	n->row.cgid = cgid;
	n->row.minor = minor;
	n->row.region = region;
	n->row.max = GPUMEM_NO_LIMIT;
	n->row.high = GPUMEM_NO_LIMIT;
	n->idle_since = jiffies;	/* unused until charged */
	INIT_LIST_HEAD(&n->sib);
	INIT_LIST_HEAD(&n->devs);
	INIT_LIST_HEAD(&n->kid);
	INIT_LIST_HEAD(&n->kids);
	return n;
}

/* Put @n in the hash. Caller holds gpumem_limits_lock. */
static void gpumem_cg_insert(struct gpumem_cg_node *n)
{
	hash_add(gpumem_cg_hash, &n->hnode,
		 gpumem_cg_key(n->row.cgid, n->row.minor, n->row.region));
}

static __always_inline void gpumem_cg_use(struct gpumem_cg_node *n);

static u64 gpumem_cg_kids_usage(const struct gpumem_cg_node *n);

/*
 * Make sure the node exists (a device node with its all-devices node, on
 * whose list it is), and, given @up (the root's cgroup id, for a child of
 * the root), that it is on the root's node's list. Context: may sleep.
 * Return: 0, -ENOMEM, or -EAGAIN when the root's node is not there (make
 * it first).
 */
static int gpumem_cg_ensure(u64 cgid, int minor, u8 region, u64 up)
{
	struct gpumem_cg_node *n, *all = NULL, *a, *u;
	int ret = 0;
	bool done;

	spin_lock(&gpumem_limits_lock);
	n = gpumem_cg_find(cgid, minor, region);
	done = n && (!up || n->up || minor == GPUMEM_ALL_DEVICES);
	spin_unlock(&gpumem_limits_lock);
	if (done)
		return 0;
	n = gpumem_cg_alloc(cgid, minor, region);
	if (minor != GPUMEM_ALL_DEVICES)
		all = gpumem_cg_alloc(cgid, GPUMEM_ALL_DEVICES, region);
	if (!n || (minor != GPUMEM_ALL_DEVICES && !all)) {
		kfree(n);
		kfree(all);
		return -ENOMEM;
	}
	spin_lock(&gpumem_limits_lock);
	if (!gpumem_cg_find(cgid, minor, region)) {
		if (minor != GPUMEM_ALL_DEVICES) {
			a = gpumem_cg_find(cgid, GPUMEM_ALL_DEVICES, region);
			if (!a) {
				a = all;
				all = NULL;
				gpumem_cg_insert(a);
			}
			gpumem_cg_use(a);	/* not unused while @n is there */
			n->all = a;
			list_add(&n->sib, &a->devs);
		}
		gpumem_cg_insert(n);
		n = NULL;
	}
	if (up && minor != GPUMEM_ALL_DEVICES) {
		struct gpumem_cg_node *k = gpumem_cg_find(cgid, minor, region);

		u = gpumem_cg_find(up, minor, region);
		if (!u) {
			ret = -EAGAIN;
		} else if (!k->up) {
			gpumem_cg_use(u);	/* not unused while @k is there */
			k->up = u;
			list_add(&k->kid, &u->kids);
			if (u->row.has_limit)	/* counted: 0 (never charged) */
				u->row.usage += k->row.usage;
		}
	}
	spin_unlock(&gpumem_limits_lock);
	kfree(n);
	kfree(all);
	return ret;
}

/*
 * Whether nothing needs @n: no charge, no usage, no limit, no node on its
 * lists.
 */
static bool gpumem_cg_unused(const struct gpumem_cg_node *n)
{
	return !n->charges && !n->row.usage && !n->row.has_limit &&
	       list_empty(&n->devs) && list_empty(&n->kids);
}

/*
 * The sum of the usages of the root's children on @n's device (0 for any
 * node but the root's). Caller holds gpumem_limits_lock.
 */
static u64 gpumem_cg_kids_usage(const struct gpumem_cg_node *n)
{
	const struct gpumem_cg_node *k;
	u64 sum = 0;

	list_for_each_entry(k, &n->kids, kid)
		sum += k->row.usage;
	return sum;
}

/*
 * The usage of @n: its counter, or, where that is not counted (no limit on
 * it), for the root's device node its counter plus its children's sum,
 * for an all-devices node the sum of its devices'. O(devices × children of
 * the root) at most. Caller holds gpumem_limits_lock.
 */
static u64 gpumem_cg_usage(const struct gpumem_cg_node *n)
{
	const struct gpumem_cg_node *d;
	u64 sum = 0;

	lockdep_assert_held(&gpumem_limits_lock);
	if (n->row.has_limit)
		return n->row.usage;
	if (n->row.minor != GPUMEM_ALL_DEVICES)
		return n->row.usage + gpumem_cg_kids_usage(n);
	list_for_each_entry(d, &n->devs, sib)
		sum += gpumem_cg_usage(d);
	return sum;
}

static void gpumem_cg_keep(struct gpumem_cg_node *n);

/*
 * Free @n (unused). An all-devices or root node left without nodes on its
 * list is kept (never freed here: a caller may be walking the hash).
 * Caller holds gpumem_limits_lock.
 */
static void gpumem_cg_free(struct gpumem_cg_node *n)
{
	struct gpumem_cg_node *a = n->all, *u = n->up;

	if (n->kept)
		gpumem_cg_kept--;
	hash_del(&n->hnode);
	if (a) {
		list_del(&n->sib);
		if (gpumem_cg_unused(a) && !a->kept)
			gpumem_cg_keep(a);
	}
	if (u) {
		list_del(&n->kid);
		if (gpumem_cg_unused(u) && !u->kept)
			gpumem_cg_keep(u);
	}
	kfree(n);
}

/* @n is used again: no longer one of the kept. Under gpumem_limits_lock. */
static __always_inline void gpumem_cg_use(struct gpumem_cg_node *n)
{
	if (n->kept) {
		n->kept = false;
		gpumem_cg_kept--;
	}
}

/*
 * A node nobody needs any more is kept for reuse, reset to what a new node
 * is, until the reaper frees it (or freed now when enough are kept).
 * Caller holds gpumem_limits_lock; @n may be gone on return.
 */
static void gpumem_cg_put(struct gpumem_cg_node *n)
{
	if (!gpumem_cg_unused(n) || n->kept)
		return;
	if (gpumem_cg_kept >= GPUMEM_CG_IDLE_MAX) {
		gpumem_cg_free(n);
		return;
	}
	gpumem_cg_keep(n);
}

/*
 * Keep @n (unused, not kept) for reuse until the reaper frees it. Caller
 * holds gpumem_limits_lock.
 */
static void gpumem_cg_keep(struct gpumem_cg_node *n)
{
	n->kept = true;
	gpumem_cg_kept++;
	n->row.denied = 0;
	n->above_high = false;
	n->self = 0;
	memset(&n->leak, 0, sizeof(n->leak));
	n->idle_since = jiffies;
	/*
	 * Pending, the reaper has not started: it takes gpumem_limits_lock
	 * after this, sees @n unused, and comes back for it.
	 */
	if (!delayed_work_pending(&gpumem_cg_reap_work))
		queue_delayed_work(system_wq, &gpumem_cg_reap_work,
				   GPUMEM_CG_IDLE);
}

/* Free the nodes unused for GPUMEM_CG_IDLE; again while any is unused. */
static void gpumem_cg_reap_fn(struct work_struct *work)
{
	struct gpumem_cg_node *n;
	struct hlist_node *tmp;
	bool left = false;
	int bkt;

	spin_lock(&gpumem_limits_lock);
	hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
		/* kept, or made for a placement that was denied */
		if (!gpumem_cg_unused(n))
			continue;
		if (time_before(jiffies, n->idle_since + GPUMEM_CG_IDLE)) {
			left = true;
			continue;
		}
		gpumem_cg_free(n);
	}
	spin_unlock(&gpumem_limits_lock);
	if (left)
		queue_delayed_work(system_wq, &gpumem_cg_reap_work,
				   GPUMEM_CG_IDLE);
}

/*
 * Remove the limit of @n and put its cgroup reference (css_put() is safe
 * under a spinlock). An all-devices node is no longer counted, nor the
 * root's node beyond its own processes (their usage is summed on read).
 * Caller holds gpumem_limits_lock.
 */
static void gpumem_cg_clear_limit(struct gpumem_cg_node *n)
{
	if (n->row.minor == GPUMEM_ALL_DEVICES)
		n->row.usage = 0;
	else if (n->row.has_limit)
		n->row.usage -= gpumem_cg_kids_usage(n);
	n->row.has_limit = false;
	n->row.max = GPUMEM_NO_LIMIT;
	n->row.high = GPUMEM_NO_LIMIT;
	n->above_high = false;
	if (n->cgrp)
		cgroup_put(n->cgrp);
	n->cgrp = NULL;
}

/* A limit whose cgroup has been removed: as good as none. */
static bool gpumem_cg_limit_live(const struct gpumem_cg_node *n)
{
	return n->row.has_limit && n->cgrp && !gpumem_cgroup_dead(n->cgrp);
}

/* Would @usage + @bytes exceed @limit? (No overflow; no limit never.) */
static bool gpumem_over(u64 usage, u64 bytes, u64 limit)
{
	if (limit == GPUMEM_NO_LIMIT)
		return false;
	return usage > limit || bytes > limit - usage;
}

/* An event about node @n, caused by the charge request @req. */
static void gpumem_event_fill(struct gpumem_quota_event *ev, u32 type,
			      const struct gpumem_charge_req *req,
			      const struct gpumem_cg_node *n, u64 limit,
			      bool denied)
{
	ev->type = type;
	ev->cgid = n->row.cgid;
	ev->pid = req->tgid;
	if (req->comm)
		strscpy(ev->comm, req->comm, sizeof(ev->comm));
	else
		get_task_comm(ev->comm, current);
	if (req->requester) {
		ev->req_pid = task_tgid_nr(current);
		get_task_comm(ev->req_comm, current);
	}
	ev->minor = req->minor;
	ev->region = req->region;
	ev->requested = req->bytes;
	ev->usage = n->row.usage;
	ev->limit = limit;
	ev->mode = n->row.mode;
	ev->denied = denied;
}

/*
 * Rate limit of an event of @type (cleared here: only the events made are)
 * charged to cgroup @cgid on device @minor: the cgroup that allocates, not
 * the one whose limit it hits, so that tenants below one limit do not
 * suppress each other's events. On success @ev->suppressed is filled in.
 * The bucket table's lock nests inside gpumem_limits_lock.
 */
static bool gpumem_cg_ratelimit(u64 cgid, int minor, u32 type,
				struct gpumem_quota_event *ev)
{
	struct gpumem_event_key key = {
		.cgid = cgid, .minor = minor, .type = type,
	};

	memset(ev, 0, sizeof(*ev));
	return gpumem_event_ratelimit(&key, &ev->suppressed);
}

#define GPUMEM_MAX_EVENTS 2

/*
 * Level @d of @c is the root's, and one of its children's placement: its
 * device node is counted only with a limit on it.
 */
static bool gpumem_cg_lazy(const struct gpumem_charge_req *c, u32 d)
{
	return d && d == c->depth - 1;
}

/*
 * The device node of level @d of @c (@prev: that of level @d - 1), or
 * NULL when it is not there (or not linked to the root's).
 */
static __always_inline struct gpumem_cg_node *
gpumem_cg_level(const struct gpumem_charge_req *c, u32 d,
		struct gpumem_cg_node *prev)
{
	if (gpumem_cg_lazy(c, d))
		return prev->up;
	return gpumem_cg_find(c->cgids[d], c->minor, c->region);
}

/*
 * The counter @s of device node @n (level @lazy or not): 0 its own, 1 its
 * all-devices node's, or NULL when that is not counted.
 */
static struct gpumem_cg_node *gpumem_cg_scope(struct gpumem_cg_node *n,
					      u32 s, bool lazy)
{
	if (!s)
		return !lazy || n->row.has_limit ? n : NULL;
	return n->all->row.has_limit ? n->all : NULL;
}

/*
 * Charge @bytes to device node @n (@own: the owner's cgroup; @lazy: the
 * root's for a child of it) and, where counted, its all-devices node.
 */
static __always_inline void gpumem_cg_add(struct gpumem_cg_node *n, u64 bytes,
					  bool own, bool lazy)
{
	struct gpumem_cg_node *a = n->all;

	if (!lazy) {
		gpumem_cg_use(n);
		n->charges++;
		n->row.usage += bytes;
		if (own)
			n->self += bytes;
	} else if (n->row.has_limit) {
		n->row.usage += bytes;
	}
	if (a->row.has_limit)
		a->row.usage += bytes;
}

/*
 * Check every level of @c against its limits and charge them all, or none.
 * Caller holds gpumem_limits_lock. Returns 0, -ENOSPC (denied) or -EAGAIN
 * (a node vanished: ensure them again).
 */
static int gpumem_limits_try(const struct gpumem_charge_req *c, bool quiet,
			     struct gpumem_quota_event *ev, int *nev)
{
	struct gpumem_cg_node *deny = NULL, *report = NULL, *n = NULL, *m;
	bool high_sent = false;
	u32 d, s;

	for (d = 0; d < c->depth; d++) {
		n = gpumem_cg_level(c, d, n);
		if (!n)
			return -EAGAIN;
		if (c->nodes)
			c->nodes[d] = n;
		for (s = 0; s < 2; s++) {
			m = gpumem_cg_scope(n, s, gpumem_cg_lazy(c, d));
			if (!m)
				continue;
			/* a counter that would wrap: no placement is that big */
			if (c->bytes > U64_MAX - m->row.usage)
				return -ENOSPC;
			if (!m->row.has_limit || !gpumem_over(m->row.usage, c->bytes,
							      m->row.max))
				continue;
			if (m->row.mode == GPUMEM_LIMIT_MODE_ENFORCE &&
			    !c->forced && !deny)
				deny = m;
			else if (!report)
				report = m;
		}
	}
	if (deny) {
		if (!quiet) {
			deny->row.denied++;
			gpumem_hook_stats_inc(GPUMEM_HOOK_DENIED);
			if (gpumem_cg_ratelimit(c->cgids[0], c->minor,
						GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
						&ev[*nev]))
				gpumem_event_fill(&ev[(*nev)++],
						  GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
						  c, deny, deny->row.max, true);
		}
		return -ENOSPC;
	}
	if (report) {
		report->row.denied++;
		if (gpumem_cg_ratelimit(c->cgids[0], c->minor,
					GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
					&ev[*nev]))
			gpumem_event_fill(&ev[(*nev)++],
					  GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
					  c, report, report->row.max, false);
	}
	for (d = 0; d < c->depth; d++) {
		n = c->nodes ? c->nodes[d] : gpumem_cg_level(c, d, n);
		for (s = 0; s < 2; s++) {
			m = gpumem_cg_scope(n, s, gpumem_cg_lazy(c, d));
			if (!m || !m->row.has_limit || m->above_high ||
			    !gpumem_over(m->row.usage, c->bytes, m->row.high))
				continue;
			m->above_high = true;
			if (!high_sent && *nev < GPUMEM_MAX_EVENTS &&
			    gpumem_cg_ratelimit(c->cgids[0], c->minor,
						GPUMEM_EVENT_TYPE_HIGH_CROSSED,
						&ev[*nev])) {
				gpumem_event_fill(&ev[(*nev)++],
						  GPUMEM_EVENT_TYPE_HIGH_CROSSED,
						  c, m, m->row.high, false);
				high_sent = true;
			}
		}
		gpumem_cg_add(n, c->bytes, !d, gpumem_cg_lazy(c, d));
	}
	return 0;
}

/*
 * Whether a charge of @bytes to @n needs the full check: its counter would
 * wrap, or it is at a limit (max or high) the placement would cross.
 */
static __always_inline bool gpumem_cg_blocks(const struct gpumem_cg_node *n,
					     u64 bytes)
{
	return bytes > U64_MAX - n->row.usage ||
	       (n->row.has_limit &&
		(gpumem_over(n->row.usage, bytes, n->row.max) ||
		 (!n->above_high &&
		  gpumem_over(n->row.usage, bytes, n->row.high))));
}

/*
 * The common case in one step, with nothing to report: every node exists,
 * and none is at a limit (max or high) the placement would cross. Charges
 * every level and returns true; false (nothing changed) when the full
 * check is needed. Caller holds gpumem_limits_lock. Kept apart from
 * gpumem_limits_try(), whose event buffers (zeroed on every call by
 * kernels built with CONFIG_INIT_STACK_ALL_ZERO) cost more than the rest.
 */
static bool gpumem_limits_try_fast(const struct gpumem_charge_req *c)
{
	struct gpumem_cg_node *n = NULL;
	u32 d;

	if (!c->nodes)
		return false;
	for (d = 0; d < c->depth; d++) {
		n = gpumem_cg_level(c, d, n);
		if (!n ||
		    ((!gpumem_cg_lazy(c, d) || n->row.has_limit) &&
		     gpumem_cg_blocks(n, c->bytes)) ||
		    (n->all->row.has_limit && gpumem_cg_blocks(n->all, c->bytes)))
			return false;
		c->nodes[d] = n;
	}
	for (d = 0; d < c->depth; d++)
		gpumem_cg_add(c->nodes[d], c->bytes, !d, gpumem_cg_lazy(c, d));
	return true;
}

/*
 * gpumem_limits_charge() without the fast path (out of line: see
 * gpumem_limits_try_fast()).
 */
static noinline int gpumem_limits_charge_full(const struct gpumem_charge_req *req,
					      bool quiet);

/**
 * gpumem_limits_charge() - check a placement against every limit, charge it
 * @req: the placement and the cgroup (with its ancestors) it is charged to
 * @quiet: a repeat of a placement just denied (the same request retried by
 *	TTM): decide the same way, but count and report it only once
 *
 * Checks the limits of the cgroup and all its ancestors, on this device and
 * on all devices, and charges them all in one step, or none. Sends the
 * events that this produces.
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOSPC when a limit in enforce mode denies the placement, or
 *	-ENOMEM (nothing charged).
 */
int gpumem_limits_charge(const struct gpumem_charge_req *req, bool quiet)
{
	bool done;

	spin_lock(&gpumem_limits_lock);
	done = gpumem_limits_try_fast(req);
	spin_unlock(&gpumem_limits_lock);
	return done ? 0 : gpumem_limits_charge_full(req, quiet);
}

static noinline int gpumem_limits_charge_full(const struct gpumem_charge_req *req,
					      bool quiet)
{
	struct gpumem_quota_event ev[GPUMEM_MAX_EVENTS];
	int nev = 0, ret = 0, tries, i;
	u32 d;

	/* one lock round while the nodes exist (kept for reuse when unused) */
	for (tries = 0; tries < 8; tries++) {
		spin_lock(&gpumem_limits_lock);
		ret = gpumem_limits_try(req, quiet, ev, &nev);
		spin_unlock(&gpumem_limits_lock);
		if (ret != -EAGAIN)
			break;
		/* the root's first: a child of the root is linked to it */
		for (d = req->depth, ret = 0; d-- > 0 && !ret; )
			ret = gpumem_cg_ensure(req->cgids[d], req->minor,
					       req->region,
					       d + 2 == req->depth ?
					       req->cgids[d + 1] : 0);
		if (ret && ret != -EAGAIN)	/* -EAGAIN: the root's went */
			break;
		ret = -EAGAIN;
	}
	for (i = 0; i < nev; i++)
		gpumem_event_emit(&ev[i]);
	if (ret)	/* nodes made for it stay unused: the reaper frees them */
		queue_delayed_work(system_wq, &gpumem_cg_reap_work,
				   GPUMEM_CG_IDLE);
	return ret == -EAGAIN ? -ENOMEM : ret;
}

/**
 * gpumem_limits_uncharge() - give back what gpumem_limits_charge() charged
 * @c: the same request
 */
void gpumem_limits_uncharge(const struct gpumem_charge_req *c)
{
	struct gpumem_cg_node *n = NULL, *a;
	u64 bytes;
	u32 d;

	spin_lock(&gpumem_limits_lock);
	for (d = 0; d < c->depth; d++) {
		bool lazy = gpumem_cg_lazy(c, d);

		if (c->nodes)
			n = c->nodes[d];
		else
			n = lazy && !n ? NULL : gpumem_cg_level(c, d, n);
		if (WARN_ON_ONCE(!n))
			continue;
		bytes = c->bytes;
		if (lazy) {
			if (n->row.has_limit) {
				n->row.usage -= min(n->row.usage, bytes);
				if (n->above_high && n->row.usage <= n->row.high)
					n->above_high = false;
			}
		} else {
			if (WARN_ON_ONCE(!n->charges || n->row.usage < bytes)) {
				bytes = n->row.usage;	/* what the sums have */
				n->charges = 1;
			}
			n->charges--;
			n->row.usage -= bytes;
			if (!d) {
				n->self -= min(n->self, bytes);
				gpumem_leak_note(&n->leak, n->self);
			}
			if (n->above_high && n->row.usage <= n->row.high)
				n->above_high = false;
		}
		a = n->all;
		if (a->row.has_limit) {
			a->row.usage -= min(a->row.usage, bytes);
			if (a->above_high && a->row.usage <= a->row.high)
				a->above_high = false;
		}
		if (!lazy)
			gpumem_cg_put(n);
	}
	spin_unlock(&gpumem_limits_lock);
}

/*
 * Drop the limits of removed cgroups (the reference each limit holds tells,
 * whatever namespace anyone looks from). Returns the number of limits left.
 * Runs from the limits sweep, never from a reader.
 */
static size_t gpumem_limits_drop_removed(void)
{
	struct gpumem_cg_node *n;
	struct hlist_node *tmp;
	size_t left = 0;
	int bkt;

	spin_lock(&gpumem_limits_lock);
	hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
		if (!n->row.has_limit)
			continue;
		if (gpumem_cg_limit_live(n)) {
			left++;
			continue;
		}
		gpumem_cg_clear_limit(n);
		gpumem_cg_put(n);
	}
	spin_unlock(&gpumem_limits_lock);
	return left;
}

static void gpumem_limits_sweep_fn(struct work_struct *work)
{
	if (gpumem_limits_drop_removed())
		queue_delayed_work(system_wq, &gpumem_limits_sweep_work,
				   GPUMEM_LIMITS_SWEEP);
}

/*
 * The values @chg gives @n's limit: kept where @chg says so (from the limit
 * in place; defaults for a new one). Caller holds gpumem_limits_lock.
 * Return: 0, -ENODATA (keep everything of a limit that does not exist) or
 * -EINVAL (high above max once merged).
 */
static int gpumem_limit_merge(const struct gpumem_cg_node *n,
			      const struct gpumem_limit_change *chg,
			      u64 *max, u64 *high, u32 *mode)
{
	bool had = n->row.has_limit;

	lockdep_assert_held(&gpumem_limits_lock);
	if (!had && chg->keep_max && chg->keep_high)
		return -ENODATA;
	*max = !chg->keep_max ? chg->max : had ? n->row.max : GPUMEM_NO_LIMIT;
	*high = !chg->keep_high ? chg->high : had ? n->row.high : GPUMEM_NO_LIMIT;
	*mode = !chg->keep_mode ? chg->mode :
		had ? n->row.mode : GPUMEM_LIMIT_MODE_ENFORCE;
	if (*max != GPUMEM_NO_LIMIT && *high != GPUMEM_NO_LIMIT && *high > *max)
		return -EINVAL;
	return 0;
}

/**
 * gpumem_limits_update() - change the limit of a cgroup on a device and region
 * @cgid: the cgroup (looked up here, in the host's view)
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @chg: the new values; those marked keep stay as they are (a new limit
 *	starts with no max, no high, enforce)
 *
 * The change is applied in one step, or not at all. A limit below the
 * current usage is allowed: nothing is evicted, new placements are denied.
 * That is reported as a quota-exceeded event with nothing requested.
 *
 * The limit holds a reference on the cgroup and goes when the cgroup is
 * removed.
 *
 * Context: may sleep.
 * Return: 0, -ENOENT when there is no such cgroup (or it is being
 *	removed), -ENODEV when @minor is no present device, -ENODATA when
 *	@chg keeps both max and high of a limit that does not exist, -EINVAL
 *	when high would be above max, or -ENOMEM.
 */
int gpumem_limits_update(u64 cgid, int minor, u8 region,
			 const struct gpumem_limit_change *chg)
{
	struct gpumem_quota_event ev = {};
	struct gpumem_cg_node *n;
	struct cgroup *cgrp;
	bool over = false;
	u64 max, high;
	u32 mode;
	int ret;

	cgrp = gpumem_cgroup_get_host(cgid);
	if (IS_ERR(cgrp))
		return -ENOENT;
	if (gpumem_cgroup_dead(cgrp)) {
		cgroup_put(cgrp);
		return -ENOENT;
	}
	ret = gpumem_cg_ensure(cgid, minor, region, 0);
	if (ret) {
		cgroup_put(cgrp);
		return ret;
	}
	spin_lock(&gpumem_limits_lock);
	n = gpumem_cg_find(cgid, minor, region);
	if (!n) {
		spin_unlock(&gpumem_limits_lock);
		cgroup_put(cgrp);
		return -EAGAIN;
	}
	if (minor != GPUMEM_ALL_DEVICES && !xa_load(&gpumem_limits_devs, minor))
		ret = -ENODEV;	/* the device went meanwhile */
	else
		ret = gpumem_limit_merge(n, chg, &max, &high, &mode);
	if (ret) {
		gpumem_cg_put(n);
		spin_unlock(&gpumem_limits_lock);
		cgroup_put(cgrp);
		return ret;
	}
	swap(n->cgrp, cgrp);	/* the old reference, if any, is put below */
	gpumem_cg_use(n);
	/* all devices, the root: counted from now on, from their sums */
	n->row.usage = gpumem_cg_usage(n);
	/*
	 * A new limit where nothing is charged starts with no denials, as a
	 * node left unused is reset (gpumem_cg_keep()): an all-devices or
	 * root node stays in use while its lists are not empty.
	 */
	if (!n->row.has_limit && !n->row.usage)
		n->row.denied = 0;
	n->row.has_limit = true;
	n->row.max = max;
	n->row.high = high;
	n->row.mode = mode;
	n->above_high = high != GPUMEM_NO_LIMIT && n->row.usage > high;
	if (max != GPUMEM_NO_LIMIT && n->row.usage > max &&
	    gpumem_cg_ratelimit(cgid, minor, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
				&ev)) {
		over = true;
		ev.type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED;
		ev.cgid = cgid;
		ev.minor = minor;
		ev.region = region;
		ev.usage = n->row.usage;
		ev.limit = max;
		ev.mode = mode;
	}
	spin_unlock(&gpumem_limits_lock);
	if (cgrp)
		cgroup_put(cgrp);
	if (over)
		gpumem_event_emit(&ev);
	/* the sweep drops the limit once the cgroup is removed */
	queue_delayed_work(system_wq, &gpumem_limits_sweep_work,
			   GPUMEM_LIMITS_SWEEP);
	return 0;
}

/**
 * gpumem_limits_set() - set (replace) the limit of a cgroup on a device and
 *	region
 * @cgid: the cgroup (looked up here, in the host's view)
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @max: hard limit, GPUMEM_NO_LIMIT for none
 * @high: soft limit, GPUMEM_NO_LIMIT for none
 * @mode: enum gpumem_limit_mode
 *
 * gpumem_limits_update() with every value given.
 *
 * Context: may sleep.
 * Return: as gpumem_limits_update().
 */
int gpumem_limits_set(u64 cgid, int minor, u8 region, u64 max, u64 high,
		      u32 mode)
{
	struct gpumem_limit_change chg = {
		.max = max, .high = high, .mode = mode,
	};

	return gpumem_limits_update(cgid, minor, region, &chg);
}

/**
 * gpumem_limits_device_present() - whether limits may name a device
 * @minor: its minor
 *
 * For validating a request: the answer may change right after it (a
 * limit set on a device that went meanwhile fails with -ENODEV).
 *
 * Context: any.
 * Return: true while the device is present (see gpumem_limits_device_add()).
 */
bool gpumem_limits_device_present(int minor)
{
	return minor >= 0 && xa_load(&gpumem_limits_devs, minor);
}

/**
 * gpumem_limits_device_add() - a device is present: limits may name it
 * @minor: its minor
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM (no limit can be set on the device then).
 */
int gpumem_limits_device_add(int minor)
{
	return xa_err(xa_store(&gpumem_limits_devs, minor, xa_mk_value(1),
			       GFP_KERNEL));
}

/**
 * gpumem_limits_device_gone() - a device is gone: its limits go with it
 * @minor: its minor, which the next device may get
 *
 * Its charges were given back already (gpumem_charge_forget_device()), so
 * its counters are at zero; the limits set on it are dropped, and setting
 * one fails from now on, so nothing of it applies to a later device with
 * the same minor.
 */
void gpumem_limits_device_gone(int minor)
{
	struct gpumem_cg_node *n;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&gpumem_limits_lock);
	xa_erase(&gpumem_limits_devs, minor);
	hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
		if (n->row.minor != minor)
			continue;
		if (n->row.has_limit)
			gpumem_cg_clear_limit(n);
		if (gpumem_cg_unused(n))	/* nothing to reuse it for */
			gpumem_cg_free(n);
	}
	spin_unlock(&gpumem_limits_lock);
}

static int gpumem_limits_dev_add(struct gpumem_device *gdev)
{
	return gpumem_limits_device_add(gdev->minor);
}

static void gpumem_limits_dev_remove(struct gpumem_device *gdev)
{
	gpumem_limits_device_gone(gdev->minor);
}

/*
 * gpumem_limits_listener - a device may be named by limits while present
 */
const struct gpumem_device_listener gpumem_limits_listener = {
	.what = "out of memory: no limit can be set on it",
	.add = gpumem_limits_dev_add,
	.remove = gpumem_limits_dev_remove,
};

/**
 * gpumem_limits_del() - remove a limit
 * @cgid: the cgroup
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 *
 * Return: 0, or -ENOENT when there is no such limit.
 */
int gpumem_limits_del(u64 cgid, int minor, u8 region)
{
	struct gpumem_cg_node *n;
	int ret = -ENOENT;

	spin_lock(&gpumem_limits_lock);
	n = gpumem_cg_find(cgid, minor, region);
	if (n && n->row.has_limit) {
		gpumem_cg_clear_limit(n);
		gpumem_cg_put(n);
		ret = 0;
	}
	spin_unlock(&gpumem_limits_lock);
	return ret;
}

/*
 * The rows of hash bucket @bkt (those a reader sees: limits of removed
 * cgroups as gone, unused nodes kept for reuse as freed), copied to @rows
 * while they fit in @room. Returns the number of rows the bucket has.
 * Caller holds gpumem_limits_lock.
 */
static size_t gpumem_limits_bucket_rows(unsigned int bkt,
					struct gpumem_limit_row *rows,
					size_t room, bool limits_only)
{
	struct gpumem_cg_node *n;
	size_t nr = 0;

	lockdep_assert_held(&gpumem_limits_lock);
	hlist_for_each_entry(n, &gpumem_cg_hash[bkt], hnode) {
		bool live = gpumem_cg_limit_live(n);
		u64 usage;

		if (!live && limits_only)
			continue;
		usage = gpumem_cg_usage(n);
		if (!live && !usage)
			continue;
		if (nr < room) {
			rows[nr] = n->row;
			rows[nr].usage = usage;
			if (!live) {
				rows[nr].has_limit = false;
				rows[nr].max = GPUMEM_NO_LIMIT;
				rows[nr].high = GPUMEM_NO_LIMIT;
			}
		}
		nr++;
	}
	return nr;
}

/**
 * gpumem_limits_rows_next() - copy the next few counters (or limits) out
 * @cur: the reader's position and buffer (zeroed at first; release it with
 *	gpumem_limits_cursor_free())
 * @limits_only: only nodes with a limit
 *
 * Each call holds gpumem_limits_lock, which every charge takes, for one
 * chunk only: whole hash buckets until GPUMEM_LIMITS_CHUNK rows are copied
 * (O(GPUMEM_LIMITS_CHUNK + one bucket)), and drops it between chunks. The
 * rows of one bucket are copied at one moment; those of different chunks
 * may be from different moments (a counter that moves meanwhile is
 * reported as it was when its chunk was copied, never twice, and a node
 * made meanwhile may or may not be seen). The buffer holds one chunk (or
 * the largest bucket), charged to the reader (__GFP_ACCOUNT).
 *
 * Context: may sleep.
 * Return: 0 with @cur->nrows rows in @cur->rows (none: the end), or -ENOMEM.
 */
int gpumem_limits_rows_next(struct gpumem_limits_cursor *cur, bool limits_only)
{
	size_t need;

	for (;;) {
		need = 0;
		cur->nrows = 0;
		spin_lock(&gpumem_limits_lock);
		while (cur->bucket < HASH_SIZE(gpumem_cg_hash) &&
		       cur->nrows < GPUMEM_LIMITS_CHUNK) {
			size_t nr;

			nr = gpumem_limits_bucket_rows(cur->bucket,
						       cur->rows + cur->nrows,
						       cur->cap - cur->nrows,
						       limits_only);
			if (nr > cur->cap - cur->nrows) {
				need = nr;
				break;
			}
			cur->nrows += nr;
			cur->bucket++;
		}
		spin_unlock(&gpumem_limits_lock);
		/* rows copied, or the end: the bucket that did not fit is next */
		if (!need || cur->nrows)
			return 0;
		kvfree(cur->rows);
		cur->cap = max_t(size_t, need + 16, GPUMEM_LIMITS_CHUNK);
		cur->rows = kvmalloc_array(cur->cap, sizeof(*cur->rows),
					   GFP_KERNEL_ACCOUNT);
		if (!cur->rows) {
			cur->cap = 0;
			return -ENOMEM;
		}
	}
}

/**
 * gpumem_limits_cursor_free() - release a reader's buffer
 * @cur: the position of gpumem_limits_rows_next()
 */
void gpumem_limits_cursor_free(struct gpumem_limits_cursor *cur)
{
	kvfree(cur->rows);
	cur->rows = NULL;
	cur->cap = 0;
	cur->nrows = 0;
}

/**
 * gpumem_limits_rows() - copy every counter (or every limit) out
 * @rowsp: a kvmalloc'ed array of rows (kvfree() it)
 * @nrowsp: the number of rows
 * @limits_only: only nodes with a limit
 *
 * Limits of removed cgroups are left out (and dropped by the sweep later):
 * a reader changes nothing. Copied chunk by chunk
 * (gpumem_limits_rows_next()): gpumem_limits_lock is never held for more
 * than one chunk. The array is charged to the caller and sized to fit.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int gpumem_limits_rows(struct gpumem_limit_row **rowsp, size_t *nrowsp,
		       bool limits_only)
{
	struct gpumem_limits_cursor cur = {};
	struct gpumem_limit_row *rows = NULL, *grown;
	size_t nrows = 0, cap = 0;
	int ret;

	for (;;) {
		ret = gpumem_limits_rows_next(&cur, limits_only);
		if (ret || !cur.nrows)
			break;
		if (nrows + cur.nrows > cap) {
			size_t ncap = max(2 * cap, nrows + cur.nrows);

			grown = kvmalloc_array(ncap, sizeof(*rows),
					       GFP_KERNEL_ACCOUNT);
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			if (nrows)
				memcpy(grown, rows, nrows * sizeof(*rows));
			kvfree(rows);
			rows = grown;
			cap = ncap;
		}
		memcpy(rows + nrows, cur.rows, cur.nrows * sizeof(*rows));
		nrows += cur.nrows;
	}
	gpumem_limits_cursor_free(&cur);
	if (ret) {
		kvfree(rows);
		return ret;
	}
	*rowsp = rows;
	*nrowsp = nrows;
	return 0;
}

/**
 * gpumem_limits_get() - the limit set on exactly (cgroup, device, region)
 * @cgid: the cgroup
 * @minor: the device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @row: set to its row
 *
 * O(1) under gpumem_limits_lock.
 *
 * Return: 0, or -ENOENT when no such limit is set (or its cgroup is gone).
 */
int gpumem_limits_get(u64 cgid, int minor, u8 region,
		      struct gpumem_limit_row *row)
{
	struct gpumem_cg_node *n;
	int ret = -ENOENT;

	spin_lock(&gpumem_limits_lock);
	n = gpumem_cg_find(cgid, minor, region);
	if (n && gpumem_cg_limit_live(n)) {
		*row = n->row;
		ret = 0;
	}
	spin_unlock(&gpumem_limits_lock);
	return ret;
}

/**
 * gpumem_limits_leaks() - end the leak window of the cgroups' own usages of
 *	some hash buckets, and collect their suspects
 * @p: the window end to apply to each counter, or NULL to only collect
 *	suspects left pending by an earlier call
 * @first: the first bucket
 * @nr: the number of buckets (clipped to the table: 0..
 *	gpumem_limits_leak_buckets())
 * @hits: room for @max suspects (no pid: a cgroup's)
 * @max: their number (0: collect nothing, the suspects stay pending)
 *
 * One pass under the lock over @nr buckets, O(their counters): the leak
 * worker (leak.c) calls it for a few buckets at a time. A cgroup is judged
 * by what its own processes charged: a staircase in a child is the child's
 * suspect, not also each of its ancestors'.
 *
 * Context: process context (takes gpumem_limits_lock).
 * Return: the suspects collected; when @max, call again with NULL for more.
 */
size_t gpumem_limits_leaks(const struct gpumem_leak_params *p,
			   unsigned int first, unsigned int nr,
			   struct gpumem_leak_hit *hits, size_t max)
{
	unsigned int bkt, end = min_t(u64, (u64)first + nr,
				      HASH_SIZE(gpumem_cg_hash));
	struct gpumem_cg_node *n;
	size_t nhits = 0;

	spin_lock(&gpumem_limits_lock);
	for (bkt = first; bkt < end; bkt++) {
		hlist_for_each_entry(n, &gpumem_cg_hash[bkt], hnode) {
			/* an unused node kept for reuse counts as none */
			if (n->row.minor == GPUMEM_ALL_DEVICES ||
			    gpumem_cg_unused(n))
				continue;
			if (p)
				gpumem_leak_window_end(&n->leak, n->self, p);
			if (nhits == max ||
			    !gpumem_leak_collect(&n->leak, n->self,
						 &hits[nhits]))
				continue;
			hits[nhits].pid = NULL;
			hits[nhits].cgid = n->row.cgid;
			hits[nhits].comm[0] = '\0';
			hits[nhits].minor = n->row.minor;
			hits[nhits].region = n->row.region;
			nhits++;
		}
	}
	spin_unlock(&gpumem_limits_lock);
	return nhits;
}

/**
 * gpumem_limits_leak_buckets() - the buckets gpumem_limits_leaks() goes
 *	through
 *
 * Return: the size of the cgroup counters' hash table.
 */
unsigned int gpumem_limits_leak_buckets(void)
{
	return HASH_SIZE(gpumem_cg_hash);
}

/**
 * gpumem_limits_suspects() - copy the cgroups' own usages that are leak
 *	suspects now
 * @hits: room for @max suspects (no pid: a cgroup's)
 * @max: their number
 *
 * Nothing changes: the detector's state is only read. One pass, O(counters),
 * holding the lock for GPUMEM_LIMITS_SCAN_BUCKETS buckets at a time.
 *
 * Context: process context (takes gpumem_limits_lock).
 * Return: the number of suspects; only the first @max were copied when more.
 */
size_t gpumem_limits_suspects(struct gpumem_leak_hit *hits, size_t max)
{
	struct gpumem_cg_node *n;
	unsigned int bkt;
	size_t nhits = 0;

	spin_lock(&gpumem_limits_lock);
	for (bkt = 0; bkt < HASH_SIZE(gpumem_cg_hash); bkt++) {
		/* a reader: the lock is let go every few buckets */
		if (bkt && !(bkt % GPUMEM_LIMITS_SCAN_BUCKETS)) {
			spin_unlock(&gpumem_limits_lock);
			cond_resched();
			spin_lock(&gpumem_limits_lock);
		}
		hlist_for_each_entry(n, &gpumem_cg_hash[bkt], hnode) {
			struct gpumem_leak_hit hit;

			if (n->row.minor == GPUMEM_ALL_DEVICES ||
			    gpumem_cg_unused(n) ||
			    !gpumem_leak_describe(&n->leak, n->self, &hit))
				continue;
			if (nhits < max) {
				hit.pid = NULL;
				hit.cgid = n->row.cgid;
				hit.comm[0] = '\0';
				hit.minor = n->row.minor;
				hit.region = n->row.region;
				hits[nhits] = hit;
			}
			nhits++;
		}
	}
	spin_unlock(&gpumem_limits_lock);
	return nhits;
}

/**
 * gpumem_limits_exit() - free every counter and limit
 *
 * Context: module exit, after every charge was given back.
 */
void gpumem_limits_exit(void)
{
	struct gpumem_cg_node *n;
	struct hlist_node *tmp;
	int bkt;

	cancel_delayed_work_sync(&gpumem_limits_sweep_work);
	cancel_delayed_work_sync(&gpumem_cg_reap_work);
	spin_lock(&gpumem_limits_lock);
	hash_for_each_safe(gpumem_cg_hash, bkt, tmp, n, hnode) {
		if (n->cgrp)
			cgroup_put(n->cgrp);
		hash_del(&n->hnode);
		kfree(n);
	}
	gpumem_cg_kept = 0;
	spin_unlock(&gpumem_limits_lock);
	xa_destroy(&gpumem_limits_devs);
}
