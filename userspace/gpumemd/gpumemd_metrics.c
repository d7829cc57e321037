// SPDX-License-Identifier: GPL-2.0
/*
 * gpumemd_metrics.c - one scrape: a fresh look at the kernel as Prometheus
 * text. The device, process and cgroup families are gpumemctl export's own
 * (the field lists of dev_fields.c, proc_fields.c and quota.c, printed by
 * gm_fields_prom): the same names, labels and values, with pod_uid and
 * container_id added to the process and cgroup series. The walker's and
 * hooks' statistics are gpumemctl stats' fields (stats_fields.c), also
 * printed by gm_fields_prom, as are the limits' denials (a counter field
 * of this file's, with the cgroup families' labels); the agent's event
 * counters, gpumem_up and the statistics a newer module adds are written
 * here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "gpumemd.h"
#include "libgpumem.h"
#include "output.h"
#include "quota.h"

/* A row with its Kubernetes ids: the reply struct first, so that the field
 * lists' offsets apply to the row as they do to the struct. */
struct proc_row {
	struct gm_proc p;
	char pod[GD_POD_UID_LEN];
	char cid[GD_CONTAINER_ID_LEN];
};

struct limit_row {
	struct gm_limit l;
	char pod[GD_POD_UID_LEN];
	char cid[GD_CONTAINER_ID_LEN];
};

/* a char array at offset arg of the row; "" is not known (an empty label) */
static void get_chars(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const char *s = (const char *)obj + f->arg;

	(void)buf;
	if (*s) {
		v->kind = GM_V_STR;
		v->s = s;
	}
}

#define KUBE_LABELS(type) \
	{ .label = "pod_uid", .get = get_chars, .arg = offsetof(type, pod) }, \
	{ .label = "container_id", .get = get_chars, .arg = offsetof(type, cid) }

static const struct gm_field proc_kube[] = { KUBE_LABELS(struct proc_row) };
static const struct gm_field limit_kube[] = { KUBE_LABELS(struct limit_row) };

/* base's fields and then extra's, in a new list (free its .v) */
static int fieldset_plus(struct gm_fields *out, const struct gm_fields *base,
			 const struct gm_field *extra, size_t nextra)
{
	struct gm_field *v = calloc(base->n + nextra, sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, base->v, base->n * sizeof(*v));
	memcpy(v + base->n, extra, nextra * sizeof(*v));
	*out = *base;
	out->v = v;
	out->n = base->n + nextra;
	return 0;
}

/* the label fields of base (their metrics left out) and then m: a new list (free its .v) */
static int labels_plus(struct gm_fields *out, const struct gm_fields *base,
		       const struct gm_field *m)
{
	struct gm_field *v = calloc(base->n + 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < base->n; i++)
		if (base->v[i].label) {
			v[n] = base->v[i];
			v[n++].metric = NULL;
		}
	v[n++] = *m;
	*out = *base;
	out->v = v;
	out->n = n;
	return 0;
}

/* a limit's denials (LIMIT_GET); not known when the kernel did not send them */
static void get_denied(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *l = obj;

	(void)f;
	(void)buf;
	if (l->has_denied) {
		v->kind = GM_V_U64;
		v->u = l->denied;
	}
}

/*
 * The denials of every limit, a counter (not in gpumemctl export: its rows
 * are CGROUP_GET's), labelled as the cgroup families are.
 */
static const struct gm_field limit_denied = {
	.metric = "gpumem_cgroup_denied_total", .flags = GM_F_COUNTER, .get = get_denied,
	.help = "Placements a cgroup's limit denied (or, in monitor mode, would have denied), "
		"per limit: device and region.",
};

/* The processes (charged view), as gpumemctl export writes them, with pod labels. */
/*
 * The per-process families, as mode says: off, none (not even a dump);
 * auto, only while the node has at most GD_PROCS_AUTO_MAX process rows
 * (beyond, a series per process and device would grow without bound:
 * the per-cgroup families hold the same bytes per pod and container).
 * gpumem_process_metrics says whether they are in this scrape.
 */
