// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem walker.
 *
 * Locking, outermost first; no lock is held across a whole walk:
 *   gpumem_registry_lock      the list of devices: held only to find the
 *                             next device (by minor) and read-lock it
 *   gpumem_device.walk_sem    (read) the device stays registered and its
 *                             driver bound while the walker uses it; held
 *                             for one device at a time
 *   drm_device.filelist_mutex the device's list of clients; drm_file.pid;
 *                             held for one device's files, rescheduling
 *                             between files
 *   drm_file.table_lock       (spinlock) the file's object_idr; we take a GEM
 *                             reference on every object before dropping it;
 *                             held for at most GPUMEM_HANDLE_CHUNK handles
 *   dma_resv (trylock)        a TTM BO's placement (bo->resource); taken
 *                             only by trylock: under table_lock, then
 *                             again a few times with nothing but the
 *                             device's walk_sem held. A reservation still
 *                             busy then (a driver moving or validating the
 *                             buffer) is never waited for: the buffer is
 *                             counted as skipped, so no reader can stall
 *                             DRM behind a long-held reservation.
 * Object references are put only after every lock but walk_sem is dropped.
 * Files closed, objects freed and processes exiting meanwhile are normal:
 * we see each object as it was when we held its reference.
 *
 * Holders. Before the devices are walked, one pass under each device's
 * filelist_mutex notes every client's struct file (drm_file.filp), sorted
 * by address; then one scan of every task's fd table notes, for each fd
 * whose file pointer is one of them, the process (a struct pid reference).
 * Tasks are visited by pid number (find_ge_pid(), as /proc's readdir), each
 * under its own RCU read section and task_lock (kernel threads skipped); a
 * table shared by several threads or processes is scanned once (a thread
 * sharing its leader's is skipped, other shared tables seen are kept by
 * address),
 * GPUMEM_FD_CHUNK open fds (and the empty slots between them: iterate_fd()
 * visits every slot) per hold of its file_lock, rescheduling between
 * chunks and tasks. File pointers are only compared, never dereferenced.
 * The scan is O(tasks * log(pids) + fd slots * log(files)), once per walk.
 * Each holding process is then resolved once (alive? tgid, task row), and
 * each file's holders are one sorted run: a file costs O(its holders), its
 * handles are collected once whatever the number of its holders, and the
 * accounting (account.c) charges them once per file.
 * A file keeps its struct file address for as long as it is on its device's
 * list; a file that was closed and another opened at the same address
 * between the pass and the walk is told apart by its drm_file as well. A
 * task or table created while the scan runs may be missed, as a process
 * forked just after a walk is.
 *
 * Cost of a held walk: O(devices + tasks * log(pids) + fd slots * log(files)
 * + files + handles + holders), where holders counts (file, process) pairs;
 * plus the accounting's (account.c). No lock is held for more than one
 * device's files and handles (filelist_mutex) or one chunk (spinlocks).
 */
#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/dma-resv.h>
#include <linux/fdtable.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include "dmem.h"
#include "compat.h"
#include "classify.h"
#include "discover.h"
#include "fault_inject.h"
#include "account.h"
#include "rows.h"
#include "walk.h"

/* fds of one table visited per hold of its file_lock */
#define GPUMEM_FD_CHUNK		256
/* handles of one file collected per hold of its table_lock */
#define GPUMEM_HANDLE_CHUNK	256

/*
 * Protects the work space walks keep for the next one (taken by one walk at
 * a time: a walk running beside it allocates its own).
 * What is kept is bounded: an entry array of more than
 * GPUMEM_ENTS_CACHE_MAX entries, or an object hash of more than
 * 1 << GPUMEM_ACCT_CACHE_BITS buckets, is freed after its walk (what a
 * walk of a large node needed is not kept for the small ones after it).
 */
#define GPUMEM_ENTS_CACHE_MAX	4096
#define GPUMEM_ACCT_CACHE_BITS	13
static DEFINE_SPINLOCK(gpumem_walk_lock);
static struct gpumem_walk_ent *gpumem_ents_cache;
static size_t gpumem_ents_cache_cap;
static struct gpumem_account_scratch gpumem_account_cache;

/* A client's file as the holder pass saw it. */
struct gpumem_walk_file {
	const struct file *filp;
	const struct drm_file *dfile;
};

/* One process holding one of those files in its fd table. */
struct gpumem_walk_holder {
	u32 file;		/* index into gpumem_walk.files */
	pid_t tgid;		/* once resolved; -1: gone */
	struct pid *pid;	/* the process (thread group), referenced */
};

/* Scratch state of one walk. */
struct gpumem_walk {
	struct gpumem_snapshot *snap;
	struct gpumem_walk_ent *ents;
	size_t nr_ents, cap_ents;
	struct gpumem_account_scratch acct;
	char *path;		/* PATH_MAX bytes for cgroup paths */
	struct gpumem_walk_file *files;	/* sorted by filp */
	size_t nr_files, cap_files;
	struct gpumem_walk_holder *holders;	/* sorted by file, tgid */
	size_t nr_holders, cap_holders;
	/* the fd-table scan */
	struct xarray tables;	/* files_struct scanned, by address */
	struct pid *fd_pid;	/* the task's thread group */
	unsigned int fd_next;	/* where the next chunk starts */
	unsigned int fd_left;	/* fds left in this chunk */
	/* the device being walked: its files' holders */
	struct gpumem_file_holders *fh;
	size_t nr_fh, cap_fh;
	pid_t *tgids;
	size_t nr_tgids, cap_tgids;
	u64 work;	/* tasks, fds, files, handles, holders visited */
};

static struct ttm_buffer_object *gpumem_ttm_bo(const struct gpumem_device *gdev,
					       struct drm_gem_object *obj)
{
	struct ttm_buffer_object *bo;

	if (!gdev->bdev)
		return NULL;
	/* Safe: gdev->drv lists drivers whose GEM objects are all TTM BOs. */
	bo = container_of(obj, struct ttm_buffer_object, base);
	return bo->bdev == gdev->bdev ? bo : NULL;
}

/* Caller holds the BO's reservation lock. */
static void gpumem_read_placement(const struct gpumem_device *gdev,
				  struct ttm_buffer_object *bo,
				  struct gpumem_walk_ent *ent)
{
	struct ttm_resource_manager *man = NULL;
	u32 mem_type = bo->resource ? bo->resource->mem_type : TTM_PL_SYSTEM;

	dma_resv_assert_held(bo->base.resv);
	if (mem_type < TTM_NUM_MEM_TYPES)
		man = ttm_manager_type(gdev->bdev, mem_type);
	ent->mem_type = mem_type;
	ent->region = gpumem_classify(gdev->drv, mem_type, TTM_NUM_MEM_TYPES,
				      man && man->use_tt);
}

/* A BO's reservation, if it is free now (never waits). */
static bool gpumem_resv_trylock(struct drm_gem_object *obj)
{
	if (gpumem_fail_resv())
		return false;	/* fault injection: as if busy */
	return dma_resv_trylock(obj->resv);
}

/* Under drm_file.table_lock: must not sleep. */
static void gpumem_classify_atomic(const struct gpumem_device *gdev,
				   struct drm_gem_object *obj,
				   struct gpumem_walk_ent *ent)
{
	struct ttm_buffer_object *bo = gpumem_ttm_bo(gdev, obj);

	ent->size = obj->size;
	ent->flags = 0;
	if (READ_ONCE(obj->dma_buf))
		ent->flags |= GPUMEM_ENT_DMABUF;
	if (READ_ONCE(obj->import_attach))
		ent->flags |= GPUMEM_ENT_IMPORTED;
	ent->mem_type = -1;
	ent->region = GPUMEM_REGION_SYSTEM;
	if (!bo)
		return;
	if (!gpumem_resv_trylock(obj)) {
		ent->flags |= GPUMEM_ENT_PENDING;
		return;
	}
	gpumem_read_placement(gdev, bo, ent);
	dma_resv_unlock(obj->resv);
}

/*
 * Placements whose reservation was contended under the file's table_lock:
 * tried again GPUMEM_RESV_TRIES times, GPUMEM_RESV_PAUSE_US apart, never
 * waited for. What stays busy is marked skipped.
 */
#define GPUMEM_RESV_TRIES	3
#define GPUMEM_RESV_PAUSE_US	200

static void gpumem_resolve_pending(const struct gpumem_device *gdev,
				   struct gpumem_walk_ent *ents, size_t n)
{
	unsigned int try;
	size_t i, left;

	for (try = 0; try < GPUMEM_RESV_TRIES; try++) {
		if (try)
			usleep_range(GPUMEM_RESV_PAUSE_US,
				     2 * GPUMEM_RESV_PAUSE_US);
		for (i = 0, left = 0; i < n; i++) {
			struct drm_gem_object *obj = ents[i].obj;

			if (!(ents[i].flags & GPUMEM_ENT_PENDING))
				continue;
			if (!gpumem_resv_trylock(obj)) {
				left++;
				continue;
			}
			gpumem_read_placement(gdev, gpumem_ttm_bo(gdev, obj),
					      &ents[i]);
			dma_resv_unlock(obj->resv);
			ents[i].flags &= ~GPUMEM_ENT_PENDING;
		}
		if (!left)
			return;
	}
	for (i = 0; i < n; i++) {
		if (ents[i].flags & GPUMEM_ENT_PENDING)
			ents[i].flags ^= GPUMEM_ENT_PENDING | GPUMEM_ENT_SKIPPED;
	}
}

/*
 * @gdev's manager of memory type @t when it is one of a counted region
 * (VRAM, GTT): its region and, when known, its capacity in bytes (else 0).
 */
static struct ttm_resource_manager *
gpumem_counted_manager(const struct gpumem_device *gdev, u32 t,
		       enum gpumem_region *region, u64 *cap)
{
	struct ttm_resource_manager *man = ttm_manager_type(gdev->bdev, t);

	if (!man || !man->use_type)
		return NULL;
	*region = gpumem_classify(gdev->drv, t, TTM_NUM_MEM_TYPES, man->use_tt);
	if (!gpumem_region_counted(*region))
		return NULL;
	if (!gpumem_manager_capacity(gdev->drv, t, man->size, PAGE_SHIFT, cap))
		*cap = 0;
	return man;
}

/*
 * The free space of @gdev's counted regions, read through the managers'
 * printers at most once a second (a range manager prints every node under
 * its lock: an unprivileged reader must not be able to hold it at will).
 * Caller holds gpumem_registry_lock.
 */
static void gpumem_fill_dev_frag(struct gpumem_dev_row *row,
				 struct gpumem_device *gdev)
{
	struct ttm_resource_manager *man;
	enum gpumem_region region;
	struct gpumem_frag f;
	u64 cap;
	u32 t;

	if (!gdev->frag_read || time_after(jiffies, gdev->frag_read + HZ)) {
		memset(gdev->frag, 0, sizeof(gdev->frag));
		for (t = 0; t < TTM_NUM_MEM_TYPES; t++) {
			man = gpumem_counted_manager(gdev, t, &region, &cap);
			if (!man || !cap)
				continue;
			/* a range manager counts in the unit of its size */
			gpumem_frag_read(man, div64_u64(cap, man->size), &f);
			gpumem_frag_add(&gdev->frag[region], &f);
		}
		gdev->frag_read = jiffies ? jiffies : 1;
	}
	memcpy(row->frag, gdev->frag, sizeof(row->frag));
	row->frag_age_ms = jiffies_to_msecs(jiffies - gdev->frag_read);
}

static void gpumem_fill_dev_row(struct gpumem_dev_row *row,
				struct gpumem_device *gdev, unsigned int flags)
{
	struct drm_device *ddev = gdev->drm;
	u32 t;

	row->minor = gdev->minor;
	strscpy(row->name, gdev->name, sizeof(row->name));
	strscpy(row->driver, ddev->driver->name, sizeof(row->driver));
	strscpy(row->unique, ddev->unique ? ddev->unique : dev_name(ddev->dev),
		sizeof(row->unique));
	strscpy(row->desc, ddev->driver->desc ? ddev->driver->desc : "",
		sizeof(row->desc));
	row->render = ddev->render ? ddev->render->index : -1;
	row->ttm = gdev->bdev;
	/* a TTM device's managers are counted on the device charged for it */
	if (!gdev->bdev || READ_ONCE(gdev->ttm_alias))
		return;
	for (t = 0; t < TTM_NUM_MEM_TYPES; t++) {
		struct ttm_resource_manager *man;
		enum gpumem_region region;
		u64 cap;

		man = gpumem_counted_manager(gdev, t, &region, &cap);
		if (!man)
			continue;
		row->regions |= BIT(region);
		row->used[region] += ttm_resource_manager_usage(man);
		if (cap) {
			row->capacity[region] += cap;
			row->cap_known |= BIT(region);
		}
	}
	for (t = 0; t < GPUMEM_REGION_COUNT; t++)
		if (row->regions & BIT(t))
			row->ndmem[t] = gpumem_dmem_regions(gdev->minor, t,
							    row->dmem[t],
							    GPUMEM_DMEM_PER_REGION);
	if (flags & GPUMEM_SNAP_FRAG)
		gpumem_fill_dev_frag(row, gdev);
}

static int gpumem_kernel_task(struct gpumem_walk *w)
{
	struct gpumem_task_row *row;
	int ret;

	if (xa_load(&w->snap->tasks, 0))
		return 0;
	row = kzalloc(sizeof(*row), GFP_KERNEL_ACCOUNT);
	if (!row)
		return -ENOMEM;
	strscpy(row->comm, "[kernel]", sizeof(row->comm));
	ret = xa_err(xa_store(&w->snap->tasks, 0, row, GFP_KERNEL_ACCOUNT));
	if (ret)
		kfree(row);
	else
		w->snap->rows_bytes += sizeof(*row);
	return ret;
}

static int gpumem_cmp_file(const void *a, const void *b)
{
	const struct gpumem_walk_file *x = a, *y = b;

	if (x->filp == y->filp)
		return 0;
	return x->filp < y->filp ? -1 : 1;
}

static int gpumem_cmp_holder_pid(const void *a, const void *b)
{
	const struct gpumem_walk_holder *x = a, *y = b;

	if (x->pid == y->pid)
		return 0;
	return x->pid < y->pid ? -1 : 1;
}

static int gpumem_cmp_holder(const void *a, const void *b)
{
	const struct gpumem_walk_holder *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->tgid == y->tgid)
		return 0;
	return x->tgid < y->tgid ? -1 : 1;
}

