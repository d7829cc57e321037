// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem netlink: the generic netlink family "gpumem", a thin face over
 * snapshots like debugfs. The attribute numbers come from uapi/gpumem.h,
 * generated from uapi/gpumem.yaml; the policies below follow that spec and
 * do all validation of types and lengths (strict: unknown attributes are
 * rejected). What a policy cannot say is checked here, with an extack
 * message for every rejection.
 *
 * Dumps take one snapshot in .start and free it in .done; every message of a
 * dump comes from that snapshot, so a dump is consistent however processes
 * come and go while userspace reads it. The position is kept in cb->args.
 */
#include <linux/cgroup.h>
#include <linux/pid.h>
#include <net/genetlink.h>
#include "compat.h"
#include "classify.h"
#include "netlink.h"
#include "snapshot.h"
#include "walk.h"

static struct genl_family gpumem_nl_family;

/* pid_t values the kernel can hand out (a pid of 0 means kernel clients). */
static struct netlink_range_validation gpumem_pid_range = {
	.max = PID_MAX_LIMIT,
};

static const struct nla_policy gpumem_dev_get_policy[GPUMEM_A_DEV_ID + 1] = {
	[GPUMEM_A_DEV_ID] = { .type = NLA_U32 },
};

static const struct nla_policy gpumem_proc_get_policy[GPUMEM_A_PROC_MAX + 1] = {
	[GPUMEM_A_PROC_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpumem_pid_range),
	[GPUMEM_A_PROC_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_CGROUP_ID] = { .type = NLA_U64 },
};

static const struct nla_policy gpumem_buf_get_policy[GPUMEM_A_BUF_MAX + 1] = {
	[GPUMEM_A_BUF_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_OWNER] = NLA_POLICY_FULL_RANGE(NLA_U32, &gpumem_pid_range),
};

/* State of one dump, in cb->args[0]; cb->args[1] is the next row. */
struct gpumem_nl_dump {
	struct gpumem_snapshot *snap;
	bool has_pid, has_dev;
	pid_t pid;
	int dev;			/* snapshot index of the device filter */
	struct xarray cgroup_match;	/* tgid -> xa_mk_value(1) if in cgroup */
	bool has_cgroup;
};

static int gpumem_nl_put_u64(struct sk_buff *skb, int attr, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, attr, v, pad);
}

static int gpumem_snap_dev_index(const struct gpumem_snapshot *snap, u32 id)
{
	unsigned int i;

	for (i = 0; i < snap->nr_devs; i++)
		if (snap->devs[i].minor == id)
			return i;
	return -1;
}

/* -- devices -- */

static int gpumem_nl_fill_dev(struct sk_buff *skb,
			      const struct gpumem_dev_row *dev, u32 portid,
			      u32 seq, int flags)
{
	struct nlattr *nest;
	void *hdr;
	int r;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, flags,
			  GPUMEM_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUMEM_A_DEV_ID, dev->minor) ||
	    nla_put_string(skb, GPUMEM_A_DEV_NAME, dev->name) ||
	    nla_put_string(skb, GPUMEM_A_DEV_DRIVER, dev->driver) ||
	    nla_put_string(skb, GPUMEM_A_DEV_UNIQUE, dev->unique) ||
	    nla_put_u8(skb, GPUMEM_A_DEV_TTM, dev->ttm))
		goto cancel;
	for (r = 0; r < GPUMEM_REGION_COUNT; r++) {
		if (!(dev->regions & BIT(r)))
			continue;
		nest = nla_nest_start(skb, GPUMEM_A_DEV_REGION);
		if (!nest)
			goto cancel;
		if (nla_put_u32(skb, GPUMEM_A_DEV_REGION_REGION, r) ||
		    ((dev->cap_known & BIT(r)) &&
		     gpumem_nl_put_u64(skb, GPUMEM_A_DEV_REGION_CAPACITY,
				       dev->capacity[r],
				       GPUMEM_A_DEV_REGION_PAD)) ||
		    gpumem_nl_put_u64(skb, GPUMEM_A_DEV_REGION_USED,
				      dev->used[r], GPUMEM_A_DEV_REGION_PAD))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int gpumem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct gpumem_snapshot *snap;
	struct sk_buff *msg;
	int idx, ret;

	if (GENL_REQ_ATTR_CHECK(info, GPUMEM_A_DEV_ID))
		return -EINVAL;
	snap = gpumem_snapshot_take(GPUMEM_SNAP_DEVICES);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	idx = gpumem_snap_dev_index(snap,
				    nla_get_u32(info->attrs[GPUMEM_A_DEV_ID]));
	if (idx < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[GPUMEM_A_DEV_ID],
				    "no such DRM device");
		ret = -ENODEV;
		goto out;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = gpumem_nl_fill_dev(msg, &snap->devs[idx], info->snd_portid,
				 info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	ret = genlmsg_reply(msg, info);
out:
	gpumem_snapshot_free(snap);
	return ret;
}

/* -- dump plumbing shared by all dumps -- */

static struct gpumem_nl_dump *gpumem_nl_dump_state(struct netlink_callback *cb)
{
	return (struct gpumem_nl_dump *)cb->args[0];
}

static int gpumem_nl_dump_begin(struct netlink_callback *cb,
				unsigned int snap_flags)
{
	struct gpumem_nl_dump *st;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	xa_init(&st->cgroup_match);
	st->snap = gpumem_snapshot_take(snap_flags);
	if (IS_ERR(st->snap)) {
		int ret = PTR_ERR(st->snap);

		kfree(st);
		return ret;
	}
	cb->args[0] = (long)st;
	cb->args[1] = 0;
	return 0;
}

static int gpumem_nl_dump_done(struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);

	if (st) {
		gpumem_snapshot_free(st->snap);
		xa_destroy(&st->cgroup_match);
		kfree(st);
	}
	return 0;
}

