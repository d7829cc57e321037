// SPDX-License-Identifier: GPL-2.0
/*
 * test_wire.c - the wire model: reply messages built with libnl as the kernel
 * builds them, parsed by query.c against the spec's policies (nlspec.c); enum
 * and attribute names from the spec.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"
#include "../nlspec.h"

/* --- reply parsers: messages built as the kernel builds them ----------- */

static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, 0x20, 0, NLM_F_MULTI, cmd, GPUMEM_FAMILY_VERSION);
	return m;
}

/* nla_put_u64_64bit: a zero-length pad attribute may come first */
static void put_u64_pad(struct nl_msg *m, int type, uint64_t v, int pad)
{
	nla_put(m, pad, 0, NULL);
	nla_put_u64(m, type, v);
}


static bool same_dev_row(const void *a, const void *b)
{
	return ((const struct gm_dev_row *)a)->dev == ((const struct gm_dev_row *)b)->dev;
}

static bool region_row(const void *row)
{
	return ((const struct gm_dev_row *)row)->region != NULL;
}

void test_parse_replies(void)
{
	struct nl_msg *m;
	struct nlattr *n;
	struct gm_dev d;
	struct gm_proc p;
	struct gm_buf b;
	struct gm_stats s;
	int r;

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_u32(m, GPUMEM_A_DEV_ID, 1);
	nla_put_string(m, GPUMEM_A_DEV_NAME, "card1");
	nla_put_string(m, GPUMEM_A_DEV_DRIVER, "qxl");
	nla_put_string(m, GPUMEM_A_DEV_UNIQUE, "0000:00:02.0");
	nla_put_u8(m, GPUMEM_A_DEV_TTM, 1);
	n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
	nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, GPUMEM_REGION_VRAM);
	put_u64_pad(m, GPUMEM_A_DEV_REGION_CAPACITY, 134209536, GPUMEM_A_DEV_REGION_PAD);
	put_u64_pad(m, GPUMEM_A_DEV_REGION_USED, 4194304, GPUMEM_A_DEV_REGION_PAD);
	nla_nest_end(m, n);
	n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
	nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, GPUMEM_REGION_SYSTEM);
	nla_nest_end(m, n);
	nla_put_u32(m, 200, 7);	/* an attribute from a newer kernel */
	r = gm_parse_dev(nlmsg_hdr(m), &d);
	result(r == 0, "parse dev reply");
	if (r == 0) {
		eq_u64("dev id", d.id, 1);
		eq_str("dev name", d.name, "card1");
		eq_str("dev driver", d.driver, "qxl");
		eq_str("dev unique", d.unique, "0000:00:02.0");
		eq_u64("dev ttm", d.ttm, 1);
		eq_u64("dev regions", d.nregions, 2);
		if (d.nregions == 2) {
			eq_u64("region 0 is vram", d.regions[0].region, GPUMEM_REGION_VRAM);
			eq_u64("vram capacity", d.regions[0].capacity, 134209536);
			eq_u64("vram used", d.regions[0].used, 4194304);
			result(d.regions[0].has_capacity && d.regions[0].has_used, "vram values known");
			result(d.regions[1].region == GPUMEM_REGION_SYSTEM &&
			       !d.regions[1].has_capacity && !d.regions[1].has_used,
			       "system region without values (non-TTM)");
		}
		gm_dev_free(&d);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_string(m, GPUMEM_A_DEV_NAME, "card1");
	result(gm_parse_dev(nlmsg_hdr(m), &d) == -EPROTO, "dev reply without id: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_u16(m, GPUMEM_A_DEV_ID, 1);	/* too short for NLA_U32 */
	result(gm_parse_dev(nlmsg_hdr(m), &d) == -EPROTO, "dev id of the wrong size: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 812);
	nla_put_string(m, GPUMEM_A_PROC_COMM, "gm sp\tace");
	put_u64_pad(m, GPUMEM_A_PROC_CGROUP_ID, 4711, GPUMEM_A_PROC_PAD);
	nla_put_string(m, GPUMEM_A_PROC_CGROUP_PATH, "/test/a");
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 0);
	for (r = 0; r < GM_NREGIONS + 1; r++) {	/* + an unknown region */
		n = nla_nest_start(m, GPUMEM_A_PROC_USAGE);
		nla_put_u32(m, GPUMEM_A_USAGE_REGION, (uint32_t)r);
		put_u64_pad(m, GPUMEM_A_USAGE_BYTES, 1000u * (unsigned)(r + 1), GPUMEM_A_USAGE_PAD);
		nla_nest_end(m, n);
	}
	put_u64_pad(m, GPUMEM_A_PROC_SHARED, 11, GPUMEM_A_PROC_PAD);
	put_u64_pad(m, GPUMEM_A_PROC_OWNED, 22, GPUMEM_A_PROC_PAD);
	nla_put_u32(m, GPUMEM_A_PROC_BOS, 3);
	r = gm_parse_proc(nlmsg_hdr(m), &p);
	result(r == 0, "parse proc reply");
	if (r == 0) {
		eq_u64("proc pid", p.pid, 812);
		eq_str("proc comm", p.comm, "gm sp\tace");
		result(p.has_cgroup_id && p.cgroup_id == 4711, "proc cgroup id");
		eq_str("proc cgroup", p.cgroup, "/test/a");
		eq_u64("proc vram", p.usage[GPUMEM_REGION_VRAM], 1000);
		eq_u64("proc gtt", p.usage[GPUMEM_REGION_GTT], 2000);
		eq_u64("proc system", p.usage[GPUMEM_REGION_SYSTEM], 3000);
		eq_u64("proc other", p.usage[GPUMEM_REGION_OTHER], 4000);
		eq_u64("proc shared", p.shared, 11);
		eq_u64("proc owned", p.owned, 22);
		eq_u64("proc bos", p.bos, 3);
		gm_proc_free(&p);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 0);
	nla_put_string(m, GPUMEM_A_PROC_COMM, "[kernel]");
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 2);
	r = gm_parse_proc(nlmsg_hdr(m), &p);
	result(r == 0 && p.pid == 0 && !p.cgroup && !p.has_cgroup_id,
	       "proc reply without cgroup: path NULL");
	if (r == 0) {
		gm_proc_free(&p);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 1);
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 0);
	nla_put(m, GPUMEM_A_PROC_COMM, 3, "abc");	/* not NUL-terminated */
	result(gm_parse_proc(nlmsg_hdr(m), &p) == -EPROTO, "unterminated comm: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_BUF_GET);
	nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, 0);
	nla_put_u32(m, GPUMEM_A_BUF_OWNER, 812);
	nla_put_u32(m, GPUMEM_A_BUF_HANDLE, 2);
	put_u64_pad(m, GPUMEM_A_BUF_SIZE, 1048576, GPUMEM_A_BUF_PAD);
	nla_put_u32(m, GPUMEM_A_BUF_REGION, GPUMEM_REGION_VRAM);
	nla_put_u32(m, GPUMEM_A_BUF_MEM_TYPE, 2);
	nla_put_u8(m, GPUMEM_A_BUF_SHARED, 1);
	nla_put_u32(m, GPUMEM_A_BUF_HOLDER, 812);
	nla_put_u32(m, GPUMEM_A_BUF_HOLDER, 815);
	r = gm_parse_buf(nlmsg_hdr(m), &b);
	result(r == 0, "parse buf reply");
	if (r == 0) {
		uint64_t owner = 0, mt = 0, shared = 0;

		result(b.handle == 2 && b.size == 1048576 && b.region == GPUMEM_REGION_VRAM,
		       "buf fields");
		result(gm_raw_uint(&b.raw, GPUMEM_A_BUF_OWNER, &owner) && owner == 812 &&
		       gm_raw_uint(&b.raw, GPUMEM_A_BUF_MEM_TYPE, &mt) && mt == 2 &&
		       gm_raw_uint(&b.raw, GPUMEM_A_BUF_SHARED, &shared) && shared == 1,
		       "buf attributes kept as sent: owner, mem-type, shared (u8)");
		result(b.nholders == 2 && b.holders[0] == 812 && b.holders[1] == 815,
		       "buf holders in order");
		gm_buf_free(&b);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_BUF_GET);
	nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, 2);
	nla_put_u32(m, GPUMEM_A_BUF_OWNER, 9);
	nla_put_u32(m, GPUMEM_A_BUF_HANDLE, 1);
	r = gm_parse_buf(nlmsg_hdr(m), &b);
	result(r == 0 && !gm_raw_find(&b.raw, GPUMEM_A_BUF_MEM_TYPE) &&
	       !gm_raw_find(&b.raw, GPUMEM_A_BUF_SHARED) && b.nholders == 0,
	       "non-TTM buf: no mem_type");
	if (r == 0)
		gm_buf_free(&b);
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_STATS_GET);
	put_u64_pad(m, GPUMEM_A_STATS_WALKS, 12, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_WALKS_FAILED, 1, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_NS, 1234567, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_CLIENTS, 4, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_BOS, 100, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_SKIPPED, 7, GPUMEM_A_STATS_PAD);
	nla_put_u32(m, GPUMEM_A_STATS_DEVICES, 3);
	put_u64_pad(m, GPUMEM_A_STATS_CHARGED, 1ULL << 40, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_UNCHARGED, (1ULL << 40) - 9, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_CHARGE_FAILED, 11, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_DENIED, 13, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_GUARD_REFUSED, 14, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_EVENTS_SENT, 15, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_EVENTS_SUPPRESSED, 16, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_EVENTS_LOST, 17, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LIVE_RECORDS, 9, GPUMEM_A_STATS_PAD);
	r = gm_parse_stats(nlmsg_hdr(m), &s);
	{
		static const struct { int attr; uint64_t want; } st[] = {
			{ GPUMEM_A_STATS_WALKS, 12 }, { GPUMEM_A_STATS_WALKS_FAILED, 1 },
			{ GPUMEM_A_STATS_LAST_WALK_NS, 1234567 },
			{ GPUMEM_A_STATS_LAST_WALK_CLIENTS, 4 }, { GPUMEM_A_STATS_LAST_WALK_BOS, 100 },
			{ GPUMEM_A_STATS_LAST_WALK_SKIPPED, 7 }, { GPUMEM_A_STATS_DEVICES, 3 },
			{ GPUMEM_A_STATS_CHARGED, 1ULL << 40 },
			{ GPUMEM_A_STATS_UNCHARGED, (1ULL << 40) - 9 },
			{ GPUMEM_A_STATS_CHARGE_FAILED, 11 }, { GPUMEM_A_STATS_DENIED, 13 },
			{ GPUMEM_A_STATS_GUARD_REFUSED, 14 }, { GPUMEM_A_STATS_EVENTS_SENT, 15 },
			{ GPUMEM_A_STATS_EVENTS_SUPPRESSED, 16 }, { GPUMEM_A_STATS_EVENTS_LOST, 17 },
			{ GPUMEM_A_STATS_LIVE_RECORDS, 9 },
		};
		size_t i;
		bool ok = r == 0;
		uint64_t v;

		for (i = 0; i < sizeof(st) / sizeof(*st); i++)
			ok = ok && gm_raw_uint(&s.raw, st[i].attr, &v) && v == st[i].want;
		result(ok, "parse stats reply: every counter kept (u64 and the u32 devices, the hook statistics)");
	}
	gm_stats_free(&s);
	nlmsg_free(m);

	eq_str("region names", gm_region_name(GPUMEM_REGION_OTHER), "other");
	eq_u64("the spec names every region of the uapi enum", GM_SPEC_REGION_COUNT,
	       GPUMEM_REGION_MAX + 1);
	eq_str("view names from the spec", gm_view_name(GPUMEM_PROC_VIEW_HELD), "held");
	result(gm_view_name(GPUMEM_PROC_VIEW_HELD + 1) == NULL, "unknown view has no name");
	eq_str("attribute names from the spec", gm_attr_name(GPUMEM_CMD_PROC_GET,
							     GPUMEM_A_PROC_CGROUP_ID), "cgroup-id");
	result(gm_attr_name(GPUMEM_CMD_PROC_GET, GPUMEM_A_PROC_MAX + 1) == NULL,
	       "no name beyond the set");
	result(gm_region_name(GPUMEM_REGION_MAX + 1) == NULL, "unknown region has no name");
	eq_str("attribute names for errors", gm_attr_name(GPUMEM_CMD_BUF_GET, GPUMEM_A_BUF_OWNER),
	       "owner (the pid)");
}

