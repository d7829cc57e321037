/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gpumem userspace API: numbers shared by the kernel module and its tools.
 */
#ifndef _UAPI_GPUMEM_H
#define _UAPI_GPUMEM_H

/**
 * enum gpumem_region - where the memory of a buffer object lives
 * @GPUMEM_REGION_VRAM: device-local memory (TTM_PL_VRAM, i915 LMEM, ...)
 * @GPUMEM_REGION_GTT: system memory mapped for the GPU (TTM_PL_TT, ...)
 * @GPUMEM_REGION_SYSTEM: CPU memory, and every object of a non-TTM driver
 * @GPUMEM_REGION_OTHER: stolen memory and driver-private on-chip resources
 * @GPUMEM_REGION_COUNT: number of regions
 */
enum gpumem_region {
	GPUMEM_REGION_VRAM,
	GPUMEM_REGION_GTT,
	GPUMEM_REGION_SYSTEM,
	GPUMEM_REGION_OTHER,
	GPUMEM_REGION_COUNT,
};

#endif /* _UAPI_GPUMEM_H */
