// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem discovery: tracks DRM devices as they come and go.
 *
 * The DRM class is not exported. drm_class_device_register() (exported for
 * TTM) puts a device into it; registering a short-lived probe device that way
 * yields the class pointer, which a class interface then uses to see every
 * existing and future minor. The class lives as long as drm.ko, which gpumem
 * depends on.
 */
#include <linux/device.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_sysfs.h>
#include <drm/drm_vma_manager.h>
#include "compat.h"
#include "classify.h"
#include "discover.h"

/* Serialises walks with device arrival and removal (see discover.h). */
DEFINE_MUTEX(gpumem_registry_lock);
/* struct gpumem_device, sorted by minor; protected by gpumem_registry_lock */
LIST_HEAD(gpumem_devices);

/* Set once by gpumem_discover_init(), before the first device is added. */
static const struct gpumem_device_listener *const *gpumem_listeners;
static unsigned int gpumem_nr_listeners;

/*
 * Tell every listener about @gdev: that it was added, or (@ttm) that its TTM
 * device is known. A listener that fails says what @gdev goes without.
 */
static void gpumem_listeners_call(struct gpumem_device *gdev, bool ttm)
{
	unsigned int i;

	for (i = 0; i < gpumem_nr_listeners; i++) {
		const struct gpumem_device_listener *l = gpumem_listeners[i];
		int (*cb)(struct gpumem_device *gdev) = ttm ? l->ttm_found : l->add;

		if (cb && cb(gdev))
			dev_warn(gdev->drm->dev, "gpumem: %s: %s\n", gdev->name,
				 l->what);
	}
}

static void gpumem_probe_release(struct device *dev)
{
	kfree(dev);
}

static const struct class *gpumem_find_drm_class(void)
{
	const struct class *cls = NULL;
	struct device *probe;
	int ret;

	probe = kzalloc(sizeof(*probe), GFP_KERNEL);
	if (!probe)
		return ERR_PTR(-ENOMEM);
	probe->release = gpumem_probe_release;
	ret = dev_set_name(probe, "gpumem-probe");
	if (ret) {
		kfree(probe);
		return ERR_PTR(ret);
	}
	ret = drm_class_device_register(probe);
	if (!ret) {
		cls = probe->class;
		drm_class_device_unregister(probe);
	} else {
		put_device(probe);
	}
	return ret ? ERR_PTR(ret) : cls;
}

/* How long a device without a TTM device found yet waits before looking again. */
#define GPUMEM_FIND_TTM_FIRST	HZ
#define GPUMEM_FIND_TTM_MAX	(60 * HZ)

/*
 * The TTM device of a DRM device of a listed driver, found through the DRM
 * device itself, never through ttm_glob.device_list (its mutex is not
 * exported: another GPU's ttm_device_fini() could free the entry a walk
 * stands on):
 *  - a driver of the VRAM helpers (bochs on 6.x, ast on 6.1, hibmc on
 *    6.x, vboxvideo) keeps it in ddev->vram_mm, which lives as long as the
 *    device; its objects are never looked at: the same driver name may
 *    use the shmem helpers in another kernel (gpumem_add_dev() then takes
 *    it for a driver without TTM);
 *  - any other listed driver embeds every GEM object in a TTM buffer object
 *    (i915: in a union, zeroed for its objects without TTM), so one
 *    mappable object, read under the offset manager's lock (which keeps it
 *    from being freed), names the TTM device.
 * The TTM device lives until the driver unbinds, which removes the DRM
 * device (gpumem_remove_dev()) first. NULL when the device has no mappable
 * object yet: the caller looks again later.
 */
static bool gpumem_driver_vram_helper(struct drm_device *ddev)
{
	const struct gpumem_driver_info *drv =
		gpumem_driver_lookup(ddev->driver->name);

	return drv && drv->vram_helper;
}

static struct ttm_device *gpumem_find_ttm_device(struct drm_device *ddev)
{
	struct drm_vma_offset_manager *mgr = ddev->vma_offset_manager;
	struct ttm_device *bdev = NULL;
	struct drm_mm_node *node;

