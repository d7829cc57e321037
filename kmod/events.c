// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem events: quota-exceeded, high-crossed, device-threshold,
 * fragmented-denial, leak-suspect and orphaned events.
 *
 * Numbering: every event that somebody listens for takes the next sequence
 * number, also when it is lost (no memory for it, a full queue, a full
 * socket): a listener sees every loss as a gap. gpumem_event_emit() runs
 * where the event happens, often inside a TTM allocation: it never sleeps.
 * It copies the event (ids, pids, command names, figures: no path), takes
 * its number and appends it to a queue in one step under
 * gpumem_events_lock, so the queue is in number order. One work item
 * (gpumem_events_work, system_wq) takes the events off the queue in that
 * order, has the sink build each message (where cgroup paths are resolved:
 * it may sleep) and send it. The queue holds at most
 * GPUMEM_EVENTS_QUEUE_MAX events (each charged to the task whose event it
 * is); an event beyond is lost, numbered and counted.
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
 * numbered event counts as sent or lost (sent + lost = the numbers taken,
 * once the queue is empty: readers of the statistics call
 * gpumem_events_flush() first), every event a bucket drops as suppressed.
 */
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
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

/**
 * struct gpumem_event_entry - an event numbered and waiting for the worker
 * @node: entry in gpumem_events_queue
 * @sink: the sink it goes to (valid until gpumem_events_set_sink() has
 *	drained the queue)
 * @ev: the event; its @holders point at @holders
 * @holders: a copy of the event's holder pids
 */
struct gpumem_event_entry {
	struct list_head node;
	const struct gpumem_event_sink *sink;
	struct gpumem_quota_event ev;
	pid_t holders[];
};

static const struct gpumem_event_sink *gpumem_events_sink;
/* gpumem_events_lock protects the numbers, the queue and its length. */
static DEFINE_SPINLOCK(gpumem_events_lock);
static u64 gpumem_events_seq;	/* the last number taken */
static LIST_HEAD(gpumem_events_queue);
static unsigned int gpumem_events_queued;

static void gpumem_events_fn(struct work_struct *work);
static DECLARE_WORK(gpumem_events_work, gpumem_events_fn);

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

/* Count how a numbered event ended: delivered or lost. */
static void gpumem_events_count(bool sent)
{
	gpumem_hook_stats_inc(sent ? GPUMEM_HOOK_EVENTS_SENT :
			      GPUMEM_HOOK_EVENTS_LOST);
}

/*
 * The worker: the queued events in number order, each message built (may
 * sleep) and sent. Work items do not run concurrently with themselves, so
 * the order holds.
 */
static void gpumem_events_fn(struct work_struct *work)
{
	struct gpumem_event_entry *e;
	void *msg;
	int ret;

	for (;;) {
		spin_lock(&gpumem_events_lock);
		e = list_first_entry_or_null(&gpumem_events_queue,
					     struct gpumem_event_entry, node);
		if (e) {
			list_del(&e->node);
			gpumem_events_queued--;
		}
		spin_unlock(&gpumem_events_lock);
		if (!e)
			break;
		msg = e->sink->prepare(&e->ev);
		ret = IS_ERR_OR_NULL(msg) ? -ENOMEM : e->sink->send(msg, e->ev.seq);
		gpumem_events_count(!ret);
		kfree(e);
		cond_resched();
	}
}

/**
 * gpumem_events_flush() - wait until the events emitted so far are sent
 *
 * Readers of the events' statistics call it first, so that sent + lost is
 * the numbers taken before the read.
 *
 * Context: process context, may sleep (as long as the worker takes to send
 *	at most GPUMEM_EVENTS_QUEUE_MAX events).
 */
void gpumem_events_flush(void)
{
	flush_work(&gpumem_events_work);
}

/**
 * gpumem_events_exit() - free the rate-limit buckets
 *
 * Context: module exit (or a failed init), once nothing can emit events.
 */
void gpumem_events_exit(void)
{
	struct gpumem_rl_bucket *b, *tmp;

	flush_work(&gpumem_events_work);	/* the sink drained it already */

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
 *
 * Clearing waits until the events queued for the old sink are handed to it.
 *
 * Context: process context, may sleep (when clearing).
 */
void gpumem_events_set_sink(const struct gpumem_event_sink *sink)
{
	WRITE_ONCE(gpumem_events_sink, sink);
	if (!sink)
		flush_work(&gpumem_events_work);
}

/**
 * gpumem_event_emit() - number an event and queue it for the sink
 * @ev: the event; its @seq is assigned here (its @holders are copied)
 *
 * An event nobody listens for takes no number and is not counted; one that
 * takes a number counts as sent (hook statistic events_sent) once the
 * worker delivered it or, when it could not be queued, built or delivered,
 * as lost (events_lost). Nothing here sleeps or waits for a lookup: the
 * event is copied as it is (ids, pids, names) and its message, with the
 * cgroup path, is built later by the worker.
 *
 * Context: any but hard interrupt; never sleeps (allocates with
 *	GFP_NOWAIT); takes gpumem_events_lock.
 */
void gpumem_event_emit(struct gpumem_quota_event *ev)
{
	const struct gpumem_event_sink *sink = READ_ONCE(gpumem_events_sink);
	struct gpumem_event_entry *e = NULL;
	int ret;

	if (!sink)
		return;
	ret = sink->accept ? sink->accept(ev) : 0;
	if (ret == -ENOENT)
		return;		/* nobody listens */
	if (!ret && !ev->lost)
		e = kmalloc(struct_size(e, holders, ev->nr_holders),
			    GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT);
	if (e) {
		e->sink = sink;
		e->ev = *ev;
		if (ev->nr_holders)
			memcpy(e->holders, ev->holders,
			       ev->nr_holders * sizeof(*e->holders));
		e->ev.holders = e->holders;
	}
	spin_lock(&gpumem_events_lock);
	ev->seq = ++gpumem_events_seq;
	if (e && gpumem_events_queued < GPUMEM_EVENTS_QUEUE_MAX) {
		e->ev.seq = ev->seq;
		list_add_tail(&e->node, &gpumem_events_queue);
		gpumem_events_queued++;
		queue_work(system_wq, &gpumem_events_work);
		e = NULL;
		ret = 0;
	} else {
		ret = -ENOMEM;	/* its number is taken: a gap */
	}
	spin_unlock(&gpumem_events_lock);
	kfree(e);
	if (ret)
		gpumem_events_count(false);
}
