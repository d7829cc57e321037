// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - gpumem's requests and the parsing of their replies. Every
 * message is parsed with nla_parse()/nla_parse_nested() against a policy;
 * the multi-attr attributes (regions, usage, holders) are collected by
 * walking the message's attributes with nla_for_each_attr().
 */
#include "query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../uapi/gpumem.h"

/* Dumps the kernel marks as interrupted (NLM_F_DUMP_INTR) are retried. */
#define GM_DUMP_TRIES 3

const char *gm_region_name(uint32_t region)
{
	static const char *const names[GM_NREGIONS] = {
		[GPUMEM_REGION_VRAM] = "vram",
		[GPUMEM_REGION_GTT] = "gtt",
		[GPUMEM_REGION_SYSTEM] = "system",
		[GPUMEM_REGION_OTHER] = "other",
	};

	return region < GM_NREGIONS ? names[region] : NULL;
}

const char *gm_region_label(uint32_t region, char *buf)
{
	const char *n = gm_region_name(region);

	if (n)
		return n;
	snprintf(buf, 12, "%u", region);
	return buf;
}

const char *gm_mode_name(uint32_t mode)
{
	switch (mode) {
	case GPUMEM_LIMIT_MODE_ENFORCE: return "enforce";
	case GPUMEM_LIMIT_MODE_MONITOR: return "monitor";
	default: return NULL;
	}
}

const char *gm_event_type_name(uint32_t type)
{
	switch (type) {
	case GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED: return "quota-exceeded";
	case GPUMEM_EVENT_TYPE_HIGH_CROSSED: return "high-crossed";
	case GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD: return "device-threshold";
	default: return NULL;
	}
}

const char *gm_attr_name(uint8_t cmd, int type)
{
	static const char *const dev[] = { [GPUMEM_A_DEV_ID] = "id" };
	static const char *const proc[] = {
		[GPUMEM_A_PROC_PID] = "pid",
		[GPUMEM_A_PROC_DEV_ID] = "dev-id",
		[GPUMEM_A_PROC_CGROUP_ID] = "cgroup-id",
		[GPUMEM_A_PROC_VIEW] = "view",
	};
	static const char *const buf[] = {
		[GPUMEM_A_BUF_OWNER] = "owner (the pid)",
		[GPUMEM_A_BUF_DEV_ID] = "dev-id",
	};
	static const char *const limit[] = {
		[GPUMEM_A_LIMIT_CGROUP_ID] = "cgroup-id",
		[GPUMEM_A_LIMIT_DEV_ID] = "dev-id",
		[GPUMEM_A_LIMIT_REGION] = "region",
		[GPUMEM_A_LIMIT_MAX_BYTES] = "max-bytes",
		[GPUMEM_A_LIMIT_HIGH_BYTES] = "high-bytes",
		[GPUMEM_A_LIMIT_MODE] = "mode",
	};
	const char *const *t;
	size_t n;

	switch (cmd) {
	case GPUMEM_CMD_LIMIT_SET:
	case GPUMEM_CMD_LIMIT_GET:
	case GPUMEM_CMD_LIMIT_DEL: t = limit; n = sizeof(limit) / sizeof(*limit); break;
	case GPUMEM_CMD_DEV_GET: t = dev; n = sizeof(dev) / sizeof(*dev); break;
	case GPUMEM_CMD_PROC_GET: t = proc; n = sizeof(proc) / sizeof(*proc); break;
	case GPUMEM_CMD_BUF_GET: t = buf; n = sizeof(buf) / sizeof(*buf); break;
	default: return NULL;
	}
	return type > 0 && (size_t)type < n ? t[type] : NULL;
}

/* --- policies ---------------------------------------------------------- */

static struct nla_policy dev_policy[GPUMEM_A_DEV_MAX + 1] = {
	[GPUMEM_A_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_DEV_NAME] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_DRIVER] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_UNIQUE] = { .type = NLA_STRING },
	[GPUMEM_A_DEV_TTM] = { .type = NLA_U8 },
	[GPUMEM_A_DEV_REGION] = { .type = NLA_NESTED },
	[GPUMEM_A_DEV_DESC] = { .type = NLA_STRING },
};

static struct nla_policy dev_region_policy[GPUMEM_A_DEV_REGION_MAX + 1] = {
	[GPUMEM_A_DEV_REGION_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_DEV_REGION_CAPACITY] = { .type = NLA_U64 },
	[GPUMEM_A_DEV_REGION_USED] = { .type = NLA_U64 },
};