static int write_procs(FILE *f, struct gm_nl *nl, enum gd_process_metrics mode)
{
	struct gm_proc_filter all = { 0 };
	struct gm_fields base = gm_proc_fieldset(false, true), fs;
	struct gm_proc_list procs;
	struct proc_row *rows;
	bool on;
	size_t i;
	int ret;

	prom_family(f, "gpumem_process_metrics",
		    "1 if this scrape has the per-process families (--process-metrics; auto: "
		    "at most 500 process rows), 0 if not.", "gauge");
	if (mode == GD_PROCS_OFF) {
		fprintf(f, "gpumem_process_metrics 0\n");
		return 0;
	}
	ret = gm_get_procs(nl, &all, &procs);
	if (ret < 0)
		return ret;
	on = mode == GD_PROCS_ON || procs.n <= GD_PROCS_AUTO_MAX;
	fprintf(f, "gpumem_process_metrics %d\n", on ? 1 : 0);
	if (!on) {
		gm_proc_list_free(&procs);
		return 0;
	}
	gm_procs_sort(&procs);
	rows = calloc(procs.n ? procs.n : 1, sizeof(*rows));
	if (!rows || fieldset_plus(&fs, &base, proc_kube, 2) < 0) {
		free(rows);
		gm_proc_list_free(&procs);
		return -ENOMEM;
	}
	for (i = 0; i < procs.n; i++) {
		rows[i].p = procs.v[i];
		gd_kube_ids(procs.v[i].cgroup, rows[i].pod, rows[i].cid);
	}
	gm_fields_prom(f, &fs, rows, procs.n, sizeof(*rows));
	free((void *)fs.v);
	free(rows);
	gm_proc_list_free(&procs);
	return 0;
}

/* kube ids of a list of limits, in rows (calloc'ed; NULL: no memory) */
static struct limit_row *limit_rows(const struct gm_limit_list *l)
{
	struct limit_row *rows = calloc(l->n ? l->n : 1, sizeof(*rows));
	size_t i;

	if (!rows)
		return NULL;
	for (i = 0; i < l->n; i++) {
		rows[i].l = l->v[i];
		gd_kube_ids(l->v[i].cgroup, rows[i].pod, rows[i].cid);
	}
	return rows;
}

/*
 * Usage and limits per cgroup (CGROUP_GET, as gpumemctl export) and the
 * denials of every limit (LIMIT_GET). -EOPNOTSUPP: a module without quotas.
 */
static int write_cgroups(FILE *f, struct gm_nl *nl, const struct gm_dev_list *devs)
{
	struct gm_fields base = gm_limit_fieldset(true), fs;
	struct gm_limit_list cgroups, limits;
	struct limit_row *rows;
	int ret;

	if (gm_get_cgroups(nl, &cgroups) < 0)
		return -nl->error;
	/* the dmem controller's figures of the cgroups where it charges */
	if (gm_dmem_limits(devs, &cgroups))
		base.skip &= ~GM_F_DMEM;
	if (fieldset_plus(&fs, &base, limit_kube, 2) < 0) {
		gm_limit_list_free(&cgroups);
		return -ENOMEM;
	}
	rows = limit_rows(&cgroups);
	if (rows)
		gm_fields_prom(f, &fs, rows, cgroups.n, sizeof(*rows));
	free(rows);
	gm_limit_list_free(&cgroups);
	ret = rows ? 0 : -ENOMEM;

	if (!ret && gm_get_limits(nl, &limits) == 0) {
		struct gm_fields dfs;

		rows = limit_rows(&limits);
		if (rows && labels_plus(&dfs, &fs, &limit_denied) == 0) {
			gm_fields_prom(f, &dfs, rows, limits.n, sizeof(*rows));
			free((void *)dfs.v);
		} else {
			ret = -ENOMEM;
		}
		free(rows);
		gm_limit_list_free(&limits);
	} else if (!ret) {
		ret = -nl->error;
	}
	free((void *)fs.v);
	return ret;
}

