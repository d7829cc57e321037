// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem per-process usage counters.
 *
 * Every charge record of quota.c (one per hooked VRAM/GTT placement a user
 * task allocated) also holds a reference to the counters of its allocating
 * process on its device, and adds its bytes there while it lives. The
 * process view served from these counters therefore costs O(processes x
 * devices) however many buffers exist, where a walk costs O(buffers).
 *
 * What the counters say is "allocated by a live process, still resident": a
 * placement counts for the process that allocated it until it is freed or
 * evicted, until the sweep of quota.c finds it reached by no GEM handle and
 * no dma-buf for 2 s, or until the sweep finds its process gone. A buffer
 * shared with another process counts for its allocator while the allocator
 * lives; placements made by kernel threads (a restore after eviction) or
 * before gpumem was loaded count for nobody. (A driver buffer allocated in a
 * process's close(), such as an fbdev console pinned to VRAM when the last
 * file of a card closes, would otherwise stay with that process forever.)
 * The walk (the "held" view) says who holds handles instead; for buffers a
 * process allocated and holds alone the two agree, which the guest tests
 * check.
 *
 * Processes are identified by their struct pid (referenced), not the pid
 * number, so a recycled pid never inherits another process's counters.
 *
 * Locking: the hash is split into GPUMEM_PU_SHARDS shards of consecutive
 * buckets, each with its own spinlock (innermost: charge.c takes it under
 * nothing of its own but RCU), which protects its buckets, its counts and
 * every field of every struct gpumem_proc_usage in them. The charges of
 * different processes (and of one process on different devices) thus take
 * different locks, not one lock for every allocation on the machine; no
 * path holds two shard locks. Readers go a shard at a time. A node is in
 * use while @refs > 0: one reference per charge record, plus transient
 * ones. A node whose last reference goes while its process lives is kept,
 * reset to what a new node is, for the process's next allocation (one that
 * allocates and frees its only buffer in a loop would otherwise allocate
 * and free the node every time); the reaper frees it once unused for
 * GPUMEM_PU_IDLE or once the process is gone. An unused node counts for
 * nothing and nobody sees it.
 */
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "staircase.h"
#include "proc_usage.h"
#include "rows.h"

/**
 * struct gpumem_proc_usage - usage of one process on one device
 * @hnode: entry in gpumem_pu_hash
 * @pid: the process (referenced)
 * @comm: its command name when the node was created
 * @minor: the device
 * @refs: charge records and callers holding this node
 * @bytes: bytes charged per region
 * @bos: placements charged
 * @leak: the leak detector's state of each region's @bytes (leak.c)
 * @leak_dirty: @leak may differ from all zero (a window end or a collection
 *	went over the node since it was last reset): an unused node is reset
 *	only then (a charge's gpumem_leak_note() changes no all-zero state)
 * @idle_since: jiffies when @refs went to 0 (an unused node, see the top)
 * @bkt: its bucket in gpumem_pu_hash (the key never changes)
 *
 * All fields are protected by the lock of @bkt's shard.
 */
struct gpumem_proc_usage {
	struct hlist_node hnode;
	struct pid *pid;
	char comm[TASK_COMM_LEN];
	int minor;
	u32 refs;
	u64 bytes[GPUMEM_REGION_COUNT];
	u32 bos;
	bool leak_dirty;
	struct gpumem_leak_state leak[GPUMEM_REGION_COUNT];
	unsigned long idle_since;
	unsigned int bkt;
};

/*
 * How long an unused node of a live process is kept for its reuse, and how
 * many are kept at most (a tenant forking allocators must not fill the hash
 * with them: beyond that, an unused node is freed at once, as without
 * reuse), GPUMEM_PU_SHARD_IDLE_MAX in each shard.
 */
#define GPUMEM_PU_IDLE		(5 * HZ)
#define GPUMEM_PU_IDLE_MAX	1024

/* The hash: 512 buckets in 64 shards of 8, each shard with its lock. */
#define GPUMEM_PU_HASH_BITS	9
#define GPUMEM_PU_SHARD_BITS	6
#define GPUMEM_PU_SHARDS	BIT(GPUMEM_PU_SHARD_BITS)
#define GPUMEM_PU_SHARD_BUCKETS	BIT(GPUMEM_PU_HASH_BITS - GPUMEM_PU_SHARD_BITS)
#define GPUMEM_PU_SHARD_IDLE_MAX (GPUMEM_PU_IDLE_MAX / GPUMEM_PU_SHARDS)

