// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the leak detector (kmod/leak.c): a sequence of windows, each with
 * the counter's values in it, against leak-suspect or not: a staircase, a
 * sawtooth, a plateau, growth below the slack, a rise that stops short, a
 * second episode after falling back; then the same through the real
 * counters of a process (proc_usage.c) and of a cgroup (limits.c).
 */
#include <kunit/test.h>
#include "../kmod/staircase.c"
#include "../kmod/leak.c"

#define LK_MIB		(1024ULL * 1024)
#define LK_DEV		9
#define LK_CHILD	2000001ULL

static const struct gpumem_leak_params lk_params = {
	.windows = 3,
	.slack = 4096,
};

/*
 * One window: the counter takes each of @vals[0..n) in turn (it starts at
 * its last value), then the window ends. Returns whether a suspect was
 * raised, with the counter's final value in *@usage.
 */
static bool lk_window(struct gpumem_leak_state *st, u64 *usage,
		      const u64 *vals, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		*usage = vals[i];
		gpumem_leak_note(st, *usage);
	}
	return gpumem_leak_window_end(st, *usage, &lk_params);
}

/* The windows at which a counter going to @tops[w] in window w raised one. */
static unsigned int lk_run(struct gpumem_leak_state *st, const u64 *tops,
			   size_t n, u64 *fired)
{
	unsigned int events = 0;
	u64 usage = 0;
	size_t w;

	for (w = 0; w < n; w++) {
		if (lk_window(st, &usage, &tops[w], 1))
			fired[events++] = w;
	}
	return events;
}

/* 1 MiB more every window, never freed: one event, at the third rise */
static void lk_staircase(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	struct gpumem_leak_hit hit = {};
	u64 tops[10], fired[10];
	size_t w;

	for (w = 0; w < ARRAY_SIZE(tops); w++)
		tops[w] = (w + 1) * LK_MIB;
	/* window 0 starts at 0: its floor is 0; floors rise from window 1 */
	KUNIT_ASSERT_EQ(test, lk_run(&st, tops, 4, fired), 1U);
	KUNIT_EXPECT_EQ(test, fired[0], 3ULL);
	KUNIT_ASSERT_TRUE(test, gpumem_leak_collect(&st, 4 * LK_MIB, &hit));
	KUNIT_EXPECT_EQ(test, hit.usage, 4 * LK_MIB);
	KUNIT_EXPECT_EQ(test, hit.growth, 3 * LK_MIB);
	KUNIT_EXPECT_EQ(test, hit.windows, 3U);
	KUNIT_EXPECT_FALSE(test, gpumem_leak_collect(&st, 4 * LK_MIB, &hit));
	/* it keeps rising: no second event for the same rise */
	KUNIT_EXPECT_EQ(test, lk_run(&st, tops + 4, 6, fired), 0U);
	KUNIT_EXPECT_TRUE(test, st.suspect);
}

/* 4 MiB allocated and freed in every window: the floor stays 0 */
static void lk_sawtooth(struct kunit *test)
{
	static const u64 tooth[] = { 4 * LK_MIB, 0 };
	struct gpumem_leak_state st = {};
	u64 usage = 0;
	unsigned int w, events = 0;

	for (w = 0; w < 20; w++)
		events += lk_window(&st, &usage, tooth, ARRAY_SIZE(tooth));
	KUNIT_EXPECT_EQ(test, events, 0U);
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
}

/*
 * Peaks that rise window after window over a fixed floor of 2 MiB: the
 * floor never rises, so no event (a detector keyed on the peaks fires).
 */
static void lk_sawtooth_rising_peaks(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	u64 usage = 0, vals[2];
	unsigned int w, events = 0;

	for (w = 0; w < 10; w++) {
		vals[0] = 2 * LK_MIB + (w + 1) * LK_MIB;
		vals[1] = 2 * LK_MIB;
		events += lk_window(&st, &usage, vals, 2);
	}
	KUNIT_EXPECT_EQ(test, events, 0U);
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
}

/*
 * A floor that falls while the value each window ends at rises (10, 9, 8
 * ... MiB low; 11, 12, 13 ... MiB at the end): no event (a detector keyed
 * on the last value fires).
 */
static void lk_sawtooth_falling_floor(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	u64 usage = 0, vals[2];
	unsigned int w, events = 0;

	for (w = 0; w < 8; w++) {
		vals[0] = (10 - w) * LK_MIB;
		vals[1] = (11 + w) * LK_MIB;
		events += lk_window(&st, &usage, vals, 2);
	}
	KUNIT_EXPECT_EQ(test, events, 0U);
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
}

