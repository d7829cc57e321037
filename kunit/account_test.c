// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: per-process aggregation, shared-buffer dedup and the owner rule.
 * Objects are opaque keys to the accounting, so the tests use addresses in a
 * local array as objects.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include "../kmod/rows.c"
#include "../kmod/account.c"

static char objs[4096];

#define OBJ(n)	((void *)&objs[n])
#define MiB	(1024ULL * 1024)

/*
 * An entry as a walk sees it, written with the process it counts for: the
 * client file is its @order, and account() turns the processes of the
 * entries of one order into that file's holders (one file held by several
 * processes), with one entry per (file, handle), as walk.c makes them.
 */
static struct gpumem_walk_ent ent(int obj, u64 size, u32 order, u32 handle,
				  pid_t tgid, u8 region, u8 flags)
{
	return (struct gpumem_walk_ent) {
		.obj = OBJ(obj), .size = size, .order = order,
		.handle = handle, .file = tgid, .region = region,
		.mem_type = region == GPUMEM_REGION_SYSTEM ? 0 : 2,
		.flags = flags,
	};
}

static struct gpumem_snapshot *snap_new(struct kunit *test, unsigned int flags)
{
	struct gpumem_snapshot *snap = gpumem_snapshot_alloc(1, flags);

	KUNIT_ASSERT_NOT_NULL(test, snap);
	return snap;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

#define MAX_FILES	16

/*
 * Account into device 0 with a fresh scratch area: files by order (below
 * MAX_FILES), their holders the tgids ent() put in .file.
 */
static int account(struct gpumem_snapshot *snap, struct gpumem_walk_ent *e,
		   size_t n)
{
	struct gpumem_account_scratch scratch = {};
	struct gpumem_file_holders files[MAX_FILES] = {};
	struct gpumem_walk_ent *u;
	size_t i, j, k, nu = 0, nt = 0;
	u32 nf = 0;
	pid_t *tgids;
	int ret;

	tgids = kcalloc(n + 1, sizeof(*tgids), GFP_KERNEL);
	u = kcalloc(n + 1, sizeof(*u), GFP_KERNEL);
	if (!tgids || !u) {
		kfree(tgids);
		kfree(u);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		nf = max(nf, e[i].order + 1);
	for (k = 0; k < nf && k < MAX_FILES; k++) {
		files[k].first = nt;
		for (i = 0; i < n; i++)
			if (e[i].order == k)
				tgids[nt++] = e[i].file;
		sort(tgids + files[k].first, nt - files[k].first,
		     sizeof(*tgids), cmp_pid, NULL);
		for (i = files[k].first, j = files[k].first; i < nt; i++)
			if (j == files[k].first || tgids[j - 1] != tgids[i])
				tgids[j++] = tgids[i];
		nt = j;
		files[k].nr = nt - files[k].first;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < nu; j++)
			if (u[j].order == e[i].order && u[j].obj == e[i].obj &&
			    u[j].handle == e[i].handle)
				break;
		if (j < nu)
			continue;	/* the same file's handle, another holder */
		u[nu] = e[i];
		u[nu++].file = e[i].order;
	}
	ret = nf > MAX_FILES ? -E2BIG :
	      gpumem_account_device(snap, 0, u, nu, files, nf, tgids, &scratch);
	gpumem_account_scratch_free(&scratch);
	kfree(u);
	kfree(tgids);
	return ret;
}

static struct gpumem_proc_row *proc(struct gpumem_snapshot *snap, pid_t tgid)
{
	return xa_load(&snap->devs[0].procs, tgid);
}

static void account_one_process_regions(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, 0);
	struct gpumem_walk_ent e[] = {
		ent(1, 4 * MiB, 0, 1, 100, GPUMEM_REGION_VRAM, 0),
		ent(2, 1 * MiB, 0, 2, 100, GPUMEM_REGION_VRAM, 0),
		ent(3, 2 * MiB, 0, 3, 100, GPUMEM_REGION_GTT, 0),
		ent(4, 8192, 0, 4, 100, GPUMEM_REGION_SYSTEM, 0),
		ent(5, 4096, 0, 5, 100, GPUMEM_REGION_OTHER, 0),
	};
	struct gpumem_proc_row *p;

