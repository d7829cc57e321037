/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem accounting: turns the (client, object) entries a walk collected
 * on one device into per-process rows of a snapshot, each object counted
 * once (account.c has the rules).
 */
#ifndef GPUMEM_ACCOUNT_H
#define GPUMEM_ACCOUNT_H

#include <linux/list.h>
#include <linux/types.h>

struct gpumem_snapshot;
struct gpumem_walk_ent;

/**
 * struct gpumem_account_scratch - the accounting's object hash, reusable
 * @buckets: 1 << @bits hash buckets
 * @bits: hash size
 */
struct gpumem_account_scratch {
	struct hlist_head *buckets;
	unsigned int bits;
};

int gpumem_account_device(struct gpumem_snapshot *snap, unsigned int dev,
			  struct gpumem_walk_ent *ents, size_t n,
			  struct gpumem_account_scratch *scratch);
void gpumem_account_scratch_free(struct gpumem_account_scratch *scratch);

#endif /* GPUMEM_ACCOUNT_H */
