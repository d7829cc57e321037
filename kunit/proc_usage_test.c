// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-process usage counters (kmod/proc_usage.c): one node per
 * (process, device), reference counted by the charges that use it; copies
 * list exactly the non-empty nodes with their sums.
 */
#include <kunit/test.h>
#include "../kmod/proc_usage.c"

/* The rows of a copy, one row per (pid, minor) checked by the caller. */
static struct gpumem_proc_usage_row *pu_find_row(struct gpumem_proc_usage_row *rows,
						 size_t n, struct pid *pid, int minor)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].pid == pid && rows[i].minor == minor)
			return &rows[i];
	return NULL;
}

static void pu_same_key_same_node(struct kunit *test)
{
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage *a, *b, *c;

	a = gpumem_proc_usage_get(me, "kunit", 0);
	b = gpumem_proc_usage_get(me, "kunit", 0);
	c = gpumem_proc_usage_get(me, "kunit", 1);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_PTR_NE(test, a, c);
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)2);
	KUNIT_EXPECT_EQ(test, a->refs, 2U);
	gpumem_proc_usage_put(a);
	gpumem_proc_usage_put(b);
	gpumem_proc_usage_put(c);
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
}

static void pu_charge_rows_uncharge(struct kunit *test)
{
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage_row *rows, *row;
	struct gpumem_proc_usage *pu[4];
	size_t n;
	int i;

	/* three VRAM placements of 4 KiB and one GTT placement of 8 KiB */
	for (i = 0; i < 4; i++) {
		pu[i] = gpumem_proc_usage_get(me, "kunit", 3);
		KUNIT_ASSERT_NOT_NULL(test, pu[i]);
		gpumem_proc_usage_charge(pu[i], i < 3 ? GPUMEM_REGION_VRAM :
					 GPUMEM_REGION_GTT, i < 3 ? 4096 : 8192);
	}
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)1);
	row = pu_find_row(rows, n, me, 3);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 12288ULL);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_GTT], 8192ULL);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_SYSTEM], 0ULL);
	KUNIT_EXPECT_EQ(test, row->bos, 4U);
	KUNIT_EXPECT_STREQ(test, row->comm, "kunit");
	gpumem_proc_usage_rows_free(rows, n);

	/* free one VRAM placement: the row follows */
	gpumem_proc_usage_uncharge(pu[0], GPUMEM_REGION_VRAM, 4096);
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	row = pu_find_row(rows, n, me, 3);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 8192ULL);
	KUNIT_EXPECT_EQ(test, row->bos, 3U);
	gpumem_proc_usage_rows_free(rows, n);

	for (i = 1; i < 4; i++)
		gpumem_proc_usage_uncharge(pu[i], i < 3 ? GPUMEM_REGION_VRAM :
					   GPUMEM_REGION_GTT, i < 3 ? 4096 : 8192);
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)0);
	gpumem_proc_usage_rows_free(rows, n);
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
}

/*
 * A copy larger than a chunk (300 counters: several holds of the lock, the
 * array grown on the way): every counter exactly once; a filtered copy
 * (one process, 300 rows: grown from its first 8) the same; a filter on
 * one device: its one row.
 */
#define PU_MANY	300
static void pu_rows_chunks(struct kunit *test)
{
	struct gpumem_snap_filter by_pid = {
		.has_pid = true, .pid = task_tgid_nr(current), .minor = -1,
	};
	struct gpumem_snap_filter by_dev = { .minor = 150 };
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage_row *rows;
	struct gpumem_proc_usage **pu;
	unsigned long *seen;
	size_t n, i;

	pu = kunit_kcalloc(test, PU_MANY, sizeof(*pu), GFP_KERNEL);
	seen = kunit_kcalloc(test, BITS_TO_LONGS(PU_MANY), sizeof(*seen),
			     GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pu);
	KUNIT_ASSERT_NOT_NULL(test, seen);
	for (i = 0; i < PU_MANY; i++) {
		pu[i] = gpumem_proc_usage_get(me, "kunit", i);
		KUNIT_ASSERT_NOT_NULL(test, pu[i]);
		gpumem_proc_usage_charge(pu[i], GPUMEM_REGION_VRAM, 4096 * (i + 1));
	}
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)PU_MANY);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_LT(test, rows[i].minor, PU_MANY);
		KUNIT_EXPECT_FALSE(test, test_and_set_bit(rows[i].minor, seen));
		KUNIT_EXPECT_EQ(test, rows[i].bytes[GPUMEM_REGION_VRAM],
				4096ULL * (rows[i].minor + 1));
	}
	gpumem_proc_usage_rows_free(rows, n);
	KUNIT_ASSERT_EQ(test, gpumem_pu_rows(&rows, &n, &by_pid), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)PU_MANY);
	gpumem_proc_usage_rows_free(rows, n);
	KUNIT_ASSERT_EQ(test, gpumem_pu_rows(&rows, &n, &by_dev), 0);
	KUNIT_ASSERT_EQ(test, n, (size_t)1);
	KUNIT_EXPECT_EQ(test, rows[0].minor, 150);
	gpumem_proc_usage_rows_free(rows, n);
	for (i = 0; i < PU_MANY; i++)
		gpumem_proc_usage_uncharge(pu[i], GPUMEM_REGION_VRAM,
					   4096 * (i + 1));
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
}

