/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem device registry: every DRM device (primary minor) present, found
 * through a class interface on the DRM class, with its TTM device.
 */
#ifndef GPUMEM_DISCOVER_H
#define GPUMEM_DISCOVER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/workqueue.h>
#include "classify.h"
#include "frag.h"

struct drm_device;
struct ttm_device;
struct gpumem_driver_info;
struct gpumem_ttm_hook;

/**
 * struct gpumem_device - one DRM device gpumem tracks
 * @node: entry in the registry list, protected by the registry lock
 * @drm: the device; gpumem holds a drm_dev_get() reference from the class
 *	interface's add until its remove, never longer (the last put may call
 *	into the driver module)
 * @bdev: the device's TTM device, or NULL when its objects are not
 *	classified as TTM buffer objects, or it was not found yet; set once,
 *	under the registry lock and @walk_sem held for writing
 * @walk_sem: held for reading by a walker using the device (walk.c): the
 *	device stays registered, its driver bound and @bdev stable until it is
 *	released; removal takes it for writing after unlisting the device,
 *	so it waits for the walkers of that device only
 * @find_ttm: looks for @bdev again while it was not found (discover.c)
 * @find_ttm_delay: the next wait of @find_ttm, in jiffies
 * @drv: the classifier's entry for the driver, or NULL
 * @minor: index of the primary minor
 * @name: "card<minor>"
 * @frag: the free space of each region when last read (walk.c's; under
 *	the registry lock)
 * @frag_read: jiffies of that reading, 0 before the first
 * @drm_alias: another listed device has the same @drm (amdgpu's partition
 *	minors): its clients and buffers are that device's, counted there
 *	(under the registry lock)
 * @ttm_hook: the hook of @bdev this device is a user of (hooks.c's, under
 *	its gpumem_hooks_lock)
 * @hook_node: entry in that hook's users (likewise)
 * @ttm_alias: another device is charged for @bdev (hooks.c: the first to
 *	hook it): the managers' use is reported there, not here (written
 *	under gpumem_hooks_lock, read with READ_ONCE())
 */
struct gpumem_device {
	struct list_head node;
	struct drm_device *drm;
	struct ttm_device *bdev;
	struct rw_semaphore walk_sem;
	struct delayed_work find_ttm;
	unsigned long find_ttm_delay;
	const struct gpumem_driver_info *drv;
	int minor;
	char name[16];
	struct gpumem_frag frag[GPUMEM_REGION_COUNT];
	unsigned long frag_read;
	bool drm_alias;
	struct gpumem_ttm_hook *ttm_hook;
	struct list_head hook_node;
	bool ttm_alias;
};

/**
 * struct gpumem_device_listener - a part of gpumem told about devices
 * @what: what the part gives up on a device it fails to take, for the log
 *	(e.g. "no limit can be set on it")
 * @add: a device was found, before it is listed (optional)
 * @ttm_found: the device's TTM device is known: at @add time, or later
 *	when the registry finds it (optional)
 * @remove: the device is going: no longer listed, its delayed search is
 *	over; called even when @add or @ttm_found failed (optional)
 *
 * Listeners are given to gpumem_discover_init() in order: @add and
 * @ttm_found are called in that order, @remove in reverse order. A failed
 * @add or @ttm_found is logged with @what; the device is tracked anyway.
 *
 * Context: every callback may sleep; none is called under the registry
 * lock, and the callbacks of one device never run concurrently.
 */
struct gpumem_device_listener {
	const char *what;
	int (*add)(struct gpumem_device *gdev);
	int (*ttm_found)(struct gpumem_device *gdev);
	void (*remove)(struct gpumem_device *gdev);
};

int gpumem_discover_init(const struct gpumem_device_listener *const *listeners,
			 unsigned int nr);
void gpumem_discover_exit(void);

/*
 * The registry lock protects the list of devices: a walker holds it only to
 * find the next device and take that device's walk_sem for reading, then
 * uses the device (and its driver) until it releases walk_sem; a device's
 * remove callback unlists it under the lock, then waits for walk_sem.
 */
extern struct mutex gpumem_registry_lock;
extern struct list_head gpumem_devices;

#endif /* GPUMEM_DISCOVER_H */
