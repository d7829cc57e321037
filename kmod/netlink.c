// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem netlink: the handlers of the generic netlink family "gpumem", a
 * thin face over snapshots like debugfs. Everything else comes from
 * uapi/gpumem.yaml through scripts/gen-uapi.sh: the attribute numbers
 * (uapi/gpumem.h), and the family, its op table, multicast group and
 * per-op request policies (netlink_gen.c, which also names the handlers
 * here and each dump's .start and .done). The policies do all validation
 * of types, lengths and the spec's ranges (strict: unknown attributes are
 * rejected). What a policy cannot say is checked here, with an extack
 * message for every rejection.
 *
 * Dumps take one snapshot in .start and free it in .done; every message of a
 * dump comes from that snapshot, so a dump is consistent however processes
 * come and go while userspace reads it. The position is kept in cb->args.
 */
#include <linux/cgroup.h>
#include <linux/moduleparam.h>
#include <linux/nsproxy.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/stringify.h>
#include <net/genetlink.h>
#include "compat.h"
#include "events.h"
#include "budget.h"
#include "cgroup_lookup.h"
#include "classify.h"
#include "dmem.h"
#include "fault_inject.h"
#include "charge.h"
#include "hook_stats.h"
#include "leak.h"
#include "netlink.h"
#include "netlink_gen.h"
#include "orphans.h"
#include "limits.h"
#include "snapshot.h"

/* State of one dump, in cb->args[0]; cb->args[1] is the next row. */
struct gpumem_nl_dump {
	struct gpumem_snapshot *snap;
	bool has_pid, has_dev;
	pid_t pid;
	int dev;			/* snapshot index of the device filter */
	struct xarray cgroup_match;	/* tgid -> xa_mk_value(1) if in cgroup */
	bool has_cgroup;
	/*
	 * The requester's view, made in .start from its namespaces (none is
	 * kept): pid_view when its pid namespace is not the initial one,
	 * nspids maps host tgids to xa_mk_value(its pid), 0 for "not in its
	 * namespace"; cg_view when its cgroup namespace is not rooted at the
	 * root cgroup, nspaths maps cgroup ids to paths from that root.
	 */
	bool pid_view, cg_view;
	struct xarray nspids;
	struct xarray nspaths;
	/* buf-get: is st->pid in the holder list held_slice? (last asked) */
	bool held_valid, held;
	size_t held_slice;
	u32 held_nr;
};

/*
 * A required attribute: the kernel's structured "missing attribute" report
 * plus a message for people. Evaluates to true when the attribute is there.
 */
#define GPUMEM_NL_REQUIRE(info, attr, msg) ({				\
	struct genl_info *__info = (info);				\
	int __attr = (attr);						\
	bool __present = !!__info->attrs[__attr];			\
									\
	if (!__present) {						\
		GENL_REQ_ATTR_CHECK(__info, __attr);			\
		NL_SET_ERR_MSG(__info->extack, msg);			\
	}								\
	__present;							\
})

/*
 * A u64 or u32 attribute: nla_reserve() and the value stored in place, its
 * size known here, where nla_put() copies it with a memcpy() call of a size
 * it is passed (a process row of the largest dumps puts ten).
 */
static int gpumem_nl_put_u64(struct sk_buff *skb, int attr, u64 v, int pad)
{
	struct nlattr *nla = nla_reserve_64bit(skb, attr, sizeof(v), pad);

	if (!nla)
		return -EMSGSIZE;
	memcpy(nla_data(nla), &v, sizeof(v));
	return 0;
}

static int gpumem_nl_put_u32(struct sk_buff *skb, int attr, u32 v)
{
	struct nlattr *nla = nla_reserve(skb, attr, sizeof(v));

	if (!nla)
		return -EMSGSIZE;
	memcpy(nla_data(nla), &v, sizeof(v));
	return 0;
}

/* -- devices -- */

