// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem hooks: no code patching. A TTM resource manager calls its
 * allocator through man->func; gpumem points man->func at a copy of the
 * driver's table whose alloc/free wrap the originals (TTM never compares the
 * pointer). Likewise bdev->funcs gets a copy whose eviction_valuable refuses
 * to evict anything for a task whose placement was just denied: otherwise
 * TTM would evict other cgroups' buffers (or the offender's own, uncharging
 * it) until the denied placement fits; and whose evict_flags tells
 * charge.c which buffer TTM is evicting (its moves are no request in the
 * owner's name).
 *
 * One hook per TTM device, and one per manager: several gpumem devices may
 * lead to one TTM device (amdgpu's partitions, MI300-class XCP: several
 * primary minors whose dev is the drm_device of the whole GPU; or several
 * drm_devices sharing a TTM device). The first device to find the TTM
 * device hooks it (struct gpumem_ttm_hook); the others join the hook as
 * users and wrap nothing; a manager whose table is already gpumem's is
 * never wrapped again (a wrapper finds its hook through man->func: a
 * second wrapping would call itself for ever). The last user to go
 * unhooks.
 *
 * Which device is charged: every placement on a TTM device's managers is
 * charged to its charging device, the first user of its hook (for amdgpu,
 * the whole GPU's card: it registers before its partitions, which go
 * first). Its device row shows the managers' use; the other users' rows
 * show none (gpumem_device.ttm_alias), so nothing is counted twice. When
 * the charging device goes before the others, the next user is charged
 * from then on (gpumem_hooks_detach()).
 *
 * Tables wrapped after gpumem: when the last user goes, a table is put back
 * only if the device or manager still points at gpumem's copy. If
 * something else changed the pointer after gpumem (its table calls
 * gpumem's copy), gpumem's copy stays where it is, is never freed, and
 * passes every call straight to the driver's; gpumem then takes a
 * reference on itself so that it cannot be unloaded under that caller
 * (at module exit it is too late for that: it says so in the log). Such
 * a stranded TTM device or manager is never hooked again (until a
 * reboot): a wrapper finds its hook from the device or manager alone and
 * could not tell a second hook in the chain from the first.
 *
 * Lifetime: a wrapper may be running, or about to run, when its table is
 * restored. Every wrapper finds its hook under rcu_read_lock() and, unless
 * the hook is dying, counts itself in its TTM device's per-CPU in-flight
 * count (struct gpumem_ttm_hook) before it leaves that section, and stays
 * counted for its whole run; a wrapper that finds the hook dying passes
 * the call straight to the driver. Unhooking restores the pointers, marks
 * the hook dying, waits for an RCU grace period (every wrapper that did not
 * see the mark has counted itself) and an RCU-tasks grace period (every
 * task that loaded an old pointer has passed that point: nothing between
 * the load and the count can sleep), waits until the count's sum over the
 * CPUs is zero (the wrappers that started before; other devices' traffic,
 * and calls that start later, never hold it up), and then frees the copies
 * (after another grace period: the wrappers' last reads come before their
 * decrement). A wrapper leaves the count with one per-CPU decrement, no RCU
 * section (a percpu_ref's put takes one). Module exit
 * waits for another RCU-tasks grace period (the wrappers' last
 * instructions) before the text goes away. A device unbound while hooked
 * removes its minors (each a user going, the last one unhooks) before its
 * TTM device is torn down.
 *
 * Locking: gpumem_ttm_hooks and gpumem_man_hooks (RCU lists), every hook's
 * users and which one is charged are changed under gpumem_hooks_lock (a
 * mutex, taken only when a device comes or goes); the wrappers take no
 * lock to find their hook: man->func or bdev->funcs points at the hook's
 * own copy (the lists are read under rcu_read_lock() only for a table
 * restored meanwhile or wrapped by something else), and they read the
 * charged minor with READ_ONCE(). The eviction guard has its own lock
 * (evict_guard.c).
 */
#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/delay.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "compat.h"
#include "classify.h"
#include "discover.h"
#include "evict_guard.h"
#include "hooks.h"
#include "hook_stats.h"
#include "charge.h"
#include "events.h"
#include "limits.h"

static unsigned int threshold_pct = 80;
static unsigned int threshold_hyst_pct = 5;

static int gpumem_param_set_pct(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 100);
}

static const struct kernel_param_ops gpumem_pct_ops = {
	.set = gpumem_param_set_pct,
	.get = param_get_uint,
};

module_param_cb(threshold_pct, &gpumem_pct_ops, &threshold_pct, 0644);
MODULE_PARM_DESC(threshold_pct, "device-threshold event when a region's use crosses this percentage (0: off, default 80)");
module_param_cb(threshold_hyst_pct, &gpumem_pct_ops, &threshold_hyst_pct, 0644);
MODULE_PARM_DESC(threshold_hyst_pct, "a device-threshold is re-armed once the region's use falls this many percentage points below it (0..100, default 5)");

/**
 * struct gpumem_ttm_hook - the wrappers of one TTM device, as a whole
 * @node: entry in gpumem_ttm_hooks
 * @rcu: for freeing after the readers of the list
 * @inflight: per CPU, wrappers of the device that entered there minus
 *	those that left there: the sum over the CPUs is the wrappers running
 *	(see the top of this file)
 * @dying: no wrapper enters from now on (set once, when unhooking)
 * @bdev: the TTM device
 * @orig: its original function table
 * @funcs: the copy bdev->funcs points to while hooked
 * @wrapped: @funcs was installed (not when the device's eviction callback
 *	was gpumem's already: then this hook is never the one called)
 * @users: the gpumem devices that lead to @bdev (gpumem_device.hook_node),
 *	in the order they were hooked; the first is the charging device.
 *	Under gpumem_hooks_lock
 * @minor: the charging device's minor: every placement on the device's
 *	managers is charged to it (written under gpumem_hooks_lock, read by
 *	the wrappers with READ_ONCE())
 * @stranded: something wrapped a table of ours after us when the last
 *	user went: ours stays in place, passing calls through (never freed)
 * @threshold_above: bit per region: its use crossed threshold_pct and has
 *	not fallen below the low mark since (threshold_pct minus
 *	threshold_hyst_pct): the threshold is disarmed (atomic bit operations)
 * @tmans: per region, the managers of known capacity (@ntmans of them),
 *	whose use the threshold check adds up
 * @ntmans: per region, the number of @tmans (published with release after
 *	the manager and its capacity, see gpumem_hook_manager())
 * @tcap: per region, the capacity of its @tmans
 * @frag_lock: protects @frag_last and @frag_last_at
 * @frag_last: the buffer of the last one, compared only (TTM asks again
 *	for the same buffer after evicting: one event per request)
 * @frag_last_at: jiffies of the last one (a buffer freed and another made
 *	at its address a second later is another request)
 */
struct gpumem_ttm_hook {
	struct list_head node;
	struct rcu_head rcu;
	long __percpu *inflight;
	bool dying;
	struct ttm_device *bdev;
	const struct ttm_device_funcs *orig;
	struct ttm_device_funcs funcs;
	bool wrapped;
	struct list_head users;
	int minor;
	bool stranded;
	unsigned long threshold_above;
	struct ttm_resource_manager *tmans[GPUMEM_REGION_COUNT][TTM_NUM_MEM_TYPES];
	unsigned int ntmans[GPUMEM_REGION_COUNT];
	u64 tcap[GPUMEM_REGION_COUNT];
	spinlock_t frag_lock;		/* protects frag_last(_at) */
	const void *frag_last;
	unsigned long frag_last_at;
};

/**
 * struct gpumem_man_hook - one wrapped resource manager
 * @node: entry in gpumem_man_hooks
 * @rcu: for freeing after the readers of the list
 * @man: the manager
 * @orig: its original function table
 * @funcs: the copy man->func points to while hooked
 * @hk: the TTM device's wrappers as a whole
 * @region: enum gpumem_region of the manager
 * @counted: its placements are charged (VRAM, GTT; not TTM's system
 *	manager, hooked only so that owners travel, see charge.c)
 * @capacity: bytes, 0 if unknown (not counted for threshold events)
 */
struct gpumem_man_hook {
	struct list_head node;
	struct rcu_head rcu;
	struct ttm_resource_manager *man;
	const struct ttm_resource_manager_func *orig;
	struct ttm_resource_manager_func funcs;
	struct gpumem_ttm_hook *hk;
	u8 region;
	bool counted;
	u64 capacity;
};

static LIST_HEAD(gpumem_man_hooks);	/* RCU; changed under gpumem_hooks_lock */
static LIST_HEAD(gpumem_ttm_hooks);	/* RCU; changed under gpumem_hooks_lock */
static DEFINE_MUTEX(gpumem_hooks_lock);
static int gpumem_hook_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *bo,
			     const struct ttm_place *place,
			     struct ttm_resource **res);
static bool gpumem_hook_eviction_valuable(struct ttm_buffer_object *bo,
					  const struct ttm_place *place);

/*
 * Count a wrapper of @hk as running, unless @hk is dying. Caller holds
 * rcu_read_lock(): gpumem_ttm_unhook() waits for a grace period after it
 * marks @hk dying, so every wrapper that did not see the mark is counted.
 */
static __always_inline bool gpumem_hook_enter(struct gpumem_ttm_hook *hk)
{
	if (READ_ONCE(hk->dying))
		return false;
	this_cpu_inc(*hk->inflight);
	return true;
}

/* A wrapper of @hk that entered is done: its last use of @hk and its hooks. */
static __always_inline void gpumem_hook_leave(struct gpumem_ttm_hook *hk)
{
	this_cpu_dec(*hk->inflight);
}

/* Whether a wrapper of @hk (dying, a grace period ago) still runs. */
static bool gpumem_hook_running(struct gpumem_ttm_hook *hk)
{
	long sum = 0;
	int cpu;

	/*
	 * No wrapper enters any more: the counts only fall, so a sum read one
	 * CPU after the other is never below the true one, and zero only once
	 * every wrapper left.
	 */
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(hk->inflight, cpu));
	return sum != 0;
}

