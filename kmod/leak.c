// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem leak suspicion: a staircase detector over the allocation-time
 * counters.
 *
 * Each counter watched (a process's bytes on a device and region,
 * proc_usage.c; the bytes a cgroup's own processes charged on a device and
 * region, limits.c) keeps a struct gpumem_leak_state next to it, under the
 * counter's own lock: where the counter falls, the window's floor (its
 * lowest value) follows. Nothing else happens on the allocation path.
 *
 * Every leak_window_ms a delayed work ends the window of every counter (the
 * work is bounded by the counters, never by the buffers) in one pass over
 * the counters' hash tables, carried out in runs of the work of at most
 * GPUMEM_LEAK_RUN_BUCKETS hash buckets each (GPUMEM_LEAK_SLICE buckets per
 * hold of a counter's lock), each run queueing the next one until the pass
 * is done: a run costs O(the counters of 64 buckets) and holds a counter
 * lock for O(the counters of 16 buckets), whatever the number of
 * processes and cgroups. A floor that rose
 * by more than leak_slack over the previous window's counts one more rising
 * window, any other resets the count. At leak_windows rising windows in a
 * row the counter is a suspect and one leak-suspect event is raised, with
 * the growth of the floor over those windows and its rate. A counter raises
 * no second event until its floor falls back to where the rise began.
 *
 * So a staircase (allocate, keep, allocate more) raises one event; a
 * sawtooth (allocate, free, repeat) returns to its floor in every window and
 * a plateau keeps the same floor: neither ever does.
 *
 * Events go through events.c (numbered, lost ones seen as gaps), rate-limited
 * per cgroup and device (event_rate, event_burst).
 *
 * The suspects now (a counter stays one until its floor falls back) are
 * listed, without changing anything, by gpumem_leak_list_take(): debugfs
 * `leaks` and netlink leak-get (CAP_NET_ADMIN: host pids and paths).
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "../uapi/gpumem.h"
#include "cgroup_lookup.h"
#include "classify.h"
#include "events.h"
#include "leak.h"
#include "limits.h"
#include "proc_usage.h"
#include "rows.h"

/* The bounds of leak_window_ms (but 0) and leak_windows. */
#define GPUMEM_LEAK_WINDOW_MIN_MS	100
#define GPUMEM_LEAK_WINDOW_MAX_MS	86400000
#define GPUMEM_LEAK_WINDOWS_MIN		2
#define GPUMEM_LEAK_WINDOWS_MAX		1000

static unsigned int leak_window_ms = 60000;
static unsigned int leak_windows = 5;
static unsigned long leak_slack = 4096;

static void gpumem_leak_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_leak_work, gpumem_leak_fn);
static DEFINE_MUTEX(gpumem_leak_mutex);	/* gpumem_leak_running, scheduling */
static bool gpumem_leak_running;	/* between init and exit */
static bool gpumem_leak_fresh;		/* the next window end starts over */

/* Hash buckets one run of the work visits at most; per lock hold. */
#define GPUMEM_LEAK_RUN_BUCKETS	64
#define GPUMEM_LEAK_SLICE	16

/*
 * The window end going on: its parameters and where the next run carries
 * on (table 0: the processes' counters, 1: the cgroups', 2: done). Only
 * the work uses it (a work item never runs twice at once).
 */
static struct {
	struct gpumem_leak_params p;
	unsigned int table;
	unsigned int bkt;
	unsigned long start;
	bool active;
} gpumem_leak_pass;

/*
 * Runs of the work and window ends done since load; runs of the window end
 * going on (the work's only) and of the last one done.
 */
static u64 gpumem_leak_runs, gpumem_leak_passes, gpumem_leak_pass_runs;
static u64 gpumem_leak_cur_runs;

/* (Re)start the windows, or stop them. Caller holds gpumem_leak_mutex. */
static void gpumem_leak_schedule(void)
{
	unsigned int ms = READ_ONCE(leak_window_ms);

	if (!gpumem_leak_running)
		return;
	if (!ms) {
		cancel_delayed_work(&gpumem_leak_work);
		return;
	}
	WRITE_ONCE(gpumem_leak_fresh, true);
	/* the first window end only resets, so it may come at once */
	mod_delayed_work(system_wq, &gpumem_leak_work, 0);
}

