// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem debugfs: /sys/kernel/debug/gpumem/{devices,processes,charged,
 * fragmentation,buffers,stats,quotas,orphans,leaks}.
 *
 * A thin face over the snapshot: open() takes one snapshot, reads print it
 * row by row through seq_file, release() frees it. Files are 0444 so they
 * work under lockdown. The format is documented in docs/debugfs.md.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/cgroup.h>
#include <linux/mm.h>
#include "budget.h"
#include "cgroup_lookup.h"
#include "classify.h"
#include "dmem.h"
#include "fault_inject.h"
#include "charge.h"
#include "hook_stats.h"
#include "limits.h"
#include "debugfs.h"
#include "events.h"
#include "leak.h"
#include "orphans.h"
#include "snapshot.h"

/* Characters that would break the whitespace-separated columns. */
#define GPUMEM_ESC " \t\n\\"

/**
 * struct gpumem_table - one debugfs file printing a snapshot
 * @name: file name
 * @header: the header line (without newline)
 * @snap_flags: GPUMEM_SNAP_* the snapshot needs
 * @nr_rows: number of rows in a snapshot
 * @max_row_bytes: optional, the longest row a snapshot prints (a bound);
 *	rows longer than a page size the seq_file buffer at open (see
 *	gpumem_table_size_buf())
 * @show: print one row
 */
struct gpumem_table {
	const char *name;
	const char *header;
	unsigned int snap_flags;
	size_t (*nr_rows)(const struct gpumem_snapshot *snap);
	size_t (*max_row_bytes)(const struct gpumem_snapshot *snap);
	void (*show)(struct seq_file *m, struct gpumem_snapshot *snap,
		     size_t row);
};

/* devices: one row per device and region with a manager, or one "system". */
static unsigned int gpumem_dev_nr_lines(const struct gpumem_dev_row *dev)
{
	return dev->regions ? hweight32(dev->regions) : 1;
}

static size_t gpumem_devices_rows(const struct gpumem_snapshot *snap)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < snap->nr_devs; i++)
		n += gpumem_dev_nr_lines(&snap->devs[i]);
	return n;
}

static void gpumem_devices_show(struct seq_file *m,
				struct gpumem_snapshot *snap, size_t row)
{
	const struct gpumem_dev_row *dev = NULL;
	unsigned int i, lines;
	int region = -1;

	for (i = 0; i < snap->nr_devs; i++) {
		lines = gpumem_dev_nr_lines(&snap->devs[i]);
		if (row < lines) {
			dev = &snap->devs[i];
			break;
		}
		row -= lines;
	}
	if (!dev)
		return;
	if (dev->regions) {
		for (region = 0; region < GPUMEM_REGION_COUNT; region++)
			if ((dev->regions & BIT(region)) && !row--)
				break;
	}
	seq_printf(m, "%s %s ", dev->name, dev->driver);
	seq_escape(m, dev->unique, GPUMEM_ESC);
	seq_printf(m, " %s ", dev->ttm ? "yes" : "no");
	if (region < 0 || region >= GPUMEM_REGION_COUNT) {
		seq_puts(m, "system - - -\n");
		return;
	}
	seq_printf(m, "%s ", gpumem_region_name(region));
	if (dev->cap_known & BIT(region))
		seq_printf(m, "%llu %llu %llu\n", dev->capacity[region],
			   dev->used[region],
			   dev->capacity[region] > dev->used[region] ?
			   dev->capacity[region] - dev->used[region] : 0);
	else
		seq_printf(m, "- %llu -\n", dev->used[region]);
}

static size_t gpumem_processes_rows(const struct gpumem_snapshot *snap)
{
	return snap->nr_procs;
}

/* The columns both process views start with: pid comm cgroup_id cgroup device */
static void gpumem_proc_identity_show(struct seq_file *m,
				      struct gpumem_snapshot *snap,
				      const struct gpumem_proc_row *proc)
{
	const struct gpumem_task_row *task = proc->task;

	seq_printf(m, "%d ", proc->tgid);
	seq_escape(m, task ? task->comm : "?", GPUMEM_ESC);
	seq_printf(m, " %llu ", task ? task->cgroup_id : 0);
	if (task && task->cgroup)
		seq_escape(m, task->cgroup, GPUMEM_ESC);
	else
		seq_putc(m, '-');
	seq_printf(m, " %s", snap->devs[proc->dev].name);
}

static void gpumem_processes_show(struct seq_file *m,
				  struct gpumem_snapshot *snap, size_t row)
{
	const struct gpumem_proc_row *proc = snap->procs[row];

