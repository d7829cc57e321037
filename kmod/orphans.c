// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem orphans: resident VRAM/GTT placements whose allocating process has
 * exited, per buffer group, and who keeps them alive now.
 *
 * The charge records (charge.c) say which placements belong to an exited
 * allocator, and which cgroup they stay charged to (until freed). When there
 * is any, one held-view walk (walk.c, with the fd-table holders) says which
 * live processes reach each such buffer through a handle; a buffer no handle
 * reaches is kept by a dma-buf (exported) or else by CPU mappings (or a
 * kernel reference). Records and walk rows are matched by buffer address,
 * compared only: the walk holds a reference on every buffer it lists.
 *
 * Placements are grouped by device, region, cgroup, allocator and holders:
 * one row each. The cost is one pass over the charge records and, only when
 * there are orphans, one walk.
 *
 * Orphaned events: when the charge sweep (or a report) first sees the owner
 * of resident placements gone, it kicks a work item, never under the
 * records' locks. The work claims the orphans not reported yet (each record
 * once: charge.c marks it reported under its lock, and a new placement of
 * the buffer inherits the mark), groups them per allocator, device and
 * region, and for the groups of at least orphan_event_bytes takes one
 * report of just those placements (one walk) for their holders; then one
 * orphaned event per group: pid, comm, cgroup, device, region, bytes,
 * buffers, holder pids and kinds. A group that could not be put together
 * (out of memory, a failed walk) still takes its event's number: a gap.
 * A death while orphan_event_bytes is 0 is never reported; turning the
 * events on starts the charge sweep again, so that owners alive then are
 * watched (the sweep stops when it has nothing left to look at).
 */
#include <linux/atomic.h>
#include <linux/bsearch.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include "../uapi/gpumem.h"
#include "cgroup_lookup.h"
#include "charge.h"
#include "classify.h"
#include "events.h"
#include "fault_inject.h"
#include "orphans.h"
#include "snapshot.h"

/* Holder pids reports left out since load (their bound). */
static atomic64_t gpumem_orphans_dropped = ATOMIC64_INIT(0);

/**
 * gpumem_orphans_truncated() - holder pids orphans reports left out
 *
 * A report lists at most GPUMEM_ORPHANS_MAX_PIDS holder pids; the rows
 * beyond that count theirs (&gpumem_orphan_row.nr_dropped) and say so.
 *
 * Return: the pids left out since load.
 */
u64 gpumem_orphans_truncated(void)
{
	return atomic64_read(&gpumem_orphans_dropped);
}

/* One orphaned placement, with its holders resolved. */
struct gpumem_orphan_item {
	const struct gpumem_orphan_rec *rec;
	const struct gpumem_buf_row *buf;	/* NULL: no handle found */
	u8 kinds;
};

static int gpumem_cmp_bufobj(const void *a, const void *b)
{
	const struct gpumem_buf_row *x = *(const struct gpumem_buf_row **)a;
	const struct gpumem_buf_row *y = *(const struct gpumem_buf_row **)b;

	if (x->obj == y->obj)
		return 0;
	return x->obj < y->obj ? -1 : 1;
}

/* The walk's row of buffer @obj, or NULL. */
static const struct gpumem_buf_row *
gpumem_find_buf(const struct gpumem_buf_row **index, size_t n,
		const void *obj)
{
	struct gpumem_buf_row key = { .obj = obj };
	const struct gpumem_buf_row *k = &key, **hit;

	hit = bsearch(&k, index, n, sizeof(*index), gpumem_cmp_bufobj);
	return hit ? *hit : NULL;
}

/*
 * Live holder pids of @it (pid 0, an in-kernel client, is a kind): their
 * number, the first @max of them copied to @out (NULL: none).
 */