/* A sawtooth on top of a growing base is a staircase all the same */
static void lk_sawtooth_on_staircase(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	u64 usage = 0, vals[2];
	unsigned int w, events = 0;

	for (w = 0; w < 5; w++) {
		vals[0] = (w + 1) * LK_MIB + 8 * LK_MIB;
		vals[1] = (w + 1) * LK_MIB;
		events += lk_window(&st, &usage, vals, 2);
	}
	KUNIT_EXPECT_EQ(test, events, 1U);
}

/* 8 MiB at once, then held: one rising window, never three */
static void lk_plateau(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	u64 tops[12], fired[12];
	size_t w;

	for (w = 0; w < ARRAY_SIZE(tops); w++)
		tops[w] = 8 * LK_MIB;
	KUNIT_EXPECT_EQ(test, lk_run(&st, tops, ARRAY_SIZE(tops), fired), 0U);
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
}

/* A page's worth (the slack) or less per window is no rise */
static void lk_below_slack(struct kunit *test)
{
	struct gpumem_leak_state st = {};
	u64 tops[30], fired[30];
	size_t w;

	for (w = 0; w < ARRAY_SIZE(tops); w++)
		tops[w] = (w + 1) * 4096;
	KUNIT_EXPECT_EQ(test, lk_run(&st, tops, ARRAY_SIZE(tops), fired), 0U);
	/* one byte more than the slack per window is */
	memset(&st, 0, sizeof(st));
	for (w = 0; w < ARRAY_SIZE(tops); w++)
		tops[w] = (w + 1) * 4097;
	KUNIT_EXPECT_EQ(test, lk_run(&st, tops, 4, fired), 1U);
}

/*
 * Floors 0, 1, 2, 2, 3, 4, 4 MiB (a window's floor is where it began): two
 * rises, a flat window, two rises: never three in a row
 */
static void lk_interrupted(struct kunit *test)
{
	static const u64 tops[] = {
		LK_MIB, 2 * LK_MIB, 2 * LK_MIB, 3 * LK_MIB, 4 * LK_MIB,
		4 * LK_MIB, 4 * LK_MIB,
	};
	struct gpumem_leak_state st = {};
	u64 fired[ARRAY_SIZE(tops)];

	KUNIT_EXPECT_EQ(test, lk_run(&st, tops, ARRAY_SIZE(tops), fired), 0U);
}

/*
 * A staircase, then everything freed (back to where it began): a new
 * staircase is a second episode. Falling only part of the way is not.
 */
static void lk_second_episode(struct kunit *test)
{
	static const u64 tops[] = {
		LK_MIB, 2 * LK_MIB, 3 * LK_MIB, 4 * LK_MIB,	/* event 1 */
		2 * LK_MIB, 2 * LK_MIB,			/* part way down */
		3 * LK_MIB, 4 * LK_MIB, 5 * LK_MIB, 6 * LK_MIB,	/* no event */
		0, 0,					/* all freed */
		LK_MIB, 2 * LK_MIB, 3 * LK_MIB, 4 * LK_MIB,	/* event 2 */
	};
	struct gpumem_leak_state st = {};
	u64 fired[ARRAY_SIZE(tops)];

	KUNIT_ASSERT_EQ(test, lk_run(&st, tops, ARRAY_SIZE(tops), fired), 2U);
	KUNIT_EXPECT_EQ(test, fired[0], 3ULL);
	KUNIT_EXPECT_EQ(test, fired[1], 15ULL);
}

/* A restart forgets the rises so far */
static void lk_reset(struct kunit *test)
{
	struct gpumem_leak_params reset = lk_params;
	struct gpumem_leak_state st = {};
	u64 tops[] = { LK_MIB, 2 * LK_MIB, 3 * LK_MIB };
	u64 fired[3];

	KUNIT_EXPECT_EQ(test, lk_run(&st, tops, 3, fired), 0U);
	KUNIT_EXPECT_EQ(test, st.rises, 2U);
	reset.reset = true;
	KUNIT_EXPECT_FALSE(test, gpumem_leak_window_end(&st, 3 * LK_MIB, &reset));
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
	KUNIT_EXPECT_EQ(test, st.prev, 3 * LK_MIB);
}

/*
 * The listing's view of a suspect: growth and windows since the rise began,
 * kept while it rises on and while it holds; gone once it falls back.
 * Describing changes nothing.
 */
