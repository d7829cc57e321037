// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem events: quota-exceeded, high-crossed, device-threshold,
 * fragmented-denial, leak-suspect and orphaned events.
 *
 * Numbering: every event that somebody listens for takes the next sequence
 * number, also when it is lost (no memory for its message, a full socket):
 * a listener sees every loss as a gap. Numbers are taken and messages
 * handed to the sink in one step under gpumem_events_lock, so listeners see
 * them in order.
 *
 * Rate limiting: a token bucket (struct gpumem_ratelimit) per event type,
 * cgroup and device (struct gpumem_event_key), so that one tenant's flood
 * of events leaves every other tenant's intact; the next event sent from a
 * bucket carries the number it suppressed meanwhile. The buckets live in a
 * table of at most gpumem_rl_max entries (GPUMEM_RL_BUCKETS_MAX, about 80
 * bytes each, charged to the task whose event made it): see
 * gpumem_event_ratelimit() for what happens at the cap.
 *
 * The sink (netlink.c) is set before anything can emit and cleared after
 * nothing can (module init and exit order); events.c depends on no sink.
 *
 * Statistics (hook_stats.c, per-CPU counters: no lock of their own): every
 * numbered event counts as sent or lost (sent + lost = the numbers taken),
 * every event a bucket drops as suppressed.
 */
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "events.h"
#include "hook_stats.h"

static unsigned int event_rate = 100;
static unsigned int event_burst = 200;

static int gpumem_param_set_rate(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 1000000);
}

static const struct kernel_param_ops gpumem_rate_ops = {
	.set = gpumem_param_set_rate,
	.get = param_get_uint,
};

module_param_cb(event_rate, &gpumem_rate_ops, &event_rate, 0644);
MODULE_PARM_DESC(event_rate, "events per second per cgroup before rate limiting (1..1000000, default 100)");
module_param_cb(event_burst, &gpumem_rate_ops, &event_burst, 0644);
MODULE_PARM_DESC(event_burst, "burst of events per cgroup allowed at once (1..1000000, default 200)");

/* At most this many rate-limit buckets (one per type, cgroup and device). */
#define GPUMEM_RL_BUCKETS_MAX	4096
/* At the cap, a bucket unused this long is given to a new key. */
#define GPUMEM_RL_IDLE		(10 * HZ)

/**
 * struct gpumem_rl_bucket - the rate limit of one (type, cgroup, device)
 * @hnode: entry in gpumem_rl_hash
 * @lru: entry in gpumem_rl_lru (most recently used first)
 * @key: whose events it limits
 * @used: jiffies of its last event (sent or suppressed)
 * @rl: the token bucket
 *
 * All fields are protected by gpumem_rl_lock.
 */
struct gpumem_rl_bucket {
	struct hlist_node hnode;
	struct list_head lru;
	struct gpumem_event_key key;
	unsigned long used;
	struct gpumem_ratelimit rl;
};

/*
 * gpumem_rl_lock protects the bucket table, the LRU list, the count and
 * the shared bucket. It is a leaf: taken under gpumem_limits_lock
 * (limits.c), never the other way round.
 */
static DEFINE_SPINLOCK(gpumem_rl_lock);
static DEFINE_HASHTABLE(gpumem_rl_hash, 10);
static LIST_HEAD(gpumem_rl_lru);
static unsigned int gpumem_rl_count;
static unsigned int gpumem_rl_max = GPUMEM_RL_BUCKETS_MAX;
/* The keys that found no bucket (at the cap, or no memory) share this one. */
static struct gpumem_ratelimit gpumem_rl_shared;
static bool gpumem_rl_shared_ready;

static const struct gpumem_event_sink *gpumem_events_sink;
static DEFINE_SPINLOCK(gpumem_events_lock);
static u64 gpumem_events_seq;	/* the last number taken; gpumem_events_lock */

/**
 * gpumem_ratelimit_init() - a full bucket
 * @rl: the bucket
 */