/**
 * struct gpumem_pu_shard - GPUMEM_PU_SHARD_BUCKETS buckets of the hash
 * @lock: protects the buckets, the counts below and the nodes in them
 * @used: nodes in use (@refs > 0)
 * @unused: nodes kept unused for reuse
 *
 * A cache line each: allocations of different processes do not share one.
 */
struct gpumem_pu_shard {
	spinlock_t lock;	/* see above */
	unsigned int used;
	unsigned int unused;
} ____cacheline_aligned_in_smp;

static struct gpumem_pu_shard gpumem_pu_shards[GPUMEM_PU_SHARDS] = {
	[0 ... GPUMEM_PU_SHARDS - 1] = {
		.lock = __SPIN_LOCK_UNLOCKED(gpumem_pu_shards.lock),
	},
};

/* under the lock of each bucket's shard */
static DEFINE_HASHTABLE(gpumem_pu_hash, GPUMEM_PU_HASH_BITS);
static void gpumem_pu_reap_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_pu_reap_work, gpumem_pu_reap_fn);

/* The bucket of (@pid, @minor) in gpumem_pu_hash. */
static unsigned int gpumem_pu_bucket(const struct pid *pid, int minor)
{
	return hash_32(hash_ptr(pid, 32) ^ hash_32(minor, 32),
		       GPUMEM_PU_HASH_BITS);
}

/* The shard of bucket @bkt. */
static struct gpumem_pu_shard *gpumem_pu_shard(unsigned int bkt)
{
	return &gpumem_pu_shards[bkt / GPUMEM_PU_SHARD_BUCKETS];
}

/* The node of (@pid, @minor) in bucket @bkt. Caller holds its shard's lock. */
static struct gpumem_proc_usage *gpumem_pu_find(unsigned int bkt,
						const struct pid *pid,
						int minor)
{
	struct gpumem_proc_usage *pu;

	lockdep_assert_held(&gpumem_pu_shard(bkt)->lock);
	hlist_for_each_entry(pu, &gpumem_pu_hash[bkt], hnode)
		if (pu->pid == pid && pu->minor == minor)
			return pu;
	return NULL;
}

/* The nodes in use (a sum over the shards, each read at its own moment). */
static size_t gpumem_pu_used(void)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < GPUMEM_PU_SHARDS; i++)
		n += READ_ONCE(gpumem_pu_shards[i].used);
	return n;
}

/**
 * gpumem_proc_usage_get() - the counters of a process on a device
 * @pid: the process's thread group pid (the caller holds it alive, e.g.
 *	task_tgid(current))
 * @comm: its command name, kept for when it has exited
 * @minor: the device
 *
 * Creates them empty when they do not exist yet.
 *
 * Context: may sleep.
 * Return: the counters with a reference (gpumem_proc_usage_put()), or NULL
 *	when out of memory.
 */
struct gpumem_proc_usage *gpumem_proc_usage_get(struct pid *pid,
						const char *comm, int minor)
{
	char name[TASK_COMM_LEN];

	strscpy_pad(name, comm, sizeof(name));
	return gpumem_proc_usage_get_charge(pid, name, minor, 0, 0);
}

/**
 * gpumem_proc_usage_get_charge() - gpumem_proc_usage_get() and
 *	gpumem_proc_usage_charge() in one step
 * @pid: as for gpumem_proc_usage_get()
 * @comm: the command name, TASK_COMM_LEN bytes (terminated)
 * @minor: the device
 * @region: enum gpumem_region of the placement to count
 * @bytes: its size (0: count nothing, only take the reference)
 *
 * Context: may sleep.
 * Return: the counters with a reference and the placement counted (give
 *	both back with gpumem_proc_usage_uncharge()), or NULL when out of
 *	memory (nothing counted).
 */
