// SPDX-License-Identifier: GPL-2.0
/*
 * test_proc_parse.c - the process rows' parser (query.c's proc_parse(): a
 * row's strings in its copy of the attributes, the copies of a dump in one
 * memory) against the one it replaced, kept here as the reference: the
 * same libnl genlmsg_parse() and nla_parse_nested() with the spec's
 * policies, strdup()ed strings and a malloc()ed copy per row. Messages are
 * made byte by byte (libnl builds no malformed ones): named cases, then
 * many random ones; the two must agree on every message, in the error and
 * in every value.
 * Then the rows' sort (gm_procs_sort()) against a stable sort by pid and
 * device.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"
#include "../nlspec.h"

/* --- the reference: gm_parse_proc() as it was, on libnl's parsers -------- */

static void ref_free(struct gm_proc *p)
{
	free(p->comm);
	free(p->cgroup);
	free(p->raw.data);
	memset(p, 0, sizeof(*p));
}

static int ref_parse(const struct nlmsghdr *nlh, struct gm_proc *p)
{
	struct nlattr *tb[GPUMEM_A_PROC_MAX + 1], *pos;
	int rem, len;

	memset(p, 0, sizeof(*p));
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, GPUMEM_A_PROC_MAX,
			  (struct nla_policy *)gm_spec_proc_policy) < 0 ||
	    !tb[GPUMEM_A_PROC_PID] || !tb[GPUMEM_A_PROC_DEV_ID])
		return -EPROTO;
	p->pid = nla_get_u32(tb[GPUMEM_A_PROC_PID]);
	p->dev_id = nla_get_u32(tb[GPUMEM_A_PROC_DEV_ID]);
	p->has_cgroup_id = tb[GPUMEM_A_PROC_CGROUP_ID] != NULL;
	p->cgroup_id = p->has_cgroup_id ? nla_get_u64(tb[GPUMEM_A_PROC_CGROUP_ID]) : 0;
	p->shared = tb[GPUMEM_A_PROC_SHARED] ? nla_get_u64(tb[GPUMEM_A_PROC_SHARED]) : 0;
	p->owned = tb[GPUMEM_A_PROC_OWNED] ? nla_get_u64(tb[GPUMEM_A_PROC_OWNED]) : 0;
	p->bos = tb[GPUMEM_A_PROC_BOS] ? nla_get_u32(tb[GPUMEM_A_PROC_BOS]) : 0;
	p->skipped = tb[GPUMEM_A_PROC_SKIPPED] ? nla_get_u32(tb[GPUMEM_A_PROC_SKIPPED]) : 0;
	p->held = !tb[GPUMEM_A_PROC_VIEW] ||
		  nla_get_u32(tb[GPUMEM_A_PROC_VIEW]) == GPUMEM_PROC_VIEW_HELD;
	p->comm = strdup(tb[GPUMEM_A_PROC_COMM] ? nla_get_string(tb[GPUMEM_A_PROC_COMM]) : "");
	if (tb[GPUMEM_A_PROC_CGROUP_PATH])
		p->cgroup = strdup(nla_get_string(tb[GPUMEM_A_PROC_CGROUP_PATH]));
	len = genlmsg_attrlen(nlmsg_data(nlh), 0);
	if (len > 0) {
		p->raw.data = malloc((size_t)len);
		if (p->raw.data)
			memcpy(p->raw.data, genlmsg_attrdata(nlmsg_data(nlh), 0), (size_t)len);
		p->raw.len = len;
	}
	if (!p->comm || (tb[GPUMEM_A_PROC_CGROUP_PATH] && !p->cgroup) || (len > 0 && !p->raw.data))
		abort();
	nla_for_each_attr(pos, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		struct nlattr *utb[GPUMEM_A_USAGE_MAX + 1];
		uint32_t region;

		if (nla_type(pos) != GPUMEM_A_PROC_USAGE)
			continue;
		if (nla_parse_nested(utb, GPUMEM_A_USAGE_MAX, pos,
				     (struct nla_policy *)gm_spec_usage_policy) < 0 ||
		    !utb[GPUMEM_A_USAGE_REGION]) {
			ref_free(p);
			return -EPROTO;
		}
		region = nla_get_u32(utb[GPUMEM_A_USAGE_REGION]);
		if (region < GM_NREGIONS)
			p->usage[region] = utb[GPUMEM_A_USAGE_BYTES] ?
					   nla_get_u64(utb[GPUMEM_A_USAGE_BYTES]) : 0;
	}
	return 0;
}