/* A node held without a charge (an allocation in flight) is not listed. */
static void pu_rows_skip_empty(struct kunit *test)
{
	struct gpumem_proc_usage_row *rows;
	struct gpumem_proc_usage *pu;
	size_t n;

	pu = gpumem_proc_usage_get(task_tgid(current), "kunit", 0);
	KUNIT_ASSERT_NOT_NULL(test, pu);
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)0);
	gpumem_proc_usage_rows_free(rows, n);
	gpumem_proc_usage_put(pu);
}

/* Two processes and many devices: one row each, sums kept apart. */
static void pu_processes_and_devices(struct kunit *test)
{
	enum { NDEV = 600 };	/* more than one table resize in the copy */
	struct pid *me = task_tgid(current), *init = find_get_pid(1);
	struct gpumem_snap_filter filter = { .minor = -1, .has_pid = true,
					     .pid = pid_nr(me) };
	struct gpumem_proc_usage **mine, *theirs;
	struct gpumem_proc_usage_row *rows, *row;
	size_t n;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, init);
	mine = kunit_kcalloc(test, NDEV, sizeof(*mine), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mine);
	for (i = 0; i < NDEV; i++) {
		mine[i] = gpumem_proc_usage_get(me, "kunit", i);
		KUNIT_ASSERT_NOT_NULL(test, mine[i]);
		gpumem_proc_usage_charge(mine[i], GPUMEM_REGION_VRAM, 4096 * (i + 1));
	}
	theirs = gpumem_proc_usage_get(init, "kunit", 7);
	KUNIT_ASSERT_NOT_NULL(test, theirs);
	gpumem_proc_usage_charge(theirs, GPUMEM_REGION_VRAM, 65536);

	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)NDEV + 1);
	row = pu_find_row(rows, n, me, 7);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 4096ULL * 8);
	row = pu_find_row(rows, n, init, 7);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 65536ULL);
	KUNIT_EXPECT_EQ(test, row->bos, 1U);
	row = pu_find_row(rows, n, me, NDEV - 1);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 4096ULL * NDEV);
	gpumem_proc_usage_rows_free(rows, n);

	/* filtered to this process: more rows than a filtered copy starts with */
	KUNIT_ASSERT_EQ(test, gpumem_pu_rows(&rows, &n, &filter), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)NDEV);
	KUNIT_EXPECT_NULL(test, pu_find_row(rows, n, init, 7));
	row = pu_find_row(rows, n, me, NDEV - 1);
	KUNIT_ASSERT_NOT_NULL(test, row);
	KUNIT_EXPECT_EQ(test, row->bytes[GPUMEM_REGION_VRAM], 4096ULL * NDEV);
	gpumem_proc_usage_rows_free(rows, n);
	/* and to init: one row, in the room it starts with */
	filter.pid = 1;
	KUNIT_ASSERT_EQ(test, gpumem_pu_rows(&rows, &n, &filter), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)1);
	KUNIT_EXPECT_NOT_NULL(test, pu_find_row(rows, n, init, 7));
	gpumem_proc_usage_rows_free(rows, n);

	for (i = 0; i < NDEV; i++)
		gpumem_proc_usage_uncharge(mine[i], GPUMEM_REGION_VRAM, 4096 * (i + 1));
	gpumem_proc_usage_uncharge(theirs, GPUMEM_REGION_VRAM, 65536);
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
	put_pid(init);
}

/* A charged snapshot of devices 0 and 2, filled through @filter (NULL: all). */
static struct gpumem_snapshot *pu_charged_snap(struct kunit *test, char *path,
					       const struct gpumem_snap_filter *filter)
{
	struct gpumem_snapshot *snap = gpumem_snapshot_alloc(2, GPUMEM_SNAP_CHARGED);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	snap->devs[0].minor = 0;
	snap->devs[1].minor = 2;
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_fill(snap, path, filter), 0);
	KUNIT_ASSERT_EQ(test, gpumem_snapshot_finish(snap), 0);
	return snap;
}