/*
 * @man's hook, under rcu_read_lock(). O(1) while @man is hooked: man->func
 * is then the hook's own copy (freed only after a grace period that follows
 * the restore of man->func); the list is searched only for a manager whose
 * table was restored meanwhile (its wrapper was already running), or that
 * something else wrapped after gpumem (its table calls ours).
 */
static struct gpumem_man_hook *gpumem_man_hook_find(struct ttm_resource_manager *man)
{
	const struct ttm_resource_manager_func *f = READ_ONCE(man->func);
	struct gpumem_man_hook *h;

	if (f->alloc == gpumem_hook_alloc) {
		h = container_of(f, struct gpumem_man_hook, funcs);
		if (likely(h->man == man))
			return h;
	}
	list_for_each_entry_rcu(h, &gpumem_man_hooks, node)
		if (h->man == man)
			return h;
	return NULL;
}

/*
 * @man's hook with a reference on its TTM device's count, or NULL when the
 * device is being detached: then *@orig is the driver's table to pass the
 * call to (NULL if @man has no hook at all, which cannot happen). Inlined:
 * every allocation and free of a hooked manager starts here.
 */
static __always_inline struct gpumem_man_hook *
gpumem_man_hook_get(struct ttm_resource_manager *man,
		    const struct ttm_resource_manager_func **orig)
{
	struct gpumem_man_hook *h;

	rcu_read_lock();
	h = gpumem_man_hook_find(man);
	*orig = h ? h->orig : NULL;
	if (h && !gpumem_hook_enter(h->hk))
		h = NULL;
	rcu_read_unlock();
	return h;
}