void test_parse_quota_replies(void)
{
	struct nl_msg *m;
	struct gm_limit l;
	struct gm_event e;
	int r;

	m = reply(GPUMEM_CMD_LIMIT_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 4711, GPUMEM_A_LIMIT_PAD);
	nla_put_string(m, GPUMEM_A_LIMIT_CGROUP_PATH, "/kubepods.slice/pod1");
	nla_put_u32(m, GPUMEM_A_LIMIT_DEV_ID, 1);
	nla_put_u32(m, GPUMEM_A_LIMIT_REGION, GPUMEM_REGION_GTT);
	put_u64_pad(m, GPUMEM_A_LIMIT_MAX_BYTES, UINT64_MAX, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_HIGH_BYTES, 1, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MODE, GPUMEM_LIMIT_MODE_MONITOR);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 12345, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_DENIED, 7, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, 200, 1);	/* newer kernel */
	r = gm_parse_limit(nlmsg_hdr(m), &l);
	result(r == 0, "parse limit reply");
	if (r == 0) {
		result(l.cgroup_id == 4711 && l.has_dev && l.dev_id == 1 &&
		       l.region == GPUMEM_REGION_GTT && l.has_max && l.max == UINT64_MAX &&
		       l.has_high && l.high == 1 && l.has_mode && l.mode == GPUMEM_LIMIT_MODE_MONITOR &&
		       l.has_usage && l.usage == 12345 && l.has_denied && l.denied == 7,
		       "limit fields");
		eq_str("limit cgroup path", l.cgroup, "/kubepods.slice/pod1");
		gm_limit_free(&l);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_CGROUP_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 9, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 4096, GPUMEM_A_LIMIT_PAD);
	r = gm_parse_limit(nlmsg_hdr(m), &l);
	result(r == 0 && !l.has_dev && l.region == GPUMEM_REGION_VRAM && !l.has_max &&
	       !l.has_high && !l.has_mode && !l.has_denied && l.has_usage && !l.cgroup,
	       "cgroup row without device, region, limit: all devices, vram, no limit");
	gm_limit_free(&l);
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_CGROUP_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 4096, GPUMEM_A_LIMIT_PAD);
	result(gm_parse_limit(nlmsg_hdr(m), &l) == -EPROTO, "limit reply without cgroup id: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_LIMIT_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 9, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MAX_BYTES, 5);	/* too short for NLA_U64 */
	result(gm_parse_limit(nlmsg_hdr(m), &l) == -EPROTO, "limit max of the wrong size: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED);
	put_u64_pad(m, GPUMEM_A_EVENT_SEQ, 42, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_CGROUP_ID, 4711, GPUMEM_A_EVENT_PAD);
	nla_put_string(m, GPUMEM_A_EVENT_CGROUP_PATH, "/a");
	nla_put_u32(m, GPUMEM_A_EVENT_PID, 812);
	nla_put_string(m, GPUMEM_A_EVENT_COMM, "x");
	nla_put_u32(m, GPUMEM_A_EVENT_DEV_ID, 0);
	nla_put_u32(m, GPUMEM_A_EVENT_REGION, GPUMEM_REGION_VRAM);
	put_u64_pad(m, GPUMEM_A_EVENT_REQUESTED, 1, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_USAGE, 2, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_LIMIT, 3, GPUMEM_A_EVENT_PAD);
	nla_put_u32(m, GPUMEM_A_EVENT_MODE, GPUMEM_LIMIT_MODE_ENFORCE);
	nla_put_u8(m, GPUMEM_A_EVENT_DENIED, 1);
	put_u64_pad(m, GPUMEM_A_EVENT_SUPPRESSED, 5, GPUMEM_A_EVENT_PAD);
	r = gm_parse_event(nlmsg_hdr(m), &e);
	result(r == 0, "parse event");
	if (r == 0) {
		result(e.has_type && e.type == GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED && e.has_seq &&
		       e.seq == 42 && e.has_cgroup_id && e.cgroup_id == 4711 && e.has_pid &&
		       e.pid == 812 && e.has_dev_id && e.dev_id == 0 && e.has_region &&
		       e.has_requested && e.requested == 1 && e.has_usage && e.usage == 2 &&
		       e.has_limit && e.limit == 3 && e.has_mode && e.has_denied && e.denied &&
		       e.suppressed == 5, "event fields");
		eq_str("event cgroup", e.cgroup, "/a");
		eq_str("event comm", e.comm, "x");
		gm_event_free(&e);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD);
	r = gm_parse_event(nlmsg_hdr(m), &e);
	result(r == 0 && !e.has_seq && !e.has_pid && !e.has_cgroup_id && !e.cgroup && !e.comm &&
	       !e.has_denied && !e.denied && e.suppressed == 0, "event with the type only");
	gm_event_free(&e);
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_DENIED, 1);	/* NLA_U8 takes 4 bytes, but ... */
	nla_put(m, GPUMEM_A_EVENT_COMM, 2, "ab");	/* ... an unterminated string fails */
	result(gm_parse_event(nlmsg_hdr(m), &e) == -EPROTO, "event with an unterminated comm: -EPROTO");
	nlmsg_free(m);

	eq_str("mode names", gm_mode_name(GPUMEM_LIMIT_MODE_MONITOR), "monitor");
	result(gm_mode_name(7) == NULL, "unknown mode has no name");
	eq_str("event type names", gm_event_type_name(GPUMEM_EVENT_TYPE_HIGH_CROSSED), "high-crossed");
	result(gm_event_type_name(9) == NULL, "unknown event type has no name");
	eq_str("attribute names of limit requests",
	       gm_attr_name(GPUMEM_CMD_LIMIT_SET, GPUMEM_A_LIMIT_MAX_BYTES), "max-bytes");
}