static struct nla_policy proc_policy[GPUMEM_A_PROC_MAX + 1] = {
	[GPUMEM_A_PROC_PID] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_PROC_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_PROC_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_USAGE] = { .type = NLA_NESTED },
	[GPUMEM_A_PROC_SHARED] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_OWNED] = { .type = NLA_U64 },
	[GPUMEM_A_PROC_BOS] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_VIEW] = { .type = NLA_U32 },
	[GPUMEM_A_PROC_SKIPPED] = { .type = NLA_U32 },
};

static struct nla_policy usage_policy[GPUMEM_A_USAGE_MAX + 1] = {
	[GPUMEM_A_USAGE_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_USAGE_BYTES] = { .type = NLA_U64 },
};

static struct nla_policy buf_policy[GPUMEM_A_BUF_MAX + 1] = {
	[GPUMEM_A_BUF_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_OWNER] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_HANDLE] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_SIZE] = { .type = NLA_U64 },
	[GPUMEM_A_BUF_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_MEM_TYPE] = { .type = NLA_U32 },
	[GPUMEM_A_BUF_SHARED] = { .type = NLA_U8 },
	[GPUMEM_A_BUF_HOLDER] = { .type = NLA_U32 },
};

static struct nla_policy stats_policy[GPUMEM_A_STATS_MAX + 1] = {
	[GPUMEM_A_STATS_WALKS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_WALKS_FAILED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_NS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_CLIENTS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_BOS] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_LAST_WALK_SKIPPED] = { .type = NLA_U64 },
	[GPUMEM_A_STATS_DEVICES] = { .type = NLA_U32 },
};

static struct nla_policy limit_policy[GPUMEM_A_LIMIT_MAX + 1] = {
	[GPUMEM_A_LIMIT_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_LIMIT_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_MAX_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_HIGH_BYTES] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_MODE] = { .type = NLA_U32 },
	[GPUMEM_A_LIMIT_USAGE] = { .type = NLA_U64 },
	[GPUMEM_A_LIMIT_DENIED] = { .type = NLA_U64 },
};

static struct nla_policy event_policy[GPUMEM_A_EVENT_MAX + 1] = {
	[GPUMEM_A_EVENT_TYPE] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_SEQ] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_CGROUP_ID] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_CGROUP_PATH] = { .type = NLA_STRING },
	[GPUMEM_A_EVENT_PID] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_COMM] = { .type = NLA_STRING },
	[GPUMEM_A_EVENT_DEV_ID] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REGION] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_REQUESTED] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_USAGE] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_LIMIT] = { .type = NLA_U64 },
	[GPUMEM_A_EVENT_MODE] = { .type = NLA_U32 },
	[GPUMEM_A_EVENT_DENIED] = { .type = NLA_U8 },
	[GPUMEM_A_EVENT_SUPPRESSED] = { .type = NLA_U64 },
};

/* --- helpers ----------------------------------------------------------- */

static char *dup_str(struct nlattr *a)
{
	return strdup(a ? nla_get_string(a) : "");
}

