// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem charges: one record per placement (a TTM resource) of a buffer
 * gpumem knows the owner of: who owns it, what it is charged, how long.
 *
 * Ownership rule (memcg's and dmem's: a charge stays until the memory is
 * freed, and then some): a buffer is owned by the process, and the cgroup
 * v2 (with its ancestors: a cgroup's usage includes its descendants), its
 * first placement is made for, and it stays theirs for as long as it
 * exists. That is the task that makes it, or, for a kernel thread that
 * adopted a process's mm (kthread_use_mm()), the mm's owner (memcg charges
 * such work the same way); see gpumem_requester(). Each later placement of
 * the buffer, whoever makes it, is charged to that owner.
 *
 * Who may take an owner past its limit: a placement made by a user task
 * (the owner's own, a task in another cgroup that shares the DRM file or
 * imported a dma-buf, a migrated task, a compositor that pins it) is a
 * request in the owner's name: it is checked against the owner's limits
 * and denied beyond an enforced max (and the eviction guard keeps it from
 * evicting anybody). Only what TTM or a driver does from kernel context
 * with no user request behind it is "forced" (charged, never denied; a
 * limit beyond it is reported as in monitor mode): an eviction move (TTM
 * calls the driver's evict_flags for the buffer it evicts, hooks.c marks
 * its record, see gpumem_charge_evicting(); the eviction of A's buffer
 * made by B's allocation is TTM's move, not a request of A's), a placement
 * by a kernel thread (a driver's restore worker), or by a task on its way
 * out.
 *
 * Ownerless stays ownerless: a buffer whose first placement had nobody to
 * be made for (a kernel thread with no mm: what a driver allocates for
 * itself or in a worker, such as amdgpu's SVM retry faults; an exiting
 * task, such as qxl's release and console buffers at the last close), or
 * that was placed before gpumem was loaded (its current resource has no
 * record), gets an "unattributed" record and never an owner: no eviction
 * or move by another task makes that task its owner. Unattributed
 * placements of VRAM and GTT are charged to nobody, counted (hook
 * statistic unattributed) and their bytes kept per device and region
 * (gpumem_charge_unattributed()).
 *
 * TTM gives no hook for a buffer's life, but a buffer always has exactly
 * one current resource (bo->resource), which TTM only replaces under the
 * buffer's reservation while gpumem's allocation hook runs. So the owner
 * travels from resource to resource: the hook finds the record of the
 * buffer's current resource and gives the new one the same owner. System
 * placements get records too (@counted false: they are never charged and
 * count against no limit), so that a buffer evicted to system memory and
 * restored later is still its owner's.
 *
 * A charge stays with its cgroups until its resource is freed: closing the
 * last handle while a mapping or a dma-buf keeps the buffer, or the exit of
 * the owner, changes nothing (a tenant cannot shed a charge and allocate
 * again). Only the owner's per-process counters (the charged view, see
 * proc_usage.c) let go of a charge whose buffer has had no GEM handle and no
 * dma-buf for GPUMEM_ORPHAN_AGE, see gpumem_charge_orphan().
 *
 * Locking: records live in an rhashtable keyed by the resource pointer; its
 * own per-bucket locks serialise insertion and removal, and readers use
 * RCU. The allocation and free paths take no gpumem-wide lock of their
 * own: whoever removes a record from the table (the free of its resource,
 * a device being forgotten, a commit that lost to a detaching device)
 * gives its charge back, exactly once.
 *
 * Records come from a slab cache with SLAB_TYPESAFE_BY_RCU (no clearing of
 * every object by init_on_alloc, no grace period per record): a record
 * taken out of the table is freed at once, and its memory may be a record
 * again while an RCU reader still walks a hash chain through it. That is
 * safe because:
 * (1) a lookup only compares keys on its way (rhashtable restarts a lookup
 *     that ended on another chain), and uses the record it finds only for
 *     a resource that cannot be freed meanwhile: the current resource of a
 *     buffer the caller holds reserved, or the one the caller frees. Such a
 *     record leaves the table only by that free, by a walk of the table
 *     (2), by the commit that made it (losing to a detaching device, before
 *     its resource is the buffer's) or, made inert by a detaching device,
 *     when its resource went without gpumem and the address is used again
 *     (gpumem_charge_link(); no lookup returns an inert record);
 * (2) a walk of the whole table, which holds records it did not pin and
 *     follows their links, counts itself in gpumem_charge_walkers while it
 *     runs; a record taken out of the table meanwhile is freed only after a
 *     grace period (gpumem_charge_free_linked()).
 * Records for owners deeper than the cache holds are kmalloc'ed and always
 * freed after a grace period. A few freed records are kept per CPU for the
 * next placement (gpumem_charge_pool): a record of the cache in another
 * life, as the slab would give it back, without its hooks.
 *
 * Each record's @lock protects @obj, @pu and @since against the
 * sweep, which reads the buffer: the free of a resource clears @obj under
 * it before the buffer can be freed. gpumem_charges_walk_lock serialises
 * the walks (sweep, detach) with each other and with gpumem_detaching. The
 * limits' and the process counters' spinlocks nest inside nothing of this
 * file's but RCU.
 *
 * Statistics (hook_stats.c, per-CPU counters: no lock): a record that
 * enters the table counts as charged, one taken out of it (by whoever takes
 * it out) as uncharged, so charged - uncharged is the table's size once
 * nothing moves; a placement whose record cannot enter the table counts as
 * charge_failed (hooks.c counts those gpumem_charge_new() failed).
 */
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_gem.h>
#include "charge.h"
#include "classify.h"
#include "compat.h"
#include "fault_inject.h"
#include "hook_stats.h"
#include "limits.h"
#include "proc_usage.h"
#include "requester.h"
#include "rows.h"

/* A charge whose buffer no handle reaches for this long leaves its process. */
#define GPUMEM_ORPHAN_AGE	(2 * HZ)

/**
 * struct gpumem_charge - one recorded placement
 * @rnode: entry in gpumem_charges, keyed by @res
 * @rcu: for freeing after a grace period (see gpumem_charge_free_linked())
 * @lock: protects @obj, @owner, @pu, @since, @dead, @reported, @evictor and
 *	@evict_at
 * @res: the resource (a key only: never dereferenced)
 * @obj: its buffer, or NULL once the resource is freed or its device is
 *	being detached (inert)
 * @owner: the owning process (referenced), NULL once the record is finished
 * @comm: its command name at the buffer's first placement
 * @bytes: size of the placement
 * @minor: the device
 * @region: enum gpumem_region
 * @counted: charged to @cgids' limits and counters (VRAM and GTT); false
 *	for a system placement, which only carries the owner, and for an
 *	unattributed one
 * @unattributed: the buffer has no owner and never gets one (see the top
 *	of this file): @owner is NULL from the start, @depth 0
 * @unattr_bytes: an unattributed placement of VRAM or GTT: its bytes are
 *	in its device's unattributed figure
 * @tgid: @owner's number in the initial pid namespace (for events)
 * @pu: the owner's per-process counters, NULL once the charge left them
 * @since: jiffies since which no handle or dma-buf reaches @obj
 * @dead: jiffies when gpumem first saw @owner gone (0: not seen), for the
 *	orphans report
 * @prev: the resource whose record this one inherited its owner and marks
 *	from (a key only, never dereferenced), NULL for a first placement
 * @reported: @owner's exit was considered for an orphaned event (or
 *	happened while those were off): never again
 * @evictor: the task TTM evicts the buffer in (compared only, never
 *	dereferenced), set by gpumem_charge_evicting() while the buffer is
 *	reserved; the next placements it makes of the buffer before
 *	@evict_at + HZ are the eviction's, not requests
 * @evict_at: jiffies when @evictor was set
 * @cached: from gpumem_charge_cache (else kmalloc'ed)
 * @depth: number of entries in @cgids
 * @room: room for this many levels in @cgids; after them, room for the
 *	GPUMEM_LIMITS_NODES(@room) limits' counters a counted placement is
 *	charged to (gpumem_charge_nodes())
 * @cgids: the owning cgroup, then its ancestors up to the root
 *
 * Everything but @obj, @owner, @pu, @since, @dead, @reported, @evictor and
 * @evict_at is set before the record enters the table and never changes.
 */
struct gpumem_charge {
	struct rhash_head rnode;
	struct rcu_head rcu;
	spinlock_t lock;	/* see above */
	int minor;
	struct ttm_resource *res;
	const struct drm_gem_object *obj;
	struct pid *owner;
	char comm[TASK_COMM_LEN];
	u64 bytes;
	pid_t tgid;
	u8 region;
	bool counted;
	bool unattributed;
	bool unattr_bytes;
	struct gpumem_proc_usage *pu;
	unsigned long since;
	unsigned long dead;
	const struct ttm_resource *prev;
	const struct task_struct *evictor;
	unsigned long evict_at;
	bool reported;
	bool cached;
	u16 depth;
	u16 room;
	u64 cgids[];
};

/*
 * The table's hash of a resource pointer: a multiplication (hash_long), not
 * the generic jhash of the key's bytes; every placement and free hashes
 * once or twice.
 */
static u32 gpumem_charge_hash(const void *data, u32 len, u32 seed)
{
	return hash_long(*(const unsigned long *)data ^ seed, 32);
}

static int gpumem_charge_cmp(struct rhashtable_compare_arg *arg,
			     const void *obj)
{
	const struct gpumem_charge *c = obj;

	return c->res != *(struct ttm_resource * const *)arg->key;
}

static const struct rhashtable_params gpumem_charge_params = {
	.key_len = sizeof(struct ttm_resource *),
	.key_offset = offsetof(struct gpumem_charge, res),
	.head_offset = offsetof(struct gpumem_charge, rnode),
	.automatic_shrinking = true,
	.hashfn = gpumem_charge_hash,
	.obj_cmpfn = gpumem_charge_cmp,
};

/*
 * The most cgroup levels (the root counts) a record holds: a placement for
 * an owner deeper than that goes uncharged, as when gpumem is out of memory.
 */
#define GPUMEM_CHARGE_MAX_DEPTH	U16_MAX

/* Devices being detached (entries of gpumem_detaching), for a cheap test. */
static atomic_t gpumem_detaching_nr = ATOMIC_INIT(0);

/*
 * Levels of cgroups (the root counts) a record from gpumem_charge_cache has
 * room for: a systemd service or a Kubernetes container is 4 to 6 deep.
 */
#define GPUMEM_CHARGE_CACHE_ROOM	8

/* Its name (the KUnit module, which builds this file too, names another). */
#ifndef GPUMEM_CHARGE_CACHE_NAME
#define GPUMEM_CHARGE_CACHE_NAME	"gpumem_charge"
#endif

/* The records with room for GPUMEM_CHARGE_CACHE_ROOM (see the top). */
static struct kmem_cache *gpumem_charge_cache;
/* Walks of the whole table running now (gpumem_charge_walk()). */
static atomic_t gpumem_charge_walkers = ATOMIC_INIT(0);

/* Freed records of gpumem_charge_cache kept per CPU for reuse. */
#define GPUMEM_CHARGE_POOL	8

/**
 * struct gpumem_charge_pool - a CPU's freed records
 * @nr: how many of @recs are kept
 * @recs: the records (freed: nobody else's, in the table or not)
 *
 * Used from task context only, with preemption off (the RCU callback that
 * frees a record gives it to the slab).
 */
struct gpumem_charge_pool {
	unsigned int nr;
	struct gpumem_charge *recs[GPUMEM_CHARGE_POOL];
};

static DEFINE_PER_CPU(struct gpumem_charge_pool, gpumem_charge_pool);

/*
 * Records in the table of placements in regions not counted (system
 * placements that carry an owner, or none): while there are none, the free
 * of such a placement needs no lookup (gpumem_charge_uncounted_records()).
 * Counted before the record enters the table, uncounted when it left.
 */
static atomic_long_t gpumem_charge_uncounted = ATOMIC_LONG_INIT(0);

static struct rhashtable gpumem_charges;
static DEFINE_MUTEX(gpumem_charges_walk_lock);
/*
 * Devices being detached (minor -> xa_mk_value(1)): their records are inert
 * (no buffer pointer) and new charges are given back at once. Changed under
 * gpumem_charges_walk_lock; read locklessly by commits.
 */
static DEFINE_XARRAY(gpumem_detaching);
static void gpumem_charge_sweep_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_charge_sweep_work, gpumem_charge_sweep_fn);

/* The limits' counters @c is charged to (filled in by the charge). */
static struct gpumem_cg_node **gpumem_charge_nodes(struct gpumem_charge *c)
{
	return (struct gpumem_cg_node **)&c->cgids[c->room];
}

/* The limits' view of @c. */
static struct gpumem_charge_req gpumem_charge_req(struct gpumem_charge *c)
{
	return (struct gpumem_charge_req) {
		.cgids = c->cgids, .depth = c->depth, .minor = c->minor,
		.region = c->region, .bytes = c->bytes, .tgid = c->tgid,
		.comm = c->comm, .nodes = gpumem_charge_nodes(c),
	};
}

/* The size of a record with room for @room levels. */
static size_t gpumem_charge_size(u32 room)
{
	struct gpumem_charge *c;

	return size_add(struct_size(c, cgids, room),
			array_size(GPUMEM_LIMITS_NODES(room),
				   sizeof(struct gpumem_cg_node *)));
}

/*
 * The constructor of gpumem_charge_cache's objects: their lock is set up
 * once for the life of the slab (a reader may take the lock of a record
 * freed meanwhile, see the top). A cache with a constructor is not cleared
 * by init_on_alloc.
 */
static void gpumem_charge_ctor(void *obj)
{
	struct gpumem_charge *c = obj;

	spin_lock_init(&c->lock);
}

/*
 * A record with room for an owner at least @room cgroups deep (from
 * gpumem_charge_cache up to GPUMEM_CHARGE_CACHE_ROOM, else kmalloc'ed to
 * its size), with nothing filled in but its header, or NULL.
 */
static struct gpumem_charge *gpumem_charge_alloc(u32 room)
{
	struct gpumem_charge *c;

	if (room <= GPUMEM_CHARGE_CACHE_ROOM) {
		struct gpumem_charge_pool *pool;

		pool = get_cpu_ptr(&gpumem_charge_pool);
		c = pool->nr ? pool->recs[--pool->nr] : NULL;
		put_cpu_ptr(&gpumem_charge_pool);
		if (!c)
			c = kmem_cache_alloc(gpumem_charge_cache, GFP_KERNEL);
		if (!c)
			return NULL;
		c->cached = true;
		room = GPUMEM_CHARGE_CACHE_ROOM;
	} else {
		c = kmalloc(gpumem_charge_size(room), GFP_KERNEL);
		if (!c)
			return NULL;
		spin_lock_init(&c->lock);
		c->cached = false;
	}
	c->minor = 0;
	c->res = NULL;
	c->obj = NULL;
	c->owner = NULL;
	c->comm[0] = '\0';
	c->bytes = 0;
	c->tgid = 0;
	c->region = 0;
	c->counted = false;
	c->unattributed = false;
	c->unattr_bytes = false;
	c->pu = NULL;
	c->since = 0;
	c->dead = 0;
	c->prev = NULL;
	c->evictor = NULL;
	c->evict_at = 0;
	c->reported = false;
	c->depth = 0;
	c->room = room;
	return c;
}

/*
 * Free the memory of a record nobody else can see (never in the table, or
 * out of it and no walk running): to this CPU's pool when there is room.
 */
static void gpumem_charge_free_mem(struct gpumem_charge *c)
{
	struct gpumem_charge_pool *pool;

	if (!c->cached) {
		kfree(c);
		return;
	}
	if (in_task()) {
		pool = get_cpu_ptr(&gpumem_charge_pool);
		if (pool->nr < GPUMEM_CHARGE_POOL) {
			pool->recs[pool->nr++] = c;
			c = NULL;
		}
		put_cpu_ptr(&gpumem_charge_pool);
	}
	if (c)
		kmem_cache_free(gpumem_charge_cache, c);
}

static void gpumem_charge_free_rcu(struct rcu_head *head)
{
	struct gpumem_charge *c = container_of(head, struct gpumem_charge, rcu);

	if (c->cached)
		kmem_cache_free(gpumem_charge_cache, c);
	else
		kfree(c);
}

/*
 * Free the memory of a record this caller took out of the table: at once,
 * unless a walk of the table may be looking at it (then, as a kmalloc'ed
 * record always, after a grace period).
 */
static void gpumem_charge_free_linked(struct gpumem_charge *c)
{
	/*
	 * Pairs with gpumem_charge_walk(): the removal from the table before
	 * the read of the walkers, their count before their reads of the
	 * table. A walk that could have seen @c is counted here.
	 */
	smp_mb();
	if (c->cached && !atomic_read(&gpumem_charge_walkers))
		gpumem_charge_free_mem(c);
	else
		call_rcu(&c->rcu, gpumem_charge_free_rcu);
}

/* Free a record that never entered the table. */
static void gpumem_charge_free(struct gpumem_charge *c)
{
	put_pid(c->owner);
	gpumem_charge_free_mem(c);
}

/*
 * The record of @obj's current placement @prev, if gpumem made one for this
 * buffer (an inert record, or one for a resource of another buffer at a
 * reused address, is not). Caller holds rcu_read_lock().
 */
static __always_inline struct gpumem_charge *
gpumem_charge_owner(const struct ttm_resource *prev,
		    const struct drm_gem_object *obj)
{
	struct gpumem_charge *c;

	if (!prev)
		return NULL;
	c = rhashtable_lookup(&gpumem_charges, &prev, gpumem_charge_params);
	if (!c || READ_ONCE(c->obj) != obj)
		return NULL;
	return c;
}

/*
 * Fill @c's owner from @o, the record of the buffer's current placement (an
 * unattributed @o makes @c unattributed); false when @o was finished
 * meanwhile. *@forced: the placement is no request (see the top of this
 * file): TTM evicts the buffer in this task, or a kernel thread or an
 * exiting task makes it. Caller holds rcu_read_lock().
 */
static bool gpumem_charge_inherit(struct gpumem_charge *c,
				  struct gpumem_charge *o, bool *forced)
{
	bool evict;

	spin_lock(&o->lock);
	/* o's reference on its owner is dropped under this lock */
	c->owner = o->owner ? get_pid(o->owner) : NULL;
	/* a new placement of an orphan is no new orphan */
	c->dead = o->dead;
	c->reported = o->reported;
	c->prev = o->res;
	evict = o->evictor == current &&
		time_before(jiffies, o->evict_at + HZ);
	spin_unlock(&o->lock);
	if (o->unattributed) {
		c->unattributed = true;
		return true;
	}
	if (!c->owner)
		return false;
	memcpy(c->cgids, o->cgids, o->depth * sizeof(c->cgids[0]));
	c->depth = o->depth;
	c->tgid = o->tgid;
	memcpy(c->comm, o->comm, sizeof(c->comm));
	*forced = evict || (current->flags & (PF_KTHREAD | PF_EXITING));
	return true;
}

/*
 * Make @t's process the owner of @c, a buffer's first placement; false
 * when @t's cgroup is now deeper than @depth, or @t is on its way out.
 * Caller holds rcu_read_lock() (@t stays valid).
 */
static bool gpumem_charge_own(struct gpumem_charge *c, struct task_struct *t,
			      u32 depth)
{
	struct cgroup *cgrp = task_dfl_cgroup(t);
	u32 d;

	for (d = 0; cgrp && d < depth; cgrp = cgroup_parent(cgrp))
		c->cgids[d++] = cgroup_id(cgrp);
	if (cgrp)
		return false;	/* moved to a deeper cgroup meanwhile */
	c->owner = get_pid(task_tgid(t));
	if (!c->owner)
		return false;	/* exiting: asked again, it is nobody's */
	c->depth = d;
	c->tgid = task_tgid_nr(t);
	/*
	 * Without the task lock (get_task_comm() takes it up to 6.12, not
	 * since), and as one copy of the whole array (->comm is kept padded
	 * with zeroes): a rename racing with this may give a mix of both
	 * names, terminated here, as any lockless reader of ->comm sees it.
	 */
	BUILD_BUG_ON(sizeof(t->group_leader->comm) < sizeof(c->comm));
	memcpy(c->comm, t->group_leader->comm, sizeof(c->comm));
	c->comm[sizeof(c->comm) - 1] = '\0';
	return true;
}

/*
 * The depth of the owner @place's record will have: that of the record of
 * the buffer's current placement @o (0: unattributed), 0 for a buffer
 * placed without a record (before gpumem was loaded: ownerless, and so it
 * stays, whoever moves it) or made by nobody (a kernel placement), or the
 * depth of the requester @t's cgroup for a new buffer. Caller holds
 * rcu_read_lock().
 */
static u32 gpumem_charge_depth(const struct gpumem_placement *place,
			       const struct gpumem_charge *o,
			       struct task_struct *t)
{
	if (o)
		return o->depth;
	if (place->prev || !t)
		return 0;
	return task_dfl_cgroup(t)->level + 1;
}

/*
 * Fill @c (room for @room levels) for @place: its owner (or unattributed).
 * Returns the depth @c needs when it has too little room, 0 when filled,
 * or U32_MAX when the owner changed under it (try again). Caller holds
 * rcu_read_lock().
 */
static u32 gpumem_charge_fill(struct gpumem_charge *c, u32 room,
			      const struct gpumem_placement *place,
			      bool *forced)
{
	struct gpumem_charge *o;
	struct task_struct *t;
	bool kworker;
	u32 depth;

	/*
	 * @prev's record is made when @prev is allocated, under the
	 * reservation the caller holds: without one now, it has none.
	 */
	o = gpumem_charge_owner(place->prev, place->obj);
	t = gpumem_requester(&kworker);
	depth = gpumem_charge_depth(place, o, t);
	if (depth > room)
		return depth;
	if (o)
		return gpumem_charge_inherit(c, o, forced) ? 0 : U32_MAX;
	if (!depth) {
		c->unattributed = true;
		return 0;
	}
	*forced = false;
	return gpumem_charge_own(c, t, depth) ? 0 : U32_MAX;
}

/*
 * A record for @place with its owner filled in (or unattributed), or
 * ERR_PTR(-ENOMEM).
 */
static struct gpumem_charge *
gpumem_charge_build(const struct gpumem_placement *place, bool *forced)
{
	/* the cache's records first: they fit nearly every owner */
	u32 room = GPUMEM_CHARGE_CACHE_ROOM, need;
	struct gpumem_charge *c;

	for (;;) {
		if (room > GPUMEM_CHARGE_MAX_DEPTH || gpumem_fail_charge())
			return ERR_PTR(-ENOMEM);
		c = gpumem_charge_alloc(room);
		if (!c)
			return ERR_PTR(-ENOMEM);
		rcu_read_lock();
		need = gpumem_charge_fill(c, c->room, place, forced);
		rcu_read_unlock();
		if (!need)
			return c;
		/* the owner's record went, or a cgroup moved: again */
		gpumem_charge_free(c);
		if (need != U32_MAX)
			room = need;
	}
}

/**
 * struct gpumem_unattr - one device's unattributed placements
 * @bytes: per enum gpumem_region, the bytes of its unattributed VRAM and
 *	GTT placements alive now
 */
struct gpumem_unattr {
	atomic64_t bytes[GPUMEM_REGION_COUNT];
};

/* minor -> struct gpumem_unattr, made on first use, freed at exit */
static DEFINE_XARRAY(gpumem_unattr);
/* unattributed records in the table (never counted as charged) */
static atomic_long_t gpumem_unattr_records = ATOMIC_LONG_INIT(0);

/* Add @bytes to @minor's unattributed @region: 0 or -ENOMEM. */
static int gpumem_unattr_add(int minor, u8 region, u64 bytes)
{
	struct gpumem_unattr *u = xa_load(&gpumem_unattr, minor), *old;

	if (!u) {
		u = kzalloc(sizeof(*u), GFP_KERNEL);
		if (!u)
			return -ENOMEM;
		old = xa_cmpxchg(&gpumem_unattr, minor, NULL, u, GFP_KERNEL);
		if (xa_is_err(old)) {
			kfree(u);
			return xa_err(old);
		}
		if (old) {	/* another placement made it first */
			kfree(u);
			u = old;
		}
	}
	atomic64_add(bytes, &u->bytes[region]);
	return 0;
}

/* Take back what gpumem_unattr_add() added (its entry stays). */
static void gpumem_unattr_sub(int minor, u8 region, u64 bytes)
{
	struct gpumem_unattr *u = xa_load(&gpumem_unattr, minor);

	if (!WARN_ON_ONCE(!u))
		atomic64_sub(bytes, &u->bytes[region]);
}

/**
 * gpumem_charge_unattributed() - a device's unattributed bytes
 * @fn: called for each device and counted region that ever had an
 *	unattributed placement, with the bytes of those alive now
 * @arg: passed to @fn
 *
 * Unattributed: placements of VRAM or GTT charged to nobody (see the top of
 * charge.c). Placements made before gpumem was loaded are not in them
 * until the buffer is placed again.
 *
 * Context: any context that may take rcu_read_lock(); @fn must not sleep.
 */
void gpumem_charge_unattributed(void (*fn)(int minor, u8 region, u64 bytes,
					   void *arg), void *arg)
{
	struct gpumem_unattr *u;
	unsigned long minor;
	unsigned int r;

	xa_for_each(&gpumem_unattr, minor, u)
		for (r = 0; r < GPUMEM_REGION_COUNT; r++)
			if (gpumem_region_counted(r))
				fn(minor, r, atomic64_read(&u->bytes[r]), arg);
}

/*
 * Charge @c, a counted placement of an owned buffer, to its owner's limits
 * (never denied when @forced, or when @dmem: the dmem controller limits it)
 * and per-process counters: 0, or as gpumem_charge_new() (@c is freed).
 * Apart from gpumem_charge_new(): the request is built (and cleared first
 * by CONFIG_INIT_STACK_ALL_ZERO) only for these placements.
 */
static int gpumem_charge_counted(struct gpumem_charge *c, bool quiet,
				 bool forced, bool dmem)
{
	struct gpumem_charge_req req = gpumem_charge_req(c);
	int ret;

	/* where dmem limits, gpumem reports but never denies (dmem.c) */
	req.forced = forced || dmem;
	/* the event names the owner, and the task that asked if another */
	req.requester = task_tgid(current) != c->owner;
	if (!forced && !req.requester)
		req.comm = NULL;	/* the requesting thread's name */
	ret = gpumem_limits_charge(&req, quiet);
	if (ret) {
		gpumem_charge_free(c);
		return ret;
	}
	if (pid_has_task(c->owner, PIDTYPE_TGID)) {
		/* its reference and its count in one step */
		c->pu = gpumem_proc_usage_get_charge(c->owner, c->comm,
						     c->minor, c->region,
						     c->bytes);
		if (!c->pu) {
			/* nothing recorded: give the limits back */
			gpumem_limits_uncharge(&req);
			gpumem_charge_free(c);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * gpumem_charge_new() - charge a placement to its buffer's owner
 * @place: the placement
 * @chargep: the record, to commit to the resource or cancel; NULL on an
 *	error
 *
 * A new buffer gets the process it is made for as its owner
 * (gpumem_requester()), or none; a buffer placed without gpumem has none
 * (see the top of this file). A counted placement of an owned buffer is
 * checked against the owner's limits and charged; it is never denied when
 * it is forced (an eviction, or a kernel thread's or an exiting task's
 * placement; see struct gpumem_charge_req). One of a buffer without an
 * owner is charged to nobody and counted as unattributed.
 *
 * Context: process context, may sleep (the TTM resource allocation path,
 * under the buffer's reservation).
 * Return: 0, -ENOSPC when a limit in enforce mode denies the placement, or
 *	-ENOMEM when gpumem itself is out of memory (nothing is recorded
 *	then; the caller lets the placement through uncharged).
 */
int gpumem_charge_new(const struct gpumem_placement *place,
		      struct gpumem_charge **chargep)
{
	bool forced = false;
	struct gpumem_charge *c;
	int ret;

	*chargep = NULL;
	c = gpumem_charge_build(place, &forced);
	if (IS_ERR(c))
		return PTR_ERR(c);
	c->obj = place->obj;
	c->bytes = place->bytes;
	c->minor = place->minor;
	c->region = place->region;
	c->since = jiffies;
	if (c->unattributed) {
		if (place->counted) {
			if (gpumem_unattr_add(c->minor, c->region, c->bytes)) {
				gpumem_charge_free(c);
				return -ENOMEM;
			}
			c->unattr_bytes = true;
			gpumem_hook_stats_inc(GPUMEM_HOOK_UNATTRIBUTED);
		}
		*chargep = c;
		return 0;
	}
	c->counted = place->counted;
	if (c->counted) {
		ret = gpumem_charge_counted(c, place->quiet, forced, place->dmem);
		if (ret)
			return ret;
	}
	*chargep = c;
	return 0;
}

/**
 * gpumem_charge_evicting() - TTM is about to evict a buffer
 * @res: the buffer's current resource (bo->resource)
 * @obj: the buffer
 *
 * Called from the driver's evict_flags, which TTM calls for the buffer it
 * evicts (ttm_bo_evict()), under the buffer's reservation, in the task
 * whose allocation made room (or a kernel thread). The placements the
 * current task makes of the buffer in the next second are the eviction's:
 * forced, not requests in the owner's name. Nothing for a buffer without
 * a record.
 *
 * Context: may sleep or not; takes the record's spinlock.
 */
void gpumem_charge_evicting(const struct ttm_resource *res,
			    const struct drm_gem_object *obj)
{
	struct gpumem_charge *c;

	rcu_read_lock();
	c = gpumem_charge_owner(res, obj);
	if (c) {
		spin_lock(&c->lock);
		c->evictor = current;
		c->evict_at = jiffies;
		spin_unlock(&c->lock);
	}
	rcu_read_unlock();
}

/*
 * Give back what @c is charged and free it. The caller took @c out of the
 * table (@linked: readers may still see it) or never put it there.
 */
static void gpumem_charge_finish(struct gpumem_charge *c, bool linked)
{
	struct gpumem_charge_req req = gpumem_charge_req(c);
	struct gpumem_proc_usage *pu;
	struct pid *owner;

	spin_lock(&c->lock);
	c->obj = NULL;
	pu = c->pu;
	c->pu = NULL;
	owner = c->owner;
	c->owner = NULL;
	spin_unlock(&c->lock);
	if (c->counted)
		gpumem_limits_uncharge(&req);
	if (c->unattr_bytes)
		gpumem_unattr_sub(c->minor, c->region, c->bytes);
	if (pu)
		gpumem_proc_usage_uncharge(pu, c->region, c->bytes);
	put_pid(owner);
	if (linked) {
		if (!gpumem_region_counted(c->region))
			atomic_long_dec(&gpumem_charge_uncounted);
		if (c->unattributed)
			atomic_long_dec(&gpumem_unattr_records);
		else
			gpumem_hook_stats_inc(GPUMEM_HOOK_UNCHARGED);
		gpumem_charge_free_linked(c);
	} else {
		gpumem_charge_free_mem(c);
	}
}

/* Take @c out of the table: true if this caller did (it then finishes @c). */
static __always_inline bool gpumem_charge_unlink(struct gpumem_charge *c)
{
	return !rhashtable_remove_fast(&gpumem_charges, &c->rnode,
				       gpumem_charge_params);
}

/*
 * A claim of the orphaned events (or the sweep seeing the owner gone) may
 * have marked the record @c inherited from after @c copied its marks and
 * before @c entered the table, where it could not be seen: copy them again
 * now that @c is in the table, so that an orphan restored meanwhile is not
 * reported twice (a claim from now on sees @c itself). A claim that walked
 * past @c's bucket before the insertion and reaches the old record after
 * this read can still mark only the old one: that window is a few
 * instructions wide, and the report it would repeat names the same orphan.
 */
static void gpumem_charge_catch_up(struct gpumem_charge *c)
{
	struct gpumem_charge *o;
	unsigned long dead = 0;
	bool reported = false, alive;

	if (!c->prev)
		return;
	/*
	 * Both marks are set only once the owner's thread group is gone (its
	 * pid has no task: for good). Its process alive now, it was alive
	 * before: nothing was marked. (Under @c's lock: a detaching device's
	 * walk may finish @c, and put its owner, meanwhile.)
	 */
	spin_lock(&c->lock);
	alive = !c->owner || pid_has_task(c->owner, PIDTYPE_TGID);
	spin_unlock(&c->lock);
	if (alive)
		return;
	rcu_read_lock();
	o = gpumem_charge_owner(c->prev, READ_ONCE(c->obj));
	if (o && o != c) {
		spin_lock(&o->lock);
		reported = o->reported;
		dead = o->dead;
		spin_unlock(&o->lock);
	}
	rcu_read_unlock();
	if (!reported && !dead)
		return;
	spin_lock(&c->lock);
	c->reported |= reported;
	if (!c->dead)
		c->dead = dead;
	spin_unlock(&c->lock);
}

/*
 * Put @c in the table. A record for the same resource address can only be
 * an inert one of a device being detached (its resource was freed without
 * gpumem and the address reused): it is dropped.
 */
static int gpumem_charge_link(struct gpumem_charge *c)
{
	struct gpumem_charge *old;
	int tries, ret;

	for (tries = 0; tries < 4; tries++) {
		ret = rhashtable_lookup_insert_fast(&gpumem_charges, &c->rnode,
						    gpumem_charge_params);
		if (!ret)
			gpumem_charge_catch_up(c);
		if (ret != -EEXIST)
			return ret;
		rcu_read_lock();
		old = rhashtable_lookup(&gpumem_charges, &c->res,
					gpumem_charge_params);
		if (old && READ_ONCE(old->obj)) {
			rcu_read_unlock();
			return -EEXIST;	/* a live record: a bug somewhere */
		}
		if (old && !gpumem_charge_unlink(old))
			old = NULL;	/* someone else took it out */
		rcu_read_unlock();
		if (old)
			gpumem_charge_finish(old, true);
	}
	return -EEXIST;
}

/**
 * gpumem_charge_commit() - tie a record to the resource it was made for
 * @charge: from gpumem_charge_new() (may be NULL: nothing to do)
 * @res: the resource the allocation produced
 *
 * Context: may sleep.
 */
void gpumem_charge_commit(struct gpumem_charge *charge,
			  struct ttm_resource *res)
{
	if (!charge)
		return;
	charge->res = res;
	/* counted before it can be seen: whoever takes it out uncounts it */
	if (charge->unattributed)
		atomic_long_inc(&gpumem_unattr_records);
	if (!gpumem_region_counted(charge->region))
		atomic_long_inc(&gpumem_charge_uncounted);
	if (WARN_ON_ONCE(gpumem_charge_link(charge))) {
		/* cannot track it: give the charge back at once */
		if (charge->unattributed)
			atomic_long_dec(&gpumem_unattr_records);
		if (!gpumem_region_counted(charge->region))
			atomic_long_dec(&gpumem_charge_uncounted);
		gpumem_hook_stats_inc(GPUMEM_HOOK_CHARGE_FAILED);
		gpumem_charge_finish(charge, false);
		return;
	}
	if (!charge->unattributed)
		gpumem_hook_stats_inc(GPUMEM_HOOK_CHARGED);
	/*
	 * Pairs with gpumem_charge_device_inert(): either its walk sees this
	 * record and makes it inert, or this sees the device detaching and
	 * takes the record back (its free may bypass gpumem from now on).
	 */
	smp_mb();
	if (atomic_read(&gpumem_detaching_nr) &&
	    xa_load(&gpumem_detaching, charge->minor)) {
		if (gpumem_charge_unlink(charge))
			gpumem_charge_finish(charge, true);
		return;
	}
	/*
	 * Queue, never postpone: steady allocation must not starve the sweep.
	 * Pending, it has not started (the pending bit is cleared before the
	 * work runs, with a full barrier; this record was linked before the
	 * smp_mb() above): its walk will see this record.
	 */
	if (charge->pu && !delayed_work_pending(&gpumem_charge_sweep_work))
		queue_delayed_work(system_wq, &gpumem_charge_sweep_work,
				   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_charge_cancel() - give back a charge whose allocation failed
 * @charge: from gpumem_charge_new() (may be NULL)
 */
void gpumem_charge_cancel(struct gpumem_charge *charge)
{
	if (charge)
		gpumem_charge_finish(charge, false);
}

/**
 * gpumem_charge_uncounted_records() - may a placement not counted have a
 *	record?
 *
 * The records in the table of placements in regions that are not counted
 * (system placements). While there are none, gpumem_charge_release() of
 * such a placement has nothing to do: a record is counted here before its
 * resource is given to its buffer, so whoever frees that resource sees it.
 *
 * Context: any.
 * Return: their number (0: none).
 */
long gpumem_charge_uncounted_records(void)
{
	return atomic_long_read(&gpumem_charge_uncounted);
}

/**
 * gpumem_charge_release() - uncharge a resource that is being freed
 * @res: the resource; called before the driver frees it (and before its
 *	buffer can be freed)
 *
 * Resources gpumem has no record of (placements before it was loaded,
 * buffers without an owner) are left alone.
 *
 * Context: may sleep; takes no sleeping lock.
 */
void gpumem_charge_release(struct ttm_resource *res)
{
	struct gpumem_charge *c;

	rcu_read_lock();
	c = rhashtable_lookup(&gpumem_charges, &res, gpumem_charge_params);
	if (c && !gpumem_charge_unlink(c))
		c = NULL;	/* a detaching device's walk took it */
	rcu_read_unlock();
	if (c)
		gpumem_charge_finish(c, true);
}

/*
 * Walk every record; @fn returns true to take the record out (it is then
 * given back and freed). Caller holds gpumem_charges_walk_lock. Records
 * added or removed meanwhile may or may not be visited. While it runs, the
 * records taken out of the table are freed after a grace period only (the
 * walk holds pointers to records nobody pins for it, and follows their
 * links): see the top of this file.
 *
 * When the table is resized meanwhile (it grows and shrinks by itself, in
 * a worker), the walk goes on from the start of the new table: @fn may see
 * a record twice. Returns true then; a caller that counts what it sees
 * (a report) walks again.
 */
static bool gpumem_charge_walk(bool (*fn)(struct gpumem_charge *c, void *arg),
			       void *arg)
{
	struct rhashtable_iter iter;
	struct gpumem_charge *c;
	bool again = false;

	lockdep_assert_held(&gpumem_charges_walk_lock);
	atomic_inc(&gpumem_charge_walkers);
	/* pairs with gpumem_charge_free_linked() */
	smp_mb__after_atomic();
	rhashtable_walk_enter(&gpumem_charges, &iter);
	rhashtable_walk_start(&iter);
	while ((c = rhashtable_walk_next(&iter))) {
		if (IS_ERR(c)) {
			again = true;	/* -EAGAIN: resized, from the start */
			continue;
		}
		if (fn(c, arg) && gpumem_charge_unlink(c))
			gpumem_charge_finish(c, true);
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	atomic_dec(&gpumem_charge_walkers);
	return again;
}

static bool gpumem_charge_on_device(struct gpumem_charge *c, void *arg)
{
	return c->minor == *(int *)arg;
}

static bool gpumem_charge_make_inert(struct gpumem_charge *c, void *arg)
{
	if (c->minor == *(int *)arg) {
		spin_lock(&c->lock);
		c->obj = NULL;
		spin_unlock(&c->lock);
	}
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

	mutex_lock(&gpumem_charges_walk_lock);
	ret = xa_err(xa_store(&gpumem_detaching, minor, xa_mk_value(1),
			      GFP_KERNEL));
	if (!ret)
		atomic_inc(&gpumem_detaching_nr);
	smp_mb();	/* pairs with gpumem_charge_commit() */
	if (!ret)
		gpumem_charge_walk(gpumem_charge_make_inert, &minor);
	mutex_unlock(&gpumem_charges_walk_lock);
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
	mutex_lock(&gpumem_charges_walk_lock);
	gpumem_charge_walk(gpumem_charge_on_device, &minor);
	if (xa_erase(&gpumem_detaching, minor))
		atomic_dec(&gpumem_detaching_nr);
	mutex_unlock(&gpumem_charges_walk_lock);
}

/*
 * Mark @c's owner seen gone (@c->dead was 0). Returns true when an orphaned
 * event may be due: the events are on (@watch) and @c was not considered
 * yet; a death while they are off is never reported later. Caller holds
 * @c->lock.
 */
static bool gpumem_charge_mark_dead(struct gpumem_charge *c, bool watch)
{
	c->dead = jiffies ? jiffies : 1;
	if (!watch)
		c->reported = true;
	return !c->reported;
}

/*
 * Whether TTM is deleting @obj: the last reference went while it was busy,
 * and it waits for its fences (a CPU mapping holds a reference: a mapped
 * buffer is not deleted). Every record's buffer is the GEM object of a TTM
 * buffer (hooks.c). Caller holds the record's lock (@obj stays).
 */
static bool gpumem_charge_obj_deleted(const struct drm_gem_object *obj)
{
	return READ_ONCE(container_of(obj, struct ttm_buffer_object,
				      base)->deleted);
}

/* Who is told about owners seen gone (orphans.c); NULL: nobody. */
static const struct gpumem_charge_watch *gpumem_charge_watcher;

/**
 * gpumem_charge_set_watch() - set (or clear, with NULL) who is told about
 *	owners seen gone
 * @watch: the watch; it must stay valid until cleared
 *
 * Context: any; set before the first record, cleared after the last pass.
 */
void gpumem_charge_set_watch(const struct gpumem_charge_watch *watch)
{
	WRITE_ONCE(gpumem_charge_watcher, watch);
}

/* Whether owners seen gone are wanted now (struct gpumem_charge_watch.on). */
static bool gpumem_charge_watching(void)
{
	const struct gpumem_charge_watch *w = READ_ONCE(gpumem_charge_watcher);

	return w && w->on();
}

/* Tell the watch that owners were newly seen gone. */
static void gpumem_charge_tell_gone(void)
{
	const struct gpumem_charge_watch *w = READ_ONCE(gpumem_charge_watcher);

	if (w)
		w->gone();
}

/* What a sweep found. */
struct gpumem_sweep {
	bool watch;	/* orphaned events are on */
	bool more;	/* look again later */
	bool kick;	/* an owner was newly seen gone: orphaned events due */
};

/*
 * The sweep's visit of one record. A charge stays with its cgroups until
 * its resource is freed, whatever becomes of handles, mappings, dma-bufs or
 * the owner (memcg's and dmem's rule: a tenant that mmaps a buffer and
 * closes its handle keeps paying for it). Only the per-process counters
 * (the charged view) let go: of a charge whose process has exited, and of
 * one whose buffer no handle or dma-buf has reached for GPUMEM_ORPHAN_AGE.
 * It also notes owners newly gone for the orphaned events (orphans.c):
 * while those are on, counted records no longer in their process's
 * counters (a buffer only mapped, say) are looked at until their owner
 * exits.
 */
static bool gpumem_charge_orphan(struct gpumem_charge *c, void *arg)
{
	struct gpumem_proc_usage *pu = NULL;
	struct gpumem_sweep *s = arg;

	spin_lock(&c->lock);
	if (!c->obj)
		goto out;	/* inert */
	if (!c->pu) {
		/* not counted for a process: only its owner's exit matters */
		if (!c->counted || !c->owner || c->dead)
			goto out;
		if (!pid_has_task(c->owner, PIDTYPE_TGID))
			s->kick |= gpumem_charge_mark_dead(c, s->watch);
		else if (s->watch)
			s->more = true;
		goto out;
	}
	s->more = true;	/* still counted for a process: look again later */
	if (READ_ONCE(c->obj->handle_count) || READ_ONCE(c->obj->dma_buf))
		c->since = jiffies;
	if (gpumem_proc_usage_exited(c->pu) && !c->dead)
		s->kick |= gpumem_charge_mark_dead(c, s->watch);
	if (gpumem_proc_usage_exited(c->pu) ||
	    !time_before(jiffies, c->since + GPUMEM_ORPHAN_AGE)) {
		pu = c->pu;
		c->pu = NULL;
	}
out:
	spin_unlock(&c->lock);
	if (pu)
		gpumem_proc_usage_uncharge(pu, c->region, c->bytes);
	return false;
}

static void gpumem_charge_sweep_fn(struct work_struct *work)
{
	struct gpumem_sweep s = { .watch = gpumem_charge_watching() };

	mutex_lock(&gpumem_charges_walk_lock);
	gpumem_charge_walk(gpumem_charge_orphan, &s);
	mutex_unlock(&gpumem_charges_walk_lock);
	if (s.kick)
		gpumem_charge_tell_gone();
	if (s.more)
		queue_delayed_work(system_wq, &gpumem_charge_sweep_work,
				   GPUMEM_ORPHAN_AGE);
}

/**
 * gpumem_charge_sweep_kick() - sweep the records now
 *
 * For when what the sweep looks for changed: orphaned events were turned
 * on, and a sweep that found nothing to watch while they were off does not
 * come back by itself (the owners still alive must be watched again).
 *
 * Context: process context; between gpumem_charge_init() and
 *	gpumem_charge_exit().
 */
void gpumem_charge_sweep_kick(void)
{
	mod_delayed_work(system_wq, &gpumem_charge_sweep_work, 0);
}

/* Filling a gpumem_charge_orphans() array. */
struct gpumem_orphans_fill {
	struct gpumem_orphan_rec *recs;
	size_t cap, nr, over;
	bool claim;	/* only records not reported yet, marked reported */
	bool watch;	/* orphaned events are on */
	bool kick;	/* an owner was newly seen gone: orphaned events due */
};

static bool gpumem_charge_note_orphan(struct gpumem_charge *c, void *arg)
{
	struct gpumem_orphans_fill *f = arg;
	struct gpumem_orphan_rec *r;

	if (!c->counted)
		return false;
	spin_lock(&c->lock);
	if (!c->obj || !c->owner || pid_has_task(c->owner, PIDTYPE_TGID))
		goto out;	/* inert, finished, or its owner lives */
	if (!c->dead && gpumem_charge_mark_dead(c, f->watch) && !f->claim)
		f->kick = true;
	/* a buffer being freed (TTM's delayed delete) is nobody's orphan */
	if (f->claim && (c->reported || gpumem_charge_obj_deleted(c->obj)))
		goto out;
	if (f->nr < f->cap) {
		if (f->claim)
			c->reported = true;
		r = &f->recs[f->nr++];
		r->obj = c->obj;
		r->handles = READ_ONCE(c->obj->handle_count);
		r->dmabuf = READ_ONCE(c->obj->dma_buf);
		r->bytes = c->bytes;
		r->cgid = c->cgids[0];
		r->tgid = c->tgid;
		r->minor = c->minor;
		r->region = c->region;
		r->dead_ms = jiffies_to_msecs(jiffies - c->dead);
		memcpy(r->comm, c->comm, sizeof(r->comm));
	} else {
		f->over++;
	}
out:
	spin_unlock(&c->lock);
	return false;
}

/**
 * gpumem_charge_orphans() - the charged placements whose owner has exited
 * @recsp: a kvmalloc'ed array (or NULL), grown as needed; kvfree() it
 * @capp: its capacity
 * @nrp: returns the number of records filled in
 * @claim: only the orphans not reported yet (for the orphaned events),
 *	each marked reported as it is filled in; buffers being freed are left
 *	out
 * @limit: with @claim, claim at most about this many (the array grows no
 *	further; 0: no bound): -EAGAIN then, the rest is left for a later call
 *
 * A counted placement (VRAM, GTT) is an orphan while its resource lives
 * and its owner (the allocating process) has exited (been reaped); its
 * cgroups stay charged (see the top of this file). Marks the time each
 * orphan was first seen as such (the sweep marks it too).
 *
 * Context: may sleep; takes gpumem_charges_walk_lock.
 * Return: 0, -ENOMEM, or -EAGAIN when records kept appearing faster than
 *	the array could grow. With @claim, *@nrp is set also on an error: the
 *	records filled in are claimed; the others are left for a later call.
 */
int gpumem_charge_orphans(struct gpumem_orphan_rec **recsp, size_t *capp,
			  size_t *nrp, bool claim, size_t limit)
{
	struct gpumem_orphans_fill f = {
		.recs = *recsp, .cap = *capp, .claim = claim,
		.watch = gpumem_charge_watching(),
	};
	bool resized = false;
	unsigned int tries;
	size_t need;
	int ret = 0;

	/*
	 * A report: room for every record now, so that one pass usually does
	 * (a pass visits every record under its lock). Without that room
	 * (-ENOMEM leaves the array as it was), or when claiming (usually
	 * few), the passes grow the array as needed.
	 */
	if (!claim)
		gpumem_vec_reserve((void **)&f.recs, &f.cap,
				   atomic_read(&gpumem_charges.nelems) + 16,
				   sizeof(*f.recs));
	for (tries = 0; tries < 4; tries++) {
		if (!claim)
			f.nr = 0;	/* claimed records stay: not seen again */
		f.over = 0;
		mutex_lock(&gpumem_charges_walk_lock);
		/*
		 * A report that saw a record twice (the table was resized)
		 * counts again; a claim took each record once all the same.
		 */
		resized = gpumem_charge_walk(gpumem_charge_note_orphan, &f) &&
			  !claim;
		mutex_unlock(&gpumem_charges_walk_lock);
		if (resized)
			continue;	/* -EAGAIN if it keeps happening */
		if (!f.over)
			break;
		need = f.nr + f.over + f.over / 4 + 16;
		if (claim && limit && need > limit)
			need = max(limit, f.nr + 1);
		if (claim && limit && need <= f.cap) {
			ret = -EAGAIN;	/* claimed enough for one call */
			break;
		}
		ret = gpumem_vec_reserve((void **)&f.recs, &f.cap, need,
					 sizeof(*f.recs));
		if (ret)
			break;
	}
	if (!ret && (f.over || resized))
		ret = -EAGAIN;
	if (f.kick)
		gpumem_charge_tell_gone();
	*recsp = f.recs;
	*capp = f.cap;
	*nrp = ret && !claim ? 0 : f.nr;
	return ret;
}

/**
 * gpumem_charge_records() - the number of charge records alive now
 *
 * Every record with an owner in the table: charged placements, the system
 * placements that carry an owner, and the inert records of a device being
 * detached; not the unattributed ones (gpumem_charge_unattributed_records()).
 * hook_charged and hook_uncharged count the same records.
 *
 * Context: any.
 * Return: the count (the table's own atomic count of its elements, less
 *	the unattributed records: a moment's read may be off by a record
 *	being added or removed).
 */
u64 gpumem_charge_records(void)
{
	long n = atomic_read(&gpumem_charges.nelems) -
		 atomic_long_read(&gpumem_unattr_records);

	return n > 0 ? n : 0;
}

/**
 * gpumem_charge_unattributed_records() - the unattributed records alive now
 *
 * The records in the table that carry no owner (see the top of this file):
 * buffers the kernel made for itself, or placed before gpumem was loaded,
 * in every region.
 *
 * Context: any.
 * Return: the count.
 */
u64 gpumem_charge_unattributed_records(void)
{
	return atomic_long_read(&gpumem_unattr_records);
}

/**
 * gpumem_charge_init() - set up the charge records
 *
 * Return: 0 or a negative errno.
 */
int gpumem_charge_init(void)
{
	int ret;

	gpumem_charge_cache =
		kmem_cache_create(GPUMEM_CHARGE_CACHE_NAME,
				  gpumem_charge_size(GPUMEM_CHARGE_CACHE_ROOM),
				  0, SLAB_TYPESAFE_BY_RCU, gpumem_charge_ctor);
	if (!gpumem_charge_cache)
		return -ENOMEM;
	atomic_long_set(&gpumem_charge_uncounted, 0);
	ret = rhashtable_init(&gpumem_charges, &gpumem_charge_params);
	if (ret)
		kmem_cache_destroy(gpumem_charge_cache);
	return ret;
}

static void gpumem_charge_destroy(void *ptr, void *arg)
{
	gpumem_charge_finish(ptr, false);
}

/**
 * gpumem_charge_exit() - give back and free every record
 *
 * Context: module exit, after every hook is gone.
 */
void gpumem_charge_exit(void)
{
	struct gpumem_unattr *u;
	unsigned long minor;
	int cpu;

	cancel_delayed_work_sync(&gpumem_charge_sweep_work);
	rhashtable_free_and_destroy(&gpumem_charges, gpumem_charge_destroy,
				    NULL);
	rcu_barrier();	/* call_rcu() of released records */
	for_each_possible_cpu(cpu) {
		struct gpumem_charge_pool *pool = per_cpu_ptr(&gpumem_charge_pool,
							      cpu);

		while (pool->nr)
			kmem_cache_free(gpumem_charge_cache,
					pool->recs[--pool->nr]);
	}
	kmem_cache_destroy(gpumem_charge_cache);
	xa_for_each(&gpumem_unattr, minor, u)
		kfree(u);
	xa_destroy(&gpumem_unattr);
}