/* --- messages made by hand --------------------------------------------- */

struct msg {
	union {
		struct nlmsghdr h;
		unsigned char b[2048];
	} u;
	size_t len;		/* bytes written (nlmsg_len, unless cut() says less) */
	size_t nest[4];		/* open nests' offsets */
	int depth;
};

static void msg_init(struct msg *m)
{
	struct genlmsghdr g = { .cmd = GPUMEM_CMD_PROC_GET, .version = GPUMEM_FAMILY_VERSION };

	memset(m, 0, sizeof(*m));
	m->u.h.nlmsg_type = 0x20;
	m->u.h.nlmsg_flags = NLM_F_MULTI;
	memcpy(m->u.b + NLMSG_HDRLEN, &g, sizeof(g));
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

/* an attribute whose header says nla_len (whatever the payload is), padded to 4 */
static void put_raw(struct msg *m, uint16_t type, uint16_t nla_len, const void *data, size_t n)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };

	if (m->len + NLA_HDRLEN + NLA_ALIGN(n) > sizeof(m->u.b) - 64)
		return;	/* full: the random messages stop growing */
	memcpy(m->u.b + m->len, &a, sizeof(a));
	if (n)
		memcpy(m->u.b + m->len + NLA_HDRLEN, data, n);
	m->len += NLA_HDRLEN + NLA_ALIGN(n);
}

static void put(struct msg *m, uint16_t type, const void *data, size_t n)
{
	put_raw(m, type, (uint16_t)(NLA_HDRLEN + n), data, n);
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v) { put(m, type, &v, sizeof(v)); }
static void put_u64(struct msg *m, uint16_t type, uint64_t v) { put(m, type, &v, sizeof(v)); }
static void put_str(struct msg *m, uint16_t type, const char *s) { put(m, type, s, strlen(s) + 1); }

static void nest_start(struct msg *m, uint16_t type)
{
	m->nest[m->depth++] = m->len;
	put(m, type, NULL, 0);
}

static void nest_end(struct msg *m)
{
	size_t at = m->nest[--m->depth];
	uint16_t l = (uint16_t)(m->len - at);

	memcpy(m->u.b + at, &l, sizeof(l));
}

static void usage(struct msg *m, uint32_t region, uint64_t bytes)
{
	nest_start(m, GPUMEM_A_PROC_USAGE);
	put_u32(m, GPUMEM_A_USAGE_REGION, region);
	put(m, GPUMEM_A_USAGE_PAD, NULL, 0);
	put_u64(m, GPUMEM_A_USAGE_BYTES, bytes);
	nest_end(m);
}

static const struct nlmsghdr *done(struct msg *m)
{
	m->u.h.nlmsg_len = (uint32_t)m->len;
	return &m->u.h;
}

/* the row the kernel sends for the held view, every attribute once */
static void good_row(struct msg *m)
{
	msg_init(m);
	put_u32(m, GPUMEM_A_PROC_PID, 812);
	put_str(m, GPUMEM_A_PROC_COMM, "gm sp\tace");
	put(m, GPUMEM_A_PROC_PAD, NULL, 0);
	put_u64(m, GPUMEM_A_PROC_CGROUP_ID, 4711);
	put_str(m, GPUMEM_A_PROC_CGROUP_PATH, "/test/a");
	put_u32(m, GPUMEM_A_PROC_DEV_ID, 1);
	put_u32(m, GPUMEM_A_PROC_VIEW, GPUMEM_PROC_VIEW_HELD);
	usage(m, GPUMEM_REGION_VRAM, 1000);
	usage(m, GPUMEM_REGION_GTT, 2000);
	usage(m, GPUMEM_REGION_SYSTEM, 3000);
	usage(m, GPUMEM_REGION_OTHER, 4000);
	put_u64(m, GPUMEM_A_PROC_SHARED, 11);
	put_u64(m, GPUMEM_A_PROC_OWNED, 22);
	put_u32(m, GPUMEM_A_PROC_SKIPPED, 5);
	put_u32(m, GPUMEM_A_PROC_BOS, 3);
}

