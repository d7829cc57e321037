/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem - the one place for differences between the kernels we build for
 * (Debian 6.1, 6.12 and 7.x). Nothing else in the module tests versions.
 */
#ifndef GPUMEM_COMPAT_H
#define GPUMEM_COMPAT_H

#include <linux/version.h>
#include <linux/device.h>
#include <linux/dma-resv.h>
#include <linux/mm_types.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <drm/drm_file.h>
#include <net/genetlink.h>

/* 6.2 merged ttm_bo_api.h and ttm_bo_driver.h into ttm_bo.h. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#include <drm/ttm/ttm_bo.h>
#else
#include <drm/ttm/ttm_bo_api.h>
#include <drm/ttm/ttm_bo_driver.h>
#endif
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_placement.h>
#include <drm/ttm/ttm_resource.h>

/*
 * 6.4 dropped the class_interface argument of add_dev/remove_dev and made
 * struct class const. GPUMEM_CLASS_INTERFACE() defines a class_interface
 * whose callbacks forward to int add(struct device *) and
 * void remove(struct device *) on every version.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define GPUMEM_CLASS_INTERFACE(name, add, remove)			\
	static struct class_interface name = {				\
		.add_dev = add,						\
		.remove_dev = remove,					\
	}
#else
#define GPUMEM_CLASS_INTERFACE(name, add, remove)			\
	static int name##_add(struct device *dev,			\
			      struct class_interface *intf)		\
	{								\
		return add(dev);					\
	}								\
	static void name##_remove(struct device *dev,			\
				  struct class_interface *intf)		\
	{								\
		remove(dev);						\
	}								\
	static struct class_interface name = {				\
		.add_dev = name##_add,					\
		.remove_dev = name##_remove,				\
	}
#endif

/**
 * gpumem_class_interface_set_class() - point a class interface at a class
 * @intf: the interface
 * @cls: the class (const from 6.4 on, not before)
 */
static inline void gpumem_class_interface_set_class(struct class_interface *intf,
						    const struct class *cls)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	intf->class = cls;
#else
	intf->class = (struct class *)cls;
#endif
}

/**
 * gpumem_set_bdev_funcs() - point a TTM device at a function table
 * @bdev: the device
 * @funcs: the table
 *
 * &ttm_device.funcs became a pointer to const in 6.2. The store is a release:
 * whoever calls through the new table sees everything written before it.
 */
static inline void gpumem_set_bdev_funcs(struct ttm_device *bdev,
					 const struct ttm_device_funcs *funcs)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	smp_store_release(&bdev->funcs, funcs);	/* publishes the table */
#else
	smp_store_release(&bdev->funcs,		/* publishes the table */
			  (struct ttm_device_funcs *)funcs);
#endif
}

/**
 * gpumem_restore_bdev_funcs() - point a TTM device back at its own table
 * @bdev: the device
 * @ours: the table gpumem pointed it at
 * @orig: the table it had before
 *
 * Only while @bdev still points at @ours (see gpumem_ttm_unhook()).
 *
 * Return: whether it did.
 */
static inline bool gpumem_restore_bdev_funcs(struct ttm_device *bdev,
					     const struct ttm_device_funcs *ours,
					     const struct ttm_device_funcs *orig)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return cmpxchg(&bdev->funcs, ours, orig) == ours;
#else
	return cmpxchg(&bdev->funcs, (struct ttm_device_funcs *)ours,
		       (struct ttm_device_funcs *)orig) == ours;
#endif
}

/**
 * gpumem_file_get_pid() - reference the process a DRM file belongs to
 * @file: the DRM file; caller holds &drm_device.filelist_mutex
 *
 * drm_file.pid became RCU-managed (and updatable) in 6.7.
 *
 * Return: a pid reference (put_pid() it) or NULL.
 */
static inline struct pid *gpumem_file_get_pid(struct drm_file *file)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	struct pid *pid;

	rcu_read_lock();
	pid = get_pid(rcu_dereference(file->pid));
	rcu_read_unlock();
	return pid;
#else
	return get_pid(file->pid);
#endif
}

/**
 * gpumem_dump_attrs() - the parsed request attributes of a netlink dump
 * @cb: the dump's callback state
 *
 * 6.2+ wraps them in a struct genl_info inside struct genl_dumpit_info.
 *
 * Return: the attribute table, indexed by attribute type.
 */