/* The holder pass's entry of @filp, or NULL. Pure: callable under locks. */
static const struct gpumem_walk_file *
gpumem_find_file(const struct gpumem_walk *w, const struct file *filp)
{
	struct gpumem_walk_file key = { .filp = filp };

	if (!w->nr_files)
		return NULL;
	return bsearch(&key, w->files, w->nr_files, sizeof(*w->files),
		       gpumem_cmp_file);
}

/*
 * The first device after minor @after (-1: the first of all), with its
 * walk_sem held for reading (release it with up_read()), or NULL when there
 * is none. When @row is not NULL, it is filled with the device's row.
 * *@alias: its clients and buffers are another device's (drm_alias, read
 * under the registry lock). Holds gpumem_registry_lock for this lookup
 * only.
 */
static struct gpumem_device *gpumem_walk_next_dev(int after,
						  struct gpumem_dev_row *row,
						  unsigned int flags,
						  bool *alias)
{
	struct gpumem_device *gdev, *found = NULL;

	if (mutex_lock_interruptible(&gpumem_registry_lock))
		return ERR_PTR(-EINTR);
	list_for_each_entry(gdev, &gpumem_devices, node) {
		if (gdev->minor > after) {
			found = gdev;
			break;
		}
	}
	if (found) {
		*alias = found->drm_alias;
		down_read(&found->walk_sem);
		if (row)	/* gdev->frag is under the registry lock */
			gpumem_fill_dev_row(row, found, flags);
	}
	mutex_unlock(&gpumem_registry_lock);
	return found;
}