/* The dmem regions of a device region (dev-dmem nests). */
static int gpumem_nl_put_dmem(struct sk_buff *skb,
			      const struct gpumem_dmem_info *info,
			      unsigned int n)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, GPUMEM_A_DEV_REGION_DMEM);
		if (!nest ||
		    (info[i].name[0] &&
		     nla_put_string(skb, GPUMEM_A_DEV_DMEM_NAME, info[i].name)) ||
		    nla_put_u32(skb, GPUMEM_A_DEV_DMEM_SOURCE, info[i].source) ||
		    (info[i].capacity &&
		     gpumem_nl_put_u64(skb, GPUMEM_A_DEV_DMEM_CAPACITY,
				       info[i].capacity, GPUMEM_A_DEV_DMEM_PAD)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

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
	    (dev->desc[0] &&
	     nla_put_string(skb, GPUMEM_A_DEV_DESC, dev->desc)) ||
	    (dev->render >= 0 &&
	     nla_put_u32(skb, GPUMEM_A_DEV_RENDER_ID, dev->render)) ||
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
				      dev->used[r], GPUMEM_A_DEV_REGION_PAD) ||
		    (dev->frag[r].known &&
		     (gpumem_nl_put_u64(skb, GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES,
					dev->frag[r].free,
					GPUMEM_A_DEV_REGION_PAD) ||
		      gpumem_nl_put_u64(skb, GPUMEM_A_DEV_REGION_LARGEST_FREE,
					dev->frag[r].largest,
					GPUMEM_A_DEV_REGION_PAD) ||
		      gpumem_nl_put_u64(skb, GPUMEM_A_DEV_REGION_FREE_BLOCKS,
					dev->frag[r].blocks,
					GPUMEM_A_DEV_REGION_PAD))) ||
		    gpumem_nl_put_dmem(skb, dev->dmem[r], dev->ndmem[r]))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int gpumem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct gpumem_snapshot *snap;
	struct sk_buff *msg;
	int idx, ret;

	if (!GPUMEM_NL_REQUIRE(info, GPUMEM_A_DEV_ID,
			       "a device id (GPUMEM_A_DEV_ID) is required"))
		return -EINVAL;
	snap = gpumem_snapshot_take(GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_FRAG);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	idx = gpumem_snapshot_dev_index(snap,
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

/*
 * What a dumpit returns once it has filled the rows before @i of @n: 0 when
 * every row is in, so that the dump ends in this pass (netlink puts
 * NLMSG_DONE in the same message and releases the dump: its state and the
 * module reference netlink holds for it go at once, read or not); else the
 * bytes filled, and the rest comes when the requester reads.
 */
static int gpumem_nl_dump_more(struct sk_buff *skb, long i, size_t n)
{
	return i < n ? skb->len : 0;
}

static struct gpumem_nl_dump *gpumem_nl_dump_state(struct netlink_callback *cb)
{
	return (struct gpumem_nl_dump *)cb->args[0];
}

/*
 * A walk (the held view, buffers) costs work in proportion to the node
 * (tasks, fds, DRM files, handles, holders: walk.c). Callers without
 * CAP_NET_ADMIN (the admin operations' privilege) pay for it from a budget
 * of their own user (budget.c: unpriv_walk_work units a second), so no
 * tenant can make gpumem walk the node without pause, and one that used up
 * its budget leaves every other user theirs; the charged view and devices
 * are no walk and are never limited.
 */
static bool gpumem_nl_walk_allowed(struct netlink_callback *cb,
				   unsigned int snap_flags, u64 *estimate)
{
	struct gpumem_snapshot_stats ws;

	*estimate = 0;
	if (snap_flags & (GPUMEM_SNAP_CHARGED | GPUMEM_SNAP_DEVICES))
		return true;
	if (netlink_capable(cb->skb, CAP_NET_ADMIN))
		return true;
	gpumem_snapshot_stats(&ws);
	*estimate = ws.last_work;
	if (gpumem_budget_allow(NETLINK_CB(cb->skb).creds.uid, *estimate))
		return true;
	*estimate = 0;
	NL_SET_ERR_MSG(cb->extack,
		       "busy: this user's walk budget (held view) is used up; retry later or use the charged view");
	return false;
}

/*
 * Container-relative views, as /proc gives them: a requester in a pid
 * namespace of its own sees the pids of its namespace, and no row of a
 * process that has none there (kernel clients included); a buffer's owner
 * or holder outside it is pid 0, as /proc shows such a parent. One in a
 * cgroup namespace sees cgroup paths from the namespace's root, as its
 * /proc/PID/cgroup does ("/../x" for a cgroup outside it). The translation
 * is made once, in .start, in the requester's own context, like the
 * snapshot it belongs to. Ids (cgroup ids, device ids) stay as they are;
 * limits, their cgroup rows and events stay in the host's view.
 */
static bool gpumem_nl_host_pidns(void)
{
	return task_active_pid_ns(current) == &init_pid_ns;
}

/* A pid the requester gave, as the initial pid namespace numbers it. */
static pid_t gpumem_nl_host_pid(pid_t nr)
{
	struct pid *pid;
	pid_t host;

	if (gpumem_nl_host_pidns())
		return nr;
	rcu_read_lock();
	pid = nr > 0 ? find_pid_ns(nr, task_active_pid_ns(current)) : NULL;
	host = pid ? pid_nr(pid) : -1;	/* -1: matches no process */
	rcu_read_unlock();
	return host;
}

/* The requester's pid of a host tgid, 0 when it has none (pid_view only). */
static pid_t gpumem_nl_nspid(struct gpumem_nl_dump *st, pid_t tgid)
{
	void *entry = xa_load(&st->nspids, tgid);

	return entry ? xa_to_value(entry) : 0;
}

static int gpumem_nl_map_pid(struct gpumem_nl_dump *st,
			     struct pid_namespace *ns, pid_t tgid)
{
	struct pid *pid;
	pid_t nr = 0;

	if (tgid <= 0 || xa_load(&st->nspids, tgid))
		return 0;
	rcu_read_lock();
	pid = find_pid_ns(tgid, &init_pid_ns);
	if (pid)
		nr = pid_nr_ns(pid, ns);
	rcu_read_unlock();
	return xa_err(xa_store(&st->nspids, tgid, xa_mk_value(nr),
			       GFP_KERNEL_ACCOUNT));
}

static int gpumem_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The paths of the snapshot's cgroups from the requester's cgroup namespace,
 * into st->nspaths: each cgroup once, all in one lookup (one kworker round
 * trip for the dump, not one per row). O(tasks log tasks).
 */
static int gpumem_nl_map_paths(struct gpumem_nl_dump *st,
			       struct cgroup_namespace *ns)
{
	struct gpumem_snapshot *snap = st->snap;
	size_t i, n = 0, u = 0;
	char **paths;
	u64 *cgids;
	int ret;

	cgids = kvmalloc_array(max_t(size_t, snap->nr_tasks, 1),
			       sizeof(*cgids), GFP_KERNEL_ACCOUNT);
	if (!cgids)
		return -ENOMEM;
	for (i = 0; i < snap->nr_tasks; i++)
		if (snap->task_list[i]->cgroup_id)
			cgids[n++] = snap->task_list[i]->cgroup_id;
	sort(cgids, n, sizeof(*cgids), gpumem_cmp_u64, NULL);
	for (i = 0; i < n; i++)
		if (!u || cgids[u - 1] != cgids[i])
			cgids[u++] = cgids[i];
	paths = kvcalloc(max_t(size_t, u, 1), sizeof(*paths),
			 GFP_KERNEL_ACCOUNT);
	if (!paths) {
		kvfree(cgids);
		return -ENOMEM;
	}
	ret = gpumem_cgroup_paths_ns(cgids, u, ns, paths);
	for (i = 0; i < u; i++) {
		if (!ret && paths[i]) {
			ret = xa_err(xa_store(&st->nspaths, cgids[i], paths[i],
					      GFP_KERNEL_ACCOUNT));
			if (!ret)
				continue;	/* the xarray has it now */
		}
		kfree(paths[i]);
	}
	kvfree(paths);
	kvfree(cgids);
	return ret;
}

static int gpumem_nl_ns_view(struct netlink_callback *cb,
			     struct gpumem_nl_dump *st)
{
	struct cgroup_namespace *cgns = current->nsproxy->cgroup_ns;
	struct pid_namespace *pidns = task_active_pid_ns(current);
	struct gpumem_snapshot *snap = st->snap;
	size_t i;
	int ret = 0;

	st->pid_view = !gpumem_nl_host_pidns();
	st->cg_view = !!cgroup_parent(cgns->root_cset->dfl_cgrp);
	if (st->cg_view)
		ret = gpumem_nl_map_paths(st, cgns);
	for (i = 0; !ret && st->pid_view && i < snap->nr_tasks; i++)
		ret = gpumem_nl_map_pid(st, pidns, snap->task_list[i]->tgid);
	for (i = 0; st->pid_view && !ret && i < snap->nr_bufs; i++)
		ret = gpumem_nl_map_pid(st, pidns, snap->bufs[i].owner);
	for (i = 0; st->pid_view && !ret && i < snap->nr_holders; i++)
		ret = gpumem_nl_map_pid(st, pidns, snap->holders[i]);
	if (ret) {
		gpumem_nl_dump_done(cb);
		cb->args[0] = 0;
	}
	return ret;
}

/*
 * Take the dump's snapshot: whole, or (@filter, a charged view) only the
 * rows the request asks for, so that a filtered dump costs what it returns.
 * It is charged to the requester (its memory cgroup) and capped at
 * dump_max_bytes (rows.c) while it is made and kept: a dump stays until
 * its requester has read it (or closed the socket), so this is what one
 * socket can pin. A walk that reaches the cap stops there.
 */
static int gpumem_nl_dump_begin(struct netlink_callback *cb,
				unsigned int snap_flags,
				const struct gpumem_snap_filter *filter)
{
	struct gpumem_nl_dump *st;
	size_t max_bytes;
	u64 estimate;

	if (!gpumem_nl_walk_allowed(cb, snap_flags, &estimate))
		return -EBUSY;
	st = kzalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	max_bytes = gpumem_snapshot_max_bytes();
	if (st)
		st->snap = gpumem_snapshot_take_filtered(snap_flags, filter,
							 max_bytes);
	if (estimate)	/* settle what the walk cost */
		gpumem_budget_charge(NETLINK_CB(cb->skb).creds.uid,
				     st && !IS_ERR(st->snap) ? st->snap->work : 0,
				     estimate);
	if (!st)
		return -ENOMEM;
	xa_init(&st->cgroup_match);
	xa_init(&st->nspids);
	xa_init(&st->nspaths);
	if (PTR_ERR_OR_ZERO(st->snap) == -EMSGSIZE)
		NL_SET_ERR_MSG(cb->extack,
			       "the dump would keep more than dump_max_bytes (module parameter) until read: narrow it (pid, device, cgroup)");
	if (IS_ERR(st->snap)) {
		int ret = PTR_ERR(st->snap);

		kfree(st);
		return ret;
	}
	cb->args[0] = (long)st;
	cb->args[1] = 0;
	return gpumem_nl_ns_view(cb, st);
}

int gpumem_nl_dump_done(struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);

	if (st) {
		unsigned long cgid;
		char *path;

		gpumem_snapshot_free(st->snap);
		xa_destroy(&st->cgroup_match);
		xa_destroy(&st->nspids);
		xa_for_each(&st->nspaths, cgid, path)
			kfree(path);
		xa_destroy(&st->nspaths);
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
	st->dev = gpumem_snapshot_dev_index(st->snap, nla_get_u32(attr));
	if (st->dev < 0) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attr, "no such DRM device");
		return -ENODEV;
	}
	st->has_dev = true;
	return 0;
}

