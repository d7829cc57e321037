// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem eviction guard.
 *
 * When gpumem denies a task's placement, TTM tries to make room by evicting
 * other buffers of that memory type and asks again: left alone it would
 * push other cgroups' buffers out of VRAM (or the offender's own, uncharging
 * it) until the denied placement fits. So a denial opens a guard for
 * (task, device, memory type) that lasts until the task returns to user
 * space (a task_work closes it): while it is open, TTM's eviction for that
 * task on that device and memory type is refused, and the task's retries of
 * the same placement are decided again but not counted or reported again.
 * Denials on other devices or memory types in the same system call have
 * guards of their own and are each counted and reported.
 *
 * A driver that fails its own ioctl on a denied placement may forget to
 * unreserve the buffer: qxl's QXL_UPDATE_AREA jumps past qxl_bo_unreserve()
 * when ttm_bo_validate() fails (qxl_ioctl.c, on 6.1, 6.12 and 7.3). The
 * buffer would stay locked for good (its free then blocks TTM's delayed
 * delete worker forever). So the guard keeps a reference on the buffer of
 * the denial that opened it (one that has a GEM handle: not one being
 * created), and its task_work, which runs before the task
 * is back in user space (where no kernel lock may be held), releases the
 * buffer's reservation if the task still holds it without an acquire
 * context (one taken with a ticket cannot be released safely: only
 * reported). Counted: hook statistic resv_released.
 *
 * There is no fixed number of guards: each is a small allocation made on
 * the denial path (which may sleep). If that allocation fails, the denial
 * stands but is unguarded (and so said in the kernel log, rate-limited).
 *
 * Locking: gpumem_guard_hash and every guard on it are protected by
 * gpumem_guard_lock, a spinlock, because eviction_valuable runs under TTM's
 * lru_lock. A guard is only ever used by its own task (in its system call
 * and its task_work), which stays alive while the guard exists.
 * gpumem_guard_pending counts queued task_works, whose callback is module
 * text: gpumem_guard_exit() waits for it.
 */
#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/wait_bit.h>
#include <drm/drm_gem.h>
#include "compat.h"
#include "evict_guard.h"
#include "hook_stats.h"

/**
 * struct gpumem_guard - one open guard
 * @hnode: entry in gpumem_guard_hash, keyed by @task
 * @work: the task_work that closes it
 * @task: the task inside the denied request
 * @minor: the device
 * @mem_type: the TTM memory type of the denied placement
 * @obj: the buffer whose placement was denied first (referenced), or NULL
 */
struct gpumem_guard {
	struct hlist_node hnode;
	struct callback_head work;
	const struct task_struct *task;
	int minor;
	u32 mem_type;
	struct drm_gem_object *obj;
};

static DEFINE_HASHTABLE(gpumem_guard_hash, 6);	/* under gpumem_guard_lock */
static DEFINE_SPINLOCK(gpumem_guard_lock);
static atomic_t gpumem_guard_pending = ATOMIC_INIT(0);

static struct gpumem_guard *gpumem_guard_find(int minor, u32 mem_type)
{
	struct gpumem_guard *g;

	lockdep_assert_held(&gpumem_guard_lock);
	hash_for_each_possible(gpumem_guard_hash, g, hnode, (unsigned long)current)
		if (g->task == current && g->minor == minor &&
		    g->mem_type == mem_type)
			return g;
	return NULL;
}

/* Close @g (its task is on its way back to user space, or exiting). */
static void gpumem_guard_close(struct gpumem_guard *g)
{
	spin_lock(&gpumem_guard_lock);
	hash_del(&g->hnode);
	spin_unlock(&gpumem_guard_lock);
	kfree(g);
	if (atomic_dec_and_test(&gpumem_guard_pending))
		wake_up_var(&gpumem_guard_pending);
}

/*
 * task_work: the task is about to return to user space: a reservation of
 * the denied buffer it still holds was leaked by the driver (see the top of
 * this file). Then close the guard.
 */