struct gpumem_proc_usage *
gpumem_proc_usage_get_charge(struct pid *pid, const char comm[TASK_COMM_LEN],
			     int minor, u8 region, u64 bytes)
{
	unsigned int bkt = gpumem_pu_bucket(pid, minor);
	struct gpumem_pu_shard *s = gpumem_pu_shard(bkt);
	struct gpumem_proc_usage *pu, *fresh = NULL;

	if (WARN_ON_ONCE(region >= GPUMEM_REGION_COUNT))
		return NULL;
	for (;;) {
		spin_lock(&s->lock);
		pu = gpumem_pu_find(bkt, pid, minor);
		if (pu && !pu->refs)
			s->unused--;	/* kept unused until now */
		if (!pu && fresh) {
			pu = fresh;
			fresh = NULL;
			pu->pid = get_pid(pid);
			pu->minor = minor;
			pu->bkt = bkt;
			hlist_add_head(&pu->hnode, &gpumem_pu_hash[bkt]);
		}
		if (pu && !pu->refs++) {	/* new, or unused until now */
			memcpy(pu->comm, comm, sizeof(pu->comm));
			pu->comm[TASK_COMM_LEN - 1] = '\0';
			s->used++;
		}
		if (pu && bytes) {
			pu->bytes[region] += bytes;
			pu->bos++;
		}
		spin_unlock(&s->lock);
		if (pu)
			break;
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh)
			return NULL;
	}
	if (unlikely(fresh))
		kfree(fresh);	/* created by a racing caller meanwhile */
	return pu;
}

/*
 * Drop a reference of @pu and the lock of its shard @s, which the caller
 * holds. When it was the last, @pu is kept unused for its live process
 * (reset to what a new node is) or freed.
 */
static void gpumem_pu_put_locked(struct gpumem_pu_shard *s,
				 struct gpumem_proc_usage *pu)
	__releases(&s->lock)
{
	bool freed = false;

	if (!--pu->refs) {
		WARN_ON_ONCE(pu->bos);
		s->used--;
		if (s->unused < GPUMEM_PU_SHARD_IDLE_MAX &&
		    pid_has_task(pu->pid, PIDTYPE_TGID)) {
			s->unused++;
			memset(pu->bytes, 0, sizeof(pu->bytes));
			pu->bos = 0;
			if (pu->leak_dirty) {
				memset(pu->leak, 0, sizeof(pu->leak));
				pu->leak_dirty = false;
			}
			pu->idle_since = jiffies;
			/*
			 * Pending, the reaper has not started: it takes this
			 * lock after this node is unused, and comes back.
			 */
			if (!delayed_work_pending(&gpumem_pu_reap_work))
				queue_delayed_work(system_wq,
						   &gpumem_pu_reap_work,
						   GPUMEM_PU_IDLE);
		} else {
			hlist_del(&pu->hnode);
			freed = true;
		}
	}
	spin_unlock(&s->lock);
	if (freed) {
		put_pid(pu->pid);
		kfree(pu);
	}
}

/*
 * Free the unused nodes of processes gone or unused for GPUMEM_PU_IDLE (all
 * of them when @all); true while unused nodes are left.
 */
static bool gpumem_pu_reap(bool all)
{
	struct gpumem_proc_usage *pu;
	struct gpumem_pu_shard *s;
	struct hlist_node *tmp;
	HLIST_HEAD(dead);
	bool left = false;
	unsigned int bkt = 0;

	while (bkt < HASH_SIZE(gpumem_pu_hash)) {
		s = gpumem_pu_shard(bkt);
		spin_lock(&s->lock);
		do {
			hlist_for_each_entry_safe(pu, tmp, &gpumem_pu_hash[bkt],
						  hnode) {
				if (pu->refs)
					continue;
				if (!all && pid_has_task(pu->pid, PIDTYPE_TGID) &&
				    time_before(jiffies,
						pu->idle_since + GPUMEM_PU_IDLE)) {
					left = true;
					continue;
				}
				hlist_del(&pu->hnode);
				s->unused--;
				hlist_add_head(&pu->hnode, &dead);
			}
		} while (++bkt % GPUMEM_PU_SHARD_BUCKETS);
		spin_unlock(&s->lock);
	}
	hlist_for_each_entry_safe(pu, tmp, &dead, hnode) {
		put_pid(pu->pid);
		kfree(pu);
	}
	return left;
}

