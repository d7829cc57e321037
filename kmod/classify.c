// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem classifier: per-driver TTM memory-type table.
 *
 * Sources (read in each kernel tree we support):
 *   amdgpu   amdgpu_ttm.h     PRIV+0..5 = GDS, GWS, OA, PREEMPT, DOORBELL,
 *                             MMIO_REMAP; VRAM and GTT managers sized in bytes
 *   xe       xe_bo.h          VRAM0 = VRAM, VRAM1 = PRIV,
 *                             STOLEN = TTM_NUM_MEM_TYPES - 1; VRAM in bytes
 *   i915     intel_region_ttm LMEMn = PRIV+n, stolen = TTM_PL_VRAM
 *   vmwgfx   vmwgfx_drv.h     GMR/MOB/SYSTEM = PRIV+0/1/2
 *   nouveau, radeon, qxl (PRIV = surface BAR), loongson and the
 *   drm_gem_vram_helper drivers: plain VRAM/TT, sized in pages.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "classify.h"

#define PL_SYSTEM	0
#define PL_TT		1
#define PL_VRAM		2
#define PL_PRIV		3

#define R(r)		(GPUMEM_REGION_##r + 1)
#define VRAM_HELPER(drv)						\
	{ .name = drv, .region = { [PL_SYSTEM] = R(SYSTEM),		\
				   [PL_VRAM] = R(VRAM) },		\
	  .vram_helper = true }

