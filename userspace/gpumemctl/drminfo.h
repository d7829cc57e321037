/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drminfo.h - what libdrm adds to a gpumem device: PCI vendor/device ids,
 * read from sysfs. Optional: without them the device keeps just what
 * netlink said.
 */
#ifndef GPUMEMCTL_DRMINFO_H
#define GPUMEMCTL_DRMINFO_H

#include "query.h"

/* Fill d->has_pci, pci_vendor and pci_device where libdrm can. */
void gm_drm_enrich(struct gm_dev *d);

#endif
