// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the orphaned events' bookkeeping in the charge records
 * (kmod/charge.c): an owner newly seen gone kicks the events' work once (a
 * report's pass, the sweep's), a claim takes each orphan once and a report
 * still sees them all, a new placement of a claimed buffer is no new
 * orphan, a death while the events are off is never claimed, and a buffer
 * TTM is deleting is not claimed; a walk during a resize of the table says
 * so (a report then counts again). Records are made by hand (the test runs
 * in a kernel thread, which owns no buffer) for fake TTM buffers; the owner
 * that is gone is a kernel thread that exited.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
/* its own slab cache: gpumem's may be there too */
#define GPUMEM_CHARGE_CACHE_NAME	"gpumem_kunit_charge"
#include "../kmod/charge.c"

#define OT_DEV		13
#define OT_CG		3000001ULL
#define OT_MIB		(1024ULL * 1024)

/* orphans.c is not in this module: the watch it sets, counted */
static bool ot_events_on = true;
static unsigned int ot_kicks;

static bool ot_watch_on(void)
{
	return ot_events_on;
}

static void ot_watch_gone(void)
{
	ot_kicks++;
}

static const struct gpumem_charge_watch ot_watch = {
	.on = ot_watch_on,
	.gone = ot_watch_gone,
};

#ifdef CONFIG_FAULT_INJECTION
/* nor is fault_inject.c */
bool gpumem_fail_charge(void)
{
	return false;
}
#endif

static int ot_thread_fn(void *arg)
{
	return 0;
}

/* A pid whose thread group is gone (referenced: put_pid()). */
static struct pid *ot_dead_pid(struct kunit *test)
{
	struct task_struct *t;
	struct pid *pid;
	int i;

	t = kthread_create(ot_thread_fn, NULL, "gm-kunit-orph");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	pid = get_pid(task_tgid(t));
	wake_up_process(t);
	for (i = 0; i < 100 && pid_has_task(pid, PIDTYPE_TGID); i++)
		msleep(20);
	KUNIT_ASSERT_FALSE(test, pid_has_task(pid, PIDTYPE_TGID));
	return pid;
}

/* A fake TTM buffer (the records only read its GEM object and @deleted). */
static struct ttm_buffer_object *ot_bo(struct kunit *test)
{
	struct ttm_buffer_object *bo = kunit_kzalloc(test, sizeof(*bo),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bo);
	kref_init(&bo->base.refcount);
	return bo;
}

/*
 * A counted VRAM record of @bytes for @bo, owned by @owner (or inheriting
 * from @from, a new placement of the same buffer), not in the table yet.
 */
static struct gpumem_charge *ot_record_new(struct kunit *test,
					   struct ttm_buffer_object *bo,
					   struct pid *owner, u64 bytes,
					   struct gpumem_charge *from)
{
	struct gpumem_charge *c;
	bool forced, ok;

	/* room for two levels and the counters they are charged to */
	c = gpumem_charge_alloc(2);
	KUNIT_ASSERT_NOT_NULL(test, c);
	if (from) {	/* a new placement of the same buffer */
		rcu_read_lock();
		ok = gpumem_charge_inherit(c, from, &forced);
		rcu_read_unlock();
		KUNIT_ASSERT_TRUE(test, ok);
	} else {
		c->owner = get_pid(owner);
		c->tgid = pid_nr(owner);
		c->depth = 2;
		c->cgids[0] = OT_CG;
		rcu_read_lock();
		c->cgids[1] = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
		strscpy(c->comm, "kunit-orph", sizeof(c->comm));
	}
	c->res = (struct ttm_resource *)c;	/* a key, never dereferenced */
	c->obj = &bo->base;
	c->bytes = bytes;
	c->minor = OT_DEV;
	c->region = GPUMEM_REGION_VRAM;
	c->counted = true;
	c->since = jiffies;
	return c;
}

/* Charge @c and put it in the table (a placement committed). */
static void ot_record_link(struct kunit *test, struct gpumem_charge *c)
{
	struct gpumem_charge_req req = gpumem_charge_req(c);

	req.forced = true;
	KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
	KUNIT_ASSERT_EQ(test, gpumem_charge_link(c), 0);
}

/* A counted VRAM record of @bytes for @bo, owned by @owner, in the table. */
static struct gpumem_charge *ot_record(struct kunit *test,
				       struct ttm_buffer_object *bo,
				       struct pid *owner, u64 bytes,
				       struct gpumem_charge *from)
{
	struct gpumem_charge *c = ot_record_new(test, bo, owner, bytes, from);

	ot_record_link(test, c);
	return c;
}

