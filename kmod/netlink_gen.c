// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	uapi/gpumem.yaml */
/* YNL-GEN kernel source */
/* (scripts/gen-kernel-nl.py: genl_ops, for 6.1 and later) */

#include <net/netlink.h>
#include <net/genetlink.h>
#include <linux/threads.h>

#include "compat.h"
#include "netlink_gen.h"

/* Integer value ranges */
static GPUMEM_NL_RANGE_CONST struct netlink_range_validation gpumem_a_proc_pid_range = {
	.max	= PID_MAX_LIMIT,
};

static GPUMEM_NL_RANGE_CONST struct netlink_range_validation gpumem_a_buf_owner_range = {
	.max	= PID_MAX_LIMIT,
};

static GPUMEM_NL_RANGE_CONST struct netlink_range_validation gpumem_a_limit_max_bytes_range = {
	.min	= 1ULL,
	.max	= 18446744073709551614ULL,
};

static GPUMEM_NL_RANGE_CONST struct netlink_range_validation gpumem_a_limit_high_bytes_range = {
	.min	= 1ULL,
	.max	= 18446744073709551614ULL,
};

/* GPUMEM_CMD_DEV_GET - do */
static const struct nla_policy gpumem_dev_get_nl_policy[GPUMEM_A_DEV_ID + 1] = {
	[GPUMEM_A_DEV_ID] = { .type = NLA_U32, },
};

/* GPUMEM_CMD_PROC_GET - dump */
static const struct nla_policy gpumem_proc_get_nl_policy[GPUMEM_A_PROC_VIEW + 1] = {
	[GPUMEM_A_PROC_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpumem_a_proc_pid_range),
	[GPUMEM_A_PROC_DEV_ID] = { .type = NLA_U32, },
	[GPUMEM_A_PROC_CGROUP_ID] = { .type = NLA_U64, },
	[GPUMEM_A_PROC_VIEW] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* GPUMEM_CMD_BUF_GET - dump */
static const struct nla_policy gpumem_buf_get_nl_policy[GPUMEM_A_BUF_OWNER + 1] = {
	[GPUMEM_A_BUF_OWNER] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpumem_a_buf_owner_range),
	[GPUMEM_A_BUF_DEV_ID] = { .type = NLA_U32, },
};

/* GPUMEM_CMD_LIMIT_SET - do */
static const struct nla_policy gpumem_limit_set_nl_policy[GPUMEM_A_LIMIT_REPLACE + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[GPUMEM_A_LIMIT_DEV_ID] = { .type = NLA_U32, },
	[GPUMEM_A_LIMIT_REGION] = NLA_POLICY_MAX(NLA_U32, 3),
	[GPUMEM_A_LIMIT_MAX_BYTES] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &gpumem_a_limit_max_bytes_range),
	[GPUMEM_A_LIMIT_HIGH_BYTES] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &gpumem_a_limit_high_bytes_range),
	[GPUMEM_A_LIMIT_MODE] = NLA_POLICY_MAX(NLA_U32, 1),
	[GPUMEM_A_LIMIT_REPLACE] = { .type = NLA_FLAG, },
};

/* GPUMEM_CMD_LIMIT_GET - do */
static const struct nla_policy gpumem_limit_get_nl_policy[GPUMEM_A_LIMIT_REGION + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[GPUMEM_A_LIMIT_DEV_ID] = { .type = NLA_U32, },
	[GPUMEM_A_LIMIT_REGION] = NLA_POLICY_MAX(NLA_U32, 3),
};

/* GPUMEM_CMD_LIMIT_DEL - do */
static const struct nla_policy gpumem_limit_del_nl_policy[GPUMEM_A_LIMIT_REGION + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[GPUMEM_A_LIMIT_DEV_ID] = { .type = NLA_U32, },
	[GPUMEM_A_LIMIT_REGION] = NLA_POLICY_MAX(NLA_U32, 3),
};

/* Ops table for gpumem */
static const struct genl_ops gpumem_nl_ops[] = {
	{
		.cmd		= GPUMEM_CMD_DEV_GET,
		.doit		= gpumem_nl_dev_get_doit,
		.start		= gpumem_nl_dev_get_start,
		.dumpit		= gpumem_nl_dev_get_dumpit,
		.done		= gpumem_nl_dump_done,
		.policy		= gpumem_dev_get_nl_policy,
		.maxattr	= GPUMEM_A_DEV_ID,
	},
	{
		.cmd		= GPUMEM_CMD_PROC_GET,
		.start		= gpumem_nl_proc_get_start,
		.dumpit		= gpumem_nl_proc_get_dumpit,
		.done		= gpumem_nl_dump_done,
		.policy		= gpumem_proc_get_nl_policy,
		.maxattr	= GPUMEM_A_PROC_VIEW,
	},
	{
		.cmd		= GPUMEM_CMD_BUF_GET,
		.start		= gpumem_nl_buf_get_start,
		.dumpit		= gpumem_nl_buf_get_dumpit,
		.done		= gpumem_nl_dump_done,
		.policy		= gpumem_buf_get_nl_policy,
		.maxattr	= GPUMEM_A_BUF_OWNER,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd	= GPUMEM_CMD_STATS_GET,
		.doit	= gpumem_nl_stats_get_doit,
	},
	{
		.cmd		= GPUMEM_CMD_LIMIT_SET,
		.doit		= gpumem_nl_limit_set_doit,
		.policy		= gpumem_limit_set_nl_policy,
		.maxattr	= GPUMEM_A_LIMIT_REPLACE,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= GPUMEM_CMD_LIMIT_GET,
		.doit		= gpumem_nl_limit_get_doit,
		.start		= gpumem_nl_limit_get_start,
		.dumpit		= gpumem_nl_limit_get_dumpit,
		.done		= gpumem_nl_rows_done,
		.policy		= gpumem_limit_get_nl_policy,
		.maxattr	= GPUMEM_A_LIMIT_REGION,
	},
	{
		.cmd		= GPUMEM_CMD_LIMIT_DEL,
		.doit		= gpumem_nl_limit_del_doit,
		.policy		= gpumem_limit_del_nl_policy,
		.maxattr	= GPUMEM_A_LIMIT_REGION,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd	= GPUMEM_CMD_CGROUP_GET,
		.start	= gpumem_nl_cgroup_get_start,
		.dumpit	= gpumem_nl_cgroup_get_dumpit,
		.done	= gpumem_nl_rows_done,
	},
	{
		.cmd	= GPUMEM_CMD_ORPHAN_GET,
		.start	= gpumem_nl_orphan_get_start,
		.dumpit	= gpumem_nl_orphan_get_dumpit,
		.done	= gpumem_nl_orphan_get_done,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= GPUMEM_CMD_LEAK_GET,
		.start	= gpumem_nl_leak_get_start,
		.dumpit	= gpumem_nl_leak_get_dumpit,
		.done	= gpumem_nl_leak_get_done,
		.flags	= GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group gpumem_nl_mcgrps[] = {
	[GPUMEM_NLGRP_EVENTS] = {
		.name	= GPUMEM_MCGRP_EVENTS,
		.flags	= GPUMEM_MCAST_ADMIN_ONLY,
	},
};

struct genl_family gpumem_nl_family __ro_after_init = {
	.name		= GPUMEM_FAMILY_NAME,
	.version	= GPUMEM_FAMILY_VERSION,
	.netnsok	= false,
	.module		= THIS_MODULE,
	.ops		= gpumem_nl_ops,
	.n_ops		= ARRAY_SIZE(gpumem_nl_ops),
	.mcgrps		= gpumem_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(gpumem_nl_mcgrps),
};