static void lk_describe(struct kunit *test)
{
	static const u64 tops[] = {
		LK_MIB, 2 * LK_MIB, 3 * LK_MIB, 4 * LK_MIB,	/* the event */
		5 * LK_MIB, 6 * LK_MIB, 6 * LK_MIB,		/* rises on */
		6 * LK_MIB,				/* holds */
	};
	struct gpumem_leak_state st = {}, before;
	struct gpumem_leak_hit hit = {};
	u64 fired[ARRAY_SIZE(tops)], usage = 0;

	KUNIT_ASSERT_EQ(test, lk_run(&st, tops, 3, fired), 0U);
	KUNIT_EXPECT_FALSE(test, gpumem_leak_describe(&st, 3 * LK_MIB, &hit));
	KUNIT_ASSERT_EQ(test, lk_run(&st, tops + 3, 1, fired), 1U);
	before = st;
	KUNIT_ASSERT_TRUE(test, gpumem_leak_describe(&st, 4 * LK_MIB, &hit));
	KUNIT_EXPECT_EQ(test, hit.usage, 4 * LK_MIB);
	KUNIT_EXPECT_EQ(test, hit.growth, 3 * LK_MIB);
	KUNIT_EXPECT_EQ(test, hit.windows, 3U);
	KUNIT_EXPECT_LE(test, hit.since_ms, 1000U);
	KUNIT_EXPECT_EQ(test, memcmp(&before, &st, sizeof(st)), 0);
	/* still pending for the event: describing took nothing */
	KUNIT_EXPECT_TRUE(test, st.pending);
	usage = 4 * LK_MIB;
	KUNIT_EXPECT_FALSE(test, lk_window(&st, &usage, &tops[4], 1));
	KUNIT_EXPECT_FALSE(test, lk_window(&st, &usage, &tops[5], 1));
	KUNIT_EXPECT_FALSE(test, lk_window(&st, &usage, &tops[6], 1));
	KUNIT_EXPECT_FALSE(test, lk_window(&st, &usage, &tops[7], 1));
	KUNIT_ASSERT_TRUE(test, gpumem_leak_describe(&st, usage, &hit));
	/*
	 * a window's floor is where it began: floors 0, 1, .. 6, 6 MiB; it
	 * rose by 6 MiB, and 7 windows have passed since the rise began
	 */
	KUNIT_EXPECT_EQ(test, hit.growth, 6 * LK_MIB);
	KUNIT_EXPECT_EQ(test, hit.windows, 7U);
	KUNIT_EXPECT_EQ(test, st.rises, 0U);
	/* all freed: no suspect any more, and no rise going on */
	usage = 0;
	gpumem_leak_note(&st, 0);
	KUNIT_EXPECT_FALSE(test, gpumem_leak_window_end(&st, 0, &lk_params));
	KUNIT_EXPECT_FALSE(test, gpumem_leak_describe(&st, 0, &hit));
	KUNIT_EXPECT_EQ(test, st.span, 0U);
}

/* A process's counters on a device: one suspect, with its pid */
static void lk_process_counters(struct kunit *test)
{
	struct gpumem_leak_hit hits[GPUMEM_LEAK_BATCH];
	struct pid *me = task_tgid(current);
	struct gpumem_proc_usage *pu[5];
	unsigned int w, found = 0;
	size_t n, i;

	for (w = 0; w < ARRAY_SIZE(pu); w++) {
		pu[w] = gpumem_proc_usage_get(me, "kunit-leak", LK_DEV);
		KUNIT_ASSERT_NOT_NULL(test, pu[w]);
		gpumem_proc_usage_charge(pu[w], GPUMEM_REGION_VRAM, LK_MIB);
		n = gpumem_proc_usage_leaks(&lk_params, 0, UINT_MAX, hits, ARRAY_SIZE(hits));
		for (i = 0; i < n; i++) {
			if (hits[i].pid == me && hits[i].minor == LK_DEV) {
				found++;
				KUNIT_EXPECT_EQ(test, w, 3U);
				KUNIT_EXPECT_EQ(test, hits[i].region,
						(u8)GPUMEM_REGION_VRAM);
				KUNIT_EXPECT_EQ(test, hits[i].usage, (w + 1) * LK_MIB);
				KUNIT_EXPECT_EQ(test, hits[i].growth, 3 * LK_MIB);
				KUNIT_EXPECT_STREQ(test, hits[i].comm, "kunit-leak");
			}
			put_pid(hits[i].pid);
		}
	}
	KUNIT_EXPECT_EQ(test, found, 1U);
	/* listed while a suspect, with its pid; reading changes nothing */
	n = gpumem_proc_usage_suspects(hits, ARRAY_SIZE(hits));
	for (i = 0, found = 0; i < min_t(size_t, n, ARRAY_SIZE(hits)); i++) {
		if (hits[i].pid == me && hits[i].minor == LK_DEV) {
			found++;
			KUNIT_EXPECT_EQ(test, hits[i].usage, 5 * LK_MIB);
			KUNIT_EXPECT_EQ(test, hits[i].growth, 4 * LK_MIB);
			KUNIT_EXPECT_EQ(test, hits[i].windows, 4U);
		}
		put_pid(hits[i].pid);
	}
	KUNIT_EXPECT_EQ(test, found, 1U);
	for (w = 0; w < ARRAY_SIZE(pu); w++)
		gpumem_proc_usage_uncharge(pu[w], GPUMEM_REGION_VRAM, LK_MIB);
	/* freed: the next window end takes it off the list */
	n = gpumem_proc_usage_leaks(&lk_params, 0, UINT_MAX, hits, ARRAY_SIZE(hits));
	for (i = 0; i < n; i++)
		put_pid(hits[i].pid);
	n = gpumem_proc_usage_suspects(hits, ARRAY_SIZE(hits));
	for (i = 0, found = 0; i < min_t(size_t, n, ARRAY_SIZE(hits)); i++) {
		found += hits[i].pid == me && hits[i].minor == LK_DEV;
		put_pid(hits[i].pid);
	}
	KUNIT_EXPECT_EQ(test, found, 0U);
}

