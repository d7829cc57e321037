/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/gpumem.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_GPUMEM_H
#define _UAPI_LINUX_GPUMEM_H

#define GPUMEM_FAMILY_NAME	"gpumem"
#define GPUMEM_FAMILY_VERSION	1

/**
 * enum gpumem_region - Where the memory of a buffer object lives.
 * @GPUMEM_REGION_VRAM: device-local memory (TTM_PL_VRAM, i915 LMEM, xe
 *   VRAM0/1)
 * @GPUMEM_REGION_GTT: system memory mapped for the GPU (TTM_PL_TT and GTT-like
 *   types)
 * @GPUMEM_REGION_SYSTEM: CPU memory, and every object of a non-TTM driver
 * @GPUMEM_REGION_OTHER: stolen memory and driver-private on-chip resources
 */
enum gpumem_region {
	GPUMEM_REGION_VRAM,
	GPUMEM_REGION_GTT,
	GPUMEM_REGION_SYSTEM,
	GPUMEM_REGION_OTHER,

	/* private: */
	__GPUMEM_REGION_MAX,
	GPUMEM_REGION_MAX = (__GPUMEM_REGION_MAX - 1)
};

/**
 * enum gpumem_limit_mode - What happens when a cgroup would exceed its max
 *   limit.
 * @GPUMEM_LIMIT_MODE_ENFORCE: deny the VRAM placement and report it
 * @GPUMEM_LIMIT_MODE_MONITOR: allow the placement and report it
 */
enum gpumem_limit_mode {
	GPUMEM_LIMIT_MODE_ENFORCE,
	GPUMEM_LIMIT_MODE_MONITOR,
};

/**
 * enum gpumem_proc_view - Which question a process dump answers.
 * @GPUMEM_PROC_VIEW_CHARGED: bytes of the VRAM/GTT placements each process
 *   allocated and that are still resident and reachable, from counters kept at
 *   allocation and free time (cost independent of the number of buffers);
 *   placements made by kernel threads or before the module was loaded count
 *   for nobody
 * @GPUMEM_PROC_VIEW_HELD: bytes of every buffer each process holds a handle
 *   to, in every region and driver, from a walk of all clients and buffers
 *   (cost grows with the number of buffers); adds shared and owned
 */
enum gpumem_proc_view {
	GPUMEM_PROC_VIEW_CHARGED,
	GPUMEM_PROC_VIEW_HELD,
};

/**
 * enum gpumem_event_type
 * @GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED: a placement would exceed a max limit
 *   (denied in enforce mode)
 * @GPUMEM_EVENT_TYPE_HIGH_CROSSED: a cgroup's usage crossed its high (soft)
 *   limit
 * @GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD: a device region's usage crossed the
 *   threshold percentage
 * @GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL: a VRAM resource manager had no block
 *   for a placement although its free bytes were at least the size asked for
 *   (fragmentation; TTM then evicts to make room, or the allocation fails):
 *   requested is the size, usage the manager's bytes in use, limit its
 *   capacity
 * @GPUMEM_EVENT_TYPE_LEAK_SUSPECT: a process's (pid set) or a cgroup's own (no
 *   pid) charged bytes on a device and region rose in every one of "windows"
 *   windows in a row without falling back (a staircase): usage is the bytes
 *   charged now, growth how much the lowest point rose over those windows,
 *   rate that per second; one event per rise (module parameters
 *   leak_window_ms, leak_windows, leak_slack)
 * @GPUMEM_EVENT_TYPE_ORPHANED: a process (pid, comm) exited leaving at least
 *   orphan_event_bytes (module parameter) resident on a device and region,
 *   kept by others: usage is those bytes, buffers the placements, holder the
 *   live pids reaching them through a handle, kinds what else keeps them;
 *   cgroup-id the cgroup still charged (the allocator's). One event per
 *   process, device and region, a few seconds after the exit
 */
enum gpumem_event_type {
	GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED,
	GPUMEM_EVENT_TYPE_HIGH_CROSSED,
	GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD,
	GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL,
	GPUMEM_EVENT_TYPE_LEAK_SUSPECT,
	GPUMEM_EVENT_TYPE_ORPHANED,
};