/* Likewise for @bdev's hook and the driver's ttm_device_funcs. */
static struct gpumem_ttm_hook *
gpumem_ttm_hook_get(struct ttm_device *bdev,
		    const struct ttm_device_funcs **orig)
{
	const struct ttm_device_funcs *f;
	struct gpumem_ttm_hook *hk, *found = NULL;

	rcu_read_lock();
	f = READ_ONCE(bdev->funcs);
	if (f->eviction_valuable == gpumem_hook_eviction_valuable) {
		hk = container_of(f, struct gpumem_ttm_hook, funcs);
		if (likely(hk->bdev == bdev))
			found = hk;
	}
	if (!found) {	/* the newest first: see gpumem_ttm_hook_new() */
		list_for_each_entry_rcu(hk, &gpumem_ttm_hooks, node) {
			/* one that wrapped nothing is not who was called */
			if (hk->bdev == bdev && hk->wrapped) {
				found = hk;
				break;
			}
		}
	}
	*orig = found ? found->orig : NULL;
	if (found && !gpumem_hook_enter(found))
		found = NULL;
	rcu_read_unlock();
	return found;
}

/*
 * The cgroup of the current task (0 for a kernel thread: a placement made
 * on nobody's behalf), to whom an event it causes is charged.
 */
static u64 gpumem_current_cgid(void)
{
	u64 cgid;

	if (current->flags & PF_KTHREAD)
		return 0;
	rcu_read_lock();	/* the task's css_set */
	cgid = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return cgid;
}

/*
 * Report a device region crossing its threshold (@usage after @requested),
 * rate-limited per allocating cgroup and device.
 */
static void gpumem_threshold_event(int minor, u8 region, u64 usage,
				   u64 requested, u64 threshold)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD,
		.minor = minor,
		.region = region,
		.usage = usage,
		.requested = requested,
		.limit = threshold,
	};
	struct gpumem_event_key key = {
		.cgid = gpumem_current_cgid(), .minor = minor,
		.type = GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD,
	};

	if (!gpumem_event_ratelimit(&key, &ev.suppressed))
		return;
	if (!(current->flags & PF_KTHREAD)) {
		ev.pid = task_tgid_nr(current);
		get_task_comm(ev.comm, current);
	}
	gpumem_event_emit(&ev);
}

