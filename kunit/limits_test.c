// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the limit tree and decision (kmod/limits.c) with its events
 * (kmod/events.c, compiled in events_test.c): hierarchy, max, high,
 * monitor, overflow, removal.
 *
 * Limits hold a real cgroup: the tests set them on the root cgroup (where
 * KUnit's kthreads live) and charge requests whose path is a made-up child
 * of the root, [child, root], so the root is the ancestor that limits it.
 * A test sink records every event with its sequence number.
 */
#include <kunit/test.h>
#include "../kmod/cgroup_lookup.c"
#include "../kmod/limits.c"

#define LT_CHILD	1000001ULL
#define LT_DEV		7

static struct gpumem_quota_event lt_events[8];
static u64 lt_seqs[8];
static unsigned int lt_nevents;

static void *lt_prepare(const struct gpumem_quota_event *ev)
{
	if (lt_nevents >= ARRAY_SIZE(lt_events))
		return NULL;	/* lost: takes a number all the same */
	lt_events[lt_nevents] = *ev;
	return &lt_events[lt_nevents];
}

static int lt_send(void *msg, u64 seq)
{
	lt_seqs[lt_nevents++] = seq;
	return 0;
}

/* The events delivered so far (events.c's worker sends them: wait for it). */
static unsigned int lt_count(void)
{
	gpumem_events_flush();
	return lt_nevents;
}

static const struct gpumem_event_sink lt_sink = {
	.prepare = lt_prepare,
	.send = lt_send,
};

static u64 lt_root(void)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
}

/* A request of @bytes on LT_DEV for [LT_CHILD, root]. */
static struct gpumem_charge_req lt_req(u64 *cgids, u64 bytes)
{
	cgids[0] = LT_CHILD;
	cgids[1] = lt_root();
	return (struct gpumem_charge_req) {
		.cgids = cgids, .depth = 2, .minor = LT_DEV,
		.region = GPUMEM_REGION_VRAM, .bytes = bytes, .tgid = 42,
	};
}

/* Set an enforced max of @max (no high) on (@cgid, @minor) VRAM. */
static int lt_max(u64 cgid, int minor, u64 max)
{
	return gpumem_limits_set(cgid, minor, GPUMEM_REGION_VRAM, max,
				 GPUMEM_NO_LIMIT, GPUMEM_LIMIT_MODE_ENFORCE);
}

/* The row of (@cgid, @minor) from a fresh copy; has_limit=false if none. */
static struct gpumem_limit_row lt_row(struct kunit *test, u64 cgid, int minor)
{
	struct gpumem_limit_row *rows, found = { .cgid = cgid, .minor = minor };
	size_t n, i;

	KUNIT_ASSERT_EQ(test, gpumem_limits_rows(&rows, &n, false), 0);
	for (i = 0; i < n; i++)
		if (rows[i].cgid == cgid && rows[i].minor == minor &&
		    rows[i].region == GPUMEM_REGION_VRAM)
			found = rows[i];
	kvfree(rows);
	return found;
}

static int lt_init(struct kunit *test)
{
	lt_nevents = 0;
	gpumem_events_set_sink(&lt_sink);
	return gpumem_limits_device_add(LT_DEV);
}

static void lt_exit(struct kunit *test)
{
	gpumem_events_set_sink(NULL);
	gpumem_limits_exit();
	gpumem_events_exit();	/* every test starts with full buckets */
}

/* Usage counts on the cgroup and its ancestor, per device and in total. */
static void lt_hierarchy_counts(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);

	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, GPUMEM_ALL_DEVICES).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage, 8192ULL);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_count(), 0U);
}

/*
 * Counters left unused are kept for reuse, unseen, and come back as new: a
 * limit set again after its removal starts with no denials.
 */
