// SPDX-License-Identifier: GPL-2.0
/*
 * query.c - gpumem's requests and the parsing of their replies. Every
 * message is parsed with nla_parse()/nla_parse_nested() against a policy
 * (nlspec.c); the multi-attr attributes (regions, usage, holders) are
 * collected by walking the message's attributes with nla_for_each_attr().
 */
#include "query.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "nlspec.h"

/* Dumps the kernel marks as interrupted (NLM_F_DUMP_INTR) are retried. */
#define GM_DUMP_TRIES 3

/* the name of value V of a spec enum, NULL beyond the names the spec gives */
#define SPEC_NAME(table, v) ((v) < sizeof(table) / sizeof(*(table)) ? (table)[v] : NULL)

const char *gm_region_name(uint32_t region)
{
	return SPEC_NAME(gm_spec_region_names, region);
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
	return SPEC_NAME(gm_spec_limit_mode_names, mode);
}

const char *gm_event_type_name(uint32_t type)
{
	return SPEC_NAME(gm_spec_event_type_names, type);
}

const char *gm_dmem_source_name(uint32_t source)
{
	return SPEC_NAME(gm_spec_dmem_source_names, source);
}

const char *gm_limit_source_name(uint32_t source)
{
	return SPEC_NAME(gm_spec_limit_source_names, source);
}

const char *gm_view_name(uint32_t view)
{
	return SPEC_NAME(gm_spec_proc_view_names, view);
}

size_t gm_orphan_kinds_label(char *buf, size_t len, size_t at, uint32_t kinds)
{
	const char *name;
	uint32_t i;
	int n;

	if (at >= len)
		return at;
	buf[at] = '\0';
	for (i = 0; i < 32 && at + 1 < len; i++) {
		name = kinds & (1u << i) ? SPEC_NAME(gm_spec_orphan_kind_names, i) : NULL;
		if (!name)
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? "," : "", name);
		if (n < 0)
			break;
		at = (size_t)n < len - at ? at + (size_t)n : len - 1;
	}
	return at;
}

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

/* --- the attributes as received ---------------------------------------- */

/* Keep a copy of the attributes head[0..len) in r; -ENOMEM if not. */
static int raw_keep(struct gm_raw *r, const void *head, int len)
{
	r->data = NULL;
	r->len = 0;
	if (len <= 0)
		return 0;
	r->data = malloc((size_t)len);
	if (!r->data)
		return -ENOMEM;
	memcpy(r->data, head, (size_t)len);
	r->len = len;
	return 0;
}

/* a reply's attributes: where they start, how many bytes */
#define MSG_ATTRS(nlh) genlmsg_attrdata(nlmsg_data(nlh), 0), genlmsg_attrlen(nlmsg_data(nlh), 0)

/* genlmsg_parse() of a reply (libnl's takes a non-const header; it only reads it) */
static int parse_reply(const struct nlmsghdr *nlh, struct nlattr **tb, int maxtype,
		       const struct nla_policy *policy)
{
	return genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, maxtype, policy);
}

const struct nlattr *gm_raw_find(const struct gm_raw *r, int type)
{
	return r->data ? nla_find(r->data, r->len, type) : NULL;
}

bool gm_raw_uint(const struct gm_raw *r, int type, uint64_t *v)
{
	const struct nlattr *a = gm_raw_find(r, type);

	if (!a)
		return false;
	switch (nla_len(a)) {
	case 1: *v = *(const uint8_t *)nla_data(a); break;
	case 2: *v = *(const uint16_t *)nla_data(a); break;
	case 4: *v = *(const uint32_t *)nla_data(a); break;
	case 8: memcpy(v, nla_data(a), sizeof(*v)); break;
	default: return false;	/* not an integer */
	}
	return true;
}

const char *gm_raw_str(const struct gm_raw *r, int type)
{
	const struct nlattr *a = gm_raw_find(r, type);

	/* a string the policy did not check (NLA_STRING) is not trusted */
	if (!a || nla_len(a) < 1 || ((const char *)nla_data(a))[nla_len(a) - 1] != '\0')
		return NULL;
	return nla_data(a);
}