	KUNIT_ASSERT_EQ(test, account(snap, e, ARRAY_SIZE(e)), 0);
	p = proc(snap, 100);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_VRAM], 5 * MiB);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_GTT], 2 * MiB);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_SYSTEM], 8192ULL);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_OTHER], 4096ULL);
	KUNIT_EXPECT_EQ(test, p->bos, 5U);
	KUNIT_EXPECT_EQ(test, p->shared, 0ULL);
	KUNIT_EXPECT_EQ(test, p->owned, 7 * MiB + 12288);
	gpumem_snapshot_free(snap);
}

/* One object reached through two files and two handles of one process. */
static void account_same_process_counts_once(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, GPUMEM_SNAP_BUFFERS);
	struct gpumem_walk_ent e[] = {
		ent(1, 3 * MiB, 0, 1, 100, GPUMEM_REGION_VRAM, GPUMEM_ENT_DMABUF),
		ent(1, 3 * MiB, 1, 1, 100, GPUMEM_REGION_VRAM, GPUMEM_ENT_DMABUF),
		ent(1, 3 * MiB, 1, 7, 100, GPUMEM_REGION_VRAM, GPUMEM_ENT_DMABUF),
	};
	struct gpumem_proc_row *p;

	KUNIT_ASSERT_EQ(test, account(snap, e, ARRAY_SIZE(e)), 0);
	p = proc(snap, 100);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_VRAM], 3 * MiB);
	KUNIT_EXPECT_EQ(test, p->bos, 1U);
	/* exported as a dma-buf: shared even with a single holder */
	KUNIT_EXPECT_EQ(test, p->shared, 3 * MiB);
	KUNIT_EXPECT_EQ(test, p->owned, 3 * MiB);
	KUNIT_ASSERT_EQ(test, snap->nr_bufs, (size_t)1);
	KUNIT_EXPECT_EQ(test, snap->bufs[0].nr_holders, 1U);
	KUNIT_EXPECT_EQ(test, snap->bufs[0].handle, 1U);
	gpumem_snapshot_free(snap);
}

/* Shared between processes: counted once per holder, owned by the oldest. */
static void account_shared_between_processes(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, GPUMEM_SNAP_BUFFERS);
	struct gpumem_walk_ent e[] = {
		/* listed newest client first: order must decide, not position */
		ent(9, 2 * MiB, 2, 4, 300, GPUMEM_REGION_VRAM, GPUMEM_ENT_DMABUF),
		ent(9, 2 * MiB, 1, 3, 200, GPUMEM_REGION_VRAM, GPUMEM_ENT_DMABUF),
		ent(8, 1 * MiB, 1, 1, 200, GPUMEM_REGION_VRAM, 0),
		ent(9, 2 * MiB, 0, 6, 100, GPUMEM_REGION_VRAM, 0),
	};
	struct gpumem_proc_row *a, *b, *c;
	u64 owned;
	size_t i;

	KUNIT_ASSERT_EQ(test, account(snap, e, ARRAY_SIZE(e)), 0);
	a = proc(snap, 100);
	b = proc(snap, 200);
	c = proc(snap, 300);
	KUNIT_ASSERT_TRUE(test, a && b && c);
	KUNIT_EXPECT_EQ(test, a->bytes[GPUMEM_REGION_VRAM], 2 * MiB);
	KUNIT_EXPECT_EQ(test, b->bytes[GPUMEM_REGION_VRAM], 3 * MiB);
	KUNIT_EXPECT_EQ(test, c->bytes[GPUMEM_REGION_VRAM], 2 * MiB);
	KUNIT_EXPECT_EQ(test, a->shared, 2 * MiB);
	KUNIT_EXPECT_EQ(test, b->shared, 2 * MiB);
	KUNIT_EXPECT_EQ(test, c->shared, 2 * MiB);
	KUNIT_EXPECT_EQ(test, a->owned, 2 * MiB);
	KUNIT_EXPECT_EQ(test, b->owned, 1 * MiB);
	KUNIT_EXPECT_EQ(test, c->owned, 0ULL);
	owned = a->owned + b->owned + c->owned;
	KUNIT_EXPECT_EQ(test, owned, 3 * MiB);	/* each object once */

	KUNIT_ASSERT_EQ(test, snap->nr_bufs, (size_t)2);
	for (i = 0; i < snap->nr_bufs; i++) {
		const struct gpumem_buf_row *buf = &snap->bufs[i];

		if (buf->size != 2 * MiB)
			continue;
		KUNIT_EXPECT_EQ(test, buf->owner, 100);
		KUNIT_EXPECT_EQ(test, buf->handle, 6U);
		KUNIT_EXPECT_TRUE(test, buf->shared);
		KUNIT_ASSERT_EQ(test, buf->nr_holders, 3U);
		KUNIT_EXPECT_EQ(test, snap->holders[buf->first_holder], 100);
		KUNIT_EXPECT_EQ(test, snap->holders[buf->first_holder + 1], 200);
		KUNIT_EXPECT_EQ(test, snap->holders[buf->first_holder + 2], 300);
	}
	gpumem_snapshot_free(snap);
}