int gpumem_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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
	return gpumem_nl_dump_more(skb, i, st->snap->nr_devs);
}

int gpumem_nl_dev_get_start(struct netlink_callback *cb)
{
	return gpumem_nl_dump_begin(cb, GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_FRAG,
				    NULL);
}

/* -- processes -- */

/* Mark every process of the snapshot that lives in @cgrp or below it. */
static int gpumem_nl_match_cgroup(struct gpumem_nl_dump *st,
				  struct cgroup *cgrp)
{
	size_t i;
	int ret;

	for (i = 0; i < st->snap->nr_tasks; i++) {
		const struct gpumem_task_row *task = st->snap->task_list[i];
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
		ret = xa_err(xa_store(&st->cgroup_match, task->tgid,
				      xa_mk_value(1), GFP_KERNEL_ACCOUNT));
		if (ret)
			return ret;
	}
	return 0;
}

static int gpumem_nl_proc_get_filters(struct netlink_callback *cb);

/*
 * A dump whose .start fails never gets .done: free the state here.
 */
static int gpumem_nl_dump_begin_filtered(struct netlink_callback *cb,
					 unsigned int snap_flags,
					 const struct gpumem_snap_filter *filter,
					 int (*filters)(struct netlink_callback *cb))
{
	int ret = gpumem_nl_dump_begin(cb, snap_flags, filter);

	if (ret)
		return ret;
	ret = filters(cb);
	if (ret) {
		gpumem_nl_dump_done(cb);
		cb->args[0] = 0;
	}
	return ret;
}

/*
 * The charged view (default) is a copy of the counters kept at allocation
 * time; the held view walks every client and buffer.
 */
int gpumem_nl_proc_get_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);
	bool held = attrs[GPUMEM_A_PROC_VIEW] &&
		    nla_get_u32(attrs[GPUMEM_A_PROC_VIEW]) ==
		    GPUMEM_PROC_VIEW_HELD;
	struct gpumem_snap_filter filter = { .minor = -1 };
	int ret;

	if (held)
		return gpumem_nl_dump_begin_filtered(cb, 0, NULL,
						     gpumem_nl_proc_get_filters);
	/*
	 * The charged view is built for the filters, resolved once, here: its
	 * snapshot holds only the rows they want (a walk must see every
	 * holder, the held view cannot be), so its rows are not checked again.
	 */
	if (attrs[GPUMEM_A_PROC_PID]) {
		filter.has_pid = true;
		filter.pid = gpumem_nl_host_pid(nla_get_u32(attrs[GPUMEM_A_PROC_PID]));
	}
	if (attrs[GPUMEM_A_PROC_DEV_ID])
		filter.minor = nla_get_u32(attrs[GPUMEM_A_PROC_DEV_ID]);
	if (attrs[GPUMEM_A_PROC_CGROUP_ID]) {
		filter.cgrp = cgroup_get_from_id(nla_get_u64(attrs[GPUMEM_A_PROC_CGROUP_ID]));
		if (IS_ERR(filter.cgrp)) {
			NL_SET_ERR_MSG_ATTR(cb->extack,
					    attrs[GPUMEM_A_PROC_CGROUP_ID],
					    "no such cgroup");
			return -ENOENT;
		}
	}
	ret = gpumem_nl_dump_begin(cb, GPUMEM_SNAP_CHARGED, &filter);
	/* a device filter naming no device is an error, not an empty dump */
	if (!ret) {
		ret = gpumem_nl_dump_dev_filter(cb, gpumem_nl_dump_state(cb),
						attrs[GPUMEM_A_PROC_DEV_ID]);
		if (ret) {
			gpumem_nl_dump_done(cb);
			cb->args[0] = 0;
		}
	}
	if (filter.cgrp)
		cgroup_put(filter.cgrp);
	return ret;
}

