/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem events: quota and threshold events, their sequence numbers, the
 * per-cgroup rate limit, and the sink that delivers them (netlink).
 */
#ifndef GPUMEM_EVENTS_H
#define GPUMEM_EVENTS_H

#include <linux/sched.h>
#include <linux/types.h>

/**
 * struct gpumem_quota_event - what a quota or threshold event reports
 * @type: enum gpumem_event_type
 * @seq: sequence number (assigned by gpumem_event_emit())
 * @cgid: cgroup whose limit or usage the event is about (0: none)
 * @pid: allocating process (0: none)
 * @comm: its command name
 * @req_pid: the process that asked for the placement when it is not @pid
 *	(another process in the owner's name, a kernel thread) (0: none)
 * @req_comm: its command name (the asking thread's)
 * @minor: device, or GPUMEM_ALL_DEVICES
 * @region: enum gpumem_region
 * @requested: bytes of the placement
 * @usage: bytes charged before the placement
 * @limit: the limit or threshold crossed, in bytes
 * @mode: enum gpumem_limit_mode
 * @denied: the placement was denied
 * @suppressed: events of this bucket (type, cgroup, device: see
 *	gpumem_event_ratelimit()) dropped by rate limiting since the last one
 *	sent
 * @growth: leak-suspect: bytes the floor rose by over @windows windows
 * @rate: leak-suspect: @growth per second
 * @window_ms: leak-suspect: the length of a window
 * @windows: leak-suspect: the windows the floor rose over
 * @buffers: orphaned: the placements left (@usage: their bytes)
 * @kinds: orphaned: GPUMEM_ORPHAN_* (orphans.h), what else keeps them
 * @holders: orphaned: live pids reaching them through a handle
 * @nr_holders: number of @holders
 * @lost: the event could not be put together: it takes its number (a gap
 *	for the listeners) but is not sent

 * @source: enum gpumem_limit_source: whose limit (gpumem's, or the dmem
 *	controller's refusal, see dmem.c)
 * @dmem_region: with source dmem, the dmem region's name ("" if unknown)
 */
struct gpumem_quota_event {
	u32 type;
	u64 seq;
	u64 cgid;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	pid_t req_pid;
	char req_comm[TASK_COMM_LEN];
	int minor;
	u8 region;
	u64 requested;
	u64 usage;
	u64 limit;
	u32 mode;
	bool denied;
	u64 suppressed;
	u64 growth;
	u64 rate;
	u32 window_ms;
	u32 windows;
	u32 buffers;
	u32 kinds;
	const pid_t *holders;
	u32 nr_holders;
	bool lost;
	u8 source;
	char dmem_region[64];
};

/**
 * struct gpumem_ratelimit - a token bucket
 * @stamp: jiffies of the last refill
 * @tokens: events that may still be sent now
 * @suppressed: events dropped since the last one sent
 *
 * Protected by whatever lock protects its owner.
 */
struct gpumem_ratelimit {
	unsigned long stamp;
	u32 tokens;
	u64 suppressed;
};

/**
 * struct gpumem_event_key - whose events share one rate limit
 * @cgid: the cgroup the event is charged to (0: none, a kernel thread's)
 * @minor: the device, or GPUMEM_ALL_DEVICES (-1) when it names none
 * @type: enum gpumem_event_type
 */
struct gpumem_event_key {
	u64 cgid;
	int minor;
	u32 type;
};

/**
 * struct gpumem_event_sink - where events go
 * @accept: called by gpumem_event_emit() in the emitting context (maybe
 *	inside a TTM allocation: must not sleep): 0 to number and queue the
 *	event, -ENOENT when nobody listens (no number is taken), any other
 *	negative errno to number it and count it lost at once (fault
 *	injection). NULL: always 0.
 * @prepare: build the message for a queued event, in the events' worker
 *	(process context, may sleep: cgroup paths are resolved here). Returns
 *	the message, NULL when it could not be built (the event is lost: its
 *	number is taken all the same; always for an event marked @lost), or
 *	ERR_PTR(-ENOENT) when nobody listens any more (lost as well).
 * @send: deliver a prepared message with its sequence number (and consume
 *	it); called in sequence order; must not sleep. Returns 0 when
 *	delivered, a negative errno when the event is lost (its number is
 *	taken all the same).
 */
struct gpumem_event_sink {
	int (*accept)(const struct gpumem_quota_event *ev);
	void *(*prepare)(const struct gpumem_quota_event *ev);
	int (*send)(void *msg, u64 seq);
};

/* Events numbered and waiting for the worker at most (then: lost). */
#define GPUMEM_EVENTS_QUEUE_MAX	1024

void gpumem_ratelimit_init(struct gpumem_ratelimit *rl);
bool gpumem_ratelimit_allow(struct gpumem_ratelimit *rl, u64 *suppressed);
bool gpumem_event_ratelimit(const struct gpumem_event_key *key,
			    u64 *suppressed);
void gpumem_events_exit(void);
void gpumem_events_set_sink(const struct gpumem_event_sink *sink);
void gpumem_event_emit(struct gpumem_quota_event *ev);
void gpumem_events_flush(void);

#endif /* GPUMEM_EVENTS_H */