/* Imported objects are shared and owned by nobody on the importer. */
static void account_imported_not_owned(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, 0);
	struct gpumem_walk_ent e[] = {
		ent(1, 5 * MiB, 0, 1, 100, GPUMEM_REGION_GTT, GPUMEM_ENT_IMPORTED),
	};
	struct gpumem_proc_row *p;

	KUNIT_ASSERT_EQ(test, account(snap, e, ARRAY_SIZE(e)), 0);
	p = proc(snap, 100);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_GTT], 5 * MiB);
	KUNIT_EXPECT_EQ(test, p->shared, 5 * MiB);
	KUNIT_EXPECT_EQ(test, p->owned, 0ULL);
	gpumem_snapshot_free(snap);
}

/*
 * Many processes and objects in random order: per-process bytes equal the
 * distinct objects each holds, and owned bytes sum to the distinct total.
 */
static void account_random_totals(struct kunit *test)
{
	enum { NOBJ = 500, NPROC = 7, PER = 3 };
	struct gpumem_walk_ent *e;
	struct gpumem_snapshot *snap;
	u64 want[NPROC] = {}, owned = 0, total = 0;
	size_t n = 0, i, j;

	e = kunit_kcalloc(test, NOBJ * PER * 2, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	for (i = 0; i < NOBJ; i++) {
		u64 size = (i % 13 + 1) * 4096;
		bool held[NPROC] = {};

		total += size;
		for (j = 0; j < PER; j++) {
			u32 p = (i * 3 + j * 2) % NPROC;

			/* the same process twice now and then */
			e[n++] = ent(i, size, p, i * 10 + j, 1000 + p,
				     GPUMEM_REGION_VRAM, 0);
			if (j == 0)
				e[n++] = ent(i, size, p, i * 10 + 9, 1000 + p,
					     GPUMEM_REGION_VRAM, 0);
			if (!held[p])
				want[p] += size;
			held[p] = true;
		}
	}
	for (i = n - 1; i > 0; i--) {
		size_t k = get_random_u32_below(i + 1);	/* swap() evaluates twice */

		swap(e[i], e[k]);
	}

	snap = snap_new(test, 0);
	KUNIT_ASSERT_EQ(test, account(snap, e, n), 0);
	for (j = 0; j < NPROC; j++) {
		struct gpumem_proc_row *p = proc(snap, 1000 + j);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_VRAM], want[j]);
		owned += p->owned;
	}
	KUNIT_EXPECT_EQ(test, owned, total);
	KUNIT_EXPECT_EQ(test, gpumem_snapshot_finish(snap), 0);
	KUNIT_EXPECT_EQ(test, snap->nr_procs, (size_t)NPROC);
	for (j = 1; j < snap->nr_procs; j++)
		KUNIT_EXPECT_LT(test, snap->procs[j - 1]->tgid,
				snap->procs[j]->tgid);
	gpumem_snapshot_free(snap);
}