/* --- the comparison ---------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* why the two parsers' results of the message differ, or NULL; *ret: the result */
static const char *differ(const struct nlmsghdr *nlh, int *ret)
{
	struct gm_proc want, got;
	const char *why = NULL;
	int rw = ref_parse(nlh, &want), rg = gm_parse_proc(nlh, &got);

	*ret = rg;
	if (rw != rg)
		why = "result";
	else if (rw)
		why = memcmp(&want, &got, sizeof(want)) ? "a failed parse left values" : NULL;
	else if (want.pid != got.pid || want.dev_id != got.dev_id)
		why = "pid, dev-id";
	else if (want.has_cgroup_id != got.has_cgroup_id || want.cgroup_id != got.cgroup_id)
		why = "cgroup-id";
	else if (!same_str(want.comm, got.comm) || !same_str(want.cgroup, got.cgroup))
		why = "comm, cgroup-path";
	else if (memcmp(want.usage, got.usage, sizeof(want.usage)))
		why = "usage";
	else if (want.shared != got.shared || want.owned != got.owned || want.bos != got.bos ||
		 want.skipped != got.skipped || want.held != got.held)
		why = "shared, owned, bos, skipped, view";
	else if (want.raw.len != got.raw.len ||
		 (want.raw.len && memcmp(want.raw.data, got.raw.data, (size_t)want.raw.len)))
		why = "the attributes kept";
	if (rw == 0)
		ref_free(&want);
	if (rg == 0)
		gm_proc_free(&got);
	return why;
}

/* a named case: both agree, and the result is want */
static void agree(const char *what, struct msg *m, int want)
{
	const char *why;
	int ret;

	why = differ(done(m), &ret);
	result(!why && ret == want, "process row, %s: %s, as nla_parse() %s", what,
	       want ? "-EPROTO" : "parsed", want ? "rejects it" : "reads it");
	if (why)
		printf("#   the parsers differ in: %s\n", why);
	else if (ret != want)
		printf("#   result %d, expected %d\n", ret, want);
}

/* --- random messages --------------------------------------------------- */

static uint64_t rnd_state = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

/* a payload of about the size the policy of type wants, often exactly it */
static void rnd_attr(struct msg *m, int type, int maxtype, const struct nla_policy *pol)
{
	unsigned char data[16];
	uint16_t t = (uint16_t)type;
	size_t n, i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(rnd(4) ? 'a' + rnd(26) : rnd(256));
	n = rnd(16);
	if (type >= 0 && type <= maxtype && rnd(5)) {
		switch (pol[type].type) {
		case NLA_U8: n = 1; break;
		case NLA_U16: n = 2; break;
		case NLA_U32: n = 4; break;
		case NLA_U64: n = 8; break;
		case NLA_FLAG: n = 0; break;
		case NLA_STRING:
			n = 1 + rnd(12);
			data[n - 1] = '\0';
			break;
		}
	}
	if (!rnd(10))
		t |= rnd(2) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER;
	if (!rnd(40))	/* a length the attribute does not have */
		put_raw(m, t, (uint16_t)rnd(40), data, n);
	else
		put(m, t, data, n);
}

static void rnd_nest(struct msg *m)
{
	int i, n = (int)rnd(5);

	nest_start(m, (uint16_t)(GPUMEM_A_PROC_USAGE | (rnd(3) ? 0 : NLA_F_NESTED)));
	for (i = 0; i < n; i++) {
		int type = rnd(4) ? (int)rnd(GPUMEM_A_USAGE_MAX + 1) : (int)rnd(64);

		rnd_attr(m, type, GPUMEM_A_USAGE_MAX, gm_spec_usage_policy);
	}
	if (!rnd(20))
		put_raw(m, 0, 0, NULL, 0);	/* a 4-byte attribute of length 0: the walk stops */
	nest_end(m);
	if (!rnd(30) && m->depth == 0) {	/* a nest that claims more than it holds */
		uint16_t l;

		memcpy(&l, m->u.b + m->nest[0], sizeof(l));
		l = (uint16_t)(l + 4 * (1 + rnd(3)));
		memcpy(m->u.b + m->nest[0], &l, sizeof(l));
	}
}