	if (ddev->vram_mm)
		return &ddev->vram_mm->bdev;
	if (gpumem_driver_vram_helper(ddev))
		return NULL;
	if (!mgr || !ddev->anon_inode)
		return NULL;
	drm_vma_offset_lock_lookup(mgr);
	drm_mm_for_each_node(node, &mgr->vm_addr_space_mm) {
		struct drm_vma_offset_node *vn =
			container_of(node, struct drm_vma_offset_node, vm_node);
		struct drm_gem_object *obj =
			container_of(vn, struct drm_gem_object, vma_node);
		struct ttm_buffer_object *bo =
			container_of(obj, struct ttm_buffer_object, base);

		if (obj->dev != ddev || !READ_ONCE(bo->bdev))
			continue;
		if (bo->bdev->dev_mapping == ddev->anon_inode->i_mapping) {
			bdev = bo->bdev;
			break;
		}
	}
	drm_vma_offset_unlock_lookup(mgr);
	return bdev;
}

/* Hook @gdev's TTM device, now that it is known. */
static void gpumem_attach_ttm(struct gpumem_device *gdev,
			      struct ttm_device *bdev)
{
	mutex_lock(&gpumem_registry_lock);
	down_write(&gdev->walk_sem);
	gdev->bdev = bdev;	/* walkers read it under walk_sem */
	up_write(&gdev->walk_sem);
	mutex_unlock(&gpumem_registry_lock);
	dev_info(gdev->drm->dev, "gpumem: %s: TTM device found\n", gdev->name);
	gpumem_listeners_call(gdev, true);
}

/*
 * A listed driver's device whose TTM device was not found yet (no mappable
 * object when it registered): look again, less and less often. Canceled
 * (and waited for) by gpumem_remove_dev() before the device goes.
 */
static void gpumem_find_ttm_fn(struct work_struct *work)
{
	struct gpumem_device *gdev = container_of(to_delayed_work(work),
						  struct gpumem_device,
						  find_ttm);
	struct ttm_device *bdev = gpumem_find_ttm_device(gdev->drm);

	if (bdev) {
		gpumem_attach_ttm(gdev, bdev);
		return;
	}
	gdev->find_ttm_delay = min(2 * gdev->find_ttm_delay,
				   (unsigned long)GPUMEM_FIND_TTM_MAX);
	queue_delayed_work(system_wq, &gdev->find_ttm, gdev->find_ttm_delay);
}

static struct drm_minor *gpumem_primary_minor(struct device *dev)
{
	struct drm_minor *minor;

	if (!dev->type || !dev->type->name ||
	    strcmp(dev->type->name, "drm_minor"))
		return NULL;
	minor = dev_get_drvdata(dev);
	if (!minor || minor->type != DRM_MINOR_PRIMARY || !minor->dev)
		return NULL;
	return minor;
}