/*
 * One file held by H processes (a fork of H children), B objects through
 * it, one of them also held by an in-kernel client: each holder is charged
 * once per object, the lowest pid owns, and the buffers reached through the
 * file only share one holder list (made once: H pids, not B * H).
 */
static void account_file_many_holders(struct kunit *test)
{
	enum { H = 1000, B = 16 };
	const u64 size = 64 * 1024;
	struct gpumem_snapshot *snap = snap_new(test, GPUMEM_SNAP_BUFFERS);
	struct gpumem_account_scratch scratch = {};
	struct gpumem_file_holders files[2] = {
		{ .first = 0, .nr = H }, { .first = H, .nr = 1 },
	};
	struct gpumem_walk_ent e[B + 1];
	size_t slice = SIZE_MAX, i;
	pid_t *tgids;
	int ret;

	tgids = kunit_kcalloc(test, H + 1, sizeof(*tgids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tgids);
	for (i = 0; i < H; i++)
		tgids[i] = 5000 + i;
	tgids[H] = 0;
	for (i = 0; i < B; i++) {
		e[i] = ent(i, size, 0, i + 1, 0, GPUMEM_REGION_VRAM, 0);
		e[i].file = 0;
	}
	e[B] = ent(0, size, 1, 3, 0, GPUMEM_REGION_VRAM, 0);
	e[B].file = 1;
	ret = gpumem_account_device(snap, 0, e, B + 1, files, 2, tgids,
				    &scratch);
	gpumem_account_scratch_free(&scratch);
	KUNIT_ASSERT_EQ(test, ret, 0);

	for (i = 0; i < H; i++) {
		struct gpumem_proc_row *p = proc(snap, 5000 + i);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_VRAM], B * size);
		KUNIT_EXPECT_EQ(test, p->bos, (u32)B);
		KUNIT_EXPECT_EQ(test, p->shared, B * size);
		KUNIT_EXPECT_EQ(test, p->owned, i ? 0 : B * size);
	}
	KUNIT_ASSERT_NOT_NULL(test, proc(snap, 0));
	KUNIT_EXPECT_EQ(test, proc(snap, 0)->bytes[GPUMEM_REGION_VRAM], size);
	KUNIT_EXPECT_EQ(test, proc(snap, 0)->bos, 1U);
	KUNIT_EXPECT_EQ(test, proc(snap, 0)->owned, 0ULL);

	KUNIT_ASSERT_EQ(test, snap->nr_bufs, (size_t)B);
	/* the file's list once, and object 0's union (H + the kernel) */
	KUNIT_EXPECT_EQ(test, snap->nr_holders, (size_t)(H + H + 1));
	for (i = 0; i < snap->nr_bufs; i++) {
		const struct gpumem_buf_row *buf = &snap->bufs[i];
		const pid_t *h = snap->holders + buf->first_holder;

		KUNIT_EXPECT_EQ(test, buf->owner, 5000);
		KUNIT_EXPECT_TRUE(test, buf->shared);
		if (buf->obj == OBJ(0)) {
			KUNIT_EXPECT_EQ(test, buf->handle, 1U);
			KUNIT_ASSERT_EQ(test, buf->nr_holders, (u32)H + 1);
			KUNIT_EXPECT_TRUE(test, buf->kernel_holder);
			KUNIT_EXPECT_EQ(test, h[0], 5000);
			KUNIT_EXPECT_EQ(test, h[H - 1], 5000 + H - 1);
			KUNIT_EXPECT_EQ(test, h[H], 0);	/* the newest client */
			continue;
		}
		KUNIT_ASSERT_EQ(test, buf->nr_holders, (u32)H);
		KUNIT_EXPECT_FALSE(test, buf->kernel_holder);
		if (slice == SIZE_MAX)
			slice = buf->first_holder;
		KUNIT_EXPECT_EQ(test, buf->first_holder, slice);
		KUNIT_EXPECT_EQ(test, h[0], 5000);
		KUNIT_EXPECT_EQ(test, h[H - 1], 5000 + H - 1);
	}
	gpumem_snapshot_free(snap);
}