static void lt_unused_kept_as_new(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);
	struct gpumem_limit_row *rows;
	u64 root = lt_root();	/* a limit needs a live cgroup */
	size_t n;

	KUNIT_ASSERT_EQ(test, lt_max(root, LT_DEV, 4096), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lt_row(test, root, LT_DEV).denied, 1ULL);
	gpumem_limits_uncharge(&req);
	KUNIT_ASSERT_EQ(test, gpumem_limits_del(root, LT_DEV,
						GPUMEM_REGION_VRAM), 0);
	/* every node is unused now: kept, but no row */
	spin_lock(&gpumem_limits_lock);
	KUNIT_EXPECT_NOT_NULL(test, gpumem_cg_find(root, LT_DEV,
						   GPUMEM_REGION_VRAM));
	spin_unlock(&gpumem_limits_lock);
	KUNIT_ASSERT_EQ(test, gpumem_limits_rows(&rows, &n, false), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)0);
	kvfree(rows);
	KUNIT_ASSERT_EQ(test, lt_max(root, LT_DEV, 4096), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, root, LT_DEV).denied, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, root, LT_DEV).usage, 0ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	gpumem_limits_uncharge(&req);
}

/* An ancestor's max denies exactly the placement beyond it, once counted. */
static void lt_max_enforce(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);
	struct gpumem_hook_stats hs0, hs1;

	gpumem_hook_stats_read(&hs0);
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 8192), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	/* TTM's retry of the same request: decided again, not counted */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).denied, 1ULL);
	KUNIT_ASSERT_EQ(test, lt_count(), 1U);
	KUNIT_EXPECT_EQ(test, lt_events[0].type, (u32)GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED);
	KUNIT_EXPECT_TRUE(test, lt_events[0].denied);
	KUNIT_EXPECT_EQ(test, lt_events[0].usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_events[0].limit, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_events[0].pid, 42);
	/* the hook statistics count the request once too, and its event */
	gpumem_hook_stats_read(&hs1);
	KUNIT_EXPECT_EQ(test, hs1.count[GPUMEM_HOOK_DENIED],
			hs0.count[GPUMEM_HOOK_DENIED] + 1);
	KUNIT_EXPECT_EQ(test, hs1.count[GPUMEM_HOOK_EVENTS_SENT],
			hs0.count[GPUMEM_HOOK_EVENTS_SENT] + 1);
	KUNIT_EXPECT_EQ(test, hs1.count[GPUMEM_HOOK_EVENTS_SUPPRESSED],
			hs0.count[GPUMEM_HOOK_EVENTS_SUPPRESSED]);
	gpumem_limits_uncharge(&req);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);
}

/*
 * A placement made for a buffer's owner by someone else (a restore, another
 * tenant's eviction) is charged to the owner and never denied: beyond an
 * enforced max it is reported as not denied, in the owner's name.
 */
static void lt_forced(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 8192);

	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), LT_DEV, 4096), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	req.forced = true;
	req.comm = "owner";
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).denied, 2ULL);
	KUNIT_ASSERT_EQ(test, lt_count(), 2U);
	KUNIT_EXPECT_TRUE(test, lt_events[0].denied);
	KUNIT_EXPECT_FALSE(test, lt_events[1].denied);
	KUNIT_EXPECT_EQ(test, lt_events[1].usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_events[1].requested, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_events[1].pid, 42);
	KUNIT_EXPECT_STREQ(test, lt_events[1].comm, "owner");
	/* the owner's own next request is denied: it is over its max */
	req.forced = false;
	req.bytes = 1;
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	req.bytes = 8192;
	gpumem_limits_uncharge(&req);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 0ULL);
}

/* Monitor mode lets it through and reports each placement beyond max. */
static void lt_monitor(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);

	KUNIT_ASSERT_EQ(test, gpumem_limits_set(lt_root(), LT_DEV,
						GPUMEM_REGION_VRAM, 4096,
						GPUMEM_NO_LIMIT,
						GPUMEM_LIMIT_MODE_MONITOR), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 12288ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).denied, 2ULL);
	KUNIT_ASSERT_EQ(test, lt_count(), 2U);
	KUNIT_EXPECT_FALSE(test, lt_events[1].denied);
	KUNIT_EXPECT_EQ(test, lt_seqs[1], lt_seqs[0] + 1);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);
}

