// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_buffers.c - `gpumemctl buffers --pid P`: the buffer objects one
 * process holds a handle to, its own and those shared with it (a debugging
 * view; the kernel allows it to CAP_NET_ADMIN only).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "parse.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl buffers -p PID [-d DEV] [--min-size SIZE] [--json] [--bytes]\n"
	"\n"
	"The buffer objects process PID holds a handle to, its own and those other\n"
	"processes share with it: device, owner, GEM handle in the owner's file,\n"
	"size, region, TTM memory type (\"-\" for non-TTM objects), whether it is\n"
	"shared, and every pid holding a handle to it (owner first). Needs\n"
	"CAP_NET_ADMIN (root); exit status 4 without it.\n"
	"\n"
	"  -p, --pid PID         the process (required; 0: in-kernel clients); a pid\n"
	"                        that holds nothing and does not exist is an error\n"
	"  -d, --device DEV      only this device: cardN, N or a PCI address\n"
	"  -m, --min-size SIZE   only buffers of at least SIZE bytes (64K, 1M, ...)\n"
	"  -j, --json            a JSON array, one object per buffer: device,\n"
	"                        owner, handle, size, region, mem_type (null for\n"
	"                        non-TTM objects), shared, holders\n"
	"  -b, --bytes           exact byte counts\n";

static int cmp_buf(const void *a, const void *b)
{
	const struct gm_buf *x = a, *y = b;

	if (x->dev_id != y->dev_id)
		return x->dev_id < y->dev_id ? -1 : 1;
	return x->handle < y->handle ? -1 : x->handle > y->handle;
}

static void get_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_buf *b = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_card_name(buf, b->dev_id);
}

static void get_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_buf *b = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_region_label(b->region, buf);
}

static void get_holders(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_buf *b = obj;

	(void)f;
	(void)buf;
	v->kind = GM_V_U32S;
	v->list = b->holders;
	v->nlist = b->nholders;
}

#define BUF_ATTR(attr) GM_ATTR(struct gm_buf, raw, GPUMEM_A_BUF_##attr)

/* A buffer (struct gm_buf), once for the table and the JSON objects. */
static const struct gm_field buf_fields[] = {
	{ .title = "DEVICE", .key = "device", .get = get_device },
	{ .title = "OWNER", .align = 'r', .key = "owner", BUF_ATTR(OWNER), .get = gm_get_attr_u64 },
	{ .title = "HANDLE", .align = 'r', .key = "handle", BUF_ATTR(HANDLE),
	  .get = gm_get_attr_u64 },
	{ .title = "SIZE", .align = 'r', .key = "size", .get = gm_get_bytes,
	  .arg = offsetof(struct gm_buf, size) },
	{ .title = "REGION", .key = "region", .get = get_region },
	{ .title = "MEM_TYPE", .align = 'r', .key = "mem_type", BUF_ATTR(MEM_TYPE),
	  .get = gm_get_attr_u64 },
	{ .title = "SHARED", .key = "shared", BUF_ATTR(SHARED), .get = gm_get_attr_bool },
	{ .title = "HOLDERS", .key = "holders", .get = get_holders },
};

/* Keep the buffers of at least min bytes (in order); the others are freed. */
static void drop_small(struct gm_buf_list *l, uint64_t min)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].size >= min) {
			l->v[n++] = l->v[i];
			continue;
		}
		gm_buf_free(&l->v[i]);
	}
	l->n = n;
}

static int print_table(const struct gm_fields *fs, const struct gm_buf_list *l, bool exact)
{
	char total[FMT_BYTES_LEN];
	uint64_t sum = 0;
	size_t i;

	if (gm_fields_table(stdout, fs, l->v, l->n, sizeof(*l->v), 0) < 0)
		return gm_error("out of memory");
	for (i = 0; i < l->n; i++)
		sum += l->v[i].size;
	printf("%zu buffer%s, %s%s\n", l->n, l->n == 1 ? "" : "s",
	       fmt_bytes(total, sizeof(total), sum, exact), exact ? " bytes" : "");
	return GM_EXIT_OK;
}

int cmd_buffers(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "min-size", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct gm_fields fs = { .v = buf_fields, .n = sizeof(buf_fields) / sizeof(*buf_fields) };
	const char *dev_arg = NULL;
	struct gm_buf_list bufs;
	struct dev_spec spec;
	struct gm_nl nl = { 0 };
	char err[GM_ERR_LEN];
	bool has_pid = false;
	uint32_t pid = 0, dev_id = 0;
	uint64_t min = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "p:d:m:", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &pid, err, sizeof(err)) < 0)
				return gm_usage_error("buffers", "%s", err);
			has_pid = true;
			break;
		case 'd':
			if (parse_device(optarg, &spec, err, sizeof(err)) < 0)
				return gm_usage_error("buffers", "%s", err);
			dev_arg = optarg;
			break;
		case 'm':
			if (parse_size(optarg, &min, err, sizeof(err)) < 0)
				return gm_usage_error("buffers", "%s", err);
			break;
		default:
			ret = gm_common_opt(c, "buffers", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("buffers", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (!has_pid)
		return gm_usage_error("buffers", "which process? --pid PID is required");

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (dev_arg) {
		ret = gm_device_arg(&nl, "buffers", &spec, dev_arg, &dev_id);
		if (ret != GM_OPT_NEXT) {
			gm_nl_close(&nl);
			return ret;
		}
	}
	if (gm_get_bufs(&nl, pid, dev_arg != NULL, dev_id, &bufs) < 0) {
		ret = gm_report(&nl, "buffers");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	/* no buffer and no such process: a typo, not an empty answer */
	if (!bufs.n && pid && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
		gm_buf_list_free(&bufs);
		return gm_error("buffers: no process %u", pid);
	}
	if (bufs.n)
		qsort(bufs.v, bufs.n, sizeof(*bufs.v), cmp_buf);
	drop_small(&bufs, min);
	fs.exact = o->json || o->bytes;
	if (o->json) {
		gm_fields_json_array(stdout, &fs, bufs.v, bufs.n, sizeof(*bufs.v));
		ret = GM_EXIT_OK;
	} else {
		ret = print_table(&fs, &bufs, o->bytes);
	}
	gm_buf_list_free(&bufs);
	return ret;
}
