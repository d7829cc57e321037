// SPDX-License-Identifier: GPL-2.0
/*
 * quota.c - limits, per-cgroup usage and quota events as tables, JSON and
 * event lines.
 */
#include "quota.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include "../../uapi/gpumem.h"
#include "fields.h"

const char *gm_limit_device(const struct gm_limit *l, char *buf)
{
	if (!l->has_dev)
		return "all";
	return gm_card_name(buf, l->dev_id);
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

static void get_cgroup(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = x->cgroup;
	if (!x->cgroup) {	/* the kernel did not know the path */
		snprintf(buf, GM_FIELD_BUF, "(id %" PRIu64 ")", x->cgroup_id);
		v->s = buf;
	}
}

static void get_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_limit_device(obj, buf);
}

static void get_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_region_label(x->region, buf);
}

/* the optional u64s of a limit row: arg names which */
enum { L_USAGE, L_MAX, L_HIGH, L_DENIED };

static void get_opt(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;
	bool has[] = { x->has_usage, x->has_max, x->has_high, x->has_denied };
	uint64_t val[] = { x->usage, x->max, x->high, x->denied };

	(void)buf;
	if (has[f->arg]) {
		v->kind = f->arg == L_DENIED ? GM_V_U64 : GM_V_BYTES;
		v->u = val[f->arg];
	}
}

static void get_use(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;

	(void)f;
	if (x->has_usage && x->has_max && x->max) {
		snprintf(buf, GM_FIELD_BUF, "%.1f%%", 100.0 * (double)x->usage / (double)x->max);
		v->kind = GM_V_STR;
		v->s = buf;
	}
}

/* the dmem controller's figure arg (enum gm_dmem_file) of the row's cgroup */
static void get_dmem(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;
	const struct gm_dmem_val *d = &x->dmem[f->arg];

	(void)buf;
	if (!d->known)
		return;
	if (d->unlimited) {
		v->kind = GM_V_STR;
		v->s = "max";
		return;
	}
	v->kind = GM_V_BYTES;
	v->u = d->bytes;
}

static void get_dmem_region(const struct gm_field *f, const void *obj, struct gm_val *v,
			    char *buf)
{
	const struct gm_limit *x = obj;

	(void)f;
	(void)buf;
	if (x->dmem_region[0]) {
		v->kind = GM_V_STR;
		v->s = x->dmem_region;
	}
}

static void get_mode(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_limit *x = obj;

	(void)f;
	if (x->has_mode) {
		v->kind = GM_V_STR;
		v->s = mode_label(x->mode, buf);
	}
}

/*
 * A limit or cgroup usage row (struct gm_limit), once for the tables, JSON
 * (limit, cgroups) and Prometheus (export). The table shows the cgroup's
 * path, or its id when the kernel did not know the path, last; JSON has
 * both, the path null when not known.
 */