void gpumem_ratelimit_init(struct gpumem_ratelimit *rl)
{
	rl->stamp = jiffies;
	rl->tokens = READ_ONCE(event_burst);
	rl->suppressed = 0;
}

/**
 * gpumem_ratelimit_allow() - may one more event of this bucket be sent?
 * @rl: its bucket (the caller holds the lock that protects it)
 * @suppressed: set to the events dropped before this one, when allowed
 *
 * Return: true when the event may be sent; false when it is suppressed
 *	(counted: hook statistic events_suppressed).
 */
bool gpumem_ratelimit_allow(struct gpumem_ratelimit *rl, u64 *suppressed)
{
	unsigned int rate = READ_ONCE(event_rate);
	unsigned int burst = READ_ONCE(event_burst);
	unsigned long now = jiffies;
	u64 refill;

	refill = (u64)(now - rl->stamp) * rate / HZ;
	if (refill) {
		rl->tokens = min_t(u64, rl->tokens + refill, burst);
		/*
		 * Advance by the whole jiffies those tokens took (never more
		 * than elapsed), keeping the fraction of a token already earned.
		 */
		rl->stamp += DIV_ROUND_UP_ULL(refill * HZ, rate);
		if (rl->tokens == burst)
			rl->stamp = now;
	}
	/* event_burst lowered since the bucket was filled: it holds at once */
	rl->tokens = min(rl->tokens, burst);
	if (!rl->tokens) {
		rl->suppressed++;
		gpumem_hook_stats_inc(GPUMEM_HOOK_EVENTS_SUPPRESSED);
		return false;
	}
	rl->tokens--;
	*suppressed = rl->suppressed;
	rl->suppressed = 0;
	return true;
}

static u32 gpumem_rl_hash_key(const struct gpumem_event_key *key)
{
	return jhash_3words((u32)key->cgid, (u32)(key->cgid >> 32),
			    (u32)key->minor ^ (key->type << 24), 0);
}

static bool gpumem_rl_same(const struct gpumem_event_key *a,
			   const struct gpumem_event_key *b)
{
	return a->cgid == b->cgid && a->minor == b->minor &&
	       a->type == b->type;
}

/* The shared bucket (full on first use). Caller holds gpumem_rl_lock. */
static struct gpumem_ratelimit *gpumem_rl_shared_get(void)
{
	lockdep_assert_held(&gpumem_rl_lock);
	if (!gpumem_rl_shared_ready) {
		gpumem_ratelimit_init(&gpumem_rl_shared);
		gpumem_rl_shared_ready = true;
	}
	return &gpumem_rl_shared;
}

/*
 * The bucket of @key, made (full) when it has none: a new one below the
 * cap, else the least recently used one if it was idle for GPUMEM_RL_IDLE
 * (what it had suppressed goes to the shared bucket, whose next event
 * reports it). NULL: use the shared bucket. O(1) but for the hash chain.
 * Caller holds gpumem_rl_lock.
 */
static struct gpumem_rl_bucket *gpumem_rl_get(const struct gpumem_event_key *key)
{
	u32 hash = gpumem_rl_hash_key(key);
	struct gpumem_rl_bucket *b;

	lockdep_assert_held(&gpumem_rl_lock);
	hash_for_each_possible(gpumem_rl_hash, b, hnode, hash)
		if (gpumem_rl_same(&b->key, key))
			goto found;
	b = NULL;
	if (gpumem_rl_count < gpumem_rl_max) {
		/* under a spinlock; charged to the task whose event it is */
		b = kmalloc(sizeof(*b), GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT);
		if (b) {
			gpumem_rl_count++;
			INIT_LIST_HEAD(&b->lru);
		}
	}
	if (!b && !list_empty(&gpumem_rl_lru)) {
		b = list_last_entry(&gpumem_rl_lru, struct gpumem_rl_bucket, lru);
		if (time_before(jiffies, b->used + GPUMEM_RL_IDLE))
			return NULL;
		gpumem_rl_shared_get()->suppressed += b->rl.suppressed;
		hash_del(&b->hnode);
	}
	if (!b)
		return NULL;
	b->key = *key;
	gpumem_ratelimit_init(&b->rl);
	hash_add(gpumem_rl_hash, &b->hnode, hash);
found:
	b->used = jiffies;
	list_move(&b->lru, &gpumem_rl_lru);
	return b;
}

