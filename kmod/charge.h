/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem charges: one record per charged placement (a TTM resource), who
 * owns it, and how long.
 */
#ifndef GPUMEM_CHARGE_H
#define GPUMEM_CHARGE_H

#include <linux/types.h>

struct ttm_resource;
struct drm_gem_object;

/* One charged placement; private to charge.c. */
struct gpumem_charge;

int gpumem_charge_init(void);
void gpumem_charge_exit(void);

int gpumem_charge_new(int minor, u8 region, u64 bytes, bool quiet,
		      struct gpumem_charge **chargep);
void gpumem_charge_commit(struct gpumem_charge *charge,
			  struct ttm_resource *res, struct drm_gem_object *obj);
void gpumem_charge_cancel(struct gpumem_charge *charge);
void gpumem_charge_release(struct ttm_resource *res);
int gpumem_charge_device_inert(int minor);
void gpumem_charge_forget_device(int minor);

#endif /* GPUMEM_CHARGE_H */