static uint64_t get_u64(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t get_u32(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

#define for_each_top_attr(pos, msg, rem)                                              \
	nla_for_each_attr(pos, genlmsg_attrdata(genlmsg_hdr(nlmsg_hdr(msg)), 0),      \
			  genlmsg_attrlen(genlmsg_hdr(nlmsg_hdr(msg)), 0), rem)

/* Grow a list of elements of size sz to hold one more; -ENOMEM if not. */
static int grow(void **v, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *p = realloc(*v, c * sz);

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	return 0;
}

/* --- parsers ----------------------------------------------------------- */

static void dev_free(struct gm_dev *d)
{
	free(d->name);
	free(d->driver);
	free(d->unique);
	free(d->regions);
	free(d->desc);
	memset(d, 0, sizeof(*d));
}

int gm_parse_dev(struct nl_msg *msg, struct gm_dev *d)
{
	struct nlattr *tb[GPUMEM_A_DEV_MAX + 1], *pos;
	size_t cap = 0;
	int rem, ret;

	memset(d, 0, sizeof(*d));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_DEV_MAX, dev_policy) < 0 ||
	    !tb[GPUMEM_A_DEV_ID])
		return -EPROTO;
	d->id = nla_get_u32(tb[GPUMEM_A_DEV_ID]);
	d->name = dup_str(tb[GPUMEM_A_DEV_NAME]);
	d->driver = dup_str(tb[GPUMEM_A_DEV_DRIVER]);
	d->unique = dup_str(tb[GPUMEM_A_DEV_UNIQUE]);
	d->ttm = tb[GPUMEM_A_DEV_TTM] && nla_get_u8(tb[GPUMEM_A_DEV_TTM]);
	if (tb[GPUMEM_A_DEV_DESC])
		d->desc = dup_str(tb[GPUMEM_A_DEV_DESC]);
	if (!d->name || !d->driver || !d->unique ||
	    (tb[GPUMEM_A_DEV_DESC] && !d->desc)) {
		ret = -ENOMEM;
		goto fail;
	}
	for_each_top_attr(pos, msg, rem) {
		struct nlattr *rtb[GPUMEM_A_DEV_REGION_MAX + 1];
		struct gm_dev_region *r;

		if (nla_type(pos) != GPUMEM_A_DEV_REGION)
			continue;
		if (nla_parse_nested(rtb, GPUMEM_A_DEV_REGION_MAX, pos, dev_region_policy) < 0 ||
		    !rtb[GPUMEM_A_DEV_REGION_REGION]) {
			ret = -EPROTO;
			goto fail;
		}
		if (grow((void **)&d->regions, &d->nregions, &cap, sizeof(*d->regions))) {
			ret = -ENOMEM;
			goto fail;
		}
		r = &d->regions[d->nregions++];
		r->region = nla_get_u32(rtb[GPUMEM_A_DEV_REGION_REGION]);
		r->has_capacity = rtb[GPUMEM_A_DEV_REGION_CAPACITY] != NULL;
		r->capacity = get_u64(rtb[GPUMEM_A_DEV_REGION_CAPACITY]);
		r->has_used = rtb[GPUMEM_A_DEV_REGION_USED] != NULL;
		r->used = get_u64(rtb[GPUMEM_A_DEV_REGION_USED]);
	}
	return 0;
fail:
	dev_free(d);
	return ret;
}

static void proc_free(struct gm_proc *p)
{
	free(p->comm);
	free(p->cgroup);
	memset(p, 0, sizeof(*p));
}

int gm_parse_proc(struct nl_msg *msg, struct gm_proc *p)
{
	struct nlattr *tb[GPUMEM_A_PROC_MAX + 1], *pos;
	int rem;

	memset(p, 0, sizeof(*p));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_PROC_MAX, proc_policy) < 0 ||
	    !tb[GPUMEM_A_PROC_PID] || !tb[GPUMEM_A_PROC_DEV_ID])
		return -EPROTO;
	p->pid = nla_get_u32(tb[GPUMEM_A_PROC_PID]);
	p->dev_id = nla_get_u32(tb[GPUMEM_A_PROC_DEV_ID]);
	p->has_cgroup_id = tb[GPUMEM_A_PROC_CGROUP_ID] != NULL;
	p->cgroup_id = get_u64(tb[GPUMEM_A_PROC_CGROUP_ID]);
	p->shared = get_u64(tb[GPUMEM_A_PROC_SHARED]);
	p->owned = get_u64(tb[GPUMEM_A_PROC_OWNED]);
	p->bos = get_u32(tb[GPUMEM_A_PROC_BOS]);
	p->skipped = get_u32(tb[GPUMEM_A_PROC_SKIPPED]);
	p->held = !tb[GPUMEM_A_PROC_VIEW] ||
		  nla_get_u32(tb[GPUMEM_A_PROC_VIEW]) == GPUMEM_PROC_VIEW_HELD;
	p->comm = dup_str(tb[GPUMEM_A_PROC_COMM]);
	if (tb[GPUMEM_A_PROC_CGROUP_PATH])
		p->cgroup = dup_str(tb[GPUMEM_A_PROC_CGROUP_PATH]);
	if (!p->comm || (tb[GPUMEM_A_PROC_CGROUP_PATH] && !p->cgroup)) {
		proc_free(p);
		return -ENOMEM;
	}
	for_each_top_attr(pos, msg, rem) {
		struct nlattr *utb[GPUMEM_A_USAGE_MAX + 1];
		uint32_t region;

		if (nla_type(pos) != GPUMEM_A_PROC_USAGE)
			continue;
		if (nla_parse_nested(utb, GPUMEM_A_USAGE_MAX, pos, usage_policy) < 0 ||
		    !utb[GPUMEM_A_USAGE_REGION]) {
			proc_free(p);
			return -EPROTO;
		}
		region = nla_get_u32(utb[GPUMEM_A_USAGE_REGION]);
		if (region < GM_NREGIONS)	/* a newer kernel's regions: not shown */
			p->usage[region] = get_u64(utb[GPUMEM_A_USAGE_BYTES]);
	}
	return 0;
}

