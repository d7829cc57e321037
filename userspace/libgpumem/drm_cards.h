/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drm_cards.h - the DRM cards sysfs lists (/sys/class/drm/cardN) and the
 * bus ids of their devices, read without opening any DRM node; for
 * gpumem-oci-hook (a PCI address to its card) and `gpumemctl cdi generate`.
 */
#ifndef GPUMEM_DRM_CARDS_H
#define GPUMEM_DRM_CARDS_H

#include <stdbool.h>
#include <stddef.h>

/* One card: its number and its device's bus id (the sysfs name). */
struct gm_drm_card {
	int card;		/* N of /dev/dri/cardN */
	char bus[64];		/* "0000:03:00.0", "vgem", ... */
};

/*
 * gm_drm_cards: the cards below ROOT/sys/class/drm ("" for the host's; a
 * connector such as card0-VGA-1 is not a card), at most max of them, in
 * directory order. -1 with errno when the directory cannot be read.
 */
int gm_drm_cards(const char *root, struct gm_drm_card *cards, size_t max, size_t *n);

/* A PCI address as sysfs names it: dddd:bb:dd.f */
bool gm_is_pci_address(const char *s);

#endif /* GPUMEM_DRM_CARDS_H */