static u32 gpumem_item_pids(const struct gpumem_snapshot *snap,
			    const struct gpumem_orphan_item *it, pid_t *out,
			    u32 max)
{
	u32 i, n = 0;

	if (!it->buf)
		return 0;
	if (!out)	/* pid 0 is a kind, not a holder */
		return it->buf->nr_holders - it->buf->kernel_holder;
	for (i = 0; i < it->buf->nr_holders && n < max; i++) {
		pid_t p = snap->holders[it->buf->first_holder + i];

		if (p)
			out[n++] = p;
	}
	return n;
}

/* The bytes a report keeps: rows, holder pids and cgroup paths. */
static size_t gpumem_orphans_bytes(const struct gpumem_orphans *o)
{
	return o->nr_rows * sizeof(*o->rows) + o->nr_pids * sizeof(*o->pids) +
	       o->str_bytes;
}

static int gpumem_cmp_u64(u64 a, u64 b)
{
	return a == b ? 0 : a < b ? -1 : 1;
}

/* Order of items in a report; 0 means "the same group". */
static int gpumem_cmp_item(const struct gpumem_snapshot *snap,
			   const struct gpumem_orphan_item *x,
			   const struct gpumem_orphan_item *y)
{
	const struct gpumem_orphan_rec *a = x->rec, *b = y->rec;
	u32 i, na, nb;
	int c;

	c = gpumem_cmp_u64(a->minor, b->minor);
	if (!c)
		c = gpumem_cmp_u64(a->region, b->region);
	if (!c)
		c = gpumem_cmp_u64(a->cgid, b->cgid);
	if (!c)
		c = gpumem_cmp_u64(a->tgid, b->tgid);
	if (!c)
		c = gpumem_cmp_u64(x->kinds, y->kinds);
	if (c)
		return c;
	na = x->buf ? x->buf->nr_holders : 0;
	nb = y->buf ? y->buf->nr_holders : 0;
	if (na != nb)
		return na < nb ? -1 : 1;
	/* buffers of one file share its list: O(1) for them */
	if (!na || x->buf->first_holder == y->buf->first_holder)
		return 0;
	for (i = 0; i < na; i++) {
		c = gpumem_cmp_u64(snap->holders[x->buf->first_holder + i],
				   snap->holders[y->buf->first_holder + i]);
		if (c)
			return c;
	}
	return 0;
}

static int gpumem_cmp_item_sort(const void *a, const void *b,
				const void *snap)
{
	return gpumem_cmp_item(snap, a, b);
}

/* Start a new row for item @it. */
static int gpumem_orphans_row(struct gpumem_orphans *o,
			      const struct gpumem_snapshot *snap,
			      const struct gpumem_orphan_item *it, char *path)
{
	const struct gpumem_orphan_rec *r = it->rec;
	struct gpumem_orphan_row *row;
	int dev = gpumem_snapshot_dev_index(snap, r->minor);
	u32 n = gpumem_item_pids(snap, it, NULL, 0), keep;
	size_t room = GPUMEM_ORPHANS_MAX_PIDS - o->nr_pids, used;
	const char *cgroup = NULL;
	char *copy = NULL;
	int ret;

	/*
	 * A path costs a round trip to cgroup_lookup's work: the previous
	 * row's is reused (rows of a device and region come by cgroup).
	 */
	if (o->nr_rows && o->rows[o->nr_rows - 1].cgid == r->cgid)
		cgroup = o->rows[o->nr_rows - 1].cgroup;
	else if (gpumem_cgroup_path(r->cgid, path, PATH_MAX))
		cgroup = path;
	/*
	 * The report's bounds: at most GPUMEM_ORPHANS_MAX_PIDS holder pids and
	 * @o->max_bytes in all; the rest of the holders counted, not listed.
	 * A row itself that does not fit: the report is too large.
	 */
	if (o->max_bytes) {
		used = gpumem_orphans_bytes(o) + sizeof(*o->rows) +
		       (cgroup ? strlen(cgroup) + 1 : 0);
		if (used > o->max_bytes)
			return -EMSGSIZE;
		room = min(room, (o->max_bytes - used) / sizeof(*o->pids));
	}
	keep = min_t(size_t, n, room);
	ret = gpumem_vec_reserve((void **)&o->rows, &o->cap_rows,
				 o->nr_rows + 1, sizeof(*o->rows));
	if (!ret)
		ret = gpumem_vec_reserve((void **)&o->pids, &o->cap_pids,
					 o->nr_pids + keep, sizeof(*o->pids));
	if (ret)
		return ret;
	/* a path that cannot be copied (out of memory) is left out */
	if (cgroup)
		copy = kstrdup(cgroup, GFP_KERNEL_ACCOUNT);
	if (copy)
		o->str_bytes += strlen(copy) + 1;
	row = &o->rows[o->nr_rows++];
	memset(row, 0, sizeof(*row));
	row->minor = r->minor;
	strscpy(row->dev, dev >= 0 ? snap->devs[dev].name : "?",
		sizeof(row->dev));
	row->region = r->region;
	row->cgid = r->cgid;
	row->cgroup = copy;
	row->tgid = r->tgid;
	memcpy(row->comm, r->comm, sizeof(row->comm));
	row->kinds = it->kinds;
	row->first_holder = o->nr_pids;
	gpumem_item_pids(snap, it, o->pids + o->nr_pids, keep);
	row->nr_holders = keep;
	row->nr_dropped = n - keep;
	o->nr_pids += keep;
	if (n > keep) {
		o->truncated += n - keep;
		atomic64_add(n - keep, &gpumem_orphans_dropped);
	}
	return 0;
}

