/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drminfo.h - what libdrm adds to a gpumem device: PCI vendor/device ids and
 * the driver's description. Optional: without access to /dev/dri/cardN the
 * device keeps just what netlink said.
 */
#ifndef GPUMEMCTL_DRMINFO_H
#define GPUMEMCTL_DRMINFO_H

#include "query.h"

/* Fill d->has_pci, pci_vendor, pci_device and desc where libdrm can. */
void gm_drm_enrich(struct gm_dev *d);

#endif
