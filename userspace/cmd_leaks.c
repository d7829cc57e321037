// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_leaks.c - `gpumemctl leaks`: the leak suspects now, processes' and
 * cgroups' (the kernel's leak-get dump; CAP_NET_ADMIN only). Usage: see
 * help below.
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
	"Usage: gpumemctl leaks [--json] [--bytes]\n"
	"\n"
	"The leak suspects now: the usage of a process, or of a cgroup's own\n"
	"processes, on one device and region whose lowest point rose in\n"
	"leak_windows windows of leak_window_ms in a row (module parameters) and\n"
	"has not fallen back to where the rise began. One row per suspect: the\n"
	"device, region, pid and name (\"-\" for a cgroup's own usage), cgroup,\n"
	"bytes charged now, how much the lowest point rose since the rise began,\n"
	"at what rate, over how many windows, and how long ago it became a\n"
	"suspect. Each suspect also raised one leak-suspect event (gpumemctl\n"
	"watch). Reading changes nothing. Host pids and cgroup paths; empty while\n"
	"leak_window_ms is 0. Needs CAP_NET_ADMIN (root); exit status 4 without it.\n"
	"\n"
	"  -j, --json            a JSON array, one object per suspect: device, region,\n"
	"                        pid, comm, usage, growth, rate (bytes/s), windows,\n"
	"                        window_ms, since_ms, cgroup_id, cgroup\n"
	"  -b, --bytes           exact byte counts\n";

/* One LEAK_GET reply. */
struct leak {
	uint32_t dev_id, region;
	struct gm_raw raw;
};

struct leak_list {
	struct leak *v;
	size_t n, cap;
	int error;
};

static int leak_cb(struct nl_msg *msg, void *arg)
{
	struct leak_list *l = arg;
	struct nlattr *tb[GPUMEM_A_LEAK_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct leak *k;
	int len;

	if (genlmsg_parse(nlh, 0, tb, GPUMEM_A_LEAK_MAX, gm_spec_leak_policy) < 0 ||
	    !tb[GPUMEM_A_LEAK_DEV_ID] || !tb[GPUMEM_A_LEAK_REGION]) {
		l->error = -EPROTO;
		return NL_STOP;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct leak *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		l->v = v;
		l->cap = cap;
	}
	k = &l->v[l->n];
	memset(k, 0, sizeof(*k));
	k->dev_id = nla_get_u32(tb[GPUMEM_A_LEAK_DEV_ID]);
	k->region = nla_get_u32(tb[GPUMEM_A_LEAK_REGION]);
	len = genlmsg_attrlen(genlmsg_hdr(nlh), 0);
	if (len > 0) {
		k->raw.data = malloc((size_t)len);
		if (!k->raw.data) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		memcpy(k->raw.data, genlmsg_attrdata(genlmsg_hdr(nlh), 0), (size_t)len);
		k->raw.len = len;
	}
	l->n++;
	return NL_OK;
}

static void get_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct leak *k = obj;

	(void)f;
	snprintf(buf, GM_FIELD_BUF, "card%u", k->dev_id);
	v->kind = GM_V_STR;
	v->s = buf;
}

static void get_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct leak *k = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_region_label(k->region, buf);
}

#define LEAK_ATTR(attr) GM_ATTR(struct leak, raw, GPUMEM_A_LEAK_##attr)

static const struct gm_field leak_fields[] = {
	{ .title = "DEVICE", .key = "device", .get = get_device },
	{ .title = "REGION", .key = "region", .get = get_region },
	{ .title = "PID", .align = 'r', .key = "pid", LEAK_ATTR(PID), .get = gm_get_attr_u64 },
	{ .title = "COMM", .key = "comm", LEAK_ATTR(COMM), .get = gm_get_attr_str },
	{ .title = "USAGE", .align = 'r', .key = "usage", LEAK_ATTR(USAGE),
	  .get = gm_get_attr_bytes },
	{ .title = "GROWTH", .align = 'r', .key = "growth", LEAK_ATTR(GROWTH),
	  .get = gm_get_attr_bytes },
	{ .title = "RATE/S", .align = 'r', .key = "rate", LEAK_ATTR(RATE),
	  .get = gm_get_attr_bytes },
	{ .title = "WINDOWS", .align = 'r', .key = "windows", LEAK_ATTR(WINDOWS),
	  .get = gm_get_attr_u64 },
	{ .title = "WINDOW_MS", .align = 'r', .key = "window_ms", LEAK_ATTR(WINDOW_MS),
	  .get = gm_get_attr_u64 },
	{ .title = "SINCE_MS", .align = 'r', .key = "since_ms", LEAK_ATTR(SINCE_MS),
	  .get = gm_get_attr_u64 },
	{ .title = "CGROUP_ID", .align = 'r', .key = "cgroup_id", LEAK_ATTR(CGROUP_ID),
	  .get = gm_get_attr_u64 },
	{ .title = "CGROUP", .key = "cgroup", LEAK_ATTR(CGROUP_PATH), .get = gm_get_attr_str },
};

int cmd_leaks(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct gm_fields fs = { .v = leak_fields,
				.n = sizeof(leak_fields) / sizeof(*leak_fields) };
	struct leak_list l = { 0 };
	struct gm_nl nl = { 0 };
	struct nl_msg *req;
	size_t i;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		ret = gm_common_opt(c, "leaks", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands("leaks", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	req = gm_nl_request(&nl, GPUMEM_CMD_LEAK_GET, true);
	if (!req) {
		gm_nl_close(&nl);
		return gm_error("out of memory");
	}
	if (gm_nl_run(&nl, req, leak_cb, &l) < 0) {
		ret = gm_report(&nl, "leaks");
		goto out;
	}
	if (l.error) {
		ret = gm_error("leaks: %s", strerror(-l.error));
		goto out;
	}
	fs.exact = o->json || o->bytes;
	if (o->json) {
		gm_fields_json_array(stdout, &fs, l.v, l.n, sizeof(*l.v));
		ret = GM_EXIT_OK;
	} else if (gm_fields_table(stdout, &fs, l.v, l.n, sizeof(*l.v), 0) < 0) {
		ret = gm_error("out of memory");
	} else {
		printf("%zu suspect%s\n", l.n, l.n == 1 ? "" : "s");
		ret = GM_EXIT_OK;
	}
out:
	gm_nl_close(&nl);
	for (i = 0; i < l.n; i++)
		free(l.v[i].raw.data);
	free(l.v);
	return ret;
}