/**
 * gpumem_event_ratelimit() - may one more event of this key be sent?
 * @key: the event's type, the cgroup it is charged to and its device
 * @suppressed: set to the events of the bucket dropped before this one,
 *	when allowed
 *
 * Every (type, cgroup, device) has its own bucket (event_rate per second,
 * event_burst at once), so that a flood of one tenant's events never
 * suppresses another's. The table is bounded: at most GPUMEM_RL_BUCKETS_MAX
 * buckets. At the cap a new key takes over the least recently used bucket
 * if it had no event for GPUMEM_RL_IDLE; otherwise (a tenant keeps that
 * many cgroups busy, or no memory) the keys without a bucket share one
 * host-wide bucket. Nothing is lost from the counts: what a bucket taken
 * over had suppressed is carried by the next event of the shared bucket,
 * and every suppression counts in the hook statistic events_suppressed.
 *
 * Context: any but hard interrupt; takes gpumem_rl_lock (a leaf spinlock),
 *	allocates without sleeping.
 * Return: true when the event may be sent, false when it is suppressed.
 */
bool gpumem_event_ratelimit(const struct gpumem_event_key *key,
			    u64 *suppressed)
{
	struct gpumem_rl_bucket *b;
	bool ok;

	spin_lock(&gpumem_rl_lock);
	b = gpumem_rl_get(key);
	ok = gpumem_ratelimit_allow(b ? &b->rl : gpumem_rl_shared_get(),
				    suppressed);
	spin_unlock(&gpumem_rl_lock);
	return ok;
}

/**
 * gpumem_events_exit() - free the rate-limit buckets
 *
 * Context: module exit (or a failed init), once nothing can emit events.
 */
void gpumem_events_exit(void)
{
	struct gpumem_rl_bucket *b, *tmp;

	spin_lock(&gpumem_rl_lock);
	list_for_each_entry_safe(b, tmp, &gpumem_rl_lru, lru) {
		hash_del(&b->hnode);
		list_del(&b->lru);
		kfree(b);
	}
	gpumem_rl_count = 0;
	gpumem_rl_shared_ready = false;
	spin_unlock(&gpumem_rl_lock);
}

/**
 * gpumem_events_set_sink() - set (or clear, with NULL) where events go
 * @sink: the sink; it must stay valid until cleared
 */
void gpumem_events_set_sink(const struct gpumem_event_sink *sink)
{
	WRITE_ONCE(gpumem_events_sink, sink);
}

/**
 * gpumem_event_emit() - number an event and hand it to the sink
 * @ev: the event; its @seq is assigned here
 *
 * An event nobody listens for takes no number and is not counted; one that
 * takes a number counts as sent (hook statistic events_sent) or, when its
 * message could not be built or delivered, as lost (events_lost).
 *
 * Context: process context, may sleep (the sink builds the message first).
 */
void gpumem_event_emit(struct gpumem_quota_event *ev)
{
	const struct gpumem_event_sink *sink = READ_ONCE(gpumem_events_sink);
	void *msg;
	int ret;

	if (!sink)
		return;
	msg = sink->prepare(ev);
	if (IS_ERR(msg))
		return;		/* nobody listens */
	spin_lock(&gpumem_events_lock);
	ev->seq = ++gpumem_events_seq;
	ret = msg ? sink->send(msg, ev->seq) : -ENOMEM;
	spin_unlock(&gpumem_events_lock);
	gpumem_hook_stats_inc(ret ? GPUMEM_HOOK_EVENTS_LOST :
			      GPUMEM_HOOK_EVENTS_SENT);
}