int gm_raw_u32s(const struct gm_raw *r, int type, uint32_t **out, size_t *n)
{
	const struct nlattr *pos;
	size_t k = 0;
	int rem;

	*out = NULL;
	*n = 0;
	if (!r->data)
		return 0;
	nla_for_each_attr(pos, r->data, r->len, rem)
		if (nla_type(pos) == type && nla_len(pos) == 4)
			k++;
	if (!k)
		return 0;
	*out = calloc(k, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	nla_for_each_attr(pos, r->data, r->len, rem)
		if (nla_type(pos) == type && nla_len(pos) == 4)
			(*out)[(*n)++] = nla_get_u32(pos);
	return 0;
}

void gm_raw_free(struct gm_raw *r)
{
	free(r->data);
	r->data = NULL;
	r->len = 0;
}

#define for_each_top_attr(pos, nlh, rem)                                  \
	nla_for_each_attr(pos, genlmsg_attrdata(nlmsg_data(nlh), 0),      \
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)

/* Grow a list of elements of size sz to hold one more; -ENOMEM if not. */
static int grow(void **v, size_t *n, size_t *cap, size_t sz)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *p;

		if (c > SIZE_MAX / sz)
			return -ENOMEM;
		p = realloc(*v, c * sz);
		if (!p)
			return -ENOMEM;
		/* the new slots start cleared, as every parser expects */
		memset((char *)p + *cap * sz, 0, (c - *cap) * sz);
		*v = p;
		*cap = c;
	}
	return 0;
}

/* --- parsers ----------------------------------------------------------- */

/* One device's members (not the struct: list elements are freed with their array). */
void gm_dev_free(struct gm_dev *d)
{
	size_t r;

	free(d->name);
	free(d->driver);
	free(d->unique);
	for (r = 0; r < d->nregions; r++)
		gm_raw_free(&d->regions[r].raw);
	free(d->regions);
	gm_raw_free(&d->raw);
	free(d->desc);
	memset(d, 0, sizeof(*d));
}

/* the dev-dmem nests of a dev-region nest (the first GM_DMEM_PER_REGION) */
static int parse_dev_dmem(const struct nlattr *region, struct gm_dev_region *r)
{
	struct nlattr *pos;
	int rem;

	nla_for_each_nested(pos, region, rem) {
		struct nlattr *tb[GPUMEM_A_DEV_DMEM_MAX + 1];
		struct gm_dev_dmem *m;

		if (nla_type(pos) != GPUMEM_A_DEV_REGION_DMEM)
			continue;
		if (nla_parse_nested(tb, GPUMEM_A_DEV_DMEM_MAX, pos, gm_spec_dev_dmem_policy) < 0 ||
		    !tb[GPUMEM_A_DEV_DMEM_SOURCE])
			return -EPROTO;
		if (r->ndmem == GM_DMEM_PER_REGION)
			continue;
		m = &r->dmem[r->ndmem++];
		if (tb[GPUMEM_A_DEV_DMEM_NAME])
			snprintf(m->name, sizeof(m->name), "%s",
				 nla_get_string(tb[GPUMEM_A_DEV_DMEM_NAME]));
		m->source = nla_get_u32(tb[GPUMEM_A_DEV_DMEM_SOURCE]);
		m->has_capacity = tb[GPUMEM_A_DEV_DMEM_CAPACITY] != NULL;
		m->capacity = get_u64(tb[GPUMEM_A_DEV_DMEM_CAPACITY]);
	}
	return 0;
}