static int gpumem_orphans_build(struct gpumem_orphans *o,
				const struct gpumem_orphan_rec *recs,
				size_t nr)
{
	const struct gpumem_buf_row **index = NULL;
	struct gpumem_orphan_item *items = NULL;
	struct gpumem_snapshot *snap;
	char *path = NULL;
	size_t i;
	int ret = -ENOMEM;

	snap = gpumem_snapshot_take(GPUMEM_SNAP_BUFFERS);
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	index = kvmalloc_array(snap->nr_bufs ? snap->nr_bufs : 1,
			       sizeof(*index), GFP_KERNEL_ACCOUNT);
	items = kvmalloc_array(nr, sizeof(*items), GFP_KERNEL_ACCOUNT);
	path = kmalloc(PATH_MAX, GFP_KERNEL_ACCOUNT);
	if (!index || !items || !path)
		goto out;
	for (i = 0; i < snap->nr_bufs; i++)
		index[i] = &snap->bufs[i];
	sort(index, snap->nr_bufs, sizeof(*index), gpumem_cmp_bufobj, NULL);

	for (i = 0; i < nr; i++) {
		const struct gpumem_buf_row *buf;

		buf = gpumem_find_buf(index, snap->nr_bufs, recs[i].obj);
		if (buf && snap->devs[buf->dev].minor != recs[i].minor)
			buf = NULL;
		items[i].rec = &recs[i];
		items[i].buf = buf;
		items[i].kinds = recs[i].dmabuf ? GPUMEM_ORPHAN_DMABUF : 0;
		if (buf && buf->kernel_holder)
			items[i].kinds |= GPUMEM_ORPHAN_KERNEL;
		if (!buf && recs[i].handles)
			items[i].kinds |= GPUMEM_ORPHAN_BUSY;
		else if (!buf && !recs[i].dmabuf)
			items[i].kinds |= GPUMEM_ORPHAN_MAPPING;
	}
	sort_r(items, nr, sizeof(*items), gpumem_cmp_item_sort, NULL, snap);

	ret = 0;
	for (i = 0; i < nr && !ret; i++) {
		struct gpumem_orphan_row *row;

		if (!i || gpumem_cmp_item(snap, &items[i - 1], &items[i]))
			ret = gpumem_orphans_row(o, snap, &items[i], path);
		if (ret)
			break;
		row = &o->rows[o->nr_rows - 1];
		row->bytes += items[i].rec->bytes;
		row->buffers++;
		row->since_ms = max(row->since_ms, items[i].rec->dead_ms);
	}
	/* what the report keeps: its rows and pids, no more */
	gpumem_vec_shrink((void **)&o->rows, &o->cap_rows, o->nr_rows,
			  sizeof(*o->rows));
	gpumem_vec_shrink((void **)&o->pids, &o->cap_pids, o->nr_pids,
			  sizeof(*o->pids));
out:
	kfree(path);
	kvfree(items);
	kvfree(index);
	gpumem_snapshot_free(snap);
	return ret;
}

