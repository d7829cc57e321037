// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the event rate limiter (kmod/events.c): one bucket per event type,
 * cgroup and device; a flood of one key never suppresses another's; the
 * next event sent from a bucket carries what it suppressed; the bucket
 * table is bounded, and at its cap an idle bucket is taken over (its
 * suppressed count goes to the shared bucket) while a busy one never is.
 * Time is simulated by moving the buckets' stamps back. Emitting never
 * waits: the queue to the worker is bounded, events beyond it are lost
 * and counted.
 */
#include <kunit/test.h>
#include "../uapi/gpumem.h"
#include "../kmod/events.c"
#include "../kmod/hook_stats.h"

#define EV_CG_A		2001ULL
#define EV_CG_B		2002ULL
#define EV_DEV		3

static unsigned int ev_rate0, ev_burst0, ev_max0;

static int ev_init(struct kunit *test)
{
	ev_rate0 = event_rate;
	ev_burst0 = event_burst;
	ev_max0 = gpumem_rl_max;
	event_rate = 1;
	event_burst = 3;
	gpumem_events_exit();
	return 0;
}

static void ev_exit(struct kunit *test)
{
	event_rate = ev_rate0;
	event_burst = ev_burst0;
	gpumem_rl_max = ev_max0;
	gpumem_events_exit();
}

static struct gpumem_event_key ev_key(u64 cgid, u32 type)
{
	return (struct gpumem_event_key) {
		.cgid = cgid, .minor = EV_DEV, .type = type,
	};
}

/* Send @n events of @key; returns how many were allowed. */
static unsigned int ev_send(const struct gpumem_event_key *key,
			    unsigned int n, u64 *last_suppressed)
{
	unsigned int i, ok = 0;
	u64 s;

	for (i = 0; i < n; i++) {
		if (gpumem_event_ratelimit(key, &s)) {
			ok++;
			*last_suppressed = s;
		}
	}
	return ok;
}

/* The bucket of @key (NULL: none), for moving its time back. */
static struct gpumem_rl_bucket *ev_bucket(const struct gpumem_event_key *key)
{
	struct gpumem_rl_bucket *b;

	spin_lock(&gpumem_rl_lock);
	hash_for_each_possible(gpumem_rl_hash, b, hnode, gpumem_rl_hash_key(key))
		if (gpumem_rl_same(&b->key, key))
			goto out;
	b = NULL;
out:
	spin_unlock(&gpumem_rl_lock);
	return b;
}

/*
 * A burst of 3: the first 3 go, the next 7 are suppressed; a second later
 * (one token) the next event goes and carries exactly 7.
 */
static void ev_burst_then_carry(struct kunit *test)
{
	struct gpumem_event_key a = ev_key(EV_CG_A, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED);
	struct gpumem_rl_bucket *b;
	u64 s = U64_MAX;

	KUNIT_EXPECT_EQ(test, ev_send(&a, 10, &s), 3U);
	KUNIT_EXPECT_EQ(test, s, 0ULL);
	b = ev_bucket(&a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->rl.suppressed, 7ULL);
	b->rl.stamp -= HZ;	/* one second passed: one token */
	KUNIT_EXPECT_EQ(test, ev_send(&a, 2, &s), 1U);
	KUNIT_EXPECT_EQ(test, s, 7ULL);
	KUNIT_EXPECT_EQ(test, b->rl.suppressed, 1ULL);
}

/*
 * Tenant A floods (every type it can): tenant B's events of each type, and
 * A's events of another type or on another device, all go.
 */
static void ev_tenants_apart(struct kunit *test)
{
	static const u32 types[] = {
		GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, GPUMEM_EVENT_TYPE_HIGH_CROSSED,
		GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD,
		GPUMEM_EVENT_TYPE_FRAGMENTED_DENIAL,
		GPUMEM_EVENT_TYPE_LEAK_SUSPECT, GPUMEM_EVENT_TYPE_ORPHANED,
	};
	struct gpumem_event_key k;
	unsigned int t;
	u64 s = U64_MAX;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		k = ev_key(EV_CG_A, types[t]);
		KUNIT_EXPECT_EQ(test, ev_send(&k, 100, &s), 3U);
	}
	for (t = 0; t < ARRAY_SIZE(types); t++) {
		k = ev_key(EV_CG_B, types[t]);
		KUNIT_EXPECT_EQ(test, ev_send(&k, 3, &s), 3U);
		KUNIT_EXPECT_EQ(test, s, 0ULL);
	}
	k = ev_key(EV_CG_A, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED);
	k.minor = EV_DEV + 1;
	KUNIT_EXPECT_EQ(test, ev_send(&k, 3, &s), 3U);
	KUNIT_EXPECT_EQ(test, gpumem_rl_count, (unsigned int)(2 * ARRAY_SIZE(types) + 1));
}

/*
 * At the cap (2 buckets) a third key shares the shared bucket while both
 * buckets are busy; once one is idle for GPUMEM_RL_IDLE the third key
 * takes it over, and what it had suppressed is carried by the shared
 * bucket's next event. The table never grows beyond the cap.
 */
