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
 *    table (walk.c resolves them once per file: struct gpumem_file_holders);
 *    with none, for its opener while alive, else for pid 0.
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
#include <linux/sched.h>
#include <linux/sort.h>
#include "account.h"
#include "rows.h"

#define GPUMEM_NO_ENT	U32_MAX
#define GPUMEM_NO_SLICE	SIZE_MAX

/*
 * What each holder of one client file is charged for the objects reached
 * through that file only (most objects): added to the holders' rows once per
 * file, after the device's objects, instead of once per object and holder.
 */
struct gpumem_file_acc {
	u64 bytes[GPUMEM_REGION_COUNT];
	u64 shared;
	u64 owned;	/* for the file's first (lowest) holder only */
	u32 bos;
	u32 skipped;
	size_t slice;	/* its holder list in snap->holders, or GPUMEM_NO_SLICE */
};

/* A holder of an object reached through several files. */
struct gpumem_holder_key {
	u32 order;	/* the oldest client it holds the object through */
	pid_t tgid;
};

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

		b = kvmalloc_array(nb, sizeof(*b), GFP_KERNEL_ACCOUNT);
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
	kvfree(scratch->acc);
	kvfree(scratch->keys);
	memset(scratch, 0, sizeof(*scratch));
}

static bool gpumem_ent_before(const struct gpumem_walk_ent *a,
			      const struct gpumem_walk_ent *b)
{
	if (a->order != b->order)
		return a->order < b->order;
	return a->handle < b->handle;
}

static int gpumem_cmp_key_tgid(const void *a, const void *b)
{
	const struct gpumem_holder_key *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return 0;
}

/* A buffer's holders: in client order, so the owner comes first. */
static int gpumem_cmp_key_order(const void *a, const void *b)
{
	const struct gpumem_holder_key *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return 0;
}

/* Append @n holder pids to @snap->holders: the index of the first. */
static int gpumem_add_slice(struct gpumem_snapshot *snap, const pid_t *pids,
			    const struct gpumem_holder_key *keys, u32 n,
			    size_t *slice)
{
	u32 i;
	int ret;

	ret = gpumem_snapshot_reserve(snap, (void **)&snap->holders,
				      &snap->cap_holders, snap->nr_holders + n,
				      sizeof(*snap->holders));
	if (ret)
		return ret;
	*slice = snap->nr_holders;
	for (i = 0; i < n; i++)
		snap->holders[snap->nr_holders++] = pids ? pids[i] : keys[i].tgid;
	return 0;
}

/* A buffer row whose holders are the slice @slice of @snap->holders. */
static int gpumem_add_buffer(struct gpumem_snapshot *snap, unsigned int dev,
			     const struct gpumem_walk_ent *ents, u32 head,
			     u32 owner, pid_t owner_tgid, size_t slice,
			     u32 holders, unsigned int region, bool shared)
{
	struct gpumem_buf_row *buf;
	u32 i;
	int ret;

	ret = gpumem_snapshot_reserve(snap, (void **)&snap->bufs,
				      &snap->cap_bufs, snap->nr_bufs + 1,
				      sizeof(*snap->bufs));
	if (ret)
		return ret;
	buf = &snap->bufs[snap->nr_bufs++];
	buf->obj = ents[head].obj;
	buf->dev = dev;
	buf->owner = owner_tgid;
	buf->handle = ents[owner].handle;
	buf->size = ents[head].size;
	buf->mem_type = ents[head].mem_type;
	buf->region = region;
	buf->shared = shared;
	buf->first_holder = slice;
	buf->nr_holders = holders;
	buf->kernel_holder = false;
	for (i = 0; i < holders; i++)
		if (!snap->holders[slice + i])
			buf->kernel_holder = true;
	return 0;
}

/*
 * An object reached through one file only: its holders are the file's, so
 * the object goes into the file's accumulator, and a buffer row shares the
 * file's holder list (made once). O(1) but for that list.
 */
static int gpumem_account_single(struct gpumem_snapshot *snap,
				 unsigned int dev,
				 const struct gpumem_walk_ent *ents, u32 head,
				 u32 owner, u8 flags, unsigned int region,
				 const struct gpumem_file_holders *fh,
				 const pid_t *tgids,
				 struct gpumem_file_acc *acc)
{
	const struct gpumem_walk_ent *first = &ents[head];
	bool shared = fh->nr > 1 ||
		      (flags & (GPUMEM_ENT_DMABUF | GPUMEM_ENT_IMPORTED));
	int ret;

