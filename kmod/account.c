// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem accounting: turns the (client, object) pairs of one device's walk
 * into per-process rows, with the shared-buffer and owner rules in one place.
 *
 * Rules:
 *  - A process is charged once for every distinct object it holds a handle to,
 *    however many of its files or handles reach it.
 *  - An object is shared when more than one process holds it, or when it is
 *    exported as or imported from a dma-buf. Every holder sees it as shared.
 *  - A client's file counts for every live process that has it in an fd
 *    table (walk.c gives one entry per such process); with none, for its
 *    opener while alive, else for pid 0.
 *  - Every object has exactly one owner: the process of the oldest client
 *    (first opened file on the device) that holds a handle to it; of
 *    several processes holding that file, the lowest pid. Imported
 *    objects are owned by nobody on the importing device: their memory is the
 *    exporter's and is owned there. So the sum of `owned` over all processes
 *    of a device counts each object of that device once.
 *  - An object whose placement the walker could not read (its reservation
 *    stayed busy, see walk.c) is in no figure: each holder counts it as
 *    skipped instead, and the snapshot once.
 */
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include "account.h"
#include "snapshot.h"
#include "walk.h"

#define GPUMEM_NO_ENT	U32_MAX

/*
 * Entries reaching the same object are chained through their @next field,
 * starting at the object's first entry (the chain head, the only one in the
 * hash of @scratch).
 */
static int gpumem_index_objects(struct gpumem_walk_ent *ents, size_t n,
				struct gpumem_account_scratch *scratch)
{
	unsigned int bits = n > 1 ? ilog2(roundup_pow_of_two(n)) + 1 : 1;
	size_t i, nb = (size_t)1 << bits;

	if (bits > scratch->bits) {
		struct hlist_head *b;

		b = kvmalloc_array(nb, sizeof(*b), GFP_KERNEL);
		if (!b)
			return -ENOMEM;
		kvfree(scratch->buckets);
		scratch->buckets = b;
		scratch->bits = bits;
	}
	bits = scratch->bits;
	nb = (size_t)1 << bits;
	for (i = 0; i < nb; i++)
		INIT_HLIST_HEAD(&scratch->buckets[i]);

	for (i = 0; i < n; i++) {
		struct hlist_head *b = &scratch->buckets[hash_ptr(ents[i].obj, bits)];
		struct gpumem_walk_ent *head = NULL, *pos;

		hlist_for_each_entry(pos, b, hnode) {
			if (pos->obj == ents[i].obj) {
				head = pos;
				break;
			}
		}
		if (!head) {
			ents[i].head = i;
			ents[i].next = GPUMEM_NO_ENT;
			hlist_add_head(&ents[i].hnode, b);
		} else {
			ents[i].head = head - ents;
			ents[i].next = head->next;
			head->next = i;
		}
	}
	return 0;
}

/**
 * gpumem_account_scratch_free() - free an accounting scratch area
 * @scratch: the scratch area (reusable after this)
 */
void gpumem_account_scratch_free(struct gpumem_account_scratch *scratch)
{
	kvfree(scratch->buckets);
	scratch->buckets = NULL;
	scratch->bits = 0;
}

/* Is ents[j]'s process already among the chain entries before it? */
static bool gpumem_seen_tgid(const struct gpumem_walk_ent *ents, u32 head,
			     u32 j)
{
	u32 k;

	for (k = head; k != j; k = ents[k].next)
		if (ents[k].tgid == ents[j].tgid)
			return true;
	return false;
}

/* The oldest client order in which @tgid holds the object. */
static u32 gpumem_tgid_order(const struct gpumem_walk_ent *ents, u32 head,
			     pid_t tgid)
{
	u32 j, order = U32_MAX;

	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next)
		if (ents[j].tgid == tgid && ents[j].order < order)
			order = ents[j].order;
	return order;
}

static bool gpumem_ent_before(const struct gpumem_walk_ent *a,
			      const struct gpumem_walk_ent *b)
{
	if (a->order != b->order)
		return a->order < b->order;
	if (a->handle != b->handle)
		return a->handle < b->handle;
	/* one file held by several processes: the lowest pid first */
	return a->tgid < b->tgid;
}

/* Does holder (@oa, @a) come before holder (@ob, @b) in a buffer's list? */
static bool gpumem_holder_before(u32 oa, pid_t a, u32 ob, pid_t b)
{
	return oa != ob ? oa < ob : a < b;
}

