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
 * restored. Every wrapper counts itself in gpumem_hooks_inflight for its
 * whole run. Detaching restores the pointers, waits for an RCU-tasks grace
 * period (every task that loaded an old pointer has entered the wrapper and
 * counted itself), waits for the count to drain, and waits for another
 * grace period (the wrappers' last instructions after the decrement) before
 * the copies are freed or the module text goes away.
 *
 * Locking: gpumem_hooks (RCU list) is changed under gpumem_hooks_lock; the
 * wrappers read it under rcu_read_lock(). The guard slots are protected by
 * gpumem_guard_lock (a spinlock: eviction_valuable runs under TTM's lru_lock).
 */
#include <linux/atomic.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/wait_bit.h>
#include "compat.h"
#include "classify.h"
#include "discover.h"
#include "hooks.h"
#include "quota.h"

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

/* Tasks that may be inside a denied request at once. */
#define GPUMEM_GUARD_SLOTS	64

/**
 * struct gpumem_man_hook - one wrapped resource manager
 * @node: entry in gpumem_man_hooks
 * @rcu: for freeing after the readers of the list
 * @man: the manager
 * @orig: its original function table
 * @funcs: the copy man->func points to while hooked
 * @gdev: the device
 * @region: enum gpumem_region of the manager
 * @capacity: bytes, 0 if unknown (not counted for threshold events)
 */
struct gpumem_man_hook {
	struct list_head node;
	struct rcu_head rcu;
	struct ttm_resource_manager *man;
	const struct ttm_resource_manager_func *orig;
	struct ttm_resource_manager_func funcs;
	struct gpumem_device *gdev;
	u8 region;
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
 */
struct gpumem_bdev_hook {
	struct list_head node;
	struct rcu_head rcu;
	struct ttm_device *bdev;
	const struct ttm_device_funcs *orig;
	struct ttm_device_funcs funcs;
	struct gpumem_device *gdev;
};

static LIST_HEAD(gpumem_man_hooks);	/* RCU; changed under gpumem_hooks_lock */
static LIST_HEAD(gpumem_bdev_hooks);	/* RCU; changed under gpumem_hooks_lock */
static DEFINE_MUTEX(gpumem_hooks_lock);
static atomic_t gpumem_hooks_inflight = ATOMIC_INIT(0);

/*
 * Tasks inside a request that was denied, until they return to user space:
 * a task_work clears the slot then. While its slot is live, the task's
 * retries of the request are decided again but not counted or reported, and
 * TTM may not evict anything of that memory type on its behalf. Under
 * gpumem_guard_lock; gpumem_guard_pending counts queued task_works (their
 * callback is module text).
 */
static struct gpumem_guard_slot {
	struct callback_head work;
	const struct task_struct *task;
	u32 mem_type;
} gpumem_guard[GPUMEM_GUARD_SLOTS];
static DEFINE_SPINLOCK(gpumem_guard_lock);
static atomic_t gpumem_guard_pending = ATOMIC_INIT(0);

static void gpumem_hook_enter(void)
{
	atomic_inc(&gpumem_hooks_inflight);
	/* counted before the wrapper reads any table (pairs with quiesce) */
	smp_mb__after_atomic();
}

static void gpumem_hook_leave(void)
{
	if (atomic_dec_and_test(&gpumem_hooks_inflight))
		wake_up_var(&gpumem_hooks_inflight);
}

static struct gpumem_guard_slot *gpumem_guard_find(void)
{
	unsigned int i;

	lockdep_assert_held(&gpumem_guard_lock);
	for (i = 0; i < GPUMEM_GUARD_SLOTS; i++)
		if (gpumem_guard[i].task == current)
			return &gpumem_guard[i];
	return NULL;
}

/* task_work: the task is back in user space, its request is over. */
static void gpumem_guard_done(struct callback_head *work)
{
	struct gpumem_guard_slot *slot =
		container_of(work, struct gpumem_guard_slot, work);

	spin_lock(&gpumem_guard_lock);
	slot->task = NULL;
	spin_unlock(&gpumem_guard_lock);
	if (atomic_dec_and_test(&gpumem_guard_pending))
		wake_up_var(&gpumem_guard_pending);
}

/*
 * Is the current task already inside a denied request? Its retries of the
 * request are not counted or reported again.
 */
static bool gpumem_guard_active(void)
{
	bool active;

	spin_lock(&gpumem_guard_lock);
	active = gpumem_guard_find();
	spin_unlock(&gpumem_guard_lock);
	return active;
}

/* The current task's request was denied a placement of @mem_type. */
static void gpumem_guard_enter(u32 mem_type)
{
	struct gpumem_guard_slot *slot = NULL;
	unsigned int i;

	spin_lock(&gpumem_guard_lock);
	if (gpumem_guard_find()) {
		spin_unlock(&gpumem_guard_lock);
		return;
	}
	for (i = 0; i < GPUMEM_GUARD_SLOTS && !slot; i++)
		if (!gpumem_guard[i].task)
			slot = &gpumem_guard[i];
	if (slot) {
		slot->task = current;
		slot->mem_type = mem_type;
		atomic_inc(&gpumem_guard_pending);
	}
	spin_unlock(&gpumem_guard_lock);
	if (!slot)
		return;		/* more than 64 at once: unguarded, reported */
	init_task_work(&slot->work, gpumem_guard_done);
	if (task_work_add(current, &slot->work, TWA_RESUME))
		gpumem_guard_done(&slot->work);	/* exiting: no return */
}

/* May TTM evict for the current task to make room in @mem_type? */
static bool gpumem_guard_allows_eviction(u32 mem_type)
{
	struct gpumem_guard_slot *slot;
	bool allow;

	spin_lock(&gpumem_guard_lock);
	slot = gpumem_guard_find();
	allow = !slot || slot->mem_type != mem_type;
	spin_unlock(&gpumem_guard_lock);
	return allow;
}

static struct gpumem_man_hook *gpumem_man_hook_find(struct ttm_resource_manager *man)
{
	struct gpumem_man_hook *h;

	list_for_each_entry_rcu(h, &gpumem_man_hooks, node)
		if (h->man == man)
			return h;
	return NULL;
}

/*
 * Device-threshold events: the region's use (all its managers) against its
 * capacity, edge-triggered on the way up, re-armed when it falls back.
 */
static void gpumem_threshold_check(struct gpumem_man_hook *h, u64 bytes,
				   bool alloc)
{
	unsigned int pct = READ_ONCE(threshold_pct);
	struct gpumem_device *gdev = h->gdev;
	struct gpumem_man_hook *pos;
	u64 usage = 0, cap = 0, limit;

	if (!pct)
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(pos, &gpumem_man_hooks, node) {
		if (pos->gdev != gdev || pos->region != h->region ||
		    !pos->capacity)
			continue;
		usage += ttm_resource_manager_usage(pos->man);
		cap += pos->capacity;
	}
	rcu_read_unlock();
	if (!cap)
		return;
	limit = div_u64(cap * pct, 100);
	if (usage <= limit) {
		clear_bit(h->region, &gdev->threshold_above);
		return;
	}
	if (alloc && !test_and_set_bit(h->region, &gdev->threshold_above))
		gpumem_quota_device_event(gdev->minor, h->region, usage, bytes,
					  limit);
}

static int gpumem_hook_alloc(struct ttm_resource_manager *man,
			     struct ttm_buffer_object *bo,
			     const struct ttm_place *place,
			     struct ttm_resource **res)
{
	struct gpumem_charge *charge = NULL;
	struct gpumem_man_hook *h;
	int ret;

	gpumem_hook_enter();
	rcu_read_lock();
	h = gpumem_man_hook_find(man);
	rcu_read_unlock();
	/* h stays valid: detaching waits for gpumem_hooks_inflight */
	if (WARN_ON_ONCE(!h)) {
		ret = -ENOSPC;
		goto out;
	}
	/* A retry of a request just denied is decided again, reported once. */
	ret = gpumem_quota_charge(h->gdev->minor, h->region, bo->base.size,
				  gpumem_guard_active(), &charge);
	if (ret == -ENOSPC)
		gpumem_guard_enter(place->mem_type);
	if (ret)
		goto out;
	ret = h->orig->alloc(man, bo, place, res);
	if (ret) {
		gpumem_quota_cancel(charge);
		goto out;
	}
	gpumem_quota_commit(charge, *res, &bo->base);
	gpumem_threshold_check(h, bo->base.size, true);
out:
	gpumem_hook_leave();
	return ret;
}

static void gpumem_hook_free(struct ttm_resource_manager *man,
			     struct ttm_resource *res)
{
	struct gpumem_man_hook *h;

	gpumem_hook_enter();
	rcu_read_lock();
	h = gpumem_man_hook_find(man);
	rcu_read_unlock();
	gpumem_quota_release(res);
	if (!WARN_ON_ONCE(!h)) {
		h->orig->free(man, res);
		gpumem_threshold_check(h, 0, false);
	}
	gpumem_hook_leave();
}

static bool gpumem_hook_eviction_valuable(struct ttm_buffer_object *bo,
					  const struct ttm_place *place)
{
	struct gpumem_bdev_hook *h, *found = NULL;
	bool ret;

	gpumem_hook_enter();
	if (!gpumem_guard_allows_eviction(place->mem_type)) {
		ret = false;
		goto out;
	}
	rcu_read_lock();
	list_for_each_entry_rcu(h, &gpumem_bdev_hooks, node)
		if (h->bdev == bo->bdev)
			found = h;
	rcu_read_unlock();
	if (found && found->orig->eviction_valuable)
		ret = found->orig->eviction_valuable(bo, place);
	else
		ret = ttm_bo_eviction_valuable(bo, place);
out:
	gpumem_hook_leave();
	return ret;
}

/* Everything that may be running in a wrapper has left it. */
static void gpumem_hooks_quiesce(void)
{
	synchronize_rcu_tasks();
	wait_var_event(&gpumem_hooks_inflight,
		       !atomic_read(&gpumem_hooks_inflight));
	synchronize_rcu_tasks();
	synchronize_rcu();
}

static int gpumem_hook_manager(struct gpumem_device *gdev, u32 mem_type)
{
	struct ttm_resource_manager *man = ttm_manager_type(gdev->bdev, mem_type);
	struct gpumem_man_hook *h;
	enum gpumem_region region;
	u64 cap = 0;

	if (!man || !man->use_type || !man->func)
		return 0;
	region = gpumem_classify(gdev->drv, mem_type, TTM_NUM_MEM_TYPES,
				 man->use_tt);
	if (region != GPUMEM_REGION_VRAM && region != GPUMEM_REGION_GTT)
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
	h->region = region;
	if (gpumem_manager_capacity(gdev->drv, mem_type, man->size, PAGE_SHIFT,
				    &cap))
		h->capacity = cap;
	list_add_tail_rcu(&h->node, &gpumem_man_hooks);
	/* release: the wrapper finds h on the list before it can be called */
	smp_store_release(&man->func, &h->funcs);
	return 0;
}

/**
 * gpumem_hooks_attach() - wrap a TTM device's VRAM/GTT managers
 * @gdev: the device (with a TTM device and a classified driver)
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM (the device is then left unhooked).
 */
int gpumem_hooks_attach(struct gpumem_device *gdev)
{
	struct gpumem_bdev_hook *bh;
	u32 t;
	int ret = 0;

	if (!gdev->bdev)
		return 0;
	bh = kzalloc(sizeof(*bh), GFP_KERNEL);
	if (!bh)
		return -ENOMEM;
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
		ret = gpumem_hook_manager(gdev, t);
	mutex_unlock(&gpumem_hooks_lock);
	if (ret)
		gpumem_hooks_detach(gdev);
	return ret;
}

/**
 * gpumem_hooks_detach() - restore a device's tables and drop its charges
 * @gdev: the device
 *
 * Waits until no wrapper of any device runs. Allocation keeps working
 * through the restored tables.
 *
 * Context: may sleep.
 */
void gpumem_hooks_detach(struct gpumem_device *gdev)
{
	struct gpumem_man_hook *h, *htmp;
	struct gpumem_bdev_hook *bh, *btmp;
	bool any = false;

	mutex_lock(&gpumem_hooks_lock);
	list_for_each_entry(h, &gpumem_man_hooks, node) {
		if (h->gdev == gdev) {
			WRITE_ONCE(h->man->func, h->orig);
			any = true;
		}
	}
	list_for_each_entry(bh, &gpumem_bdev_hooks, node) {
		if (bh->gdev == gdev) {
			gpumem_set_bdev_funcs(bh->bdev, bh->orig);
			any = true;
		}
	}
	if (!any) {
		mutex_unlock(&gpumem_hooks_lock);
		return;
	}
	gpumem_hooks_quiesce();
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

	gpumem_quota_forget_device(gdev->minor);
}

/**
 * gpumem_hooks_exit() - wait for the guards' pending task_works
 *
 * Context: module exit, after every device was detached.
 */
void gpumem_hooks_exit(void)
{
	wait_var_event(&gpumem_guard_pending,
		       !atomic_read(&gpumem_guard_pending));
	synchronize_rcu_tasks();	/* their callbacks' last instructions */
}
