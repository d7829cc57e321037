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
 *  - Every object has exactly one owner: the process of the oldest client
 *    (first opened file on the device) that holds a handle to it. Imported
 *    objects are owned by nobody on the importing device: their memory is the
 *    exporter's and is owned there. So the sum of `owned` over all processes
 *    of a device counts each object of that device once.
 */
#include <linux/sort.h>
#include "snapshot.h"

static int gpumem_ent_cmp(const void *a, const void *b)
{
	const struct gpumem_walk_ent *x = a, *y = b;

	if (x->obj != y->obj)
		return (uintptr_t)x->obj < (uintptr_t)y->obj ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->handle != y->handle)
		return x->handle < y->handle ? -1 : 1;
	return 0;
}

/* Is ents[j]'s process already among ents[first..j)? */
static bool gpumem_seen_tgid(const struct gpumem_walk_ent *ents, size_t first,
			     size_t j)
{
	size_t k;

	for (k = first; k < j; k++)
		if (ents[k].tgid == ents[j].tgid)
			return true;
	return false;
}

static int gpumem_add_buffer(struct gpumem_snapshot *snap, unsigned int dev,
			     const struct gpumem_walk_ent *ents, size_t first,
			     size_t end, u32 holders, bool shared)
{
	struct gpumem_buf_row *buf;
	size_t j;
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
	buf->dev = dev;
	buf->owner = ents[first].tgid;
	buf->handle = ents[first].handle;
	buf->size = ents[first].size;
	buf->mem_type = ents[first].mem_type;
	buf->region = ents[first].region;
	buf->shared = shared;
	buf->first_holder = snap->nr_holders;
	buf->nr_holders = holders;
	for (j = first; j < end; j++)
		if (!gpumem_seen_tgid(ents, first, j))
			snap->holders[snap->nr_holders++] = ents[j].tgid;
	return 0;
}

/**
 * gpumem_account_device() - account one device's walk into a snapshot
 * @snap: the snapshot
 * @dev: index of the device in @snap
 * @ents: every (client, object) pair the walk saw on the device, with the
 *	placement read (no GPUMEM_ENT_PENDING left); sorted in place
 * @n: number of @ents
 *
 * Applies the rules at the top of this file.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM (the snapshot is then incomplete; free it).
 */
int gpumem_account_device(struct gpumem_snapshot *snap, unsigned int dev,
			  struct gpumem_walk_ent *ents, size_t n)
{
	size_t i, j, end;
	int ret;

	sort(ents, n, sizeof(*ents), gpumem_ent_cmp, NULL);
	for (i = 0; i < n; i = end) {
		const struct gpumem_walk_ent *first = &ents[i];
		unsigned int region = first->region;
		u8 flags = 0;
		u32 holders = 0;
		bool shared;

		if (region >= GPUMEM_REGION_COUNT)
			region = GPUMEM_REGION_OTHER;
		for (end = i; end < n && ents[end].obj == first->obj; end++) {
			flags |= ents[end].flags;
			if (!gpumem_seen_tgid(ents, i, end))
				holders++;
		}
		shared = holders > 1 ||
			 (flags & (GPUMEM_ENT_DMABUF | GPUMEM_ENT_IMPORTED));

		for (j = i; j < end; j++) {
			struct gpumem_proc_row *proc;

			if (gpumem_seen_tgid(ents, i, j))
				continue;
			proc = gpumem_snapshot_proc(snap, dev, ents[j].tgid);
			if (!proc)
				return -ENOMEM;
			proc->bytes[region] += first->size;
			proc->bos++;
			if (shared)
				proc->shared += first->size;
			if (j == i && !(flags & GPUMEM_ENT_IMPORTED))
				proc->owned += first->size;
		}
		if (snap->flags & GPUMEM_SNAP_BUFFERS) {
			ret = gpumem_add_buffer(snap, dev, ents, i, end, holders,
						shared);
			if (ret)
				return ret;
		}
	}
	return 0;
}