static int gpumem_nl_proc_get_filters(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	struct cgroup *cgrp;
	int ret;

	if (attrs[GPUMEM_A_PROC_PID]) {
		st->has_pid = true;
		st->pid = gpumem_nl_host_pid(nla_get_u32(attrs[GPUMEM_A_PROC_PID]));
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

/* @pid and @cgroup (NULL: none) as the requester sees them */
static int gpumem_nl_fill_proc(struct sk_buff *skb,
			       const struct gpumem_snapshot *snap,
			       const struct gpumem_proc_row *proc,
			       const struct gpumem_task_row *task,
			       pid_t pid, const char *cgroup,
			       u32 portid, u32 seq)
{
	bool held = !(snap->flags & GPUMEM_SNAP_CHARGED);
	struct nlattr *nest;
	void *hdr;
	int r;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, NLM_F_MULTI,
			  GPUMEM_CMD_PROC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (gpumem_nl_put_u32(skb, GPUMEM_A_PROC_PID, pid) ||
	    nla_put_string(skb, GPUMEM_A_PROC_COMM, task ? task->comm : "?") ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_PROC_CGROUP_ID,
			      task ? task->cgroup_id : 0, GPUMEM_A_PROC_PAD) ||
	    (cgroup &&
	     nla_put_string(skb, GPUMEM_A_PROC_CGROUP_PATH, cgroup)) ||
	    gpumem_nl_put_u32(skb, GPUMEM_A_PROC_DEV_ID,
			      snap->devs[proc->dev].minor) ||
	    gpumem_nl_put_u32(skb, GPUMEM_A_PROC_VIEW,
			      held ? GPUMEM_PROC_VIEW_HELD :
			      GPUMEM_PROC_VIEW_CHARGED))
		goto cancel;
	for (r = 0; r < GPUMEM_REGION_COUNT; r++) {
		/* the charged view counts the hooked regions only */
		if (!held && r != GPUMEM_REGION_VRAM && r != GPUMEM_REGION_GTT)
			continue;
		nest = nla_nest_start(skb, GPUMEM_A_PROC_USAGE);
		if (!nest)
			goto cancel;
		if (gpumem_nl_put_u32(skb, GPUMEM_A_USAGE_REGION, r) ||
		    gpumem_nl_put_u64(skb, GPUMEM_A_USAGE_BYTES,
				      proc->bytes[r], GPUMEM_A_USAGE_PAD))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	if ((held &&
	     (gpumem_nl_put_u64(skb, GPUMEM_A_PROC_SHARED, proc->shared,
				GPUMEM_A_PROC_PAD) ||
	      gpumem_nl_put_u64(skb, GPUMEM_A_PROC_OWNED, proc->owned,
				GPUMEM_A_PROC_PAD) ||
	      gpumem_nl_put_u32(skb, GPUMEM_A_PROC_SKIPPED, proc->skipped))) ||
	    gpumem_nl_put_u32(skb, GPUMEM_A_PROC_BOS, proc->bos))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int gpumem_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	struct gpumem_snapshot *snap = st->snap;
	long i;

	for (i = cb->args[1]; i < snap->nr_procs; i++) {
		const struct gpumem_proc_row *proc = snap->procs[i];
		const struct gpumem_task_row *task;
		const char *cgroup;
		pid_t pid = proc->tgid;

		if (st->has_pid && proc->tgid != st->pid)
			continue;
		if (st->has_dev && proc->dev != st->dev)
			continue;
		if (st->has_cgroup && !xa_load(&st->cgroup_match, proc->tgid))
			continue;
		/* not in the requester's pid namespace: not shown */
		if (st->pid_view)
			pid = gpumem_nl_nspid(st, proc->tgid);
		if (!pid && st->pid_view)
			continue;
		task = proc->task;
		cgroup = task ? task->cgroup : NULL;
		if (task && st->cg_view)
			cgroup = xa_load(&st->nspaths, task->cgroup_id);
		if (gpumem_nl_fill_proc(skb, snap, proc, task, pid, cgroup,
					NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq))
			break;
	}
	cb->args[1] = i;
	return gpumem_nl_dump_more(skb, i, snap->nr_procs);
}

/* -- buffers -- */

static int gpumem_nl_buf_get_filters(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);

	st->has_pid = true;
	st->pid = gpumem_nl_host_pid(nla_get_u32(attrs[GPUMEM_A_BUF_OWNER]));
	return gpumem_nl_dump_dev_filter(cb, st, attrs[GPUMEM_A_BUF_DEV_ID]);
}

int gpumem_nl_buf_get_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = gpumem_dump_attrs(cb);

	if (!attrs[GPUMEM_A_BUF_OWNER]) {
		NL_SET_ERR_MSG(cb->extack,
			       "a pid (GPUMEM_A_BUF_OWNER) is required");
		return -EINVAL;
	}
	return gpumem_nl_dump_begin_filtered(cb, GPUMEM_SNAP_BUFFERS, NULL,
					     gpumem_nl_buf_get_filters);
}

/*
 * Is @pid among @buf's holders? Buffers of one file share its holder list
 * (equal first_holder): the answer for the last list is kept in @st, so a
 * dump costs O(buffers + holder lists), not O(buffers * holders).
 */
static bool gpumem_buf_held_by(struct gpumem_nl_dump *st,
			       const struct gpumem_snapshot *snap,
			       const struct gpumem_buf_row *buf, pid_t pid)
{
	bool held = false;
	u32 i;

	if (st->held_valid && st->held_slice == buf->first_holder &&
	    st->held_nr == buf->nr_holders)
		return st->held;
	for (i = 0; i < buf->nr_holders && !held; i++)
		held = snap->holders[buf->first_holder + i] == pid;
	st->held_valid = true;
	st->held_slice = buf->first_holder;
	st->held_nr = buf->nr_holders;
	st->held = held;
	return held;
}

/* The requester's pid of a buffer's owner or holder. */
static pid_t gpumem_nl_buf_pid(struct gpumem_nl_dump *st, pid_t tgid)
{
	return st->pid_view ? gpumem_nl_nspid(st, tgid) : tgid;
}

static int gpumem_nl_fill_buf(struct sk_buff *skb,
			      struct gpumem_nl_dump *st,
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
	    nla_put_u32(skb, GPUMEM_A_BUF_OWNER,
			gpumem_nl_buf_pid(st, buf->owner)) ||
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
				gpumem_nl_buf_pid(st,
						  snap->holders[buf->first_holder + i])))
			goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int gpumem_nl_buf_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct gpumem_nl_dump *st = gpumem_nl_dump_state(cb);
	struct gpumem_snapshot *snap = st->snap;
	long i;

	for (i = cb->args[1]; i < snap->nr_bufs; i++) {
		const struct gpumem_buf_row *buf = &snap->bufs[i];

		if (st->has_dev && buf->dev != st->dev)
			continue;
		if (!gpumem_buf_held_by(st, snap, buf, st->pid))
			continue;
		if (gpumem_nl_fill_buf(skb, st, snap, buf,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq))
			break;
	}
	cb->args[1] = i;
	return gpumem_nl_dump_more(skb, i, snap->nr_bufs);
}

/* -- stats -- */

