// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_orphans.c - `gpumemctl orphans`: resident memory whose allocating
 * process has exited, per buffer group, and who keeps it alive now (the
 * kernel's orphan-get dump; CAP_NET_ADMIN only). Usage: see help below.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "nl.h"
#include "nlspec.h"
#include "output.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl orphans [--json] [--bytes]\n"
	"\n"
	"Resident VRAM/GTT placements whose allocating process has exited, one row\n"
	"per device, region, charged cgroup, allocator and set of holders: bytes,\n"
	"number of buffers, the cgroup still charged (the allocator's), the\n"
	"allocator's pid and name, how long ago it was seen gone, and who keeps\n"
	"the buffers now: live pids reaching them through a handle, \"kernel\" (an\n"
	"in-kernel client), \"dma-buf\" (exported), \"mapping\" (no handle, no\n"
	"dma-buf: CPU mappings), \"busy\" (not readable now). Host pids and cgroup\n"
	"paths. Needs CAP_NET_ADMIN (root); exit status 4 without it.\n"
	"\n"
	"  -j, --json            a JSON array, one object per group: device, region,\n"
	"                        bytes, buffers, cgroup_id, cgroup, pid, comm,\n"
	"                        since_ms, holders (pids), kinds (names)\n"
	"  -b, --bytes           exact byte counts\n";

/* One ORPHAN_GET reply. */
struct orphan {
	uint32_t dev_id, region;
	uint64_t bytes;
	uint32_t kinds;
	uint32_t *holders;
	size_t nholders;
	struct gm_raw raw;
};

struct orphan_list {
	struct orphan *v;
	size_t n, cap;
	int error;
};

static void orphan_free(struct orphan *o)
{
	free(o->holders);
	free(o->raw.data);
}

static int orphan_cb(struct nl_msg *msg, void *arg)
{
	struct orphan_list *l = arg;
	struct nlattr *tb[GPUMEM_A_ORPHAN_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct orphan *o;
	int len;

	if (genlmsg_parse(nlh, 0, tb, GPUMEM_A_ORPHAN_MAX, gm_spec_orphan_policy) < 0 ||
	    !tb[GPUMEM_A_ORPHAN_DEV_ID] || !tb[GPUMEM_A_ORPHAN_PID]) {
		l->error = -EPROTO;
		return NL_STOP;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct orphan *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		l->v = v;
		l->cap = cap;
	}
	o = &l->v[l->n];
	memset(o, 0, sizeof(*o));
	o->dev_id = nla_get_u32(tb[GPUMEM_A_ORPHAN_DEV_ID]);
	o->region = tb[GPUMEM_A_ORPHAN_REGION] ? nla_get_u32(tb[GPUMEM_A_ORPHAN_REGION]) : 0;
	o->bytes = tb[GPUMEM_A_ORPHAN_BYTES] ? nla_get_u64(tb[GPUMEM_A_ORPHAN_BYTES]) : 0;
	o->kinds = tb[GPUMEM_A_ORPHAN_KINDS] ? nla_get_u32(tb[GPUMEM_A_ORPHAN_KINDS]) : 0;
	len = genlmsg_attrlen(genlmsg_hdr(nlh), 0);
	if (len > 0) {
		o->raw.data = malloc((size_t)len);
		if (!o->raw.data) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		memcpy(o->raw.data, genlmsg_attrdata(genlmsg_hdr(nlh), 0), (size_t)len);
		o->raw.len = len;
	}
	if (gm_raw_u32s(&o->raw, GPUMEM_A_ORPHAN_HOLDER, &o->holders, &o->nholders) < 0) {
		orphan_free(o);
		l->error = -ENOMEM;
		return NL_STOP;
	}
	l->n++;
	return NL_OK;
}

static void get_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct orphan *o = obj;

	(void)f;
	snprintf(buf, GM_FIELD_BUF, "card%u", o->dev_id);
	v->kind = GM_V_STR;
	v->s = buf;
}

static void get_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct orphan *o = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_region_label(o->region, buf);
}

static void get_holders(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct orphan *o = obj;

	(void)f;
	(void)buf;
	v->kind = GM_V_U32S;
	v->list = o->holders;
	v->nlist = o->nholders;
}

/* The kinds' names, comma-separated ("-" for none). */
static void get_kinds(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct orphan *o = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_orphan_kinds_label(buf, GM_FIELD_BUF, 0, o->kinds) ? buf : "-";
}

#define ORPHAN_ATTR(attr) GM_ATTR(struct orphan, raw, GPUMEM_A_ORPHAN_##attr)

static const struct gm_field orphan_fields[] = {
	{ .title = "DEVICE", .key = "device", .get = get_device },
	{ .title = "REGION", .key = "region", .get = get_region },
	{ .title = "BYTES", .align = 'r', .key = "bytes", .get = gm_get_bytes,
	  .arg = offsetof(struct orphan, bytes) },
	{ .title = "BUFFERS", .align = 'r', .key = "buffers", ORPHAN_ATTR(BUFFERS),
	  .get = gm_get_attr_u64 },
	{ .title = "PID", .align = 'r', .key = "pid", ORPHAN_ATTR(PID), .get = gm_get_attr_u64 },
	{ .title = "COMM", .key = "comm", ORPHAN_ATTR(COMM), .get = gm_get_attr_str },
	{ .title = "SINCE_MS", .align = 'r', .key = "since_ms", ORPHAN_ATTR(SINCE_MS),
	  .get = gm_get_attr_u64 },
	{ .title = "HOLDERS", .key = "holders", .get = get_holders },
	{ .title = "KINDS", .key = "kinds", .get = get_kinds },
	{ .title = "CGROUP_ID", .align = 'r', .key = "cgroup_id", ORPHAN_ATTR(CGROUP_ID),
	  .get = gm_get_attr_u64 },
	{ .title = "CGROUP", .key = "cgroup", ORPHAN_ATTR(CGROUP_PATH), .get = gm_get_attr_str },
};

int cmd_orphans(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct gm_fields fs = { .v = orphan_fields,
				.n = sizeof(orphan_fields) / sizeof(*orphan_fields) };
	struct orphan_list l = { 0 };
	struct gm_nl nl = { 0 };
	struct nl_msg *req;
	size_t i;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		ret = gm_common_opt(c, "orphans", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands("orphans", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	req = gm_nl_request(&nl, GPUMEM_CMD_ORPHAN_GET, true);
	if (!req) {
		gm_nl_close(&nl);
		return gm_error("out of memory");
	}
	if (gm_nl_run(&nl, req, orphan_cb, &l) < 0) {
		ret = gm_report(&nl, "orphans");
		goto out;
	}
	if (l.error) {
		ret = gm_error("orphans: %s", strerror(-l.error));
		goto out;
	}
	fs.exact = o->json || o->bytes;
	if (o->json) {
		gm_fields_json_array(stdout, &fs, l.v, l.n, sizeof(*l.v));
		ret = GM_EXIT_OK;
	} else if (gm_fields_table(stdout, &fs, l.v, l.n, sizeof(*l.v), 0) < 0) {
		ret = gm_error("out of memory");
	} else {
		printf("%zu group%s\n", l.n, l.n == 1 ? "" : "s");
		ret = GM_EXIT_OK;
	}
out:
	gm_nl_close(&nl);
	for (i = 0; i < l.n; i++)
		orphan_free(&l.v[i]);
	free(l.v);
	return ret;
}
