// SPDX-License-Identifier: GPL-2.0
/* Generated from uapi/gpumem.yaml by scripts/gen-nlspec.py: do not edit. */
#include "nlspec.h"

#include <stddef.h>

const char *const gm_spec_region_names[GM_SPEC_REGION_COUNT] = {
	[GPUMEM_REGION_VRAM] = "vram",
	[GPUMEM_REGION_GTT] = "gtt",
	[GPUMEM_REGION_SYSTEM] = "system",
	[GPUMEM_REGION_OTHER] = "other",
};

const char *const gm_spec_limit_mode_names[GM_SPEC_LIMIT_MODE_COUNT] = {
	[GPUMEM_LIMIT_MODE_ENFORCE] = "enforce",
	[GPUMEM_LIMIT_MODE_MONITOR] = "monitor",
};

const char *const gm_spec_proc_view_names[GM_SPEC_PROC_VIEW_COUNT] = {
	[GPUMEM_PROC_VIEW_CHARGED] = "charged",
	[GPUMEM_PROC_VIEW_HELD] = "held",
};

const char *const gm_spec_event_type_names[GM_SPEC_EVENT_TYPE_COUNT] = {
	[GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED] = "quota-exceeded",
	[GPUMEM_EVENT_TYPE_HIGH_CROSSED] = "high-crossed",
	[GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD] = "device-threshold",
	[GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL] = "fragmented-denial",
	[GPUMEM_EVENT_TYPE_LEAK_SUSPECT] = "leak-suspect",
	[GPUMEM_EVENT_TYPE_ORPHANED] = "orphaned",
};

const char *const gm_spec_orphan_kind_names[GM_SPEC_ORPHAN_KIND_COUNT] = {
	[0] = "kernel",
	[1] = "dma-buf",
	[2] = "mapping",
	[3] = "busy",
};

const char *const gm_spec_dmem_source_names[GM_SPEC_DMEM_SOURCE_COUNT] = {
	[GPUMEM_DMEM_SOURCE_DRIVER] = "driver",
	[GPUMEM_DMEM_SOURCE_GPUMEM] = "gpumem",
};

const char *const gm_spec_limit_source_names[GM_SPEC_LIMIT_SOURCE_COUNT] = {
	[GPUMEM_LIMIT_SOURCE_GPUMEM] = "gpumem",
	[GPUMEM_LIMIT_SOURCE_DMEM] = "dmem",
};

const struct nla_policy gm_spec_usage_policy[GPUMEM_A_USAGE_MAX + 1] = {
	[GPUMEM_A_USAGE_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_USAGE_BYTES] = { .type = NLA_U64 },
};

const char *const gm_spec_usage_names[GPUMEM_A_USAGE_MAX + 1] = {
	[GPUMEM_A_USAGE_REGION] = "region",
	[GPUMEM_A_USAGE_BYTES] = "bytes",
	[GPUMEM_A_USAGE_PAD] = "pad",
};

const struct nla_policy gm_spec_dev_region_policy[GPUMEM_A_DEV_REGION_MAX + 1] = {
	[GPUMEM_A_DEV_REGION_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_DEV_REGION_CAPACITY] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_USED] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_LARGEST_FREE] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_FREE_BLOCKS] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_DMEM] = { .type = NLA_NESTED },
};

const char *const gm_spec_dev_region_names[GPUMEM_A_DEV_REGION_MAX + 1] = {
	[GPUMEM_A_DEV_REGION_REGION] = "region",
	[GPUMEM_A_DEV_REGION_CAPACITY] = "capacity",
	[GPUMEM_A_DEV_REGION_USED] = "used",
	[GPUMEM_A_DEV_REGION_PAD] = "pad",
	[GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES] = "free-blocks-bytes",
	[GPUMEM_A_DEV_REGION_LARGEST_FREE] = "largest-free",
	[GPUMEM_A_DEV_REGION_FREE_BLOCKS] = "free-blocks",
	[GPUMEM_A_DEV_REGION_DMEM] = "dmem",
};

