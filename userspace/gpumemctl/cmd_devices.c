// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_devices.c - `gpumemctl devices`: every device gpumem accounts, one
 * table row per memory region.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../uapi/gpumem.h"
#include "drminfo.h"
#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl devices [--json] [--bytes]\n"
	"\n"
	"List the DRM devices gpumem accounts: driver, bus id, PCI vendor:device\n"
	"(from sysfs, through libdrm), the render node (N of renderDN, from the\n"
	"kernel), the driver's description (from the kernel), whether gpumem\n"
	"classifies its buffers through TTM, and the\n"
	"capacity, use and free space of each memory region (\"-\": not known).\n"
	"\n"
	"  -j, --json    a JSON array, one object per device:\n"
	"                id, name, driver, unique, pci_vendor, pci_device,\n"
	"                description, render_id (the last four only when known), ttm,\n"
	"                regions: [{region, capacity, used, free, largest_free,\n"
	"                free_blocks, free_blocks_bytes}] (null: unknown; empty for a\n"
	"                device without TTM, shown as system in tables); largest_free\n"
	"                is the largest free block, FRAG% = 1 - largest_free /\n"
	"                free_blocks_bytes (the free space as the allocator sees it)\n"
	"                On a kernel whose dmem cgroup controller charges a region\n"
	"                (its driver's or gpumem's region, module parameter\n"
	"                dmem_provider), also dmem_region (DMEM: the names dmem.max\n"
	"                takes), dmem_registered_by (DMEM-BY: driver or gpumem) and\n"
	"                dmem_current (DMEM-CUR: the root cgroup's dmem.current,\n"
	"                read from the cgroup files): dmem's figures, beside gpumem's\n"
	"  -b, --bytes   exact byte counts\n";

int cmd_devices(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = { GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct gm_dev_row *rows;
	struct gm_dev_list devs;
	struct gm_nl nl = { 0 };
	struct gm_fields fs;
	size_t i, n;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		ret = gm_common_opt(c, "devices", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands("devices", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_get_devices(&nl, &devs) < 0) {
		ret = gm_report(&nl, "devices");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	for (i = 0; i < devs.n; i++)
		gm_drm_enrich(&devs.v[i]);
	rows = gm_dev_rows(&devs, &n);
	/* the dmem controller's columns only where it charges some region */
	fs = gm_dev_fieldset_dmem(o->json || o->bytes, gm_dmem_enrich(&devs));
	ret = GM_EXIT_OK;
	if (!rows && devs.n)
		ret = gm_error("out of memory");
	else if (o->json)
		gm_fields_json_array(stdout, &fs, rows, n, sizeof(*rows));
	else if (gm_fields_table(stdout, &fs, rows, n, sizeof(*rows), 0) < 0)
		ret = gm_error("out of memory");
	free(rows);
	gm_dev_list_free(&devs);
	return ret;
}