/**
 * gpumem_orphans_take() - build an orphans report
 * @max_bytes: the most the report may keep (its rows, holder pids and
 *	cgroup paths; 0: no cap): a report kept for a reader (debugfs,
 *	orphan-get) is capped at dump_max_bytes
 *
 * Cost: one pass over the charge records, O(O log O) for the O orphaned
 * placements (sorted by buffer and by group; items reached through one
 * file compare their shared holder list in O(1)), and, only when there are
 * orphans, one walk (gpumem_snapshot_take_filtered(): linear); at most
 * GPUMEM_ORPHANS_MAX_PIDS holder pids, and only as many as fit in
 * @max_bytes, are listed, the rest counted: a row says how many of its
 * holders it left out (&gpumem_orphan_row.nr_dropped), the report in all
 * (&gpumem_orphans.truncated), the statistic orphans_truncated since load.
 * Everything is charged to the caller's memory cgroup.
 *
 * Context: process context, may sleep; takes the charge records' walk lock,
 *	then (only when there are orphans) walks like a held-view snapshot.
 * Return: the report (free with gpumem_orphans_free()) or an ERR_PTR:
 *	-ENOMEM, -EINTR, or -EMSGSIZE when even its rows, without holders,
 *	would keep more than @max_bytes.
 */
struct gpumem_orphans *gpumem_orphans_take(size_t max_bytes)
{
	struct gpumem_orphan_rec *recs = NULL;
	struct gpumem_orphans *o;
	size_t cap = 0, nr = 0;
	int ret;

	o = kzalloc(sizeof(*o), GFP_KERNEL_ACCOUNT);
	if (!o)
		return ERR_PTR(-ENOMEM);
	o->max_bytes = max_bytes;
	ret = gpumem_charge_orphans(&recs, &cap, &nr, false, 0);
	if (!ret && nr)
		ret = gpumem_orphans_build(o, recs, nr);
	kvfree(recs);
	if (ret) {
		gpumem_orphans_free(o);
		return ERR_PTR(ret);
	}
	return o;
}

/**
 * gpumem_orphans_free() - free an orphans report
 * @o: the report, or NULL
 */
void gpumem_orphans_free(struct gpumem_orphans *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->nr_rows; i++)
		kfree(o->rows[i].cgroup);
	kvfree(o->rows);
	kvfree(o->pids);
	kfree(o);
}

/**
 * gpumem_orphans_holders_str() - a row's holders as text
 * @o: the report
 * @row: one of its rows
 * @buf: where to write: pids, "+N" for the N holders that do not fit (or
 *	that the report left out), then "kernel", "dma-buf", "mapping",
 *	"busy", comma-separated; "-" for none
 * @len: size of @buf (at least 64)
 */
void gpumem_orphans_holders_str(const struct gpumem_orphans *o,
				const struct gpumem_orphan_row *row,
				char *buf, size_t len)
{
	static const char *const names[] = {
		"kernel", "dma-buf", "mapping", "busy",
	};
	/* room kept for ",+N" and the kinds */
	size_t n = 0, room = len > 48 ? len - 48 : 0;
	u32 i, more;

	buf[0] = '\0';
	for (i = 0; i < row->nr_holders; i++) {
		char pid[16];
		int k = scnprintf(pid, sizeof(pid), "%s%d", n ? "," : "",
				  o->pids[row->first_holder + i]);

		if (n + k >= room)
			break;
		memcpy(buf + n, pid, k + 1);
		n += k;
	}
	more = row->nr_holders - i + row->nr_dropped;
	if (more)	/* holders not shown: their number */
		n += scnprintf(buf + n, len - n, "%s+%u", n ? "," : "", more);
	for (i = 0; i < ARRAY_SIZE(names) && n < len; i++)
		if (row->kinds & BIT(i))
			n += scnprintf(buf + n, len - n, "%s%s", n ? "," : "",
				       names[i]);
	if (!n)
		strscpy(buf, "-", len);
}

