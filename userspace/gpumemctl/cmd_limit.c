// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_limit.c - `gpumemctl limit set|get|clear|list`: the per-cgroup
 * limits gpumem enforces (LIMIT_SET, LIMIT_GET, LIMIT_DEL; CAP_NET_ADMIN).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../../uapi/gpumem.h"
#include "gpumemctl.h"
#include "output.h"
#include "parse.h"
#include "query.h"
#include "quota.h"

static const char help[] =
	"Usage: gpumemctl limit set CGROUP [--max SIZE] [--high SIZE] [--mode enforce|monitor]\n"
	"                           [--replace] [-d DEV] [-r REGION]\n"
	"       gpumemctl limit get CGROUP [-d DEV] [-r REGION]\n"
	"       gpumemctl limit clear CGROUP [-d DEV] [-r REGION]\n"
	"       gpumemctl limit list\n"
	"\n"
	"GPU memory limits of cgroups (v2), kept and enforced by the gpumem module;\n"
	"a limit counts the memory of the cgroup and all its descendants. A limit\n"
	"is named by its cgroup, device (or all devices) and region. All of this\n"
	"needs CAP_NET_ADMIN (root); exit status 4 without it.\n"
	"\n"
	"  set    create the limit or change it: a new VRAM placement that would take\n"
	"         the cgroup beyond --max is denied (enforce) or only reported\n"
	"         (monitor); crossing --high is reported, never denied. set changes\n"
	"         only what it is given and keeps the rest (--high alone keeps --max\n"
	"         and the mode); a new limit needs --max, --high or both. With\n"
	"         --replace it replaces the whole limit: a value not given is removed\n"
	"         and the mode is enforce unless given. Lowering --max below the\n"
	"         usage evicts nothing. Prints the limit as get does.\n"
	"  get    the limit with the cgroup's current usage and denied placements\n"
	"  clear  remove the limit\n"
	"  list   every limit (with the dmem controller's figures of the cgroup where\n"
	"         it charges the device region: DMEM-CUR, DMEM-MAX)\n"
	"\n"
	"  CGROUP              a cgroup v2 directory: /sys/fs/cgroup/a.slice/b,\n"
	"                      a.slice/b (relative to the cgroup2 mount) or /a.slice/b\n"
	"      --max SIZE      hard limit in bytes; K, M, G, T (KiB, MiB, GiB, TiB)\n"
	"                      are powers of 1024: 8G, 1.5G, 512MiB\n"
	"      --high SIZE     soft limit, at most --max\n"
	"  -d, --device DEV    only on this device (cardN, N or a PCI address);\n"
	"                      default: the limit on all devices together\n"
	"  -r, --region REGION vram (default) or gtt (the regions gpumem charges), or\n"
	"                      the dmem cgroup controller's name of a device region\n"
	"                      (drm/<bus id>/<name>, gpumemctl devices): its device\n"
	"                      and region\n"
	"      --mode MODE     enforce (the default of a new limit) or monitor\n"
	"      --replace       set: replace the whole limit instead of changing it\n"
	"  -j, --json          JSON: list an array, get and set one object with\n"
	"                      cgroup_id, cgroup, device (\"cardN\" or \"all\"),\n"
	"                      region, usage, max, high, mode, denied (null: not\n"
	"                      set); clear prints {cgroup_id, device, region,\n"
	"                      removed}\n"
	"  -b, --bytes         exact byte counts\n";

enum { OPT_MAX = 256, OPT_HIGH, OPT_MODE, OPT_REPLACE };

struct limit_args {
	const char *action, *path, *dev_arg;
	const char *dmem_region;	/* --region drm/<unique>/<name>: dmem's name */
	struct dev_spec spec;
	struct gm_limit_req req;
};

/* the device of the limit, looked up (2: no such device); GM_OPT_NEXT or an
 * exit code. gpumem drops the limits of a device that goes away. */
