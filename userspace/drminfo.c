// SPDX-License-Identifier: GPL-2.0
/*
 * drminfo.c - libdrm look-ups for `gpumemctl devices`.
 *
 * The PCI ids come from sysfs through drmGetDeviceFromDevId() without
 * opening the device; the description needs an open node
 * (drmGetVersion()): the render node when the device has one, else the
 * primary node (then drmGetDevice2() on it is the fallback for the ids).
 * Every failure just leaves the fields unset.
 */
#include "drminfo.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#define GM_DRM_MAJOR 226

static void take_pci(struct gm_dev *d, drmDevicePtr dev)
{
	if (dev && dev->bustype == DRM_BUS_PCI && dev->deviceinfo.pci) {
		d->has_pci = true;
		d->pci_vendor = dev->deviceinfo.pci->vendor_id;
		d->pci_device = dev->deviceinfo.pci->device_id;
	}
}

void gm_drm_enrich(struct gm_dev *d)
{
	char primary[64], node[256] = "";
	drmDevicePtr dev = NULL;
	drmVersionPtr ver;
	struct stat st;
	int fd;

	snprintf(primary, sizeof(primary), "%s/card%u", DRM_DIR_NAME, d->id);
	/* In another device namespace cardN may be some other device. */
	if (stat(primary, &st) < 0 || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != GM_DRM_MAJOR || minor(st.st_rdev) != d->id)
		return;

	if (drmGetDeviceFromDevId(st.st_rdev, 0, &dev) == 0) {
		take_pci(d, dev);
		if ((dev->available_nodes & (1 << DRM_NODE_RENDER)) && dev->nodes[DRM_NODE_RENDER])
			snprintf(node, sizeof(node), "%s", dev->nodes[DRM_NODE_RENDER]);
		drmFreeDevice(&dev);
	}

	fd = open(node[0] ? node : primary, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && node[0])
		fd = open(primary, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return;
	if (!d->has_pci && drmGetDevice2(fd, 0, &dev) == 0) {
		take_pci(d, dev);
		drmFreeDevice(&dev);
	}
	ver = drmGetVersion(fd);
	if (ver) {
		if (ver->desc && ver->desc[0] && !d->desc)
			d->desc = strdup(ver->desc);
		drmFreeVersion(ver);
	}
	close(fd);
}