/**
 * enum gpumem_orphan_kind - what, besides processes with a handle, keeps
 *   orphaned buffers
 * @GPUMEM_ORPHAN_KIND_KERNEL: an in-kernel DRM client's handle
 * @GPUMEM_ORPHAN_KIND_DMA_BUF: exported as a dma-buf (a dma-buf fd or another
 *   device's importer)
 * @GPUMEM_ORPHAN_KIND_MAPPING: no handle and no dma-buf reach them (CPU
 *   mappings)
 * @GPUMEM_ORPHAN_KIND_BUSY: handles the walk could not read (reservation busy)
 */
enum gpumem_orphan_kind {
	GPUMEM_ORPHAN_KIND_KERNEL = 1,
	GPUMEM_ORPHAN_KIND_DMA_BUF = 2,
	GPUMEM_ORPHAN_KIND_MAPPING = 4,
	GPUMEM_ORPHAN_KIND_BUSY = 8,
};

/**
 * enum gpumem_dmem_source - Who registered a dmem cgroup region
 *   (kernel/cgroup/dmem.c) for a device's resource manager: its placements are
 *   limited by that region's dmem.max, never by a gpumem max.
 * @GPUMEM_DMEM_SOURCE_DRIVER: the driver (amdgpu, xe, nouveau on 7.3)
 * @GPUMEM_DMEM_SOURCE_GPUMEM: gpumem, for a manager its driver registers none
 *   for (module parameter dmem_provider)
 */
enum gpumem_dmem_source {
	GPUMEM_DMEM_SOURCE_DRIVER,
	GPUMEM_DMEM_SOURCE_GPUMEM,
};

/**
 * enum gpumem_limit_source - Which controller an event's limit is.
 * @GPUMEM_LIMIT_SOURCE_GPUMEM: a gpumem limit (also when the attribute is
 *   absent)
 * @GPUMEM_LIMIT_SOURCE_DMEM: the dmem cgroup controller: its charge for the
 *   placement was refused (dmem.max of the cgroup or an ancestor), before TTM
 *   tries to make room by evicting the cgroup's own buffers
 */
enum gpumem_limit_source {
	GPUMEM_LIMIT_SOURCE_GPUMEM,
	GPUMEM_LIMIT_SOURCE_DMEM,
};

enum {
	GPUMEM_A_USAGE_REGION = 1,
	GPUMEM_A_USAGE_BYTES,
	GPUMEM_A_USAGE_PAD,

	__GPUMEM_A_USAGE_MAX,
	GPUMEM_A_USAGE_MAX = (__GPUMEM_A_USAGE_MAX - 1)
};

enum {
	GPUMEM_A_DEV_REGION_REGION = 1,
	GPUMEM_A_DEV_REGION_CAPACITY,
	GPUMEM_A_DEV_REGION_USED,
	GPUMEM_A_DEV_REGION_PAD,
	GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES,
	GPUMEM_A_DEV_REGION_LARGEST_FREE,
	GPUMEM_A_DEV_REGION_FREE_BLOCKS,
	GPUMEM_A_DEV_REGION_DMEM,

	__GPUMEM_A_DEV_REGION_MAX,
	GPUMEM_A_DEV_REGION_MAX = (__GPUMEM_A_DEV_REGION_MAX - 1)
};

enum {
	GPUMEM_A_DEV_DMEM_NAME = 1,
	GPUMEM_A_DEV_DMEM_SOURCE,
	GPUMEM_A_DEV_DMEM_CAPACITY,
	GPUMEM_A_DEV_DMEM_PAD,

	__GPUMEM_A_DEV_DMEM_MAX,
	GPUMEM_A_DEV_DMEM_MAX = (__GPUMEM_A_DEV_DMEM_MAX - 1)
};

enum {
	GPUMEM_A_DEV_ID = 1,
	GPUMEM_A_DEV_NAME,
	GPUMEM_A_DEV_DRIVER,
	GPUMEM_A_DEV_UNIQUE,
	GPUMEM_A_DEV_TTM,
	GPUMEM_A_DEV_REGION,
	GPUMEM_A_DEV_DESC,
	GPUMEM_A_DEV_RENDER_ID,