	gpumem_proc_identity_show(m, snap, proc);
	seq_printf(m, " %llu %llu %llu %llu %llu %llu %u\n",
		   proc->bytes[GPUMEM_REGION_VRAM],
		   proc->bytes[GPUMEM_REGION_GTT],
		   proc->bytes[GPUMEM_REGION_SYSTEM],
		   proc->bytes[GPUMEM_REGION_OTHER],
		   proc->shared, proc->owned, proc->bos);
}

/* The charged view: the same identity columns, the counted regions only. */
static void gpumem_charged_show(struct seq_file *m,
				struct gpumem_snapshot *snap, size_t row)
{
	const struct gpumem_proc_row *proc = snap->procs[row];

	gpumem_proc_identity_show(m, snap, proc);
	seq_printf(m, " %llu %llu %u\n", proc->bytes[GPUMEM_REGION_VRAM],
		   proc->bytes[GPUMEM_REGION_GTT], proc->bos);
}

static size_t gpumem_buffers_rows(const struct gpumem_snapshot *snap)
{
	return snap->nr_bufs;
}

/*
 * The longest buffers row: its fixed columns (device name, pids, handle,
 * size, region, type: under 128 characters) and a holder list of at most
 * 11 characters a pid ("," and up to 10 digits). O(buffers).
 */
static size_t gpumem_buffers_max_row_bytes(const struct gpumem_snapshot *snap)
{
	u32 most = 0;
	size_t i;

	for (i = 0; i < snap->nr_bufs; i++)
		most = max(most, snap->bufs[i].nr_holders);
	return 128 + 11 * (size_t)most;
}

static void gpumem_buffers_show(struct seq_file *m,
				struct gpumem_snapshot *snap, size_t row)
{
	const struct gpumem_buf_row *buf = &snap->bufs[row];
	u32 i;

	seq_printf(m, "%s %d %u %llu %s ", snap->devs[buf->dev].name,
		   buf->owner, buf->handle, buf->size,
		   gpumem_region_name(buf->region));
	if (buf->mem_type < 0)
		seq_putc(m, '-');
	else
		seq_printf(m, "%d", buf->mem_type);
	seq_printf(m, " %s ", buf->shared ? "yes" : "no");
	for (i = 0; i < buf->nr_holders; i++)
		seq_printf(m, "%s%d", i ? "," : "",
			   snap->holders[buf->first_holder + i]);
	seq_putc(m, '\n');
}

/* fragmentation: one row per device and counted region */
static size_t gpumem_frag_rows(const struct gpumem_snapshot *snap)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < snap->nr_devs; i++)
		n += hweight32(snap->devs[i].regions);
	return n;
}

static void gpumem_frag_show(struct seq_file *m,
			     struct gpumem_snapshot *snap, size_t row)
{
	const struct gpumem_dev_row *dev;
	const struct gpumem_frag *f;
	unsigned int i, region;
	u32 ppm;

	for (i = 0; i < snap->nr_devs; i++) {
		dev = &snap->devs[i];
		for (region = 0; region < GPUMEM_REGION_COUNT; region++) {
			if (!(dev->regions & BIT(region)) || row--)
				continue;
			f = &dev->frag[region];
			seq_printf(m, "%s %s ", dev->name,
				   gpumem_region_name(region));
			if (!f->known) {
				seq_printf(m, "- - - - %u\n", dev->frag_age_ms);
				return;
			}
			ppm = gpumem_frag_ratio_ppm(f);
			seq_printf(m, "%llu %llu %llu %u.%06u %u\n", f->free,
				   f->largest, f->blocks, ppm / 1000000,
				   ppm % 1000000, dev->frag_age_ms);
			return;
		}
	}
}

static const struct gpumem_table gpumem_tables[] = {
	{
		.name = "devices",
		.header = "device driver unique ttm region capacity used free",
		.snap_flags = GPUMEM_SNAP_DEVICES,
		.nr_rows = gpumem_devices_rows,
		.show = gpumem_devices_show,
	},
	{
		.name = "processes",
		.header = "pid comm cgroup_id cgroup device vram gtt system other shared owned bos",
		.nr_rows = gpumem_processes_rows,
		.show = gpumem_processes_show,
	},
	{
		.name = "charged",
		.header = "pid comm cgroup_id cgroup device vram gtt bos",
		.snap_flags = GPUMEM_SNAP_CHARGED,
		.nr_rows = gpumem_processes_rows,
		.show = gpumem_charged_show,
	},
	{
		.name = "fragmentation",
		.header = "device region free largest blocks ratio age_ms",
		.snap_flags = GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_FRAG,
		.nr_rows = gpumem_frag_rows,
		.show = gpumem_frag_show,
	},
	{
		.name = "buffers",
		.header = "device owner handle size region mem_type shared holders",
		.snap_flags = GPUMEM_SNAP_BUFFERS,
		.nr_rows = gpumem_buffers_rows,
		.max_row_bytes = gpumem_buffers_max_row_bytes,
		.show = gpumem_buffers_show,
	},
};