static void gpumem_pu_reap_fn(struct work_struct *work)
{
	if (gpumem_pu_reap(false))
		queue_delayed_work(system_wq, &gpumem_pu_reap_work,
				   GPUMEM_PU_IDLE);
}

/**
 * gpumem_proc_usage_put() - drop a reference from gpumem_proc_usage_get()
 * @pu: the counters (may be NULL)
 *
 * Context: any context that may take a spinlock.
 */
void gpumem_proc_usage_put(struct gpumem_proc_usage *pu)
{
	struct gpumem_pu_shard *s;

	if (!pu)
		return;
	s = gpumem_pu_shard(pu->bkt);
	spin_lock(&s->lock);
	gpumem_pu_put_locked(s, pu);
}

/**
 * gpumem_proc_usage_exited() - whether the process of @pu has exited
 * @pu: the counters, referenced by the caller
 *
 * Return: true once the thread group is gone (reaped).
 */
bool gpumem_proc_usage_exited(const struct gpumem_proc_usage *pu)
{
	return !pid_has_task(pu->pid, PIDTYPE_TGID);
}

/**
 * gpumem_proc_usage_charge() - count a placement
 * @pu: the counters, referenced by the caller for as long as it counts
 * @region: enum gpumem_region
 * @bytes: its size
 */
void gpumem_proc_usage_charge(struct gpumem_proc_usage *pu, u8 region,
			      u64 bytes)
{
	struct gpumem_pu_shard *s = gpumem_pu_shard(pu->bkt);

	if (WARN_ON_ONCE(region >= GPUMEM_REGION_COUNT))
		return;
	spin_lock(&s->lock);
	pu->bytes[region] += bytes;
	pu->bos++;
	spin_unlock(&s->lock);
}

/**
 * gpumem_proc_usage_uncharge() - stop counting a placement and drop the
 *	reference that counted it
 * @pu: the counters
 * @region: as given to gpumem_proc_usage_charge()
 * @bytes: as given to gpumem_proc_usage_charge()
 */
void gpumem_proc_usage_uncharge(struct gpumem_proc_usage *pu, u8 region,
				u64 bytes)
{
	struct gpumem_pu_shard *s = gpumem_pu_shard(pu->bkt);

	if (WARN_ON_ONCE(region >= GPUMEM_REGION_COUNT))
		return;
	spin_lock(&s->lock);
	if (WARN_ON_ONCE(pu->bytes[region] < bytes || !pu->bos)) {
		pu->bytes[region] = 0;
		pu->bos = 0;
	} else {
		pu->bytes[region] -= bytes;
		pu->bos--;
	}
	gpumem_leak_note(&pu->leak[region], pu->bytes[region]);
	gpumem_pu_put_locked(s, pu);	/* one lock round for both */
}

/*
 * Whether @filter (NULL: everything) wants the counters @pu. Cheap enough
 * for every node under its shard's lock: a filtered copy costs a comparison
 * per counter and the copy of what it returns. @pu->pid is a thread group
 * pid: its number is the tgid, also once the process has exited.
 */
static bool gpumem_pu_wanted(const struct gpumem_proc_usage *pu,
			     const struct gpumem_snap_filter *filter)
{
	struct task_struct *task;
	bool ret;

	lockdep_assert_held(&gpumem_pu_shard(pu->bkt)->lock);
	if (!pu->bos)
		return false;
	if (!filter)
		return true;
	if (filter->minor >= 0 && pu->minor != filter->minor)
		return false;
	if (filter->has_pid && pid_nr(pu->pid) != filter->pid)
		return false;
	if (!filter->cgrp)
		return true;
	rcu_read_lock();
	task = pid_task(pu->pid, PIDTYPE_PID);
	if (!task)
		task = pid_task(pu->pid, PIDTYPE_TGID);
	/* an exited process is in no cgroup */
	ret = task && cgroup_is_descendant(task_dfl_cgroup(task), filter->cgrp);
	rcu_read_unlock();
	return ret;
}