int gm_parse_dev(const struct nlmsghdr *nlh, struct gm_dev *d)
{
	struct nlattr *tb[GPUMEM_A_DEV_MAX + 1], *pos;
	size_t cap = 0;
	int rem, ret;

	memset(d, 0, sizeof(*d));
	if (parse_reply(nlh, tb, GPUMEM_A_DEV_MAX, gm_spec_dev_policy) < 0 ||
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
	    (tb[GPUMEM_A_DEV_DESC] && !d->desc) || raw_keep(&d->raw, MSG_ATTRS(nlh))) {
		ret = -ENOMEM;
		goto fail;
	}
	for_each_top_attr(pos, nlh, rem) {
		struct nlattr *rtb[GPUMEM_A_DEV_REGION_MAX + 1];
		struct gm_dev_region *r;

		if (nla_type(pos) != GPUMEM_A_DEV_REGION)
			continue;
		if (nla_parse_nested(rtb, GPUMEM_A_DEV_REGION_MAX, pos, gm_spec_dev_region_policy) < 0 ||
		    !rtb[GPUMEM_A_DEV_REGION_REGION]) {
			ret = -EPROTO;
			goto fail;
		}
		if (grow((void **)&d->regions, &d->nregions, &cap, sizeof(*d->regions))) {
			ret = -ENOMEM;
			goto fail;
		}
		r = &d->regions[d->nregions];
		if (raw_keep(&r->raw, nla_data(pos), nla_len(pos))) {
			ret = -ENOMEM;
			goto fail;
		}
		d->nregions++;
		r->region = nla_get_u32(rtb[GPUMEM_A_DEV_REGION_REGION]);
		r->has_capacity = rtb[GPUMEM_A_DEV_REGION_CAPACITY] != NULL;
		r->capacity = get_u64(rtb[GPUMEM_A_DEV_REGION_CAPACITY]);
		r->has_used = rtb[GPUMEM_A_DEV_REGION_USED] != NULL;
		r->used = get_u64(rtb[GPUMEM_A_DEV_REGION_USED]);
		if (parse_dev_dmem(pos, r) < 0) {
			ret = -EPROTO;
			goto fail;
		}
	}
	return 0;
fail:
	gm_dev_free(d);
	return ret;
}

/* --- process rows --------------------------------------------------------- */

/*
 * A dump of process rows is the hot path of `ps`, `top` and gpumemd (every
 * row of a dump parsed, sorted, printed): a row is parsed by libnl against
 * the spec's policies as every reply is, and its strings point into its
 * copy of the attributes (gm_raw), which lives in memory the whole dump
 * shares: no malloc() and free() per row.
 */

/*
 * Memory of a list's rows, freed with the list: chunks of 4 KiB and up, each
 * twice the last one's size up to 64 KiB (below malloc's mmap threshold), a
 * row's part 8-byte aligned. A dump of rows costs a few malloc() and free()
 * calls, not some per row.
 */
struct gm_mem {
	struct gm_mem *next;
	size_t used, size;	/* of data, in bytes */
	uint64_t data[];
};

#define GM_MEM_FIRST 4096
#define GM_MEM_MAX 65536

static void *mem_alloc(struct gm_mem **mem, size_t n)
{
	struct gm_mem *m = *mem;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!m || m->size - m->used < n) {
		size_t size = m ? 2 * (m->size + sizeof(*m)) : GM_MEM_FIRST;

		if (size > GM_MEM_MAX)
			size = GM_MEM_MAX;
		size -= sizeof(*m);
		if (size < n)
			size = n;
		m = malloc(sizeof(*m) + size);
		if (!m)
			return NULL;
		m->next = *mem;
		m->used = 0;
		m->size = size;
		*mem = m;
	}
	p = (char *)m->data + m->used;
	m->used += n;
	return p;
}

static void mem_free(struct gm_mem **mem)
{
	struct gm_mem *m = *mem, *next;

	for (; m; m = next) {
		next = m->next;
		free(m);
	}
	*mem = NULL;
}

/*
 * A process row, parsed with gm_spec_proc_policy (each usage nest with
 * gm_spec_usage_policy); pid and dev-id are required. The attributes are
 * copied, with a NUL after them, into *mem (a malloc() of their own when
 * mem is NULL); comm and cgroup point into the copy (comm at that NUL when
 * it was not sent). -EPROTO, -ENOMEM: p is all zero.
 */