static void buf_free(struct gm_buf *b)
{
	free(b->holders);
	memset(b, 0, sizeof(*b));
}

int gm_parse_buf(struct nl_msg *msg, struct gm_buf *b)
{
	struct nlattr *tb[GPUMEM_A_BUF_MAX + 1], *pos;
	size_t n = 0;
	int rem;

	memset(b, 0, sizeof(*b));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_BUF_MAX, buf_policy) < 0 ||
	    !tb[GPUMEM_A_BUF_DEV_ID] || !tb[GPUMEM_A_BUF_OWNER] || !tb[GPUMEM_A_BUF_HANDLE])
		return -EPROTO;
	b->dev_id = nla_get_u32(tb[GPUMEM_A_BUF_DEV_ID]);
	b->owner = nla_get_u32(tb[GPUMEM_A_BUF_OWNER]);
	b->handle = nla_get_u32(tb[GPUMEM_A_BUF_HANDLE]);
	b->size = get_u64(tb[GPUMEM_A_BUF_SIZE]);
	b->region = get_u32(tb[GPUMEM_A_BUF_REGION]);
	b->has_mem_type = tb[GPUMEM_A_BUF_MEM_TYPE] != NULL;
	b->mem_type = get_u32(tb[GPUMEM_A_BUF_MEM_TYPE]);
	b->shared = tb[GPUMEM_A_BUF_SHARED] && nla_get_u8(tb[GPUMEM_A_BUF_SHARED]);
	for_each_top_attr(pos, msg, rem)
		if (nla_type(pos) == GPUMEM_A_BUF_HOLDER)
			n++;
	if (!n)
		return 0;
	b->holders = calloc(n, sizeof(*b->holders));
	if (!b->holders)
		return -ENOMEM;
	for_each_top_attr(pos, msg, rem)
		if (nla_type(pos) == GPUMEM_A_BUF_HOLDER)
			b->holders[b->nholders++] = nla_get_u32(pos);
	return 0;
}

int gm_parse_stats(struct nl_msg *msg, struct gm_stats *s)
{
	struct nlattr *tb[GPUMEM_A_STATS_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_STATS_MAX, stats_policy) < 0)
		return -EPROTO;
	s->walks = get_u64(tb[GPUMEM_A_STATS_WALKS]);
	s->walks_failed = get_u64(tb[GPUMEM_A_STATS_WALKS_FAILED]);
	s->last_walk_ns = get_u64(tb[GPUMEM_A_STATS_LAST_WALK_NS]);
	s->last_walk_clients = get_u64(tb[GPUMEM_A_STATS_LAST_WALK_CLIENTS]);
	s->last_walk_bos = get_u64(tb[GPUMEM_A_STATS_LAST_WALK_BOS]);
	s->last_walk_skipped = get_u64(tb[GPUMEM_A_STATS_LAST_WALK_SKIPPED]);
	s->devices = get_u32(tb[GPUMEM_A_STATS_DEVICES]);
	return 0;
}

void gm_limit_free(struct gm_limit *l)
{
	free(l->cgroup);
	memset(l, 0, sizeof(*l));
}

