// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_buffers.c - `gpumemctl buffers --pid P`: the buffer objects one
 * process holds a handle to, its own and those shared with it (a debugging
 * view; the kernel allows it to CAP_NET_ADMIN only).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

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

static void print_json(const struct gm_buf_list *l, uint64_t min)
{
	char dev[24], rb[12];
	struct jw w;
	size_t i, h;

	jw_init(&w, stdout);
	jw_array_begin(&w);
	for (i = 0; i < l->n; i++) {
		const struct gm_buf *b = &l->v[i];

		if (b->size < min)
			continue;
		snprintf(dev, sizeof(dev), "card%u", b->dev_id);
		jw_object_begin(&w);
		jw_kv_string(&w, "device", dev);
		jw_kv_u64(&w, "owner", b->owner);
		jw_kv_u64(&w, "handle", b->handle);
		jw_kv_u64(&w, "size", b->size);
		jw_kv_string(&w, "region", gm_region_label(b->region, rb));
		if (b->has_mem_type)
			jw_kv_u64(&w, "mem_type", b->mem_type);
		else
			jw_kv_null(&w, "mem_type");
		jw_kv_bool(&w, "shared", b->shared);
		jw_key(&w, "holders");
		jw_array_begin(&w);
		for (h = 0; h < b->nholders; h++)
			jw_u64(&w, b->holders[h]);
		jw_array_end(&w);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_finish(&w);
}

/* "812,815" (truncated with "..." if there are very many) */
static void holders_str(const struct gm_buf *b, char *buf, size_t len)
{
	size_t h, o = 0;

	buf[0] = '\0';
	for (h = 0; h < b->nholders; h++) {
		if (o + 16 >= len) {
			snprintf(buf + o, len - o, "...");
			return;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%u", h ? "," : "", b->holders[h]);
	}
}

static int print_table(const struct gm_buf_list *l, uint64_t min, bool exact)
{
	static const char *const hdr[] = {
		"DEVICE", "OWNER", "HANDLE", "SIZE", "REGION", "MEM_TYPE", "SHARED", "HOLDERS",
	};
	char dev[24], owner[16], handle[16], size[FMT_BYTES_LEN], mt[16], holders[512], rb[12];
	char total[FMT_BYTES_LEN];
	uint64_t sum = 0;
	size_t i, n = 0;
	struct table t;
	int ret = 0;

	tbl_init(&t, 8, hdr, "lrrrlrll");
	for (i = 0; i < l->n && !ret; i++) {
		const struct gm_buf *b = &l->v[i];
		const char *row[8] = {
			dev, owner, handle, fmt_bytes(size, sizeof(size), b->size, exact),
			gm_region_label(b->region, rb), b->has_mem_type ? mt : NULL,
			b->shared ? "yes" : "no", holders,
		};

		if (b->size < min)
			continue;
		snprintf(dev, sizeof(dev), "card%u", b->dev_id);
		snprintf(owner, sizeof(owner), "%u", b->owner);
		snprintf(handle, sizeof(handle), "%u", b->handle);
		snprintf(mt, sizeof(mt), "%u", b->mem_type);
		holders_str(b, holders, sizeof(holders));
		ret = tbl_add(&t, row);
		sum += b->size;
		n++;
	}
	if (!ret) {
		tbl_print(&t, stdout, 0);
		printf("%zu buffer%s, %s%s\n", n, n == 1 ? "" : "s",
		       fmt_bytes(total, sizeof(total), sum, exact), exact ? " bytes" : "");
	}
	tbl_free(&t);
	return ret ? gm_error("out of memory") : GM_EXIT_OK;
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
		ret = gm_nl_report(&nl, "buffers");
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
	if (o->json) {
		print_json(&bufs, min);
		ret = GM_EXIT_OK;
	} else {
		ret = print_table(&bufs, min, o->bytes);
	}
	gm_buf_list_free(&bufs);
	return ret;
}
