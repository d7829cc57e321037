/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	uapi/gpumem.yaml */
/* YNL-GEN kernel header */
/* (scripts/gen-kernel-nl.py: genl_ops, for 6.1 and later) */

#ifndef _LINUX_GPUMEM_GEN_H
#define _LINUX_GPUMEM_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include "../uapi/gpumem.h"

int gpumem_nl_dev_get_start(struct netlink_callback *cb);
int gpumem_nl_proc_get_start(struct netlink_callback *cb);
int gpumem_nl_buf_get_start(struct netlink_callback *cb);
int gpumem_nl_limit_get_start(struct netlink_callback *cb);
int gpumem_nl_cgroup_get_start(struct netlink_callback *cb);
int gpumem_nl_orphan_get_start(struct netlink_callback *cb);
int gpumem_nl_leak_get_start(struct netlink_callback *cb);
int gpumem_nl_dump_done(struct netlink_callback *cb);
int gpumem_nl_rows_done(struct netlink_callback *cb);
int gpumem_nl_orphan_get_done(struct netlink_callback *cb);
int gpumem_nl_leak_get_done(struct netlink_callback *cb);

int gpumem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpumem_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int gpumem_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int gpumem_nl_buf_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int gpumem_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpumem_nl_limit_set_doit(struct sk_buff *skb, struct genl_info *info);
int gpumem_nl_limit_get_doit(struct sk_buff *skb, struct genl_info *info);
int gpumem_nl_limit_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int gpumem_nl_limit_del_doit(struct sk_buff *skb, struct genl_info *info);
int gpumem_nl_cgroup_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int gpumem_nl_orphan_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb);
int gpumem_nl_leak_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	GPUMEM_NLGRP_EVENTS,
};

extern struct genl_family gpumem_nl_family;

#endif /* _LINUX_GPUMEM_GEN_H */