/*
 * A charged snapshot's rows: one per (process, device) of the snapshot, by
 * device then tgid, each pointing at its process's one task row; counters
 * of a device the snapshot does not have and those a filter does not want
 * are left out.
 */
static void pu_fill_charged_snapshot(struct kunit *test)
{
	static const int minors[] = { 0, 2, 5 };	/* 5: not in the snapshot */
	struct pid *me = task_tgid(current), *init = find_get_pid(1);
	struct gpumem_snap_filter filter = { .minor = 2 };
	struct gpumem_proc_usage *pu[2][ARRAY_SIZE(minors)];
	struct gpumem_snapshot *snap;
	struct gpumem_proc_row *p;
	char *path;
	int i, d;

	KUNIT_ASSERT_NOT_NULL(test, init);
	path = kunit_kmalloc(test, PATH_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, path);
	for (d = 0; d < ARRAY_SIZE(minors); d++) {
		for (i = 0; i < 2; i++) {
			/* a reference per charge: two */
			pu[i][d] = gpumem_proc_usage_get(i ? init : me, "kunit",
							 minors[d]);
			KUNIT_ASSERT_NOT_NULL(test, pu[i][d]);
			KUNIT_ASSERT_PTR_EQ(test, pu[i][d],
					    gpumem_proc_usage_get(i ? init : me,
								  "kunit",
								  minors[d]));
			/* 4 KiB x (1 + process + 2 x device) of VRAM, 8 KiB of GTT */
			gpumem_proc_usage_charge(pu[i][d], GPUMEM_REGION_VRAM,
						 4096 * (1 + i + 2 * d));
			gpumem_proc_usage_charge(pu[i][d], GPUMEM_REGION_GTT, 8192);
		}
	}

	snap = pu_charged_snap(test, path, NULL);
	KUNIT_ASSERT_EQ(test, snap->nr_procs, (size_t)4);
	KUNIT_ASSERT_EQ(test, snap->nr_tasks, (size_t)2);
	KUNIT_EXPECT_EQ(test, snap->task_list[0]->tgid, 1);
	KUNIT_EXPECT_EQ(test, snap->task_list[1]->tgid, pid_nr(me));
	KUNIT_EXPECT_STREQ(test, snap->task_list[1]->comm, current->comm);
	for (i = 0; i < 4; i++) {
		p = snap->procs[i];
		/* by device, then tgid: init (1) before this test's process */
		KUNIT_EXPECT_EQ(test, p->dev, (unsigned int)(i / 2));
		KUNIT_EXPECT_EQ(test, p->tgid, i % 2 ? pid_nr(me) : 1);
		KUNIT_EXPECT_PTR_EQ(test, p->task,
				    (const struct gpumem_task_row *)snap->task_list[i % 2]);
		KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_VRAM],
				4096ULL * (1 + !(i % 2) + 2 * (i / 2)));
		KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_GTT], 8192ULL);
		KUNIT_EXPECT_EQ(test, p->bos, 2U);
	}
	gpumem_snapshot_free(snap);

	/* only device 2: its two rows, and the tasks of just those */
	snap = pu_charged_snap(test, path, &filter);
	KUNIT_ASSERT_EQ(test, snap->nr_procs, (size_t)2);
	KUNIT_EXPECT_EQ(test, snap->nr_tasks, (size_t)2);
	KUNIT_EXPECT_EQ(test, snap->procs[0]->dev, 1U);
	KUNIT_EXPECT_EQ(test, snap->procs[1]->dev, 1U);
	KUNIT_EXPECT_EQ(test, snap->procs[1]->bytes[GPUMEM_REGION_VRAM],
			4096ULL * 3);
	gpumem_snapshot_free(snap);

	/* only pid 1, every device */
	filter = (struct gpumem_snap_filter){ .minor = -1, .has_pid = true,
					       .pid = 1 };
	snap = pu_charged_snap(test, path, &filter);
	KUNIT_ASSERT_EQ(test, snap->nr_procs, (size_t)2);
	KUNIT_ASSERT_EQ(test, snap->nr_tasks, (size_t)1);
	KUNIT_EXPECT_EQ(test, snap->procs[0]->tgid, 1);
	KUNIT_EXPECT_EQ(test, snap->procs[1]->tgid, 1);
	KUNIT_EXPECT_EQ(test, snap->procs[1]->bytes[GPUMEM_REGION_VRAM],
			4096ULL * 4);
	gpumem_snapshot_free(snap);

	for (d = 0; d < ARRAY_SIZE(minors); d++) {
		for (i = 0; i < 2; i++) {
			gpumem_proc_usage_uncharge(pu[i][d], GPUMEM_REGION_VRAM,
						   4096 * (1 + i + 2 * d));
			gpumem_proc_usage_uncharge(pu[i][d], GPUMEM_REGION_GTT, 8192);
		}
	}
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
	put_pid(init);
}