static int proc_parse(const struct nlmsghdr *nlh, struct gm_proc *p, struct gm_mem **mem)
{
	struct nlattr *tb[GPUMEM_A_PROC_MAX + 1], *pos;
	const char *head;
	char *copy;
	int len, rem;

	memset(p, 0, sizeof(*p));
	if (parse_reply(nlh, tb, GPUMEM_A_PROC_MAX, gm_spec_proc_policy) < 0 ||
	    !tb[GPUMEM_A_PROC_PID] || !tb[GPUMEM_A_PROC_DEV_ID])
		return -EPROTO;
	for_each_top_attr(pos, nlh, rem) {
		struct nlattr *utb[GPUMEM_A_USAGE_MAX + 1];
		uint32_t region;

		if (nla_type(pos) != GPUMEM_A_PROC_USAGE)
			continue;
		if (nla_parse_nested(utb, GPUMEM_A_USAGE_MAX, pos, gm_spec_usage_policy) < 0 ||
		    !utb[GPUMEM_A_USAGE_REGION]) {
			memset(p, 0, sizeof(*p));
			return -EPROTO;
		}
		region = nla_get_u32(utb[GPUMEM_A_USAGE_REGION]);
		if (region < GM_NREGIONS)	/* a newer kernel's regions: not shown */
			p->usage[region] = get_u64(utb[GPUMEM_A_USAGE_BYTES]);
	}
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

	head = (const char *)genlmsg_attrdata(nlmsg_data(nlh), 0);
	len = genlmsg_attrlen(nlmsg_data(nlh), 0);
	copy = mem ? mem_alloc(mem, (size_t)len + 1) : malloc((size_t)len + 1);
	if (!copy) {
		memset(p, 0, sizeof(*p));
		return -ENOMEM;
	}
	memcpy(copy, head, (size_t)len);
	copy[len] = '\0';
	p->raw.data = copy;
	p->raw.len = len;
	/* the policy made sure each string ends in a NUL */
	p->comm = tb[GPUMEM_A_PROC_COMM] ?
		  copy + ((const char *)nla_data(tb[GPUMEM_A_PROC_COMM]) - head) : copy + len;
	if (tb[GPUMEM_A_PROC_CGROUP_PATH])
		p->cgroup = copy + ((const char *)nla_data(tb[GPUMEM_A_PROC_CGROUP_PATH]) - head);
	return 0;
}

int gm_parse_proc(const struct nlmsghdr *nlh, struct gm_proc *p)
{
	return proc_parse(nlh, p, NULL);
}

void gm_proc_free(struct gm_proc *p)
{
	free(p->raw.data);
	memset(p, 0, sizeof(*p));
}

void gm_buf_free(struct gm_buf *b)
{
	free(b->holders);
	gm_raw_free(&b->raw);
	memset(b, 0, sizeof(*b));
}

int gm_parse_buf(const struct nlmsghdr *nlh, struct gm_buf *b)
{
	struct nlattr *tb[GPUMEM_A_BUF_MAX + 1], *pos;
	size_t n = 0;
	int rem;

	memset(b, 0, sizeof(*b));
	if (parse_reply(nlh, tb, GPUMEM_A_BUF_MAX, gm_spec_buf_policy) < 0 ||
	    !tb[GPUMEM_A_BUF_DEV_ID] || !tb[GPUMEM_A_BUF_OWNER] || !tb[GPUMEM_A_BUF_HANDLE])
		return -EPROTO;
	b->dev_id = nla_get_u32(tb[GPUMEM_A_BUF_DEV_ID]);
	b->handle = nla_get_u32(tb[GPUMEM_A_BUF_HANDLE]);
	b->size = get_u64(tb[GPUMEM_A_BUF_SIZE]);
	b->region = get_u32(tb[GPUMEM_A_BUF_REGION]);
	if (raw_keep(&b->raw, MSG_ATTRS(nlh)))
		return -ENOMEM;
	for_each_top_attr(pos, nlh, rem)
		if (nla_type(pos) == GPUMEM_A_BUF_HOLDER)
			n++;
	if (!n)
		return 0;
	b->holders = calloc(n, sizeof(*b->holders));
	if (!b->holders) {
		gm_buf_free(b);
		return -ENOMEM;
	}
	for_each_top_attr(pos, nlh, rem)
		if (nla_type(pos) == GPUMEM_A_BUF_HOLDER)
			b->holders[b->nholders++] = nla_get_u32(pos);
	return 0;
}

int gm_parse_stats(const struct nlmsghdr *nlh, struct gm_stats *s)
{
	struct nlattr *tb[GPUMEM_A_STATS_MAX + 1];

	memset(s, 0, sizeof(*s));
	if (parse_reply(nlh, tb, GPUMEM_A_STATS_MAX, gm_spec_stats_policy) < 0)
		return -EPROTO;
	return raw_keep(&s->raw, MSG_ATTRS(nlh));
}

void gm_stats_free(struct gm_stats *s)
{
	gm_raw_free(&s->raw);
}

void gm_limit_free(struct gm_limit *l)
{
	free(l->cgroup);
	gm_raw_free(&l->raw);
	memset(l, 0, sizeof(*l));
}