/* Device filter of a dump request: resolve it in the snapshot. */
static int gpumem_nl_dump_dev_filter(struct netlink_callback *cb,
				     struct gpumem_nl_dump *st,
				     struct nlattr *attr)
{
	if (!attr)
		return 0;
	st->dev = gpumem_snap_dev_index(st->snap, nla_get_u32(attr));
	if (st->dev < 0) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attr, "no such DRM device");
		return -ENODEV;
	}
	st->has_dev = true;
	return 0;
}

static int gpumem_nl_dev_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	long i;

	for (i = cb->args[1]; i < st->snap->nr_devs; i++) {
		if (gpumem_nl_fill_dev(skb, &st->snap->devs[i],
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
	}
	cb->args[1] = i;
	return skb->len;
}

static int gpumem_nl_dev_get_start(struct netlink_callback *cb)
{
	return gpumem_nl_dump_begin(cb, GPUMEM_SNAP_DEVICES);
}

/* -- processes -- */

/* Mark every process of the snapshot that lives in @cgrp or below it. */
static int gpumem_nl_match_cgroup(struct gpumem_nl_dump *st,
				  struct cgroup *cgrp)
{
	struct gpumem_task_row *task;
	unsigned long tgid;
	int ret;

	xa_for_each(&st->snap->tasks, tgid, task) {
		struct cgroup *c;
		bool in;

		if (!task->cgroup_id)
			continue;
		c = cgroup_get_from_id(task->cgroup_id);
		if (IS_ERR(c))
			continue;	/* removed since the walk */
		in = cgroup_is_descendant(c, cgrp);
		cgroup_put(c);
		if (!in)
			continue;
		ret = xa_err(xa_store(&st->cgroup_match, tgid, xa_mk_value(1),
				      GFP_KERNEL));
		if (ret)
			return ret;
	}
	return 0;
}

static int gpumem_nl_proc_get_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);
	struct gpumem_nl_dump *st;
	struct cgroup *cgrp;
	int ret;

	ret = gpumem_nl_dump_begin(cb, 0);
	if (ret)
		return ret;
	st = gpumem_nl_dump_state(cb);
	if (attrs[GPUMEM_A_PROC_PID]) {
		st->has_pid = true;
		st->pid = nla_get_u32(attrs[GPUMEM_A_PROC_PID]);
	}
	ret = gpumem_nl_dump_dev_filter(cb, st, attrs[GPUMEM_A_PROC_DEV_ID]);
	if (ret)
		return ret;
	if (attrs[GPUMEM_A_PROC_CGROUP_ID]) {
		cgrp = cgroup_get_from_id(nla_get_u64(attrs[GPUMEM_A_PROC_CGROUP_ID]));
		if (IS_ERR(cgrp)) {
			NL_SET_ERR_MSG_ATTR(cb->extack,
					    attrs[GPUMEM_A_PROC_CGROUP_ID],
					    "no such cgroup");
			return -ENOENT;
		}
		st->has_cgroup = true;
		ret = gpumem_nl_match_cgroup(st, cgrp);
		cgroup_put(cgrp);
	}
	return ret;
}