/* high: one event on the way up, re-armed when usage falls back. */
static void lt_high_crossed(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);

	KUNIT_ASSERT_EQ(test, gpumem_limits_set(lt_root(), GPUMEM_ALL_DEVICES,
						GPUMEM_REGION_VRAM,
						GPUMEM_NO_LIMIT, 4096,
						GPUMEM_LIMIT_MODE_ENFORCE), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);	/* = high */
	KUNIT_EXPECT_EQ(test, lt_count(), 0U);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);	/* above */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);	/* still */
	KUNIT_ASSERT_EQ(test, lt_count(), 1U);
	KUNIT_EXPECT_EQ(test, lt_events[0].type, (u32)GPUMEM_EVENT_TYPE_HIGH_CROSSED);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);	/* back at high: re-armed */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, lt_count(), 2U);
	gpumem_limits_uncharge(&req);
	gpumem_limits_uncharge(&req);
}

/* Sizes near 2^64: no wrap lets a placement past max or a counter around. */
static void lt_overflow(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req small = lt_req(cgids, 4096);
	struct gpumem_charge_req huge = lt_req(cgids, U64_MAX - 100);

	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 1ULL << 40), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&small, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&huge, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 4096ULL);
	KUNIT_ASSERT_EQ(test, gpumem_limits_del(lt_root(), GPUMEM_ALL_DEVICES,
						GPUMEM_REGION_VRAM), 0);
	/* no limit at all: a counter that would wrap still refuses */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&huge, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 4096ULL);
	gpumem_limits_uncharge(&small);
}

/* Removing a limit: the next placement passes, the row says no limit. */
static void lt_removal(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 8192);
	struct gpumem_limit_row row;

	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), LT_DEV, 4096), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, gpumem_limits_del(lt_root(), LT_DEV,
						GPUMEM_REGION_VRAM), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_del(lt_root(), LT_DEV,
						GPUMEM_REGION_VRAM), -ENOENT);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	row = lt_row(test, lt_root(), LT_DEV);
	KUNIT_EXPECT_FALSE(test, row.has_limit);
	KUNIT_EXPECT_EQ(test, row.max, GPUMEM_NO_LIMIT);
	KUNIT_EXPECT_EQ(test, row.usage, 8192ULL);
	/* a limit on a cgroup id that does not exist is refused */
	KUNIT_EXPECT_EQ(test, lt_max(LT_CHILD, LT_DEV, 4096), -ENOENT);
	gpumem_limits_uncharge(&req);
}

/* An update changes what it is given and keeps the rest, in one step. */
static void lt_update_keeps(struct kunit *test)
{
	struct gpumem_limit_change high_only = {
		.high = 2048, .keep_max = true, .keep_mode = true,
	};
	struct gpumem_limit_change mode_only = {
		.mode = GPUMEM_LIMIT_MODE_MONITOR, .keep_max = true,
		.keep_high = true,
	};
	struct gpumem_limit_change too_high = {
		.high = 8192, .keep_max = true, .keep_mode = true,
	};
	struct gpumem_limit_row row;

	/* nothing to keep yet: a new limit needs max or high */
	KUNIT_EXPECT_EQ(test, gpumem_limits_update(lt_root(), LT_DEV,
						   GPUMEM_REGION_VRAM,
						   &mode_only), -ENODATA);
	KUNIT_EXPECT_FALSE(test, lt_row(test, lt_root(), LT_DEV).has_limit);
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), LT_DEV, 4096), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_update(lt_root(), LT_DEV,
						   GPUMEM_REGION_VRAM,
						   &high_only), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_update(lt_root(), LT_DEV,
						   GPUMEM_REGION_VRAM,
						   &mode_only), 0);
	row = lt_row(test, lt_root(), LT_DEV);
	KUNIT_EXPECT_EQ(test, row.max, 4096ULL);
	KUNIT_EXPECT_EQ(test, row.high, 2048ULL);
	KUNIT_EXPECT_EQ(test, row.mode, (u32)GPUMEM_LIMIT_MODE_MONITOR);
	/* high above the kept max: refused, nothing changed */
	KUNIT_EXPECT_EQ(test, gpumem_limits_update(lt_root(), LT_DEV,
						   GPUMEM_REGION_VRAM,
						   &too_high), -EINVAL);
	row = lt_row(test, lt_root(), LT_DEV);
	KUNIT_EXPECT_EQ(test, row.high, 2048ULL);
	KUNIT_EXPECT_EQ(test, row.max, 4096ULL);
}

