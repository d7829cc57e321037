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
struct gpumem_file_holders;
struct gpumem_file_acc;
struct gpumem_holder_key;

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
