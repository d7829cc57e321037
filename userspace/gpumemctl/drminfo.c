// SPDX-License-Identifier: GPL-2.0
/*
 * drminfo.c - libdrm look-ups for `gpumemctl devices`.
 *
 * The PCI ids come from sysfs through drmGetDeviceFromDevId(), which never
 * opens the device: a monitoring tool must not open a DRM node (a qxl
 * card's last close makes the driver allocate console buffers, charged to
 * whoever closed it). The driver's description comes from the kernel
 * (netlink). Every failure just leaves the fields unset.
 */
#include "drminfo.h"

#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <xf86drm.h>

#define GM_DRM_MAJOR 226

void gm_drm_enrich(struct gm_dev *d)
{
	drmDevicePtr dev = NULL;
	char primary[64];
	struct stat st;

	snprintf(primary, sizeof(primary), "%s/card%u", DRM_DIR_NAME, d->id);
	/* In another device namespace cardN may be some other device. */
	if (stat(primary, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != GM_DRM_MAJOR || minor(st.st_rdev) != d->id)
		return;
	if (drmGetDeviceFromDevId(st.st_rdev, 0, &dev) != 0)
		return;
	if (dev->bustype == DRM_BUS_PCI && dev->deviceinfo.pci) {
		d->has_pci = true;
		d->pci_vendor = dev->deviceinfo.pci->vendor_id;
		d->pci_device = dev->deviceinfo.pci->device_id;
	}
	drmFreeDevice(&dev);
}