/* A copy of @pu's figures into @row, with a reference on its pid. */
static void gpumem_pu_copy(struct gpumem_proc_usage_row *row,
			   struct gpumem_proc_usage *pu)
{
	lockdep_assert_held(&gpumem_pu_shard(pu->bkt)->lock);
	row->pid = get_pid(pu->pid);
	memcpy(row->comm, pu->comm, sizeof(row->comm));
	row->minor = pu->minor;
	memcpy(row->bytes, pu->bytes, sizeof(row->bytes));
	row->bos = pu->bos;
}

/* The room a filtered copy starts with: one process on a few devices. */
#define GPUMEM_PU_ROWS_FIRST	8

/*
 * Copy the wanted counters of hash bucket @bkt to @rows from *@n while they
 * fit in @cap (each with a pid reference). Returns 0, or the number of rows
 * the bucket has when they do not all fit (then none of them is kept).
 * Caller holds the lock of @bkt's shard.
 */
static size_t gpumem_pu_bucket_rows(unsigned int bkt,
				    struct gpumem_proc_usage_row *rows,
				    size_t *n, size_t cap,
				    const struct gpumem_snap_filter *filter)
{
	struct gpumem_proc_usage *pu;
	size_t start = *n, nb = 0;

	hlist_for_each_entry(pu, &gpumem_pu_hash[bkt], hnode) {
		if (!gpumem_pu_wanted(pu, filter))
			continue;
		if (*n < cap)
			gpumem_pu_copy(&rows[(*n)++], pu);
		nb++;
	}
	if (start + nb <= cap)
		return 0;
	while (*n > start)	/* no room for all: give back what was taken */
		put_pid(rows[--(*n)].pid);
	return nb;
}

/* Put the pids of @rows and free the array. */
static void gpumem_pu_rows_put(struct gpumem_proc_usage_row *rows, size_t n)
{
	while (n)
		put_pid(rows[--n].pid);
	kvfree(rows);
}

/*
 * Copy the non-empty counters @filter (NULL: all) wants, a shard at a time:
 * a shard's lock, which the charges of its processes take, is held for its
 * buckets (O(their nodes)), then dropped, and the copy goes on with the
 * next shard. The array is charged to the reader and fits its rows (no
 * more than half again).
 */
static int gpumem_pu_rows(struct gpumem_proc_usage_row **rowsp,
			  size_t *nrowsp,
			  const struct gpumem_snap_filter *filter)
{
	struct gpumem_proc_usage_row *rows = NULL, *grown;
	size_t cap = 0, n = 0, want, ncap;
	struct gpumem_pu_shard *s;
	unsigned int bkt = 0;

	ncap = filter ? GPUMEM_PU_ROWS_FIRST : gpumem_pu_used() + 16;
	for (;;) {
		if (ncap > cap) {
			grown = kvmalloc_array(ncap, sizeof(*rows),
					       GFP_KERNEL_ACCOUNT);
			if (!grown) {
				gpumem_pu_rows_put(rows, n);
				return -ENOMEM;
			}
			if (n)
				memcpy(grown, rows, n * sizeof(*rows));
			kvfree(rows);
			rows = grown;
			cap = ncap;
		}
		if (bkt == HASH_SIZE(gpumem_pu_hash))
			break;
		want = 0;
		s = gpumem_pu_shard(bkt);
		spin_lock(&s->lock);
		do {
			want = gpumem_pu_bucket_rows(bkt, rows, &n, cap, filter);
			if (want)
				break;
		} while (++bkt % GPUMEM_PU_SHARD_BUCKETS);
		spin_unlock(&s->lock);
		if (want)
			ncap = max(2 * cap, n + want + 16);
		cond_resched();
	}
	/* shrink an array much larger than its rows */
	if (cap > n + n / 2 + 16) {
		grown = kvmalloc_array(max_t(size_t, n, 1), sizeof(*rows),
				       GFP_KERNEL_ACCOUNT);
		if (grown) {
			memcpy(grown, rows, n * sizeof(*rows));
			kvfree(rows);
			rows = grown;
		}
	}
	*rowsp = rows;
	*nrowsp = n;
	return 0;
}