/* Characters that would break the whitespace-separated columns. */
#define GPUMEM_ORPHANS_ESC " \t\n\\"

/*
 * The report is taken once, at open: seq_file calls show again with a
 * bigger buffer whenever the text does not fit, and a report costs a walk.
 */
static int gpumem_orphans_show(struct seq_file *m, void *v)
{
	const struct gpumem_orphans *o = m->private;
	char holders[128];
	size_t i;

	seq_puts(m, "device region bytes buffers cgroup_id cgroup pid comm since_ms holders\n");
	for (i = 0; i < o->nr_rows; i++) {
		const struct gpumem_orphan_row *row = &o->rows[i];

		seq_printf(m, "%s %s %llu %u %llu ", row->dev,
			   gpumem_region_name(row->region), row->bytes,
			   row->buffers, row->cgid);
		if (row->cgroup)
			seq_escape(m, row->cgroup, GPUMEM_ORPHANS_ESC);
		else
			seq_putc(m, '-');
		seq_printf(m, " %d ", row->tgid);
		seq_escape(m, row->comm[0] ? row->comm : "?",
			   GPUMEM_ORPHANS_ESC);
		gpumem_orphans_holders_str(o, row, holders, sizeof(holders));
		seq_printf(m, " %u %s\n", row->since_ms, holders);
	}
	return 0;
}

static int gpumem_orphans_open(struct inode *inode, struct file *file)
{
	struct gpumem_orphans *o;
	int ret;

	/* kept until the file is closed: capped like a dump */
	o = gpumem_orphans_take(gpumem_snapshot_max_bytes());
	if (IS_ERR(o))
		return PTR_ERR(o);
	ret = single_open(file, gpumem_orphans_show, o);
	if (ret)
		gpumem_orphans_free(o);
	return ret;
}

static int gpumem_orphans_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	gpumem_orphans_free(m->private);
	return single_release(inode, file);
}

/* /sys/kernel/debug/gpumem/orphans (created by debugfs.c) */
const struct file_operations gpumem_orphans_fops = {
	.owner = THIS_MODULE,
	.open = gpumem_orphans_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = gpumem_orphans_release,
};

/* -- orphaned events -- */

/* The largest orphan_event_bytes (but 0: off). */
#define GPUMEM_ORPHAN_EVENT_MAX		BIT_ULL(40)
/* Holder pids one orphaned event names at most (the lowest). */
#define GPUMEM_ORPHAN_EVENT_HOLDERS	128
/*
 * Orphans one run of the work claims at most: the rest (and those a claim
 * could not take, out of memory) a run this much later.
 */
#define GPUMEM_ORPHAN_EVENT_BATCH	4096
#define GPUMEM_ORPHAN_EVENT_RETRY	HZ

static unsigned long long orphan_event_bytes = SZ_1M;

static void gpumem_orphans_event_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpumem_orphans_event_work,
			    gpumem_orphans_event_fn);
static DEFINE_MUTEX(gpumem_orphans_event_mutex);	/* ..._running */
static bool gpumem_orphans_running;	/* between init and exit */

/*
 * Orphaned events were turned on: the charge sweep watches owners again
 * (once they are off it stops when nothing else is left to look at).
 */