int gm_parse_limit(const struct nlmsghdr *nlh, struct gm_limit *l)
{
	struct nlattr *tb[GPUMEM_A_LIMIT_MAX + 1];

	memset(l, 0, sizeof(*l));
	if (parse_reply(nlh, tb, GPUMEM_A_LIMIT_MAX, gm_spec_limit_policy) < 0 ||
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
	if (raw_keep(&l->raw, MSG_ATTRS(nlh))) {
		gm_limit_free(l);
		return -ENOMEM;
	}
	return 0;
}

void gm_event_free(struct gm_event *e)
{
	free(e->cgroup);
	free(e->comm);
	gm_raw_free(&e->raw);
	memset(e, 0, sizeof(*e));
}

int gm_parse_event(const struct nlmsghdr *nlh, struct gm_event *e)
{
	struct nlattr *tb[GPUMEM_A_EVENT_MAX + 1];

	memset(e, 0, sizeof(*e));
	if (parse_reply(nlh, tb, GPUMEM_A_EVENT_MAX, gm_spec_event_policy) < 0)
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
	TAKE(source, SOURCE, get_u32);
#undef TAKE
	e->has_denied = tb[GPUMEM_A_EVENT_DENIED] != NULL;
	e->denied = e->has_denied && nla_get_u8(tb[GPUMEM_A_EVENT_DENIED]);
	e->suppressed = get_u64(tb[GPUMEM_A_EVENT_SUPPRESSED]);
	if (tb[GPUMEM_A_EVENT_CGROUP_PATH])
		e->cgroup = dup_str(tb[GPUMEM_A_EVENT_CGROUP_PATH]);
	if (tb[GPUMEM_A_EVENT_COMM])
		e->comm = dup_str(tb[GPUMEM_A_EVENT_COMM]);
	if ((tb[GPUMEM_A_EVENT_CGROUP_PATH] && !e->cgroup) || (tb[GPUMEM_A_EVENT_COMM] && !e->comm) ||
	    raw_keep(&e->raw, MSG_ATTRS(nlh))) {
		gm_event_free(e);
		return -ENOMEM;
	}
	return 0;
}

/* --- requests ---------------------------------------------------------- */

/*
 * One dump: the request (put adds its filters), every reply message parsed
 * into one more element of a list, the whole dump asked again when the
 * kernel marks it interrupted (NLM_F_DUMP_INTR: its lists changed half-way)
 * up to GM_DUMP_TRIES times. Lists are a struct { T *v; size_t n, cap; }.
 */
struct dump_list {
	void **v;
	size_t *n, *cap;
	struct gm_mem **mem;	/* the elements' memory (freed with the list), or NULL */
};

struct dump_ops {
	size_t size;	/* of one element */
	/* mem: the list's, NULL for lists whose elements own their memory */
	int (*parse)(const struct nlmsghdr *nlh, void *elem, struct gm_mem **mem);
	void (*free)(void *elem);	/* NULL: an element has nothing but the list's memory */
};

struct dump_ctx {
	const struct dump_ops *ops;
	struct dump_list l;
};

static int dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump_ctx *c = arg;
	int ret;

	if (grow(c->l.v, c->l.n, c->l.cap, c->ops->size))
		return -ENOMEM;
	ret = c->ops->parse(nlh, (char *)*c->l.v + *c->l.n * c->ops->size, c->l.mem);
	if (ret == 0)
		(*c->l.n)++;
	return ret;
}

static void dump_free(struct dump_ctx *c)
{
	size_t i;

	for (i = 0; c->ops->free && i < *c->l.n; i++)
		c->ops->free((char *)*c->l.v + i * c->ops->size);
	free(*c->l.v);
	*c->l.v = NULL;
	*c->l.n = *c->l.cap = 0;
	if (c->l.mem)
		mem_free(c->l.mem);
}

static int no_memory(struct gm_nl *nl)
{
	nl->error = ENOMEM;
	return -ENOMEM;
}

