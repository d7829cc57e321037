/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem accounting: turns the (client, object) entries a walk collected
 * on one device into per-process rows of a snapshot, each object counted
 * once (account.c has the rules).
 */
#ifndef GPUMEM_ACCOUNT_H
#define GPUMEM_ACCOUNT_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/types.h>

struct gpumem_snapshot;
struct gpumem_file_acc;
struct gpumem_holder_key;

/**
 * struct gpumem_file_holders - the processes one client file counts for
 * @first: index of the first of their tgids in the device's tgid array
 * @nr: how many (at least one), ascending, each once
 *
 * Resolved once per file and walk; its entries refer to it by index.
 */
struct gpumem_file_holders {
	size_t first;
	u32 nr;
};

/**
 * struct gpumem_walk_ent - one (client file, object handle) pair of a walk
 * @obj: the object, referenced by the walker (opaque to the accounting)
 * @size: object size in bytes
 * @order: the client's position on its device, 0 = opened first
 * @handle: the GEM handle in that client's file
 * @file: index of the client's struct gpumem_file_holders on the device
 * @mem_type: TTM memory type, -1 for a non-TTM object
 * @region: enum gpumem_region
 * @flags: GPUMEM_ENT_*
 * @head: accounting scratch: index of the object's first entry
 * @next: accounting scratch: next entry of the same object
 * @hnode: accounting scratch: the first entry's node in the object hash
 */
struct gpumem_walk_ent {
	void *obj;
	u64 size;
	u32 order;
	u32 handle;
	u32 file;
	s16 mem_type;
	u8 region;
	u8 flags;
	u32 head;
	u32 next;
	struct hlist_node hnode;
};

#define GPUMEM_ENT_PENDING	BIT(0)	/* placement not read yet */
#define GPUMEM_ENT_DMABUF	BIT(1)	/* exported as a dma-buf */
#define GPUMEM_ENT_IMPORTED	BIT(2)	/* imported from a dma-buf */
#define GPUMEM_ENT_SKIPPED	BIT(3)	/* placement unreadable: reservation busy */

/**
 * struct gpumem_account_scratch - the accounting's work space, reusable
 * @buckets: 1 << @bits hash buckets (the object hash)
 * @bits: hash size
 * @acc: one accumulator per client file
 * @cap_acc: allocated @acc
 * @keys: the holders of one object reached through several files
 * @cap_keys: allocated @keys
 */
struct gpumem_account_scratch {
	struct hlist_head *buckets;
	unsigned int bits;
	struct gpumem_file_acc *acc;
	size_t cap_acc;
	struct gpumem_holder_key *keys;
	size_t cap_keys;
};

int gpumem_account_device(struct gpumem_snapshot *snap, unsigned int dev,
			  struct gpumem_walk_ent *ents, size_t n,
			  const struct gpumem_file_holders *files,
			  size_t nr_files, const pid_t *tgids,
			  struct gpumem_account_scratch *scratch);
void gpumem_account_scratch_free(struct gpumem_account_scratch *scratch);

#endif /* GPUMEM_ACCOUNT_H */