/*
 * An object reached through two files whose holders overlap: each process
 * once, in the order of the oldest client it holds the object through.
 */
static void account_overlapping_files(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, GPUMEM_SNAP_BUFFERS);
	struct gpumem_walk_ent e[] = {
		/* file 1: pids 30, 10; file 0: pids 20, 30 */
		ent(5, 1 * MiB, 1, 2, 30, GPUMEM_REGION_GTT, 0),
		ent(5, 1 * MiB, 1, 2, 10, GPUMEM_REGION_GTT, 0),
		ent(5, 1 * MiB, 0, 4, 20, GPUMEM_REGION_GTT, 0),
		ent(5, 1 * MiB, 0, 4, 30, GPUMEM_REGION_GTT, 0),
	};
	const struct gpumem_buf_row *buf;
	pid_t want[] = { 20, 30, 10 };
	size_t i;

	KUNIT_ASSERT_EQ(test, account(snap, e, ARRAY_SIZE(e)), 0);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct gpumem_proc_row *p = proc(snap, want[i]);

		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, p->bytes[GPUMEM_REGION_GTT], 1 * MiB);
		KUNIT_EXPECT_EQ(test, p->bos, 1U);
		KUNIT_EXPECT_EQ(test, p->owned, want[i] == 20 ? 1 * MiB : 0);
	}
	KUNIT_ASSERT_EQ(test, snap->nr_bufs, (size_t)1);
	buf = &snap->bufs[0];
	KUNIT_EXPECT_EQ(test, buf->owner, 20);
	KUNIT_EXPECT_EQ(test, buf->handle, 4U);
	KUNIT_ASSERT_EQ(test, buf->nr_holders, 3U);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ(test, snap->holders[buf->first_holder + i],
				want[i]);
	gpumem_snapshot_free(snap);
}

static void account_vec_reserve(struct kunit *test)
{
	size_t cap = 0;
	u32 *v = NULL;

	KUNIT_ASSERT_EQ(test, gpumem_vec_reserve((void **)&v, &cap, 1, 4), 0);
	KUNIT_EXPECT_GE(test, cap, (size_t)16);
	v[0] = 42;
	KUNIT_ASSERT_EQ(test, gpumem_vec_reserve((void **)&v, &cap, 1000, 4), 0);
	KUNIT_EXPECT_GE(test, cap, (size_t)1000);
	KUNIT_EXPECT_EQ(test, v[0], 42U);
	KUNIT_EXPECT_EQ(test, gpumem_vec_reserve((void **)&v, &cap, SIZE_MAX, 4),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, v[0], 42U);
	kvfree(v);
}

static void account_empty(struct kunit *test)
{
	struct gpumem_snapshot *snap = snap_new(test, GPUMEM_SNAP_BUFFERS);

	KUNIT_EXPECT_EQ(test, account(snap, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, gpumem_snapshot_finish(snap), 0);
	KUNIT_EXPECT_EQ(test, snap->nr_procs, (size_t)0);
	KUNIT_EXPECT_EQ(test, snap->nr_bufs, (size_t)0);
	gpumem_snapshot_free(snap);
}

static struct kunit_case gpumem_account_cases[] = {
	KUNIT_CASE(account_one_process_regions),
	KUNIT_CASE(account_same_process_counts_once),
	KUNIT_CASE(account_shared_between_processes),
	KUNIT_CASE(account_imported_not_owned),
	KUNIT_CASE(account_random_totals),
	KUNIT_CASE(account_file_many_holders),
	KUNIT_CASE(account_overlapping_files),
	KUNIT_CASE(account_vec_reserve),
	KUNIT_CASE(account_empty),
	{}
};

static struct kunit_suite gpumem_account_suite = {
	.name = "gpumem_account",
	.test_cases = gpumem_account_cases,
};

kunit_test_suite(gpumem_account_suite);