/*
 * Device-threshold events: the region's use (all its managers) against its
 * capacity, edge-triggered on the way up, re-armed only once it falls below
 * the low mark (threshold_hyst_pct points lower): buffers allocated and
 * freed across the threshold give one event, not one per pair.
 * O(managers of the region), usually one, and lock-free: each manager's use
 * is read without TTM's lru_lock (a report needs no exact moment, and the
 * allocation path should not contend for that lock with TTM itself).
 */
static void gpumem_threshold_check(struct gpumem_man_hook *h, u64 bytes,
				   bool alloc)
{
	unsigned int pct = READ_ONCE(threshold_pct);
	unsigned int hyst = READ_ONCE(threshold_hyst_pct);
	struct gpumem_ttm_hook *hk = h->hk;
	u64 usage = 0, cap, limit, low;
	unsigned int i, n;

	if (!pct)
		return;
	/* pairs with gpumem_hook_manager(): @tcap covers these managers */
	n = smp_load_acquire(&hk->ntmans[h->region]);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		usage += READ_ONCE(hk->tmans[h->region][i]->usage);
	cap = READ_ONCE(hk->tcap[h->region]);
	limit = div_u64(cap * pct, 100);
	if (usage > limit) {
		if (alloc && !test_and_set_bit(h->region, &hk->threshold_above))
			gpumem_threshold_event(READ_ONCE(hk->minor), h->region,
					       usage, bytes, limit);
		return;
	}
	/*
	 * At or below the threshold: only an event that fired is re-armed,
	 * below the low mark (at once without one). Read first: an atomic
	 * write by every allocation would move the line between the CPUs
	 * that allocate on the device.
	 */
	if (!test_bit(h->region, &hk->threshold_above))
		return;
	low = div_u64(cap * (pct - min(hyst, pct)), 100);
	if (!hyst || usage < low)
		clear_bit(h->region, &hk->threshold_above);
	/* else between the marks: stays disarmed */
}

/*
 * A VRAM manager found no block for @bytes although it has that much free:
 * fragmentation. Reported (rate-limited per allocating cgroup and device)
 * in the allocating task's name; a placement restricted to part of
 * the manager (fpfn/lpfn: visible VRAM) is not fragmentation and is not.
 */
static void gpumem_fragmented_check(struct gpumem_man_hook *h,
				    const struct ttm_place *place,
				    const struct ttm_buffer_object *bo)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL,
		.minor = READ_ONCE(h->hk->minor),
		.region = h->region,
		.requested = bo->base.size,
		.limit = h->capacity,
	};
	struct gpumem_event_key key = {
		.cgid = gpumem_current_cgid(), .minor = READ_ONCE(h->hk->minor),
		.type = GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL,
	};
	bool allowed;

	if (h->region != GPUMEM_REGION_VRAM || !h->capacity ||
	    place->fpfn || place->lpfn)
		return;
	ev.usage = ttm_resource_manager_usage(h->man);
	if (ev.usage > h->capacity || h->capacity - ev.usage < ev.requested)
		return;		/* full: not fragmentation */
	spin_lock(&h->hk->frag_lock);
	allowed = h->hk->frag_last != bo ||
		  time_after(jiffies, h->hk->frag_last_at + HZ);
	h->hk->frag_last = bo;
	h->hk->frag_last_at = jiffies;
	spin_unlock(&h->hk->frag_lock);
	if (!allowed || !gpumem_event_ratelimit(&key, &ev.suppressed))
		return;
	if (!(current->flags & PF_KTHREAD)) {
		ev.pid = task_tgid_nr(current);
		get_task_comm(ev.comm, current);
		ev.cgid = key.cgid;
	}
	gpumem_event_emit(&ev);
}

static int gpumem_hook_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *bo,
			     const struct ttm_place *place,
			     struct ttm_resource **res)
{
	const struct ttm_resource_manager_func *orig;
	struct gpumem_charge *charge = NULL;
	struct gpumem_placement pl;
	struct gpumem_man_hook *h;
	int minor, ret;