static void gpumem_orphans_switched_on(void)
{
	mutex_lock(&gpumem_orphans_event_mutex);
	if (gpumem_orphans_running)
		gpumem_charge_sweep_kick();
	mutex_unlock(&gpumem_orphans_event_mutex);
}

static int gpumem_param_set_event_bytes(const char *val,
					const struct kernel_param *kp)
{
	unsigned long long bytes, old;
	int ret;

	ret = kstrtoull(val, 0, &bytes);
	if (ret)
		return ret;
	if (bytes > GPUMEM_ORPHAN_EVENT_MAX) {
		pr_warn("gpumem: orphan_event_bytes: %llu is neither 0 (off) nor 1..%llu\n",
			bytes, GPUMEM_ORPHAN_EVENT_MAX);
		return -EINVAL;
	}
	/* setters are serialized (kernel_param_lock) */
	old = READ_ONCE(*(unsigned long long *)kp->arg);
	WRITE_ONCE(*(unsigned long long *)kp->arg, bytes);
	if (!old && bytes)
		gpumem_orphans_switched_on();
	return 0;
}

static const struct kernel_param_ops gpumem_event_bytes_ops = {
	.set = gpumem_param_set_event_bytes,
	.get = param_get_ullong,
};

module_param_cb(orphan_event_bytes, &gpumem_event_bytes_ops,
		&orphan_event_bytes, 0644);
MODULE_PARM_DESC(orphan_event_bytes, "an orphaned event when an exited process leaves at least this many bytes on a device and region (0: off, 1..1099511627776, default 1048576)");

/* Are orphaned events on? True unless orphan_event_bytes is 0. */
static bool gpumem_orphans_events_on(void)
{
	return READ_ONCE(orphan_event_bytes) != 0;
}

/* Queue the work @delay from now, unless the module is going. */
static void gpumem_orphans_queue(unsigned long delay)
{
	mutex_lock(&gpumem_orphans_event_mutex);
	if (gpumem_orphans_running && gpumem_orphans_events_on())
		queue_delayed_work(system_wq, &gpumem_orphans_event_work,
				   delay);
	mutex_unlock(&gpumem_orphans_event_mutex);
}

/*
 * An owner of resident placements was seen gone: queue the orphaned events'
 * work (once, however often it is kicked before it runs). Process context,
 * never under a charge record's lock (struct gpumem_charge_watch.gone).
 */
static void gpumem_orphans_kick(void)
{
	gpumem_orphans_queue(0);
}

/* The charge records' watch: the events' switch and their kick. */
const struct gpumem_charge_watch gpumem_orphans_watch = {
	.on = gpumem_orphans_events_on,
	.gone = gpumem_orphans_kick,
};

/* One orphaned event: an allocator's placements on a device and region. */
struct gpumem_orphan_group {
	pid_t tgid;
	int minor;
	u8 region;
	u32 kinds;
	u32 buffers;
	u64 bytes;
	u64 cgid;
	size_t first_holder, nr_holders;
	char comm[TASK_COMM_LEN];
};

static int gpumem_cmp_owner(pid_t ta, int ma, u8 ra, pid_t tb, int mb, u8 rb)
{
	int c = gpumem_cmp_u64(ta, tb);

	if (!c)
		c = gpumem_cmp_u64(ma, mb);
	if (!c)
		c = gpumem_cmp_u64(ra, rb);
	return c;
}

static int gpumem_cmp_rec_owner(const void *a, const void *b)
{
	const struct gpumem_orphan_rec *x = a, *y = b;

	return gpumem_cmp_owner(x->tgid, x->minor, x->region,
				y->tgid, y->minor, y->region);
}

static int gpumem_cmp_group(const void *a, const void *b)
{
	const struct gpumem_orphan_group *x = a, *y = b;

	return gpumem_cmp_owner(x->tgid, x->minor, x->region,
				y->tgid, y->minor, y->region);
}

/* A holder pid of a group (an index in the groups). */
struct gpumem_orphan_holder {
	size_t group;
	pid_t pid;
};

