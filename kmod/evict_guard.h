/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem eviction guard: a task whose placement was denied may not make TTM
 * evict anything of that device and memory type until it is back in user
 * space.
 */
#ifndef GPUMEM_EVICT_GUARD_H
#define GPUMEM_EVICT_GUARD_H

#include <linux/types.h>

struct drm_gem_object;

bool gpumem_guard_denied_before(int minor, u32 mem_type);
void gpumem_guard_enter(int minor, u32 mem_type, struct drm_gem_object *obj);
bool gpumem_guard_allows_eviction(int minor, u32 mem_type);
void gpumem_guard_exit(void);

#endif /* GPUMEM_EVICT_GUARD_H */