	h = gpumem_man_hook_get(man, &orig);
	if (!h) {	/* being detached: the driver's own allocation */
		if (WARN_ON_ONCE(!orig))
			return -ENOSPC;
		return orig->alloc(man, bo, place, res);
	}
	/* h stays valid: detaching waits for the references on its count */
	/*
	 * A TTM object that is no GEM object (i915 sizes a region with an
	 * on-stack mock object) is the driver's own: not charged, and no
	 * record may point at it.
	 */
	if (!bo->base.dev) {
		ret = h->orig->alloc(man, bo, place, res);
		goto out;
	}
	/*
	 * qxl creates every buffer through a system bounce: a temporary
	 * placement of a buffer without a resource yet has no owner to carry
	 * and is not counted, so it gets no record (this is the one place
	 * that decides so).
	 */
	if (!h->counted && !bo->resource &&
	    (place->flags & TTM_PL_FLAG_TEMPORARY)) {
		ret = h->orig->alloc(man, bo, place, res);
		goto out;
	}
	pl.obj = &bo->base;
	pl.prev = bo->resource;	/* stable: TTM holds the reservation */
	/* the charging device of the TTM device (see gpumem_hooks_detach()) */
	minor = READ_ONCE(h->hk->minor);
	pl.minor = minor;
	pl.region = h->region;
	pl.bytes = bo->base.size;
	pl.counted = h->counted;
	/* dmem charged this placement already (ttm_bo_alloc_at_place()) */
	pl.dmem = pl.counted && gpumem_man_dmem_region(man);
	/* A retry of a request just denied is decided again, reported once. */
	pl.quiet = pl.counted &&
		   gpumem_guard_denied_before(minor, place->mem_type);
	ret = gpumem_charge_new(&pl, &charge);
	if (ret == -ENOSPC)
		gpumem_guard_enter(minor, place->mem_type, &bo->base);
	if (ret == -ENOMEM) {
		/* gpumem's own failure never fails the user's allocation */
		pr_warn_ratelimited("gpumem: out of memory: a placement of %zu bytes on device %d goes uncharged\n",
				    bo->base.size, minor);
		gpumem_hook_stats_inc(GPUMEM_HOOK_CHARGE_FAILED);
		charge = NULL;
		ret = 0;
	}
	if (ret)
		goto out;
	ret = h->orig->alloc(man, bo, place, res);
	if (ret) {
		gpumem_charge_cancel(charge);
		if (ret == -ENOSPC && pl.counted)
			gpumem_fragmented_check(h, place, bo);
		goto out;
	}
	gpumem_charge_commit(charge, *res);
	if (pl.counted)
		gpumem_threshold_check(h, bo->base.size, true);
out:
	gpumem_hook_leave(h->hk);
	return ret;
}

static void gpumem_hook_free(struct ttm_resource_manager *man,
			     struct ttm_resource *res)
{
	const struct ttm_resource_manager_func *orig;
	struct gpumem_man_hook *h;

	h = gpumem_man_hook_get(man, &orig);
	/*
	 * A placement not counted (qxl's system bounce of every new buffer)
	 * has a record only while some such placement has one.
	 */
	if (!h || h->counted || gpumem_charge_uncounted_records())
		gpumem_charge_release(res);
	if (!h) {	/* being detached */
		if (!WARN_ON_ONCE(!orig))
			orig->free(man, res);
		return;
	}
	h->orig->free(man, res);
	/* a free only re-arms the event: nothing to do below the threshold */
	if (h->counted && test_bit(h->region, &h->hk->threshold_above))
		gpumem_threshold_check(h, 0, false);
	gpumem_hook_leave(h->hk);
}

static bool gpumem_hook_eviction_valuable(struct ttm_buffer_object *bo,
					  const struct ttm_place *place)
{
	const struct ttm_device_funcs *orig;
	struct gpumem_ttm_hook *found;
	bool ret;

	found = gpumem_ttm_hook_get(bo->bdev, &orig);
	if (!found) {	/* being detached */
		if (orig && orig->eviction_valuable)
			return orig->eviction_valuable(bo, place);
		return ttm_bo_eviction_valuable(bo, place);
	}
	/* found stays valid: detaching waits for the references on its count */
	if (!gpumem_guard_allows_eviction(READ_ONCE(found->minor), place->mem_type))
		ret = false;
	else if (found->orig->eviction_valuable)
		ret = found->orig->eviction_valuable(bo, place);
	else
		ret = ttm_bo_eviction_valuable(bo, place);
	gpumem_hook_leave(found);
	return ret;
}

/*
 * TTM calls the driver's evict_flags for the buffer it evicts (ttm_bo_evict()
 * on 6.1, 6.12 and 7.3; nothing else calls it), under the buffer's
 * reservation, in whichever task's allocation needs the room: the
 * placements of the buffer that follow are that eviction's (forced), not a
 * request in its owner's name (charge.c).
 */
