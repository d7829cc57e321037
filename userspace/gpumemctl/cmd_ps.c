// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_ps.c - `gpumemctl ps`: memory per process and device, optionally of
 * one pid, one device or one cgroup subtree (filtered by the kernel).
 */
#include <getopt.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "parse.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl ps [-p PID] [-d DEV] [-c CGROUP] [-H] [--json] [--bytes]\n"
	"\n"
	"Memory per process and device. Two views:\n"
	"\n"
	"charged (default): bytes of the VRAM and GTT placements the process\n"
	"allocated that are still resident and reachable by a handle or dma-buf,\n"
	"and their number, from counters the module keeps at allocation and free\n"
	"time: the cost does not grow with the number of buffers. Placements made\n"
	"by kernel threads or before the module was loaded count for nobody; a\n"
	"shared buffer counts for the process that allocated it while it lives.\n"
	"Only drivers whose memory managers gpumem hooks (TTM) are counted.\n"
	"\n"
	"held (-H): bytes of the distinct buffer objects the process holds a handle\n"
	"to, per region (vram, gtt, system, other), of every DRM driver, how much of\n"
	"it is shared with other processes or dma-buf, how much it owns (summed\n"
	"over all processes of a device, owned counts every buffer once) and the\n"
	"number of buffers, from a walk of every client and buffer. pid 0\n"
	"([kernel]) collects in-kernel DRM clients. The walk never waits for a\n"
	"buffer a driver keeps reserved (moving or validating it): such a buffer is\n"
	"in no column, and a line on stderr says how many were skipped.\n"
	"\n"
	"  -p, --pid PID        only this process (1 to 4194304; 0: in-kernel clients)\n"
	"  -d, --device DEV     only this device: cardN, N or a PCI address\n"
	"  -c, --cgroup CGROUP  only processes in this cgroup v2 directory and its\n"
	"                       descendants: /sys/fs/cgroup/a.slice/b, a.slice/b\n"
	"                       (relative to the cgroup2 mount) or /a.slice/b\n"
	"  -H, --held           the held view (a walk) instead of the charged view\n"
	"  -j, --json           a JSON array, one object per process and device:\n"
	"                       pid, comm, cgroup_id, cgroup, device, view\n"
	"                       (\"charged\" or \"held\"), vram, gtt, bos; the held\n"
	"                       view adds system, other, shared, owned, skipped\n"
	"  -b, --bytes          exact byte counts\n";

static int print_table(const struct gm_proc_list *l, bool held, bool exact)
{
	struct gm_fields fs = gm_proc_fieldset(held, exact);
	uint64_t skipped;
	size_t i;

	if (gm_fields_table(stdout, &fs, l->v, l->n, sizeof(*l->v), 0) < 0)
		return gm_error("out of memory");
	for (i = 0, skipped = 0; i < l->n; i++)
		skipped += l->v[i].skipped;
	if (skipped)
		fprintf(stderr, "gpumemctl: %" PRIu64 " buffer(s) were busy (reserved by a driver) and are not counted\n",
			skipped);
	return GM_EXIT_OK;
}

int cmd_ps(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "pid", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "held", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev_arg = NULL, *cg_arg = NULL;
	struct gm_proc_filter f = { 0 };
	struct gm_proc_list procs;
	char err[GM_ERR_LEN], root[256];
	struct dev_spec spec;
	struct gm_nl nl = { 0 };
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "p:d:c:H", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pid(optarg, &f.pid, err, sizeof(err)) < 0)
				return gm_usage_error("ps", "%s", err);
			f.has_pid = true;
			break;
		case 'd':
			if (parse_device(optarg, &spec, err, sizeof(err)) < 0)
				return gm_usage_error("ps", "%s", err);
			dev_arg = optarg;
			break;
		case 'c':
			cg_arg = optarg;
			break;
		case 'H':
			f.held = true;
			break;
		default:
			ret = gm_common_opt(c, "ps", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("ps", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (cg_arg) {
		if (resolve_cgroup(cg_arg, cgroup2_root(root, sizeof(root)), &f.cgroup_id,
				   err, sizeof(err)) < 0)
			return gm_usage_error("ps", "%s", err);
		f.has_cgroup = true;
	}

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (dev_arg) {
		ret = gm_device_arg(&nl, "ps", &spec, dev_arg, &f.dev_id);
		if (ret != GM_OPT_NEXT) {
			gm_nl_close(&nl);
			return ret;
		}
		f.has_dev = true;
	}
	if (gm_get_procs(&nl, &f, &procs) < 0) {
		ret = gm_report(&nl, "processes");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	gm_procs_sort(&procs);
	if (o->json) {
		struct gm_fields fs = gm_proc_fieldset(f.held, true);

		gm_fields_json_array(stdout, &fs, procs.v, procs.n, sizeof(*procs.v));
		ret = GM_EXIT_OK;
	} else {
		ret = print_table(&procs, f.held, o->bytes);
	}
	gm_proc_list_free(&procs);
	return ret;
}