static const struct gm_field limit_fields[] = {
	{ .title = "CGROUP", .label = "cgroup", .flags = GM_F_TAIL, .get = get_cgroup },
	{ .key = "cgroup_id", .get = gm_get_u64, .arg = offsetof(struct gm_limit, cgroup_id) },
	{ .key = "cgroup", .get = gm_get_str, .arg = offsetof(struct gm_limit, cgroup) },
	{ .title = "DEVICE", .key = "device", .label = "device", .get = get_device },
	{ .title = "REGION", .key = "region", .label = "region", .get = get_region },
	{ .title = "USAGE", .align = 'r', .key = "usage", .get = get_opt, .arg = L_USAGE,
	  .metric = "gpumem_cgroup_usage_bytes",
	  .help = "GPU memory charged to a cgroup and its descendants, per device and region." },
	{ .title = "MAX", .align = 'r', .key = "max", .get = get_opt, .arg = L_MAX,
	  .metric = "gpumem_cgroup_limit_bytes", .xlabel = "kind", .xvalue = "max",
	  .help = "GPU memory limit of a cgroup (max: placements beyond it are denied in "
		  "enforce mode; high: crossing it is reported)." },
	{ .title = "HIGH", .align = 'r', .key = "high", .get = get_opt, .arg = L_HIGH,
	  .metric = "gpumem_cgroup_limit_bytes", .xlabel = "kind", .xvalue = "high" },
	{ .title = "USE%", .align = 'r', .get = get_use },
	{ .title = "MODE", .key = "mode", .get = get_mode },
	{ .title = "DENIED", .align = 'r', .key = "denied", .get = get_opt, .arg = L_DENIED },
	/*
	 * Source dmem: where the dmem cgroup controller charges the device
	 * region, the cgroup's own dmem files ("max": unlimited; dmem limits
	 * those placements, gpumem's MAX does not)
	 */
	{ .title = "DMEM", .key = "dmem_region", .flags = GM_F_OMIT | GM_F_DMEM | GM_F_WIDE,
	  .get = get_dmem_region },
	{ .title = "DMEM-CUR", .align = 'r', .key = "dmem_current", .flags = GM_F_OMIT | GM_F_DMEM,
	  .get = get_dmem, .arg = GM_DMEM_CURRENT,
	  .metric = "gpumem_cgroup_dmem_bytes", .xlabel = "kind", .xvalue = "current",
	  .help = "The dmem cgroup controller's figures of a cgroup on a device region dmem "
		  "limits (its dmem.current, and dmem.max, dmem.min, dmem.low when not max)." },
	{ .title = "DMEM-MAX", .align = 'r', .key = "dmem_max", .flags = GM_F_OMIT | GM_F_DMEM,
	  .get = get_dmem, .arg = GM_DMEM_MAX,
	  .metric = "gpumem_cgroup_dmem_bytes", .xlabel = "kind", .xvalue = "max" },
	{ .title = "DMEM-MIN", .align = 'r', .key = "dmem_min",
	  .flags = GM_F_OMIT | GM_F_DMEM | GM_F_WIDE, .get = get_dmem, .arg = GM_DMEM_MIN,
	  .metric = "gpumem_cgroup_dmem_bytes", .xlabel = "kind", .xvalue = "min" },
	{ .title = "DMEM-LOW", .align = 'r', .key = "dmem_low",
	  .flags = GM_F_OMIT | GM_F_DMEM | GM_F_WIDE, .get = get_dmem, .arg = GM_DMEM_LOW,
	  .metric = "gpumem_cgroup_dmem_bytes", .xlabel = "kind", .xvalue = "low" },
};

struct gm_fields gm_limit_fieldset(bool exact)
{
	return (struct gm_fields){
		.v = limit_fields, .n = sizeof(limit_fields) / sizeof(*limit_fields), .exact = exact,
		.skip = GM_F_DMEM,
	};
}

/* with the dmem fields when a row of l has a dmem region */
static struct gm_fields limit_fieldset_of(const struct gm_limit_list *l, bool exact)
{
	struct gm_fields fs = gm_limit_fieldset(exact);

	if (l->dmem)
		fs.skip &= ~GM_F_DMEM;
	return fs;
}

int gm_limits_table(FILE *f, const struct gm_limit_list *l, bool exact)
{
	struct gm_fields fs = limit_fieldset_of(l, exact);

	return gm_fields_table(f, &fs, l->v, l->n, sizeof(*l->v), 0);
}

void gm_limit_json(struct jw *w, const struct gm_limit *l)
{
	struct gm_fields fs = gm_limit_fieldset(true);

	gm_fields_json(w, &fs, l);
}

void gm_limits_json(FILE *f, const struct gm_limit_list *l)
{
	struct gm_fields fs = limit_fieldset_of(l, true);

	gm_fields_json_array(f, &fs, l->v, l->n, sizeof(*l->v));
}

void gm_limits_prom(FILE *f, const struct gm_limit_list *l)
{
	struct gm_fields fs = limit_fieldset_of(l, true);

	gm_fields_prom(f, &fs, l->v, l->n, sizeof(*l->v));
}

/* --- events ------------------------------------------------------------ */

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

/*
 * An event as received: the fields below read it through e (GM_VIA). An
 * orphaned event's holder pids (a multi-attr) and their text with the
 * kinds are taken out of it once (event_view_init).
 */
struct event_view {
	const struct gm_event *e;
	const struct timespec *when;
	uint64_t missed;
	uint32_t *holders;
	size_t nholders;
	char *held;	/* "812,815,dma-buf"; NULL: not an orphaned event */
};