/* Per open file: which table, and the snapshot it prints. */
struct gpumem_seq {
	const struct gpumem_table *table;
	struct gpumem_snapshot *snap;
};

/* Position 0 is the header, position n + 1 is row n. */
static void *gpumem_seq_start(struct seq_file *m, loff_t *pos)
{
	struct gpumem_seq *s = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	return *pos - 1 < s->table->nr_rows(s->snap) ? pos : NULL;
}

static void *gpumem_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return gpumem_seq_start(m, pos);
}

static void gpumem_seq_stop(struct seq_file *m, void *v)
{
}

static int gpumem_seq_show(struct seq_file *m, void *v)
{
	struct gpumem_seq *s = m->private;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, s->table->header);
		seq_putc(m, '\n');
	} else {
		s->table->show(m, s->snap, *(loff_t *)v - 1);
	}
	return 0;
}

static const struct seq_operations gpumem_seq_ops = {
	.start = gpumem_seq_start,
	.next = gpumem_seq_next,
	.stop = gpumem_seq_stop,
	.show = gpumem_seq_show,
};

/*
 * seq_file starts with a page and, when a row does not fit in what is left
 * of its buffer, prints that row again on the next read (and again into a
 * buffer twice the size when it does not fit a whole one): a buffers row
 * lists every holder, so with rows of a few pages most of them would be
 * printed twice or more, more so the more holders (a cost that grows
 * faster than the output). A buffer of 4 longest rows (at least a page,
 * at most the snapshot cap, charged to the reader) prints each row at most
 * once more every 4 rows.
 */
static void gpumem_table_size_buf(struct seq_file *m,
				  const struct gpumem_table *table,
				  const struct gpumem_snapshot *snap)
{
	size_t size;
	char *buf;

	if (!table->max_row_bytes)
		return;
	size = min(4 * table->max_row_bytes(snap),
		   max_t(size_t, gpumem_snapshot_max_bytes(), PAGE_SIZE));
	if (size <= PAGE_SIZE)
		return;
	/* seq_read() allocates a page if this fails; seq_release() frees it */
	buf = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return;
	m->buf = buf;
	m->size = size;
}

static int gpumem_table_open(struct inode *inode, struct file *file)
{
	const struct gpumem_table *table = inode->i_private;
	struct gpumem_snapshot *snap;
	struct gpumem_seq *s;

	/* kept until the file is closed: capped like a dump */
	snap = gpumem_snapshot_take_filtered(table->snap_flags, NULL,
					     gpumem_snapshot_max_bytes());
	if (IS_ERR(snap))
		return PTR_ERR(snap);
	s = __seq_open_private(file, &gpumem_seq_ops, sizeof(*s));
	if (!s) {
		gpumem_snapshot_free(snap);
		return -ENOMEM;
	}
	s->table = table;
	s->snap = snap;
	gpumem_table_size_buf(file->private_data, table, snap);
	return 0;
}

static int gpumem_table_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct gpumem_seq *s = m->private;

	gpumem_snapshot_free(s->snap);
	return seq_release_private(inode, file);
}

static const struct file_operations gpumem_table_fops = {
	.owner = THIS_MODULE,
	.open = gpumem_table_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = gpumem_table_release,
};

/* "unattributed_card0_vram BYTES": a device's placements charged to nobody */
static void gpumem_stats_unattributed(int minor, u8 region, u64 bytes,
				      void *arg)
{
	seq_printf(arg, "unattributed_card%d_%s %llu\n", minor,
		   gpumem_region_name(region), bytes);
}

