// SPDX-License-Identifier: GPL-2.0
/*
 * stats_fields.c - the counters of stats-get (struct gm_stats), as
 * `gpumemctl stats` prints them (NAME VALUE table, JSON object) and gpumemd
 * exports them (one family each: base units, counters in _total): one
 * list, gm_stats_fieldset().
 */
#include <stddef.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "query.h"

#define STAT(key_, attr_, get_) \
	.key = (key_), GM_ATTR(struct gm_stats, raw, GPUMEM_A_STATS_##attr_), .get = (get_)

/* in gpumemctl's order; gpumemd writes the families in the attributes' */
static const struct gm_field stats_fields[] = {
	{ STAT("walks", WALKS, gm_get_attr_u64),
	  .metric = "gpumem_walks_total", .flags = GM_F_COUNTER,
	  .help = "Walks of the DRM clients and buffer objects (held view, debugfs processes)." },
	{ STAT("walks_failed", WALKS_FAILED, gm_get_attr_u64),
	  .metric = "gpumem_walks_failed_total", .flags = GM_F_COUNTER,
	  .help = "Walks that failed (out of memory)." },
	/* a GM_V_NS value: ns in the table and JSON, seconds as a metric */
	{ STAT("last_walk_ns", LAST_WALK_NS, gm_get_attr_ns),
	  .metric = "gpumem_last_walk_duration_seconds",
	  .help = "Duration of the last walk in seconds." },
	{ STAT("last_walk_clients", LAST_WALK_CLIENTS, gm_get_attr_u64),
	  .metric = "gpumem_last_walk_clients",
	  .help = "DRM clients the last walk saw." },
	{ STAT("last_walk_bos", LAST_WALK_BOS, gm_get_attr_u64),
	  .metric = "gpumem_last_walk_buffers",
	  .help = "Buffer objects the last walk saw." },
	{ STAT("last_walk_skipped", LAST_WALK_SKIPPED, gm_get_attr_u64),
	  .metric = "gpumem_last_walk_skipped_buffers",
	  .help = "Buffer objects the last walk found busy (reserved) and left out." },
	{ STAT("devices", DEVICES, gm_get_attr_u64),
	  .metric = "gpumem_devices",
	  .help = "DRM devices gpumem knows." },
	{ STAT("hook_charged", CHARGED, gm_get_attr_u64),
	  .metric = "gpumem_hook_charged_total", .flags = GM_F_COUNTER,
	  .help = "Charge records tied to a placement since the module was loaded." },
	{ STAT("hook_uncharged", UNCHARGED, gm_get_attr_u64),
	  .metric = "gpumem_hook_uncharged_total", .flags = GM_F_COUNTER,
	  .help = "Charge records given back (placement freed, or its device gone)." },
	{ STAT("hook_charge_failed", CHARGE_FAILED, gm_get_attr_u64),
	  .metric = "gpumem_hook_charge_failed_total", .flags = GM_F_COUNTER,
	  .help = "Placements left unaccounted: gpumem had no memory for their record." },
	{ STAT("hook_denied", DENIED, gm_get_attr_u64),
	  .metric = "gpumem_hook_denied_total", .flags = GM_F_COUNTER,
	  .help = "Placements refused by a limit in enforce mode." },
	{ STAT("hook_guard_refused", GUARD_REFUSED, gm_get_attr_u64),
	  .metric = "gpumem_hook_guard_refused_total", .flags = GM_F_COUNTER,
	  .help = "Evictions refused by the eviction guard (for a task just denied)." },
	{ STAT("hook_events_sent", EVENTS_SENT, gm_get_attr_u64),
	  .metric = "gpumem_hook_events_sent_total", .flags = GM_F_COUNTER,
	  .help = "Events the module delivered to its events group." },
	{ STAT("hook_events_suppressed", EVENTS_SUPPRESSED, gm_get_attr_u64),
	  .metric = "gpumem_hook_events_suppressed_total", .flags = GM_F_COUNTER,
	  .help = "Events the module dropped by a rate limit." },
	{ STAT("hook_events_lost", EVENTS_LOST, gm_get_attr_u64),
	  .metric = "gpumem_hook_events_lost_total", .flags = GM_F_COUNTER,
	  .help = "Events the module numbered but could not build or deliver (sequence gaps)." },
	{ STAT("hook_live_records", LIVE_RECORDS, gm_get_attr_u64),
	  .metric = "gpumem_charge_records",
	  .help = "Charge records alive now." },
	{ STAT("hook_unattributed", UNATTRIBUTED, gm_get_attr_u64),
	  .metric = "gpumem_hook_unattributed_total", .flags = GM_F_COUNTER | GM_F_OMIT,
	  .help = "VRAM and GTT placements charged to nobody (kernel workers without a process's mm, buffers placed before the module was loaded)." },
	{ STAT("hook_resv_released", RESV_RELEASED, gm_get_attr_u64),
	  .metric = "gpumem_hook_resv_released_total", .flags = GM_F_COUNTER | GM_F_OMIT,
	  .help = "Buffer reservations a driver kept after a denied placement, released by the module." },
	{ STAT("dmem_unwatched", DMEM_UNWATCHED, gm_get_attr_u64),
	  .metric = "gpumem_dmem_unwatched_total", .flags = GM_F_COUNTER | GM_F_OMIT,
	  .help = "Calls of the kernel's dmem_cgroup_try_charge() the module's probe missed: a dmem refusal among them sent no event." },
};

struct gm_fields gm_stats_fieldset(void)
{
	return (struct gm_fields){
		.v = stats_fields, .n = sizeof(stats_fields) / sizeof(*stats_fields),
	};
}
