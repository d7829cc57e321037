// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_export.c - `gpumemctl export --prometheus`: per-process and
 * per-device metrics in the Prometheus text exposition format 0.0.4, for
 * node_exporter's textfile collector.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpumemctl.h"
#include "output.h"
#include "query.h"
#include "quota.h"

static const char help[] =
	"Usage: gpumemctl export --prometheus [-H] [-o FILE]\n"
	"\n"
	"Print gpumem's numbers in the Prometheus text exposition format 0.0.4:\n"
	"  gpumem_process_bytes{pid,comm,cgroup,device,region}\n"
	"  gpumem_process_shared_bytes, gpumem_process_owned_bytes (with -H),\n"
	"  gpumem_process_buffers{pid,comm,cgroup,device}\n"
	"  gpumem_device_capacity_bytes, gpumem_device_used_bytes,\n"
	"  gpumem_device_free_bytes{device,driver,pci,region}\n"
	"  gpumem_cgroup_usage_bytes{cgroup,device,region}\n"
	"  gpumem_cgroup_limit_bytes{cgroup,device,region,kind=\"max\"|\"high\"}\n"
	"(all gauges; a device value that is not known is left out; device=\"all\"\n"
	"is the total over all devices, not to be added to the others; the cgroup\n"
	"families are left out when the loaded module has no quota support).\n"
	"\n"
	"  -P, --prometheus   the format (required; the only one so far)\n"
	"  -H, --held         process figures from the held view (a walk: every\n"
	"                     region and driver, shared and owned bytes) instead\n"
	"                     of the charged view (VRAM/GTT counters, regions vram\n"
	"                     and gtt only); see gpumemctl ps --help\n"
	"  -o, --output FILE  write FILE atomically (a temporary file in the same\n"
	"                     directory, renamed), e.g. for the textfile collector:\n"
	"                     -o /var/lib/prometheus/node-exporter/gpumem.prom\n";

struct proc_labels {
	char pid[16], dev[24];
	struct prom_label l[5];
};

static void proc_labels(struct proc_labels *pl, const struct gm_proc *p)
{
	snprintf(pl->pid, sizeof(pl->pid), "%u", p->pid);
	snprintf(pl->dev, sizeof(pl->dev), "card%u", p->dev_id);
	pl->l[0] = (struct prom_label){ "pid", pl->pid };
	pl->l[1] = (struct prom_label){ "comm", p->comm };
	pl->l[2] = (struct prom_label){ "cgroup", p->cgroup };
	pl->l[3] = (struct prom_label){ "device", pl->dev };
	pl->l[4] = (struct prom_label){ "region", NULL };
}

enum dev_value { DEV_CAPACITY, DEV_USED, DEV_FREE };

static void device_family(FILE *f, const struct gm_dev_list *devs, enum dev_value which,
			  const char *name, const char *helptext)
{
	char rb[12];
	size_t i, r;

	prom_family(f, name, helptext, "gauge");
	for (i = 0; i < devs->n; i++) {
		const struct gm_dev *d = &devs->v[i];

		for (r = 0; r < d->nregions; r++) {
			const struct gm_dev_region *g = &d->regions[r];
			struct prom_label l[4] = {
				{ "device", d->name }, { "driver", d->driver },
				{ "pci", d->unique }, { "region", gm_region_label(g->region, rb) },
			};
			uint64_t v;

			if (which == DEV_CAPACITY && g->has_capacity)
				v = g->capacity;
			else if (which == DEV_USED && g->has_used)
				v = g->used;
			else if (which == DEV_FREE && g->has_capacity && g->has_used)
				v = g->capacity > g->used ? g->capacity - g->used : 0;
			else
				continue;
			prom_sample(f, name, l, 4, v);
		}
	}
}

/* What is exported: cgroups is NULL when the module cannot tell. */
struct metrics {
	const struct gm_dev_list *devs;
	const struct gm_proc_list *procs;
	const struct gm_limit_list *cgroups;
	bool held;	/* process figures from the held view */
};

static void cgroup_families(FILE *f, const struct gm_limit_list *l)
{
	char dev[16], rb[12], id[32];
	struct prom_label lb[4];
	size_t i;

	prom_family(f, "gpumem_cgroup_usage_bytes",
		    "GPU memory charged to a cgroup and its descendants, per device and region.",
		    "gauge");
	for (i = 0; i < l->n; i++) {
		const struct gm_limit *x = &l->v[i];

		if (!x->has_usage)
			continue;
		snprintf(id, sizeof(id), "(id %llu)", (unsigned long long)x->cgroup_id);
		lb[0] = (struct prom_label){ "cgroup", x->cgroup ? x->cgroup : id };
		lb[1] = (struct prom_label){ "device", gm_limit_device(x, dev) };
		lb[2] = (struct prom_label){ "region", gm_region_label(x->region, rb) };
		prom_sample(f, "gpumem_cgroup_usage_bytes", lb, 3, x->usage);
	}
	prom_family(f, "gpumem_cgroup_limit_bytes",
		    "GPU memory limit of a cgroup (max: placements beyond it are denied in "
		    "enforce mode; high: crossing it is reported).", "gauge");
	for (i = 0; i < l->n; i++) {
		const struct gm_limit *x = &l->v[i];

		snprintf(id, sizeof(id), "(id %llu)", (unsigned long long)x->cgroup_id);
		lb[0] = (struct prom_label){ "cgroup", x->cgroup ? x->cgroup : id };
		lb[1] = (struct prom_label){ "device", gm_limit_device(x, dev) };
		lb[2] = (struct prom_label){ "region", gm_region_label(x->region, rb) };
		lb[3] = (struct prom_label){ "kind", "max" };
		if (x->has_max)
			prom_sample(f, "gpumem_cgroup_limit_bytes", lb, 4, x->max);
		lb[3].value = "high";
		if (x->has_high)
			prom_sample(f, "gpumem_cgroup_limit_bytes", lb, 4, x->high);
	}
}