/* The orphans of OT_DEV a pass finds (@claim: for the events). */
static size_t ot_orphans(struct kunit *test, bool claim)
{
	struct gpumem_orphan_rec *recs = NULL;
	size_t cap = 0, nr = 0, i, mine = 0;

	KUNIT_EXPECT_EQ(test, gpumem_charge_orphans(&recs, &cap, &nr, claim, 0),
			0);
	for (i = 0; i < nr; i++)
		if (recs[i].minor == OT_DEV)
			mine++;
	kvfree(recs);
	return mine;
}

/* One pass of the sweep over the records; whether it kicked the events. */
static bool ot_sweep(void)
{
	struct gpumem_sweep s = { .watch = ot_events_on };

	mutex_lock(&gpumem_charges_walk_lock);
	gpumem_charge_walk(gpumem_charge_orphan, &s);
	mutex_unlock(&gpumem_charges_walk_lock);
	return s.kick;
}

static int ot_init(struct kunit *test)
{
	int ret;

	ot_events_on = true;
	ot_kicks = 0;
	ret = gpumem_charge_init();
	if (!ret)
		gpumem_charge_set_watch(&ot_watch);
	return ret;
}

static void ot_exit(struct kunit *test)
{
	gpumem_charge_exit();	/* gives every record back */
	gpumem_charge_set_watch(NULL);
	/* free the counters kept for reuse (and stop their reapers) */
	gpumem_limits_exit();
	gpumem_proc_usage_exit();
}

/* Two placements of a gone owner, one of a live one: each claimed once. */
static void ot_claim_once(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test), *me = get_pid(task_tgid(current));

	ot_record(test, ot_bo(test), dead, OT_MIB, NULL);
	ot_record(test, ot_bo(test), dead, 2 * OT_MIB, NULL);
	ot_record(test, ot_bo(test), me, OT_MIB, NULL);
	/* a report sees the orphans, and kicks the events once */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 2U);
	KUNIT_EXPECT_EQ(test, ot_kicks, 1U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 2U);
	KUNIT_EXPECT_EQ(test, ot_kicks, 1U);
	/* the events' claim: both, once */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 2U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 0U);
	/* a report still sees them; the sweep finds nobody newly gone */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 2U);
	KUNIT_EXPECT_FALSE(test, ot_sweep());
	KUNIT_EXPECT_EQ(test, ot_kicks, 1U);
	put_pid(me);
	put_pid(dead);
}

/* The sweep notices the exit (no report first): one kick, then a claim. */
static void ot_sweep_kicks(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);

	ot_record(test, ot_bo(test), dead, OT_MIB, NULL);
	KUNIT_EXPECT_TRUE(test, ot_sweep());
	KUNIT_EXPECT_FALSE(test, ot_sweep());
	KUNIT_EXPECT_EQ(test, ot_kicks, 0U);	/* the caller kicks */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 1U);
	KUNIT_EXPECT_EQ(test, ot_kicks, 0U);	/* a claim never kicks */
	put_pid(dead);
}

/* A new placement of a claimed buffer (a restore, say): no new orphan. */
static void ot_inherit(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);
	struct ttm_buffer_object *bo = ot_bo(test);
	struct gpumem_charge *c;

	c = ot_record(test, bo, dead, OT_MIB, NULL);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 1U);
	ot_record(test, bo, NULL, OT_MIB, c);
	gpumem_charge_release(c->res);	/* the old placement goes */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 1U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 0U);
	put_pid(dead);
}

/*
 * A restore racing a claim: the new placement's record is built from the
 * old one's before the events' claim takes the old one, and committed
 * after it; then the old placement goes. The orphan is claimed once all
 * the same: the second claim finds nothing.
 */
static void ot_restore_races_claim(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);
	struct ttm_buffer_object *bo = ot_bo(test);
	struct gpumem_charge *o, *c;

	o = ot_record(test, bo, dead, OT_MIB, NULL);
	c = ot_record_new(test, bo, NULL, OT_MIB, o);	/* the restore starts */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 1U);	/* the claim */
	ot_record_link(test, c);			/* the restore commits */
	gpumem_charge_release(o->res);			/* the old placement goes */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 1U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 0U);
	put_pid(dead);
}

/* A death seen while the events are off is never reported later. */
static void ot_events_off(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);

	ot_events_on = false;
	ot_record(test, ot_bo(test), dead, OT_MIB, NULL);
	KUNIT_EXPECT_FALSE(test, ot_sweep());
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 1U);
	KUNIT_EXPECT_EQ(test, ot_kicks, 0U);
	ot_events_on = true;
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 0U);
	put_pid(dead);
}