	if (first->flags & GPUMEM_ENT_SKIPPED) {
		acc->skipped++;	/* placement unknown: no figures */
		return 0;
	}
	acc->bytes[region] += first->size;
	acc->bos++;
	if (shared)
		acc->shared += first->size;
	if (!(flags & GPUMEM_ENT_IMPORTED))
		acc->owned += first->size;
	if (!(snap->flags & GPUMEM_SNAP_BUFFERS))
		return 0;
	if (acc->slice == GPUMEM_NO_SLICE) {
		ret = gpumem_add_slice(snap, tgids + fh->first, NULL, fh->nr,
				       &acc->slice);
		if (ret)
			return ret;
	}
	return gpumem_add_buffer(snap, dev, ents, head, owner,
				 tgids[fh->first], acc->slice, fh->nr, region,
				 shared);
}

/*
 * An object reached through several files: the union of their holders,
 * each once with the oldest client it holds the object through, by a sort
 * of the m (order, tgid) pairs of its entries' files: O(m log m).
 */
static int gpumem_account_multi(struct gpumem_snapshot *snap,
				unsigned int dev, struct gpumem_walk_ent *ents,
				u32 head, u32 owner, u8 flags,
				unsigned int region,
				const struct gpumem_file_holders *files,
				const pid_t *tgids,
				struct gpumem_account_scratch *scratch,
				struct gpumem_proc_row **cache)
{
	const struct gpumem_walk_ent *first = &ents[head];
	pid_t owner_tgid = tgids[files[ents[owner].file].first];
	struct gpumem_holder_key *keys;
	size_t m = 0, nh = 0, i;
	bool shared;
	size_t slice;
	u32 j, k;
	int ret;

	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next)
		m += files[ents[j].file].nr;
	ret = gpumem_vec_reserve((void **)&scratch->keys, &scratch->cap_keys,
				 m, sizeof(*scratch->keys));
	if (ret)
		return ret;
	keys = scratch->keys;
	m = 0;
	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next) {
		const struct gpumem_file_holders *fh = &files[ents[j].file];

		for (k = 0; k < fh->nr; k++) {
			keys[m].order = ents[j].order;
			keys[m++].tgid = tgids[fh->first + k];
		}
	}
	sort(keys, m, sizeof(*keys), gpumem_cmp_key_tgid, NULL);
	for (i = 0; i < m; i++)		/* each tgid once, its oldest client */
		if (!nh || keys[nh - 1].tgid != keys[i].tgid)
			keys[nh++] = keys[i];
	shared = nh > 1 || (flags & (GPUMEM_ENT_DMABUF | GPUMEM_ENT_IMPORTED));

	for (i = 0; i < nh; i++) {
		struct gpumem_proc_row *proc = *cache;

		if (!proc || proc->tgid != keys[i].tgid) {
			proc = gpumem_snapshot_proc(snap, dev, keys[i].tgid);
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
		if (keys[i].tgid == owner_tgid &&
		    !(flags & GPUMEM_ENT_IMPORTED))
			proc->owned += first->size;
	}
	if (!(snap->flags & GPUMEM_SNAP_BUFFERS) ||
	    (first->flags & GPUMEM_ENT_SKIPPED))
		return 0;
	sort(keys, nh, sizeof(*keys), gpumem_cmp_key_order, NULL);
	ret = gpumem_add_slice(snap, NULL, keys, nh, &slice);
	if (ret)
		return ret;
	return gpumem_add_buffer(snap, dev, ents, head, owner, owner_tgid,
				 slice, nh, region, shared);
}

/* Account one object: the chain of entries starting at @head. */
static int gpumem_account_object(struct gpumem_snapshot *snap,
				 unsigned int dev, struct gpumem_walk_ent *ents,
				 u32 head, const struct gpumem_file_holders *files,
				 const pid_t *tgids,
				 struct gpumem_account_scratch *scratch,
				 struct gpumem_proc_row **cache)
{
	const struct gpumem_walk_ent *first = &ents[head];
	unsigned int region = first->region;
	u32 j, owner = head;
	bool single = true;
	u8 flags = 0;