/**
 * gpumem_proc_usage_rows() - copy every non-empty counter
 * @rowsp: set to a kvmalloc'ed array, gpumem_proc_usage_rows_free() it
 * @nrowsp: set to its length
 *
 * The copy is taken a shard of the hash at a time (no lock is held for
 * the whole copy): the counters of one process on one device are copied at
 * one moment, those of different rows may be from different moments.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int gpumem_proc_usage_rows(struct gpumem_proc_usage_row **rowsp,
			   size_t *nrowsp)
{
	return gpumem_pu_rows(rowsp, nrowsp, NULL);
}

/**
 * gpumem_proc_usage_rows_free() - free a copy from gpumem_proc_usage_rows()
 * @rows: the rows (may be NULL)
 * @nrows: their number
 */
void gpumem_proc_usage_rows_free(struct gpumem_proc_usage_row *rows,
				 size_t nrows)
{
	size_t i;

	for (i = 0; i < nrows; i++)
		put_pid(rows[i].pid);
	kvfree(rows);
}

/* A counter's copy in a charged snapshot being built, and where it goes */
struct gpumem_pu_key {
	u64 order;	/* tgid << 32 | index of the device in the snapshot */
	size_t row;	/* index of the copy */
};

/*
 * Sort @keys by &gpumem_pu_key.order, least significant byte first: a
 * counting sort per byte, none for a byte all keys have the same value in
 * (the device's upper bytes, a tgid's top byte). Linear in @n, and no
 * comparison function is called per pair. @tmp has room for @n keys.
 */
static void gpumem_pu_sort(struct gpumem_pu_key *keys,
			   struct gpumem_pu_key *tmp, size_t n)
{
	struct gpumem_pu_key *from = keys, *to = tmp;
	unsigned int count[256], shift, d, c;
	u64 differ = 0;
	size_t i, pos;

	for (i = 1; i < n; i++)
		differ |= keys[i].order ^ keys[0].order;
	for (shift = 0; shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;	/* the same byte in every key */
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(from[i].order >> shift) & 0xff]++;
		for (d = 0, pos = 0; d < 256; d++) {
			c = count[d];
			count[d] = pos;
			pos += c;
		}
		for (i = 0; i < n; i++)
			to[count[(from[i].order >> shift) & 0xff]++] = from[i];
		swap(from, to);
	}
	if (from != keys)
		memcpy(keys, from, n * sizeof(*keys));
}

/*
 * The task and process rows of @keys (sorted): a task row per process, a
 * process row per process and device (a counter of an exited process whose
 * pid number is in use again adds to that process's row), the process rows
 * listed by device then tgid.
 */
static int gpumem_pu_snapshot_rows(struct gpumem_snapshot *snap,
				   const struct gpumem_pu_key *keys, size_t n,
				   const struct gpumem_proc_usage_row *rows,
				   char *path)
{
	size_t k, nt = 0, np = 0, room = max_t(size_t, n, 1), *first;
	struct gpumem_task_row *task = NULL;
	struct gpumem_proc_row *proc = NULL;
	unsigned int d;
	int r;

	/* each row is filled in whole below: nothing to clear first */
	snap->task_pool = kvmalloc_array(room, sizeof(*snap->task_pool),
					 GFP_KERNEL_ACCOUNT);
	snap->task_list = kvmalloc_array(room, sizeof(*snap->task_list),
					 GFP_KERNEL_ACCOUNT);
	snap->proc_pool = kvmalloc_array(room, sizeof(*snap->proc_pool),
					 GFP_KERNEL_ACCOUNT);
	snap->procs = kvmalloc_array(room, sizeof(*snap->procs),
				     GFP_KERNEL_ACCOUNT);
	first = kcalloc(snap->nr_devs + 1, sizeof(*first), GFP_KERNEL_ACCOUNT);
	if (!snap->task_pool || !snap->task_list || !snap->proc_pool ||
	    !snap->procs || !first) {
		kfree(first);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++) {
		const struct gpumem_proc_usage_row *row = &rows[keys[k].row];
		pid_t tgid = keys[k].order >> 32;
		unsigned int dev = lower_32_bits(keys[k].order);

		if (!task || task->tgid != tgid) {
			task = &snap->task_pool[nt];
			task->tgid = tgid;
			gpumem_snapshot_task_identity(snap, task, row->pid,
						      row->comm, path);
			snap->task_list[nt++] = task;
			proc = NULL;
		}
		if (!proc || proc->dev != dev) {
			proc = &snap->proc_pool[np++];
			*proc = (struct gpumem_proc_row){
				.tgid = tgid, .dev = dev, .task = task,
			};
			first[dev + 1]++;
		}
		for (r = 0; r < GPUMEM_REGION_COUNT; r++)
			proc->bytes[r] += row->bytes[r];
		proc->bos += row->bos;
	}
	/* by device (a counting sort: the pool is in tgid order already) */
	for (d = 0; d < snap->nr_devs; d++)
		first[d + 1] += first[d];
	for (k = 0; k < np; k++)
		snap->procs[first[snap->proc_pool[k].dev]++] = &snap->proc_pool[k];
	snap->nr_tasks = nt;
	snap->nr_procs = np;
	kfree(first);
	return 0;
}