/*
 * Note every client's file of every device, sorted by address: one device's
 * filelist_mutex at a time. O(files * log(files)).
 */
static int gpumem_note_files(struct gpumem_walk *w)
{
	struct gpumem_device *gdev;
	struct drm_file *file;
	int after = -1, ret = 0;
	bool alias;

	w->nr_files = 0;
	for (;;) {
		struct drm_device *ddev;

		gdev = gpumem_walk_next_dev(after, NULL, 0, &alias);
		if (IS_ERR_OR_NULL(gdev)) {
			ret = PTR_ERR_OR_ZERO(gdev);
			break;
		}
		after = gdev->minor;
		if (alias) {	/* its files are another device's */
			up_read(&gdev->walk_sem);
			continue;
		}
		ddev = gdev->drm;
		mutex_lock(&ddev->filelist_mutex);
		list_for_each_entry(file, &ddev->filelist, lhead) {
			if (!file->filp)
				continue;
			ret = gpumem_vec_reserve((void **)&w->files,
						 &w->cap_files, w->nr_files + 1,
						 sizeof(*w->files));
			if (ret)
				break;
			w->files[w->nr_files].filp = file->filp;
			w->files[w->nr_files++].dfile = file;
			w->work++;
		}
		mutex_unlock(&ddev->filelist_mutex);
		up_read(&gdev->walk_sem);
		cond_resched();
		if (ret)
			break;
	}
	if (ret)
		return ret;
	sort(w->files, w->nr_files, sizeof(*w->files), gpumem_cmp_file, NULL);
	return 0;
}