	if (region >= GPUMEM_REGION_COUNT)
		region = GPUMEM_REGION_OTHER;
	for (j = head; j != GPUMEM_NO_ENT; j = ents[j].next) {
		flags |= ents[j].flags;
		if (gpumem_ent_before(&ents[j], &ents[owner]))
			owner = j;
		if (ents[j].file != first->file)
			single = false;
	}
	if (first->flags & GPUMEM_ENT_SKIPPED)
		snap->skipped++;
	if (single)
		return gpumem_account_single(snap, dev, ents, head, owner,
					     flags, region,
					     &files[first->file], tgids,
					     &scratch->acc[first->file]);
	return gpumem_account_multi(snap, dev, ents, head, owner, flags, region,
				    files, tgids, scratch, cache);
}

/* Add each file's accumulator to the rows of its holders. */
static int gpumem_account_flush(struct gpumem_snapshot *snap, unsigned int dev,
				const struct gpumem_file_holders *files,
				size_t nr_files, const pid_t *tgids,
				const struct gpumem_file_acc *acc)
{
	struct gpumem_proc_row *proc;
	size_t f;
	u32 k, r;

	for (f = 0; f < nr_files; f++) {
		const struct gpumem_file_acc *a = &acc[f];

		if (!a->bos && !a->skipped)
			continue;
		for (k = 0; k < files[f].nr; k++) {
			proc = gpumem_snapshot_proc(snap, dev,
						    tgids[files[f].first + k]);
			if (!proc)
				return -ENOMEM;
			for (r = 0; r < GPUMEM_REGION_COUNT; r++)
				proc->bytes[r] += a->bytes[r];
			proc->shared += a->shared;
			proc->bos += a->bos;
			proc->skipped += a->skipped;
			if (!k)	/* the lowest pid of the file owns */
				proc->owned += a->owned;
		}
		cond_resched();
	}
	return 0;
}

/**
 * gpumem_account_device() - account one device's walk into a snapshot
 * @snap: the snapshot
 * @dev: index of the device in @snap
 * @ents: every (client file, object handle) pair the walk saw on the
 *	device, with the placement read or marked skipped (no
 *	GPUMEM_ENT_PENDING left), in any order; their @head, @next and
 *	@hnode fields are used as scratch space
 * @n: number of @ents
 * @files: the device's client files: &gpumem_walk_ent.file indexes it;
 *	each names the processes the file counts for (at least one)
 * @nr_files: number of @files
 * @tgids: the tgids @files refer to, each file's ascending and once each
 * @scratch: the work space, kept by the caller between calls (start it
 *	zeroed, free it with gpumem_account_scratch_free())
 *
 * Applies the rules at the top of this file. Objects are matched by a hash
 * of their address (the walker holds a reference on each, so an address
 * names one object for the whole walk). An object reached through one file
 * only is added to that file's accumulator and shares its holder list;
 * each file's holders are charged once, at the end. An object reached
 * through several files has its holders merged by a sort.
 *
 * Cost: O(@n + @nr_files + H + sum over objects reached through several
 * files of m log m), where H is the number of @tgids (one per file and
 * holding process) and m the holders of an object's files counted with
 * repetition. Never O(holders^2): a file held by H processes costs O(H)
 * however many of its objects there are.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM (the snapshot is then incomplete; free it).
 */
int gpumem_account_device(struct gpumem_snapshot *snap, unsigned int dev,
			  struct gpumem_walk_ent *ents, size_t n,
			  const struct gpumem_file_holders *files,
			  size_t nr_files, const pid_t *tgids,
			  struct gpumem_account_scratch *scratch)
{
	struct gpumem_proc_row *cache = NULL;
	size_t i;
	int ret;

	if (!n)
		return 0;
	if (n >= GPUMEM_NO_ENT)
		return -E2BIG;
	ret = gpumem_vec_reserve((void **)&scratch->acc, &scratch->cap_acc,
				 nr_files, sizeof(*scratch->acc));
	if (ret)
		return ret;
	memset(scratch->acc, 0, nr_files * sizeof(*scratch->acc));
	for (i = 0; i < nr_files; i++)
		scratch->acc[i].slice = GPUMEM_NO_SLICE;
	ret = gpumem_index_objects(ents, n, scratch);
	for (i = 0; i < n && !ret; i++) {
		if (ents[i].head == i)
			ret = gpumem_account_object(snap, dev, ents, i, files,
						    tgids, scratch, &cache);
		if (!(i & 1023))
			cond_resched();
	}
	if (!ret)
		ret = gpumem_account_flush(snap, dev, files, nr_files, tgids,
					   scratch->acc);
	return ret;
}
