// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem hooks: no code patching. A TTM resource manager calls its
 * allocator through man->func; gpumem points man->func at a copy of the
 * driver's table whose alloc/free wrap the originals (TTM never compares the
 * pointer). Likewise bdev->funcs gets a copy whose eviction_valuable refuses
 * to evict anything for a task whose placement was just denied: otherwise
 * TTM would evict other cgroups' buffers (or the offender's own, uncharging
 * it) until the denied placement fits.
 *
 * Lifetime: a wrapper may be running, or about to run, when its table is
 * restored. Every wrapper finds its hook under rcu_read_lock() and takes a
 * reference on its device's in-flight count (struct gpumem_hook_dev, a
 * percpu_ref) before it leaves that section, and holds it for its whole
 * run; once the count is killed, a wrapper that comes late gets no
 * reference and passes the call straight to the driver. Detaching a device
 * restores its pointers, kills its count, waits for an RCU-tasks grace
 * period (every task that loaded an old pointer has passed its tryget:
 * nothing between the load and the tryget can sleep), waits for the
 * references taken before the kill (other devices' traffic, and calls that
 * start later, never hold it up), and then frees the copies. Module exit
 * waits for another RCU-tasks grace period (the wrappers' last
 * instructions) before the text goes away.
 *
 * Locking: gpumem_hooks (RCU list) is changed under gpumem_hooks_lock; the
 * wrappers read it under rcu_read_lock(). The eviction guard has its own
 * lock (evict_guard.c).
 */
#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/completion.h>
#include <linux/percpu-refcount.h>
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

/**
 * struct gpumem_hook_dev - the wrappers of one device, as a whole
 * @inflight: every wrapper of the device holds a reference while it runs
 * @drained: completed when the killed count has no reference left
 * @gdev: the device
 * @threshold_above: bit per region: its use is above threshold_pct (atomic
 *	bit operations)
 * @tmans: per region, the managers of known capacity (@ntmans of them),
 *	whose use the threshold check adds up
 * @ntmans: per region, the number of @tmans (published with release after
 *	the manager and its capacity, see gpumem_hook_manager())
 * @tcap: per region, the capacity of its @tmans
 * @frag_lock: protects @frag_rl and @frag_last
 * @frag_rl: rate limit of the device's fragmented-denial events
 * @frag_last: the buffer of the last one, compared only (TTM asks again
 *	for the same buffer after evicting: one event per request)
 * @frag_last_at: jiffies of the last one (a buffer freed and another made
 *	at its address a second later is another request)
 */
struct gpumem_hook_dev {
	struct percpu_ref inflight;
	struct completion drained;
	struct gpumem_device *gdev;
	unsigned long threshold_above;
	struct ttm_resource_manager *tmans[GPUMEM_REGION_COUNT][TTM_NUM_MEM_TYPES];
	unsigned int ntmans[GPUMEM_REGION_COUNT];
	u64 tcap[GPUMEM_REGION_COUNT];
	spinlock_t frag_lock;		/* protects frag_rl, frag_last(_at) */
	struct gpumem_ratelimit frag_rl;
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
 * @gdev: the device
 * @hdev: the device's wrappers as a whole
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
	struct gpumem_device *gdev;
	struct gpumem_hook_dev *hdev;
	u8 region;
	bool counted;
	u64 capacity;
};

/**
 * struct gpumem_bdev_hook - one wrapped TTM device (eviction guard)
 * @node: entry in gpumem_bdev_hooks
 * @rcu: for freeing after the readers of the list
 * @bdev: the device
 * @orig: its original function table
 * @funcs: the copy bdev->funcs points to while hooked
 * @gdev: the gpumem device
 * @hdev: the device's wrappers as a whole (owned by this hook)
 */
struct gpumem_bdev_hook {
	struct list_head node;
	struct rcu_head rcu;
	struct ttm_device *bdev;
	const struct ttm_device_funcs *orig;
	struct ttm_device_funcs funcs;
	struct gpumem_device *gdev;
	struct gpumem_hook_dev *hdev;
};

static LIST_HEAD(gpumem_man_hooks);	/* RCU; changed under gpumem_hooks_lock */
static LIST_HEAD(gpumem_bdev_hooks);	/* RCU; changed under gpumem_hooks_lock */
static DEFINE_MUTEX(gpumem_hooks_lock);
static int gpumem_hook_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *bo,
			     const struct ttm_place *place,
			     struct ttm_resource **res);