/* The sort of a charged snapshot's keys: by tgid then device, every byte. */
static void pu_sort_keys(struct kunit *test)
{
	static const u64 order[] = {
		(u64)0x30001 << 32 | 1, (u64)5 << 32 | 0x100, (u64)0x30001 << 32,
		(u64)0x3fffff << 32 | 2, (u64)5 << 32 | 7, (u64)0x1ff << 32,
		(u64)5 << 32 | 0x100,
	};
	struct gpumem_pu_key keys[ARRAY_SIZE(order)], tmp[ARRAY_SIZE(order)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		keys[i] = (struct gpumem_pu_key){ .order = order[i], .row = i };
	gpumem_pu_sort(keys, tmp, ARRAY_SIZE(order));
	for (i = 1; i < ARRAY_SIZE(order); i++)
		KUNIT_EXPECT_LE(test, keys[i - 1].order, keys[i].order);
	/* equal keys keep their order (row 1 before row 6), rows follow */
	KUNIT_EXPECT_EQ(test, keys[0].row, (size_t)4);
	KUNIT_EXPECT_EQ(test, keys[1].row, (size_t)1);
	KUNIT_EXPECT_EQ(test, keys[2].row, (size_t)6);
	KUNIT_EXPECT_EQ(test, keys[3].row, (size_t)5);
	KUNIT_EXPECT_EQ(test, keys[4].row, (size_t)2);
	KUNIT_EXPECT_EQ(test, keys[5].row, (size_t)0);
	KUNIT_EXPECT_EQ(test, keys[6].row, (size_t)3);
	gpumem_pu_sort(keys, tmp, 0);	/* nothing to sort: nothing read */
}

/* Free the unused nodes kept for reuse (and stop the reaper). */
static void pu_exit(struct kunit *test)
{
	gpumem_proc_usage_exit();
}

/* The last reference of a live process's node keeps it, unused and empty. */
static void pu_unused_kept_and_reused(struct kunit *test)
{
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage_row *rows;
	struct gpumem_proc_usage *a, *b;
	unsigned int bkt;
	size_t n;

	a = gpumem_proc_usage_get(me, "kunit", 5);
	KUNIT_ASSERT_NOT_NULL(test, a);
	gpumem_proc_usage_charge(a, GPUMEM_REGION_VRAM, 8192);
	gpumem_proc_usage_uncharge(a, GPUMEM_REGION_VRAM, 8192);
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)0);
	KUNIT_ASSERT_EQ(test, gpumem_proc_usage_rows(&rows, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (size_t)0);	/* unused: not a row */
	gpumem_proc_usage_rows_free(rows, n);
	b = gpumem_proc_usage_get(me, "kunit2", 5);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_PTR_EQ(test, a, b);	/* the same node, reused */
	KUNIT_EXPECT_EQ(test, b->refs, 1U);
	KUNIT_EXPECT_EQ(test, b->bos, 0U);
	KUNIT_EXPECT_EQ(test, b->bytes[GPUMEM_REGION_VRAM], 0ULL);
	KUNIT_EXPECT_STREQ(test, b->comm, "kunit2");
	KUNIT_EXPECT_EQ(test, gpumem_pu_used(), (size_t)1);
	gpumem_proc_usage_put(b);
	/* exit frees it: nothing left behind */
	gpumem_proc_usage_exit();
	bkt = gpumem_pu_bucket(me, 5);
	spin_lock(&gpumem_pu_shard(bkt)->lock);
	KUNIT_EXPECT_NULL(test, gpumem_pu_find(bkt, me, 5));
	spin_unlock(&gpumem_pu_shard(bkt)->lock);
}

/*
 * An unused node is reset to a new node's state: its leak state only when
 * a window end went over it (it is all zero otherwise), both ways to zero.
 */