static int gm_dump(struct gm_nl *nl, uint8_t cmd, int (*put)(struct nl_msg *req, const void *arg),
		   const void *put_arg, const struct dump_ops *ops, struct dump_list l)
{
	struct dump_ctx c = { .ops = ops, .l = l };
	int ret = 0, i;

	*l.v = NULL;
	*l.n = *l.cap = 0;
	if (l.mem)
		*l.mem = NULL;
	for (i = 0; i < GM_DUMP_TRIES; i++) {
		struct nl_msg *req = gm_nl_request(nl, cmd, true);

		if (!req)
			return no_memory(nl);
		if (put && put(req, put_arg) < 0) {
			nlmsg_free(req);
			return no_memory(nl);
		}
		ret = gm_nl_run(nl, req, dump_cb, &c);
		if (ret || !nl->interrupted || i + 1 == GM_DUMP_TRIES)
			break;
		dump_free(&c);
	}
	if (ret)
		dump_free(&c);
	return ret;
}

#define DUMP_LIST(list) ((struct dump_list){ (void **)&(list)->v, &(list)->n, &(list)->cap, NULL })
/* a list whose elements' memory is the list's (list->mem) */
#define DUMP_LIST_MEM(list) \
	((struct dump_list){ (void **)&(list)->v, &(list)->n, &(list)->cap, &(list)->mem })

static void dev_free_v(void *d) { gm_dev_free(d); }
static void buf_free_v(void *b) { gm_buf_free(b); }
static void limit_free_v(void *l) { gm_limit_free(l); }
static int parse_dev_v(const struct nlmsghdr *h, void *d, struct gm_mem **m)
{
	(void)m;
	return gm_parse_dev(h, d);
}
static int parse_proc_v(const struct nlmsghdr *h, void *p, struct gm_mem **m)
{
	return proc_parse(h, p, m);
}
static int parse_buf_v(const struct nlmsghdr *h, void *b, struct gm_mem **m)
{
	(void)m;
	return gm_parse_buf(h, b);
}
static int parse_limit_v(const struct nlmsghdr *h, void *l, struct gm_mem **m)
{
	(void)m;
	return gm_parse_limit(h, l);
}

static const struct dump_ops dev_ops = { sizeof(struct gm_dev), parse_dev_v, dev_free_v };
/* a process row's memory is its list's: nothing to free per row */
static const struct dump_ops proc_ops = { sizeof(struct gm_proc), parse_proc_v, NULL };
static const struct dump_ops buf_ops = { sizeof(struct gm_buf), parse_buf_v, buf_free_v };
static const struct dump_ops limit_ops = { sizeof(struct gm_limit), parse_limit_v, limit_free_v };

struct limit_one { struct gm_limit *out; int n; bool parsed; };

static int limit_one_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct limit_one *o = arg;
	int ret;

	if (o->n++)
		return -EPROTO;	/* a "do" has one reply */
	ret = gm_parse_limit(nlh, o->out);
	o->parsed = ret == 0;
	return ret;
}