static int gpumem_param_set_window(const char *val,
				   const struct kernel_param *kp)
{
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (ms && (ms < GPUMEM_LEAK_WINDOW_MIN_MS ||
		   ms > GPUMEM_LEAK_WINDOW_MAX_MS)) {
		pr_warn("gpumem: leak_window_ms: %u is neither 0 (off) nor %u..%u\n",
			ms, GPUMEM_LEAK_WINDOW_MIN_MS,
			GPUMEM_LEAK_WINDOW_MAX_MS);
		return -EINVAL;
	}
	mutex_lock(&gpumem_leak_mutex);
	WRITE_ONCE(*(unsigned int *)kp->arg, ms);
	gpumem_leak_schedule();
	mutex_unlock(&gpumem_leak_mutex);
	return 0;
}

static const struct kernel_param_ops gpumem_window_ops = {
	.set = gpumem_param_set_window,
	.get = param_get_uint,
};

static int gpumem_param_set_windows(const char *val,
				    const struct kernel_param *kp)
{
	int ret;

	ret = param_set_uint_minmax(val, kp, GPUMEM_LEAK_WINDOWS_MIN,
				    GPUMEM_LEAK_WINDOWS_MAX);
	if (ret) {
		pr_warn("gpumem: leak_windows: must be %u..%u\n",
			GPUMEM_LEAK_WINDOWS_MIN, GPUMEM_LEAK_WINDOWS_MAX);
		return ret;
	}
	mutex_lock(&gpumem_leak_mutex);
	gpumem_leak_schedule();
	mutex_unlock(&gpumem_leak_mutex);
	return 0;
}

static const struct kernel_param_ops gpumem_windows_ops = {
	.set = gpumem_param_set_windows,
	.get = param_get_uint,
};

module_param_cb(leak_window_ms, &gpumem_window_ops, &leak_window_ms, 0644);
MODULE_PARM_DESC(leak_window_ms, "length of a leak-detection window in ms (0: off, 100..86400000, default 60000)");
module_param_cb(leak_windows, &gpumem_windows_ops, &leak_windows, 0644);
MODULE_PARM_DESC(leak_windows, "rising windows in a row that make a leak suspect (2..1000, default 5)");
module_param(leak_slack, ulong, 0644);
MODULE_PARM_DESC(leak_slack, "bytes the floor must rise by in a window to count as rising (default 4096)");

/* Growth per second over @windows windows of @ms each (0 without a span). */
static u64 gpumem_leak_rate(u64 growth, u32 windows, unsigned int ms)
{
	u64 span_ms = (u64)ms * windows;

	return span_ms ? div64_u64(growth * 1000, span_ms) : 0;
}

/*
 * The cgroup a hit is reported under: a process's cgroup now (@hit->cgid,
 * 0, once it has exited), or the cgroup whose own usage it is.
 */
static u64 gpumem_leak_hit_cgid(const struct gpumem_leak_hit *hit)
{
	struct task_struct *task;
	u64 cgid = hit->cgid;

	if (!hit->pid)
		return cgid;
	rcu_read_lock();	/* the task's css_set */
	task = pid_task(hit->pid, PIDTYPE_TGID);
	if (task)
		cgid = cgroup_id(task_dfl_cgroup(task));
	rcu_read_unlock();
	return cgid;
}

/* Raise the event of one suspect and put its pid. */
static void gpumem_leak_emit(struct gpumem_leak_hit *hit, unsigned int ms)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_LEAK_SUSPECT,
		.minor = hit->minor,
		.region = hit->region,
		.usage = hit->usage,
		.growth = hit->growth,
		.window_ms = ms,
		.windows = hit->windows,
	};
	/* rate-limited per cgroup and device, like every event */
	struct gpumem_event_key key = {
		.minor = hit->minor, .type = GPUMEM_EVENT_TYPE_LEAK_SUSPECT,
	};

	ev.rate = gpumem_leak_rate(hit->growth, hit->windows, ms);
	ev.cgid = gpumem_leak_hit_cgid(hit);
	if (hit->pid) {
		ev.pid = pid_nr(hit->pid);
		strscpy(ev.comm, hit->comm, sizeof(ev.comm));
		put_pid(hit->pid);
		hit->pid = NULL;
	}
	if (!ev.pid)
		ev.comm[0] = '\0';
	key.cgid = ev.cgid;
	if (gpumem_event_ratelimit(&key, &ev.suppressed))
		gpumem_event_emit(&ev);
}

/* The buckets of table @table of a window end (0 past the last table). */
static unsigned int gpumem_leak_table_buckets(unsigned int table)
{
	if (table == 0)
		return gpumem_proc_usage_leak_buckets();
	if (table == 1)
		return gpumem_limits_leak_buckets();
	return 0;
}