const struct nla_policy gm_spec_dev_dmem_policy[GPUMEM_A_DEV_DMEM_MAX + 1] = {
	[GPUMEM_A_DEV_DMEM_NAME] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_DMEM_SOURCE] = { .type = NLA_U32 },
	[GPUMEM_A_DEV_DMEM_CAPACITY] = { .type = NLA_U64 },
};

const char *const gm_spec_dev_dmem_names[GPUMEM_A_DEV_DMEM_MAX + 1] = {
	[GPUMEM_A_DEV_DMEM_NAME] = "name",
	[GPUMEM_A_DEV_DMEM_SOURCE] = "source",
	[GPUMEM_A_DEV_DMEM_CAPACITY] = "capacity",
	[GPUMEM_A_DEV_DMEM_PAD] = "pad",
};

const struct nla_policy gm_spec_dev_policy[GPUMEM_A_DEV_MAX + 1] = {
	[GPUMEM_A_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_DEV_NAME] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_DRIVER] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_UNIQUE] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_TTM] = { .type = NLA_U8 },
	[GPUMEM_A_DEV_REGION] = { .type = NLA_NESTED },
	[GPUMEM_A_DEV_DESC] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_RENDER_ID] = { .type = NLA_U32 },
};

const char *const gm_spec_dev_names[GPUMEM_A_DEV_MAX + 1] = {
	[GPUMEM_A_DEV_ID] = "id",
	[GPUMEM_A_DEV_NAME] = "name",
	[GPUMEM_A_DEV_DRIVER] = "driver",
	[GPUMEM_A_DEV_UNIQUE] = "unique",
	[GPUMEM_A_DEV_TTM] = "ttm",
	[GPUMEM_A_DEV_REGION] = "region",
	[GPUMEM_A_DEV_DESC] = "desc",
	[GPUMEM_A_DEV_RENDER_ID] = "render-id",
};

const struct nla_policy gm_spec_proc_policy[GPUMEM_A_PROC_MAX + 1] = {
	[GPUMEM_A_PROC_PID] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_PROC_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_PROC_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_USAGE] = { .type = NLA_NESTED },
	[GPUMEM_A_PROC_SHARED] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_OWNED] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_BOS] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_VIEW] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_SKIPPED] = { .type = NLA_U32 },
};

const char *const gm_spec_proc_names[GPUMEM_A_PROC_MAX + 1] = {
	[GPUMEM_A_PROC_PID] = "pid",
	[GPUMEM_A_PROC_COMM] = "comm",
	[GPUMEM_A_PROC_CGROUP_ID] = "cgroup-id",
	[GPUMEM_A_PROC_CGROUP_PATH] = "cgroup-path",
	[GPUMEM_A_PROC_DEV_ID] = "dev-id",
	[GPUMEM_A_PROC_USAGE] = "usage",
	[GPUMEM_A_PROC_SHARED] = "shared",
	[GPUMEM_A_PROC_OWNED] = "owned",
	[GPUMEM_A_PROC_BOS] = "bos",
	[GPUMEM_A_PROC_PAD] = "pad",
	[GPUMEM_A_PROC_VIEW] = "view",
	[GPUMEM_A_PROC_SKIPPED] = "skipped",
};

const struct nla_policy gm_spec_buf_policy[GPUMEM_A_BUF_MAX + 1] = {
	[GPUMEM_A_BUF_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_OWNER] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_HANDLE] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_SIZE] = { .type = NLA_U64 },
	[GPUMEM_A_BUF_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_MEM_TYPE] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_SHARED] = { .type = NLA_U8 },
	[GPUMEM_A_BUF_HOLDER] = { .type = NLA_U32 },
};