static int stats_cb(const struct nlmsghdr *nlh, void *arg)
{
	gm_stats_free(arg);	/* a "do" has one reply; the last one counts */
	return gm_parse_stats(nlh, arg);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct gm_dev *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int gm_get_devices(struct gm_nl *nl, struct gm_dev_list *out)
{
	int ret = gm_dump(nl, GPUMEM_CMD_DEV_GET, NULL, NULL, &dev_ops, DUMP_LIST(out));

	if (!ret && out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_dev);
	return ret;
}

static int put_proc_filter(struct nl_msg *req, const void *arg)
{
	const struct gm_proc_filter *f = arg;

	if ((f->has_pid && nla_put_u32(req, GPUMEM_A_PROC_PID, f->pid) < 0) ||
	    (f->has_dev && nla_put_u32(req, GPUMEM_A_PROC_DEV_ID, f->dev_id) < 0) ||
	    (f->has_cgroup && nla_put_u64(req, GPUMEM_A_PROC_CGROUP_ID, f->cgroup_id) < 0) ||
	    (f->held && nla_put_u32(req, GPUMEM_A_PROC_VIEW, GPUMEM_PROC_VIEW_HELD) < 0))
		return -ENOMEM;
	return 0;
}

int gm_get_procs(struct gm_nl *nl, const struct gm_proc_filter *f, struct gm_proc_list *out)
{
	return gm_dump(nl, GPUMEM_CMD_PROC_GET, put_proc_filter, f, &proc_ops, DUMP_LIST_MEM(out));
}

struct buf_filter { uint32_t owner; bool has_dev; uint32_t dev_id; };

static int put_buf_filter(struct nl_msg *req, const void *arg)
{
	const struct buf_filter *f = arg;

	if (nla_put_u32(req, GPUMEM_A_BUF_OWNER, f->owner) < 0 ||
	    (f->has_dev && nla_put_u32(req, GPUMEM_A_BUF_DEV_ID, f->dev_id) < 0))
		return -ENOMEM;
	return 0;
}

int gm_get_bufs(struct gm_nl *nl, uint32_t owner, bool has_dev, uint32_t dev_id,
		struct gm_buf_list *out)
{
	struct buf_filter f = { owner, has_dev, dev_id };

	return gm_dump(nl, GPUMEM_CMD_BUF_GET, put_buf_filter, &f, &buf_ops, DUMP_LIST(out));
}

int gm_get_stats(struct gm_nl *nl, struct gm_stats *out)
{
	struct nl_msg *req = gm_nl_request(nl, GPUMEM_CMD_STATS_GET, false);

	int ret;

	memset(out, 0, sizeof(*out));
	if (!req)
		return no_memory(nl);
	ret = gm_nl_run(nl, req, stats_cb, out);
	if (ret)
		gm_stats_free(out);
	return ret;
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
	int ret = gm_dump(nl, cmd, NULL, NULL, &limit_ops, DUMP_LIST(out));

	if (!ret)
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

/* what a process row is sorted by: pid, then device */
static inline uint64_t proc_order(const struct gm_proc *p)
{
	return (uint64_t)p->pid << 32 | p->dev_id;
}

struct proc_key {
	uint64_t order;
	size_t row;
};

/*
 * The rows of l in the order of their keys, stably (as glibc's qsort(), a
 * merge sort, leaves rows of the same pid and device): a counting sort per
 * byte of the key, least significant first, none for a byte all keys share
 * (the upper bytes of pid and device), then the rows moved once into a new
 * array. Linear; no comparison callback per pair. -ENOMEM: l unchanged.
 */
static int procs_radix_sort(struct gm_proc_list *l)
{
	struct proc_key *keys = malloc(2 * l->n * sizeof(*keys)), *from, *to, *t;
	struct gm_proc *v = malloc(l->n * sizeof(*v));
	size_t count[256], i, pos, c;
	unsigned int shift, d;
	uint64_t differ = 0;

	if (!keys || !v) {
		free(keys);
		free(v);
		return -ENOMEM;
	}
	from = keys;
	to = keys + l->n;
	for (i = 0; i < l->n; i++) {
		keys[i].order = proc_order(&l->v[i]);
		keys[i].row = i;
		differ |= keys[i].order ^ keys[0].order;
	}
	for (shift = 0; shift < 64; shift += 8) {
		if (!((differ >> shift) & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < l->n; i++)
			count[(from[i].order >> shift) & 0xff]++;
		for (d = 0, pos = 0; d < 256; d++) {
			c = count[d];
			count[d] = pos;
			pos += c;
		}
		for (i = 0; i < l->n; i++)
			to[count[(from[i].order >> shift) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	for (i = 0; i < l->n; i++)
		v[i] = l->v[from[i].row];
	free(keys);
	free(l->v);
	l->v = v;
	l->cap = l->n;
	return 0;
}

void gm_procs_sort(struct gm_proc_list *l)
{
	size_t i;

	/* in order already: the kernel's charged view on one device */
	for (i = 1; i < l->n && proc_order(&l->v[i - 1]) <= proc_order(&l->v[i]); i++)
		;
	if (i >= l->n)
		return;
	if (procs_radix_sort(l) < 0)	/* no memory for it: in place */
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
		gm_dev_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void gm_proc_list_free(struct gm_proc_list *l)
{
	free(l->v);
	mem_free(&l->mem);
	memset(l, 0, sizeof(*l));
}

void gm_buf_list_free(struct gm_buf_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		gm_buf_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

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

int gm_receive_event(const struct nlmsghdr *nlh, struct gm_seq *s, struct gm_event *e,
		     uint64_t *missed, uint64_t *first)
{
	if (!nlmsg_valid_hdr(nlh, GENL_HDRLEN) ||
	    ((const struct genlmsghdr *)nlmsg_data(nlh))->cmd != GPUMEM_CMD_QUOTA_EVENT)
		return 0;
	if (gm_parse_event(nlh, e) < 0)
		return -EPROTO;
	*missed = gm_seq_next(s, e, first);
	return 1;
}