static inline struct nlattr **gpumem_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * Privileged-only multicast groups: GENL_MCAST_CAP_SYS_ADMIN (6.7, also in
 * Debian's 6.1.y and every kernel gpumem supports). Without it the events
 * group would be open to everyone: refuse to build rather than leak events.
 */
#ifdef GENL_MCAST_CAP_SYS_ADMIN
#define GPUMEM_MCAST_ADMIN_ONLY	GENL_MCAST_CAP_SYS_ADMIN
#else
#error "this kernel has no GENL_MCAST_CAP_SYS_ADMIN: gpumem's events group cannot be restricted"
#endif

/*
 * The range of an integer policy (NLA_POLICY_FULL_RANGE) in the generated
 * kmod/netlink_gen.c: 6.7 made struct nla_policy's range pointer const;
 * 6.1's is a plain pointer, which a const struct cannot initialise.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define GPUMEM_NL_RANGE_CONST	const
#else
#define GPUMEM_NL_RANGE_CONST
#endif

/*
 * The task that owns @mm, as memcg keeps it (mm->owner exists only with
 * CONFIG_MEMCG, on every version we build for), or NULL. Caller holds
 * rcu_read_lock(); the task stays valid until it is dropped.
 */
static inline struct task_struct *gpumem_mm_owner(struct mm_struct *mm)
{
#ifdef CONFIG_MEMCG
	return rcu_dereference(mm->owner);
#else
	return NULL;
#endif
}

/*
 * Whether the current task holds @resv's lock without an acquire context
 * (a plain dma_resv_lock(), as ttm_bo_reserve() without a ticket takes it).
 * The owner of a mutex is its owner word without the low flag bits
 * (MUTEX_FLAGS, 0x07, in kernel/locking/mutex.c since 4.10, unchanged on
 * every version we build for); a PREEMPT_RT ww_mutex is an rt_mutex, whose
 * owner we do not read (false).
 */
static inline bool gpumem_resv_held_by_current(struct dma_resv *resv)
{
#ifdef CONFIG_PREEMPT_RT
	return false;
#else
	unsigned long owner = atomic_long_read(&resv->lock.base.owner);

	return (owner & ~0x07UL) == (unsigned long)current &&
	       !READ_ONCE(resv->lock.ctx);
#endif
}

/*
 * The dmem cgroup controller (kernel/cgroup/dmem.c, 6.14+): TTM charges a
 * placement to dmem when its manager has a region (ttm_resource_manager.cg).
 * gpumem supports the interface of 7.3 (struct dmem_cgroup_init, a region's
 * reclaim callback, ttm_resource_manager_dmem_reclaim()); kernels without
 * CONFIG_CGROUP_DMEM (Debian's, 7.3 included) and earlier dmem kernels are
 * treated as having no dmem: nothing of dmem.c is built or called there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0) && IS_ENABLED(CONFIG_CGROUP_DMEM)
#define GPUMEM_HAVE_DMEM 1
#include <linux/cgroup_dmem.h>

/**
 * gpumem_man_dmem_region() - the dmem region a TTM manager charges
 * @man: the manager
 *
 * Return: the region, or NULL (no dmem charge for @man's placements).
 */
static inline struct dmem_cgroup_region *
gpumem_man_dmem_region(struct ttm_resource_manager *man)
{
	return READ_ONCE(man->cg);
}

/**
 * gpumem_man_set_dmem_region() - make a TTM manager charge a dmem region
 * @man: the manager
 * @region: the region, or NULL to stop charging
 *
 * TTM reads man->cg without a lock, twice in ttm_resource_try_charge():
 * see dmem.c for when NULL may be stored.
 */
static inline void gpumem_man_set_dmem_region(struct ttm_resource_manager *man,
					      struct dmem_cgroup_region *region)
{
	WRITE_ONCE(man->cg, region);
}
#else
#define GPUMEM_HAVE_DMEM 0
struct dmem_cgroup_region;

static inline struct dmem_cgroup_region *
gpumem_man_dmem_region(struct ttm_resource_manager *man)
{
	return NULL;
}
#endif

#endif /* GPUMEM_COMPAT_H */