static void pu_unused_leak_state_reset(struct kunit *test)
{
	static const struct gpumem_leak_params restart = { .reset = true };
	static const char comm[TASK_COMM_LEN] = "kunit";
	struct pid *me = task_tgid(current);
	struct gpumem_leak_hit hits[1];
	struct gpumem_proc_usage *a, *b;

	gpumem_proc_usage_exit();	/* no node kept from before */
	a = gpumem_proc_usage_get_charge(me, comm, 9, GPUMEM_REGION_VRAM, 8192);
	KUNIT_ASSERT_NOT_NULL(test, a);
	/* a window end over every bucket: the floor is the 8 KiB now */
	KUNIT_EXPECT_EQ(test, gpumem_proc_usage_leaks(&restart, 0, UINT_MAX,
						      hits, 0), (size_t)0);
	KUNIT_EXPECT_TRUE(test, a->leak_dirty);
	KUNIT_EXPECT_EQ(test, a->leak[GPUMEM_REGION_VRAM].floor, 8192ULL);
	gpumem_proc_usage_uncharge(a, GPUMEM_REGION_VRAM, 8192);
	b = gpumem_proc_usage_get_charge(me, comm, 9, GPUMEM_REGION_VRAM, 4096);
	KUNIT_ASSERT_PTR_EQ(test, a, b);	/* kept and reused */
	KUNIT_EXPECT_FALSE(test, b->leak_dirty);
	KUNIT_EXPECT_NULL(test, memchr_inv(b->leak, 0, sizeof(b->leak)));
	/* no window end since: the charge and free leave it all zero */
	gpumem_proc_usage_uncharge(b, GPUMEM_REGION_VRAM, 4096);
	b = gpumem_proc_usage_get(me, "kunit", 9);
	KUNIT_ASSERT_PTR_EQ(test, a, b);
	KUNIT_EXPECT_FALSE(test, b->leak_dirty);
	KUNIT_EXPECT_NULL(test, memchr_inv(b->leak, 0, sizeof(b->leak)));
	KUNIT_EXPECT_EQ(test, b->bytes[GPUMEM_REGION_VRAM], 0ULL);
	gpumem_proc_usage_put(b);
	gpumem_proc_usage_exit();
}

/*
 * Each shard keeps at most GPUMEM_PU_SHARD_IDLE_MAX unused nodes: the next
 * one whose last reference goes there is freed at once, and the others'
 * counts stay exact.
 */
static void pu_shard_keeps_a_bounded_number(struct kunit *test)
{
	enum { N = GPUMEM_PU_SHARD_IDLE_MAX + 1 };
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage *pu;
	struct gpumem_pu_shard *s;
	unsigned int bkt, i;
	int minors[N], m;

	gpumem_proc_usage_exit();	/* no node kept from before */
	s = gpumem_pu_shard(gpumem_pu_bucket(me, 1000));
	for (i = 0, m = 1000; i < N && m < 1000000; m++)
		if (gpumem_pu_shard(gpumem_pu_bucket(me, m)) == s)
			minors[i++] = m;
	KUNIT_ASSERT_EQ(test, i, (unsigned int)N);
	for (i = 0; i < N; i++) {
		pu = gpumem_proc_usage_get(me, "kunit", minors[i]);
		KUNIT_ASSERT_NOT_NULL(test, pu);
		gpumem_proc_usage_put(pu);
	}
	KUNIT_EXPECT_EQ(test, s->unused, (unsigned int)GPUMEM_PU_SHARD_IDLE_MAX);
	KUNIT_EXPECT_EQ(test, s->used, 0U);
	for (i = 0; i < N; i++) {
		bkt = gpumem_pu_bucket(me, minors[i]);
		spin_lock(&s->lock);
		pu = gpumem_pu_find(bkt, me, minors[i]);
		spin_unlock(&s->lock);
		if (i < N - 1)
			KUNIT_EXPECT_NOT_NULL(test, pu);
		else
			KUNIT_EXPECT_NULL(test, pu);	/* beyond the bound */
	}
	gpumem_proc_usage_exit();
	KUNIT_EXPECT_EQ(test, s->unused, 0U);
}

static struct kunit_case gpumem_proc_usage_cases[] = {
	KUNIT_CASE(pu_unused_kept_and_reused),
	KUNIT_CASE(pu_same_key_same_node),
	KUNIT_CASE(pu_charge_rows_uncharge),
	KUNIT_CASE(pu_rows_skip_empty),
	KUNIT_CASE(pu_rows_chunks),
	KUNIT_CASE(pu_processes_and_devices),
	KUNIT_CASE(pu_fill_charged_snapshot),
	KUNIT_CASE(pu_sort_keys),
	KUNIT_CASE(pu_unused_leak_state_reset),
	KUNIT_CASE(pu_shard_keeps_a_bounded_number),
	{}
};

static struct kunit_suite gpumem_proc_usage_suite = {
	.name = "gpumem_proc_usage",
	.exit = pu_exit,
	.test_cases = gpumem_proc_usage_cases,
};

kunit_test_suite(gpumem_proc_usage_suite);
