/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem requester: the process a placement made now is made for.
 */
#ifndef GPUMEM_REQUESTER_H
#define GPUMEM_REQUESTER_H

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "compat.h"

/**
 * gpumem_requester() - the process a placement made now is made for
 * @kworker: set to true when that is not the current task but the owner of
 *	the mm the current kernel thread adopted
 *
 * A user task asks for itself (an exiting one for nobody: it is closing its
 * files on the way out). A kernel thread that adopted a process's mm
 * (kthread_use_mm()) works for that process, as memcg says when it charges
 * such work to get_mem_cgroup_from_mm(): the mm's owner. Any other kernel
 * thread works for nobody that gpumem can know.
 *
 * Context: caller holds rcu_read_lock(); the task returned stays valid
 *	until it is dropped.
 * Return: the task, or NULL.
 */
static inline struct task_struct *gpumem_requester(bool *kworker)
{
	struct task_struct *t = current;

	*kworker = false;
	if (likely(!(t->flags & (PF_KTHREAD | PF_EXITING))))
		return t;
	if (!(t->flags & PF_KTHREAD) || !t->mm)
		return NULL;
	t = gpumem_mm_owner(t->mm);
	if (!t || (t->flags & PF_EXITING))
		return NULL;
	*kworker = true;
	return t;
}

#endif /* GPUMEM_REQUESTER_H */