/* The attribute of each hook statistic. */
static const u16 gpumem_nl_hook_attrs[GPUMEM_HOOK_NR_STATS] = {
	[GPUMEM_HOOK_CHARGED] = GPUMEM_A_STATS_CHARGED,
	[GPUMEM_HOOK_UNCHARGED] = GPUMEM_A_STATS_UNCHARGED,
	[GPUMEM_HOOK_CHARGE_FAILED] = GPUMEM_A_STATS_CHARGE_FAILED,
	[GPUMEM_HOOK_DENIED] = GPUMEM_A_STATS_DENIED,
	[GPUMEM_HOOK_GUARD_REFUSED] = GPUMEM_A_STATS_GUARD_REFUSED,
	[GPUMEM_HOOK_EVENTS_SENT] = GPUMEM_A_STATS_EVENTS_SENT,
	[GPUMEM_HOOK_EVENTS_SUPPRESSED] = GPUMEM_A_STATS_EVENTS_SUPPRESSED,
	[GPUMEM_HOOK_EVENTS_LOST] = GPUMEM_A_STATS_EVENTS_LOST,
	[GPUMEM_HOOK_UNATTRIBUTED] = GPUMEM_A_STATS_UNATTRIBUTED,
	[GPUMEM_HOOK_RESV_RELEASED] = GPUMEM_A_STATS_RESV_RELEASED,
};

static int gpumem_nl_put_hook_stats(struct sk_buff *msg)
{
	struct gpumem_hook_stats hs;
	unsigned int i;

	gpumem_events_flush();	/* sent + lost: every number taken so far */
	gpumem_hook_stats_read(&hs);
	for (i = 0; i < GPUMEM_HOOK_NR_STATS; i++)
		if (gpumem_nl_put_u64(msg, gpumem_nl_hook_attrs[i], hs.count[i],
				      GPUMEM_A_STATS_PAD))
			return -EMSGSIZE;
	if (gpumem_nl_put_u64(msg, GPUMEM_A_STATS_LIVE_RECORDS,
			      gpumem_charge_records(), GPUMEM_A_STATS_PAD))
		return -EMSGSIZE;
	return gpumem_nl_put_u64(msg, GPUMEM_A_STATS_DMEM_UNWATCHED,
				 gpumem_dmem_unwatched(), GPUMEM_A_STATS_PAD);
}

int gpumem_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct gpumem_snapshot_stats st;
	struct sk_buff *msg;
	void *hdr;

	gpumem_snapshot_stats(&st);
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
	    gpumem_nl_put_u64(msg, GPUMEM_A_STATS_LAST_WALK_SKIPPED,
			      st.last_skipped, GPUMEM_A_STATS_PAD) ||
	    nla_put_u32(msg, GPUMEM_A_STATS_DEVICES, st.devices) ||
	    gpumem_nl_put_hook_stats(msg)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* -- limits -- */

/* The (cgroup, device, region) a limit request names, checked. */
static int gpumem_nl_limit_target(struct genl_info *info, u64 *cgid,
				  int *minor, u8 *region)
{
	struct nlattr **attrs = info->attrs;
	struct cgroup *cgrp;

	if (!GPUMEM_NL_REQUIRE(info, GPUMEM_A_LIMIT_CGROUP_ID,
			       "a cgroup id (GPUMEM_A_LIMIT_CGROUP_ID) is required"))
		return -EINVAL;
	*cgid = nla_get_u64(attrs[GPUMEM_A_LIMIT_CGROUP_ID]);
	/* the host's view: a caller inside a cgroup namespace names host ids */
	cgrp = gpumem_cgroup_get_host(*cgid);
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[GPUMEM_A_LIMIT_CGROUP_ID],
				    "no such cgroup (cgroup v2 id)");
		return -ENOENT;
	}
	cgroup_put(cgrp);
	*region = attrs[GPUMEM_A_LIMIT_REGION] ?
		  nla_get_u32(attrs[GPUMEM_A_LIMIT_REGION]) : GPUMEM_REGION_VRAM;
	/* only VRAM and GTT placements are charged: no limit elsewhere holds */
	if (*region != GPUMEM_REGION_VRAM && *region != GPUMEM_REGION_GTT) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[GPUMEM_A_LIMIT_REGION],
				    "limits apply to the vram and gtt regions only");
		return -EOPNOTSUPP;
	}
	*minor = GPUMEM_ALL_DEVICES;
	if (!attrs[GPUMEM_A_LIMIT_DEV_ID])
		return 0;
	*minor = nla_get_u32(attrs[GPUMEM_A_LIMIT_DEV_ID]);
	if (!gpumem_limits_device_present(*minor)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[GPUMEM_A_LIMIT_DEV_ID],
				    "no such DRM device");
		return -ENODEV;
	}
	return 0;
}

int gpumem_nl_limit_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	bool replace = nla_get_flag(attrs[GPUMEM_A_LIMIT_REPLACE]);
	struct gpumem_limit_change chg = {
		.max = GPUMEM_NO_LIMIT,
		.high = GPUMEM_NO_LIMIT,
		.mode = GPUMEM_LIMIT_MODE_ENFORCE,
		/* without replace, what is not given stays as it is */
		.keep_max = !replace && !attrs[GPUMEM_A_LIMIT_MAX_BYTES],
		.keep_high = !replace && !attrs[GPUMEM_A_LIMIT_HIGH_BYTES],
		.keep_mode = !replace && !attrs[GPUMEM_A_LIMIT_MODE],
	};
	int minor, ret;
	u64 cgid;
	u8 region;

	ret = gpumem_nl_limit_target(info, &cgid, &minor, &region);
	if (ret)
		return ret;
	if (!attrs[GPUMEM_A_LIMIT_MAX_BYTES] && !attrs[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    (replace || !attrs[GPUMEM_A_LIMIT_MODE])) {
		NL_SET_ERR_MSG(info->extack,
			       "a limit needs max-bytes, high-bytes or both (or a mode to change)");
		return -EINVAL;
	}
	if (attrs[GPUMEM_A_LIMIT_MAX_BYTES])
		chg.max = nla_get_u64(attrs[GPUMEM_A_LIMIT_MAX_BYTES]);
	if (attrs[GPUMEM_A_LIMIT_HIGH_BYTES])
		chg.high = nla_get_u64(attrs[GPUMEM_A_LIMIT_HIGH_BYTES]);
	if (attrs[GPUMEM_A_LIMIT_MAX_BYTES] && attrs[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    chg.high > chg.max) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    attrs[GPUMEM_A_LIMIT_HIGH_BYTES],
				    "high-bytes is above max-bytes");
		return -EINVAL;
	}
	if (attrs[GPUMEM_A_LIMIT_MODE])
		chg.mode = nla_get_u32(attrs[GPUMEM_A_LIMIT_MODE]);
	/* one enforcer: dmem.max limits a region dmem charges, not gpumem */
	if (attrs[GPUMEM_A_LIMIT_MAX_BYTES] && minor != GPUMEM_ALL_DEVICES) {
		ret = gpumem_dmem_refuse_max(minor, region, info->extack);
		if (ret)
			return ret;
	}
	ret = gpumem_limits_update(cgid, minor, region, &chg);
	if (ret == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[GPUMEM_A_LIMIT_CGROUP_ID],
				    "the cgroup is being removed");
	else if (ret == -ENODEV)
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[GPUMEM_A_LIMIT_DEV_ID],
				    "the DRM device is going away");
	else if (ret == -ENODATA)
		NL_SET_ERR_MSG(info->extack,
			       "no such limit to change: a new limit needs max-bytes, high-bytes or both");
	else if (ret == -EINVAL)
		NL_SET_ERR_MSG(info->extack,
			       "high-bytes would be above max-bytes (the limit's other value is kept)");
	return ret;
}