/**
 * gpumem_proc_usage_fill() - the process rows of a charged snapshot
 * @snap: a GPUMEM_SNAP_CHARGED snapshot with its device rows
 * @path: PATH_MAX bytes of scratch for cgroup paths
 * @filter: the rows wanted, or NULL for all
 *
 * Copies the counters kept at allocation time into @snap's process rows;
 * no walk. Counters of a device gone since are left out, and so are those
 * @filter does not want, before they are copied. The rows and the task
 * rows are listed here, in a few allocations for all of them: the copies
 * are sorted once, and no row is looked up by key.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM.
 */
int gpumem_proc_usage_fill(struct gpumem_snapshot *snap, char *path,
			   const struct gpumem_snap_filter *filter)
{
	struct gpumem_proc_usage_row *rows;
	struct gpumem_pu_key *keys;
	size_t nrows, i, n = 0;
	int ret, dev;

	ret = gpumem_pu_rows(&rows, &nrows, filter);
	if (ret)
		return ret;
	/* the keys, then room for the sort */
	keys = kvmalloc_array(max_t(size_t, nrows, 1), 2 * sizeof(*keys),
			      GFP_KERNEL_ACCOUNT);
	if (!keys) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nrows; i++) {
		dev = gpumem_snapshot_dev_index(snap, rows[i].minor);
		if (dev < 0)
			continue;	/* device gone since it was charged */
		/* a thread group pid: its number is the tgid, also once exited */
		keys[n].order = (u64)pid_nr(rows[i].pid) << 32 | dev;
		keys[n].row = i;
		n++;
	}
	gpumem_pu_sort(keys, keys + max_t(size_t, nrows, 1), n);
	ret = gpumem_pu_snapshot_rows(snap, keys, n, rows, path);
	kvfree(keys);
out:
	gpumem_proc_usage_rows_free(rows, nrows);
	return ret;
}

/*
 * gpumem_proc_usage_leaks() for hash bucket @bkt, with @n suspects collected
 * so far; returns the new count. Caller holds the lock of @bkt's shard.
 */
static size_t gpumem_pu_bucket_leaks(unsigned int bkt,
				     const struct gpumem_leak_params *p,
				     struct gpumem_leak_hit *hits, size_t max,
				     size_t n)
{
	struct gpumem_proc_usage *pu;
	int r;

	hlist_for_each_entry(pu, &gpumem_pu_hash[bkt], hnode) {
		if (!pu->refs)
			continue;	/* unused: counts as no node */
		/* its state changes below: reset it when unused */
		pu->leak_dirty = true;
		for (r = 0; r < GPUMEM_REGION_COUNT; r++) {
			if (p)
				gpumem_leak_window_end(&pu->leak[r],
						       pu->bytes[r], p);
			if (n == max ||
			    !gpumem_leak_collect(&pu->leak[r], pu->bytes[r],
						 &hits[n]))
				continue;
			hits[n].pid = get_pid(pu->pid);
			hits[n].cgid = 0;
			memcpy(hits[n].comm, pu->comm, sizeof(hits[n].comm));
			hits[n].minor = pu->minor;
			hits[n].region = r;
			n++;
		}
	}
	return n;
}

