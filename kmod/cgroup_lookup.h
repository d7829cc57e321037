/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem cgroup lookup: cgroup v2 by id, and its path, as the host sees
 * them, whatever cgroup namespace the calling task is in (and, for
 * display only, a path as a given cgroup namespace sees it).
 */
#ifndef GPUMEM_CGROUP_LOOKUP_H
#define GPUMEM_CGROUP_LOOKUP_H

#include <linux/cgroup.h>
#include <linux/types.h>

int gpumem_cgroup_lookup_init(void);
void gpumem_cgroup_lookup_exit(void);
struct cgroup *gpumem_cgroup_get_host(u64 cgid);
bool gpumem_cgroup_path(u64 cgid, char *buf, size_t len);
int gpumem_cgroup_paths_ns(const u64 *cgids, size_t n,
			   struct cgroup_namespace *ns, char **paths);

/**
 * gpumem_cgroup_dead() - has the cgroup been removed?
 * @cgrp: a cgroup the caller holds a reference on
 *
 * A removed cgroup (rmdir) stays allocated while references remain, but is
 * offline for good. The same test as the cgroup core's cgroup_is_dead().
 *
 * Return: true once the cgroup is removed.
 */
static inline bool gpumem_cgroup_dead(const struct cgroup *cgrp)
{
	return !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE);
}

#endif /* GPUMEM_CGROUP_LOOKUP_H */