int gpumem_nl_limit_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	int minor, ret;
	u64 cgid;
	u8 region;

	ret = gpumem_nl_limit_target(info, &cgid, &minor, &region);
	if (ret)
		return ret;
	ret = gpumem_limits_del(cgid, minor, region);
	if (ret)
		NL_SET_ERR_MSG(info->extack,
			       "no limit on that cgroup, device and region");
	return ret;
}

/* @path: the cgroup's (host) path, NULL: none (removed meanwhile) */
static int gpumem_nl_fill_limit(struct sk_buff *skb,
				const struct gpumem_limit_row *row,
				const char *path, u32 portid, u32 seq,
				int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (gpumem_nl_put_u64(skb, GPUMEM_A_LIMIT_CGROUP_ID, row->cgid,
			      GPUMEM_A_LIMIT_PAD) ||
	    (row->minor != GPUMEM_ALL_DEVICES &&
	     nla_put_u32(skb, GPUMEM_A_LIMIT_DEV_ID, row->minor)) ||
	    nla_put_u32(skb, GPUMEM_A_LIMIT_REGION, row->region) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_LIMIT_USAGE, row->usage,
			      GPUMEM_A_LIMIT_PAD))
		goto cancel;
	if (row->has_limit &&
	    ((row->max != GPUMEM_NO_LIMIT &&
	      gpumem_nl_put_u64(skb, GPUMEM_A_LIMIT_MAX_BYTES, row->max,
				GPUMEM_A_LIMIT_PAD)) ||
	     (row->high != GPUMEM_NO_LIMIT &&
	      gpumem_nl_put_u64(skb, GPUMEM_A_LIMIT_HIGH_BYTES, row->high,
				GPUMEM_A_LIMIT_PAD)) ||
	     nla_put_u32(skb, GPUMEM_A_LIMIT_MODE, row->mode) ||
	     gpumem_nl_put_u64(skb, GPUMEM_A_LIMIT_DENIED, row->denied,
			       GPUMEM_A_LIMIT_PAD)))
		goto cancel;
	if (path && nla_put_string(skb, GPUMEM_A_LIMIT_CGROUP_PATH, path))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* One limit: looked up alone (O(1)), not found in a copy of them all. */
int gpumem_nl_limit_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct gpumem_limit_row row;
	struct sk_buff *msg;
	char *path;
	int minor, ret;
	u64 cgid;
	u8 region;

	ret = gpumem_nl_limit_target(info, &cgid, &minor, &region);
	if (ret)
		return ret;
	if (gpumem_limits_get(cgid, minor, region, &row)) {
		NL_SET_ERR_MSG(info->extack,
			       "no limit on that cgroup, device and region");
		return -ENOENT;
	}
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		kfree(path);
		return -ENOMEM;
	}
	if (path && !gpumem_cgroup_path(row.cgid, path, PATH_MAX)) {
		kfree(path);
		path = NULL;
	}
	ret = gpumem_nl_fill_limit(msg, &row, path, info->snd_portid,
				   info->snd_seq, 0, GPUMEM_CMD_LIMIT_GET);
	kfree(path);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/*
 * State of a limit or cgroup dump, in cb->args[0]; cb->args[1]: the next
 * row of the chunk in @cur. The counters are copied a chunk at a time as
 * the requester reads (gpumem_limits_rows_next()): a charge never waits
 * for more than one chunk, and an unread dump keeps one chunk.
 */
struct gpumem_nl_rows {
	struct gpumem_limits_cursor cur;
	char **paths;
	bool limits_only;
};

/* Free the paths of the chunk in @st. */
static void gpumem_nl_rows_paths_free(struct gpumem_nl_rows *st)
{
	size_t i;

	for (i = 0; st->paths && i < st->cur.nrows; i++)
		kfree(st->paths[i]);
	kvfree(st->paths);
	st->paths = NULL;
}

/*
 * The next chunk of rows and their cgroups' paths, looked up together (one
 * kworker round trip per chunk, not one per row); a row without a path
 * (no memory, or its cgroup removed) is sent without one.
 */
static int gpumem_nl_rows_next(struct gpumem_nl_rows *st)
{
	u64 *cgids;
	size_t i;
	int ret;

	gpumem_nl_rows_paths_free(st);
	ret = gpumem_limits_rows_next(&st->cur, st->limits_only);
	if (ret || !st->cur.nrows)
		return ret;
	cgids = kvmalloc_array(st->cur.nrows, sizeof(*cgids),
			       GFP_KERNEL_ACCOUNT);
	st->paths = kvcalloc(st->cur.nrows, sizeof(*st->paths),
			     GFP_KERNEL_ACCOUNT);
	if (cgids && st->paths) {
		for (i = 0; i < st->cur.nrows; i++)
			cgids[i] = st->cur.rows[i].cgid;
		gpumem_cgroup_paths_ns(cgids, st->cur.nrows, NULL, st->paths);
	}
	kvfree(cgids);
	return 0;
}

static int gpumem_nl_rows_start(struct netlink_callback *cb, bool limits_only)
{
	struct gpumem_nl_rows *st;

	st = kzalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	if (!st)
		return -ENOMEM;
	st->limits_only = limits_only;
	cb->args[0] = (long)st;
	cb->args[1] = 0;
	return 0;
}

int gpumem_nl_limit_get_start(struct netlink_callback *cb)
{
	return gpumem_nl_rows_start(cb, true);
}

int gpumem_nl_cgroup_get_start(struct netlink_callback *cb)
{
	return gpumem_nl_rows_start(cb, false);
}

int gpumem_nl_rows_done(struct netlink_callback *cb)
{
	struct gpumem_nl_rows *st = (struct gpumem_nl_rows *)cb->args[0];

	if (st) {
		gpumem_nl_rows_paths_free(st);
		gpumem_limits_cursor_free(&st->cur);
		kfree(st);
	}
	return 0;
}

static int gpumem_nl_rows_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb, u8 cmd)
{
	struct gpumem_nl_rows *st = (struct gpumem_nl_rows *)cb->args[0];
	long i = cb->args[1];
	int ret;

	for (;;) {
		if (i == st->cur.nrows) {	/* the chunk is sent: the next */
			ret = gpumem_nl_rows_next(st);
			cb->args[1] = 0;	/* @cur holds no row now */
			if (ret)
				return skb->len ?: ret;
			i = 0;
			if (!st->cur.nrows)
				break;		/* the end */
		}
		if (gpumem_nl_fill_limit(skb, &st->cur.rows[i],
					 st->paths ? st->paths[i] : NULL,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI, cmd))
			break;
		i++;
	}
	cb->args[1] = i;
	return gpumem_nl_dump_more(skb, i, st->cur.nrows);
}