static void rnd_row(struct msg *m)
{
	int i, n = (int)rnd(16);

	msg_init(m);
	if (rnd(10))
		put_u32(m, GPUMEM_A_PROC_PID, rnd(100000));
	for (i = 0; i < n; i++) {
		int type = rnd(8) ? 1 + (int)rnd(GPUMEM_A_PROC_MAX) : (int)rnd(64);

		if (type == GPUMEM_A_PROC_USAGE && rnd(4))
			rnd_nest(m);
		else
			rnd_attr(m, type, GPUMEM_A_PROC_MAX, gm_spec_proc_policy);
	}
	if (rnd(10))
		put_u32(m, GPUMEM_A_PROC_DEV_ID, rnd(4));
	if (!rnd(20))
		m->u.b[NLMSG_HDRLEN + GENL_HDRLEN + rnd((uint32_t)(m->len - NLMSG_HDRLEN - GENL_HDRLEN + 1))] ^=
			(unsigned char)(1 + rnd(255));
	if (!rnd(20))	/* bytes after the last attribute, fewer than a header */
		m->len += 1 + rnd(3);
	if (!rnd(20))	/* cut anywhere, also into the headers */
		m->len = NLMSG_HDRLEN + rnd((uint32_t)(m->len - NLMSG_HDRLEN + 1));
}