static const struct gpumem_driver_info gpumem_drivers[] = {
	{
		.name = "amdgpu",
		.region = {
			[PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			[PL_VRAM] = R(VRAM),
			[PL_PRIV + 0] = R(OTHER),	/* GDS */
			[PL_PRIV + 1] = R(OTHER),	/* GWS */
			[PL_PRIV + 2] = R(OTHER),	/* OA */
			[PL_PRIV + 3] = R(GTT),		/* PREEMPT (GTT) */
			[PL_PRIV + 4] = R(OTHER),	/* DOORBELL */
			[PL_PRIV + 5] = R(OTHER),	/* MMIO_REMAP */
		},
		.bytes_mask = BIT(PL_TT) | BIT(PL_VRAM),
		.nocap_mask = BIT(PL_PRIV + 3),	/* preempt mgr: nominal 1 << 30 */
	},
	{
		.name = "xe",
		.region = {
			[PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			[PL_VRAM] = R(VRAM), [PL_PRIV] = R(VRAM),
		},
		.stolen_last = true,
		.bytes_mask = BIT(PL_VRAM) | BIT(PL_PRIV),
	},
	{
		.name = "i915",
		.region = {
			[PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			[PL_VRAM] = R(OTHER),		/* stolen */
			[PL_PRIV + 0] = R(VRAM), [PL_PRIV + 1] = R(VRAM),
			[PL_PRIV + 2] = R(VRAM), [PL_PRIV + 3] = R(VRAM),
		},
	},
	{
		.name = "vmwgfx",
		.region = {
			[PL_SYSTEM] = R(SYSTEM), [PL_VRAM] = R(VRAM),
			[PL_PRIV + 0] = R(GTT),		/* GMR */
			[PL_PRIV + 1] = R(GTT),		/* MOB */
			[PL_PRIV + 2] = R(SYSTEM),	/* VMW_PL_SYSTEM */
		},
	},
	{
		.name = "qxl",
		.region = {
			[PL_SYSTEM] = R(SYSTEM), [PL_VRAM] = R(VRAM),
			[PL_PRIV] = R(VRAM),		/* surface BAR */
		},
	},
	{
		.name = "nouveau",
		.region = { [PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			    [PL_VRAM] = R(VRAM) },
	},
	{
		.name = "radeon",
		.region = { [PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			    [PL_VRAM] = R(VRAM) },
	},
	{
		.name = "loongson",
		.region = { [PL_SYSTEM] = R(SYSTEM), [PL_TT] = R(GTT),
			    [PL_VRAM] = R(VRAM) },
	},
	/* drm_gem_vram_helper users (TTM only while they use the helper). */
	VRAM_HELPER("bochs-drm"),
	VRAM_HELPER("ast"),
	VRAM_HELPER("hibmc"),
	VRAM_HELPER("vboxvideo"),
};

/**
 * gpumem_driver_lookup() - find the classification table of a DRM driver
 * @name: &drm_driver.name
 *
 * Only drivers listed here have every GEM object embedded in a
 * &struct ttm_buffer_object when they own a TTM device; everything else is
 * accounted as system memory.
 *
 * Return: the driver's entry, or NULL when the driver is not a TTM driver
 * gpumem knows.
 */
const struct gpumem_driver_info *gpumem_driver_lookup(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(gpumem_drivers); i++)
		if (!strcmp(gpumem_drivers[i].name, name))
			return &gpumem_drivers[i];
	return NULL;
}

/**
 * gpumem_classify() - region of a TTM memory type
 * @drv: the driver's table entry (may be NULL: generic rule only)
 * @mem_type: &ttm_resource.mem_type of the buffer's current placement
 * @num_mem_types: TTM_NUM_MEM_TYPES of the running kernel
 * @use_tt: &ttm_resource_manager.use_tt of that memory type's manager
 *
 * Return: the region. Memory types a driver's table does not list follow the
 * generic rule: SYSTEM is system memory, a manager with use_tt is GTT,
 * TTM_PL_VRAM is device-local and anything else is other.
 */
enum gpumem_region gpumem_classify(const struct gpumem_driver_info *drv,
				   u32 mem_type, u32 num_mem_types,
				   bool use_tt)
{
	if (drv && mem_type < GPUMEM_MAX_MEM_TYPES) {
		if (drv->stolen_last && num_mem_types &&
		    mem_type == num_mem_types - 1)
			return GPUMEM_REGION_OTHER;
		if (drv->region[mem_type])
			return drv->region[mem_type] - 1;
	}
	if (mem_type == PL_SYSTEM)
		return GPUMEM_REGION_SYSTEM;
	if (use_tt)
		return GPUMEM_REGION_GTT;
	if (mem_type == PL_VRAM)
		return GPUMEM_REGION_VRAM;
	return GPUMEM_REGION_OTHER;
}

/**
 * gpumem_manager_capacity() - a resource manager's size in bytes
 * @drv: the driver's table entry (may be NULL)
 * @mem_type: the manager's memory type
 * @size: &ttm_resource_manager.size
 * @page_shift: PAGE_SHIFT (a parameter so tests can vary it)
 * @bytes: the capacity in bytes, on success
 *
 * Drivers size their managers in bytes or in pages; see the table.
 *
 * Return: false when the manager's size is not a capacity (zero, or nominal).
 */
bool gpumem_manager_capacity(const struct gpumem_driver_info *drv,
			     u32 mem_type, u64 size, unsigned int page_shift,
			     u64 *bytes)
{
	bool in_bytes = false;

	if (!size)
		return false;
	if (drv && mem_type < GPUMEM_MAX_MEM_TYPES) {
		if (drv->nocap_mask & BIT(mem_type))
			return false;
		in_bytes = drv->bytes_mask & BIT(mem_type);
	}
	if (in_bytes) {
		*bytes = size;
		return true;
	}
	if (size > (U64_MAX >> page_shift))
		return false;
	*bytes = size << page_shift;
	return true;
}

/**
 * gpumem_region_name() - the name of a region as debugfs and the CLI print it
 * @region: the region
 *
 * Return: "vram", "gtt", "system", "other", or "?" for an invalid value.
 */
const char *gpumem_region_name(enum gpumem_region region)
{
	static const char * const names[GPUMEM_REGION_COUNT] = {
		[GPUMEM_REGION_VRAM] = "vram",
		[GPUMEM_REGION_GTT] = "gtt",
		[GPUMEM_REGION_SYSTEM] = "system",
		[GPUMEM_REGION_OTHER] = "other",
	};

	return (unsigned int)region < GPUMEM_REGION_COUNT ? names[region] : "?";
}