/*
 * iterate_fd() callback, under files_struct.file_lock (must not sleep):
 * notes the scanned process as a holder of @filp if it is a client's file.
 * @filp is only compared, never dereferenced. Stops (1) when the chunk is
 * done; the caller reserved room for a whole chunk.
 */
static int gpumem_scan_fd(const void *p, struct file *filp, unsigned int fd)
{
	struct gpumem_walk *w = (struct gpumem_walk *)p;
	const struct gpumem_walk_file *f = gpumem_find_file(w, filp);

	w->work += fd + 1 - w->fd_next;	/* the slots up to it */
	w->fd_next = fd + 1;
	if (f) {
		w->holders[w->nr_holders].file = f - w->files;
		w->holders[w->nr_holders].tgid = -1;
		w->holders[w->nr_holders++].pid = get_pid(w->fd_pid);
	}
	return --w->fd_left == 0;
}

/*
 * Scan @t's fd table (@t referenced), GPUMEM_FD_CHUNK fds per hold of
 * task_lock and the table's file_lock, rescheduling between chunks.
 */
static int gpumem_scan_task(struct gpumem_walk *w, struct task_struct *t)
{
	struct files_struct *files;
	int stop, ret;

	w->fd_next = 0;
	do {
		ret = gpumem_vec_reserve((void **)&w->holders,
					 &w->cap_holders,
					 w->nr_holders + GPUMEM_FD_CHUNK,
					 sizeof(*w->holders));
		if (ret)
			return ret;
		w->fd_left = GPUMEM_FD_CHUNK;
		task_lock(t);
		files = t->files;
		stop = files ? iterate_fd(files, w->fd_next, gpumem_scan_fd,
					  w) : 0;
		task_unlock(t);
		cond_resched();
	} while (stop);
	return 0;
}

