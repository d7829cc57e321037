// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem walker.
 *
 * Locking, outermost first:
 *   gpumem_registry_lock      devices stay registered (and their drivers
 *                             bound) for the whole walk
 *   drm_device.filelist_mutex the device's list of clients; drm_file.pid
 *   drm_file.table_lock       (spinlock) the file's object_idr; we take a GEM
 *                             reference on every object before dropping it
 *   dma_resv (trylock)        a TTM BO's placement (bo->resource); taken
 *                             only by trylock: under table_lock, then
 *                             again a few times with nothing but the
 *                             registry lock held. A reservation still busy
 *                             then (a driver moving or validating the
 *                             buffer) is never waited for: the buffer is
 *                             counted as skipped, so no reader can stall
 *                             DRM behind a long-held reservation.
 * Object references are put only after every lock but the registry lock is
 * dropped. Files closed, objects freed and processes exiting meanwhile are
 * normal: we see each object as it was when we held its reference.
 *
 * Holders. Before the devices are walked, one pass under each device's
 * filelist_mutex notes every client's struct file (drm_file.filp), sorted
 * by address; then one scan of every process's fd table (thread-group
 * leaders under RCU, task_lock, iterate_fd()'s files_struct.file_lock)
 * notes, for each fd whose file pointer is one of them, the process
 * (a struct pid reference). File pointers are only compared, never
 * dereferenced. The scan is O(processes + fds * log(files)), once per walk.
 * A file keeps its struct file address for as long as it is on its device's
 * list; a file that was closed and another opened at the same address
 * between the pass and the walk is told apart by its drm_file as well.
 */
#include <linux/bsearch.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/dma-resv.h>
#include <linux/fdtable.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include "compat.h"
#include "classify.h"
#include "discover.h"
#include "fault_inject.h"
#include "account.h"
#include "snapshot.h"
#include "proc_usage.h"
#include "walk.h"

/* Protected by gpumem_registry_lock. */
static struct gpumem_walk_stats gpumem_stats;
/*
 * The entry array of the last walk, kept for the next one (protected by
 * gpumem_registry_lock): a walk then allocates nothing per object.
 */
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
	struct pid *pid;	/* the process (thread group), referenced */
};

/* Scratch state of one walk. */
struct gpumem_walk {
	struct gpumem_snapshot *snap;
	struct gpumem_walk_ent *ents;
	size_t nr_ents, cap_ents;
	char *path;		/* PATH_MAX bytes for cgroup paths */
	struct gpumem_walk_file *files;	/* sorted by filp */
	size_t nr_files, cap_files;
	struct gpumem_walk_holder *holders;	/* sorted by file */
	size_t nr_holders, cap_holders, want_holders;
	pid_t *tgids;		/* one file's holders, resolved */
	size_t cap_tgids;
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

static int gpumem_kernel_task(struct gpumem_walk *w)
{
	struct gpumem_task_row *row;
	int ret;

	if (xa_load(&w->snap->tasks, 0))
		return 0;
	row = kzalloc(sizeof(*row), GFP_KERNEL);
	if (!row)
		return -ENOMEM;
	strscpy(row->comm, "[kernel]", sizeof(row->comm));
	ret = xa_err(xa_store(&w->snap->tasks, 0, row, GFP_KERNEL));
	if (ret)
		kfree(row);
	return ret;
}

static int gpumem_cmp_file(const void *a, const void *b)
{
	const struct gpumem_walk_file *x = a, *y = b;

	if (x->filp == y->filp)
		return 0;
	return x->filp < y->filp ? -1 : 1;
}

static int gpumem_cmp_holder(const void *a, const void *b)
{
	const struct gpumem_walk_holder *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->pid == y->pid)
		return 0;
	return x->pid < y->pid ? -1 : 1;
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

/* Note every client's file of every device, sorted by address. */
static int gpumem_note_files(struct gpumem_walk *w)
{
	struct gpumem_device *gdev;
	struct drm_file *file;
	int ret = 0;

	w->nr_files = 0;
	list_for_each_entry(gdev, &gpumem_devices, node) {
		struct drm_device *ddev = gdev->drm;

		if (gdev->drm_alias)
			continue;	/* its files are another device's */
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
		}
		mutex_unlock(&ddev->filelist_mutex);
		if (ret)
			return ret;
	}
	sort(w->files, w->nr_files, sizeof(*w->files), gpumem_cmp_file, NULL);
	return 0;
}