void test_proc_parse(void)
{
	const char *why = NULL;
	int i, ret, parsed = 0, rejected = 0;
	struct gm_proc p;
	struct msg m;

	good_row(&m);
	agree("every attribute", &m, 0);
	ret = gm_parse_proc(done(&m), &p);
	if (ret == 0) {
		result(p.pid == 812 && p.dev_id == 1 && p.has_cgroup_id && p.cgroup_id == 4711 &&
		       strcmp(p.comm, "gm sp\tace") == 0 && strcmp(p.cgroup, "/test/a") == 0 &&
		       p.usage[GPUMEM_REGION_VRAM] == 1000 && p.usage[GPUMEM_REGION_OTHER] == 4000 &&
		       p.shared == 11 && p.owned == 22 && p.skipped == 5 && p.bos == 3 && p.held,
		       "process row: the values");
		result(p.comm > (char *)p.raw.data && p.comm < (char *)p.raw.data + p.raw.len &&
		       p.cgroup > (char *)p.raw.data && p.cgroup < (char *)p.raw.data + p.raw.len,
		       "process row: comm and cgroup are in the row's copy of its attributes");
		gm_proc_free(&p);
	}

	msg_init(&m);
	put_u32(&m, GPUMEM_A_PROC_PID, 1);
	put_u32(&m, GPUMEM_A_PROC_DEV_ID, 0);
	agree("pid and dev-id only (comm \"\", no cgroup, no view: held)", &m, 0);
	ret = gm_parse_proc(done(&m), &p);
	if (ret == 0) {
		result(p.comm && !p.comm[0] && !p.cgroup && !p.has_cgroup_id && p.held,
		       "process row without comm: \"\", without path: NULL");
		gm_proc_free(&p);
	}

	msg_init(&m);
	put_u32(&m, GPUMEM_A_PROC_DEV_ID, 0);
	agree("no pid", &m, -EPROTO);
	msg_init(&m);
	put_u32(&m, GPUMEM_A_PROC_PID, 1);
	agree("no dev-id", &m, -EPROTO);
	msg_init(&m);
	agree("no attribute", &m, -EPROTO);
	msg_init(&m);
	m.len = NLMSG_HDRLEN + 2;
	agree("a generic netlink header cut short", &m, -EPROTO);

	good_row(&m);
	put_u32(&m, GPUMEM_A_PROC_PID, 9);
	put_str(&m, GPUMEM_A_PROC_COMM, "second");
	put_str(&m, GPUMEM_A_PROC_CGROUP_PATH, "/second");
	put_u32(&m, GPUMEM_A_PROC_VIEW, GPUMEM_PROC_VIEW_CHARGED);
	put_u64(&m, GPUMEM_A_PROC_CGROUP_ID, 1);
	usage(&m, GPUMEM_REGION_VRAM, 77);
	agree("attributes sent twice (the last counts)", &m, 0);

	good_row(&m);
	put(&m, GPUMEM_A_PROC_COMM, "abc", 3);
	agree("comm without NUL", &m, -EPROTO);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_CGROUP_PATH, "/a", 2);
	agree("cgroup path without NUL", &m, -EPROTO);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_COMM, NULL, 0);
	agree("comm of no byte", &m, -EPROTO);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_COMM, "ab\0cd", 6);
	agree("comm with a NUL inside (cut there)", &m, 0);

	good_row(&m);
	put(&m, GPUMEM_A_PROC_PID, "\1\0", 2);
	agree("pid too short", &m, -EPROTO);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_PID, "\1\0\0\0\2\0\0\0", 8);
	agree("pid longer than a u32 (its first 4 bytes)", &m, 0);
	good_row(&m);
	put_u32(&m, GPUMEM_A_PROC_CGROUP_ID, 1);
	agree("cgroup-id too short", &m, -EPROTO);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_OWNED, "\1\2\3\4\5\6\7\10\11\12\13\14", 12);
	agree("owned longer than a u64", &m, 0);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_PAD, "xyz", 3);
	put(&m, 0, "q", 1);
	agree("pad and type 0 with bytes (unspec: anything)", &m, 0);
	good_row(&m);
	put(&m, GPUMEM_A_PROC_MAX + 1, "x", 1);
	put(&m, 0x3fff, NULL, 0);
	agree("a newer kernel's attributes, any size (skipped unchecked)", &m, 0);
	good_row(&m);
	put_u32(&m, GPUMEM_A_PROC_BOS | NLA_F_NET_BYTEORDER, 4);
	agree("a type with a flag bit (bos)", &m, 0);

	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	put(&m, GPUMEM_A_USAGE_PAD, NULL, 0);
	put_u64(&m, GPUMEM_A_USAGE_BYTES, 5);
	nest_end(&m);
	agree("usage nest without region", &m, -EPROTO);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	nest_end(&m);
	agree("empty usage nest", &m, -EPROTO);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	put(&m, GPUMEM_A_USAGE_REGION, "\0\0", 2);
	nest_end(&m);
	agree("usage region too short", &m, -EPROTO);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	put_u32(&m, GPUMEM_A_USAGE_REGION, 0);
	put_u32(&m, GPUMEM_A_USAGE_BYTES, 5);
	nest_end(&m);
	agree("usage bytes too short", &m, -EPROTO);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	put_u32(&m, GPUMEM_A_USAGE_REGION, GPUMEM_REGION_GTT);
	nest_end(&m);
	agree("usage nest without bytes (0 bytes in its region)", &m, 0);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE);
	put_u32(&m, GPUMEM_A_USAGE_REGION, GPUMEM_REGION_SYSTEM);
	put_u64(&m, GPUMEM_A_USAGE_BYTES, 5);
	put_u32(&m, GPUMEM_A_USAGE_REGION, GPUMEM_REGION_GTT);
	put_u64(&m, GPUMEM_A_USAGE_BYTES, 6);
	nest_end(&m);
	agree("usage nest with region and bytes twice (the last counts)", &m, 0);
	good_row(&m);
	usage(&m, GM_NREGIONS + 3, 5);
	agree("usage of an unknown region (not shown)", &m, 0);
	good_row(&m);
	nest_start(&m, GPUMEM_A_PROC_USAGE | NLA_F_NESTED);
	put_u32(&m, GPUMEM_A_USAGE_REGION, 1);
	put_u64(&m, GPUMEM_A_USAGE_BYTES, 6);
	put_u32(&m, GPUMEM_A_USAGE_MAX + 1, 6);
	put_raw(&m, GPUMEM_A_USAGE_BYTES, 40, "12345678", 8);	/* longer than the nest */
	nest_end(&m);
	agree("usage nest with NLA_F_NESTED, a newer attribute, and a cut one last", &m, 0);

	good_row(&m);
	put_raw(&m, GPUMEM_A_PROC_BOS, 2, NULL, 0);	/* nla_len < 4: the walk stops here */
	put_u32(&m, GPUMEM_A_PROC_PID, 1);
	agree("an attribute shorter than its header (the rest is not read)", &m, 0);
	msg_init(&m);
	put_u32(&m, GPUMEM_A_PROC_PID, 1);
	put_raw(&m, GPUMEM_A_PROC_BOS, 200, "1234", 4);	/* past the message */
	put_u32(&m, GPUMEM_A_PROC_DEV_ID, 0);
	agree("an attribute longer than the message (nothing after it is read)", &m, -EPROTO);
	good_row(&m);
	m.len += 3;
	agree("3 bytes after the last attribute", &m, 0);

	for (i = 0; i < 20000 && !why; i++) {
		rnd_row(&m);
		why = differ(done(&m), &ret);
		if (ret == 0)
			parsed++;
		else
			rejected++;
	}
	result(!why, "process rows, %d random messages (%d parsed, %d rejected): the parsers agree",
	       i, parsed, rejected);
	if (why)
		printf("#   message %d: the parsers differ in: %s\n", i, why);
	result(parsed > 2000 && rejected > 2000,
	       "process rows, random messages: both outcomes are common (%d parsed, %d rejected)",
	       parsed, rejected);
}