static void ev_cap(struct kunit *test)
{
	struct gpumem_event_key a = ev_key(EV_CG_A, GPUMEM_EVENT_TYPE_ORPHANED);
	struct gpumem_event_key b = ev_key(EV_CG_B, GPUMEM_EVENT_TYPE_ORPHANED);
	struct gpumem_event_key c = ev_key(EV_CG_B + 1, GPUMEM_EVENT_TYPE_ORPHANED);
	struct gpumem_event_key d = ev_key(EV_CG_B + 2, GPUMEM_EVENT_TYPE_ORPHANED);
	struct gpumem_rl_bucket *ba;
	u64 s = U64_MAX;

	gpumem_rl_max = 2;
	KUNIT_EXPECT_EQ(test, ev_send(&a, 5, &s), 3U);	/* 2 suppressed */
	KUNIT_EXPECT_EQ(test, ev_send(&b, 1, &s), 1U);
	/* c and d share one bucket: 3 between them */
	KUNIT_EXPECT_EQ(test, ev_send(&c, 2, &s) + ev_send(&d, 2, &s), 3U);
	KUNIT_EXPECT_NULL(test, ev_bucket(&c));
	KUNIT_EXPECT_EQ(test, gpumem_rl_count, 2U);
	KUNIT_EXPECT_EQ(test, gpumem_rl_shared.suppressed, 1ULL);
	/* a (least recently used) idle: c takes its bucket over */
	ba = ev_bucket(&a);
	KUNIT_ASSERT_NOT_NULL(test, ba);
	ba->used -= GPUMEM_RL_IDLE + 1;
	KUNIT_EXPECT_EQ(test, ev_send(&c, 1, &s), 1U);
	KUNIT_EXPECT_EQ(test, s, 0ULL);
	KUNIT_EXPECT_NULL(test, ev_bucket(&a));
	KUNIT_EXPECT_EQ(test, gpumem_rl_count, 2U);
	/* a's 2 suppressed wait in the shared bucket, with d's 1 */
	KUNIT_EXPECT_EQ(test, gpumem_rl_shared.suppressed, 3ULL);
	gpumem_rl_shared.stamp -= HZ;
	KUNIT_EXPECT_EQ(test, ev_send(&d, 1, &s), 1U);
	KUNIT_EXPECT_EQ(test, s, 3ULL);
}

/*
 * The queue between gpumem_event_emit() and the worker: a sink whose
 * prepare holds the first event until told, so the queue fills up.
 */
static DECLARE_COMPLETION(evq_in_prepare);
static DECLARE_COMPLETION(evq_go);
static unsigned int evq_prepared, evq_sent;
static u64 evq_last_seq;

static void *evq_prepare(const struct gpumem_quota_event *ev)
{
	if (evq_prepared++ == 0) {
		complete(&evq_in_prepare);
		wait_for_completion(&evq_go);
	}
	return (void *)ev;	/* any non-NULL message */
}

static int evq_send(void *msg, u64 seq)
{
	const struct gpumem_quota_event *ev = msg;

	evq_sent++;
	evq_last_seq = seq;
	/* the holders were copied with the event */
	return ev->nr_holders == 2 && ev->holders[1] == 43 ? 0 : -EINVAL;
}

static const struct gpumem_event_sink evq_sink = {
	.prepare = evq_prepare,
	.send = evq_send,
};

static u64 evq_stat(enum gpumem_hook_stat stat)
{
	struct gpumem_hook_stats hs;

	gpumem_hook_stats_read(&hs);
	return hs.count[stat];
}

/*
 * Emitting never waits for the worker: with its first event held in
 * prepare, GPUMEM_EVENTS_QUEUE_MAX more wait in the queue and 5 beyond are
 * lost at once (numbered, counted); then all those queued are sent, in
 * number order, with their holders.
 */
static void ev_queue_bounded(struct kunit *test)
{
	pid_t holders[2] = { 42, 43 };
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_ORPHANED,
		.holders = holders, .nr_holders = 2,
	};
	u64 lost0, sent0, first;
	unsigned int i;

	evq_prepared = 0;
	evq_sent = 0;
	reinit_completion(&evq_in_prepare);
	reinit_completion(&evq_go);
	lost0 = evq_stat(GPUMEM_HOOK_EVENTS_LOST);
	sent0 = evq_stat(GPUMEM_HOOK_EVENTS_SENT);
	gpumem_events_set_sink(&evq_sink);
	gpumem_event_emit(&ev);
	first = ev.seq;
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&evq_in_prepare,
							  10 * HZ), 0UL);
	for (i = 0; i < GPUMEM_EVENTS_QUEUE_MAX + 5; i++)
		gpumem_event_emit(&ev);
	holders[1] = 99;	/* the queued copies keep what they were given */
	KUNIT_EXPECT_EQ(test, ev.seq, first + GPUMEM_EVENTS_QUEUE_MAX + 5);
	KUNIT_EXPECT_EQ(test, evq_stat(GPUMEM_HOOK_EVENTS_LOST) - lost0, 5ULL);
	KUNIT_EXPECT_EQ(test, evq_sent, 0U);
	complete(&evq_go);
	gpumem_events_flush();
	KUNIT_EXPECT_EQ(test, evq_sent, GPUMEM_EVENTS_QUEUE_MAX + 1);
	KUNIT_EXPECT_EQ(test, evq_last_seq, first + GPUMEM_EVENTS_QUEUE_MAX);
	KUNIT_EXPECT_EQ(test, evq_stat(GPUMEM_HOOK_EVENTS_SENT) - sent0,
			(u64)GPUMEM_EVENTS_QUEUE_MAX + 1);
	gpumem_events_set_sink(NULL);
}

static struct kunit_case gpumem_events_cases[] = {
	KUNIT_CASE(ev_burst_then_carry),
	KUNIT_CASE(ev_tenants_apart),
	KUNIT_CASE(ev_cap),
	KUNIT_CASE(ev_queue_bounded),
	{}
};

static struct kunit_suite gpumem_events_suite = {
	.name = "gpumem_events",
	.init = ev_init,
	.exit = ev_exit,
	.test_cases = gpumem_events_cases,
};

kunit_test_suite(gpumem_events_suite);