static void write_metrics(FILE *f, const struct metrics *m)
{
	const struct gm_dev_list *devs = m->devs;
	const struct gm_proc_list *procs = m->procs;
	struct proc_labels pl;
	size_t i;
	int r;

	prom_family(f, "gpumem_process_bytes", m->held ?
		    "Bytes of the distinct GPU buffer objects a process holds, per device and region." :
		    "Bytes of the VRAM/GTT placements a process allocated, still resident, per device and region.",
		    "gauge");
	for (i = 0; i < procs->n; i++) {
		proc_labels(&pl, &procs->v[i]);
		for (r = 0; r < GM_NREGIONS; r++) {
			if (!procs->v[i].held && r > 1)
				continue;	/* charged view: vram and gtt */
			pl.l[4].value = gm_region_name((uint32_t)r);
			prom_sample(f, "gpumem_process_bytes", pl.l, 5, procs->v[i].usage[r]);
		}
	}
	if (m->held) {
		prom_family(f, "gpumem_process_shared_bytes",
			    "Bytes of a process's buffers that other processes or dma-buf share.", "gauge");
		for (i = 0; i < procs->n; i++) {
			proc_labels(&pl, &procs->v[i]);
			prom_sample(f, "gpumem_process_shared_bytes", pl.l, 4, procs->v[i].shared);
		}
		prom_family(f, "gpumem_process_owned_bytes",
			    "Bytes of the buffers a process owns (each buffer counted once per device).",
			    "gauge");
		for (i = 0; i < procs->n; i++) {
			proc_labels(&pl, &procs->v[i]);
			prom_sample(f, "gpumem_process_owned_bytes", pl.l, 4, procs->v[i].owned);
		}
	}
	prom_family(f, "gpumem_process_buffers",
		    "Number of distinct GPU buffer objects a process holds.", "gauge");
	for (i = 0; i < procs->n; i++) {
		proc_labels(&pl, &procs->v[i]);
		prom_sample(f, "gpumem_process_buffers", pl.l, 4, procs->v[i].bos);
	}
	device_family(f, devs, DEV_CAPACITY, "gpumem_device_capacity_bytes",
		      "Capacity of a device memory region in bytes.");
	device_family(f, devs, DEV_USED, "gpumem_device_used_bytes",
		      "Bytes in use in a device memory region, kernel-internal buffers included.");
	device_family(f, devs, DEV_FREE, "gpumem_device_free_bytes",
		      "Free bytes of a device memory region.");
	if (m->cgroups)
		cgroup_families(f, m->cgroups);
}

/* Write through a temporary file in FILE's directory and rename it. */
static int write_file(const char *path, const struct metrics *m)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	FILE *f;
	int fd, err = 0;

	if (!tmp)
		return gm_error("out of memory");
	snprintf(tmp, len + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		gm_error("cannot create a temporary file for %s: %s", path, strerror(err));
		free(tmp);
		return GM_EXIT_ERROR;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		goto fail;
	}
	fchmod(fd, 0644);
	write_metrics(f, m);
	if (fflush(f) != 0 || ferror(f) || fsync(fd) < 0)
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (!err) {
		free(tmp);
		return GM_EXIT_OK;
	}
fail:
	unlink(tmp);
	free(tmp);
	return gm_error("cannot write %s: %s", path, strerror(err));
}

int cmd_export(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "prometheus", no_argument, NULL, 'P' },
		{ "output", required_argument, NULL, 'o' },
		{ "held", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct gm_proc_filter all = { 0 };
	struct gm_limit_list cgroups = { 0 };
	struct gm_proc_list procs;
	struct gm_dev_list devs;
	struct metrics m = { &devs, &procs, &cgroups, false };
	struct gm_nl nl = { 0 };
	const char *out = NULL;
	bool prom = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "Po:H", opts, NULL)) != -1) {
		switch (c) {
		case 'P':
			prom = true;
			break;
		case 'H':
			m.held = all.held = true;
			break;
		case 'o':
			if (!*optarg)
				return gm_usage_error("export", "empty output file name");
			out = optarg;
			break;
		default:
			ret = gm_common_opt(c, "export", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("export", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (!prom)
		return gm_usage_error("export", "which format? --prometheus is required");
	if (o->json)
		return gm_usage_error("export", "--json does not go with --prometheus");

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_get_devices(&nl, &devs) < 0) {
		ret = gm_nl_report(&nl, "devices");
		gm_nl_close(&nl);
		return ret;
	}
	if (gm_get_procs(&nl, &all, &procs) < 0) {
		ret = gm_nl_report(&nl, "processes");
		gm_dev_list_free(&devs);
		gm_nl_close(&nl);
		return ret;
	}
	if (gm_get_cgroups(&nl, &cgroups) < 0) {
		if (nl.error != EOPNOTSUPP) {	/* EOPNOTSUPP: a module without quotas */
			ret = gm_nl_report(&nl, "cgroups");
			gm_proc_list_free(&procs);
			gm_dev_list_free(&devs);
			gm_nl_close(&nl);
			return ret;
		}
		m.cgroups = NULL;
	}
	gm_nl_close(&nl);
	gm_procs_sort(&procs);

	if (out) {
		ret = write_file(out, &m);
	} else {
		write_metrics(stdout, &m);
		ret = GM_EXIT_OK;
	}
	gm_limit_list_free(&cgroups);
	gm_proc_list_free(&procs);
	gm_dev_list_free(&devs);
	return ret;
}