/* pids, then the kinds' names, comma-separated into buf ("-" for none) */
static void held_text(char *buf, size_t len, const uint32_t *pids, size_t n, uint32_t kinds)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", o ? "," : "", pids[i]);
	if (o < len)
		o = gm_orphan_kinds_label(buf, len, o, kinds);
	if (!o)
		snprintf(buf, len, "-");
}

static void event_view_init(struct event_view *ev)
{
	const struct gm_raw *r = &ev->e->raw;
	uint64_t kinds;
	size_t len;

	if (!gm_raw_uint(r, GPUMEM_A_EVENT_KINDS, &kinds))
		return;		/* not an orphaned event */
	if (gm_raw_u32s(r, GPUMEM_A_EVENT_HOLDER, &ev->holders, &ev->nholders) < 0)
		return;
	len = ev->nholders * 11 + 64;
	ev->held = malloc(len);
	if (!ev->held) {
		free(ev->holders);
		ev->holders = NULL;
		ev->nholders = 0;
		return;
	}
	held_text(ev->held, len, ev->holders, ev->nholders, (uint32_t)kinds);
}

static void event_view_free(struct event_view *ev)
{
	free(ev->holders);
	free(ev->held);
}

#define EV GM_VIA(struct event_view, e)

/* JSON: UTC, RFC 3339 with milliseconds; text: the local time */
static void ev_time(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct event_view *ev = obj;
	time_t t = ev->when->tv_sec;
	char *local = buf + GM_FIELD_BUF / 2;
	struct tm tm;

	(void)f;
	if (gmtime_r(&t, &tm) && strftime(buf, GM_FIELD_BUF / 2, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf + strlen(buf), GM_FIELD_BUF / 2 - strlen(buf), ".%03ldZ",
			 ev->when->tv_nsec / 1000000L);
	else
		snprintf(buf, GM_FIELD_BUF / 2, "%lld", (long long)t);
	v->kind = GM_V_STR;
	v->s = buf;
	v->text = gm_local_time(local, GM_FIELD_BUF / 2, ev->when);
}

static void ev_missed(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)f;
	(void)buf;
	v->kind = GM_V_U64;
	v->u = ((const struct event_view *)obj)->missed;
}

/* the optional numbers of an event: arg names which */
enum { E_SEQ, E_CGROUP_ID, E_PID, E_REQUESTED, E_USAGE, E_LIMIT, E_SUPPRESSED };

static void ev_num(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;
	bool has[] = { e->has_seq, e->has_cgroup_id, e->has_pid, e->has_requested, e->has_usage,
		       e->has_limit, true };
	uint64_t val[] = { e->seq, e->cgroup_id, e->pid, e->requested, e->usage, e->limit,
			   e->suppressed };

	(void)buf;
	if (!has[f->arg])
		return;
	v->kind = f->arg >= E_REQUESTED && f->arg <= E_LIMIT ? GM_V_BYTES : GM_V_U64;
	v->u = val[f->arg];
	if (f->arg == E_LIMIT)
		v->word = limit_kind(e);
	if (f->arg == E_USAGE)	/* an orphaned event: the bytes left */
		v->word = e->has_type && e->type == GPUMEM_EVENT_TYPE_ORPHANED ? "resident" : "usage";
}

/* text: "event" when the type was not sent */
static void ev_type(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	if (!e->has_type) {
		v->text = "event";
		return;
	}
	v->kind = GM_V_STR;
	v->s = type_label(e, buf);
}

/* the path; text: "(id N)" when only the id is known */
static void ev_cgroup(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	if (e->cgroup) {
		v->kind = GM_V_STR;
		v->s = e->cgroup;
	} else if (e->has_cgroup_id) {
		snprintf(buf, GM_FIELD_BUF, "(id %" PRIu64 ")", e->cgroup_id);
		v->text = buf;
	}
}

/* "cardN"; a limit on all devices: "all" ("all-devices" in text) */
static void ev_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	if (!e->has_dev_id)
		return;
	v->kind = GM_V_STR;
	if (e->dev_id == GM_EVENT_ALL_DEVICES) {
		v->s = "all";
		v->text = "all-devices";
	} else {
		v->s = gm_card_name(buf, e->dev_id);
	}
}

