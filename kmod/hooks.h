/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem hooks: wrappers around a TTM device's VRAM/GTT resource managers
 * (charge and limit at allocation, uncharge at free) and its eviction
 * callback (no eviction on behalf of a denied allocation).
 */
#ifndef GPUMEM_HOOKS_H
#define GPUMEM_HOOKS_H

struct gpumem_device_listener;

extern const struct gpumem_device_listener gpumem_hooks_listener;
void gpumem_hooks_exit(void);

#endif /* GPUMEM_HOOKS_H */