static int gpumem_stats_show(struct seq_file *m, void *v)
{
	struct gpumem_hook_stats hs;
	u64 runs, passes, pass_runs, buckets;
	struct gpumem_snapshot_stats st;
	unsigned int i, run_buckets;

	gpumem_snapshot_stats(&st);
	seq_puts(m, "name value\n");
	seq_printf(m, "walks %llu\n", st.walks);
	seq_printf(m, "walks_failed %llu\n", st.failed);
	seq_printf(m, "last_walk_ns %llu\n", st.last_ns);
	seq_printf(m, "last_walk_clients %llu\n", st.last_clients);
	seq_printf(m, "last_walk_bos %llu\n", st.last_bos);
	seq_printf(m, "last_walk_skipped %llu\n", st.last_skipped);
	seq_printf(m, "last_walk_collect_ns %llu\n", st.last_collect_ns);
	seq_printf(m, "last_walk_account_ns %llu\n", st.last_account_ns);
	seq_printf(m, "last_walk_release_ns %llu\n", st.last_release_ns);
	seq_printf(m, "last_walk_work %llu\n", st.last_work);
	seq_printf(m, "walks_busy %llu\n", gpumem_budget_refused());
	seq_printf(m, "orphans_truncated %llu\n", gpumem_orphans_truncated());
	seq_printf(m, "devices %llu\n", st.devices);
	run_buckets = gpumem_leak_stats(&runs, &passes, &pass_runs, &buckets);
	seq_printf(m, "leak_runs %llu\n", runs);
	seq_printf(m, "leak_passes %llu\n", passes);
	seq_printf(m, "leak_pass_runs %llu\n", pass_runs);
	seq_printf(m, "leak_buckets %llu\n", buckets);
	seq_printf(m, "leak_run_buckets %u\n", run_buckets);
	gpumem_events_flush();	/* sent + lost: every number taken so far */
	gpumem_hook_stats_read(&hs);
	for (i = 0; i < GPUMEM_HOOK_NR_STATS; i++)
		seq_printf(m, "hook_%s %llu\n", gpumem_hook_stat_name(i),
			   hs.count[i]);
	seq_printf(m, "hook_live_records %llu\n", gpumem_charge_records());
	seq_printf(m, "dmem_unwatched %llu\n", gpumem_dmem_unwatched());
	seq_printf(m, "unattributed_records %llu\n",
		   gpumem_charge_unattributed_records());
	gpumem_charge_unattributed(gpumem_stats_unattributed, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gpumem_stats);

static void gpumem_show_limit(struct seq_file *m, u64 v)
{
	if (v == GPUMEM_NO_LIMIT)
		seq_puts(m, " -");
	else
		seq_printf(m, " %llu", v);
}

/* quotas: every limit set, with the usage it applies to. */
static int gpumem_quotas_show(struct seq_file *m, void *v)
{
	struct gpumem_limit_row *rows;
	size_t nrows, i;
	char *path;
	int ret;

	ret = gpumem_limits_rows(&rows, &nrows, true);
	if (ret)
		return ret;
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path) {
		kvfree(rows);
		return -ENOMEM;
	}
	seq_puts(m, "cgroup_id cgroup device region max high mode usage denied\n");
	for (i = 0; i < nrows; i++) {
		const struct gpumem_limit_row *r = &rows[i];

		seq_printf(m, "%llu ", r->cgid);
		if (gpumem_cgroup_path(r->cgid, path, PATH_MAX))
			seq_escape(m, path, GPUMEM_ESC);
		else
			seq_putc(m, '-');
		if (r->minor == GPUMEM_ALL_DEVICES)
			seq_puts(m, " all");
		else
			seq_printf(m, " card%d", r->minor);
		seq_printf(m, " %s", gpumem_region_name(r->region));
		gpumem_show_limit(m, r->max);
		gpumem_show_limit(m, r->high);
		seq_printf(m, " %s %llu %llu\n",
			   r->mode == GPUMEM_LIMIT_MODE_MONITOR ? "monitor" : "enforce",
			   r->usage, r->denied);
	}
	kfree(path);
	kvfree(rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(gpumem_quotas);

static struct dentry *gpumem_debugfs_dir;

/**
 * gpumem_debugfs_init() - create /sys/kernel/debug/gpumem
 *
 * debugfs failures are not fatal (debugfs may be absent); nothing to check.
 */
void gpumem_debugfs_init(void)
{
	size_t i;

	gpumem_debugfs_dir = debugfs_create_dir("gpumem", NULL);
	for (i = 0; i < ARRAY_SIZE(gpumem_tables); i++)
		debugfs_create_file(gpumem_tables[i].name, 0444,
				    gpumem_debugfs_dir,
				    (void *)&gpumem_tables[i],
				    &gpumem_table_fops);
	debugfs_create_file("stats", 0444, gpumem_debugfs_dir, NULL,
			    &gpumem_stats_fops);
	debugfs_create_file("quotas", 0444, gpumem_debugfs_dir, NULL,
			    &gpumem_quotas_fops);
	debugfs_create_file("orphans", 0444, gpumem_debugfs_dir, NULL,
			    &gpumem_orphans_fops);
	debugfs_create_file("leaks", 0444, gpumem_debugfs_dir, NULL,
			    &gpumem_leaks_fops);
	gpumem_fault_debugfs_init(gpumem_debugfs_dir);
}

/**
 * gpumem_debugfs_exit() - remove /sys/kernel/debug/gpumem
 */
void gpumem_debugfs_exit(void)
{
	debugfs_remove_recursive(gpumem_debugfs_dir);
}