/* A lost event still takes its number: the next one shows the gap. */
static void lt_lost_event_gap(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);
	unsigned int i;
	u64 last;

	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 1), 0);
	for (i = 0; i < ARRAY_SIZE(lt_events) + 2; i++)
		KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	KUNIT_ASSERT_EQ(test, lt_count(), (unsigned int)ARRAY_SIZE(lt_events));
	/* the sink was full: two more were lost, and numbered (the next: +3) */
	last = lt_seqs[ARRAY_SIZE(lt_events) - 1];
	lt_nevents = 0;
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	KUNIT_ASSERT_EQ(test, lt_count(), 1U);
	KUNIT_EXPECT_EQ(test, lt_seqs[0], last + 3);
}

/*
 * A device that goes takes its limits with it: the next device with its
 * minor starts without them, and no limit can be set while it is gone.
 */
static void lt_device_gone(struct kunit *test)
{
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 8192);

	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), LT_DEV, 4096), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), -ENOSPC);
	gpumem_limits_device_gone(LT_DEV);
	KUNIT_EXPECT_FALSE(test, lt_row(test, lt_root(), LT_DEV).has_limit);
	KUNIT_EXPECT_EQ(test, lt_max(lt_root(), LT_DEV, 4096), -ENODEV);
	KUNIT_EXPECT_FALSE(test, lt_row(test, lt_root(), LT_DEV).has_limit);
	/* a new device with the same minor: no limit of the old one */
	KUNIT_ASSERT_EQ(test, gpumem_limits_device_add(LT_DEV), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 8192ULL);
	gpumem_limits_uncharge(&req);
}

/*
 * A charge keeps the counters it charged (req.nodes, the device's of each
 * level) for its uncharge: each stays while charged, even one charged 0
 * bytes whose usage went to 0. The all-devices counters without a limit
 * are not charged: found from the device's, summed where read.
 */