const char *const gm_spec_buf_names[GPUMEM_A_BUF_MAX + 1] = {
	[GPUMEM_A_BUF_DEV_ID] = "dev-id",
	[GPUMEM_A_BUF_OWNER] = "owner",
	[GPUMEM_A_BUF_HANDLE] = "handle",
	[GPUMEM_A_BUF_SIZE] = "size",
	[GPUMEM_A_BUF_REGION] = "region",
	[GPUMEM_A_BUF_MEM_TYPE] = "mem-type",
	[GPUMEM_A_BUF_SHARED] = "shared",
	[GPUMEM_A_BUF_HOLDER] = "holder",
	[GPUMEM_A_BUF_PAD] = "pad",
};

const struct nla_policy gm_spec_stats_policy[GPUMEM_A_STATS_MAX + 1] = {
	[GPUMEM_A_STATS_WALKS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_WALKS_FAILED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_NS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_CLIENTS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_BOS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_DEVICES] = { .type = NLA_U32 },
	[GPUMEM_A_STATS_LAST_WALK_SKIPPED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_CHARGED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_UNCHARGED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_CHARGE_FAILED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_DENIED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_GUARD_REFUSED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_EVENTS_SENT] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_EVENTS_SUPPRESSED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_EVENTS_LOST] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LIVE_RECORDS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_UNATTRIBUTED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_RESV_RELEASED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_DMEM_UNWATCHED] = { .type = NLA_U64 },
};

const char *const gm_spec_stats_names[GPUMEM_A_STATS_MAX + 1] = {
	[GPUMEM_A_STATS_WALKS] = "walks",
	[GPUMEM_A_STATS_WALKS_FAILED] = "walks-failed",
	[GPUMEM_A_STATS_LAST_WALK_NS] = "last-walk-ns",
	[GPUMEM_A_STATS_LAST_WALK_CLIENTS] = "last-walk-clients",
	[GPUMEM_A_STATS_LAST_WALK_BOS] = "last-walk-bos",
	[GPUMEM_A_STATS_DEVICES] = "devices",
	[GPUMEM_A_STATS_PAD] = "pad",
	[GPUMEM_A_STATS_LAST_WALK_SKIPPED] = "last-walk-skipped",
	[GPUMEM_A_STATS_CHARGED] = "charged",
	[GPUMEM_A_STATS_UNCHARGED] = "uncharged",
	[GPUMEM_A_STATS_CHARGE_FAILED] = "charge-failed",
	[GPUMEM_A_STATS_DENIED] = "denied",
	[GPUMEM_A_STATS_GUARD_REFUSED] = "guard-refused",
	[GPUMEM_A_STATS_EVENTS_SENT] = "events-sent",
	[GPUMEM_A_STATS_EVENTS_SUPPRESSED] = "events-suppressed",
	[GPUMEM_A_STATS_EVENTS_LOST] = "events-lost",
	[GPUMEM_A_STATS_LIVE_RECORDS] = "live-records",
	[GPUMEM_A_STATS_UNATTRIBUTED] = "unattributed",
	[GPUMEM_A_STATS_RESV_RELEASED] = "resv-released",
	[GPUMEM_A_STATS_DMEM_UNWATCHED] = "dmem-unwatched",
};

const struct nla_policy gm_spec_limit_policy[GPUMEM_A_LIMIT_MAX + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_LIMIT_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_MAX_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_HIGH_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_MODE] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_USAGE] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_DENIED] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_REPLACE] = { .type = NLA_FLAG },
};

const char *const gm_spec_limit_names[GPUMEM_A_LIMIT_MAX + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = "cgroup-id",
	[GPUMEM_A_LIMIT_CGROUP_PATH] = "cgroup-path",
	[GPUMEM_A_LIMIT_DEV_ID] = "dev-id",
	[GPUMEM_A_LIMIT_REGION] = "region",
	[GPUMEM_A_LIMIT_MAX_BYTES] = "max-bytes",
	[GPUMEM_A_LIMIT_HIGH_BYTES] = "high-bytes",
	[GPUMEM_A_LIMIT_MODE] = "mode",
	[GPUMEM_A_LIMIT_USAGE] = "usage",
	[GPUMEM_A_LIMIT_DENIED] = "denied",
	[GPUMEM_A_LIMIT_PAD] = "pad",
	[GPUMEM_A_LIMIT_REPLACE] = "replace",
};

