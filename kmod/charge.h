/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem charges: one record per placement (a TTM resource) of a buffer
 * gpumem knows the owner of: who owns it, what it is charged, how long.
 */
#ifndef GPUMEM_CHARGE_H
#define GPUMEM_CHARGE_H

#include <linux/sched.h>
#include <linux/types.h>

struct ttm_resource;
struct drm_gem_object;

/* One recorded placement; private to charge.c. */
struct gpumem_charge;

/**
 * struct gpumem_placement - a placement about to be made
 * @obj: the buffer
 * @prev: the buffer's current resource (bo->resource, stable under the
 *	buffer's reservation, which TTM holds while it allocates), or NULL
 * @minor: the device
 * @region: enum gpumem_region of the new placement
 * @bytes: its size
 * @counted: counted against the owner's limits (VRAM and GTT); false for
 *	a system placement, whose record only carries the buffer's owner to
 *	its next placement
 * @quiet: a repeat of a placement just denied (the same request retried by
 *	TTM): decide the same way, but count and report it only once
 * @dmem: the manager charges a dmem cgroup region (dmem.c): dmem.max
 *	limits the placement, a gpumem max never denies it (one enforcer)
 */
struct gpumem_placement {
	const struct drm_gem_object *obj;
	const struct ttm_resource *prev;
	int minor;
	u8 region;
	u64 bytes;
	bool counted;
	bool quiet;
	bool dmem;
};

/**
 * struct gpumem_orphan_rec - a charged placement whose owner has exited
 * @obj: its buffer (a key to compare only, never dereferenced)
 * @bytes: size of the placement
 * @cgid: the cgroup charged (the owner's)
 * @tgid: the owner (allocating process), gone
 * @minor: the device
 * @region: enum gpumem_region
 * @handles: some GEM handle reached the buffer
 * @dmabuf: the buffer was exported as a dma-buf
 * @dead_ms: milliseconds since gpumem first saw the owner gone
 * @comm: the owner's command name
 */
struct gpumem_orphan_rec {
	const void *obj;
	u64 bytes;
	u64 cgid;
	pid_t tgid;
	int minor;
	u8 region;
	bool handles;
	bool dmabuf;
	u32 dead_ms;
	char comm[TASK_COMM_LEN];
};

/**
 * struct gpumem_charge_watch - who is told about owners the records see gone
 * @on: whether that is wanted now: while true, the sweep also looks at
 *	the records of processes that have no counters, and an owner newly
 *	seen gone is marked to be reported (a death while false never is)
 * @gone: one or more owners of resident placements were newly seen gone
 *	(by the sweep or a pass of gpumem_charge_orphans()); called from
 *	process context, never under a record's lock
 *
 * The charges know no report: the orphans report registers this
 * (orphans.c, set in main.c before any record exists).
 */
struct gpumem_charge_watch {
	bool (*on)(void);
	void (*gone)(void);
};

int gpumem_charge_init(void);
void gpumem_charge_exit(void);
void gpumem_charge_set_watch(const struct gpumem_charge_watch *watch);

int gpumem_charge_new(const struct gpumem_placement *place,
		      struct gpumem_charge **chargep);
void gpumem_charge_commit(struct gpumem_charge *charge,
			  struct ttm_resource *res);
void gpumem_charge_cancel(struct gpumem_charge *charge);
long gpumem_charge_uncounted_records(void);
void gpumem_charge_release(struct ttm_resource *res);
void gpumem_charge_evicting(const struct ttm_resource *res,
			    const struct drm_gem_object *obj);
void gpumem_charge_unattributed(void (*fn)(int minor, u8 region, u64 bytes,
					   void *arg), void *arg);
int gpumem_charge_device_inert(int minor);
void gpumem_charge_forget_device(int minor);
u64 gpumem_charge_records(void);
u64 gpumem_charge_unattributed_records(void);
void gpumem_charge_sweep_kick(void);
int gpumem_charge_orphans(struct gpumem_orphan_rec **recsp, size_t *capp,
			  size_t *nrp, bool claim, size_t limit);

#endif /* GPUMEM_CHARGE_H */