static void gpumem_guard_done(struct callback_head *work)
{
	struct gpumem_guard *g = container_of(work, struct gpumem_guard, work);
	struct drm_gem_object *obj = g->obj;

	if (obj && gpumem_resv_held_by_current(obj->resv)) {
		pr_warn_ratelimited("gpumem: %s (pid %d) was returning to user space with buffer %zu bytes on device %d still reserved after a denied placement (a driver bug): released\n",
				    current->comm, task_pid_nr(current), obj->size,
				    g->minor);
		gpumem_hook_stats_inc(GPUMEM_HOOK_RESV_RELEASED);
		dma_resv_unlock(obj->resv);
	}
	if (obj)
		drm_gem_object_put(obj);
	gpumem_guard_close(g);
}

/**
 * gpumem_guard_denied_before() - is this a retry of a placement just denied?
 * @minor: the device
 * @mem_type: the TTM memory type of the placement
 *
 * Return: true when the current task's request was already denied a
 *	placement of @mem_type on @minor (count and report it only once).
 */
bool gpumem_guard_denied_before(int minor, u32 mem_type)
{
	bool found;

	/*
	 * The allocation path's check, lock-free when no guard is open: a
	 * task's own guard is counted before it is added and removed before
	 * it is uncounted, so a task with a guard never reads 0 here.
	 */
	if (!atomic_read(&gpumem_guard_pending))
		return false;
	spin_lock(&gpumem_guard_lock);
	found = gpumem_guard_find(minor, mem_type);
	spin_unlock(&gpumem_guard_lock);
	return found;
}

/**
 * gpumem_guard_enter() - the current task was denied a placement
 * @minor: the device
 * @mem_type: the TTM memory type of the placement
 * @obj: the buffer (reserved by the current task now)
 *
 * Opens the guard for (current task, @minor, @mem_type) until the task
 * returns to user space; nothing when one is open already. Then, a
 * reservation of @obj the task still holds is released (see the top of
 * this file).
 *
 * Context: process context, may sleep.
 */
void gpumem_guard_enter(int minor, u32 mem_type, struct drm_gem_object *obj)
{
	struct gpumem_guard *g;

	if (gpumem_guard_denied_before(minor, mem_type))
		return;
	g = kzalloc(sizeof(*g), GFP_KERNEL | __GFP_NOWARN);
	if (!g) {
		pr_warn_ratelimited("gpumem: no memory for an eviction guard: pid %d may evict on device %d\n",
				    task_pid_nr(current), minor);
		return;
	}
	g->task = current;
	g->minor = minor;
	g->mem_type = mem_type;
	init_task_work(&g->work, gpumem_guard_done);
	atomic_inc(&gpumem_guard_pending);
	spin_lock(&gpumem_guard_lock);
	hash_add(gpumem_guard_hash, &g->hnode, (unsigned long)current);
	spin_unlock(&gpumem_guard_lock);
	if (task_work_add(current, &g->work, TWA_RESUME)) {
		gpumem_guard_close(g);	/* exiting: no return to user */
		return;
	}
	/*
	 * Only this task uses g: its task_work runs after this returns. A
	 * buffer being created (no handle yet) is not watched: its creator's
	 * error path frees it whatever its GEM count says (TTM's destroy), so
	 * a reference would not keep it.
	 */
	if (READ_ONCE(obj->handle_count) && kref_get_unless_zero(&obj->refcount))
		g->obj = obj;
}

/**
 * gpumem_guard_allows_eviction() - may TTM evict for the current task?
 * @minor: the device TTM would evict on
 * @mem_type: the memory type it wants room in
 *
 * Context: any (TTM calls eviction_valuable under its lru_lock).
 * Return: false while the current task's guard for them is open (each
 *	refusal is counted: hook statistic guard_refused).
 */
bool gpumem_guard_allows_eviction(int minor, u32 mem_type)
{
	if (!gpumem_guard_denied_before(minor, mem_type))
		return true;
	gpumem_hook_stats_inc(GPUMEM_HOOK_GUARD_REFUSED);
	return false;
}

/**
 * gpumem_guard_exit() - wait until no guard's task_work is queued
 *
 * Context: module exit, after every hook is gone (no new guards).
 */
void gpumem_guard_exit(void)
{
	wait_var_event(&gpumem_guard_pending,
		       !atomic_read(&gpumem_guard_pending));
}