/* Window ends of buckets [@first, @first + @nr) of table @table. */
static void gpumem_leak_slice(unsigned int table, unsigned int first,
			      unsigned int nr, struct gpumem_leak_hit *hits,
			      unsigned int ms)
{
	const struct gpumem_leak_params *decide = &gpumem_leak_pass.p;
	size_t max = hits ? GPUMEM_LEAK_BATCH : 0, n, i;

	/* without room to collect, suspects stay pending until a later window */
	do {
		if (table == 0)
			n = gpumem_proc_usage_leaks(decide, first, nr, hits, max);
		else
			n = gpumem_limits_leaks(decide, first, nr, hits, max);
		decide = NULL;
		for (i = 0; i < n; i++)
			gpumem_leak_emit(&hits[i], ms);
	} while (n && n == max);
}

/*
 * One run: the next GPUMEM_LEAK_RUN_BUCKETS buckets of the window end going
 * on (a new one starts when none is), then the next run at once, or, once
 * the window end is done, the next window end a window after it began.
 */
static void gpumem_leak_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(leak_window_ms);
	unsigned int left = GPUMEM_LEAK_RUN_BUCKETS, nb, nr;
	bool fresh = xchg(&gpumem_leak_fresh, false);
	struct gpumem_leak_hit *hits;
	unsigned long next;

	if (!ms)
		return;
	if (fresh || !gpumem_leak_pass.active) {
		gpumem_leak_pass.p.windows = READ_ONCE(leak_windows);
		gpumem_leak_pass.p.slack = READ_ONCE(leak_slack);
		gpumem_leak_pass.p.reset = fresh;
		gpumem_leak_pass.table = 0;
		gpumem_leak_pass.bkt = 0;
		gpumem_leak_pass.start = jiffies;
		gpumem_leak_pass.active = true;
		gpumem_leak_cur_runs = 0;
	}
	hits = kcalloc(GPUMEM_LEAK_BATCH, sizeof(*hits), GFP_KERNEL);
	for (;;) {
		nb = gpumem_leak_table_buckets(gpumem_leak_pass.table);
		if (gpumem_leak_pass.bkt >= nb && gpumem_leak_pass.table < 2) {
			gpumem_leak_pass.table++;
			gpumem_leak_pass.bkt = 0;
			continue;
		}
		if (!left || gpumem_leak_pass.table >= 2)
			break;
		nr = min3(left, (unsigned int)GPUMEM_LEAK_SLICE,
			  nb - gpumem_leak_pass.bkt);
		gpumem_leak_slice(gpumem_leak_pass.table, gpumem_leak_pass.bkt,
				  nr, hits, ms);
		gpumem_leak_pass.bkt += nr;
		left -= nr;
		cond_resched();
	}
	kfree(hits);
	WRITE_ONCE(gpumem_leak_runs, gpumem_leak_runs + 1);
	gpumem_leak_cur_runs++;
	if (gpumem_leak_pass.table < 2) {
		queue_delayed_work(system_wq, &gpumem_leak_work, 1);
		return;
	}
	gpumem_leak_pass.active = false;
	WRITE_ONCE(gpumem_leak_pass_runs, gpumem_leak_cur_runs);
	WRITE_ONCE(gpumem_leak_passes, gpumem_leak_passes + 1);
	next = gpumem_leak_pass.start + msecs_to_jiffies(ms);
	queue_delayed_work(system_wq, &gpumem_leak_work,
			   time_after(next, jiffies) ? next - jiffies : 0);
}

/**
 * gpumem_leak_stats() - how the leak worker did its window ends
 * @runs: runs of the work since load
 * @passes: window ends (passes over every counter) done since load
 * @pass_runs: runs the last window end done took
 * @buckets: hash buckets a window end goes through
 *
 * A run visits at most GPUMEM_LEAK_RUN_BUCKETS buckets, so a window end
 * takes DIV_ROUND_UP(@buckets, GPUMEM_LEAK_RUN_BUCKETS) runs.
 *
 * Return: GPUMEM_LEAK_RUN_BUCKETS.
 */
unsigned int gpumem_leak_stats(u64 *runs, u64 *passes, u64 *pass_runs,
			       u64 *buckets)
{
	*runs = READ_ONCE(gpumem_leak_runs);
	*passes = READ_ONCE(gpumem_leak_passes);
	*pass_runs = READ_ONCE(gpumem_leak_pass_runs);
	*buckets = gpumem_leak_table_buckets(0) + gpumem_leak_table_buckets(1);
	return GPUMEM_LEAK_RUN_BUCKETS;
}

