// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem cgroup lookup: cgroup v2 by id, and its path, as the host sees
 * them.
 *
 * cgroup_get_from_id() and cgroup_path() answer relative to the *calling
 * task's* cgroup namespace: from inside a container's namespace, a host
 * cgroup outside it "does not exist" and paths are cut at the namespace
 * root. Limits and events are about host cgroups, so every lookup here runs
 * on a kworker of our own workqueue, whose namespaces are the initial ones,
 * and the caller waits for it. The workqueue has a rescuer
 * (WQ_MEM_RECLAIM): an allocation made under reclaim that reports an event
 * still gets its lookup done. A kernel thread caller already is in the
 * initial namespaces and looks up directly.
 *
 * Context: process context, may sleep; no lock the system workqueue could
 * need may be held.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/kernfs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "cgroup_lookup.h"

static struct workqueue_struct *gpumem_cgroup_wq;

struct gpumem_cgroup_lookup {
	struct work_struct work;
	u64 cgid;
	char *buf;		/* NULL: the cgroup only */
	size_t len;
	struct cgroup *cgrp;	/* result: a reference, or an ERR_PTR */
	bool path_ok;
};

static void gpumem_cgroup_lookup_fn(struct work_struct *work)
{
	struct gpumem_cgroup_lookup *l =
		container_of(work, struct gpumem_cgroup_lookup, work);

	l->cgrp = cgroup_get_from_id(l->cgid);
	if (IS_ERR(l->cgrp) || !l->buf)
		return;
	l->path_ok = cgroup_path(l->cgrp, l->buf, l->len) >= 0;
}

static void gpumem_cgroup_lookup_run(struct gpumem_cgroup_lookup *l)
{
	if ((current->flags & PF_KTHREAD) || WARN_ON_ONCE(!gpumem_cgroup_wq)) {
		gpumem_cgroup_lookup_fn(&l->work);
		return;
	}
	INIT_WORK_ONSTACK(&l->work, gpumem_cgroup_lookup_fn);
	queue_work(gpumem_cgroup_wq, &l->work);
	flush_work(&l->work);
	destroy_work_on_stack(&l->work);
}

/**
 * gpumem_cgroup_get_host() - a cgroup v2 by id, in the host's view
 * @cgid: the cgroup id (the inode number of its directory)
 *
 * Context: may sleep.
 * Return: the cgroup with a reference held (cgroup_put() it), or an
 *	ERR_PTR when no such cgroup exists.
 */
struct cgroup *gpumem_cgroup_get_host(u64 cgid)
{
	struct gpumem_cgroup_lookup l = { .cgid = cgid };

	gpumem_cgroup_lookup_run(&l);
	return l.cgrp;
}

/**
 * gpumem_cgroup_path() - the path of a cgroup v2 by id, from the host root
 * @cgid: the cgroup id
 * @buf: where to write the path
 * @len: size of @buf (PATH_MAX holds any path)
 *
 * Context: may sleep.
 * Return: true when the cgroup exists and its path fit in @buf.
 */
bool gpumem_cgroup_path(u64 cgid, char *buf, size_t len)
{
	struct gpumem_cgroup_lookup l = { .cgid = cgid, .buf = buf, .len = len };

	gpumem_cgroup_lookup_run(&l);
	if (IS_ERR(l.cgrp))
		return false;
	cgroup_put(l.cgrp);
	return l.path_ok;
}

struct gpumem_cgroup_paths {
	struct work_struct work;
	const u64 *cgids;
	size_t n;
	struct cgroup_namespace *ns;
	char **paths;
	int ret;
};

static void gpumem_cgroup_paths_fn(struct work_struct *work)
{
	struct gpumem_cgroup_paths *p =
		container_of(work, struct gpumem_cgroup_paths, work);
	struct kernfs_node *root = p->ns ? p->ns->root_cset->dfl_cgrp->kn : NULL;
	struct cgroup *cgrp;
	char *buf;
	size_t i;
	int len;

	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf) {
		p->ret = -ENOMEM;
		return;
	}
	for (i = 0; i < p->n; i++) {
		cgrp = cgroup_get_from_id(p->cgids[i]);
		if (IS_ERR(cgrp))
			continue;	/* removed: no path */
		/* what cgroup_path_ns() gives, without cgroup_mutex */
		len = kernfs_path_from_node(cgrp->kn, root, buf, PATH_MAX);
		cgroup_put(cgrp);
		if (len >= 0 && len < PATH_MAX) {
			p->paths[i] = kstrdup(buf, GFP_KERNEL);
			if (!p->paths[i]) {
				p->ret = -ENOMEM;
				break;
			}
		}
		cond_resched();
	}
	kfree(buf);
}

/**
 * gpumem_cgroup_paths_ns() - the paths of many cgroups v2 by id, from a
 *	namespace, in one lookup
 * @cgids: the cgroup ids, found in the host's view
 * @n: their number
 * @ns: the cgroup namespace whose root the paths start at; the caller keeps
 *	it alive (its own); NULL: the host's root (gpumem_cgroup_path())
 * @paths: @n entries, NULL on entry; set to a kmalloc'ed path (kfree() it)
 *	for each cgroup that exists and whose path fits in PATH_MAX
 *
 * The paths /proc/PID/cgroup shows to a task in @ns (relative to its root,
 * "/../..." for a cgroup outside it; with a NULL @ns, gpumem_cgroup_path()'s),
 * for all @cgids in one round trip
 * to the lookup kworker instead of one each, and without cgroup_mutex (the
 * kernfs path from the namespace's root, as cgroup_path_ns() takes it once
 * it holds that mutex). O(@n) path lookups, rescheduling between them.
 *
 * Context: may sleep.
 * Return: 0, or -ENOMEM (the paths set so far are kept: free them).
 */
int gpumem_cgroup_paths_ns(const u64 *cgids, size_t n,
			   struct cgroup_namespace *ns, char **paths)
{
	struct gpumem_cgroup_paths p = {
		.cgids = cgids, .n = n, .ns = ns, .paths = paths,
	};

	if (!n)
		return 0;
	if ((current->flags & PF_KTHREAD) || WARN_ON_ONCE(!gpumem_cgroup_wq)) {
		gpumem_cgroup_paths_fn(&p.work);
		return p.ret;
	}
	INIT_WORK_ONSTACK(&p.work, gpumem_cgroup_paths_fn);
	queue_work(gpumem_cgroup_wq, &p.work);
	flush_work(&p.work);
	destroy_work_on_stack(&p.work);
	return p.ret;
}

/**
 * gpumem_cgroup_lookup_init() - create the lookup workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int gpumem_cgroup_lookup_init(void)
{
	gpumem_cgroup_wq = alloc_workqueue("gpumem_cgroup", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return gpumem_cgroup_wq ? 0 : -ENOMEM;
}

/**
 * gpumem_cgroup_lookup_exit() - destroy it, once no caller is left
 */
void gpumem_cgroup_lookup_exit(void)
{
	destroy_workqueue(gpumem_cgroup_wq);
	gpumem_cgroup_wq = NULL;
}