static void gpumem_hook_evict_flags(struct ttm_buffer_object *bo,
				    struct ttm_placement *placement)
{
	const struct ttm_device_funcs *orig;
	struct gpumem_ttm_hook *found;

	found = gpumem_ttm_hook_get(bo->bdev, &orig);
	if (!found) {	/* being detached */
		if (!WARN_ON_ONCE(!orig))
			orig->evict_flags(bo, placement);
		return;
	}
	if (bo->base.dev)	/* a GEM object: see gpumem_hook_alloc() */
		gpumem_charge_evicting(bo->resource, &bo->base);
	found->orig->evict_flags(bo, placement);
	gpumem_hook_leave(found);
}

/* Whether @man has a hook (maybe stranded). Caller holds gpumem_hooks_lock. */
static bool gpumem_man_hooked(struct ttm_resource_manager *man)
{
	struct gpumem_man_hook *h;

	lockdep_assert_held(&gpumem_hooks_lock);
	list_for_each_entry(h, &gpumem_man_hooks, node)
		if (h->man == man)
			return true;
	return false;
}

static int gpumem_hook_manager(struct gpumem_device *gdev,
			       struct gpumem_ttm_hook *hk, u32 mem_type)
{
	struct ttm_resource_manager *man = ttm_manager_type(gdev->bdev, mem_type);
	struct gpumem_man_hook *h;
	enum gpumem_region region;
	u64 cap = 0;

	if (!man || !man->use_type || !man->func)
		return 0;
	/*
	 * Never wrap a manager twice: one that is already gpumem's belongs to
	 * another TTM device's hook too (a driver may give two TTM devices
	 * one manager); its placements are charged where it was hooked first.
	 * Nor one with a stranded hook: a wrapper finds its hook from the
	 * manager alone, and would take the new one for the stranded one's.
	 */
	if (man->func->alloc == gpumem_hook_alloc || gpumem_man_hooked(man))
		return 0;
	/*
	 * VRAM and GTT are charged; TTM's own system manager is hooked only so
	 * that a buffer's owner travels through its system placements (see
	 * charge.c). Other driver types stay unhooked.
	 */
	if (mem_type == TTM_PL_SYSTEM)
		region = GPUMEM_REGION_SYSTEM;
	else
		region = gpumem_classify(gdev->drv, mem_type, TTM_NUM_MEM_TYPES,
					 man->use_tt);
	if (!gpumem_region_counted(region) && mem_type != TTM_PL_SYSTEM)
		return 0;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->man = man;
	h->orig = man->func;
	h->funcs = *man->func;
	h->funcs.alloc = gpumem_hook_alloc;
	h->funcs.free = gpumem_hook_free;
	h->hk = hk;
	h->region = region;
	h->counted = gpumem_region_counted(region);
	if (h->counted &&
	    gpumem_manager_capacity(gdev->drv, mem_type, man->size, PAGE_SHIFT,
				    &cap))
		h->capacity = cap;
	if (h->capacity) {
		/*
		 * A check running meanwhile on another manager of the region
		 * sees the new count only with the capacity that covers it
		 * (it may miss the manager: an event comes late, never false).
		 */
		hk->tmans[region][hk->ntmans[region]] = man;
		WRITE_ONCE(hk->tcap[region], hk->tcap[region] + h->capacity);
		/* pairs with gpumem_threshold_check()'s acquire */
		smp_store_release(&hk->ntmans[region], hk->ntmans[region] + 1);
	}
	/* at the head: a search finds the newest hook of a manager first */
	list_add_rcu(&h->node, &gpumem_man_hooks);
	/* release: the wrapper finds h on the list before it can be called */
	smp_store_release(&man->func, &h->funcs);
	return 0;
}

/* @bdev's hook (maybe stranded), or NULL. Caller holds gpumem_hooks_lock. */
static struct gpumem_ttm_hook *gpumem_ttm_hook_lookup(struct ttm_device *bdev)
{
	struct gpumem_ttm_hook *hk;

	lockdep_assert_held(&gpumem_hooks_lock);
	list_for_each_entry(hk, &gpumem_ttm_hooks, node)
		if (hk->bdev == bdev)
			return hk;
	return NULL;
}

/*
 * A new hook of @gdev's TTM device, charged to @gdev, with its eviction
 * callback wrapped (its managers are wrapped by the caller). Caller holds
 * gpumem_hooks_lock. NULL: out of memory.
 */
static struct gpumem_ttm_hook *gpumem_ttm_hook_new(struct gpumem_device *gdev)
{
	struct ttm_device *bdev = gdev->bdev;
	struct gpumem_ttm_hook *hk;

