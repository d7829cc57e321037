/* SPDX-License-Identifier: GPL-2.0 */
/* Generated from uapi/gpumem.yaml by scripts/gen-nlspec.py: do not edit. */
/*
 * gpumemctl's wire model: the attribute policies and names of every
 * attribute set and the names of every enum of the "gpumem" family.
 */
#ifndef GM_NLSPEC_H
#define GM_NLSPEC_H

#include <netlink/attr.h>

#include "../../uapi/gpumem.h"

/* --- enums: the name of each value (NULL: a value the spec does not name) */
#define GM_SPEC_REGION_COUNT 4
extern const char *const gm_spec_region_names[GM_SPEC_REGION_COUNT];
#define GM_SPEC_LIMIT_MODE_COUNT 2
extern const char *const gm_spec_limit_mode_names[GM_SPEC_LIMIT_MODE_COUNT];
#define GM_SPEC_PROC_VIEW_COUNT 2
extern const char *const gm_spec_proc_view_names[GM_SPEC_PROC_VIEW_COUNT];
#define GM_SPEC_EVENT_TYPE_COUNT 6
extern const char *const gm_spec_event_type_names[GM_SPEC_EVENT_TYPE_COUNT];
#define GM_SPEC_ORPHAN_KIND_COUNT 4
extern const char *const gm_spec_orphan_kind_names[GM_SPEC_ORPHAN_KIND_COUNT];
#define GM_SPEC_DMEM_SOURCE_COUNT 2
extern const char *const gm_spec_dmem_source_names[GM_SPEC_DMEM_SOURCE_COUNT];
#define GM_SPEC_LIMIT_SOURCE_COUNT 2
extern const char *const gm_spec_limit_source_names[GM_SPEC_LIMIT_SOURCE_COUNT];

/* --- attribute sets: a policy for nla_parse() and the spec's names */
extern const struct nla_policy gm_spec_usage_policy[GPUMEM_A_USAGE_MAX + 1];
extern const char *const gm_spec_usage_names[GPUMEM_A_USAGE_MAX + 1];
extern const struct nla_policy gm_spec_dev_region_policy[GPUMEM_A_DEV_REGION_MAX + 1];
extern const char *const gm_spec_dev_region_names[GPUMEM_A_DEV_REGION_MAX + 1];
extern const struct nla_policy gm_spec_dev_dmem_policy[GPUMEM_A_DEV_DMEM_MAX + 1];
extern const char *const gm_spec_dev_dmem_names[GPUMEM_A_DEV_DMEM_MAX + 1];
extern const struct nla_policy gm_spec_dev_policy[GPUMEM_A_DEV_MAX + 1];
extern const char *const gm_spec_dev_names[GPUMEM_A_DEV_MAX + 1];
extern const struct nla_policy gm_spec_proc_policy[GPUMEM_A_PROC_MAX + 1];
extern const char *const gm_spec_proc_names[GPUMEM_A_PROC_MAX + 1];
extern const struct nla_policy gm_spec_buf_policy[GPUMEM_A_BUF_MAX + 1];
extern const char *const gm_spec_buf_names[GPUMEM_A_BUF_MAX + 1];
extern const struct nla_policy gm_spec_stats_policy[GPUMEM_A_STATS_MAX + 1];
extern const char *const gm_spec_stats_names[GPUMEM_A_STATS_MAX + 1];
extern const struct nla_policy gm_spec_limit_policy[GPUMEM_A_LIMIT_MAX + 1];
extern const char *const gm_spec_limit_names[GPUMEM_A_LIMIT_MAX + 1];
extern const struct nla_policy gm_spec_event_policy[GPUMEM_A_EVENT_MAX + 1];
extern const char *const gm_spec_event_names[GPUMEM_A_EVENT_MAX + 1];
extern const struct nla_policy gm_spec_orphan_policy[GPUMEM_A_ORPHAN_MAX + 1];
extern const char *const gm_spec_orphan_names[GPUMEM_A_ORPHAN_MAX + 1];
extern const struct nla_policy gm_spec_leak_policy[GPUMEM_A_LEAK_MAX + 1];
extern const char *const gm_spec_leak_names[GPUMEM_A_LEAK_MAX + 1];

/* the attribute names of the set command CMD uses; NULL for another CMD */
const char *gm_spec_attr_name(unsigned int cmd, int type);

#endif