const struct nla_policy gm_spec_event_policy[GPUMEM_A_EVENT_MAX + 1] = {
	[GPUMEM_A_EVENT_TYPE] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_SEQ] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_EVENT_PID] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_EVENT_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REQUESTED] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_USAGE] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_LIMIT] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_MODE] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_DENIED] = { .type = NLA_U8 },
	[GPUMEM_A_EVENT_SUPPRESSED] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_GROWTH] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_RATE] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_WINDOW_MS] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_WINDOWS] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_BUFFERS] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_HOLDER] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_KINDS] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REQ_PID] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REQ_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_EVENT_SOURCE] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_DMEM_REGION] = { .type = NLA_STRING },
};

const char *const gm_spec_event_names[GPUMEM_A_EVENT_MAX + 1] = {
	[GPUMEM_A_EVENT_TYPE] = "type",
	[GPUMEM_A_EVENT_SEQ] = "seq",
	[GPUMEM_A_EVENT_CGROUP_ID] = "cgroup-id",
	[GPUMEM_A_EVENT_CGROUP_PATH] = "cgroup-path",
	[GPUMEM_A_EVENT_PID] = "pid",
	[GPUMEM_A_EVENT_COMM] = "comm",
	[GPUMEM_A_EVENT_DEV_ID] = "dev-id",
	[GPUMEM_A_EVENT_REGION] = "region",
	[GPUMEM_A_EVENT_REQUESTED] = "requested",
	[GPUMEM_A_EVENT_USAGE] = "usage",
	[GPUMEM_A_EVENT_LIMIT] = "limit",
	[GPUMEM_A_EVENT_MODE] = "mode",
	[GPUMEM_A_EVENT_DENIED] = "denied",
	[GPUMEM_A_EVENT_SUPPRESSED] = "suppressed",
	[GPUMEM_A_EVENT_PAD] = "pad",
	[GPUMEM_A_EVENT_GROWTH] = "growth",
	[GPUMEM_A_EVENT_RATE] = "rate",
	[GPUMEM_A_EVENT_WINDOW_MS] = "window-ms",
	[GPUMEM_A_EVENT_WINDOWS] = "windows",
	[GPUMEM_A_EVENT_BUFFERS] = "buffers",
	[GPUMEM_A_EVENT_HOLDER] = "holder",
	[GPUMEM_A_EVENT_KINDS] = "kinds",
	[GPUMEM_A_EVENT_REQ_PID] = "req-pid",
	[GPUMEM_A_EVENT_REQ_COMM] = "req-comm",
	[GPUMEM_A_EVENT_SOURCE] = "source",
	[GPUMEM_A_EVENT_DMEM_REGION] = "dmem-region",
};

const struct nla_policy gm_spec_orphan_policy[GPUMEM_A_ORPHAN_MAX + 1] = {
	[GPUMEM_A_ORPHAN_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_ORPHAN_BUFFERS] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_ORPHAN_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_ORPHAN_PID] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_ORPHAN_SINCE_MS] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_HOLDER] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_KINDS] = { .type = NLA_U32 },
	[GPUMEM_A_ORPHAN_HOLDERS_DROPPED] = { .type = NLA_U32 },
};

const char *const gm_spec_orphan_names[GPUMEM_A_ORPHAN_MAX + 1] = {
	[GPUMEM_A_ORPHAN_DEV_ID] = "dev-id",
	[GPUMEM_A_ORPHAN_REGION] = "region",
	[GPUMEM_A_ORPHAN_BYTES] = "bytes",
	[GPUMEM_A_ORPHAN_BUFFERS] = "buffers",
	[GPUMEM_A_ORPHAN_CGROUP_ID] = "cgroup-id",
	[GPUMEM_A_ORPHAN_CGROUP_PATH] = "cgroup-path",
	[GPUMEM_A_ORPHAN_PID] = "pid",
	[GPUMEM_A_ORPHAN_COMM] = "comm",
	[GPUMEM_A_ORPHAN_SINCE_MS] = "since-ms",
	[GPUMEM_A_ORPHAN_HOLDER] = "holder",
	[GPUMEM_A_ORPHAN_KINDS] = "kinds",
	[GPUMEM_A_ORPHAN_PAD] = "pad",
	[GPUMEM_A_ORPHAN_HOLDERS_DROPPED] = "holders-dropped",
};