/* Listing order: device, region, processes (by pid) before cgroups (by id). */
static int gpumem_leak_row_cmp(const void *a, const void *b)
{
	const struct gpumem_leak_row *x = a, *y = b;

	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (!x->pid != !y->pid)
		return x->pid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->cgid != y->cgid)
		return x->cgid < y->cgid ? -1 : 1;
	return 0;
}

/* Tries at copying every suspect while counters keep becoming suspects. */
#define GPUMEM_LEAK_LIST_TRIES	4

/*
 * Copy every suspect, processes' then cgroups'; *@hitsp is kvmalloc'ed and
 * each process hit holds a reference on its pid. Returns their number.
 */
static long gpumem_leak_gather(struct gpumem_leak_hit **hitsp)
{
	struct gpumem_leak_hit *hits = NULL;
	size_t cap = GPUMEM_LEAK_BATCH, np, nc, i;
	int tries;

	for (tries = 0; tries < GPUMEM_LEAK_LIST_TRIES; tries++) {
		hits = kvcalloc(cap, sizeof(*hits), GFP_KERNEL_ACCOUNT);
		if (!hits)
			return -ENOMEM;
		np = gpumem_proc_usage_suspects(hits, cap);
		nc = gpumem_limits_suspects(hits + min(np, cap),
					    cap - min(np, cap));
		if (np + nc <= cap) {
			*hitsp = hits;
			return np + nc;
		}
		for (i = 0; i < min(np, cap); i++)
			put_pid(hits[i].pid);
		kvfree(hits);
		cap = np + nc + GPUMEM_LEAK_BATCH;
	}
	return -EAGAIN;
}

/**
 * gpumem_leak_list_take() - list the leak suspects now
 * @max_bytes: the most the list may keep (0: no cap)
 *
 * A suspect is a process's usage, or a cgroup's own processes' usage, on one
 * device and region whose floor rose for leak_windows windows in a row and
 * has not fallen back to where the rise began. Nothing changes: no event is
 * raised or consumed. Pids and cgroup paths are the host's. Empty while
 * detection is off (leak_window_ms 0).
 *
 * The list is charged to the caller's memory cgroup and, with @max_bytes,
 * capped: a list kept for a reader (debugfs, leak-get) keeps at most
 * dump_max_bytes of rows and cgroup paths.
 *
 * Context: process context; may sleep.
 * Return: the list (gpumem_leak_list_free() it) or an ERR_PTR: -ENOMEM,
 *	-EAGAIN when counters kept becoming suspects faster than they could
 *	be copied, or -EMSGSIZE when it would keep more than @max_bytes.
 */
struct gpumem_leak_list *gpumem_leak_list_take(size_t max_bytes)
{
	struct gpumem_leak_hit *hits = NULL;
	struct gpumem_leak_list *list;
	u32 ms = READ_ONCE(leak_window_ms);
	char **paths = NULL;
	u64 *cgids = NULL;
	long n = 0, i;
	size_t bytes;

	if (ms) {
		n = gpumem_leak_gather(&hits);
		if (n < 0)
			return ERR_PTR(n);
	}
	if (max_bytes && struct_size(list, rows, n) > max_bytes) {
		for (i = 0; i < n; i++)
			put_pid(hits[i].pid);
		kvfree(hits);
		return ERR_PTR(-EMSGSIZE);
	}
	list = kvzalloc(struct_size(list, rows, n), GFP_KERNEL_ACCOUNT);
	if (n) {
		cgids = kvmalloc_array(n, sizeof(*cgids), GFP_KERNEL_ACCOUNT);
		paths = kvcalloc(n, sizeof(*paths), GFP_KERNEL_ACCOUNT);
	}
	if (!list || (n && (!cgids || !paths))) {
		for (i = 0; i < n; i++)
			put_pid(hits[i].pid);
		kvfree(hits);
		kvfree(list);
		kvfree(cgids);
		kvfree(paths);
		return ERR_PTR(-ENOMEM);
	}
	list->window_ms = ms;
	list->nr = n;
	for (i = 0; i < n; i++) {
		struct gpumem_leak_row *row = &list->rows[i];
		struct gpumem_leak_hit *hit = &hits[i];

		row->cgid = gpumem_leak_hit_cgid(hit);
		if (hit->pid) {
			row->pid = pid_nr(hit->pid);
			memcpy(row->comm, hit->comm, sizeof(row->comm));
			put_pid(hit->pid);
		}
		row->minor = hit->minor;
		row->region = hit->region;
		row->usage = hit->usage;
		row->growth = hit->growth;
		row->rate = gpumem_leak_rate(hit->growth, hit->windows, ms);
		row->windows = hit->windows;
		row->since_ms = hit->since_ms;
		cgids[i] = row->cgid;
	}
	/*
	 * The paths in one lookup (not one kworker round trip per row); a row
	 * without memory for its path, or whose cgroup is gone, has none.
	 */
	gpumem_cgroup_paths_ns(cgids, n, NULL, paths);
	bytes = struct_size(list, rows, n);
	for (i = 0; i < n; i++) {
		list->rows[i].cgroup = paths[i];	/* the list's now */
		if (paths[i])
			bytes += strlen(paths[i]) + 1;
	}
	kvfree(paths);
	kvfree(cgids);
	kvfree(hits);
	if (max_bytes && bytes > max_bytes) {
		gpumem_leak_list_free(list);
		return ERR_PTR(-EMSGSIZE);
	}
	sort(list->rows, n, sizeof(list->rows[0]), gpumem_leak_row_cmp, NULL);
	return list;
}