static int gpumem_nl_fill_proc(struct sk_buff *skb,
			       const struct gpumem_snapshot *snap,
			       const struct gpumem_proc_row *proc,
			       const struct gpumem_task_row *task,
			       u32 portid, u32 seq)
{
	struct nlattr *nest;
	void *hdr;
	int r;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, NLM_F_MULTI,
			  GPUMEM_CMD_PROC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUMEM_A_PROC_PID, proc->tgid) ||
	    nla_put_string(skb, GPUMEM_A_PROC_COMM, task ? task->comm : "?") ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_PROC_CGROUP_ID,
			      task ? task->cgroup_id : 0, GPUMEM_A_PROC_PAD) ||
	    (task && task->cgroup &&
	     nla_put_string(skb, GPUMEM_A_PROC_CGROUP_PATH, task->cgroup)) ||
	    nla_put_u32(skb, GPUMEM_A_PROC_DEV_ID, snap->devs[proc->dev].minor))
		goto cancel;
	for (r = 0; r < GPUMEM_REGION_COUNT; r++) {
		nest = nla_nest_start(skb, GPUMEM_A_PROC_USAGE);
		if (!nest)
			goto cancel;
		if (nla_put_u32(skb, GPUMEM_A_USAGE_REGION, r) ||
		    gpumem_nl_put_u64(skb, GPUMEM_A_USAGE_BYTES,
				      proc->bytes[r], GPUMEM_A_USAGE_PAD))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	if (gpumem_nl_put_u64(skb, GPUMEM_A_PROC_SHARED, proc->shared,
			      GPUMEM_A_PROC_PAD) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_PROC_OWNED, proc->owned,
			      GPUMEM_A_PROC_PAD) ||
	    nla_put_u32(skb, GPUMEM_A_PROC_BOS, proc->bos))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int gpumem_nl_proc_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	struct gpumem_snapshot *snap = st->snap;
	long i;

	for (i = cb->args[1]; i < snap->nr_procs; i++) {
		const struct gpumem_proc_row *proc = snap->procs[i];

		if (st->has_pid && proc->tgid != st->pid)
			continue;
		if (st->has_dev && proc->dev != st->dev)
			continue;
		if (st->has_cgroup && !xa_load(&st->cgroup_match, proc->tgid))
			continue;
		if (gpumem_nl_fill_proc(skb, snap, proc,
					xa_load(&snap->tasks, proc->tgid),
					NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq))
			break;
	}
	cb->args[1] = i;
	return skb->len;
}

/* -- buffers -- */

static int gpumem_nl_buf_get_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);
	struct gpumem_nl_dump *st;
	int ret;

	if (!attrs[GPUMEM_A_BUF_OWNER]) {
		NL_SET_ERR_MSG(cb->extack,
			       "a pid (GPUMEM_A_BUF_OWNER) is required");
		return -EINVAL;
	}
	ret = gpumem_nl_dump_begin(cb, GPUMEM_SNAP_BUFFERS);
	if (ret)
		return ret;
	st = gpumem_nl_dump_state(cb);
	st->has_pid = true;
	st->pid = nla_get_u32(attrs[GPUMEM_A_BUF_OWNER]);
	return gpumem_nl_dump_dev_filter(cb, st, attrs[GPUMEM_A_BUF_DEV_ID]);
}

static bool gpumem_buf_held_by(const struct gpumem_snapshot *snap,
			       const struct gpumem_buf_row *buf, pid_t pid)
{
	u32 i;

	for (i = 0; i < buf->nr_holders; i++)
		if (snap->holders[buf->first_holder + i] == pid)
			return true;
	return false;
}

