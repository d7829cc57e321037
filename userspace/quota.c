// SPDX-License-Identifier: GPL-2.0
/*
 * quota.c - limits, per-cgroup usage and quota events as tables, JSON and
 * event lines.
 */
#include "quota.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../uapi/gpumem.h"

const char *gm_limit_device(const struct gm_limit *l, char *buf)
{
	if (!l->has_dev)
		return "all";
	snprintf(buf, 16, "card%u", l->dev_id);
	return buf;
}

/* the mode's name, or its number; buf: 12 bytes */
static const char *mode_label(uint32_t mode, char *buf)
{
	const char *n = gm_mode_name(mode);

	if (n)
		return n;
	snprintf(buf, 12, "%u", mode);
	return buf;
}

int gm_limits_table(FILE *f, const struct gm_limit_list *l, bool exact)
{
	static const char *const hdr[] = {
		"DEVICE", "REGION", "USAGE", "MAX", "HIGH", "USE%", "MODE", "DENIED", "CGROUP",
	};
	char usage[FMT_BYTES_LEN], max[FMT_BYTES_LEN], high[FMT_BYTES_LEN], pct[16];
	char dev[16], rb[12], mb[12], denied[24], id[32];
	struct table t;
	size_t i;
	int ret = 0;

	tbl_init(&t, 9, hdr, "llrrrrlrl");
	for (i = 0; i < l->n && !ret; i++) {
		const struct gm_limit *x = &l->v[i];
		const char *row[9] = {
			gm_limit_device(x, dev), gm_region_label(x->region, rb),
			x->has_usage ? fmt_bytes(usage, sizeof(usage), x->usage, exact) : NULL,
			x->has_max ? fmt_bytes(max, sizeof(max), x->max, exact) : NULL,
			x->has_high ? fmt_bytes(high, sizeof(high), x->high, exact) : NULL,
			NULL,
			x->has_mode ? mode_label(x->mode, mb) : NULL,
			NULL,
			x->cgroup,
		};

		if (x->has_usage && x->has_max && x->max) {
			snprintf(pct, sizeof(pct), "%.1f%%", 100.0 * (double)x->usage / (double)x->max);
			row[5] = pct;
		}
		if (x->has_denied) {
			snprintf(denied, sizeof(denied), "%" PRIu64, x->denied);
			row[7] = denied;
		}
		if (!x->cgroup) {	/* the kernel did not know the path */
			snprintf(id, sizeof(id), "(id %" PRIu64 ")", x->cgroup_id);
			row[8] = id;
		}
		ret = tbl_add(&t, row);
	}
	if (!ret)
		tbl_print(&t, f, 0);
	tbl_free(&t);
	return ret;
}

static void kv_opt_u64(struct jw *w, const char *key, bool has, uint64_t v)
{
	if (has)
		jw_kv_u64(w, key, v);
	else
		jw_kv_null(w, key);
}

void gm_limit_json(struct jw *w, const struct gm_limit *l)
{
	char dev[16], rb[12], mb[12];

	jw_object_begin(w);
	jw_kv_u64(w, "cgroup_id", l->cgroup_id);
	jw_kv_string(w, "cgroup", l->cgroup);
	jw_kv_string(w, "device", gm_limit_device(l, dev));
	jw_kv_string(w, "region", gm_region_label(l->region, rb));
	kv_opt_u64(w, "usage", l->has_usage, l->usage);
	kv_opt_u64(w, "max", l->has_max, l->max);
	kv_opt_u64(w, "high", l->has_high, l->high);
	jw_kv_string(w, "mode", l->has_mode ? mode_label(l->mode, mb) : NULL);
	kv_opt_u64(w, "denied", l->has_denied, l->denied);
	jw_object_end(w);
}

void gm_limits_json(FILE *f, const struct gm_limit_list *l)
{
	struct jw w;
	size_t i;

	jw_init(&w, f);
	jw_array_begin(&w);
	for (i = 0; i < l->n; i++)
		gm_limit_json(&w, &l->v[i]);
	jw_array_end(&w);
	jw_finish(&w);
}

/* --- events ------------------------------------------------------------ */

uint64_t gm_seq_next(struct gm_seq *s, const struct gm_event *e, uint64_t *first)
{
	uint64_t missed = 0;

	*first = 0;
	if (!e->has_seq)
		return 0;
	if (s->valid && e->seq > s->last && e->seq - s->last > 1) {
		missed = e->seq - s->last - 1;
		*first = s->last + 1;
	}
	s->valid = true;
	s->last = e->seq;
	return missed;
}

char *gm_local_time(char *buf, size_t len, const struct timespec *when)
{
	struct tm tm;
	time_t t = when->tv_sec;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)t);
	return buf;
}

/* what the event's LIMIT is, by event type */
static const char *limit_kind(const struct gm_event *e)
{
	if (!e->has_type)
		return "limit";
	switch (e->type) {
	case GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED: return "max";
	case GPUMEM_EVENT_TYPE_HIGH_CROSSED: return "high";
	case GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD: return "threshold";
	default: return "limit";
	}
}

/* the type's name, its number, or "event"; buf: 16 bytes */
static const char *type_label(const struct gm_event *e, char *buf)
{
	const char *n = e->has_type ? gm_event_type_name(e->type) : "event";

	if (n)
		return n;
	snprintf(buf, 16, "event-%u", e->type);
	return buf;
}