static int gpumem_add_buffer(struct gpumem_snapshot *snap, unsigned int dev,
			     const struct gpumem_walk_ent *ents, u32 head,
			     u32 owner, u32 holders, unsigned int region,
			     bool shared)
{
	struct gpumem_buf_row *buf;
	u32 j;
	int ret;

	ret = gpumem_vec_reserve((void **)&snap->bufs, &snap->cap_bufs,
				 snap->nr_bufs + 1, sizeof(*snap->bufs));
	if (!ret)
		ret = gpumem_vec_reserve((void **)&snap->holders,
					 &snap->cap_holders,
					 snap->nr_holders + holders,
					 sizeof(*snap->holders));
	if (ret)
		return ret;

	buf = &snap->bufs[snap->nr_bufs++];
	buf->obj = ents[head].obj;
	buf->dev = dev;
	buf->owner = ents[owner].tgid;
	buf->handle = ents[owner].handle;
	buf->size = ents[head].size;
	buf->mem_type = ents[head].mem_type;
	buf->region = region;
	buf->shared = shared;
	buf->first_holder = snap->nr_holders;
	buf->nr_holders = holders;
	/* In client order, so the owner (the oldest client) comes first. */
	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next) {
		pid_t *h = snap->holders + buf->first_holder;
		u32 key, k;

		if (gpumem_seen_tgid(ents, head, j))
			continue;
		key = gpumem_tgid_order(ents, head, ents[j].tgid);
		k = snap->nr_holders++ - buf->first_holder;
		for (; k && gpumem_holder_before(key, ents[j].tgid,
						 gpumem_tgid_order(ents, head,
								   h[k - 1]),
						 h[k - 1]); k--)
			h[k] = h[k - 1];
		h[k] = ents[j].tgid;
	}
	return 0;
}

/* Account one object: the chain of entries starting at @head. */
static int gpumem_account_object(struct gpumem_snapshot *snap,
				 unsigned int dev, struct gpumem_walk_ent *ents,
				 u32 head, struct gpumem_proc_row **cache)
{
	const struct gpumem_walk_ent *first = &ents[head];
	unsigned int region = first->region;
	u32 j, owner = head, holders = 0;
	u8 flags = 0;
	bool shared;

	if (region >= GPUMEM_REGION_COUNT)
		region = GPUMEM_REGION_OTHER;
	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next) {
		flags |= ents[j].flags;
		if (gpumem_ent_before(&ents[j], &ents[owner]))
			owner = j;
		if (!gpumem_seen_tgid(ents, head, j))
			holders++;
	}
	shared = holders > 1 ||
		 (flags & (GPUMEM_ENT_DMABUF | GPUMEM_ENT_IMPORTED));
	if (first->flags & GPUMEM_ENT_SKIPPED)
		snap->skipped++;

	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next) {
		struct gpumem_proc_row *proc = *cache;

		if (gpumem_seen_tgid(ents, head, j))
			continue;
		if (!proc || proc->tgid != ents[j].tgid) {
			proc = gpumem_snapshot_proc(snap, dev, ents[j].tgid);
			if (!proc)
				return -ENOMEM;
			*cache = proc;
		}
		if (first->flags & GPUMEM_ENT_SKIPPED) {
			proc->skipped++;	/* placement unknown: no figures */
			continue;
		}
		proc->bytes[region] += first->size;
		proc->bos++;
		if (shared)
			proc->shared += first->size;
		if (ents[j].tgid == ents[owner].tgid &&
		    !(flags & GPUMEM_ENT_IMPORTED))
			proc->owned += first->size;
	}
	if ((snap->flags & GPUMEM_SNAP_BUFFERS) &&
	    !(first->flags & GPUMEM_ENT_SKIPPED))
		return gpumem_add_buffer(snap, dev, ents, head, owner, holders,
					 region, shared);
	return 0;
}

/**
 * gpumem_account_device() - account one device's walk into a snapshot
 * @snap: the snapshot
 * @dev: index of the device in @snap
 * @ents: every (client, object) pair the walk saw on the device, with the
 *	placement read or marked skipped (no GPUMEM_ENT_PENDING left), in
 *	any order; their @head, @next and @hnode fields are used as scratch
 *	space
 * @n: number of @ents
 * @scratch: the object hash, kept by the caller between calls (start it
 *	zeroed, free it with gpumem_account_scratch_free())
 *
 * Applies the rules at the top of this file. Objects are matched by a hash
 * of their address (the walker holds a reference on each, so an address
 * names one object for the whole walk): linear in @n.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM (the snapshot is then incomplete; free it).
 */
int gpumem_account_device(struct gpumem_snapshot *snap, unsigned int dev,
			  struct gpumem_walk_ent *ents, size_t n,
			  struct gpumem_account_scratch *scratch)
{
	struct gpumem_proc_row *cache = NULL;
	size_t i;
	int ret;

	if (!n)
		return 0;
	if (n >= GPUMEM_NO_ENT)
		return -E2BIG;
	ret = gpumem_index_objects(ents, n, scratch);
	for (i = 0; i < n && !ret; i++)
		if (ents[i].head == i)
			ret = gpumem_account_object(snap, dev, ents, i, &cache);
	return ret;
}