static void lt_nodes_kept(struct kunit *test)
{
	struct gpumem_cg_node *nodes[GPUMEM_LIMITS_NODES(2)];
	struct gpumem_cg_node *zero_nodes[GPUMEM_LIMITS_NODES(2)];
	u64 cgids[2];
	struct gpumem_charge_req req = lt_req(cgids, 4096);
	struct gpumem_charge_req zero = lt_req(cgids, 0);
	struct gpumem_cg_node *n;
	int i;

	req.nodes = nodes;
	zero.nodes = zero_nodes;
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&zero, false), 0);
	spin_lock(&gpumem_limits_lock);
	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		KUNIT_EXPECT_PTR_EQ(test, nodes[i],
				    gpumem_cg_find(cgids[i], LT_DEV,
						   GPUMEM_REGION_VRAM));
		KUNIT_EXPECT_PTR_EQ(test, nodes[i]->all,
				    gpumem_cg_find(cgids[i], GPUMEM_ALL_DEVICES,
						   GPUMEM_REGION_VRAM));
		KUNIT_EXPECT_PTR_EQ(test, zero_nodes[i], nodes[i]);
		/* no limit on all devices: not counted, summed */
		KUNIT_EXPECT_EQ(test, nodes[i]->all->row.usage, 0ULL);
		KUNIT_EXPECT_EQ(test, nodes[i]->all->charges, 0UL);
		KUNIT_EXPECT_EQ(test, gpumem_cg_usage(nodes[i]->all), 4096ULL);
		KUNIT_EXPECT_EQ(test, gpumem_cg_usage(nodes[i]), 4096ULL);
	}
	KUNIT_EXPECT_EQ(test, nodes[0]->charges, 2UL);
	KUNIT_EXPECT_EQ(test, nodes[0]->row.usage, 4096ULL);
	/* the root without a limit: not charged, its child on its list */
	KUNIT_EXPECT_PTR_EQ(test, nodes[0]->up, nodes[1]);
	KUNIT_EXPECT_EQ(test, nodes[1]->charges, 0UL);
	KUNIT_EXPECT_EQ(test, nodes[1]->row.usage, 0ULL);
	spin_unlock(&gpumem_limits_lock);

	/* usage back to 0, one charge left: the counters stay, in use */
	gpumem_limits_uncharge(&req);
	spin_lock(&gpumem_limits_lock);
	KUNIT_EXPECT_EQ(test, nodes[0]->charges, 1UL);
	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		KUNIT_EXPECT_EQ(test, gpumem_cg_usage(nodes[i]), 0ULL);
		KUNIT_EXPECT_FALSE(test, nodes[i]->kept);
	}
	KUNIT_EXPECT_PTR_EQ(test, nodes[0], gpumem_cg_find(LT_CHILD, LT_DEV,
							   GPUMEM_REGION_VRAM));
	spin_unlock(&gpumem_limits_lock);
	gpumem_limits_uncharge(&zero);
	spin_lock(&gpumem_limits_lock);
	for (i = 0; i < ARRAY_SIZE(nodes); i++) {
		n = gpumem_cg_find(cgids[i], LT_DEV, GPUMEM_REGION_VRAM);
		/* unused now: kept for reuse (or freed), no charge */
		KUNIT_EXPECT_TRUE(test, !n || !n->charges);
		KUNIT_EXPECT_TRUE(test, !n || gpumem_cg_usage(n) == 0);
		/* its all-devices node stays while it is there */
		KUNIT_EXPECT_TRUE(test, !n || n->all ==
				  gpumem_cg_find(cgids[i], GPUMEM_ALL_DEVICES,
						 GPUMEM_REGION_VRAM));
	}
	/* the child's is kept; the root's stays in use while it is there */
	n = gpumem_cg_find(LT_CHILD, LT_DEV, GPUMEM_REGION_VRAM);
	KUNIT_EXPECT_TRUE(test, n && n->kept);
	KUNIT_EXPECT_TRUE(test, n && n->up && !n->up->kept &&
			  n->up == gpumem_cg_find(lt_root(), LT_DEV,
						  GPUMEM_REGION_VRAM));
	spin_unlock(&gpumem_limits_lock);
}

/* The all-devices node of @cgid: its counter and whether it is counted. */
static void lt_all_node(struct kunit *test, u64 cgid, u64 *usage, bool *counted)
{
	struct gpumem_cg_node *n;

	spin_lock(&gpumem_limits_lock);
	n = gpumem_cg_find(cgid, GPUMEM_ALL_DEVICES, GPUMEM_REGION_VRAM);
	*usage = n ? n->row.usage : 0;
	*counted = n && n->row.has_limit;
	spin_unlock(&gpumem_limits_lock);
}

/*
 * The all-devices figure without a limit is the sum of the devices' at
 * every read; a max set on all devices starts from that sum (placements
 * made before it included) and decides exactly against it, on either
 * device, and what was charged before it is given back from it too.
 */