/* A buffer TTM is deleting is nobody's orphan: not claimed (nor marked). */
static void ot_deleted(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);
	struct ttm_buffer_object *bo = ot_bo(test);

	bo->deleted = true;
	ot_record(test, bo, dead, OT_MIB, NULL);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 0U);
	bo->deleted = false;	/* only to see it was not marked reported */
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 1U);
	put_pid(dead);
}

/* Records a thread links while a walk runs (the table grows under it). */
#define OT_GROW		64

struct ot_grow {
	struct kunit *test;
	struct completion go, done;
	unsigned int visits;	/* of the OT_DEV record, by the walk */
	bool resized;		/* the walk saw the table replaced */
	int linked;
};

/* Link OT_GROW records of another device, owned by this live thread. */
static int ot_grow_fn(void *arg)
{
	struct ot_grow *g = arg;
	struct gpumem_charge *c;
	int i;

	wait_for_completion(&g->go);
	for (i = 0; i < OT_GROW; i++) {
		struct gpumem_charge_req req;

		c = gpumem_charge_alloc(2);
		if (!c)
			break;
		c->owner = get_pid(task_tgid(current));
		c->tgid = pid_nr(c->owner);
		c->depth = 2;
		c->cgids[0] = OT_CG;
		rcu_read_lock();
		c->cgids[1] = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
		c->res = (struct ttm_resource *)c;
		c->minor = OT_DEV + 1;
		c->region = GPUMEM_REGION_VRAM;
		c->counted = true;
		c->bytes = OT_MIB;
		req = gpumem_charge_req(c);
		req.forced = true;
		if (gpumem_limits_charge(&req, false) ||
		    gpumem_charge_link(c))
			break;
		g->linked++;
	}
	complete(&g->done);
	return 0;
}

/*
 * The walk's visit: at the first record of OT_DEV, let the thread grow the
 * table and wait (at most 5 s: RCU is held, nothing may sleep) until the
 * table was replaced, so that the walk ends on the new one.
 */
static bool ot_grow_visit(struct gpumem_charge *c, void *arg)
{
	struct ot_grow *g = arg;
	struct bucket_table *tbl;
	unsigned long end;

	if (c->minor != OT_DEV || g->visits++)
		return false;
	tbl = rcu_dereference(gpumem_charges.tbl);
	complete(&g->go);
	end = jiffies + 5 * HZ;
	while (rcu_dereference(gpumem_charges.tbl) == tbl &&
	       time_before(jiffies, end))
		cpu_relax();
	g->resized = rcu_dereference(gpumem_charges.tbl) != tbl;
	return false;
}

/*
 * The table grows (a worker rehashes it) while a walk runs: the walk goes
 * on from the start of the new table and sees a record twice, and says so;
 * a report walks again and counts each orphan once.
 */
static void ot_walk_resized(struct kunit *test)
{
	struct pid *dead = ot_dead_pid(test);
	struct ot_grow g = { .test = test };
	struct task_struct *t;
	bool again;

	init_completion(&g.go);
	init_completion(&g.done);
	ot_record(test, ot_bo(test), dead, OT_MIB, NULL);
	t = kthread_run(ot_grow_fn, &g, "gm-kunit-grow");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	mutex_lock(&gpumem_charges_walk_lock);
	again = gpumem_charge_walk(ot_grow_visit, &g);
	mutex_unlock(&gpumem_charges_walk_lock);
	complete(&g.go);	/* in case the walk never got there */
	wait_for_completion(&g.done);
	KUNIT_EXPECT_EQ(test, g.linked, OT_GROW);
	KUNIT_ASSERT_TRUE_MSG(test, g.resized,
			      "the table was not replaced within 5 s");
	KUNIT_EXPECT_TRUE(test, again);
	/* seen twice: the duplicate a report must not count */
	KUNIT_EXPECT_EQ(test, g.visits, 2U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, false), 1U);
	KUNIT_EXPECT_EQ(test, ot_orphans(test, true), 1U);
	put_pid(dead);
}

static struct kunit_case gpumem_orphans_cases[] = {
	KUNIT_CASE(ot_claim_once),
	KUNIT_CASE(ot_sweep_kicks),
	KUNIT_CASE(ot_inherit),
	KUNIT_CASE(ot_restore_races_claim),
	KUNIT_CASE(ot_events_off),
	KUNIT_CASE(ot_deleted),
	KUNIT_CASE(ot_walk_resized),
	{}
};

static struct kunit_suite gpumem_orphans_suite = {
	.name = "gpumem_orphans",
	.init = ot_init,
	.exit = ot_exit,
	.test_cases = gpumem_orphans_cases,
};

kunit_test_suite(gpumem_orphans_suite);