static int gpumem_nl_fill_buf(struct sk_buff *skb,
			      const struct gpumem_snapshot *snap,
			      const struct gpumem_buf_row *buf, u32 portid,
			      u32 seq)
{
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, NLM_F_MULTI,
			  GPUMEM_CMD_BUF_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUMEM_A_BUF_DEV_ID, snap->devs[buf->dev].minor) ||
	    nla_put_u32(skb, GPUMEM_A_BUF_OWNER, buf->owner) ||
	    nla_put_u32(skb, GPUMEM_A_BUF_HANDLE, buf->handle) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_BUF_SIZE, buf->size,
			      GPUMEM_A_BUF_PAD) ||
	    nla_put_u32(skb, GPUMEM_A_BUF_REGION, buf->region) ||
	    (buf->mem_type >= 0 &&
	     nla_put_u32(skb, GPUMEM_A_BUF_MEM_TYPE, buf->mem_type)) ||
	    nla_put_u8(skb, GPUMEM_A_BUF_SHARED, buf->shared))
		goto cancel;
	for (i = 0; i < buf->nr_holders; i++)
		if (nla_put_u32(skb, GPUMEM_A_BUF_HOLDER,
				snap->holders[buf->first_holder + i]))
			goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int gpumem_nl_buf_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	struct gpumem_snapshot *snap = st->snap;
	long i;

	for (i = cb->args[1]; i < snap->nr_bufs; i++) {
		const struct gpumem_buf_row *buf = &snap->bufs[i];

		if (st->has_dev && buf->dev != st->dev)
			continue;
		if (!gpumem_buf_held_by(snap, buf, st->pid))
			continue;
		if (gpumem_nl_fill_buf(skb, snap, buf,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq))
			break;
	}
	cb->args[1] = i;
	return skb->len;
}

/* -- stats -- */

static int gpumem_nl_stats_get_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	struct gpumem_walk_stats st;
	struct sk_buff *msg;
	void *hdr;

	gpumem_walk_stats(&st);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &gpumem_nl_family, 0,
				GPUMEM_CMD_STATS_GET);
	if (!hdr ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_WALKS, st.walks,
			      GPUMEM_A_STATS_PAD) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_WALKS_FAILED, st.failed,
			      GPUMEM_A_STATS_PAD) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_LAST_WALK_NS, st.last_ns,
			      GPUMEM_A_STATS_PAD) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_LAST_WALK_CLIENTS,
			      st.last_clients, GPUMEM_A_STATS_PAD) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_LAST_WALK_BOS, st.last_bos,
			      GPUMEM_A_STATS_PAD) ||
	    nla_put_u32(msg, GPUMEM_A_STATS_DEVICES, st.devices)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_ops gpumem_nl_ops[] = {
	{
		.cmd = GPUMEM_CMD_DEV_GET,
		.doit = gpumem_nl_dev_get_doit,
		.start = gpumem_nl_dev_get_start,
		.dumpit = gpumem_nl_dev_get_dumpit,
		.done = gpumem_nl_dump_done,
		.policy = gpumem_dev_get_policy,
		.maxattr = ARRAY_SIZE(gpumem_dev_get_policy) - 1,
	},
	{
		.cmd = GPUMEM_CMD_PROC_GET,
		.start = gpumem_nl_proc_get_start,
		.dumpit = gpumem_nl_proc_get_dumpit,
		.done = gpumem_nl_dump_done,
		.policy = gpumem_proc_get_policy,
		.maxattr = ARRAY_SIZE(gpumem_proc_get_policy) - 1,
	},
	{
		.cmd = GPUMEM_CMD_BUF_GET,
		.start = gpumem_nl_buf_get_start,
		.dumpit = gpumem_nl_buf_get_dumpit,
		.done = gpumem_nl_dump_done,
		.policy = gpumem_buf_get_policy,
		.maxattr = ARRAY_SIZE(gpumem_buf_get_policy) - 1,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = GPUMEM_CMD_STATS_GET,
		.doit = gpumem_nl_stats_get_doit,
	},
};

enum gpumem_nl_mcgrp {
	GPUMEM_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group gpumem_nl_mcgrps[] = {
	[GPUMEM_NL_MCGRP_EVENTS] = {
		.name = GPUMEM_MCGRP_EVENTS,
		.flags = GPUMEM_MCAST_ADMIN_ONLY,
	},
};

static struct genl_family gpumem_nl_family __ro_after_init = {
	.name = GPUMEM_FAMILY_NAME,
	.version = GPUMEM_FAMILY_VERSION,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = gpumem_nl_ops,
	.n_ops = ARRAY_SIZE(gpumem_nl_ops),
	.mcgrps = gpumem_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(gpumem_nl_mcgrps),
};

/**
 * gpumem_netlink_init() - register the "gpumem" generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int gpumem_netlink_init(void)
{
	return genl_register_family(&gpumem_nl_family);
}

/**
 * gpumem_netlink_exit() - unregister the family; waits for running dumps
 */
void gpumem_netlink_exit(void)
{
	genl_unregister_family(&gpumem_nl_family);
}