/**
 * gpumem_leak_list_free() - free a list from gpumem_leak_list_take()
 * @list: the list (may be NULL)
 */
void gpumem_leak_list_free(struct gpumem_leak_list *list)
{
	size_t i;

	if (!list)
		return;
	for (i = 0; i < list->nr; i++)
		kfree(list->rows[i].cgroup);
	kvfree(list);
}

/* Characters that would break the whitespace-separated columns. */
#define GPUMEM_LEAKS_ESC " \t\n\\"

/* The list is taken once, at open (seq_file may call show again). */
static int gpumem_leaks_show(struct seq_file *m, void *v)
{
	const struct gpumem_leak_list *list = m->private;
	size_t i;

	seq_puts(m, "device region pid comm cgroup_id cgroup usage growth rate windows since_ms\n");
	for (i = 0; i < list->nr; i++) {
		const struct gpumem_leak_row *row = &list->rows[i];

		seq_printf(m, "card%d %s ", row->minor,
			   gpumem_region_name(row->region));
		if (row->pid) {
			seq_printf(m, "%d ", row->pid);
			seq_escape(m, row->comm[0] ? row->comm : "?",
				   GPUMEM_LEAKS_ESC);
		} else {
			seq_puts(m, "- -");
		}
		seq_printf(m, " %llu ", row->cgid);
		if (row->cgroup)
			seq_escape(m, row->cgroup, GPUMEM_LEAKS_ESC);
		else
			seq_putc(m, '-');
		seq_printf(m, " %llu %llu %llu %u %u\n", row->usage,
			   row->growth, row->rate, row->windows,
			   row->since_ms);
	}
	return 0;
}

static int gpumem_leaks_open(struct inode *inode, struct file *file)
{
	struct gpumem_leak_list *list;
	int ret;

	/* kept until the file is closed: capped like a dump */
	list = gpumem_leak_list_take(gpumem_snapshot_max_bytes());
	if (IS_ERR(list))
		return PTR_ERR(list);
	ret = single_open(file, gpumem_leaks_show, list);
	if (ret)
		gpumem_leak_list_free(list);
	return ret;
}

static int gpumem_leaks_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	gpumem_leak_list_free(m->private);
	return single_release(inode, file);
}

/* /sys/kernel/debug/gpumem/leaks (created by debugfs.c) */
const struct file_operations gpumem_leaks_fops = {
	.owner = THIS_MODULE,
	.open = gpumem_leaks_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = gpumem_leaks_release,
};

/**
 * gpumem_leak_init() - start the windows (when leak_window_ms is not 0)
 *
 * Context: module init, once events can be sent.
 */
void gpumem_leak_init(void)
{
	mutex_lock(&gpumem_leak_mutex);
	gpumem_leak_running = true;
	gpumem_leak_schedule();
	mutex_unlock(&gpumem_leak_mutex);
}

/**
 * gpumem_leak_exit() - stop the windows
 *
 * Context: module exit, before the counters and the event sink go.
 */
void gpumem_leak_exit(void)
{
	mutex_lock(&gpumem_leak_mutex);
	gpumem_leak_running = false;
	mutex_unlock(&gpumem_leak_mutex);
	cancel_delayed_work_sync(&gpumem_leak_work);
}