	hk = kzalloc(sizeof(*hk), GFP_KERNEL);
	if (!hk)
		return NULL;
	hk->inflight = alloc_percpu(long);
	if (!hk->inflight) {
		kfree(hk);
		return NULL;
	}
	spin_lock_init(&hk->frag_lock);
	INIT_LIST_HEAD(&hk->users);
	hk->bdev = bdev;
	hk->minor = gdev->minor;
	hk->orig = bdev->funcs;
	hk->funcs = *bdev->funcs;
	hk->funcs.eviction_valuable = gpumem_hook_eviction_valuable;
	if (hk->funcs.evict_flags)	/* TTM calls it unchecked: always */
		hk->funcs.evict_flags = gpumem_hook_evict_flags;
	list_add_tail(&gdev->hook_node, &hk->users);
	gdev->ttm_hook = hk;
	WRITE_ONCE(gdev->ttm_alias, false);
	/* at the head: a search finds the newest hook of a device first */
	list_add_rcu(&hk->node, &gpumem_ttm_hooks);
	/* the wrapper finds hk on the list before it can be called */
	hk->wrapped = bdev->funcs->eviction_valuable !=
		      gpumem_hook_eviction_valuable;
	if (hk->wrapped)
		gpumem_set_bdev_funcs(bdev, &hk->funcs);
	return hk;
}

static void gpumem_hooks_detach(struct gpumem_device *gdev);

/*
 * Wrap the VRAM/GTT managers (and TTM's system manager) and the eviction
 * callback of @gdev's TTM device, once its TTM device is known; or, when
 * another device (another minor of the same drm_device, or another
 * drm_device) has hooked that TTM device already, join its hook: then
 * nothing is wrapped again and @gdev is charged nothing (see
 * gpumem_hooks_detach()). 0, -ENOMEM (then unhooked) or -EBUSY (a
 * stranded TTM device, see the top).
 */
static int gpumem_hooks_attach(struct gpumem_device *gdev)
{
	struct gpumem_ttm_hook *hk;
	u32 t;
	int ret = 0;

	if (!gdev->bdev)
		return 0;
	mutex_lock(&gpumem_hooks_lock);
	hk = gpumem_ttm_hook_lookup(gdev->bdev);
	if (hk && hk->stranded) {
		/* see gpumem_hook_manager(): never again, until a reboot */
		mutex_unlock(&gpumem_hooks_lock);
		return -EBUSY;
	}
	if (hk) {
		list_add_tail(&gdev->hook_node, &hk->users);
		gdev->ttm_hook = hk;
		WRITE_ONCE(gdev->ttm_alias, true);
		mutex_unlock(&gpumem_hooks_lock);
		return 0;
	}
	hk = gpumem_ttm_hook_new(gdev);
	if (!hk) {
		mutex_unlock(&gpumem_hooks_lock);
		return -ENOMEM;
	}
	for (t = 0; t < TTM_NUM_MEM_TYPES && !ret; t++)
		ret = gpumem_hook_manager(gdev, hk, t);
	mutex_unlock(&gpumem_hooks_lock);
	if (ret)
		gpumem_hooks_detach(gdev);	/* the only user: unhooks */
	return ret;
}

/*
 * Put back @h's manager's table: only while it still points at ours. If
 * something else wrapped it after gpumem (it points at a table of theirs,
 * which calls ours), taking ours out of the chain would be theirs to do:
 * ours stays (stranded, see gpumem_ttm_unhook()). Whether it did.
 */
static bool gpumem_man_restore(struct gpumem_man_hook *h)
{
	const struct ttm_resource_manager_func *ours = &h->funcs;

	return cmpxchg(&h->man->func, ours, h->orig) == ours;
}

/*
 * Unhook @hk, whose last user has gone: restore its tables, wait until no
 * wrapper of it runs (finite: other devices' traffic is not waited for,
 * nor are calls that start meanwhile), free it. Allocation keeps working
 * through the restored tables. A table something else wrapped after gpumem
 * stays in place and keeps passing calls to the driver's (its hook and @hk
 * are never freed, and gpumem pins itself: see the comment at the top).
 *
 * Called with gpumem_hooks_lock held (the waits happen under it: a device
 * coming or going waits for them too).
 *
 * Return: true when @hk is out of the lists, to be freed with
 * gpumem_ttm_hook_free() once the lock is dropped; false when it stays
 * (stranded).
 */