static int gpumem_add_dev(struct device *dev)
{
	struct drm_minor *minor = gpumem_primary_minor(dev);
	struct gpumem_device *gdev, *pos;
	struct drm_device *ddev;

	if (!minor)
		return 0;
	ddev = minor->dev;
	gdev = kzalloc(sizeof(*gdev), GFP_KERNEL);
	if (!gdev)
		return -ENOMEM;
	gdev->minor = minor->index;
	snprintf(gdev->name, sizeof(gdev->name), "card%d", minor->index);
	gdev->drv = gpumem_driver_lookup(ddev->driver->name);
	/*
	 * A VRAM-helper driver without its VRAM manager uses the shmem helpers
	 * in this kernel (bochs on 7.x, ast on 6.12+): no TTM object at all,
	 * never to be cast to one.
	 */
	if (gdev->drv && gdev->drv->vram_helper && !ddev->vram_mm)
		gdev->drv = NULL;
	init_rwsem(&gdev->walk_sem);
	INIT_DELAYED_WORK(&gdev->find_ttm, gpumem_find_ttm_fn);
	INIT_LIST_HEAD(&gdev->hook_node);
	/* Only listed drivers embed every GEM object in a TTM BO. */
	if (gdev->drv)
		gdev->bdev = gpumem_find_ttm_device(ddev);
	drm_dev_get(ddev);
	gdev->drm = ddev;
	gpumem_listeners_call(gdev, false);
	if (gdev->bdev)
		gpumem_listeners_call(gdev, true);

	mutex_lock(&gpumem_registry_lock);
	/* the first device of a drm_device counts its clients (discover.h) */
	list_for_each_entry(pos, &gpumem_devices, node)
		if (pos->drm == ddev)
			gdev->drm_alias = true;
	list_for_each_entry(pos, &gpumem_devices, node)
		if (pos->minor > gdev->minor)
			break;
	list_add_tail(&gdev->node, &pos->node);
	mutex_unlock(&gpumem_registry_lock);

	if (gdev->drv && !gdev->bdev) {
		gdev->find_ttm_delay = GPUMEM_FIND_TTM_FIRST;
		queue_delayed_work(system_wq, &gdev->find_ttm,
				   gdev->find_ttm_delay);
	}
	dev_dbg(dev, "gpumem: tracking %s (%s, %s)\n", gdev->name,
		ddev->driver->name, gdev->bdev ? "ttm" :
		gdev->drv ? "ttm not found yet" : "no ttm");
	return 0;
}

static void gpumem_remove_dev(struct device *dev)
{
	struct drm_minor *minor = gpumem_primary_minor(dev);
	struct gpumem_device *gdev, *found = NULL;
	unsigned int i;

	if (!minor)
		return;
	/*
	 * Found by its minor: several minors may lead to one drm_device
	 * (amdgpu's partitions), and a minor's dev may have changed since it
	 * was added (amdgpu points a partition's minors at the device of the
	 * whole GPU). Unlisted here; walkers using it are waited for below.
	 */
	mutex_lock(&gpumem_registry_lock);
	list_for_each_entry(gdev, &gpumem_devices, node) {
		if (gdev->minor == minor->index) {
			list_del(&gdev->node);
			found = gdev;
			break;
		}
	}
	/* another minor of its drm_device counts the clients from now on */
	if (found && !found->drm_alias) {
		list_for_each_entry(gdev, &gpumem_devices, node) {
			if (gdev->drm == found->drm) {
				gdev->drm_alias = false;
				break;
			}
		}
	}
	mutex_unlock(&gpumem_registry_lock);
	if (!found)
		return;
	/* Unlisted: no new walker. Wait for those using it now. */
	down_write(&found->walk_sem);
	up_write(&found->walk_sem);
	/* it may still hook the device: then it is unhooked below */
	cancel_delayed_work_sync(&found->find_ttm);
	for (i = gpumem_nr_listeners; i--; )
		if (gpumem_listeners[i]->remove)
			gpumem_listeners[i]->remove(found);
	drm_dev_put(found->drm);
	kfree(found);
}

GPUMEM_CLASS_INTERFACE(gpumem_drm_interface, gpumem_add_dev, gpumem_remove_dev);

/**
 * gpumem_discover_init() - start tracking DRM devices
 * @listeners: the parts told about every device (see struct
 *	gpumem_device_listener); must stay valid until gpumem_discover_exit()
 * @nr: how many
 *
 * Adds every existing DRM device to the registry and keeps it current.
 *
 * Return: 0 or a negative errno.
 */
int gpumem_discover_init(const struct gpumem_device_listener *const *listeners,
			 unsigned int nr)
{
	const struct class *cls = gpumem_find_drm_class();

	if (IS_ERR(cls))
		return PTR_ERR(cls);
	gpumem_listeners = listeners;
	gpumem_nr_listeners = nr;
	gpumem_class_interface_set_class(&gpumem_drm_interface, cls);
	return class_interface_register(&gpumem_drm_interface);
}

/**
 * gpumem_discover_exit() - stop tracking; drops every device reference
 */
void gpumem_discover_exit(void)
{
	class_interface_unregister(&gpumem_drm_interface);
	WARN_ON(!list_empty(&gpumem_devices));
}