int gpumem_nl_limit_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return gpumem_nl_rows_dumpit(skb, cb, GPUMEM_CMD_LIMIT_GET);
}

int gpumem_nl_cgroup_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return gpumem_nl_rows_dumpit(skb, cb, GPUMEM_CMD_CGROUP_GET);
}

/* An orphaned event's placements and who keeps them. */
static int gpumem_nl_put_orphaned(struct sk_buff *msg,
				  const struct gpumem_quota_event *ev)
{
	u32 i;

	if (nla_put_u32(msg, GPUMEM_A_EVENT_BUFFERS, ev->buffers) ||
	    nla_put_u32(msg, GPUMEM_A_EVENT_KINDS, ev->kinds))
		return -EMSGSIZE;
	for (i = 0; i < ev->nr_holders; i++)
		if (nla_put_u32(msg, GPUMEM_A_EVENT_HOLDER, ev->holders[i]))
			return -EMSGSIZE;
	return 0;
}

/*
 * The events sink (events.c numbers the events and calls us in order).
 * accept runs where the event happens (maybe inside a TTM allocation: no
 * sleep, no lookup): is anybody listening, and the fault injection point.
 * prepare runs in events.c's worker, a kernel thread in the initial
 * namespaces: it builds the whole message but its sequence number and
 * resolves the cgroup path (a direct lookup there, no round trip), and
 * may sleep; send adds the number and multicasts.
 */
static int gpumem_nl_event_accept(const struct gpumem_quota_event *ev)
{
	if (!genl_has_listeners(&gpumem_nl_family, &init_net,
				GPUMEM_NLGRP_EVENTS))
		return -ENOENT;
	return gpumem_fail_event() ? -ENOMEM : 0;
}

static void *gpumem_nl_event_prepare(const struct gpumem_quota_event *ev)
{
	struct sk_buff *msg;
	bool quota;
	void *hdr;

	if (!genl_has_listeners(&gpumem_nl_family, &init_net,
				GPUMEM_NLGRP_EVENTS))
		return ERR_PTR(-ENOENT);
	if (ev->lost)
		return NULL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	hdr = genlmsg_put(msg, 0, 0, &gpumem_nl_family, 0,
			  GPUMEM_CMD_QUOTA_EVENT);
	if (!hdr ||
	    nla_put_u32(msg, GPUMEM_A_EVENT_TYPE, ev->type) ||
	    (ev->minor != GPUMEM_ALL_DEVICES &&
	     nla_put_u32(msg, GPUMEM_A_EVENT_DEV_ID, ev->minor)) ||
	    nla_put_u32(msg, GPUMEM_A_EVENT_REGION, ev->region) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_USAGE, ev->usage,
			      GPUMEM_A_EVENT_PAD) ||
	    gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_SUPPRESSED, ev->suppressed,
			      GPUMEM_A_EVENT_PAD))
		goto drop;
	/* a leak suspect is about no placement: its growth instead */
	if (ev->type == GPUMEM_EVENT_TYPE_LEAK_SUSPECT) {
		if (gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_GROWTH, ev->growth,
				      GPUMEM_A_EVENT_PAD) ||
		    gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_RATE, ev->rate,
				      GPUMEM_A_EVENT_PAD) ||
		    nla_put_u32(msg, GPUMEM_A_EVENT_WINDOW_MS, ev->window_ms) ||
		    nla_put_u32(msg, GPUMEM_A_EVENT_WINDOWS, ev->windows))
			goto drop;
	} else if (ev->type == GPUMEM_EVENT_TYPE_ORPHANED) {
		/* nor is an orphaned one: the placements left instead */
		if (gpumem_nl_put_orphaned(msg, ev))
			goto drop;
	} else if (gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_REQUESTED,
				     ev->requested, GPUMEM_A_EVENT_PAD) ||
		   gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_LIMIT, ev->limit,
				     GPUMEM_A_EVENT_PAD) ||
		   nla_put_u8(msg, GPUMEM_A_EVENT_DENIED, ev->denied)) {
		goto drop;
	}
	/* quota events are about a cgroup's limit; the others may name one */
	quota = ev->type == GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED ||
		ev->type == GPUMEM_EVENT_TYPE_HIGH_CROSSED;
	if (((quota || ev->cgid) &&
	     gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_CGROUP_ID, ev->cgid,
			       GPUMEM_A_EVENT_PAD)) ||
	    (quota && nla_put_u32(msg, GPUMEM_A_EVENT_MODE, ev->mode)))
		goto drop;
	if (ev->pid && (nla_put_u32(msg, GPUMEM_A_EVENT_PID, ev->pid) ||
			nla_put_string(msg, GPUMEM_A_EVENT_COMM, ev->comm)))
		goto drop;
	/* a request in the owner's name: who asked */
	if (ev->req_pid &&
	    (nla_put_u32(msg, GPUMEM_A_EVENT_REQ_PID, ev->req_pid) ||
	     nla_put_string(msg, GPUMEM_A_EVENT_REQ_COMM, ev->req_comm)))
		goto drop;
	/* a refusal of the dmem controller's, not of a gpumem limit */
	if (ev->source == GPUMEM_LIMIT_SOURCE_DMEM &&
	    (nla_put_u32(msg, GPUMEM_A_EVENT_SOURCE, ev->source) ||
	     (ev->dmem_region[0] &&
	      nla_put_string(msg, GPUMEM_A_EVENT_DMEM_REGION, ev->dmem_region))))
		goto drop;
	if (ev->cgid) {
		char *path = kmalloc(PATH_MAX, GFP_KERNEL);

		if (path && gpumem_cgroup_path(ev->cgid, path, PATH_MAX) &&
		    nla_put_string(msg, GPUMEM_A_EVENT_CGROUP_PATH, path)) {
			kfree(path);
			goto drop;
		}
		kfree(path);
	}
	return msg;
drop:
	nlmsg_free(msg);
	return NULL;
}

/*
 * 0 when every listener got the event; -ENOBUFS when some socket had no
 * room (that listener sees a gap), -ESRCH when the last listener left since
 * prepare: either way the event counts as lost (events.c).
 */
static int gpumem_nl_event_send(void *data, u64 seq)
{
	struct sk_buff *msg = data;

	if (gpumem_nl_put_u64(msg, GPUMEM_A_EVENT_SEQ, seq, GPUMEM_A_EVENT_PAD)) {
		nlmsg_free(msg);
		return -EMSGSIZE;	/* its number is taken: a gap */
	}
	nlmsg_end(msg, nlmsg_hdr(msg));
	return genlmsg_multicast(&gpumem_nl_family, msg, 0, GPUMEM_NLGRP_EVENTS,
				 GFP_NOWAIT | __GFP_NOWARN);
}

