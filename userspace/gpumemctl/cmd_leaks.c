// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_leaks.c - `gpumemctl leaks`: the leak suspects now, processes' and
 * cgroups' (the kernel's leak-get dump; CAP_NET_ADMIN only). Usage: see
 * help below.
 */
#include <stddef.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "nlspec.h"
#include "rows_cmd.h"

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

#define LEAK_ATTR(attr) GM_ATTR(struct gm_row, raw, GPUMEM_A_LEAK_##attr)

static const struct gm_field leak_fields[] = {
	{ .title = "DEVICE", .key = "device", LEAK_ATTR(DEV_ID), .get = gm_get_attr_device },
	{ .title = "REGION", .key = "region", LEAK_ATTR(REGION), .get = gm_get_attr_region },
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
	static const struct gm_rows_cmd c = {
		.name = "leaks", .help = help, .cmd = GPUMEM_CMD_LEAK_GET,
		.policy = gm_spec_leak_policy, .maxattr = GPUMEM_A_LEAK_MAX,
		.required = { GPUMEM_A_LEAK_DEV_ID, GPUMEM_A_LEAK_REGION },
		.fields = leak_fields,
		.nfields = sizeof(leak_fields) / sizeof(*leak_fields),
		.noun = "suspect",
	};

	return gm_rows_command(&c, argc, argv, o);
}
