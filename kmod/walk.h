/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem walker: visits every tracked DRM device for the device rows of a
 * snapshot and, for the held view, every client and every GEM object they
 * hold, handing them to the accounting (account.c). Only snapshot.c walks
 * (main.c frees the walks' cache at exit): readers take snapshots through
 * snapshot.h.
 */
#ifndef GPUMEM_WALK_H
#define GPUMEM_WALK_H

#include <linux/types.h>

struct gpumem_snapshot;

int gpumem_walk_nr_devices(unsigned int *nr, bool interruptible);
int gpumem_walk_fill(struct gpumem_snapshot *snap, unsigned int flags,
		     char *path);
void gpumem_walk_exit(void);

#endif /* GPUMEM_WALK_H */