static const struct gpumem_event_sink gpumem_nl_event_sink = {
	.accept = gpumem_nl_event_accept,
	.prepare = gpumem_nl_event_prepare,
	.send = gpumem_nl_event_send,
};

/**
 * gpumem_netlink_init() - register the "gpumem" generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int gpumem_netlink_init(void)
{
	int ret = genl_register_family(&gpumem_nl_family);

	if (!ret)
		gpumem_events_set_sink(&gpumem_nl_event_sink);
	return ret;
}

/**
 * gpumem_netlink_exit() - unregister the family; waits for running dumps
 */
void gpumem_netlink_exit(void)
{
	gpumem_events_set_sink(NULL);
	genl_unregister_family(&gpumem_nl_family);
}

/* -- orphans (admin only: host pids and cgroup paths) -- */

int gpumem_nl_orphan_get_start(struct netlink_callback *cb)
{
	struct gpumem_orphans *o;

	BUILD_BUG_ON(GPUMEM_ORPHAN_KERNEL != GPUMEM_ORPHAN_KIND_KERNEL ||
		     GPUMEM_ORPHAN_DMABUF != GPUMEM_ORPHAN_KIND_DMA_BUF ||
		     GPUMEM_ORPHAN_MAPPING != GPUMEM_ORPHAN_KIND_MAPPING ||
		     GPUMEM_ORPHAN_BUSY != GPUMEM_ORPHAN_KIND_BUSY);
	o = gpumem_orphans_take(gpumem_snapshot_max_bytes());
	if (PTR_ERR_OR_ZERO(o) == -EMSGSIZE)
		NL_SET_ERR_MSG(cb->extack,
			       "the report would keep more than dump_max_bytes (module parameter) until read, without any holder pids");
	if (IS_ERR(o))
		return PTR_ERR(o);
	cb->args[0] = (long)o;
	cb->args[1] = 0;
	return 0;
}

int gpumem_nl_orphan_get_done(struct netlink_callback *cb)
{
	gpumem_orphans_free((struct gpumem_orphans *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

static int gpumem_nl_fill_orphan(struct sk_buff *skb,
				 const struct gpumem_orphans *o,
				 const struct gpumem_orphan_row *row,
				 u32 portid, u32 seq)
{
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, NLM_F_MULTI,
			  GPUMEM_CMD_ORPHAN_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUMEM_A_ORPHAN_DEV_ID, row->minor) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_REGION, row->region) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_ORPHAN_BYTES, row->bytes,
			      GPUMEM_A_ORPHAN_PAD) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_BUFFERS, row->buffers) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_ORPHAN_CGROUP_ID, row->cgid,
			      GPUMEM_A_ORPHAN_PAD) ||
	    (row->cgroup &&
	     nla_put_string(skb, GPUMEM_A_ORPHAN_CGROUP_PATH, row->cgroup)) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_PID, row->tgid) ||
	    nla_put_string(skb, GPUMEM_A_ORPHAN_COMM, row->comm) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_SINCE_MS, row->since_ms) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_KINDS, row->kinds) ||
	    nla_put_u32(skb, GPUMEM_A_ORPHAN_HOLDERS_DROPPED, row->nr_dropped))
		goto cancel;
	for (i = 0; i < row->nr_holders; i++)
		if (nla_put_u32(skb, GPUMEM_A_ORPHAN_HOLDER,
				o->pids[row->first_holder + i]))
			goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int gpumem_nl_orphan_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	const struct gpumem_orphans *o = (void *)cb->args[0];
	long i;

	for (i = cb->args[1]; i < o->nr_rows; i++)
		if (gpumem_nl_fill_orphan(skb, o, &o->rows[i],
					  NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq))
			break;
	cb->args[1] = i;
	return gpumem_nl_dump_more(skb, i, o->nr_rows);
}

/* -- leak suspects (admin only: host pids and cgroup paths) -- */

int gpumem_nl_leak_get_start(struct netlink_callback *cb)
{
	struct gpumem_leak_list *list;

	list = gpumem_leak_list_take(gpumem_snapshot_max_bytes());
	if (PTR_ERR_OR_ZERO(list) == -EMSGSIZE)
		NL_SET_ERR_MSG(cb->extack,
			       "the list would keep more than dump_max_bytes (module parameter) until read");
	if (IS_ERR(list))
		return PTR_ERR(list);
	cb->args[0] = (long)list;
	cb->args[1] = 0;
	return 0;
}

int gpumem_nl_leak_get_done(struct netlink_callback *cb)
{
	gpumem_leak_list_free((struct gpumem_leak_list *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

static int gpumem_nl_fill_leak(struct sk_buff *skb,
			       const struct gpumem_leak_list *list,
			       const struct gpumem_leak_row *row,
			       u32 portid, u32 seq)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &gpumem_nl_family, NLM_F_MULTI,
			  GPUMEM_CMD_LEAK_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, GPUMEM_A_LEAK_DEV_ID, row->minor) ||
	    nla_put_u32(skb, GPUMEM_A_LEAK_REGION, row->region) ||
	    (row->pid &&
	     (nla_put_u32(skb, GPUMEM_A_LEAK_PID, row->pid) ||
	      nla_put_string(skb, GPUMEM_A_LEAK_COMM, row->comm))) ||
	    (row->cgid &&
	     gpumem_nl_put_u64(skb, GPUMEM_A_LEAK_CGROUP_ID, row->cgid,
			       GPUMEM_A_LEAK_PAD)) ||
	    (row->cgroup &&
	     nla_put_string(skb, GPUMEM_A_LEAK_CGROUP_PATH, row->cgroup)) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_LEAK_USAGE, row->usage,
			      GPUMEM_A_LEAK_PAD) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_LEAK_GROWTH, row->growth,
			      GPUMEM_A_LEAK_PAD) ||
	    gpumem_nl_put_u64(skb, GPUMEM_A_LEAK_RATE, row->rate,
			      GPUMEM_A_LEAK_PAD) ||
	    nla_put_u32(skb, GPUMEM_A_LEAK_WINDOW_MS, list->window_ms) ||
	    nla_put_u32(skb, GPUMEM_A_LEAK_WINDOWS, row->windows) ||
	    nla_put_u32(skb, GPUMEM_A_LEAK_SINCE_MS, row->since_ms)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int gpumem_nl_leak_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct gpumem_leak_list *list = (void *)cb->args[0];
	long i;

	for (i = cb->args[1]; i < list->nr; i++)
		if (gpumem_nl_fill_leak(skb, list, &list->rows[i],
					NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq))
			break;
	cb->args[1] = i;
	return gpumem_nl_dump_more(skb, i, list->nr);
}