static int gpumem_cmp_holder(const void *a, const void *b)
{
	const struct gpumem_orphan_holder *x = a, *y = b;
	int c = gpumem_cmp_u64(x->group, y->group);

	return c ? c : gpumem_cmp_u64(x->pid, y->pid);
}

/**
 * gpumem_orphans_group() - group claimed orphans into orphaned events
 * @recs: the records; sorted here, and those of the groups returned moved
 *	to the front
 * @nr: number of @recs
 * @min_bytes: the smallest group kept
 * @groups: room for @nr groups, filled in (no holders yet)
 * @nr_recs: returns the number of records of the groups kept
 *
 * Return: the number of groups (per allocator, device and region) with at
 *	least @min_bytes, in that order.
 */
static size_t gpumem_orphans_group(struct gpumem_orphan_rec *recs, size_t nr,
				   u64 min_bytes,
				   struct gpumem_orphan_group *groups,
				   size_t *nr_recs)
{
	size_t i, j, ng = 0, nq = 0;

	sort(recs, nr, sizeof(*recs), gpumem_cmp_rec_owner, NULL);
	for (i = 0; i < nr; i = j) {
		struct gpumem_orphan_group *g = &groups[ng];

		memset(g, 0, sizeof(*g));
		g->tgid = recs[i].tgid;
		g->minor = recs[i].minor;
		g->region = recs[i].region;
		g->cgid = recs[i].cgid;
		memcpy(g->comm, recs[i].comm, sizeof(g->comm));
		for (j = i; j < nr && !gpumem_cmp_rec_owner(&recs[i], &recs[j]);
		     j++) {
			g->bytes += recs[j].bytes;
			g->buffers++;
		}
		if (g->bytes < min_bytes)
			continue;
		memmove(&recs[nq], &recs[i], (j - i) * sizeof(*recs));
		nq += j - i;
		ng++;
	}
	*nr_recs = nq;
	return ng;
}

/*
 * The holders and kinds of @groups from report @o (of their records only):
 * each group's holder pids, sorted and once each, in *@pidsp (kvfree() it).
 */
static int gpumem_orphans_holders(const struct gpumem_orphans *o,
				  struct gpumem_orphan_group *groups,
				  size_t ng, pid_t **pidsp)
{
	struct gpumem_orphan_holder *h;
	size_t i, k, nh = 0, np = 0;
	pid_t *pids;

	h = kvmalloc_array(o->nr_pids ? o->nr_pids : 1, sizeof(*h),
			   GFP_KERNEL);
	pids = kvmalloc_array(o->nr_pids ? o->nr_pids : 1, sizeof(*pids),
			      GFP_KERNEL);
	if (!h || !pids) {
		kvfree(h);
		kvfree(pids);
		return -ENOMEM;
	}
	for (i = 0; i < o->nr_rows; i++) {
		const struct gpumem_orphan_row *row = &o->rows[i];
		struct gpumem_orphan_group key = {
			.tgid = row->tgid, .minor = row->minor,
			.region = row->region,
		}, *g;

		g = bsearch(&key, groups, ng, sizeof(*groups),
			    gpumem_cmp_group);
		if (WARN_ON_ONCE(!g))
			continue;
		g->kinds |= row->kinds;
		for (k = 0; k < row->nr_holders; k++) {
			h[nh].group = g - groups;
			h[nh++].pid = o->pids[row->first_holder + k];
		}
	}
	sort(h, nh, sizeof(*h), gpumem_cmp_holder, NULL);
	for (i = 0; i < nh; i++) {
		struct gpumem_orphan_group *g = &groups[h[i].group];

		if (i && !gpumem_cmp_holder(&h[i - 1], &h[i]))
			continue;
		if (!g->nr_holders)
			g->first_holder = np;
		g->nr_holders++;
		pids[np++] = h[i].pid;
	}
	kvfree(h);
	*pidsp = pids;
	return 0;
}

