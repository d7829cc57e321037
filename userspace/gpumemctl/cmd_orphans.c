// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_orphans.c - `gpumemctl orphans`: resident memory whose allocating
 * process has exited, per buffer group, and who keeps it alive now (the
 * kernel's orphan-get dump; CAP_NET_ADMIN only). Usage: see help below.
 */
#include <stddef.h>
#include <stdio.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "nlspec.h"
#include "query.h"
#include "rows_cmd.h"

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
	"paths. DROPPED: live holders the report left out of HOLDERS (it lists at\n"
	"most 65536 pids, and only as many as fit in the module parameter\n"
	"dump_max_bytes). Needs CAP_NET_ADMIN (root); exit status 4 without it.\n"
	"\n"
	"  -j, --json            a JSON array, one object per group: device, region,\n"
	"                        bytes, buffers, cgroup_id, cgroup, pid, comm,\n"
	"                        since_ms, holders (pids), kinds (names),\n"
	"                        holders_dropped\n"
	"  -b, --bytes           exact byte counts\n";

/* The kinds' names, comma-separated ("-" for none). */
static void get_kinds(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_row *r = obj;
	uint64_t kinds = 0;

	gm_raw_uint(&r->raw, f->attr, &kinds);
	v->kind = GM_V_STR;
	v->s = gm_orphan_kinds_label(buf, GM_FIELD_BUF, 0, (uint32_t)kinds) ? buf : "-";
}

#define ORPHAN_ATTR(attr) GM_ATTR(struct gm_row, raw, GPUMEM_A_ORPHAN_##attr)

static const struct gm_field orphan_fields[] = {
	{ .title = "DEVICE", .key = "device", ORPHAN_ATTR(DEV_ID), .get = gm_get_attr_device },
	{ .title = "REGION", .key = "region", ORPHAN_ATTR(REGION), .get = gm_get_attr_region },
	{ .title = "BYTES", .align = 'r', .key = "bytes", ORPHAN_ATTR(BYTES),
	  .get = gm_get_attr_bytes },
	{ .title = "BUFFERS", .align = 'r', .key = "buffers", ORPHAN_ATTR(BUFFERS),
	  .get = gm_get_attr_u64 },
	{ .title = "PID", .align = 'r', .key = "pid", ORPHAN_ATTR(PID), .get = gm_get_attr_u64 },
	{ .title = "COMM", .key = "comm", ORPHAN_ATTR(COMM), .get = gm_get_attr_str },
	{ .title = "SINCE_MS", .align = 'r', .key = "since_ms", ORPHAN_ATTR(SINCE_MS),
	  .get = gm_get_attr_u64 },
	{ .title = "HOLDERS", .key = "holders", .get = gm_row_get_list },
	{ .title = "KINDS", .key = "kinds", ORPHAN_ATTR(KINDS), .get = get_kinds },
	{ .title = "CGROUP_ID", .align = 'r', .key = "cgroup_id", ORPHAN_ATTR(CGROUP_ID),
	  .get = gm_get_attr_u64 },
	{ .title = "CGROUP", .key = "cgroup", ORPHAN_ATTR(CGROUP_PATH), .get = gm_get_attr_str },
	{ .title = "DROPPED", .align = 'r', .key = "holders_dropped",
	  ORPHAN_ATTR(HOLDERS_DROPPED), .get = gm_get_attr_u64 },
};

int cmd_orphans(int argc, char **argv, struct gm_opts *o)
{
	static const struct gm_rows_cmd c = {
		.name = "orphans", .help = help, .cmd = GPUMEM_CMD_ORPHAN_GET,
		.policy = gm_spec_orphan_policy, .maxattr = GPUMEM_A_ORPHAN_MAX,
		.required = { GPUMEM_A_ORPHAN_DEV_ID, GPUMEM_A_ORPHAN_PID },
		.list_attr = GPUMEM_A_ORPHAN_HOLDER,
		.fields = orphan_fields,
		.nfields = sizeof(orphan_fields) / sizeof(*orphan_fields),
		.noun = "group",
	};

	return gm_rows_command(&c, argc, argv, o);
}