/* the field of fs for attribute ATTR, or NULL */
static const struct gm_field *attr_field(const struct gm_fields *fs, int attr)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->v[i].attr == attr)
			return &fs->v[i];
	return NULL;
}

/*
 * The walker's and hooks' statistics: every integer attribute of the reply,
 * in the attributes' order, a family each; those of gm_stats_fieldset()
 * (stats_fields.c, gpumemctl stats' own list) by its fields, any other (a
 * newer module's) as gpumem_stat_<spec name> (a gauge: what it counts is
 * not known here).
 */
static int write_stats(FILE *f, struct gm_nl *nl)
{
	struct gm_fields fs = gm_stats_fieldset();
	struct gm_stats s;
	int type;

	if (gm_get_stats(nl, &s) < 0)
		return -nl->error;
	for (type = 1; type <= GPUMEM_A_STATS_MAX; type++) {
		const struct gm_field *field = attr_field(&fs, type);
		const char *spec = gm_spec_stats_names[type];
		char name[96], help[128];
		uint64_t v;
		char *p;

		if (!gm_raw_uint(&s.raw, type, &v))
			continue;	/* not sent, or the pad */
		if (field) {	/* that field alone: its family and sample */
			struct gm_fields one = { .v = field, .n = 1 };

			gm_fields_prom(f, &one, &s, 1, sizeof(s));
			continue;
		}
		if (!spec)
			continue;
		snprintf(name, sizeof(name), "gpumem_stat_%s", spec);
		for (p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		snprintf(help, sizeof(help), "gpumem's statistic %s (stats-get).", spec);
		prom_family(f, name, help, "gauge");
		fprintf(f, "%s %" PRIu64 "\n", name, v);
	}
	gm_stats_free(&s);
	return 0;
}

int gd_events_init(struct gd_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	pthread_mutex_init(&ev->lock, NULL);
	ev->ntypes = GM_SPEC_EVENT_TYPE_COUNT;
	ev->by_type = calloc(ev->ntypes, sizeof(*ev->by_type));
	return ev->by_type ? 0 : -ENOMEM;
}

static void write_events(FILE *f, struct gd_events *ev)
{
	struct prom_label l = { "type", NULL };
	size_t i;

	pthread_mutex_lock(&ev->lock);
	prom_family(f, "gpumem_events_total",
		    "Events received from gpumem's events group since the agent started, by type.",
		    "counter");
	for (i = 0; i < ev->ntypes; i++) {
		l.value = gm_event_type_name((uint32_t)i);
		if (l.value)
			prom_sample(f, "gpumem_events_total", &l, 1, ev->by_type[i]);
	}
	if (ev->unknown) {
		l.value = "unknown";
		prom_sample(f, "gpumem_events_total", &l, 1, ev->unknown);
	}
	prom_family(f, "gpumem_events_dmem_total",
		    "Of the events, the quota-exceeded ones whose source is the kernel's dmem "
		    "controller (its dmem.max refused a placement).", "counter");
	fprintf(f, "gpumem_events_dmem_total %" PRIu64 "\n", ev->dmem);
	prom_family(f, "gpumem_events_lost_total",
		    "Events lost on the way to the agent (gaps in their sequence numbers).",
		    "counter");
	fprintf(f, "gpumem_events_lost_total %" PRIu64 "\n", ev->lost);
	prom_family(f, "gpumem_events_overflows_total",
		    "Times the agent's event socket overflowed (events lost, count unknown until "
		    "the next sequence number).", "counter");
	fprintf(f, "gpumem_events_overflows_total %" PRIu64 "\n", ev->overflows);
	prom_family(f, "gpumem_events_suppressed_total",
		    "Events the module rate-limited per cgroup (reported in the next event).",
		    "counter");
	fprintf(f, "gpumem_events_suppressed_total %" PRIu64 "\n", ev->suppressed);
	prom_family(f, "gpumem_events_resubscriptions_total",
		    "Subscriptions to the events group after the first (module reloads).",
		    "counter");
	fprintf(f, "gpumem_events_resubscriptions_total %" PRIu64 "\n", ev->reconnects);
	prom_family(f, "gpumem_events_subscribed",
		    "1 while the agent is in gpumem's events group.", "gauge");
	fprintf(f, "gpumem_events_subscribed %d\n", ev->subscribed ? 1 : 0);
	pthread_mutex_unlock(&ev->lock);
}

static void note_failure(struct gm_nl *nl, const char *what)
{
	char buf[GM_NL_MSG_LEN + 128];

	fprintf(stderr, "gpumemd: scrape: %s: %s\n", what, gm_nl_strerror(nl, buf, sizeof(buf)));
}

/*
 * gpumem_device_info: one series per device, its card name with its stable
 * PCI address (the bus id) and driver, to join on when cardN renumbers.
 */
static void write_device_info(FILE *f, const struct gm_dev_list *devs)
{
	struct prom_label l[3] = { { "device", NULL }, { "driver", NULL }, { "pci", NULL } };
	size_t i;

	prom_family(f, "gpumem_device_info",
		    "One series per device: its card name, driver and bus id (PCI address, "
		    "stable across reboots), value 1.", "gauge");
	for (i = 0; i < devs->n; i++) {
		l[0].value = devs->v[i].name;
		l[1].value = devs->v[i].driver;
		l[2].value = devs->v[i].unique;
		prom_sample(f, "gpumem_device_info", l, 3, 1);
	}
}

int gd_scrape(FILE *f, struct gd_events *ev, const struct gd_scrape_opts *opts)
{
	static const struct gd_scrape_opts defaults = { .procs = GD_PROCS_AUTO };
	struct gm_nl nl = { 0 };
	struct gm_dev_list devs;
	struct gm_dev_row *dev_rows = NULL;
	struct gm_fields dfs = gm_dev_fieldset(true);
	size_t ndev_rows = 0;
	int up = 0, errors = 0;

	/* a dump of the families: never loads a module that was unloaded on purpose */
	if (gm_nl_family_present(GPUMEM_FAMILY_NAME) == 1 && gm_nl_open(&nl) == 0) {
		if (gm_get_devices(&nl, &devs) == 0)
			up = 1;
		else if (!nl.no_family)
			note_failure(&nl, "devices");
	}
	prom_family(f, "gpumem_up",
		    "1 if the gpumem module answered this scrape, 0 if it is not loaded or did not.",
		    "gauge");
	fprintf(f, "gpumem_up %d\n", up);
	if (up) {
		dfs = gm_dev_fieldset_dmem(true, gm_dmem_enrich(&devs));
		dev_rows = gm_dev_rows(&devs, &ndev_rows);
		if (dev_rows || !devs.n)
			gm_fields_prom(f, &dfs, dev_rows, ndev_rows, sizeof(*dev_rows));
		else
			errors++;
		free(dev_rows);
		write_device_info(f, &devs);
		if (write_procs(f, &nl, (opts ? opts : &defaults)->procs) < 0) {
			note_failure(&nl, "processes");
			errors++;
		}
		/* EOPNOTSUPP: a module without quotas, no cgroup families */
		if (write_cgroups(f, &nl, &devs) < 0 && nl.error != EOPNOTSUPP) {
			note_failure(&nl, "cgroups");
			errors++;
		}
		gm_dev_list_free(&devs);
		if (write_stats(f, &nl) < 0) {
			note_failure(&nl, "stats");
			errors++;
		}
		prom_family(f, "gpumem_scrape_errors",
			    "Requests of this scrape that failed (their families are left out).",
			    "gauge");
		fprintf(f, "gpumem_scrape_errors %d\n", errors);
	}
	gm_nl_close(&nl);
	if (ev && ev->enabled)
		write_events(f, ev);
	return up;
}