static void put_safe(FILE *f, const char *s)
{
	char *t = term_safe(s);

	fputs(t ? t : "?", f);
	free(t);
}

void gm_event_line(FILE *f, const struct gm_event *e, const struct timespec *when, bool exact)
{
	char ts[32], tb[16], rb[12], mb[12], b[FMT_BYTES_LEN];
	const char *sep = ": ";
	bool quota = e->has_type && (e->type == GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED ||
				     e->type == GPUMEM_EVENT_TYPE_HIGH_CROSSED);

	fprintf(f, "%s %s", gm_local_time(ts, sizeof(ts), when), type_label(e, tb));
	if (e->cgroup) {
		fputs(" cgroup ", f);
		put_safe(f, e->cgroup);
	} else if (e->has_cgroup_id) {
		fprintf(f, " cgroup (id %" PRIu64 ")", e->cgroup_id);
	}
	if (e->has_pid) {
		fprintf(f, " pid %u", e->pid);
		if (e->comm) {
			fputs(" (", f);
			put_safe(f, e->comm);
			fputc(')', f);
		}
	}
	if (e->has_dev_id && e->dev_id == GM_EVENT_ALL_DEVICES)
		fputs(" all-devices", f);
	else if (e->has_dev_id)
		fprintf(f, " card%u", e->dev_id);
	if (e->has_region)
		fprintf(f, " %s", gm_region_label(e->region, rb));
	if (e->has_requested) {
		fprintf(f, "%srequested %s", sep, fmt_bytes(b, sizeof(b), e->requested, exact));
		sep = ", ";
	}
	if (e->has_usage) {
		fprintf(f, "%susage %s", sep, fmt_bytes(b, sizeof(b), e->usage, exact));
		sep = ", ";
	}
	if (e->has_limit) {
		fprintf(f, "%s%s %s", sep, limit_kind(e), fmt_bytes(b, sizeof(b), e->limit, exact));
		sep = ", ";
	}
	sep = strcmp(sep, ", ") == 0 ? "; " : ": ";
	if (quota || e->denied) {
		fprintf(f, "%s%s", sep, e->denied ? "denied" : "allowed");
		if (e->has_mode)
			fprintf(f, " (%s)", mode_label(e->mode, mb));
		sep = "; ";
	} else if (e->has_mode) {
		fprintf(f, "%s%s", sep, mode_label(e->mode, mb));
		sep = "; ";
	}
	if (e->suppressed)
		fprintf(f, "%s%" PRIu64 " suppressed", sep, e->suppressed);
	fputc('\n', f);
}

void gm_event_json(FILE *f, const struct gm_event *e, const struct timespec *when,
		   uint64_t missed)
{
	char ts[48], tb[16], dev[16], rb[12], mb[12];
	time_t t = when->tv_sec;
	struct tm tm;
	struct jw w;

	if (gmtime_r(&t, &tm) && strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(ts + strlen(ts), sizeof(ts) - strlen(ts), ".%03ldZ",
			 when->tv_nsec / 1000000L);
	else
		snprintf(ts, sizeof(ts), "%lld", (long long)t);
	if (e->dev_id == GM_EVENT_ALL_DEVICES)
		snprintf(dev, sizeof(dev), "all");
	else
		snprintf(dev, sizeof(dev), "card%u", e->dev_id);

	jw_init(&w, f);
	jw_object_begin(&w);
	jw_kv_string(&w, "time", ts);
	kv_opt_u64(&w, "seq", e->has_seq, e->seq);
	jw_kv_string(&w, "type", e->has_type ? type_label(e, tb) : NULL);
	kv_opt_u64(&w, "cgroup_id", e->has_cgroup_id, e->cgroup_id);
	jw_kv_string(&w, "cgroup", e->cgroup);
	kv_opt_u64(&w, "pid", e->has_pid, e->pid);
	jw_kv_string(&w, "comm", e->comm);
	jw_kv_string(&w, "device", e->has_dev_id ? dev : NULL);
	jw_kv_string(&w, "region", e->has_region ? gm_region_label(e->region, rb) : NULL);
	kv_opt_u64(&w, "requested", e->has_requested, e->requested);
	kv_opt_u64(&w, "usage", e->has_usage, e->usage);
	kv_opt_u64(&w, "limit", e->has_limit, e->limit);
	jw_kv_string(&w, "mode", e->has_mode ? mode_label(e->mode, mb) : NULL);
	if (e->has_denied)
		jw_kv_bool(&w, "denied", e->denied);
	else
		jw_kv_null(&w, "denied");
	jw_kv_u64(&w, "suppressed", e->suppressed);
	jw_kv_u64(&w, "missed", missed);
	jw_object_end(&w);
	jw_finish(&w);
}

void gm_missed_line(FILE *f, const struct timespec *when, uint64_t missed, uint64_t first)
{
	char ts[32];

	fprintf(f, "%s warning: %" PRIu64 " event%s missed (seq %" PRIu64, gm_local_time(ts, sizeof(ts), when),
		missed, missed == 1 ? "" : "s", first);
	if (missed > 1)
		fprintf(f, " to %" PRIu64, first + missed - 1);
	fputs(" not received)\n", f);
}
