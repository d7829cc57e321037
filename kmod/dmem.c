// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem and the kernel's dmem cgroup controller (kernel/cgroup/dmem.c).
 *
 * One enforcer per placement: TTM charges a placement to dmem when its
 * resource manager has a region (man->cg), in ttm_bo_alloc_at_place(),
 * before it calls the manager's alloc (gpumem's wrapper). On such a
 * manager gpumem's own max never denies (hooks.c passes the placement as
 * one dmem limits, see struct gpumem_placement): dmem.max does, and TTM
 * then evicts the cgroup's own buffers to make room. gpumem still charges,
 * counts and reports the placement (views, high, events, leaks, orphans).
 *
 * What gpumem knows of a region: dmem's region is opaque (its name and size
 * are private to dmem.c), so gpumem records, when a device's TTM device is
 * known, each counted manager (VRAM, GTT) whose man->cg is set, and names
 * it as the driver does (drm/<unique>/<name>, the names below, read from
 * amdgpu, xe and nouveau of 7.3); a driver not listed gets no name (the
 * region is reported, nameless). userspace joins the name with the cgroup
 * files (dmem.capacity, dmem.current, dmem.max, ...).
 *
 * dmem's refusals: a refused dmem charge never reaches the manager's alloc,
 * so no wrapper of gpumem sees it. gpumem puts a return probe on
 * dmem_cgroup_try_charge() (kretprobe: the kernel's own facility for this;
 * registered only on a kernel with dmem). TTM asks twice per placement:
 * once without eviction (a refusal makes it try the next placement), then,
 * when no placement fitted, with eviction, passing ret_limit_pool. A refusal
 * of that second charge is what gpumem reports, once per request, as a
 * quota-exceeded event with source dmem, in the task's name: dmem.max was
 * hit (like memory.events' max); TTM then evicts the cgroup's own buffers
 * and asks again, and the placement fails only when that frees too little.
 * Refusals on regions of other devices are ignored.
 *
 * Provider (module parameter dmem_provider, off by default, read when a
 * device is found): each counted manager of a charging device whose driver
 * registered no region gets one of gpumem's, "drm/<unique>/<region><n>"
 * (vram0, vram1, gtt0: n counts the region's managers in mem_type order),
 * sized to the manager's capacity, with TTM's own reclaim for a lowered
 * dmem.max (ttm_resource_manager_dmem_reclaim()). gpumem's max does not
 * apply there (one enforcer, as for a driver's region).
 *
 * Unregistering a provider region while the device lives (module unload):
 * TTM reads man->cg twice without a lock (ttm_resource_try_charge()), and
 * dmem may sleep with the region in hand (a new cgroup's pool). So: man->cg
 * is cleared first; an RCU-tasks grace period then waits out every task
 * between the two reads (nothing there sleeps, and a preempted task is no
 * quiescent state for RCU-tasks); then the region is unregistered. A task
 * asleep inside dmem_cgroup_try_charge() meanwhile finds it unregistered
 * (-ENODEV, that one charge fails); so that it never touches freed memory,
 * gpumem holds a pool of the region (the root cgroup's, charged 0 bytes:
 * every pool holds its region) and leaves it held: about 300 bytes per
 * provider region per unload or unbind, bounded by the administrator's
 * actions (marked kmemleak_not_leak(): deliberate). Placements charged
 * before keep their pools and are uncharged by TTM when freed, as after a
 * driver's own unregistration.
 *
 * Locking: gpumem_dmem_mans is an RCU list changed under gpumem_dmem_lock
 * (a mutex, taken when a device comes or goes and by netlink readers); the
 * return probe reads it under rcu_read_lock().
 */
#include <linux/cgroup.h>
#include <linux/kmemleak.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>
#include <net/netlink.h>
#include "compat.h"
#include "discover.h"
#include "dmem.h"
#include "events.h"
#include "../uapi/gpumem.h"

/**
 * struct gpumem_dmem_man - a counted manager that charges a dmem region
 * @node: entry in gpumem_dmem_mans (RCU)
 * @rcu: frees after the probe's readers
 * @man: the manager (compared, and used while its device is listed)
 * @cg: its region
 * @pin: gpumem's region only: a pool of it held so that the region outlives
 *	every task that may still hold it (see the top)
 * @minor: the device it was found on
 * @region: enum gpumem_region
 * @info: name, source, capacity
 */
struct gpumem_dmem_man {
	struct list_head node;
	struct rcu_head rcu;
	struct ttm_resource_manager *man;
	struct dmem_cgroup_region *cg;
	struct dmem_cgroup_pool_state *pin;
	int minor;
	u8 region;
	struct gpumem_dmem_info info;
};

static LIST_HEAD(gpumem_dmem_mans);	/* RCU; changed under gpumem_dmem_lock */
static DEFINE_MUTEX(gpumem_dmem_lock);

/**
 * gpumem_dmem_enabled() - whether gpumem was built with dmem support
 *
 * Return: true on a kernel with the dmem controller gpumem supports.
 */
bool gpumem_dmem_enabled(void)
{
	return GPUMEM_HAVE_DMEM;
}

/**
 * gpumem_dmem_regions() - the dmem regions of a device region
 * @minor: the device
 * @region: enum gpumem_region
 * @info: filled with up to @max regions
 * @max: room in @info
 *
 * Context: process context (takes gpumem_dmem_lock).
 * Return: how many were filled.
 */
unsigned int gpumem_dmem_regions(int minor, u8 region,
				 struct gpumem_dmem_info *info,
				 unsigned int max)
{
	struct gpumem_dmem_man *d;
	unsigned int n = 0;

	mutex_lock(&gpumem_dmem_lock);
	list_for_each_entry(d, &gpumem_dmem_mans, node) {
		if (n == max)
			break;
		if (d->minor == minor && d->region == region)
			info[n++] = d->info;
	}
	mutex_unlock(&gpumem_dmem_lock);
	return n;
}

#if GPUMEM_HAVE_DMEM
#include <drm/ttm/ttm_resource.h>

/**
 * gpumem_dmem_refuse_max() - refuse a gpumem max where dmem limits
 * @minor: the device a limit names
 * @region: its region
 * @extack: where the refusal names the region and the file to write
 *
 * Context: process context.
 * Return: 0 when no manager of the device region charges a dmem region,
 *	-EOPNOTSUPP (with @extack) when one does.
 */
int gpumem_dmem_refuse_max(int minor, u8 region, struct netlink_ext_ack *extack)
{
	struct gpumem_dmem_info info;

	if (!gpumem_dmem_regions(minor, region, &info, 1))
		return 0;
	if (info.name[0])
		NL_SET_ERR_MSG_FMT(extack, "dmem limits it: write '%s <bytes>' to dmem.max",
				   info.name);
	else
		NL_SET_ERR_MSG(extack,
			       "the dmem controller limits this region: write the cgroup's dmem.max");
	return -EOPNOTSUPP;
}

static bool dmem_provider;
module_param(dmem_provider, bool, 0644);
MODULE_PARM_DESC(dmem_provider,
		 "register a dmem cgroup region for each counted TTM manager of a device found from then on whose driver registers none (default off)");

/* The names drivers give their regions (drm/<unique>/<name>), 7.3. */
static const struct {
	const char *driver;
	u32 mem_type;
	const char *name;
} gpumem_dmem_driver_names[] = {
	{ "amdgpu", TTM_PL_VRAM, "vram" },	/* amdgpu_vram_mgr_init() */
	{ "xe", TTM_PL_VRAM, "vram0" },		/* __xe_ttm_vram_mgr_init() */
	{ "xe", TTM_PL_VRAM + 1, "vram1" },
	{ "nouveau", TTM_PL_VRAM, "vram" },	/* nouveau_ttm_init_vram() */
};

static const char *gpumem_dmem_driver_name(const char *driver, u32 mem_type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(gpumem_dmem_driver_names); i++)
		if (!strcmp(gpumem_dmem_driver_names[i].driver, driver) &&
		    gpumem_dmem_driver_names[i].mem_type == mem_type)
			return gpumem_dmem_driver_names[i].name;
	return NULL;
}

static const struct dmem_cgroup_ops gpumem_dmem_ops = {
	.reclaim = ttm_resource_manager_dmem_reclaim,
};

/* Take a pool of @cg from a kworker: the root cgroup's (see the top). */
struct gpumem_dmem_pin_work {
	struct work_struct work;
	struct dmem_cgroup_region *cg;
	struct dmem_cgroup_pool_state *pool;
	int ret;
};

static void gpumem_dmem_pin_fn(struct work_struct *work)
{
	struct gpumem_dmem_pin_work *w =
		container_of(work, struct gpumem_dmem_pin_work, work);

	w->ret = dmem_cgroup_try_charge(w->cg, 0, &w->pool, NULL);
}

static struct dmem_cgroup_pool_state *
gpumem_dmem_pin(struct dmem_cgroup_region *cg)
{
	struct gpumem_dmem_pin_work w = { .cg = cg };

	INIT_WORK_ONSTACK(&w.work, gpumem_dmem_pin_fn);
	queue_work(system_unbound_wq, &w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	return w.ret ? ERR_PTR(w.ret) : w.pool;
}

/*
 * Register gpumem's region for @man (a counted manager of @gdev without
 * one). Caller holds gpumem_dmem_lock.
 */
static int gpumem_dmem_provide(struct gpumem_device *gdev,
			       struct gpumem_dmem_man *d, u32 mem_type,
			       unsigned int nth)
{
	struct dmem_cgroup_init init = {
		.size = d->info.capacity,
		.ops = &gpumem_dmem_ops,
		.reclaim_priv = d->man,
	};
	struct dmem_cgroup_region *cg;

	if (!init.size)
		return 0;	/* dmem registers no region of size 0 */
	snprintf(d->info.name, sizeof(d->info.name), "drm/%s/%s%u",
		 gdev->drm->unique, gpumem_region_name(d->region), nth);
	cg = dmem_cgroup_register_region(&init, "%s", d->info.name);
	if (IS_ERR_OR_NULL(cg))
		return cg ? PTR_ERR(cg) : -ENOMEM;
	d->pin = gpumem_dmem_pin(cg);
	if (IS_ERR(d->pin)) {
		/* registered but unused yet: nothing can hold it */
		dmem_cgroup_unregister_region(cg);
		return PTR_ERR(d->pin);
	}
	d->cg = cg;
	d->info.source = GPUMEM_DMEM_SOURCE_GPUMEM;
	gpumem_man_set_dmem_region(d->man, cg);
	pr_info("gpumem: %s: dmem region %s registered (%llu bytes)\n",
		gdev->name, d->info.name, d->info.capacity);
	return 0;
}

/* Stop charging gpumem's region of @d and unregister it (see the top). */
static void gpumem_dmem_unprovide(struct gpumem_dmem_man *d)
{
	gpumem_man_set_dmem_region(d->man, NULL);
	synchronize_rcu_tasks();
	dmem_cgroup_unregister_region(d->cg);
	/*
	 * d->pin stays held (see the top): nothing points at it any more, a
	 * deliberate and bounded leak, not one for kmemleak to report
	 */
	kmemleak_not_leak(d->pin);
	pr_info("gpumem: dmem region %s unregistered\n", d->info.name);
}

static int gpumem_dmem_ttm_found(struct gpumem_device *gdev)
{
	unsigned int nth[GPUMEM_REGION_COUNT] = { };
	bool provide = READ_ONCE(dmem_provider);
	struct ttm_resource_manager *man;
	struct gpumem_dmem_man *d;
	int ret = 0;
	u32 t;

	/* another device is charged for this TTM device: its rows show it */
	if (!gdev->bdev || !gdev->drv || READ_ONCE(gdev->ttm_alias))
		return 0;
	mutex_lock(&gpumem_dmem_lock);
	for (t = 0; t < TTM_NUM_MEM_TYPES; t++) {
		enum gpumem_region region;
		const char *name;
		u64 cap = 0;

		man = ttm_manager_type(gdev->bdev, t);
		if (!man || !man->use_type || t == TTM_PL_SYSTEM)
			continue;
		region = gpumem_classify(gdev->drv, t, TTM_NUM_MEM_TYPES,
					 man->use_tt);
		if (!gpumem_region_counted(region))
			continue;
		nth[region]++;
		if (!gpumem_man_dmem_region(man) && !provide)
			continue;
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d) {
			ret = -ENOMEM;
			break;
		}
		d->man = man;
		d->minor = gdev->minor;
		d->region = region;
		if (gpumem_manager_capacity(gdev->drv, t, man->size, PAGE_SHIFT,
					    &cap))
			d->info.capacity = cap;
		d->cg = gpumem_man_dmem_region(man);
		if (d->cg) {
			d->info.source = GPUMEM_DMEM_SOURCE_DRIVER;
			name = gpumem_dmem_driver_name(gdev->drv->name, t);
			if (name)
				snprintf(d->info.name, sizeof(d->info.name),
					 "drm/%s/%s", gdev->drm->unique, name);
		} else {
			ret = gpumem_dmem_provide(gdev, d, t, nth[region] - 1);
			if (ret || !d->cg) {
				kfree(d);
				if (ret)
					break;
				continue;
			}
		}
		list_add_tail_rcu(&d->node, &gpumem_dmem_mans);
	}
	mutex_unlock(&gpumem_dmem_lock);
	return ret;
}

static void gpumem_dmem_remove(struct gpumem_device *gdev)
{
	struct gpumem_dmem_man *d, *tmp;

	mutex_lock(&gpumem_dmem_lock);
	list_for_each_entry_safe(d, tmp, &gpumem_dmem_mans, node) {
		if (d->minor != gdev->minor)
			continue;
		list_del_rcu(&d->node);
		if (d->info.source == GPUMEM_DMEM_SOURCE_GPUMEM)
			gpumem_dmem_unprovide(d);
		kfree_rcu(d, rcu);
	}
	mutex_unlock(&gpumem_dmem_lock);
}

#if IS_ENABLED(CONFIG_KRETPROBES)
/* What the probe keeps of a dmem_cgroup_try_charge() call. */
struct gpumem_dmem_try {
	struct dmem_cgroup_region *cg;
	u64 size;
	bool evicting;
};

static int gpumem_dmem_try_entry(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct gpumem_dmem_try *t = (struct gpumem_dmem_try *)ri->data;

	t->cg = (struct dmem_cgroup_region *)regs_get_kernel_argument(regs, 0);
	t->size = regs_get_kernel_argument(regs, 1);
	/* ret_limit_pool: TTM asks for it when it will evict for room */
	t->evicting = regs_get_kernel_argument(regs, 3) != 0;
	return 0;
}

/* In the refused task, atomic (the probe's handler): look up and emit. */
static int gpumem_dmem_try_ret(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct gpumem_dmem_try *t = (struct gpumem_dmem_try *)ri->data;
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
		.source = GPUMEM_LIMIT_SOURCE_DMEM,
		.requested = t->size,
		.denied = true,
	};
	struct gpumem_event_key key = {
		.type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
	};
	struct gpumem_dmem_man *d;
	bool found = false;

	/* an int: the upper half of the return register is undefined */
	if ((int)regs_return_value(regs) != -EAGAIN || !t->evicting ||
	    (current->flags & PF_KTHREAD))
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(d, &gpumem_dmem_mans, node) {
		if (d->cg == t->cg) {
			ev.minor = d->minor;
			ev.region = d->region;
			strscpy(ev.dmem_region, d->info.name,
				sizeof(ev.dmem_region));
			found = true;
			break;
		}
	}
	ev.cgid = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	if (!found)
		return 0;
	key.cgid = ev.cgid;
	key.minor = ev.minor;
	if (!gpumem_event_ratelimit(&key, &ev.suppressed))
		return 0;
	ev.pid = task_tgid_nr(current);
	get_task_comm(ev.comm, current);
	gpumem_event_emit(&ev);
	return 0;
}

/*
 * The calls watched at once, by default: at least 64, or twice the CPUs
 * (the kernel's own default), set at gpumem_dmem_init().
 * dmem_cgroup_try_charge() sleeps at most in an allocation; a call beyond
 * them runs unwatched and is counted (gpumem_dmem_unwatched()).
 */
#define GPUMEM_DMEM_PROBE_SLOTS	64
#define GPUMEM_DMEM_PROBE_SLOTS_MAX	4096

/* Read once, at load (0444): 0 for the default above. */
static unsigned int dmem_probe_slots;

static int gpumem_param_set_slots(const char *val,
				  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, GPUMEM_DMEM_PROBE_SLOTS_MAX);
}

static const struct kernel_param_ops gpumem_slots_ops = {
	.set = gpumem_param_set_slots,
	.get = param_get_uint,
};

module_param_cb(dmem_probe_slots, &gpumem_slots_ops, &dmem_probe_slots, 0444);
MODULE_PARM_DESC(dmem_probe_slots,
		 "calls of dmem_cgroup_try_charge() watched at once for dmem's refusals (0: at least 64, or twice the CPUs; at most 4096; read at load); the calls beyond are counted in the statistic dmem_unwatched");

static struct kretprobe gpumem_dmem_probe = {
	.kp.symbol_name = "dmem_cgroup_try_charge",
	.entry_handler = gpumem_dmem_try_entry,
	.handler = gpumem_dmem_try_ret,
	.data_size = sizeof(struct gpumem_dmem_try),
	.maxactive = GPUMEM_DMEM_PROBE_SLOTS,
};

/* Set once by gpumem_dmem_init(), before anyone reads the statistics. */
static bool gpumem_dmem_probed;

/**
 * gpumem_dmem_unwatched() - calls of dmem_cgroup_try_charge() not watched
 *
 * The calls the probe missed: all its slots were taken (more calls at once
 * than it watches), or the probe fired inside another probe's handler on
 * the same CPU. A refusal among them was enforced by dmem but sent no
 * event: this count says how many calls that may have been.
 *
 * Context: any.
 * Return: their number since the module was loaded (0 without a probe).
 */
u64 gpumem_dmem_unwatched(void)
{
	if (!gpumem_dmem_probed)
		return 0;
	/* the kprobe core counts both without a lock: a moment's figure */
	return (u64)READ_ONCE(gpumem_dmem_probe.nmissed) +
	       READ_ONCE(gpumem_dmem_probe.kp.nmissed);
}

/**
 * gpumem_dmem_init() - watch dmem's refusals
 *
 * A kernel without kretprobes, or one that refuses the probe, runs
 * without dmem events (logged).
 *
 * Return: 0.
 */
int gpumem_dmem_init(void)
{
	int ret;

	gpumem_dmem_probe.maxactive = dmem_probe_slots ?:
		max_t(int, GPUMEM_DMEM_PROBE_SLOTS, 2 * num_possible_cpus());
	ret = register_kretprobe(&gpumem_dmem_probe);
	if (ret)
		pr_warn("gpumem: no probe on dmem_cgroup_try_charge (%d): dmem's refusals are not reported\n",
			ret);
	else
		gpumem_dmem_probed = true;
	return 0;
}

/**
 * gpumem_dmem_exit() - stop watching dmem's refusals
 *
 * Context: module exit, after every device went (no region of gpumem's
 * remains).
 */
void gpumem_dmem_exit(void)
{
	u64 unwatched;

	if (!gpumem_dmem_probed)
		return;
	unregister_kretprobe(&gpumem_dmem_probe);
	unwatched = gpumem_dmem_unwatched();
	if (unwatched)
		pr_warn("gpumem: %llu calls of dmem_cgroup_try_charge went unwatched (the probe watches %d at once)\n",
			unwatched, gpumem_dmem_probe.maxactive);
	gpumem_dmem_probed = false;
}
#else
int gpumem_dmem_init(void)
{
	pr_warn("gpumem: no kretprobes: dmem's refusals are not reported\n");
	return 0;
}

void gpumem_dmem_exit(void)
{
}

u64 gpumem_dmem_unwatched(void)
{
	return 0;
}
#endif /* CONFIG_KRETPROBES */

#else /* !GPUMEM_HAVE_DMEM */

int gpumem_dmem_refuse_max(int minor, u8 region, struct netlink_ext_ack *extack)
{
	return 0;
}

static int gpumem_dmem_ttm_found(struct gpumem_device *gdev)
{
	return 0;
}

static void gpumem_dmem_remove(struct gpumem_device *gdev)
{
}

int gpumem_dmem_init(void)
{
	return 0;
}

void gpumem_dmem_exit(void)
{
}

u64 gpumem_dmem_unwatched(void)
{
	return 0;
}
#endif /* GPUMEM_HAVE_DMEM */

/*
 * gpumem_dmem_listener - records a device's dmem regions (and registers
 * gpumem's) once its TTM device is hooked; unregisters gpumem's when it
 * goes, before it is unhooked
 */
const struct gpumem_device_listener gpumem_dmem_listener = {
	.what = "its dmem regions are not known",
	.ttm_found = gpumem_dmem_ttm_found,
	.remove = gpumem_dmem_remove,
};