/*
 * A reply attribute the CLI only shows needs one line in a command's field
 * list: a dev-region attribute of a newer spec (a u64 at the first type
 * after GPUMEM_A_DEV_REGION_MAX) reaches the table and the nested JSON
 * through GM_ATTR, with no member in struct gm_dev_region and no parser line.
 */
#define NEW_REGION_ATTR (GPUMEM_A_DEV_REGION_MAX + 1)

void test_attr_fields(void)
{
	static const struct gm_field fields[] = {
		{ .title = "DEVICE", .key = "name", GM_VIA(struct gm_dev_row, dev),
		  .get = gm_get_str, .arg = offsetof(struct gm_dev, name) },
		{ .title = "CAPACITY", .align = 'r', .key = "capacity", .flags = GM_F_INNER,
		  GM_VIA(struct gm_dev_row, region), .get = gm_get_attr_bytes,
		  GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_CAPACITY) },
		/* the one line */
		{ .title = "EVICTED", .align = 'r', .key = "evicted", .flags = GM_F_INNER,
		  GM_ATTR(struct gm_dev_region, raw, NEW_REGION_ATTR),
		  GM_VIA(struct gm_dev_row, region), .get = gm_get_attr_bytes },
	};
	struct gm_fields fs = { .v = fields, .n = sizeof(fields) / sizeof(*fields) };
	struct gm_dev_row rows[2];
	struct nl_msg *m = reply(GPUMEM_CMD_DEV_GET);
	struct nlattr *n;
	struct gm_dev d;
	struct mem mm;
	char *out;
	int r, i;

	nla_put_u32(m, GPUMEM_A_DEV_ID, 0);
	nla_put_string(m, GPUMEM_A_DEV_NAME, "card0");
	for (i = 0; i < 2; i++) {
		n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
		nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, (uint32_t)i);
		put_u64_pad(m, GPUMEM_A_DEV_REGION_CAPACITY, 1u << (20 + i), GPUMEM_A_DEV_REGION_PAD);
		if (i == 0)	/* the second region does not send it: not known */
			put_u64_pad(m, NEW_REGION_ATTR, 3 << 20, GPUMEM_A_DEV_REGION_PAD);
		nla_nest_end(m, n);
	}
	r = gm_parse_dev(nlmsg_hdr(m), &d);
	nlmsg_free(m);
	result(r == 0 && d.nregions == 2, "dev reply with a newer spec's region attribute parsed");
	if (r || d.nregions != 2)
		return;
	for (i = 0; i < 2; i++)
		rows[i] = (struct gm_dev_row){ &d, &d.regions[i] };

	gm_fields_table(mem_open(&mm), &fs, rows, 2, sizeof(*rows), 0);
	out = mem_close(&mm);
	eq_str("a new attribute in the table from one field line", out,
	       "DEVICE  CAPACITY  EVICTED\n"
	       "card0    1.0 MiB  3.0 MiB\n"
	       "card0    2.0 MiB        -\n");
	free(out);
	fs.inner_key = "regions";
	fs.same_outer = same_dev_row;
	fs.has_inner = region_row;
	gm_fields_json_array(mem_open(&mm), &fs, rows, 2, sizeof(*rows));
	out = mem_close(&mm);
	eq_str("... and in the nested JSON (null when not sent)", out,
	       "[\n"
	       "{\"name\":\"card0\",\"regions\":[{\"capacity\":1048576,\"evicted\":3145728},"
	       "{\"capacity\":2097152,\"evicted\":null}]}\n"
	       "]\n");
	free(out);
	gm_dev_free(&d);
}
