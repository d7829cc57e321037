/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem device registry: every DRM device (primary minor) present, found
 * through a class interface on the DRM class, with its TTM device.
 */
#ifndef GPUMEM_DISCOVER_H
#define GPUMEM_DISCOVER_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

struct drm_device;
struct ttm_device;
struct gpumem_driver_info;

/**
 * struct gpumem_device - one DRM device gpumem tracks
 * @node: entry in the registry list, protected by the registry lock
 * @drm: the device; gpumem holds a drm_dev_get() reference from the class
 *	interface's add until its remove, never longer (the last put may call
 *	into the driver module)
 * @bdev: the device's TTM device, or NULL when its objects are not
 *	classified as TTM buffer objects, or it was not found yet; set once,
 *	under the registry lock
 * @find_ttm: looks for @bdev again while it was not found (discover.c)
 * @find_ttm_delay: the next wait of @find_ttm, in jiffies
 * @drv: the classifier's entry for the driver, or NULL
 * @minor: index of the primary minor
 * @name: "card<minor>"
 * @threshold_above: bit per region: its use is above threshold_pct (hooks.c)
 */
struct gpumem_device {
	struct list_head node;
	struct drm_device *drm;
	struct ttm_device *bdev;
	struct delayed_work find_ttm;
	unsigned long find_ttm_delay;
	const struct gpumem_driver_info *drv;
	int minor;
	char name[16];
	unsigned long threshold_above;
};

int gpumem_discover_init(void);
void gpumem_discover_exit(void);

/*
 * The registry lock serialises walks with device arrival and removal: a
 * device's remove callback blocks until a walk holding the lock is done, so a
 * walker may use every registered device (and its driver) while it holds it.
 */
extern struct mutex gpumem_registry_lock;
extern struct list_head gpumem_devices;

#endif /* GPUMEM_DISCOVER_H */
