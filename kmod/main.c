// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem - who is using the GPU memory.
 *
 * Module entry points. The data path, in the order data flows:
 *   discover.c  DRM devices come and go; registry of devices and TTM devices
 *   walk.c      visits clients and their GEM objects with the right locks
 *   classify.c  maps one buffer placement to a region, per driver
 *   account.c   per-process aggregation, shared-buffer and owner rules
 *   rows.c      the rows of a snapshot, as the walk and the counters build them
 *   snapshot.c  what a reader calls: take a snapshot, release it, walk stats
 *   debugfs.c   the files under /sys/kernel/debug/gpumem
 *   netlink.c   the "gpumem" generic netlink family
 *   hooks.c     TTM resource manager and eviction wrappers
 *   evict_guard.c  no eviction for a task whose placement was denied
 *   charge.c    one record per charged placement, its owner and lifetime
 *   limits.c    per-cgroup counters, limits and the allow/deny decision
 *   events.c    event numbering, rate limiting, the sink (netlink)
 *   hook_stats.c  counters of the hooks, guard and events (stats)
 *   proc_usage.c  per-process counters of the same charges
 *   staircase.c the state each counter keeps for the leak detector
 *   leak.c      leak suspicion: a staircase detector over those counters
 *   orphans.c   placements whose allocator exited, and orphaned events
 *               (told about owners gone by charge.c's watch, set below)
 *   cgroup_lookup.c  cgroups by id and their paths, as the host sees them
 *   dmem.c      the kernel's dmem cgroup controller: regions, refusals, provider
 */
#include <linux/module.h>
#include "budget.h"
#include "cgroup_lookup.h"
#include "debugfs.h"
#include "discover.h"
#include "dmem.h"
#include "events.h"
#include "hooks.h"
#include "leak.h"
#include "netlink.h"
#include "orphans.h"
#include "proc_usage.h"
#include "charge.h"
#include "limits.h"
#include "walk.h"

/* Told about every device in this order (removal in reverse). */
static const struct gpumem_device_listener *const gpumem_listeners[] = {
	&gpumem_limits_listener,	/* limits may name the device */
	&gpumem_hooks_listener,		/* charges once its TTM device is known */
	&gpumem_dmem_listener,		/* its dmem regions, once it is hooked */
};

static int __init gpumem_init(void)
{
	int ret;

	ret = gpumem_cgroup_lookup_init();
	if (ret)
		return ret;
	ret = gpumem_charge_init();
	if (ret)
		goto err_lookup;
	/* the records tell the orphans report about owners gone */
	gpumem_charge_set_watch(&gpumem_orphans_watch);
	/* before discovery: hooked devices may send events at once */
	ret = gpumem_netlink_init();
	if (ret) {
		pr_err("gpumem: cannot register the netlink family: %d\n", ret);
		goto err_quota;
	}
	ret = gpumem_discover_init(gpumem_listeners,
				   ARRAY_SIZE(gpumem_listeners));
	if (ret) {
		pr_err("gpumem: cannot track DRM devices: %d\n", ret);
		goto err_netlink;
	}
	gpumem_dmem_init();	/* dmem's refusals, as events */
	gpumem_debugfs_init();
	gpumem_leak_init();
	gpumem_orphans_init();
	return 0;

err_netlink:
	gpumem_netlink_exit();
err_quota:
	gpumem_charge_exit();
	gpumem_limits_exit();
	gpumem_events_exit();
err_lookup:
	gpumem_cgroup_lookup_exit();
	return ret;
}

static void __exit gpumem_exit(void)
{
	gpumem_orphans_exit();
	gpumem_leak_exit();
	gpumem_debugfs_exit();
	gpumem_discover_exit();		/* restores every hooked device */
	gpumem_dmem_exit();		/* (every region of gpumem's is gone) */
	gpumem_hooks_exit();
	gpumem_netlink_exit();
	gpumem_charge_exit();
	gpumem_limits_exit();
	gpumem_events_exit();		/* nothing emits any more */
	gpumem_proc_usage_exit();
	gpumem_walk_exit();
	gpumem_budget_exit();
	gpumem_cgroup_lookup_exit();
}

module_init(gpumem_init);
module_exit(gpumem_exit);

MODULE_DESCRIPTION("Per-process, per-cgroup and per-device GPU memory accounting");
MODULE_AUTHOR("gpumem developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(GPUMEM_VERSION);
MODULE_SOFTDEP("pre: ttm");