/*
 * @man's hook, under rcu_read_lock(). O(1) while @man is hooked: man->func
 * is then the hook's own copy (freed only after a grace period that follows
 * the restore of man->func); the list is searched only for a manager whose
 * table was restored meanwhile (its wrapper was already running).
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
 * @man's hook with a reference on its device's count, or NULL when the
 * device is being detached: then *@orig is the driver's table to pass the
 * call to (NULL if @man has no hook at all, which cannot happen).
 */
static struct gpumem_man_hook *
gpumem_man_hook_get(struct ttm_resource_manager *man,
		    const struct ttm_resource_manager_func **orig)
{
	struct gpumem_man_hook *h;

	rcu_read_lock();
	h = gpumem_man_hook_find(man);
	*orig = h ? h->orig : NULL;
	if (h && !percpu_ref_tryget_live(&h->hdev->inflight))
		h = NULL;
	rcu_read_unlock();
	return h;
}

/* Likewise for @bdev's hook and the driver's ttm_device_funcs. */
static struct gpumem_bdev_hook *
gpumem_bdev_hook_get(struct ttm_device *bdev,
		     const struct ttm_device_funcs **orig)
{
	struct gpumem_bdev_hook *h, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(h, &gpumem_bdev_hooks, node)
		if (h->bdev == bdev)
			found = h;
	*orig = found ? found->orig : NULL;
	if (found && !percpu_ref_tryget_live(&found->hdev->inflight))
		found = NULL;
	rcu_read_unlock();
	return found;
}

static void gpumem_hook_dev_drained(struct percpu_ref *ref)
{
	struct gpumem_hook_dev *hdev =
		container_of(ref, struct gpumem_hook_dev, inflight);

	complete(&hdev->drained);
}

/* Report a device region crossing its threshold (@usage after @requested). */
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

	if (!(current->flags & PF_KTHREAD)) {
		ev.pid = task_tgid_nr(current);
		get_task_comm(ev.comm, current);
	}
	gpumem_event_emit(&ev);
}

/*
 * Device-threshold events: the region's use (all its managers) against its
 * capacity, edge-triggered on the way up, re-armed when it falls back.
 * O(managers of the region), usually one, and lock-free: each manager's use
 * is read without TTM's lru_lock (a report needs no exact moment, and the
 * allocation path should not contend for that lock with TTM itself).
 */
static void gpumem_threshold_check(struct gpumem_man_hook *h, u64 bytes,
				   bool alloc)
{
	unsigned int pct = READ_ONCE(threshold_pct);
	struct gpumem_hook_dev *hdev = h->hdev;
	u64 usage = 0, cap, limit;
	unsigned int i, n;

	if (!pct)
		return;
	/* pairs with gpumem_hook_manager(): @tcap covers these managers */
	n = smp_load_acquire(&hdev->ntmans[h->region]);
	if (!n)
		return;
	for (i = 0; i < n; i++)
		usage += READ_ONCE(hdev->tmans[h->region][i]->usage);
	cap = READ_ONCE(hdev->tcap[h->region]);
	limit = div_u64(cap * pct, 100);
	if (usage <= limit) {
		clear_bit(h->region, &hdev->threshold_above);
		return;
	}
	if (alloc && !test_and_set_bit(h->region, &hdev->threshold_above))
		gpumem_threshold_event(h->gdev->minor, h->region, usage, bytes,
				       limit);
}

/*
 * A VRAM manager found no block for @bytes although it has that much free:
 * fragmentation. Reported (rate-limited per device, like quota events per
 * cgroup) in the allocating task's name; a placement restricted to part of
 * the manager (fpfn/lpfn: visible VRAM) is not fragmentation and is not.
 */