/**
 * gpumem_proc_usage_leaks() - end the leak window of the counters of some
 *	hash buckets, and collect their suspects
 * @p: the window end to apply to each counter, or NULL to only collect
 *	suspects left pending by an earlier call
 * @first: the first bucket
 * @nr: the number of buckets (clipped to the table: 0..
 *	gpumem_proc_usage_leak_buckets())
 * @hits: room for @max suspects; each has a reference on its pid
 * @max: their number (0: collect nothing, the suspects stay pending)
 *
 * One pass over @nr buckets, O(their counters), under the lock of each
 * one's shard: the leak worker (leak.c) calls it for a few buckets at a
 * time.
 *
 * Context: process context (takes the shards' locks).
 * Return: the suspects collected; when @max, call again with NULL for more.
 */
size_t gpumem_proc_usage_leaks(const struct gpumem_leak_params *p,
			       unsigned int first, unsigned int nr,
			       struct gpumem_leak_hit *hits, size_t max)
{
	unsigned int bkt = first, end = min_t(u64, (u64)first + nr,
					      HASH_SIZE(gpumem_pu_hash));
	struct gpumem_pu_shard *s;
	size_t n = 0;

	while (bkt < end) {
		s = gpumem_pu_shard(bkt);
		spin_lock(&s->lock);
		do {
			n = gpumem_pu_bucket_leaks(bkt, p, hits, max, n);
		} while (++bkt < end && bkt % GPUMEM_PU_SHARD_BUCKETS);
		spin_unlock(&s->lock);
	}
	return n;
}

/**
 * gpumem_proc_usage_leak_buckets() - the buckets gpumem_proc_usage_leaks()
 *	goes through
 *
 * Return: the size of the process counters' hash table.
 */
unsigned int gpumem_proc_usage_leak_buckets(void)
{
	return HASH_SIZE(gpumem_pu_hash);
}

/*
 * The leak suspects of hash bucket @bkt, counted in *@n and copied to @hits
 * (with a pid reference each) while *@n < @max. Caller holds the lock of
 * @bkt's shard.
 */
static void gpumem_pu_bucket_suspects(unsigned int bkt,
				      struct gpumem_leak_hit *hits,
				      size_t max, size_t *n)
{
	struct gpumem_proc_usage *pu;
	int r;

	hlist_for_each_entry(pu, &gpumem_pu_hash[bkt], hnode) {
		if (!pu->refs)
			continue;	/* unused: counts as no node */
		for (r = 0; r < GPUMEM_REGION_COUNT; r++) {
			struct gpumem_leak_hit hit;

			if (!gpumem_leak_describe(&pu->leak[r], pu->bytes[r],
						  &hit))
				continue;
			if (*n < max) {
				hit.pid = get_pid(pu->pid);
				hit.cgid = 0;
				memcpy(hit.comm, pu->comm, sizeof(hit.comm));
				hit.minor = pu->minor;
				hit.region = r;
				hits[*n] = hit;
			}
			(*n)++;
		}
	}
}

/**
 * gpumem_proc_usage_suspects() - copy the counters that are leak suspects now
 * @hits: room for @max suspects; each copied has a reference on its pid
 * @max: their number
 *
 * Nothing changes: the detector's state is only read. One pass,
 * O(processes x devices), holding a shard's lock at a time (the counts of
 * different shards may be from different moments).
 *
 * Context: process context (takes the shards' locks).
 * Return: the number of suspects; only the first @max were copied when more.
 */
size_t gpumem_proc_usage_suspects(struct gpumem_leak_hit *hits, size_t max)
{
	struct gpumem_pu_shard *s;
	unsigned int bkt = 0;
	size_t n = 0;

	while (bkt < HASH_SIZE(gpumem_pu_hash)) {
		s = gpumem_pu_shard(bkt);
		spin_lock(&s->lock);
		do {
			gpumem_pu_bucket_suspects(bkt, hits, max, &n);
		} while (++bkt % GPUMEM_PU_SHARD_BUCKETS);
		spin_unlock(&s->lock);
		cond_resched();
	}
	return n;
}

/**
 * gpumem_proc_usage_exit() - free the unused counters kept for reuse, and
 *	check that every counter was released
 *
 * Context: module exit, after charge.c freed every charge record (no
 * reference can be taken or dropped any more).
 */
void gpumem_proc_usage_exit(void)
{
	cancel_delayed_work_sync(&gpumem_pu_reap_work);
	gpumem_pu_reap(true);
	WARN_ON_ONCE(gpumem_pu_used());
}