/* Raise the orphaned event of @g (@pids: the holders, NULL: lost). */
static void gpumem_orphans_emit(const struct gpumem_orphan_group *g,
				const pid_t *pids)
{
	struct gpumem_quota_event ev = {
		.type = GPUMEM_EVENT_TYPE_ORPHANED,
		.cgid = g->cgid,
		.pid = g->tgid,
		.minor = g->minor,
		.region = g->region,
		.usage = g->bytes,
		.buffers = g->buffers,
		.kinds = g->kinds,
		.lost = !pids,
	};
	/* rate-limited per cgroup and device, like every event */
	struct gpumem_event_key key = {
		.cgid = g->cgid, .minor = g->minor,
		.type = GPUMEM_EVENT_TYPE_ORPHANED,
	};

	memcpy(ev.comm, g->comm, sizeof(ev.comm));
	if (pids) {
		ev.holders = pids + g->first_holder;
		ev.nr_holders = min_t(size_t, g->nr_holders,
				      GPUMEM_ORPHAN_EVENT_HOLDERS);
	}
	if (gpumem_event_ratelimit(&key, &ev.suppressed))
		gpumem_event_emit(&ev);
}

static void gpumem_orphans_event_fn(struct work_struct *work)
{
	u64 min_bytes = READ_ONCE(orphan_event_bytes);
	struct gpumem_orphan_group *groups = NULL;
	struct gpumem_orphan_rec *recs = NULL;
	struct gpumem_orphans *o = NULL;
	size_t cap = 0, nr = 0, nq, ng, i;
	pid_t *pids = NULL;
	int ret;

	ret = gpumem_fail_orphans_claim() ? -ENOMEM :
	      gpumem_charge_orphans(&recs, &cap, &nr, true,
				    GPUMEM_ORPHAN_EVENT_BATCH);
	if (ret)	/* those not claimed: later */
		gpumem_orphans_queue(GPUMEM_ORPHAN_EVENT_RETRY);
	if (!nr || !min_bytes)
		goto out;
	groups = kvmalloc_array(nr, sizeof(*groups), GFP_KERNEL);
	if (!groups) {
		/* not even the groups: one number taken for them all */
		struct gpumem_orphan_group g = {
			.tgid = recs[0].tgid, .minor = recs[0].minor,
			.region = recs[0].region, .cgid = recs[0].cgid,
		};

		gpumem_orphans_emit(&g, NULL);
		goto out;
	}
	ng = gpumem_orphans_group(recs, nr, min_bytes, groups, &nq);
	if (!ng)
		goto out;	/* nothing big enough: no walk */
	o = kzalloc(sizeof(*o), GFP_KERNEL);	/* no cap: the events' own */
	if (!o || gpumem_fail_orphans_report() ||
	    gpumem_orphans_build(o, recs, nq) ||
	    gpumem_orphans_holders(o, groups, ng, &pids))
		pids = NULL;	/* each event lost: a gap */
	for (i = 0; i < ng; i++)
		gpumem_orphans_emit(&groups[i], pids);
out:
	kvfree(pids);
	gpumem_orphans_free(o);
	kvfree(groups);
	kvfree(recs);
}

/**
 * gpumem_orphans_init() - start the orphaned events
 *
 * Context: module init, once events can be sent.
 */
void gpumem_orphans_init(void)
{
	mutex_lock(&gpumem_orphans_event_mutex);
	gpumem_orphans_running = true;
	mutex_unlock(&gpumem_orphans_event_mutex);
}

/**
 * gpumem_orphans_exit() - stop the orphaned events (a pending work is
 *	cancelled, a running one waited for)
 *
 * Context: module exit, before the charge records, the walker and the event
 *	sink go.
 */
void gpumem_orphans_exit(void)
{
	mutex_lock(&gpumem_orphans_event_mutex);
	gpumem_orphans_running = false;
	mutex_unlock(&gpumem_orphans_event_mutex);
	cancel_delayed_work_sync(&gpumem_orphans_event_work);
}