static void lt_all_devices_summed(struct kunit *test)
{
	u64 cgids[2], cgids2[2], usage;
	struct gpumem_charge_req a = lt_req(cgids, 4096);
	struct gpumem_charge_req b = lt_req(cgids2, 8192);
	struct gpumem_charge_req one = lt_req(cgids2, 1);
	struct gpumem_cg_node *b_nodes[GPUMEM_LIMITS_NODES(2)];
	struct gpumem_limit_row row;
	bool counted;

	b.minor = LT_DEV + 1;
	b.nodes = b_nodes;
	one.minor = LT_DEV + 1;
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&a, false), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&b, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 4096ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV + 1).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, GPUMEM_ALL_DEVICES).usage,
			12288ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			12288ULL);
	lt_all_node(test, lt_root(), &usage, &counted);
	KUNIT_EXPECT_FALSE(test, counted);
	KUNIT_EXPECT_EQ(test, usage, 0ULL);

	/* a max on all devices: counted from the sum, 4096 left below it */
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 16384), 0);
	lt_all_node(test, lt_root(), &usage, &counted);
	KUNIT_EXPECT_TRUE(test, counted);
	KUNIT_EXPECT_EQ(test, usage, 12288ULL);
	KUNIT_ASSERT_EQ(test, gpumem_limits_get(lt_root(), GPUMEM_ALL_DEVICES,
						GPUMEM_REGION_VRAM, &row), 0);
	KUNIT_EXPECT_EQ(test, row.usage, 12288ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&a, false), 0);	/* = max */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), -ENOSPC);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&a, false), -ENOSPC);
	row = lt_row(test, lt_root(), GPUMEM_ALL_DEVICES);
	KUNIT_EXPECT_EQ(test, row.usage, 16384ULL);
	KUNIT_EXPECT_EQ(test, row.denied, 2ULL);
	/* the child's all-devices figure is still summed */
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, GPUMEM_ALL_DEVICES).usage,
			16384ULL);
	lt_all_node(test, LT_CHILD, &usage, &counted);
	KUNIT_EXPECT_FALSE(test, counted);

	/* what was charged before the limit is given back from it too */
	gpumem_limits_uncharge(&b);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			8192ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&b, false), 0);	/* = max */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), -ENOSPC);

	/* without the limit: summed again, the same figure */
	KUNIT_ASSERT_EQ(test, gpumem_limits_del(lt_root(), GPUMEM_ALL_DEVICES,
						GPUMEM_REGION_VRAM), 0);
	lt_all_node(test, lt_root(), &usage, &counted);
	KUNIT_EXPECT_FALSE(test, counted);
	KUNIT_EXPECT_EQ(test, usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			16384ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), 0);
	gpumem_limits_uncharge(&one);
	/* set again at the sum: the next byte is beyond it */
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 16384), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), -ENOSPC);
	/* set over usage: its denials go on */
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).denied,
			4ULL);

	gpumem_limits_uncharge(&a);
	gpumem_limits_uncharge(&a);
	gpumem_limits_uncharge(&b);
	row = lt_row(test, lt_root(), GPUMEM_ALL_DEVICES);
	KUNIT_EXPECT_TRUE(test, row.has_limit);
	KUNIT_EXPECT_EQ(test, row.usage, 0ULL);
	/* removed and set again with nothing charged: as a new limit */
	KUNIT_ASSERT_EQ(test, gpumem_limits_del(lt_root(), GPUMEM_ALL_DEVICES,
						GPUMEM_REGION_VRAM), 0);
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), GPUMEM_ALL_DEVICES, 16384), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).denied,
			0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, GPUMEM_ALL_DEVICES).usage,
			0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV + 1).usage, 0ULL);
}

/*
 * The root's figure without a limit on it is its own processes' plus its
 * children's, summed at every read; a max set on the root starts from that
 * sum and decides exactly against it, for a child's placement and for the
 * root's own, and what was charged before it is given back from it too.
 */