static int limit_device(struct gm_nl *nl, struct limit_args *a)
{
	struct gm_limit_key *k = &a->req.key;
	struct gm_dev_list devs;
	uint32_t dev, region;
	int ret;

	if (a->dev_arg) {
		k->has_dev = true;
		ret = gm_device_arg(nl, "limit", &a->spec, a->dev_arg, &k->dev_id);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	if (!a->dmem_region)
		return GM_OPT_NEXT;
	/* dmem's name of a device region: the device and gpumem's region */
	if (gm_get_devices(nl, &devs) < 0)
		return gm_report(nl, "devices");
	ret = gm_dmem_region_lookup(&devs, a->dmem_region, &dev, &region);
	gm_dev_list_free(&devs);
	if (ret < 0)
		return gm_usage_error("limit", "region '%s': no device region has that dmem region "
				      "(see gpumemctl devices)", a->dmem_region);
	if (a->dev_arg && k->dev_id != dev)
		return gm_usage_error("limit", "region '%s' is not on device '%s'", a->dmem_region,
				      a->dev_arg);
	k->has_dev = true;
	k->dev_id = dev;
	k->region = region;
	return GM_OPT_NEXT;
}

static void print_limit(const struct gm_limit *l, const struct gm_opts *o)
{
	struct gm_limit_list one = { .v = (struct gm_limit *)l, .n = 1, .cap = 1 };

	if (o->json) {
		struct jw w;

		jw_init(&w, stdout);
		gm_limit_json(&w, l);
		jw_finish(&w);
	} else if (gm_limits_table(stdout, &one, o->bytes) < 0) {
		gm_error("out of memory");
	}
}

static int do_set(struct gm_nl *nl, struct limit_args *a, const struct gm_opts *o)
{
	struct gm_limit l;
	int ret;

	ret = limit_device(nl, a);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_limit_set(nl, &a->req) < 0)
		return gm_report(nl, "limit set");
	if (gm_limit_get(nl, &a->req.key, &l) < 0) {
		fprintf(stderr, "gpumemctl: limit set: the limit is set, but reading it back "
			"failed:\n");
		gm_report(nl, "limit get");
		return GM_EXIT_OK;
	}
	print_limit(&l, o);
	gm_limit_free(&l);
	return GM_EXIT_OK;
}

static int do_get(struct gm_nl *nl, struct limit_args *a, const struct gm_opts *o)
{
	struct gm_limit l;
	int ret;

	ret = limit_device(nl, a);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_limit_get(nl, &a->req.key, &l) < 0)
		return gm_report(nl, "limit get");
	print_limit(&l, o);
	gm_limit_free(&l);
	return GM_EXIT_OK;
}

static int do_clear(struct gm_nl *nl, struct limit_args *a, const struct gm_opts *o)
{
	const struct gm_limit_key *k = &a->req.key;
	int ret;

	ret = limit_device(nl, a);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_limit_del(nl, k) < 0)
		return gm_report(nl, "limit clear");
	if (o->json) {
		struct gm_limit l = {
			.cgroup_id = k->cgroup_id, .has_dev = k->has_dev, .dev_id = k->dev_id,
			.region = k->region,
		};
		char dev[16], rb[12];
		struct jw w;

		jw_init(&w, stdout);
		jw_object_begin(&w);
		jw_kv_u64(&w, "cgroup_id", l.cgroup_id);
		jw_kv_string(&w, "device", gm_limit_device(&l, dev));
		jw_kv_string(&w, "region", gm_region_label(l.region, rb));
		jw_kv_bool(&w, "removed", true);
		jw_object_end(&w);
		jw_finish(&w);
	}
	return GM_EXIT_OK;
}

static int do_list(struct gm_nl *nl, const struct gm_opts *o)
{
	struct gm_limit_list l;
	int ret = GM_EXIT_OK;

	if (gm_get_limits(nl, &l) < 0)
		return gm_report(nl, "limit list");
	gm_limits_dmem(nl, &l);		/* dmem's figures beside, where it charges */
	if (o->json)
		gm_limits_json(stdout, &l);
	else if (gm_limits_table(stdout, &l, o->bytes) < 0)
		ret = gm_error("out of memory");
	gm_limit_list_free(&l);
	return ret;
}