struct gpumem_fd_scan {
	struct gpumem_walk *w;
	struct pid *pid;
};

/*
 * iterate_fd() callback, under files_struct.file_lock (must not sleep):
 * notes the scanned process as a holder of @filp if it is a client's file.
 * @filp is only compared, never dereferenced.
 */
static int gpumem_scan_fd(const void *p, struct file *filp, unsigned int fd)
{
	const struct gpumem_fd_scan *scan = p;
	struct gpumem_walk *w = scan->w;
	const struct gpumem_walk_file *f = gpumem_find_file(w, filp);

	if (!f)
		return 0;
	if (w->nr_holders < w->cap_holders) {
		w->holders[w->nr_holders].file = f - w->files;
		w->holders[w->nr_holders++].pid = get_pid(scan->pid);
	}
	w->want_holders++;
	return 0;
}

/*
 * Every process's fd tables: the leader's, and a thread's own where it has
 * one (a thread may unshare its table).
 */
static void gpumem_scan_fd_tables(struct gpumem_walk *w)
{
	struct gpumem_fd_scan scan = { .w = w };
	struct files_struct *files, *seen;
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process(p) {
		seen = NULL;
		scan.pid = task_tgid(p);
		for_each_thread(p, t) {
			task_lock(t);
			files = t->files;
			if (files && files != seen)
				iterate_fd(files, 0, gpumem_scan_fd, &scan);
			task_unlock(t);
			if (files && !seen)
				seen = files;
		}
	}
	rcu_read_unlock();
}

static void gpumem_put_holders(struct gpumem_walk *w)
{
	size_t i;

	for (i = 0; i < w->nr_holders; i++)
		put_pid(w->holders[i].pid);
	w->nr_holders = 0;
}

#define GPUMEM_SCAN_TRIES	4

/*
 * The holder pass and scan (see the top of this file), once per walk.
 * Caller holds gpumem_registry_lock.
 */