/*
 * The task of pid number >= *@nr with an fd table not scanned yet, with a
 * reference (put_task_struct() it), and its thread group pid in w->fd_pid
 * (referenced); *@nr is set to its pid. NULL when there is none left.
 * One RCU read section and task_lock per task.
 */
static struct task_struct *gpumem_next_table(struct gpumem_walk *w, int *nr)
{
	struct files_struct *files;
	struct task_struct *t;
	struct pid *pid;
	bool shared;

	for (;; (*nr)++) {
		cond_resched();
		rcu_read_lock();
		pid = find_ge_pid(*nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			return NULL;
		}
		*nr = pid_nr(pid);
		w->work++;
		t = pid_task(pid, PIDTYPE_PID);
		files = NULL;
		shared = false;
		/* kernel threads hold no file of a DRM client's */
		if (t && !(t->flags & PF_KTHREAD)) {
			task_lock(t);
			files = t->files;
			shared = files && atomic_read(&files->count) > 1;
			task_unlock(t);
		}
		/* a table is compared by address only; the common case first */
		if (files && !thread_group_leader(t) &&
		    files == READ_ONCE(t->group_leader->files))
			files = NULL;
		if (files) {
			get_task_struct(t);
			w->fd_pid = get_pid(task_tgid(t));
		}
		rcu_read_unlock();
		if (!files)
			continue;
		/*
		 * A table of one task is scanned once anyway; a shared one is
		 * noted: seen already, -EBUSY; no memory, scanned again.
		 */
		if (!shared ||
		    xa_insert(&w->tables, (unsigned long)files, xa_mk_value(0),
			      GFP_KERNEL_ACCOUNT) != -EBUSY)
			return t;
		put_pid(w->fd_pid);
		put_task_struct(t);
	}
}

/* Every fd table on the host, each once (see the top of this file). */
static int gpumem_scan_fd_tables(struct gpumem_walk *w)
{
	struct task_struct *t;
	int nr = 1, ret = 0;

	xa_init(&w->tables);
	while (!ret && (t = gpumem_next_table(w, &nr))) {
		ret = gpumem_scan_task(w, t);
		put_pid(w->fd_pid);
		put_task_struct(t);
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		nr++;
	}
	xa_destroy(&w->tables);
	return ret;
}

static void gpumem_put_holders(struct gpumem_walk *w)
{
	size_t i;

	for (i = 0; i < w->nr_holders; i++)
		put_pid(w->holders[i].pid);
	w->nr_holders = 0;
}

