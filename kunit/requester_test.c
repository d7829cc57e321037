// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: whom a placement is made for (kmod/requester.h, the owner
 * charge.c gives a new buffer): a kernel thread that adopted a process's
 * mm (kthread_use_mm()) works for the mm's owner, as memcg charges such
 * work; a kernel thread without an mm works for nobody.
 */
#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include "../kmod/requester.h"

/* What a kernel thread found, asking gpumem_requester(). */
struct rq_probe {
	struct mm_struct *mm;	/* adopted first, if not NULL */
	struct completion done;
	bool found;		/* a requester */
	bool kworker;
	pid_t tgid;
	u64 cgid;
	bool mm_was_current;	/* current->mm was @mm meanwhile */
};

static int rq_probe_fn(void *arg)
{
	struct rq_probe *p = arg;
	struct task_struct *t;

	if (p->mm)
		kthread_use_mm(p->mm);
	p->mm_was_current = p->mm && current->mm == p->mm;
	rcu_read_lock();
	t = gpumem_requester(&p->kworker);
	p->found = t;
	if (t) {
		p->tgid = task_tgid_nr(t);
		p->cgid = cgroup_id(task_dfl_cgroup(t));
	}
	rcu_read_unlock();
	if (p->mm)
		kthread_unuse_mm(p->mm);
	complete(&p->done);
	return 0;
}

/* Run the probe in a new kernel thread (with @mm adopted, if any). */
static void rq_run(struct kunit *test, struct rq_probe *p,
		   struct mm_struct *mm)
{
	struct task_struct *k;

	memset(p, 0, sizeof(*p));
	p->mm = mm;
	init_completion(&p->done);
	k = kthread_run(rq_probe_fn, p, "gpumem-rq-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	wait_for_completion(&p->done);
}

/* A kernel thread of its own (no mm) asks for nobody. */
static void rq_kthread_without_mm(struct kunit *test)
{
	struct rq_probe p;

	rq_run(test, &p, NULL);
	KUNIT_EXPECT_FALSE(test, p.found);
	KUNIT_EXPECT_FALSE(test, p.kworker);
}

/*
 * A kernel thread that adopted init's mm asks for init (the mm's owner):
 * its process and its cgroup, as memcg's get_mem_cgroup_from_mm() finds.
 * Without CONFIG_MEMCG the kernel keeps no owner: nobody.
 */
static void rq_kthread_adopted_mm(struct kunit *test)
{
	struct task_struct *init;
	struct mm_struct *mm;
	struct rq_probe p;
	struct pid *pid;
	u64 cgid;

	pid = find_get_pid(1);
	init = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	KUNIT_ASSERT_NOT_NULL(test, init);
	mm = get_task_mm(init);
	rcu_read_lock();
	cgid = cgroup_id(task_dfl_cgroup(init));
	rcu_read_unlock();
	put_task_struct(init);
	KUNIT_ASSERT_NOT_NULL(test, mm);
	rq_run(test, &p, mm);
	mmput(mm);
	KUNIT_EXPECT_TRUE(test, p.mm_was_current);
	if (!IS_ENABLED(CONFIG_MEMCG)) {
		KUNIT_EXPECT_FALSE(test, p.found);
		return;
	}
	KUNIT_ASSERT_TRUE(test, p.found);
	KUNIT_EXPECT_TRUE(test, p.kworker);
	KUNIT_EXPECT_EQ(test, p.tgid, 1);
	KUNIT_EXPECT_EQ(test, p.cgid, cgid);
}

/* The test's own thread (a kernel thread, no mm) asks for nobody too. */
static void rq_current_kthread(struct kunit *test)
{
	struct task_struct *t;
	bool kworker = true;

	KUNIT_ASSERT_TRUE(test, current->flags & PF_KTHREAD);
	KUNIT_ASSERT_NULL(test, current->mm);
	rcu_read_lock();
	t = gpumem_requester(&kworker);
	rcu_read_unlock();
	KUNIT_EXPECT_NULL(test, t);
	KUNIT_EXPECT_FALSE(test, kworker);
}

static struct kunit_case gpumem_requester_cases[] = {
	KUNIT_CASE(rq_kthread_without_mm),
	KUNIT_CASE(rq_kthread_adopted_mm),
	KUNIT_CASE(rq_current_kthread),
	{}
};

static struct kunit_suite gpumem_requester_suite = {
	.name = "gpumem_requester",
	.test_cases = gpumem_requester_cases,
};

kunit_test_suite(gpumem_requester_suite);