int gm_parse_limit(struct nl_msg *msg, struct gm_limit *l)
{
	struct nlattr *tb[GPUMEM_A_LIMIT_MAX + 1];

	memset(l, 0, sizeof(*l));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_LIMIT_MAX, limit_policy) < 0 ||
	    !tb[GPUMEM_A_LIMIT_CGROUP_ID])
		return -EPROTO;
	l->cgroup_id = nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID]);
	l->has_dev = tb[GPUMEM_A_LIMIT_DEV_ID] != NULL;
	l->dev_id = get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]);
	l->region = tb[GPUMEM_A_LIMIT_REGION] ? nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) :
		    GPUMEM_REGION_VRAM;
	l->has_max = tb[GPUMEM_A_LIMIT_MAX_BYTES] != NULL;
	l->max = get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]);
	l->has_high = tb[GPUMEM_A_LIMIT_HIGH_BYTES] != NULL;
	l->high = get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]);
	l->has_mode = tb[GPUMEM_A_LIMIT_MODE] != NULL;
	l->mode = get_u32(tb[GPUMEM_A_LIMIT_MODE]);
	l->has_usage = tb[GPUMEM_A_LIMIT_USAGE] != NULL;
	l->usage = get_u64(tb[GPUMEM_A_LIMIT_USAGE]);
	l->has_denied = tb[GPUMEM_A_LIMIT_DENIED] != NULL;
	l->denied = get_u64(tb[GPUMEM_A_LIMIT_DENIED]);
	if (tb[GPUMEM_A_LIMIT_CGROUP_PATH]) {
		l->cgroup = dup_str(tb[GPUMEM_A_LIMIT_CGROUP_PATH]);
		if (!l->cgroup)
			return -ENOMEM;
	}
	return 0;
}

void gm_event_free(struct gm_event *e)
{
	free(e->cgroup);
	free(e->comm);
	memset(e, 0, sizeof(*e));
}

int gm_parse_event(struct nl_msg *msg, struct gm_event *e)
{
	struct nlattr *tb[GPUMEM_A_EVENT_MAX + 1];

	memset(e, 0, sizeof(*e));
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, GPUMEM_A_EVENT_MAX, event_policy) < 0)
		return -EPROTO;