/* Options that only go with some actions. */
static int check_action(struct limit_args *a, bool any_set_opt, bool any_key_opt)
{
	bool set = strcmp(a->action, "set") == 0, list = strcmp(a->action, "list") == 0;

	if (!set && !list && strcmp(a->action, "get") != 0 && strcmp(a->action, "clear") != 0)
		return gm_usage_error("limit", "unknown action '%s' (set, get, clear or list)",
				      a->action);
	if (!set && any_set_opt)
		return gm_usage_error("limit", "--max, --high, --mode and --replace go with 'limit set' "
				      "only");
	if (list) {
		if (a->path)
			return gm_usage_error("limit", "unexpected argument '%s' ('limit list' lists "
					      "every limit)", a->path);
		if (any_key_opt)
			return gm_usage_error("limit", "--device and --region do not go with "
					      "'limit list'");
		return GM_OPT_NEXT;
	}
	if (!a->path)
		return gm_usage_error("limit", "which cgroup? 'limit %s' needs a CGROUP", a->action);
	if (set && !a->req.has_max && !a->req.has_high && (a->req.replace || !a->req.has_mode))
		return gm_usage_error("limit", "'limit set' needs --max SIZE, --high SIZE or both%s",
				      a->req.replace ? "" : " (or --mode to change)");
	return GM_OPT_NEXT;
}

int cmd_limit(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "max", required_argument, NULL, OPT_MAX },
		{ "high", required_argument, NULL, OPT_HIGH },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "replace", no_argument, NULL, OPT_REPLACE },
		{ "device", required_argument, NULL, 'd' },
		{ "region", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct limit_args a = { .req.key.region = GPUMEM_REGION_VRAM };
	const char *max_arg = NULL, *high_arg = NULL;
	bool any_set_opt = false, any_key_opt = false;
	char err[GM_ERR_LEN], root[256];
	struct gm_nl nl = { 0 };
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "d:r:", opts, NULL)) != -1) {
		switch (c) {
		case OPT_MAX:
			if (parse_limit_size(optarg, &a.req.max, err, sizeof(err)) < 0)
				return gm_usage_error("limit", "--max: %s", err);
			a.req.has_max = any_set_opt = true;
			max_arg = optarg;
			break;
		case OPT_HIGH:
			if (parse_limit_size(optarg, &a.req.high, err, sizeof(err)) < 0)
				return gm_usage_error("limit", "--high: %s", err);
			a.req.has_high = any_set_opt = true;
			high_arg = optarg;
			break;
		case OPT_MODE:
			if (parse_mode(optarg, &a.req.mode, err, sizeof(err)) < 0)
				return gm_usage_error("limit", "%s", err);
			a.req.has_mode = any_set_opt = true;
			break;
		case OPT_REPLACE:
			a.req.replace = any_set_opt = true;
			break;
		case 'd':
			if (parse_device(optarg, &a.spec, err, sizeof(err)) < 0)
				return gm_usage_error("limit", "%s", err);
			a.dev_arg = optarg;
			any_key_opt = true;
			break;
		case 'r':
			if (strncmp(optarg, "drm/", 4) == 0) {	/* dmem's name */
				a.dmem_region = optarg;
				any_key_opt = true;
				break;
			}
			if (parse_region(optarg, &a.req.key.region, err, sizeof(err)) < 0)
				return gm_usage_error("limit", "%s", err);
			if (a.req.key.region != GPUMEM_REGION_VRAM &&
			    a.req.key.region != GPUMEM_REGION_GTT)
				return gm_usage_error("limit", "region '%s': limits apply to vram and gtt only",
						      optarg);
			any_key_opt = true;
			break;
		default:
			ret = gm_common_opt(c, "limit", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	if (optind >= argc)
		return gm_usage_error("limit", "which action? set, get, clear or list");
	a.action = argv[optind++];
	if (optind < argc)
		a.path = argv[optind++];
	if (optind < argc)
		return gm_usage_error("limit", "unexpected argument '%s'", argv[optind]);
	ret = check_action(&a, any_set_opt, any_key_opt);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (a.req.has_max && a.req.has_high && a.req.high > a.req.max)
		return gm_usage_error("limit", "--high %s is more than --max %s", high_arg, max_arg);
	if (a.path && resolve_cgroup(a.path, cgroup2_root(root, sizeof(root)), &a.req.key.cgroup_id,
				     err, sizeof(err)) < 0)
		return gm_usage_error("limit", "%s", err);

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	switch (a.action[0]) {
	case 's': ret = do_set(&nl, &a, o); break;
	case 'g': ret = do_get(&nl, &a, o); break;
	case 'c': ret = do_clear(&nl, &a, o); break;
	default: ret = do_list(&nl, o); break;
	}
	gm_nl_close(&nl);
	return ret;
}