static bool gpumem_ttm_unhook(struct gpumem_ttm_hook *hk)
{
	struct gpumem_man_hook *h, *htmp;
	bool stranded = false;

	lockdep_assert_held(&gpumem_hooks_lock);
	list_for_each_entry(h, &gpumem_man_hooks, node)
		if (h->hk == hk && !gpumem_man_restore(h))
			stranded = true;
	if (hk->wrapped &&
	    !gpumem_restore_bdev_funcs(hk->bdev, &hk->funcs, hk->orig))
		stranded = true;
	/*
	 * No wrapper enters from now on. Every wrapper that did not see the
	 * mark has counted itself after an RCU grace period, every task that
	 * loaded an old pointer has passed that point after an RCU-tasks
	 * grace period (nothing before it sleeps); then the wrappers counted
	 * leave. The waits are finite: new calls take the restored tables,
	 * and late wrappers pass their calls to the driver uncounted.
	 */
	WRITE_ONCE(hk->dying, true);
	synchronize_rcu();
	synchronize_rcu_tasks();
	while (gpumem_hook_running(hk))
		usleep_range(500, 1000);
	if (stranded) {
		/* found by the other's table through the lists, forever */
		hk->stranded = true;
		if (!try_module_get(THIS_MODULE))
			pr_err("gpumem: unloaded while another module's TTM wrapper still calls it\n");
		pr_warn("gpumem: a TTM table of gpumem's was wrapped by something else: left in place, passing calls through\n");
		return false;
	}
	/* other devices' wrappers may still be walking the lists */
	list_for_each_entry_safe(h, htmp, &gpumem_man_hooks, node) {
		if (h->hk == hk) {
			list_del_rcu(&h->node);
			kfree_rcu(h, rcu);
		}
	}
	list_del_rcu(&hk->node);
	return true;
}

/* Free @hk, unhooked by gpumem_ttm_unhook(), without gpumem_hooks_lock. */
static void gpumem_ttm_hook_free(struct gpumem_ttm_hook *hk)
{
	/*
	 * No list walker can still reach @hk, and every CPU passed a full
	 * barrier: the reads a wrapper made before leaving are done.
	 */
	synchronize_rcu();
	free_percpu(hk->inflight);
	kfree(hk);
}

/*
 * @gdev is going: drop its charges (also when it was never hooked) and
 * leave its TTM device's hook; the last user unhooks. When the device
 * charged for the TTM device goes while others still lead to it, the
 * next one (in the order they were hooked) is charged from then on: the
 * hook stays (no placement goes unseen), and the placements charged to
 * the device that went are given back as for any device that goes (their
 * buffers are then as if placed before gpumem was loaded). A placement
 * that read the old minor just before the switch may still be charged to
 * it; its free gives it back.
 */
static void gpumem_hooks_detach(struct gpumem_device *gdev)
{
	struct gpumem_ttm_hook *hk;
	struct gpumem_device *next;
	bool charged, unhooked = false;

	/*
	 * Before any table is restored, or another device is charged: from
	 * then on a buffer may be freed without gpumem, or its free may not
	 * find the device, so no record may point at one.
	 */
	while (gpumem_charge_device_inert(gdev->minor))
		cond_resched();	/* -ENOMEM: a few bytes, retried */
	mutex_lock(&gpumem_hooks_lock);
	hk = gdev->ttm_hook;
	if (!hk) {
		mutex_unlock(&gpumem_hooks_lock);
		gpumem_charge_forget_device(gdev->minor);
		return;
	}
	charged = list_first_entry(&hk->users, struct gpumem_device,
				   hook_node) == gdev;
	list_del_init(&gdev->hook_node);
	gdev->ttm_hook = NULL;
	if (list_empty(&hk->users)) {
		unhooked = gpumem_ttm_unhook(hk);
	} else if (charged) {
		next = list_first_entry(&hk->users, struct gpumem_device,
					hook_node);
		WRITE_ONCE(hk->minor, next->minor);
		WRITE_ONCE(next->ttm_alias, false);
	}
	mutex_unlock(&gpumem_hooks_lock);
	if (unhooked)
		gpumem_ttm_hook_free(hk);
	gpumem_charge_forget_device(gdev->minor);
}

/*
 * gpumem_hooks_listener - hooks a device when its TTM device is known,
 * unhooks it when it goes
 */
const struct gpumem_device_listener gpumem_hooks_listener = {
	.what = "cannot hook it: no charges or limits on it",
	.ttm_found = gpumem_hooks_attach,
	.remove = gpumem_hooks_detach,
};

/**
 * gpumem_hooks_exit() - wait for the guards' pending task_works
 *
 * Context: module exit, after every device was detached.
 */
void gpumem_hooks_exit(void)
{
	gpumem_guard_exit();
	synchronize_rcu_tasks();	/* their callbacks' last instructions */
}