#define TAKE(field, attr, get)                                  \
	do {                                                    \
		e->has_##field = tb[GPUMEM_A_EVENT_##attr] != NULL; \
		e->field = get(tb[GPUMEM_A_EVENT_##attr]);      \
	} while (0)
	TAKE(type, TYPE, get_u32);
	TAKE(seq, SEQ, get_u64);
	TAKE(cgroup_id, CGROUP_ID, get_u64);
	TAKE(pid, PID, get_u32);
	TAKE(dev_id, DEV_ID, get_u32);
	TAKE(region, REGION, get_u32);
	TAKE(requested, REQUESTED, get_u64);
	TAKE(usage, USAGE, get_u64);
	TAKE(limit, LIMIT, get_u64);
	TAKE(mode, MODE, get_u32);
#undef TAKE
	e->has_denied = tb[GPUMEM_A_EVENT_DENIED] != NULL;
	e->denied = e->has_denied && nla_get_u8(tb[GPUMEM_A_EVENT_DENIED]);
	e->suppressed = get_u64(tb[GPUMEM_A_EVENT_SUPPRESSED]);
	if (tb[GPUMEM_A_EVENT_CGROUP_PATH])
		e->cgroup = dup_str(tb[GPUMEM_A_EVENT_CGROUP_PATH]);
	if (tb[GPUMEM_A_EVENT_COMM])
		e->comm = dup_str(tb[GPUMEM_A_EVENT_COMM]);
	if ((tb[GPUMEM_A_EVENT_CGROUP_PATH] && !e->cgroup) || (tb[GPUMEM_A_EVENT_COMM] && !e->comm)) {
		gm_event_free(e);
		return -ENOMEM;
	}
	return 0;
}

/* --- requests ---------------------------------------------------------- */

static int dev_cb(struct nl_msg *msg, void *arg)
{
	struct gm_dev_list *l = arg;
	int ret;

	if (grow((void **)&l->v, &l->n, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	ret = gm_parse_dev(msg, &l->v[l->n]);
	if (ret == 0)
		l->n++;
	return ret;
}

static int proc_cb(struct nl_msg *msg, void *arg)
{
	struct gm_proc_list *l = arg;
	int ret;

	if (grow((void **)&l->v, &l->n, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	ret = gm_parse_proc(msg, &l->v[l->n]);
	if (ret == 0)
		l->n++;
	return ret;
}

static int buf_cb(struct nl_msg *msg, void *arg)
{
	struct gm_buf_list *l = arg;
	int ret;

	if (grow((void **)&l->v, &l->n, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	ret = gm_parse_buf(msg, &l->v[l->n]);
	if (ret == 0)
		l->n++;
	return ret;
}

static int limit_list_cb(struct nl_msg *msg, void *arg)
{
	struct gm_limit_list *l = arg;
	int ret;

	if (grow((void **)&l->v, &l->n, &l->cap, sizeof(*l->v)))
		return -ENOMEM;
	ret = gm_parse_limit(msg, &l->v[l->n]);
	if (ret == 0)
		l->n++;
	return ret;
}

struct limit_one { struct gm_limit *out; int n; bool parsed; };

static int limit_one_cb(struct nl_msg *msg, void *arg)
{
	struct limit_one *o = arg;
	int ret;

	if (o->n++)
		return -EPROTO;	/* a "do" has one reply */
	ret = gm_parse_limit(msg, o->out);
	o->parsed = ret == 0;
	return ret;
}

static int stats_cb(struct nl_msg *msg, void *arg)
{
	return gm_parse_stats(msg, arg);
}

static int no_memory(struct gm_nl *nl)
{
	nl->error = ENOMEM;
	return -ENOMEM;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct gm_dev *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int gm_get_devices(struct gm_nl *nl, struct gm_dev_list *out)
{
	int ret = 0, i;

	for (i = 0; i < GM_DUMP_TRIES; i++) {
		struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_DEV_GET, true);

		memset(out, 0, sizeof(*out));
		if (!req)
			return no_memory(nl);
		ret = gm_nl_run(nl, req, dev_cb, out);
		if (ret || !nl->interrupted || i + 1 == GM_DUMP_TRIES)
			break;
		gm_dev_list_free(out);
	}
	if (ret)
		gm_dev_list_free(out);
	else if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_dev);
	return ret;
}

int gm_get_procs(struct gm_nl *nl, const struct gm_proc_filter *f, struct gm_proc_list *out)
{
	int ret = 0, i;

	for (i = 0; i < GM_DUMP_TRIES; i++) {
		struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_PROC_GET, true);

		memset(out, 0, sizeof(*out));
		if (!req)
			return no_memory(nl);
		if ((f->has_pid && nla_put_u32(req, GPUMEM_A_PROC_PID, f->pid) < 0) ||
		    (f->has_dev && nla_put_u32(req, GPUMEM_A_PROC_DEV_ID, f->dev_id) < 0) ||
		    (f->has_cgroup && nla_put_u64(req, GPUMEM_A_PROC_CGROUP_ID, f->cgroup_id) < 0) ||
		    (f->held && nla_put_u32(req, GPUMEM_A_PROC_VIEW, GPUMEM_PROC_VIEW_HELD) < 0)) {
			nlmsg_free(req);
			return no_memory(nl);
		}
		ret = gm_nl_run(nl, req, proc_cb, out);
		if (ret || !nl->interrupted || i + 1 == GM_DUMP_TRIES)
			break;
		gm_proc_list_free(out);
	}
	if (ret)
		gm_proc_list_free(out);
	return ret;
}

int gm_get_bufs(struct gm_nl *nl, uint32_t owner, bool has_dev, uint32_t dev_id,
		struct gm_buf_list *out)
{
	int ret = 0, i;

	for (i = 0; i < GM_DUMP_TRIES; i++) {
		struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_BUF_GET, true);

		memset(out, 0, sizeof(*out));
		if (!req)
			return no_memory(nl);
		if (nla_put_u32(req, GPUMEM_A_BUF_OWNER, owner) < 0 ||
		    (has_dev && nla_put_u32(req, GPUMEM_A_BUF_DEV_ID, dev_id) < 0)) {
			nlmsg_free(req);
			return no_memory(nl);
		}
		ret = gm_nl_run(nl, req, buf_cb, out);
		if (ret || !nl->interrupted || i + 1 == GM_DUMP_TRIES)
			break;
		gm_buf_list_free(out);
	}
	if (ret)
		gm_buf_list_free(out);
	return ret;
}

int gm_get_stats(struct gm_nl *nl, struct gm_stats *out)
{
	struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_STATS_GET, false);

	memset(out, 0, sizeof(*out));
	if (!req)
		return no_memory(nl);
	return gm_nl_run(nl, req, stats_cb, out);
}

/* The attributes that name a limit; -ENOMEM if they do not fit. */
static int put_limit_key(struct nl_msg *req, const struct gm_limit_key *k)
{
	if (nla_put_u64(req, GPUMEM_A_LIMIT_CGROUP_ID, k->cgroup_id) < 0 ||
	    (k->has_dev && nla_put_u32(req, GPUMEM_A_LIMIT_DEV_ID, k->dev_id) < 0) ||
	    nla_put_u32(req, GPUMEM_A_LIMIT_REGION, k->region) < 0)
		return -ENOMEM;
	return 0;
}

int gm_limit_set(struct gm_nl *nl, const struct gm_limit_req *r)
{
	struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_LIMIT_SET, false);

	if (!req)
		return no_memory(nl);
	if (put_limit_key(req, &r->key) < 0 ||
	    (r->has_max && nla_put_u64(req, GPUMEM_A_LIMIT_MAX_BYTES, r->max) < 0) ||
	    (r->has_high && nla_put_u64(req, GPUMEM_A_LIMIT_HIGH_BYTES, r->high) < 0) ||
	    (r->has_mode && nla_put_u32(req, GPUMEM_A_LIMIT_MODE, r->mode) < 0) ||
	    (r->replace && nla_put_flag(req, GPUMEM_A_LIMIT_REPLACE) < 0)) {
		nlmsg_free(req);
		return no_memory(nl);
	}
	return gm_nl_run(nl, req, NULL, NULL);
}

int gm_limit_get(struct gm_nl *nl, const struct gm_limit_key *key, struct gm_limit *out)
{
	struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_LIMIT_GET, false);
	struct limit_one o = { .out = out };
	int ret;

	memset(out, 0, sizeof(*out));
	if (!req)
		return no_memory(nl);
	if (put_limit_key(req, key) < 0) {
		nlmsg_free(req);
		return no_memory(nl);
	}
	ret = gm_nl_run(nl, req, limit_one_cb, &o);
	if (ret == 0 && o.n == 0) {
		nl->error = EPROTO;	/* an ACK without the reply */
		ret = -EPROTO;
	}
	if (ret && o.parsed)
		gm_limit_free(out);
	return ret;
}

int gm_limit_del(struct gm_nl *nl, const struct gm_limit_key *key)
{
	struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_LIMIT_DEL, false);

	if (!req)
		return no_memory(nl);
	if (put_limit_key(req, key) < 0) {
		nlmsg_free(req);
		return no_memory(nl);
	}
	return gm_nl_run(nl, req, NULL, NULL);
}

