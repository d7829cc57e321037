// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem work budget.
 *
 * A walk (the held view) costs work in proportion to what it visits: tasks,
 * fds, DRM files, handles and holders (walk.c counts them in the snapshot's
 * @work). Callers without CAP_NET_ADMIN pay for their walks from a bucket of
 * their own, one per user (kuid): it holds up to unpriv_walk_work units and
 * refills at that many a second. A walk is let in while the bucket is above
 * zero and its cost is taken once it is known (after the walk), so a
 * bucket may go below zero: its user then waits that much longer. A user
 * who used up their bucket is refused (EBUSY, netlink.c says why) while
 * every other user keeps theirs. The buckets live in a hash table under a
 * spinlock, at most GPUMEM_BUDGET_USERS of them (allocated with
 * __GFP_ACCOUNT, charged to the first caller of each user); users beyond
 * that share one overflow bucket. O(1) a request.
 */
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "budget.h"

#define GPUMEM_BUDGET_USERS	4096
#define GPUMEM_BUDGET_BITS	8

/* Work units per second (and per bucket) of each user. */
static unsigned long unpriv_walk_work = 1000000;
module_param(unpriv_walk_work, ulong, 0644);
MODULE_PARM_DESC(unpriv_walk_work, "work units (tasks, fds, files, handles, holders a walk visits) each user without CAP_NET_ADMIN may make held-view walks cost a second, burst the same (default 1000000; 0: no walk)");

struct gpumem_bucket {
	struct hlist_node node;
	kuid_t uid;
	s64 units;		/* may be below zero: a debt */
	unsigned long stamp;	/* jiffies of the last refill */
};

static DEFINE_SPINLOCK(gpumem_budget_lock);	/* everything below */
static DEFINE_HASHTABLE(gpumem_buckets, GPUMEM_BUDGET_BITS);
static unsigned int gpumem_nr_buckets;
static struct gpumem_bucket gpumem_overflow;
static bool gpumem_overflow_init;
static u64 gpumem_refused;

/* Refill @b for the time since its last refill. */
static void gpumem_bucket_refill(struct gpumem_bucket *b, u64 rate)
{
	unsigned long now = jiffies, dt = now - b->stamp;
	u64 add;

	if (dt > 3600 * HZ)
		dt = 3600 * HZ;	/* full anyway; no overflow */
	add = div_u64((u64)dt * rate, HZ);
	b->units = min_t(s64, b->units + add, rate);
	if (add || !rate)
		b->stamp = now;
}

/* Units no bucket goes beyond, either way. */
#define GPUMEM_BUDGET_MAX	(S64_MAX / 4)

static void gpumem_bucket_take(struct gpumem_bucket *b, u64 units)
{
	b->units -= min_t(u64, units, GPUMEM_BUDGET_MAX);
	if (b->units < -GPUMEM_BUDGET_MAX)
		b->units = -GPUMEM_BUDGET_MAX;
}

/* @uid's bucket (or the overflow bucket), refilled. Lock held. */
static struct gpumem_bucket *gpumem_bucket_find(kuid_t uid,
						struct gpumem_bucket **spare)
{
	u64 rate = READ_ONCE(unpriv_walk_work);
	struct gpumem_bucket *b;

	hash_for_each_possible(gpumem_buckets, b, node, __kuid_val(uid))
		if (uid_eq(b->uid, uid))
			goto found;
	if (*spare && gpumem_nr_buckets < GPUMEM_BUDGET_USERS) {
		b = *spare;
		*spare = NULL;
		gpumem_nr_buckets++;
		hash_add(gpumem_buckets, &b->node, __kuid_val(uid));
	} else {
		b = &gpumem_overflow;
		if (gpumem_overflow_init)
			goto found;
		gpumem_overflow_init = true;
	}
	b->uid = uid;
	b->units = rate;	/* a new user starts with a full bucket */
	b->stamp = jiffies;
found:
	gpumem_bucket_refill(b, rate);
	return b;
}

/**
 * gpumem_budget_allow() - may this user start a walk now?
 * @uid: the caller (without CAP_NET_ADMIN)
 * @estimate: what the walk will likely cost (the last walk's work), taken
 *	from the bucket now; gpumem_budget_charge() settles the difference
 *
 * Context: process context (may allocate the user's bucket).
 * Return: true while the user's bucket is above zero; false (counted in
 *	gpumem_budget_refused()) when it is used up.
 */
bool gpumem_budget_allow(kuid_t uid, u64 estimate)
{
	struct gpumem_bucket *spare, *b;
	bool ok;

	spare = kzalloc(sizeof(*spare), GFP_KERNEL_ACCOUNT);
	spin_lock(&gpumem_budget_lock);
	b = gpumem_bucket_find(uid, &spare);
	ok = b->units > 0;
	if (ok)		/* walks of one user side by side: each reserves */
		gpumem_bucket_take(b, estimate);
	else
		gpumem_refused++;
	spin_unlock(&gpumem_budget_lock);
	kfree(spare);
	return ok;
}

/**
 * gpumem_budget_charge() - take the cost of a walk from its user's bucket
 * @uid: the caller gpumem_budget_allow() let in
 * @work: the walk's work units (0 when it failed)
 * @estimate: what gpumem_budget_allow() took for it, given back
 *
 * Context: process context.
 */
void gpumem_budget_charge(kuid_t uid, u64 work, u64 estimate)
{
	struct gpumem_bucket *spare = NULL, *b;

	spin_lock(&gpumem_budget_lock);
	b = gpumem_bucket_find(uid, &spare);
	gpumem_bucket_take(b, work);
	b->units = min_t(s64, b->units + min_t(u64, estimate, GPUMEM_BUDGET_MAX),
			 READ_ONCE(unpriv_walk_work));
	spin_unlock(&gpumem_budget_lock);
}

/**
 * gpumem_budget_refused() - walks refused since load (a used-up bucket)
 *
 * Return: the count.
 */
u64 gpumem_budget_refused(void)
{
	u64 n;

	spin_lock(&gpumem_budget_lock);
	n = gpumem_refused;
	spin_unlock(&gpumem_budget_lock);
	return n;
}

/**
 * gpumem_budget_rate() - each user's work units a second
 *
 * Return: the unpriv_walk_work parameter.
 */
u64 gpumem_budget_rate(void)
{
	return READ_ONCE(unpriv_walk_work);
}

/**
 * gpumem_budget_exit() - free the buckets
 *
 * Context: module exit, after the last request.
 */
void gpumem_budget_exit(void)
{
	struct gpumem_bucket *b;
	struct hlist_node *tmp;
	unsigned int i;

	hash_for_each_safe(gpumem_buckets, i, tmp, b, node) {
		hash_del(&b->node);
		kfree(b);
	}
	gpumem_nr_buckets = 0;
}