static void gpumem_fragmented_check(struct gpumem_man_hook *h,
				    const struct ttm_place *place,
				    const struct ttm_buffer_object *bo)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL,
		.minor = h->gdev->minor,
		.region = h->region,
		.requested = bo->base.size,
		.limit = h->capacity,
	};
	bool allowed;

	if (h->region != GPUMEM_REGION_VRAM || !h->capacity ||
	    place->fpfn || place->lpfn)
		return;
	ev.usage = ttm_resource_manager_usage(h->man);
	if (ev.usage > h->capacity || h->capacity - ev.usage < ev.requested)
		return;		/* full: not fragmentation */
	spin_lock(&h->hdev->frag_lock);
	allowed = (h->hdev->frag_last != bo ||
		   time_after(jiffies, h->hdev->frag_last_at + HZ)) &&
		  gpumem_ratelimit_allow(&h->hdev->frag_rl, &ev.suppressed);
	h->hdev->frag_last = bo;
	h->hdev->frag_last_at = jiffies;
	spin_unlock(&h->hdev->frag_lock);
	if (!allowed)
		return;
	if (!(current->flags & PF_KTHREAD)) {
		ev.pid = task_tgid_nr(current);
		get_task_comm(ev.comm, current);
		rcu_read_lock();	/* the task's css_set */
		ev.cgid = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
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
	int ret;

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
	pl.obj = &bo->base;
	pl.prev = bo->resource;	/* stable: TTM holds the reservation */
	pl.minor = h->gdev->minor;
	pl.region = h->region;
	pl.bytes = bo->base.size;
	pl.counted = h->counted;
	/* qxl creates every buffer through a system bounce: no owner there */
	pl.bounce = !pl.counted && (place->flags & TTM_PL_FLAG_TEMPORARY);
	/* A retry of a request just denied is decided again, reported once. */
	pl.quiet = pl.counted &&
		   gpumem_guard_denied_before(h->gdev->minor, place->mem_type);
	ret = gpumem_charge_new(&pl, &charge);
	if (ret == -ENOSPC)
		gpumem_guard_enter(h->gdev->minor, place->mem_type);
	if (ret == -ENOMEM) {
		/* gpumem's own failure never fails the user's allocation */
		pr_warn_ratelimited("gpumem: out of memory: a placement of %zu bytes on device %d goes uncharged\n",
				    bo->base.size, h->gdev->minor);
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
	percpu_ref_put(&h->hdev->inflight);
	return ret;
}

static void gpumem_hook_free(struct ttm_resource_manager *man,
			     struct ttm_resource *res)
{
	const struct ttm_resource_manager_func *orig;
	struct gpumem_man_hook *h;

	h = gpumem_man_hook_get(man, &orig);
	gpumem_charge_release(res);
	if (!h) {	/* being detached */
		if (!WARN_ON_ONCE(!orig))
			orig->free(man, res);
		return;
	}
	h->orig->free(man, res);
	/* a free only re-arms the event: nothing to do below the threshold */
	if (h->counted && test_bit(h->region, &h->hdev->threshold_above))
		gpumem_threshold_check(h, 0, false);
	percpu_ref_put(&h->hdev->inflight);
}

static bool gpumem_hook_eviction_valuable(struct ttm_buffer_object *bo,
					  const struct ttm_place *place)
{
	const struct ttm_device_funcs *orig;
	struct gpumem_bdev_hook *found;
	bool ret;

	found = gpumem_bdev_hook_get(bo->bdev, &orig);
	if (!found) {	/* being detached */
		if (orig && orig->eviction_valuable)
			return orig->eviction_valuable(bo, place);
		return ttm_bo_eviction_valuable(bo, place);
	}
	/* found stays valid: detaching waits for the references on its count */
	if (!gpumem_guard_allows_eviction(found->gdev->minor, place->mem_type))
		ret = false;
	else if (found->orig->eviction_valuable)
		ret = found->orig->eviction_valuable(bo, place);
	else
		ret = ttm_bo_eviction_valuable(bo, place);
	percpu_ref_put(&found->hdev->inflight);
	return ret;
}

static int gpumem_hook_manager(struct gpumem_device *gdev,
			       struct gpumem_hook_dev *hdev, u32 mem_type)
{
	struct ttm_resource_manager *man = ttm_manager_type(gdev->bdev, mem_type);
	struct gpumem_man_hook *h;
	enum gpumem_region region;
	u64 cap = 0;

	if (!man || !man->use_type || !man->func)
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
	h->gdev = gdev;
	h->hdev = hdev;
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
		hdev->tmans[region][hdev->ntmans[region]] = man;
		WRITE_ONCE(hdev->tcap[region], hdev->tcap[region] + h->capacity);
		/* pairs with gpumem_threshold_check()'s acquire */
		smp_store_release(&hdev->ntmans[region],
				  hdev->ntmans[region] + 1);
	}
	list_add_tail_rcu(&h->node, &gpumem_man_hooks);
	/* release: the wrapper finds h on the list before it can be called */
	smp_store_release(&man->func, &h->funcs);
	return 0;
}

static void gpumem_hooks_detach(struct gpumem_device *gdev);