static int limit_dump(struct gm_nl *nl, uint8_t cmd, struct gm_limit_list *out)
{
	int ret = 0, i;

	for (i = 0; i < GM_DUMP_TRIES; i++) {
		struct nl_msg *req = gm_nl_request(nl, cmd, true);

		memset(out, 0, sizeof(*out));
		if (!req)
			return no_memory(nl);
		ret = gm_nl_run(nl, req, limit_list_cb, out);
		if (ret || !nl->interrupted || i + 1 == GM_DUMP_TRIES)
			break;
		gm_limit_list_free(out);
	}
	if (ret)
		gm_limit_list_free(out);
	else
		gm_limits_sort(out);
	return ret;
}

int gm_get_limits(struct gm_nl *nl, struct gm_limit_list *out)
{
	return limit_dump(nl, GPUMEM_CMD_LIMIT_GET, out);
}

int gm_get_cgroups(struct gm_nl *nl, struct gm_limit_list *out)
{
	return limit_dump(nl, GPUMEM_CMD_CGROUP_GET, out);
}

static int cmp_limit(const void *a, const void *b)
{
	const struct gm_limit *x = a, *y = b;
	int c;

	if (x->cgroup && y->cgroup) {
		c = strcmp(x->cgroup, y->cgroup);
		if (c)
			return c;
	} else if (x->cgroup || y->cgroup) {
		return x->cgroup ? -1 : 1;	/* unknown paths last */
	}
	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	if (x->has_dev != y->has_dev)
		return x->has_dev ? 1 : -1;	/* all devices first */
	if (x->dev_id != y->dev_id)
		return x->dev_id < y->dev_id ? -1 : 1;
	return x->region < y->region ? -1 : x->region > y->region;
}

void gm_limits_sort(struct gm_limit_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_limit);
}

void gm_limit_list_free(struct gm_limit_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		gm_limit_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int cmp_proc(const void *a, const void *b)
{
	const struct gm_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->dev_id < y->dev_id ? -1 : x->dev_id > y->dev_id;
}

void gm_procs_sort(struct gm_proc_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_proc);
}

const struct gm_dev *gm_dev_find(const struct gm_dev_list *l, uint32_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].id == id)
			return &l->v[i];
	return NULL;
}

void gm_dev_list_free(struct gm_dev_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		dev_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void gm_proc_list_free(struct gm_proc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		proc_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void gm_buf_list_free(struct gm_buf_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		buf_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