/* Is the process of @pid (a thread or thread group pid) alive? */
static bool gpumem_pid_alive(struct pid *pid)
{
	struct task_struct *task, *t;
	bool alive = false;

	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_TGID);
	if (!task)
		task = pid_task(pid, PIDTYPE_PID);
	if (task) {
		for_each_thread(task, t) {
			if (!(t->flags & PF_EXITING)) {
				alive = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return alive;
}

/*
 * The tgid of the process of @pid and its task row, or -1 when it is gone.
 */
static int gpumem_resolve_pid(struct gpumem_walk *w, struct pid *pid,
			      pid_t *tgid)
{
	*tgid = -1;
	if (!gpumem_pid_alive(pid))
		return 0;
	return gpumem_snapshot_task(w->snap, pid, "?", w->path, tgid);
}

/*
 * Resolve each holding process once (sorted by struct pid), then sort the
 * holders by (file, tgid), one row each, the gone ones dropped.
 * O(holders * log(holders) + the threads of each holding process).
 */
static int gpumem_resolve_holders(struct gpumem_walk *w)
{
	size_t i, n;
	int ret = 0;

	sort(w->holders, w->nr_holders, sizeof(*w->holders),
	     gpumem_cmp_holder_pid, NULL);
	for (i = 0; i < w->nr_holders && !ret; i++) {
		if (i && w->holders[i].pid == w->holders[i - 1].pid) {
			w->holders[i].tgid = w->holders[i - 1].tgid;
			continue;
		}
		ret = gpumem_resolve_pid(w, w->holders[i].pid,
					 &w->holders[i].tgid);
		cond_resched();
	}

	for (i = 0; i < w->nr_holders; i++) {
		put_pid(w->holders[i].pid);
		w->holders[i].pid = NULL;
	}
	if (ret)
		return ret;
	sort(w->holders, w->nr_holders, sizeof(*w->holders),
	     gpumem_cmp_holder, NULL);
	/* one row per (file, process): a process may hold a file twice */
	for (i = 0, n = 0; i < w->nr_holders; i++) {
		if (w->holders[i].tgid < 0)
			continue;
		if (n && !gpumem_cmp_holder(&w->holders[n - 1], &w->holders[i]))
			continue;
		w->holders[n++] = w->holders[i];
	}
	w->nr_holders = n;
	return 0;
}

/* The holder pass, scan and resolution (see the top of this file). */
static int gpumem_collect_holders(struct gpumem_walk *w)
{
	int ret;

	ret = gpumem_note_files(w);
	if (ret || !w->nr_files)
		return ret;
	ret = gpumem_scan_fd_tables(w);
	if (!ret)
		ret = gpumem_resolve_holders(w);
	return ret;
}

/* Append one tgid to the current file's holders. */
static int gpumem_push_tgid(struct gpumem_walk *w, pid_t tgid)
{
	int ret = gpumem_vec_reserve((void **)&w->tgids, &w->cap_tgids,
				     w->nr_tgids + 1, sizeof(*w->tgids));

	if (!ret)
		w->tgids[w->nr_tgids++] = tgid;
	return ret;
}

/*
 * The processes a client's file counts for (docs/accounting.md),
 * appended to w->tgids, ascending, as w->fh[w->nr_fh++]: the live processes
 * that have it in an fd table; if none, the process it belongs to
 * (drm_file.pid) while that is alive (a CPU mapping or an SCM_RIGHTS
 * message in flight may keep the file); else pid 0, [kernel]: held by no
 * live process (and for an in-kernel client, @internal). Never a dead
 * process. O(log(files) + log(holders) + its holders).
 * Caller holds filelist_mutex (drm_file.pid may change under it on 6.7+).
 */
static int gpumem_file_tgids(struct gpumem_walk *w, struct drm_file *file,
			     bool internal)
{
	const struct gpumem_walk_file *f = NULL;
	struct gpumem_file_holders *fh;
	size_t i, lo = 0, hi = w->nr_holders;
	struct pid *pid;
	pid_t tgid;
	int ret;

	ret = gpumem_vec_reserve((void **)&w->fh, &w->cap_fh, w->nr_fh + 1,
				 sizeof(*w->fh));
	if (ret)
		return ret;
	fh = &w->fh[w->nr_fh];
	fh->first = w->nr_tgids;
	fh->nr = 0;
	if (!internal)
		f = gpumem_find_file(w, file->filp);
	if (f && f->dfile == file) {
		u32 idx = f - w->files;

		while (lo < hi) {	/* first holder of file idx */
			size_t mid = lo + (hi - lo) / 2;

			if (w->holders[mid].file < idx)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* resolved, ascending, each once */
		for (i = lo; i < w->nr_holders && w->holders[i].file == idx &&
		     !ret; i++)
			ret = gpumem_push_tgid(w, w->holders[i].tgid);
	}
	pid = NULL;
	if (!ret && w->nr_tgids == fh->first && !internal)
		pid = gpumem_file_get_pid(file);
	if (pid) {
		ret = gpumem_resolve_pid(w, pid, &tgid);
		put_pid(pid);
		if (!ret && tgid >= 0)
			ret = gpumem_push_tgid(w, tgid);
	}
	if (!ret && w->nr_tgids == fh->first) {
		ret = gpumem_kernel_task(w);
		if (!ret)
			ret = gpumem_push_tgid(w, 0);
	}
	if (ret)
		return ret;
	fh->nr = w->nr_tgids - fh->first;
	w->nr_fh++;
	w->work += 1 + fh->nr;
	return 0;
}

/*
 * Collect the handles of one file from @*index on, until they are all
 * collected (true) or GPUMEM_HANDLE_CHUNK were, or @w->ents is full (false,
 * @*index is where to resume). drm_file.object_idr is an IDR, which is an
 * XArray plus an id base: xas_for_each() walks each node's slots in place,
 * where idr_get_next() would descend from the root again for every handle.
 */
static bool gpumem_collect_handles(struct gpumem_walk *w,
				   const struct gpumem_device *gdev,
				   struct drm_file *file, u32 order,
				   u32 fidx, unsigned long *index)
{
	struct idr *idr = &file->object_idr;
	XA_STATE(xas, &idr->idr_rt, *index);
	unsigned int budget = GPUMEM_HANDLE_CHUNK;
	struct drm_gem_object *obj;
	bool done = true;

	spin_lock(&file->table_lock);
	/* table_lock protects the IDR; RCU only satisfies xas' lockdep checks */
	rcu_read_lock();
	xas_for_each(&xas, obj, ULONG_MAX) {
		struct gpumem_walk_ent *ent;

		if (xas_retry(&xas, obj))
			continue;
		if (w->nr_ents == w->cap_ents || !budget--) {
			*index = xas.xa_index;
			done = false;
			break;
		}
		ent = &w->ents[w->nr_ents++];
		drm_gem_object_get(obj);
		ent->obj = obj;
		ent->order = order;
		ent->handle = xas.xa_index + idr->idr_base;
		ent->file = fidx;
		gpumem_classify_atomic(gdev, obj, ent);
	}
	rcu_read_unlock();
	spin_unlock(&file->table_lock);
	return done;
}

/*
 * Collect every object handle of one file, once, and resolve the processes
 * it counts for: O(its handles + its holders). Caller holds filelist_mutex.
 */
static int gpumem_collect_file(struct gpumem_walk *w,
			       const struct gpumem_device *gdev,
			       struct drm_file *file, u32 order, bool internal)
{
	unsigned long index = 0;
	u32 fidx = w->nr_fh;
	int ret;

	ret = gpumem_file_tgids(w, file, internal);
	if (ret)
		return ret;
	w->snap->clients++;
	do {
		ret = gpumem_vec_reserve((void **)&w->ents, &w->cap_ents,
					 w->nr_ents + GPUMEM_HANDLE_CHUNK,
					 sizeof(*w->ents));
		if (ret)
			return ret;
		cond_resched();
	} while (!gpumem_collect_handles(w, gdev, file, order, fidx, &index));
	return 0;
}

/*
 * Every client file of one device, oldest first: O(files + handles +
 * holders of the device). Holds its filelist_mutex, rescheduling between
 * files and chunks of handles.
 */
static int gpumem_collect_device(struct gpumem_walk *w,
				 const struct gpumem_device *gdev)
{
	struct drm_device *ddev = gdev->drm;
	struct drm_file *file;
	u32 order = 0;
	int ret = 0;

	w->nr_fh = 0;
	w->nr_tgids = 0;
	mutex_lock(&ddev->filelist_mutex);
	/* Files are added at the head: walk backwards, oldest client first. */
	list_for_each_entry_reverse(file, &ddev->filelist, lhead) {
		ret = gpumem_collect_file(w, gdev, file, order++, false);
		if (ret)
			goto out;
	}
	list_for_each_entry_reverse(file, &ddev->filelist_internal, lhead) {
		ret = gpumem_collect_file(w, gdev, file, order++, true);
		if (ret)
			goto out;
	}
out:
	mutex_unlock(&ddev->filelist_mutex);
	return ret;
}

static void gpumem_put_ents(struct gpumem_walk *w)
{
	size_t i;

	for (i = 0; i < w->nr_ents; i++) {
		drm_gem_object_put(w->ents[i].obj);
		if (!(i & 1023))
			cond_resched();
	}
	w->nr_ents = 0;
}

/* One device's clients and objects; caller holds its walk_sem. */
static int gpumem_walk_device(struct gpumem_walk *w, unsigned int idx,
			      struct gpumem_device *gdev)
{
	u64 t0, t1, t2;
	int ret;

	t0 = ktime_get_ns();
	ret = gpumem_collect_device(w, gdev);
	w->snap->bos += w->nr_ents;
	w->work += w->nr_ents;
	if (!ret)
		gpumem_resolve_pending(gdev, w->ents, w->nr_ents);
	t1 = ktime_get_ns();
	if (!ret)
		ret = gpumem_account_device(w->snap, idx, w->ents, w->nr_ents,
					    w->fh, w->nr_fh, w->tgids,
					    &w->acct);
	t2 = ktime_get_ns();
	gpumem_put_ents(w);
	w->snap->collect_ns += t1 - t0;
	w->snap->account_ns += t2 - t1;
	w->snap->release_ns += ktime_get_ns() - t2;
	return ret;
}

/* Take the work space the last walk left, if no other walk has it. */
static void gpumem_walk_cache_get(struct gpumem_walk *w)
{
	spin_lock(&gpumem_walk_lock);
	w->ents = gpumem_ents_cache;
	w->cap_ents = gpumem_ents_cache_cap;
	w->acct = gpumem_account_cache;
	gpumem_ents_cache = NULL;
	gpumem_ents_cache_cap = 0;
	memset(&gpumem_account_cache, 0, sizeof(gpumem_account_cache));
	spin_unlock(&gpumem_walk_lock);
}

/*
 * Leave it for the next walk (the larger, when two walks ran), unless it is
 * larger than the cache keeps.
 */
static void gpumem_walk_cache_put(struct gpumem_walk *w)
{
	struct gpumem_account_scratch acct = {};
	struct gpumem_walk_ent *ents = NULL;

	if (w->cap_ents > GPUMEM_ENTS_CACHE_MAX) {
		kvfree(w->ents);
		w->ents = NULL;
		w->cap_ents = 0;
	}
	if (w->acct.bits > GPUMEM_ACCT_CACHE_BITS)
		gpumem_account_scratch_free(&w->acct);
	spin_lock(&gpumem_walk_lock);
	if (w->cap_ents >= gpumem_ents_cache_cap) {
		swap(w->ents, gpumem_ents_cache);
		swap(w->cap_ents, gpumem_ents_cache_cap);
	}
	ents = w->ents;
	if (w->acct.bits >= gpumem_account_cache.bits)
		swap(w->acct, gpumem_account_cache);
	acct = w->acct;
	spin_unlock(&gpumem_walk_lock);
	kvfree(ents);
	gpumem_account_scratch_free(&acct);
}

/**
 * gpumem_walk_nr_devices() - how many devices a snapshot needs rows for
 * @nr: where the number of devices tracked now goes
 * @interruptible: a signal may interrupt the wait for the registry lock
 *
 * Devices added after this count are not in the snapshot it sizes.
 *
 * Context: process context, may sleep (the registry lock).
 * Return: 0, or -EINTR when a signal interrupted the wait for the lock.
 */
int gpumem_walk_nr_devices(unsigned int *nr, bool interruptible)
{
	struct gpumem_device *gdev;

	*nr = 0;
	if (!interruptible)
		mutex_lock(&gpumem_registry_lock);
	else if (mutex_lock_interruptible(&gpumem_registry_lock))
		return -EINTR;
	list_for_each_entry(gdev, &gpumem_devices, node)
		(*nr)++;
	mutex_unlock(&gpumem_registry_lock);
	return 0;
}

/**
 * gpumem_walk_fill() - visit every device for a snapshot's rows
 * @snap: a new snapshot with room for the device rows (gpumem_snapshot_alloc()
 *	with gpumem_walk_nr_devices()'s count) and its cap set
 * @flags: GPUMEM_SNAP_*: the same as @snap was allocated with
 * @path: PATH_MAX bytes of scratch space for cgroup paths
 *
 * Fills the device rows and, for a held snapshot (neither
 * GPUMEM_SNAP_DEVICES nor GPUMEM_SNAP_CHARGED), the process (and
 * GPUMEM_SNAP_BUFFERS: buffer) rows the walk finds, with the walk's figures
 * (clients, bos, skipped, phases, work); sets @snap->nr_devs to the devices
 * visited. The rows are not finished (snapshot.c sorts and checks them).
 *
 * A device snapshot costs O(devices) and visits no client. A held walk
 * costs O(devices + tasks * log(pids) + fd slots * log(files) + files +
 * handles + holders + the accounting's, account.c): linear in every number
 * a tenant can multiply, whatever the number of processes sharing one
 * file. No lock is held across devices: the registry lock only to find
 * each next one, a device's walk_sem and filelist_mutex for that device
 * only; it reschedules between devices, tasks, files and chunks of fds and
 * handles. Its scratch space is charged to the caller's memory cgroup.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINTR when a signal interrupted the walk, -ENOMEM, or
 *	-EMSGSIZE when the rows would keep more than @snap's cap.
 */
int gpumem_walk_fill(struct gpumem_snapshot *snap, unsigned int flags,
		     char *path)
{
	bool walk = !(flags & (GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_CHARGED));
	struct gpumem_walk w = { .snap = snap, .path = path };
	struct gpumem_device *gdev;
	unsigned int idx = 0;
	int after = -1, ret = 0;
	bool alias;

	if (walk) {
		gpumem_walk_cache_get(&w);
		ret = gpumem_collect_holders(&w);
	}
	/* devices added since they were counted are not in this snapshot */
	while (!ret && idx < snap->nr_devs) {
		gdev = gpumem_walk_next_dev(after, &snap->devs[idx], flags,
					    &alias);
		if (IS_ERR_OR_NULL(gdev)) {
			ret = PTR_ERR_OR_ZERO(gdev);
			break;
		}
		after = gdev->minor;
		/* an alias's buffers are counted on another device */
		if (walk && !alias)
			ret = gpumem_walk_device(&w, idx, gdev);
		up_read(&gdev->walk_sem);
		if (!ret)
			ret = gpumem_snapshot_check(snap);
		idx++;
		cond_resched();
	}
	/* rows of devices removed meanwhile: none (their xarrays are empty) */
	snap->nr_devs = idx;
	if (walk) {
		snap->work = w.work;
		gpumem_walk_cache_put(&w);
	}
	gpumem_put_holders(&w);
	kvfree(w.holders);
	kvfree(w.files);
	kvfree(w.fh);
	kvfree(w.tgids);
	return ret;
}

/**
 * gpumem_walk_exit() - free what walks keep between them
 *
 * Context: module exit, after the last possible walk.
 */
void gpumem_walk_exit(void)
{
	kvfree(gpumem_ents_cache);
	gpumem_ents_cache = NULL;
	gpumem_ents_cache_cap = 0;
	gpumem_account_scratch_free(&gpumem_account_cache);
}