static int gpumem_collect_holders(struct gpumem_walk *w)
{
	unsigned int tries;
	size_t i, n;
	int ret;

	ret = gpumem_note_files(w);
	if (ret || !w->nr_files)
		return ret;
	w->want_holders = w->nr_files;
	for (tries = 0; tries < GPUMEM_SCAN_TRIES; tries++) {
		/* room for what the last scan found, and some growth */
		ret = gpumem_vec_reserve((void **)&w->holders, &w->cap_holders,
					 w->want_holders + w->want_holders / 4,
					 sizeof(*w->holders));
		if (ret)
			return ret;
		w->want_holders = 0;
		gpumem_scan_fd_tables(w);
		if (w->want_holders <= w->cap_holders)
			break;
		gpumem_put_holders(w);
	}
	if (tries == GPUMEM_SCAN_TRIES)
		return -EAGAIN;	/* fd tables grew faster than we could follow */
	sort(w->holders, w->nr_holders, sizeof(*w->holders),
	     gpumem_cmp_holder, NULL);
	/* one row per (file, process): a process may hold a file twice */
	for (i = 0, n = 0; i < w->nr_holders; i++) {
		if (n && !gpumem_cmp_holder(&w->holders[n - 1], &w->holders[i])) {
			put_pid(w->holders[i].pid);
			continue;
		}
		w->holders[n++] = w->holders[i];
	}
	w->nr_holders = n;
	return 0;
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

/* Resolve @pid into w->tgids[*n] if its process is alive. */
static int gpumem_add_tgid(struct gpumem_walk *w, struct pid *pid, size_t *n)
{
	size_t k;
	pid_t tgid;
	int ret;

	if (!gpumem_pid_alive(pid))
		return 0;
	ret = gpumem_snapshot_task(w->snap, pid, "?", w->path, &tgid);
	if (ret)
		return ret;
	ret = gpumem_vec_reserve((void **)&w->tgids, &w->cap_tgids, *n + 1,
				 sizeof(*w->tgids));
	if (ret)
		return ret;
	/* ascending, each once */
	for (k = *n; k && w->tgids[k - 1] >= tgid; k--)
		if (w->tgids[k - 1] == tgid)
			return 0;
	memmove(&w->tgids[k + 1], &w->tgids[k], (*n - k) * sizeof(*w->tgids));
	w->tgids[k] = tgid;
	(*n)++;
	return 0;
}

/*
 * The processes a client's file counts for (README, "Accounting rules"),
 * in w->tgids, ascending: the live processes that have it in an fd table;
 * if none, the process it belongs to (drm_file.pid) while that is alive (a
 * CPU mapping or an SCM_RIGHTS message in flight may keep the file); else
 * pid 0, [kernel]: held by no live process. Never a dead process.
 * Caller holds filelist_mutex (drm_file.pid may change under it on 6.7+).
 */
static int gpumem_file_tgids(struct gpumem_walk *w, struct drm_file *file,
			     size_t *nr)
{
	const struct gpumem_walk_file *f = gpumem_find_file(w, file->filp);
	size_t i, lo = 0, hi = w->nr_holders, n = 0;
	struct pid *pid;
	int ret = 0;

	if (f && f->dfile == file) {
		u32 idx = f - w->files;

		while (lo < hi) {	/* first holder of file idx */
			size_t mid = lo + (hi - lo) / 2;

			if (w->holders[mid].file < idx)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (i = lo; i < w->nr_holders && w->holders[i].file == idx &&
		     !ret; i++)
			ret = gpumem_add_tgid(w, w->holders[i].pid, &n);
	}
	if (!ret && !n) {
		pid = gpumem_file_get_pid(file);
		if (pid)
			ret = gpumem_add_tgid(w, pid, &n);
		put_pid(pid);
	}
	if (!ret && !n) {
		ret = gpumem_vec_reserve((void **)&w->tgids, &w->cap_tgids, 1,
					 sizeof(*w->tgids));
		if (!ret)
			ret = gpumem_kernel_task(w);
		if (!ret)
			w->tgids[n++] = 0;
	}
	*nr = n;
	return ret;
}

/*
 * Collect the handles of one file from @*index on, until they are all
 * collected (true) or @w->ents is full (false, @*index is where to resume).
 * drm_file.object_idr is an IDR, which is an XArray plus an id base:
 * xas_for_each() walks each node's slots in place, where idr_get_next()
 * would descend from the root again for every handle.
 */
static bool gpumem_collect_handles(struct gpumem_walk *w,
				   const struct gpumem_device *gdev,
				   struct drm_file *file, u32 order,
				   pid_t tgid, unsigned long *index)
{
	struct idr *idr = &file->object_idr;
	XA_STATE(xas, &idr->idr_rt, *index);
	struct drm_gem_object *obj;
	bool done = true;

	spin_lock(&file->table_lock);
	/* table_lock protects the IDR; RCU only satisfies xas' lockdep checks */
	rcu_read_lock();
	xas_for_each(&xas, obj, ULONG_MAX) {
		struct gpumem_walk_ent *ent;

		if (xas_retry(&xas, obj))
			continue;
		if (w->nr_ents == w->cap_ents) {
			*index = xas.xa_index;
			done = false;
			break;
		}
		ent = &w->ents[w->nr_ents++];
		drm_gem_object_get(obj);
		ent->obj = obj;
		ent->order = order;
		ent->handle = xas.xa_index + idr->idr_base;
		ent->tgid = tgid;
		gpumem_classify_atomic(gdev, obj, ent);
	}
	rcu_read_unlock();
	spin_unlock(&file->table_lock);
	return done;
}

/*
 * Collect every object handle of one file, once for each process it counts
 * for (gpumem_file_tgids()). Caller holds filelist_mutex.
 */
static int gpumem_collect_file(struct gpumem_walk *w,
			       const struct gpumem_device *gdev,
			       struct drm_file *file, u32 order, bool internal)
{
	size_t first = w->nr_ents, cnt, k, i, nr_tgids = 1;
	unsigned long index = 0;
	int ret;

	if (internal) {
		ret = gpumem_vec_reserve((void **)&w->tgids, &w->cap_tgids, 1,
					 sizeof(*w->tgids));
		if (!ret)
			ret = gpumem_kernel_task(w);
		if (!ret)
			w->tgids[0] = 0;
	} else {
		ret = gpumem_file_tgids(w, file, &nr_tgids);
	}
	if (ret)
		return ret;
	w->snap->clients++;

	do {
		ret = gpumem_vec_reserve((void **)&w->ents, &w->cap_ents,
					 w->nr_ents + 256, sizeof(*w->ents));
		if (ret)
			return ret;
	} while (!gpumem_collect_handles(w, gdev, file, order, w->tgids[0],
					 &index));

	/* the same handles for the file's other holders */
	cnt = w->nr_ents - first;
	if (!cnt || nr_tgids < 2)
		return 0;
	ret = gpumem_vec_reserve((void **)&w->ents, &w->cap_ents,
				 w->nr_ents + cnt * (nr_tgids - 1),
				 sizeof(*w->ents));
	if (ret)
		return ret;
	for (k = 1; k < nr_tgids; k++) {
		for (i = first; i < first + cnt; i++) {
			struct gpumem_walk_ent *ent = &w->ents[w->nr_ents++];

			*ent = w->ents[i];
			ent->tgid = w->tgids[k];
			drm_gem_object_get(ent->obj);
		}
	}
	return 0;
}

static int gpumem_collect_device(struct gpumem_walk *w,
				 const struct gpumem_device *gdev)
{
	struct drm_device *ddev = gdev->drm;
	struct drm_file *file;
	u32 order = 0;
	int ret = 0;

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

	for (i = 0; i < w->nr_ents; i++)
		drm_gem_object_put(w->ents[i].obj);
	w->nr_ents = 0;
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
	if (flags & GPUMEM_SNAP_FRAG)
		gpumem_fill_dev_frag(row, gdev);
}

static int gpumem_walk_device(struct gpumem_walk *w, unsigned int idx,
			      struct gpumem_device *gdev)
{
	u64 t0, t1, t2;
	int ret;

	gpumem_fill_dev_row(&w->snap->devs[idx], gdev, w->snap->flags);
	if (w->snap->flags & (GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_CHARGED))
		return 0;
	if (gdev->drm_alias)
		return 0;	/* its buffers are counted on another device */
	t0 = ktime_get_ns();
	ret = gpumem_collect_device(w, gdev);
	w->snap->bos += w->nr_ents;
	if (!ret)
		gpumem_resolve_pending(gdev, w->ents, w->nr_ents);
	t1 = ktime_get_ns();
	if (!ret)
		ret = gpumem_account_device(w->snap, idx, w->ents, w->nr_ents,
					    &gpumem_account_cache);
	t2 = ktime_get_ns();
	gpumem_put_ents(w);
	w->snap->collect_ns += t1 - t0;
	w->snap->account_ns += t2 - t1;
	w->snap->release_ns += ktime_get_ns() - t2;
	return ret;
}

/**
 * gpumem_snapshot_take_filtered() - build a snapshot of some rows
 * @flags: GPUMEM_SNAP_*
 * @filter: for a GPUMEM_SNAP_CHARGED snapshot, the process rows wanted
 *	(NULL: all); other snapshots are complete whatever it says (a walk
 *	counts every buffer once across all its holders)
 *
 * Context: process context, may sleep; takes gpumem_registry_lock.
 * Return: the snapshot (free with gpumem_snapshot_free()) or an ERR_PTR:
 *	-EINTR when a signal interrupted the walk, -ENOMEM.
 */
struct gpumem_snapshot *
gpumem_snapshot_take_filtered(unsigned int flags,
			      const struct gpumem_snap_filter *filter)
{
	struct gpumem_walk w = {};
	struct gpumem_device *gdev;
	unsigned int nr = 0, idx = 0;
	u64 start;
	int ret;

	w.path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!w.path)
		return ERR_PTR(-ENOMEM);
	if (mutex_lock_interruptible(&gpumem_registry_lock)) {
		kfree(w.path);
		return ERR_PTR(-EINTR);
	}
	start = ktime_get_ns();
	w.ents = gpumem_ents_cache;
	w.cap_ents = gpumem_ents_cache_cap;
	list_for_each_entry(gdev, &gpumem_devices, node)
		nr++;
	w.snap = gpumem_snapshot_alloc(nr, flags);
	ret = w.snap ? 0 : -ENOMEM;
	if (!ret && !(flags & (GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_CHARGED)))
		ret = gpumem_collect_holders(&w);
	if (!ret) {
		list_for_each_entry(gdev, &gpumem_devices, node) {
			ret = gpumem_walk_device(&w, idx++, gdev);
			if (ret)
				break;
		}
	}
	if (!ret && (flags & GPUMEM_SNAP_CHARGED))
		ret = gpumem_proc_usage_fill(w.snap, w.path, filter);
	if (!ret)
		ret = gpumem_snapshot_finish(w.snap);
	if (!ret && (flags & (GPUMEM_SNAP_DEVICES | GPUMEM_SNAP_CHARGED))) {
		/* no walk of clients and objects: nothing for the counters */
	} else if (!ret) {
		w.snap->walk_ns = ktime_get_ns() - start;
		gpumem_stats.walks++;
		gpumem_stats.last_ns = w.snap->walk_ns;
		gpumem_stats.last_clients = w.snap->clients;
		gpumem_stats.last_bos = w.snap->bos;
		gpumem_stats.last_skipped = w.snap->skipped;
		gpumem_stats.last_collect_ns = w.snap->collect_ns;
		gpumem_stats.last_account_ns = w.snap->account_ns;
		gpumem_stats.last_release_ns = w.snap->release_ns;
	} else {
		gpumem_stats.failed++;
	}
	gpumem_ents_cache = w.ents;
	gpumem_ents_cache_cap = w.cap_ents;
	mutex_unlock(&gpumem_registry_lock);

	gpumem_put_holders(&w);
	kvfree(w.holders);
	kvfree(w.files);
	kvfree(w.tgids);
	kfree(w.path);
	if (ret) {
		gpumem_snapshot_free(w.snap);
		return ERR_PTR(ret);
	}
	return w.snap;
}

/**
 * gpumem_snapshot_take() - walk every device and build a whole snapshot
 * @flags: GPUMEM_SNAP_*
 *
 * Context: process context, may sleep; takes gpumem_registry_lock.
 * Return: as gpumem_snapshot_take_filtered().
 */
struct gpumem_snapshot *gpumem_snapshot_take(unsigned int flags)
{
	return gpumem_snapshot_take_filtered(flags, NULL);
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

/**
 * gpumem_walk_stats() - copy the walk counters
 * @stats: where to copy them
 */
void gpumem_walk_stats(struct gpumem_walk_stats *stats)
{
	struct gpumem_device *gdev;

	mutex_lock(&gpumem_registry_lock);
	*stats = gpumem_stats;
	stats->devices = 0;
	list_for_each_entry(gdev, &gpumem_devices, node)
		stats->devices++;
	mutex_unlock(&gpumem_registry_lock);
}