static void lt_root_summed(struct kunit *test)
{
	u64 cgids[2], own_id[1], usage;
	struct gpumem_charge_req kid = lt_req(cgids, 4096);
	struct gpumem_charge_req one = lt_req(cgids, 1);
	struct gpumem_charge_req own = {
		.cgids = own_id, .depth = 1, .minor = LT_DEV,
		.region = GPUMEM_REGION_VRAM, .bytes = 8192, .tgid = 43,
	};
	struct gpumem_cg_node *kid_nodes[GPUMEM_LIMITS_NODES(2)];
	struct gpumem_limit_row row;
	bool counted;

	own_id[0] = lt_root();
	kid.nodes = kid_nodes;
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&kid, false), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&own, false), 0);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 12288ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 4096ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			12288ULL);
	spin_lock(&gpumem_limits_lock);
	usage = kid_nodes[1]->row.usage;	/* the root's own only */
	counted = kid_nodes[1]->row.has_limit;
	spin_unlock(&gpumem_limits_lock);
	KUNIT_EXPECT_FALSE(test, counted);
	KUNIT_EXPECT_EQ(test, usage, 8192ULL);

	/* a max on the root's device: counted from the sum, 4096 below it */
	KUNIT_ASSERT_EQ(test, lt_max(lt_root(), LT_DEV, 16384), 0);
	KUNIT_ASSERT_EQ(test, gpumem_limits_get(lt_root(), LT_DEV,
						GPUMEM_REGION_VRAM, &row), 0);
	KUNIT_EXPECT_EQ(test, row.usage, 12288ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&kid, false), 0);	/* = max */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), -ENOSPC);
	own.bytes = 1;
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&own, false), -ENOSPC);
	own.bytes = 8192;
	row = lt_row(test, lt_root(), LT_DEV);
	KUNIT_EXPECT_EQ(test, row.usage, 16384ULL);
	KUNIT_EXPECT_EQ(test, row.denied, 2ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 8192ULL);

	/* the root's own charge, made before the limit, given back from it */
	gpumem_limits_uncharge(&own);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			8192ULL);
	/* and a child's, made before it too */
	gpumem_limits_uncharge(&kid);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 4096ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&own, false), 0);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&kid, false), 0);	/* = max */
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), -ENOSPC);

	/* without the limit: summed again, the same figure */
	KUNIT_ASSERT_EQ(test, gpumem_limits_del(lt_root(), LT_DEV,
						GPUMEM_REGION_VRAM), 0);
	spin_lock(&gpumem_limits_lock);
	usage = kid_nodes[1]->row.usage;
	spin_unlock(&gpumem_limits_lock);
	KUNIT_EXPECT_EQ(test, usage, 8192ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 16384ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			16384ULL);
	KUNIT_EXPECT_EQ(test, gpumem_limits_charge(&one, false), 0);
	gpumem_limits_uncharge(&one);

	gpumem_limits_uncharge(&own);
	gpumem_limits_uncharge(&kid);
	gpumem_limits_uncharge(&kid);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), LT_DEV).usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, LT_CHILD, LT_DEV).usage, 0ULL);
	KUNIT_EXPECT_EQ(test, lt_row(test, lt_root(), GPUMEM_ALL_DEVICES).usage,
			0ULL);
}

static struct kunit_case gpumem_limits_cases[] = {
	KUNIT_CASE(lt_hierarchy_counts),
	KUNIT_CASE(lt_nodes_kept),
	KUNIT_CASE(lt_all_devices_summed),
	KUNIT_CASE(lt_root_summed),
	KUNIT_CASE(lt_unused_kept_as_new),
	KUNIT_CASE(lt_max_enforce),
	KUNIT_CASE(lt_forced),
	KUNIT_CASE(lt_update_keeps),
	KUNIT_CASE(lt_monitor),
	KUNIT_CASE(lt_high_crossed),
	KUNIT_CASE(lt_overflow),
	KUNIT_CASE(lt_removal),
	KUNIT_CASE(lt_lost_event_gap),
	KUNIT_CASE(lt_device_gone),
	{}
};

static struct kunit_suite gpumem_limits_suite = {
	.name = "gpumem_limits",
	.init = lt_init,
	.exit = lt_exit,
	.test_cases = gpumem_limits_cases,
};

kunit_test_suite(gpumem_limits_suite);