/*
 * Wrap @gdev's VRAM/GTT managers (and TTM's system manager) and its eviction
 * callback, once its TTM device is known. 0 or -ENOMEM (then unhooked).
 */
static int gpumem_hooks_attach(struct gpumem_device *gdev)
{
	struct gpumem_bdev_hook *bh;
	u32 t;
	int ret = 0;

	if (!gdev->bdev)
		return 0;
	bh = kzalloc(sizeof(*bh), GFP_KERNEL);
	if (!bh)
		return -ENOMEM;
	bh->hdev = kzalloc(sizeof(*bh->hdev), GFP_KERNEL);
	if (!bh->hdev || percpu_ref_init(&bh->hdev->inflight,
					 gpumem_hook_dev_drained, 0, GFP_KERNEL)) {
		kfree(bh->hdev);
		kfree(bh);
		return -ENOMEM;
	}
	init_completion(&bh->hdev->drained);
	spin_lock_init(&bh->hdev->frag_lock);
	gpumem_ratelimit_init(&bh->hdev->frag_rl);
	bh->hdev->gdev = gdev;
	mutex_lock(&gpumem_hooks_lock);
	bh->bdev = gdev->bdev;
	bh->orig = gdev->bdev->funcs;
	bh->funcs = *gdev->bdev->funcs;
	bh->funcs.eviction_valuable = gpumem_hook_eviction_valuable;
	bh->gdev = gdev;
	list_add_tail_rcu(&bh->node, &gpumem_bdev_hooks);
	/* the wrapper finds bh on the list before it can be called */
	gpumem_set_bdev_funcs(gdev->bdev, &bh->funcs);
	for (t = 0; t < TTM_NUM_MEM_TYPES && !ret; t++)
		ret = gpumem_hook_manager(gdev, bh->hdev, t);
	mutex_unlock(&gpumem_hooks_lock);
	if (ret)
		gpumem_hooks_detach(gdev);
	return ret;
}

/*
 * Restore @gdev's tables and drop its charges (also when it was never
 * hooked). Waits until no wrapper of this device runs (finite: other
 * devices' traffic is not waited for, nor are calls that start meanwhile).
 * Allocation keeps working through the restored tables.
 */
static void gpumem_hooks_detach(struct gpumem_device *gdev)
{
	struct gpumem_man_hook *h, *htmp;
	struct gpumem_bdev_hook *bh, *btmp;
	struct gpumem_hook_dev *hdev = NULL;

	/*
	 * Before any table is restored: from then on a buffer of the device
	 * may be freed without gpumem, so no record may point at one.
	 */
	while (gpumem_charge_device_inert(gdev->minor))
		cond_resched();	/* -ENOMEM: a few bytes, retried */
	mutex_lock(&gpumem_hooks_lock);
	list_for_each_entry(h, &gpumem_man_hooks, node)
		if (h->gdev == gdev)
			WRITE_ONCE(h->man->func, h->orig);
	list_for_each_entry(bh, &gpumem_bdev_hooks, node) {
		if (bh->gdev == gdev) {
			gpumem_set_bdev_funcs(bh->bdev, bh->orig);
			hdev = bh->hdev;
		}
	}
	if (!hdev) {
		mutex_unlock(&gpumem_hooks_lock);
		gpumem_charge_forget_device(gdev->minor);
		return;
	}
	/*
	 * No wrapper gets a reference from now on. Every task that loaded an
	 * old pointer has passed its tryget after an RCU-tasks grace period
	 * (nothing before it sleeps); then the references taken before the
	 * kill drain. Both waits are finite: new calls take the restored
	 * tables, and late wrappers pass their calls to the driver uncounted.
	 */
	percpu_ref_kill(&hdev->inflight);
	synchronize_rcu_tasks();
	wait_for_completion(&hdev->drained);
	/* other devices' wrappers may still be walking the lists */
	list_for_each_entry_safe(h, htmp, &gpumem_man_hooks, node) {
		if (h->gdev == gdev) {
			list_del_rcu(&h->node);
			kfree_rcu(h, rcu);
		}
	}
	list_for_each_entry_safe(bh, btmp, &gpumem_bdev_hooks, node) {
		if (bh->gdev == gdev) {
			list_del_rcu(&bh->node);
			kfree_rcu(bh, rcu);
		}
	}
	mutex_unlock(&gpumem_hooks_lock);
	synchronize_rcu();	/* no list walker can still reach hdev */
	percpu_ref_exit(&hdev->inflight);
	kfree(hdev);

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
