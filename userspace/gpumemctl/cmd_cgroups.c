// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_cgroups.c - `gpumemctl cgroups`: GPU memory charged per cgroup,
 * device and region, with the limit set there (CGROUP_GET; any user).
 */
#include <getopt.h>
#include <stdio.h>

#include "gpumemctl.h"
#include "output.h"
#include "parse.h"
#include "query.h"
#include "quota.h"

static const char help[] =
	"Usage: gpumemctl cgroups [-d DEV] [--json] [--bytes]\n"
	"\n"
	"GPU memory charged to each cgroup (v2) per device and region, counted by\n"
	"the gpumem module when memory is placed; a cgroup includes its\n"
	"descendants. DEVICE \"all\" rows are the totals over all devices. Where\n"
	"a limit is set on exactly that cgroup, device (or all devices) and region,\n"
	"its max, high, mode and number of denied placements are shown too (see\n"
	"gpumemctl limit). USE% is the usage in percent of max. Where the kernel's\n"
	"dmem cgroup controller charges the device region, the cgroup's own dmem\n"
	"files are shown beside (source dmem: DMEM-CUR, DMEM-MAX; --json also\n"
	"dmem_region, dmem_min, dmem_low): dmem.max limits those placements,\n"
	"gpumem's MAX does not.\n"
	"\n"
	"  -d, --device DEV   only rows of this device (cardN, N or a PCI address)\n"
	"  -j, --json         a JSON array, one object per row: cgroup_id, cgroup,\n"
	"                     device (\"cardN\" or \"all\"), region, usage, max,\n"
	"                     high, mode, denied (null without a limit)\n"
	"  -b, --bytes        exact byte counts\n";

int cmd_cgroups(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "device", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev_arg = NULL;
	struct gm_limit_list l;
	struct gm_nl nl = { 0 };
	char err[GM_ERR_LEN];
	struct dev_spec spec;
	uint32_t dev = 0;
	size_t i, n;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "d:", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (parse_device(optarg, &spec, err, sizeof(err)) < 0)
				return gm_usage_error("cgroups", "%s", err);
			dev_arg = optarg;
			break;
		default:
			ret = gm_common_opt(c, "cgroups", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("cgroups", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (dev_arg) {
		ret = gm_device_arg(&nl, "cgroups", &spec, dev_arg, &dev);
		if (ret != GM_OPT_NEXT) {
			gm_nl_close(&nl);
			return ret;
		}
	}
	if (gm_get_cgroups(&nl, &l) < 0) {
		ret = gm_report(&nl, "cgroups");
		gm_nl_close(&nl);
		return ret;
	}
	gm_limits_dmem(&nl, &l);
	gm_nl_close(&nl);

	if (dev_arg) {	/* the kernel does not filter: keep this device's rows */
		for (i = n = 0; i < l.n; i++) {
			if (l.v[i].has_dev && l.v[i].dev_id == dev)
				l.v[n++] = l.v[i];
			else
				gm_limit_free(&l.v[i]);
		}
		l.n = n;
	}
	ret = GM_EXIT_OK;
	if (o->json)
		gm_limits_json(stdout, &l);
	else if (gm_limits_table(stdout, &l, o->bytes) < 0)
		ret = gm_error("out of memory");
	gm_limit_list_free(&l);
	return ret;
}
