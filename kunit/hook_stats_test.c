// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the hook statistics (kmod/hook_stats.c): each counter moves alone
 * and by one; a read sums every possible CPU's counts (also CPUs that are
 * offline now); every counter has a name of its own.
 */
#include <kunit/test.h>
#include "../kmod/hook_stats.c"

/* Each counter's increment moves that counter by one, and no other. */
static void hs_each_counter_alone(struct kunit *test)
{
	struct gpumem_hook_stats before, after;
	unsigned int i, j;

	for (i = 0; i < GPUMEM_HOOK_NR_STATS; i++) {
		gpumem_hook_stats_read(&before);
		gpumem_hook_stats_inc(i);
		gpumem_hook_stats_read(&after);
		for (j = 0; j < GPUMEM_HOOK_NR_STATS; j++)
			KUNIT_EXPECT_EQ_MSG(test, after.count[j],
					    before.count[j] + (i == j),
					    "incrementing %s moved %s",
					    gpumem_hook_stat_name(i),
					    gpumem_hook_stat_name(j));
	}
}

/*
 * A read is the sum over every possible CPU: counts left on other CPUs
 * (put there directly, as if incremented there) are in it.
 */
static void hs_sum_of_cpus(struct kunit *test)
{
	struct gpumem_hook_stats before, after;
	u64 added = 0;
	int cpu;

	gpumem_hook_stats_read(&before);
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(&gpumem_hook_counts, cpu)->count[GPUMEM_HOOK_DENIED] +=
			cpu + 1;
		added += cpu + 1;
	}
	gpumem_hook_stats_read(&after);
	KUNIT_EXPECT_EQ(test, after.count[GPUMEM_HOOK_DENIED],
			before.count[GPUMEM_HOOK_DENIED] + added);
	KUNIT_EXPECT_EQ(test, after.count[GPUMEM_HOOK_CHARGED],
			before.count[GPUMEM_HOOK_CHARGED]);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&gpumem_hook_counts, cpu)->count[GPUMEM_HOOK_DENIED] -=
			cpu + 1;
}

/* Every counter has a name (debugfs prints "hook_<name>"), each its own. */
static void hs_names(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < GPUMEM_HOOK_NR_STATS; i++) {
		KUNIT_ASSERT_NOT_NULL(test, gpumem_hook_stat_name(i));
		KUNIT_EXPECT_GT(test, strlen(gpumem_hook_stat_name(i)), 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, gpumem_hook_stat_name(i),
					    gpumem_hook_stat_name(j));
	}
	KUNIT_EXPECT_NULL(test, gpumem_hook_stat_name(GPUMEM_HOOK_NR_STATS));
}

static struct kunit_case gpumem_hook_stats_cases[] = {
	KUNIT_CASE(hs_each_counter_alone),
	KUNIT_CASE(hs_sum_of_cpus),
	KUNIT_CASE(hs_names),
	{}
};

static struct kunit_suite gpumem_hook_stats_suite = {
	.name = "gpumem_hook_stats",
	.test_cases = gpumem_hook_stats_cases,
};

kunit_test_suite(gpumem_hook_stats_suite);