static void ev_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	if (e->has_region) {
		v->kind = GM_V_STR;
		v->s = gm_region_label(e->region, buf);
	}
}

/* "dmem" for a refusal of the dmem controller's; absent for gpumem's limits */
static void ev_source(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;
	const char *n;
	uint64_t s;

	(void)f;
	if (!gm_raw_uint(&e->raw, GPUMEM_A_EVENT_SOURCE, &s))
		return;
	n = gm_limit_source_name((uint32_t)s);
	if (!n) {
		snprintf(buf, GM_FIELD_BUF, "source-%" PRIu64, s);
		n = buf;
	}
	v->kind = GM_V_STR;
	v->s = n;
}

static void ev_mode(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	if (e->has_mode) {
		v->kind = GM_V_STR;
		v->s = mode_label(e->mode, buf);
	}
}

static void ev_denied(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;

	(void)f;
	(void)buf;
	if (e->has_denied) {
		v->kind = GM_V_BOOL;
		v->b = e->denied;
	}
}

/* leak-suspect, text: "over N windows of M ms" */
static void ev_windows(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;
	uint64_t n, ms;

	(void)f;
	if (!gm_raw_uint(&e->raw, GPUMEM_A_EVENT_WINDOWS, &n) ||
	    !gm_raw_uint(&e->raw, GPUMEM_A_EVENT_WINDOW_MS, &ms))
		return;
	snprintf(buf, GM_FIELD_BUF, "over %" PRIu64 " window%s of %" PRIu64 " ms", n,
		 n == 1 ? "" : "s", ms);
	v->kind = GM_V_STR;
	v->s = buf;
}

/* orphaned: the holder pids (JSON), with the kinds (text: "812,dma-buf") */
static void ev_holders(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct event_view *ev = obj;

	(void)f;
	(void)buf;
	if (!ev->held)
		return;
	v->kind = GM_V_U32S;
	v->list = ev->holders;
	v->nlist = ev->nholders;
	v->text = ev->held;
}

/* orphaned: the kinds' names, comma-separated ("-" for none) */
static void ev_kinds(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct event_view *ev = obj;
	uint64_t kinds;

	(void)f;
	if (!gm_raw_uint(&ev->e->raw, GPUMEM_A_EVENT_KINDS, &kinds))
		return;
	held_text(buf, GM_FIELD_BUF, NULL, 0, (uint32_t)kinds);
	v->kind = GM_V_STR;
	v->s = buf;
}

/*
 * text: "denied"/"allowed" and the mode in parentheses for quota-exceeded
 * and high-crossed events (for others only when denied), else the mode
 */
static void ev_verdict(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_event *e = obj;
	bool quota = e->has_type && (e->type == GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED ||
				     e->type == GPUMEM_EVENT_TYPE_HIGH_CROSSED);
	char mb[12];

	(void)f;
	if (quota || e->denied) {
		snprintf(buf, GM_FIELD_BUF, "%s", e->denied ? "denied" : "allowed");
		if (e->has_mode)
			snprintf(buf + strlen(buf), GM_FIELD_BUF - strlen(buf), " (%s)",
				 mode_label(e->mode, mb));
	} else if (e->has_mode) {
		snprintf(buf, GM_FIELD_BUF, "%s", mode_label(e->mode, mb));
	} else {
		return;
	}
	v->kind = GM_V_STR;
	v->s = buf;
}

/*
 * A quota event, once for the line (fmt, clause: gm_fields_line) and the
 * JSON object (key). An event attribute the CLI only shows is one line:
 * { .key = ..., .fmt = ..., GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_...), EV,
 *   .get = gm_get_attr_... }.
 */