	__GPUMEM_A_DEV_MAX,
	GPUMEM_A_DEV_MAX = (__GPUMEM_A_DEV_MAX - 1)
};

enum {
	GPUMEM_A_PROC_PID = 1,
	GPUMEM_A_PROC_COMM,
	GPUMEM_A_PROC_CGROUP_ID,
	GPUMEM_A_PROC_CGROUP_PATH,
	GPUMEM_A_PROC_DEV_ID,
	GPUMEM_A_PROC_USAGE,
	GPUMEM_A_PROC_SHARED,
	GPUMEM_A_PROC_OWNED,
	GPUMEM_A_PROC_BOS,
	GPUMEM_A_PROC_PAD,
	GPUMEM_A_PROC_VIEW,
	GPUMEM_A_PROC_SKIPPED,

	__GPUMEM_A_PROC_MAX,
	GPUMEM_A_PROC_MAX = (__GPUMEM_A_PROC_MAX - 1)
};

enum {
	GPUMEM_A_BUF_DEV_ID = 1,
	GPUMEM_A_BUF_OWNER,
	GPUMEM_A_BUF_HANDLE,
	GPUMEM_A_BUF_SIZE,
	GPUMEM_A_BUF_REGION,
	GPUMEM_A_BUF_MEM_TYPE,
	GPUMEM_A_BUF_SHARED,
	GPUMEM_A_BUF_HOLDER,
	GPUMEM_A_BUF_PAD,

	__GPUMEM_A_BUF_MAX,
	GPUMEM_A_BUF_MAX = (__GPUMEM_A_BUF_MAX - 1)
};

enum {
	GPUMEM_A_STATS_WALKS = 1,
	GPUMEM_A_STATS_WALKS_FAILED,
	GPUMEM_A_STATS_LAST_WALK_NS,
	GPUMEM_A_STATS_LAST_WALK_CLIENTS,
	GPUMEM_A_STATS_LAST_WALK_BOS,
	GPUMEM_A_STATS_DEVICES,
	GPUMEM_A_STATS_PAD,
	GPUMEM_A_STATS_LAST_WALK_SKIPPED,
	GPUMEM_A_STATS_CHARGED,
	GPUMEM_A_STATS_UNCHARGED,
	GPUMEM_A_STATS_CHARGE_FAILED,
	GPUMEM_A_STATS_DENIED,
	GPUMEM_A_STATS_GUARD_REFUSED,
	GPUMEM_A_STATS_EVENTS_SENT,
	GPUMEM_A_STATS_EVENTS_SUPPRESSED,
	GPUMEM_A_STATS_EVENTS_LOST,
	GPUMEM_A_STATS_LIVE_RECORDS,
	GPUMEM_A_STATS_UNATTRIBUTED,
	GPUMEM_A_STATS_RESV_RELEASED,
	GPUMEM_A_STATS_DMEM_UNWATCHED,

	__GPUMEM_A_STATS_MAX,
	GPUMEM_A_STATS_MAX = (__GPUMEM_A_STATS_MAX - 1)
};

enum {
	GPUMEM_A_LIMIT_CGROUP_ID = 1,
	GPUMEM_A_LIMIT_CGROUP_PATH,
	GPUMEM_A_LIMIT_DEV_ID,
	GPUMEM_A_LIMIT_REGION,
	GPUMEM_A_LIMIT_MAX_BYTES,
	GPUMEM_A_LIMIT_HIGH_BYTES,
	GPUMEM_A_LIMIT_MODE,
	GPUMEM_A_LIMIT_USAGE,
	GPUMEM_A_LIMIT_DENIED,
	GPUMEM_A_LIMIT_PAD,
	GPUMEM_A_LIMIT_REPLACE,

	__GPUMEM_A_LIMIT_MAX,
	GPUMEM_A_LIMIT_MAX = (__GPUMEM_A_LIMIT_MAX - 1)
};

