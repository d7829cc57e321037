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
#include <linux/slab.h>
#include <linux/string.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_sysfs.h>
#include "compat.h"
#include "classify.h"
#include "discover.h"
#include "hooks.h"
#include "limits.h"

/* Serialises walks with device arrival and removal (see discover.h). */
DEFINE_MUTEX(gpumem_registry_lock);
/* struct gpumem_device, sorted by minor; protected by gpumem_registry_lock */
LIST_HEAD(gpumem_devices);

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

/*
 * The TTM device of a DRM device, if it has one. ttm_glob.device_list is
 * zeroed until the first TTM device exists and its mutex is not exported;
 * discovery runs from the device's own registration, after its TTM device was
 * added, and the result is cached for the device's lifetime.
 */
static struct ttm_device *gpumem_find_ttm_device(struct drm_device *ddev)
{
	struct list_head *head = &ttm_glob.device_list;
	struct ttm_device *bdev;

	if (!ddev->anon_inode || !READ_ONCE(head->next))
		return NULL;
	list_for_each_entry(bdev, head, device_list)
		if (bdev->dev_mapping == ddev->anon_inode->i_mapping)
			return bdev;
	return NULL;
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
	/* Only listed drivers embed every GEM object in a TTM BO. */
	if (gdev->drv)
		gdev->bdev = gpumem_find_ttm_device(ddev);
	drm_dev_get(ddev);
	gdev->drm = ddev;
	if (gdev->bdev && gpumem_hooks_attach(gdev))
		dev_warn(dev, "gpumem: cannot hook %s: no charges or limits on it\n",
			 gdev->name);
	if (gpumem_limits_device_add(gdev->minor))
		dev_warn(dev, "gpumem: out of memory: no limit can be set on %s\n",
			 gdev->name);

	mutex_lock(&gpumem_registry_lock);
	list_for_each_entry(pos, &gpumem_devices, node)
		if (pos->minor > gdev->minor)
			break;
	list_add_tail(&gdev->node, &pos->node);
	mutex_unlock(&gpumem_registry_lock);

	dev_dbg(dev, "gpumem: tracking %s (%s, %s)\n", gdev->name,
		ddev->driver->name, gdev->bdev ? "ttm" : "no ttm");
	return 0;
}

static void gpumem_remove_dev(struct device *dev)
{
	struct drm_minor *minor = gpumem_primary_minor(dev);
	struct gpumem_device *gdev, *found = NULL;

	if (!minor)
		return;
	/* Blocks until a walk in progress is done with the device. */
	mutex_lock(&gpumem_registry_lock);
	list_for_each_entry(gdev, &gpumem_devices, node) {
		if (gdev->drm == minor->dev) {
			list_del(&gdev->node);
			found = gdev;
			break;
		}
	}
	mutex_unlock(&gpumem_registry_lock);
	if (!found)
		return;
	gpumem_hooks_detach(found);
	gpumem_limits_device_gone(found->minor);
	drm_dev_put(found->drm);
	kfree(found);
}

GPUMEM_CLASS_INTERFACE(gpumem_drm_interface, gpumem_add_dev, gpumem_remove_dev);

/**
 * gpumem_discover_init() - start tracking DRM devices
 *
 * Adds every existing DRM device to the registry and keeps it current.
 *
 * Return: 0 or a negative errno.
 */
int gpumem_discover_init(void)
{
	const struct class *cls = gpumem_find_drm_class();

	if (IS_ERR(cls))
		return PTR_ERR(cls);
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