/* --- the sort ------------------------------------------------------------ */

/* pid, device, then the row's place before the sort: a stable sort's order */
static int cmp_stable(const void *a, const void *b)
{
	const struct gm_proc *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->dev_id != y->dev_id)
		return x->dev_id < y->dev_id ? -1 : 1;
	return x->bos < y->bos ? -1 : x->bos > y->bos;
}

/* n rows of pids below pid_max on devices below dev_max (0: any u32); kind: 0 random, 1 sorted, 2 reversed */
static bool sort_case(size_t n, uint32_t pid_max, uint32_t dev_max, int kind)
{
	struct gm_proc_list l = { 0 };
	struct gm_proc *want;
	bool ok = true;
	size_t i;

	l.v = calloc(n ? n : 1, sizeof(*l.v));
	want = calloc(n ? n : 1, sizeof(*want));
	if (!l.v || !want)
		abort();
	l.n = l.cap = n;
	for (i = 0; i < n; i++) {
		l.v[i].pid = rnd(pid_max);
		l.v[i].dev_id = dev_max ? rnd(dev_max) : (uint32_t)rnd_state;
		l.v[i].bos = (uint32_t)i;	/* where it was */
	}
	if (kind)
		qsort(l.v, n, sizeof(*l.v), cmp_stable);
	for (i = 0; kind == 2 && i < n / 2; i++) {
		struct gm_proc t = l.v[i];

		l.v[i] = l.v[n - 1 - i];
		l.v[n - 1 - i] = t;
	}
	for (i = 0; i < n; i++)
		l.v[i].bos = (uint32_t)i;
	memcpy(want, l.v, n * sizeof(*want));
	qsort(want, n, sizeof(*want), cmp_stable);
	gm_procs_sort(&l);
	for (i = 0; i < n && ok; i++)
		ok = l.v[i].pid == want[i].pid && l.v[i].dev_id == want[i].dev_id &&
		     l.v[i].bos == want[i].bos;
	ok = ok && l.n == n;
	free(want);
	gm_proc_list_free(&l);
	return ok;
}

void test_procs_sort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 17, 200, 2000 };
	static const uint32_t pids[] = { 1, 3, 300, 70000, 4194305 };
	static const uint32_t devs[] = { 1, 2, 300, 0 };
	int kind, bad = 0, cases = 0;
	size_t s, p, d;

	for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++)
		for (p = 0; p < sizeof(pids) / sizeof(*pids); p++)
			for (d = 0; d < sizeof(devs) / sizeof(*devs); d++)
				for (kind = 0; kind < 3; kind++) {
					cases++;
					if (!sort_case(sizes[s], pids[p], devs[d], kind)) {
						bad++;
						printf("#   %zu rows, pids < %u, devices < %u, kind %d: "
						       "another order\n", sizes[s], pids[p], devs[d], kind);
					}
				}
	result(!bad, "process rows sorted by pid, then device, rows of both the same kept in "
		     "their order: %d lists (0 to 2000 rows; random, in order, reversed; many "
		     "alike, pids to 4194304, any device)", cases);
}
