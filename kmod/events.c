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
 * Rate limiting: a token bucket per cgroup (struct gpumem_ratelimit, kept
 * by the limits); the next event sent for that cgroup carries the number
 * suppressed meanwhile.
 *
 * The sink (netlink.c) is set before anything can emit and cleared after
 * nothing can (module init and exit order); events.c depends on no sink.
 *
 * Statistics (hook_stats.c, per-CPU counters: no lock of their own): every
 * numbered event counts as sent or lost (sent + lost = the numbers taken),
 * every event a bucket drops as suppressed.
 */
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
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
 * gpumem_ratelimit_allow() - may one more event of this cgroup be sent?
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
