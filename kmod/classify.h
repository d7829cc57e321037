/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem classifier: which region (vram / gtt / system / other) a TTM memory
 * type of a given driver is, and in which unit the driver sized its resource
 * managers. The only place that knows per-driver memory-type numbers.
 */
#ifndef GPUMEM_CLASSIFY_H
#define GPUMEM_CLASSIFY_H

#include <linux/types.h>
#include "../uapi/gpumem.h"

/* Number of regions (enum gpumem_region). */
#define GPUMEM_REGION_COUNT	(GPUMEM_REGION_MAX + 1)

/* Largest TTM_NUM_MEM_TYPES of any kernel we know (9 on 7.3). */
#define GPUMEM_MAX_MEM_TYPES 16

/**
 * struct gpumem_driver_info - what gpumem knows about one DRM driver's TTM use
 * @name: the DRM driver name (&drm_driver.name)
 * @region: region of each TTM memory type, as enum gpumem_region + 1
 *	(0: not listed, use the generic rule)
 * @stolen_last: memory type TTM_NUM_MEM_TYPES - 1 is stolen memory (xe)
 * @bytes_mask: memory types whose manager size is in bytes (else pages)
 * @nocap_mask: memory types whose manager size is no capacity at all
 * @vram_helper: a driver of the GEM VRAM helpers in the kernels that have
 *	them in it: its GEM objects are TTM buffer objects only when the
 *	device has &drm_device.vram_mm (bochs on 7.x, ast on 6.12+ and hibmc
 *	on 7.x use the shmem helpers instead: not TTM at all)
 */
struct gpumem_driver_info {
	const char *name;
	u8 region[GPUMEM_MAX_MEM_TYPES];
	bool stolen_last;
	u16 bytes_mask;
	u16 nocap_mask;
	bool vram_helper;
};

const struct gpumem_driver_info *gpumem_driver_lookup(const char *name);
enum gpumem_region gpumem_classify(const struct gpumem_driver_info *drv,
				   u32 mem_type, u32 num_mem_types,
				   bool use_tt);
bool gpumem_manager_capacity(const struct gpumem_driver_info *drv,
			     u32 mem_type, u64 size, unsigned int page_shift,
			     u64 *bytes);
const char *gpumem_region_name(enum gpumem_region region);

/**
 * gpumem_region_counted() - whether placements in a region are charged
 * @region: enum gpumem_region
 *
 * VRAM and GTT managers are hooked: their placements are charged, limited
 * and counted per process, and their use and capacity are read. Other
 * regions are only seen by walks.
 *
 * Return: true for VRAM and GTT.
 */
static inline bool gpumem_region_counted(unsigned int region)
{
	return region == GPUMEM_REGION_VRAM || region == GPUMEM_REGION_GTT;
}

#endif /* GPUMEM_CLASSIFY_H */