const struct nla_policy gm_spec_leak_policy[GPUMEM_A_LEAK_MAX + 1] = {
	[GPUMEM_A_LEAK_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_LEAK_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_LEAK_PID] = { .type = NLA_U32 },
	[GPUMEM_A_LEAK_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_LEAK_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_LEAK_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_LEAK_USAGE] = { .type = NLA_U64 },
	[GPUMEM_A_LEAK_GROWTH] = { .type = NLA_U64 },
	[GPUMEM_A_LEAK_RATE] = { .type = NLA_U64 },
	[GPUMEM_A_LEAK_WINDOW_MS] = { .type = NLA_U32 },
	[GPUMEM_A_LEAK_WINDOWS] = { .type = NLA_U32 },
	[GPUMEM_A_LEAK_SINCE_MS] = { .type = NLA_U32 },
};

const char *const gm_spec_leak_names[GPUMEM_A_LEAK_MAX + 1] = {
	[GPUMEM_A_LEAK_DEV_ID] = "dev-id",
	[GPUMEM_A_LEAK_REGION] = "region",
	[GPUMEM_A_LEAK_PID] = "pid",
	[GPUMEM_A_LEAK_COMM] = "comm",
	[GPUMEM_A_LEAK_CGROUP_ID] = "cgroup-id",
	[GPUMEM_A_LEAK_CGROUP_PATH] = "cgroup-path",
	[GPUMEM_A_LEAK_USAGE] = "usage",
	[GPUMEM_A_LEAK_GROWTH] = "growth",
	[GPUMEM_A_LEAK_RATE] = "rate",
	[GPUMEM_A_LEAK_WINDOW_MS] = "window-ms",
	[GPUMEM_A_LEAK_WINDOWS] = "windows",
	[GPUMEM_A_LEAK_SINCE_MS] = "since-ms",
	[GPUMEM_A_LEAK_PAD] = "pad",
};

const char *gm_spec_attr_name(unsigned int cmd, int type)
{
	switch (cmd) {
	case GPUMEM_CMD_DEV_GET:
		return type > 0 && type <= GPUMEM_A_DEV_MAX ? gm_spec_dev_names[type] : NULL;
	case GPUMEM_CMD_PROC_GET:
		return type > 0 && type <= GPUMEM_A_PROC_MAX ? gm_spec_proc_names[type] : NULL;
	case GPUMEM_CMD_BUF_GET:
		return type > 0 && type <= GPUMEM_A_BUF_MAX ? gm_spec_buf_names[type] : NULL;
	case GPUMEM_CMD_STATS_GET:
		return type > 0 && type <= GPUMEM_A_STATS_MAX ? gm_spec_stats_names[type] : NULL;
	case GPUMEM_CMD_LIMIT_SET:
	case GPUMEM_CMD_LIMIT_GET:
	case GPUMEM_CMD_LIMIT_DEL:
	case GPUMEM_CMD_CGROUP_GET:
		return type > 0 && type <= GPUMEM_A_LIMIT_MAX ? gm_spec_limit_names[type] : NULL;
	case GPUMEM_CMD_ORPHAN_GET:
		return type > 0 && type <= GPUMEM_A_ORPHAN_MAX ? gm_spec_orphan_names[type] : NULL;
	case GPUMEM_CMD_LEAK_GET:
		return type > 0 && type <= GPUMEM_A_LEAK_MAX ? gm_spec_leak_names[type] : NULL;
	default:
		return NULL;
	}
}