/*
 * A cgroup's own charges: the child, whose staircase it is, is the suspect;
 * its ancestor (the root, whose usage includes the child's) is not.
 */
static void lk_cgroup_counters(struct kunit *test)
{
	struct gpumem_leak_hit hits[GPUMEM_LEAK_BATCH];
	u64 cgids[2], root;
	struct gpumem_charge_req req = {
		.cgids = cgids, .depth = 2, .minor = LK_DEV,
		.region = GPUMEM_REGION_VRAM, .bytes = LK_MIB, .comm = "kunit",
	};
	unsigned int w, child = 0, other = 0;
	size_t n, i;

	rcu_read_lock();
	root = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	cgids[0] = LK_CHILD;
	cgids[1] = root;
	for (w = 0; w < 5; w++) {
		KUNIT_ASSERT_EQ(test, gpumem_limits_charge(&req, false), 0);
		n = gpumem_limits_leaks(&lk_params, 0, UINT_MAX, hits, ARRAY_SIZE(hits));
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_NULL(test, hits[i].pid);
			if (hits[i].minor != LK_DEV)
				continue;
			if (hits[i].cgid == LK_CHILD) {
				child++;
				KUNIT_EXPECT_EQ(test, w, 3U);
				KUNIT_EXPECT_EQ(test, hits[i].growth, 3 * LK_MIB);
			} else {
				other++;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, child, 1U);
	KUNIT_EXPECT_EQ(test, other, 0U);
	/* listed: the child, not the root */
	n = gpumem_limits_suspects(hits, ARRAY_SIZE(hits));
	for (i = 0, child = 0, other = 0; i < min_t(size_t, n, ARRAY_SIZE(hits)); i++) {
		KUNIT_EXPECT_NULL(test, hits[i].pid);
		if (hits[i].minor != LK_DEV)
			continue;
		if (hits[i].cgid == LK_CHILD) {
			child++;
			KUNIT_EXPECT_EQ(test, hits[i].usage, 5 * LK_MIB);
			KUNIT_EXPECT_EQ(test, hits[i].growth, 4 * LK_MIB);
		} else {
			other++;
		}
	}
	KUNIT_EXPECT_EQ(test, child, 1U);
	KUNIT_EXPECT_EQ(test, other, 0U);
	for (w = 0; w < 5; w++)
		gpumem_limits_uncharge(&req);
}

static struct kunit_case gpumem_leak_cases[] = {
	KUNIT_CASE(lk_staircase),
	KUNIT_CASE(lk_sawtooth),
	KUNIT_CASE(lk_sawtooth_rising_peaks),
	KUNIT_CASE(lk_sawtooth_falling_floor),
	KUNIT_CASE(lk_sawtooth_on_staircase),
	KUNIT_CASE(lk_plateau),
	KUNIT_CASE(lk_below_slack),
	KUNIT_CASE(lk_interrupted),
	KUNIT_CASE(lk_second_episode),
	KUNIT_CASE(lk_reset),
	KUNIT_CASE(lk_describe),
	KUNIT_CASE(lk_process_counters),
	KUNIT_CASE(lk_cgroup_counters),
	{}
};

static struct kunit_suite gpumem_leak_suite = {
	.name = "gpumem_leak",
	.test_cases = gpumem_leak_cases,
};

kunit_test_suite(gpumem_leak_suite);