enum {
	GPUMEM_A_EVENT_TYPE = 1,
	GPUMEM_A_EVENT_SEQ,
	GPUMEM_A_EVENT_CGROUP_ID,
	GPUMEM_A_EVENT_CGROUP_PATH,
	GPUMEM_A_EVENT_PID,
	GPUMEM_A_EVENT_COMM,
	GPUMEM_A_EVENT_DEV_ID,
	GPUMEM_A_EVENT_REGION,
	GPUMEM_A_EVENT_REQUESTED,
	GPUMEM_A_EVENT_USAGE,
	GPUMEM_A_EVENT_LIMIT,
	GPUMEM_A_EVENT_MODE,
	GPUMEM_A_EVENT_DENIED,
	GPUMEM_A_EVENT_SUPPRESSED,
	GPUMEM_A_EVENT_PAD,
	GPUMEM_A_EVENT_GROWTH,
	GPUMEM_A_EVENT_RATE,
	GPUMEM_A_EVENT_WINDOW_MS,
	GPUMEM_A_EVENT_WINDOWS,
	GPUMEM_A_EVENT_BUFFERS,
	GPUMEM_A_EVENT_HOLDER,
	GPUMEM_A_EVENT_KINDS,
	GPUMEM_A_EVENT_REQ_PID,
	GPUMEM_A_EVENT_REQ_COMM,
	GPUMEM_A_EVENT_SOURCE,
	GPUMEM_A_EVENT_DMEM_REGION,

	__GPUMEM_A_EVENT_MAX,
	GPUMEM_A_EVENT_MAX = (__GPUMEM_A_EVENT_MAX - 1)
};

enum {
	GPUMEM_A_ORPHAN_DEV_ID = 1,
	GPUMEM_A_ORPHAN_REGION,
	GPUMEM_A_ORPHAN_BYTES,
	GPUMEM_A_ORPHAN_BUFFERS,
	GPUMEM_A_ORPHAN_CGROUP_ID,
	GPUMEM_A_ORPHAN_CGROUP_PATH,
	GPUMEM_A_ORPHAN_PID,
	GPUMEM_A_ORPHAN_COMM,
	GPUMEM_A_ORPHAN_SINCE_MS,
	GPUMEM_A_ORPHAN_HOLDER,
	GPUMEM_A_ORPHAN_KINDS,
	GPUMEM_A_ORPHAN_PAD,
	GPUMEM_A_ORPHAN_HOLDERS_DROPPED,

	__GPUMEM_A_ORPHAN_MAX,
	GPUMEM_A_ORPHAN_MAX = (__GPUMEM_A_ORPHAN_MAX - 1)
};

enum {
	GPUMEM_A_LEAK_DEV_ID = 1,
	GPUMEM_A_LEAK_REGION,
	GPUMEM_A_LEAK_PID,
	GPUMEM_A_LEAK_COMM,
	GPUMEM_A_LEAK_CGROUP_ID,
	GPUMEM_A_LEAK_CGROUP_PATH,
	GPUMEM_A_LEAK_USAGE,
	GPUMEM_A_LEAK_GROWTH,
	GPUMEM_A_LEAK_RATE,
	GPUMEM_A_LEAK_WINDOW_MS,
	GPUMEM_A_LEAK_WINDOWS,
	GPUMEM_A_LEAK_SINCE_MS,
	GPUMEM_A_LEAK_PAD,

	__GPUMEM_A_LEAK_MAX,
	GPUMEM_A_LEAK_MAX = (__GPUMEM_A_LEAK_MAX - 1)
};

enum {
	GPUMEM_CMD_DEV_GET = 1,
	GPUMEM_CMD_PROC_GET,
	GPUMEM_CMD_BUF_GET,
	GPUMEM_CMD_STATS_GET,
	GPUMEM_CMD_LIMIT_SET,
	GPUMEM_CMD_LIMIT_GET,
	GPUMEM_CMD_LIMIT_DEL,
	GPUMEM_CMD_CGROUP_GET,
	GPUMEM_CMD_QUOTA_EVENT,
	GPUMEM_CMD_ORPHAN_GET,
	GPUMEM_CMD_LEAK_GET,

	__GPUMEM_CMD_MAX,
	GPUMEM_CMD_MAX = (__GPUMEM_CMD_MAX - 1)
};

#define GPUMEM_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_GPUMEM_H */