static const struct gm_field event_fields[] = {
	{ .key = "time", .fmt = "%s", .get = ev_time },
	{ .key = "seq", EV, .get = ev_num, .arg = E_SEQ },
	{ .key = "type", .fmt = " %s", EV, .get = ev_type },
	{ .key = "cgroup_id", EV, .get = ev_num, .arg = E_CGROUP_ID },
	{ .key = "cgroup", .fmt = " cgroup %s", EV, .get = ev_cgroup },
	{ .key = "pid", .fmt = " pid %s", EV, .get = ev_num, .arg = E_PID },
	{ .key = "comm", .fmt = " (%s)", EV, .get = gm_get_str,
	  .arg = offsetof(struct gm_event, comm) },
	/* a request in the owner's name: the process that asked */
	{ .key = "req_pid", .fmt = " asked by pid %s", .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_REQ_PID), .get = gm_get_attr_u64 },
	{ .key = "req_comm", .fmt = " (%s)", .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_REQ_COMM), .get = gm_get_attr_str },
	{ .key = "device", .fmt = " %s", EV, .get = ev_device },
	{ .key = "region", .fmt = " %s", EV, .get = ev_region },
	/* a refusal of the dmem controller's (not of a gpumem limit): its region */
	{ .key = "source", .fmt = " by %s", .flags = GM_F_OMIT, EV, .get = ev_source },
	{ .key = "dmem_region", .fmt = " %s", .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_DMEM_REGION), .get = gm_get_attr_str },
	{ .key = "requested", .fmt = "requested %s", .clause = 1, EV, .get = ev_num,
	  .arg = E_REQUESTED },
	/* usage; an orphaned event's bytes left: "resident" */
	{ .key = "usage", .fmt = "%2$s %1$s", .clause = 1, EV, .get = ev_num, .arg = E_USAGE },
	/* max, high or threshold: the word is the event type's */
	{ .key = "limit", .fmt = "%2$s %1$s", .clause = 1, EV, .get = ev_num, .arg = E_LIMIT },
	/* leak-suspect: the floor's growth, its rate and the windows */
	{ .key = "growth", .fmt = "growth %s", .clause = 1, .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_GROWTH), .get = gm_get_attr_bytes },
	{ .key = "rate", .fmt = "%s/s", .clause = 1, .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_RATE), .get = gm_get_attr_bytes },
	{ .key = "windows", .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_WINDOWS), .get = gm_get_attr_u64 },
	{ .key = "window_ms", .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_WINDOW_MS), .get = gm_get_attr_u64 },
	{ .fmt = "%s", .clause = 2, EV, .get = ev_windows },
	/* orphaned: the placements left and who keeps them */
	{ .key = "buffers", .fmt = "buffers %s", .clause = 1, .flags = GM_F_OMIT, EV,
	  GM_ATTR(struct gm_event, raw, GPUMEM_A_EVENT_BUFFERS), .get = gm_get_attr_u64 },
	{ .key = "holders", .fmt = "held by %s", .clause = 2, .flags = GM_F_OMIT,
	  .get = ev_holders },
	{ .key = "kinds", .flags = GM_F_OMIT, .get = ev_kinds },
	{ .key = "mode", EV, .get = ev_mode },
	{ .key = "denied", EV, .get = ev_denied },
	{ .fmt = "%s", .clause = 2, EV, .get = ev_verdict },
	{ .key = "suppressed", .fmt = "%s suppressed", .clause = 3, .flags = GM_F_NONZERO, EV,
	  .get = ev_num, .arg = E_SUPPRESSED },
	{ .key = "missed", .get = ev_missed },
};

static struct gm_fields event_fieldset(bool exact)
{
	return (struct gm_fields){
		.v = event_fields, .n = sizeof(event_fields) / sizeof(*event_fields), .exact = exact,
	};
}

void gm_event_line(FILE *f, const struct gm_event *e, const struct timespec *when, bool exact)
{
	struct event_view ev = { e, when, 0, NULL, 0, NULL };
	struct gm_fields fs = event_fieldset(exact);

	event_view_init(&ev);
	gm_fields_line(f, &fs, &ev);
	event_view_free(&ev);
}

void gm_event_json(FILE *f, const struct gm_event *e, const struct timespec *when,
		   uint64_t missed)
{
	struct event_view ev = { e, when, missed, NULL, 0, NULL };
	struct gm_fields fs = event_fieldset(true);
	struct jw w;

	event_view_init(&ev);
	jw_init(&w, f);
	gm_fields_json(&w, &fs, &ev);
	jw_finish(&w);
	event_view_free(&ev);
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
