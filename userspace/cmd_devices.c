// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_devices.c - `gpumemctl devices`: every device gpumem accounts, one
 * table row per memory region.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "drminfo.h"
#include "gpumemctl.h"
#include "output.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl devices [--json] [--bytes]\n"
	"\n"
	"List the DRM devices gpumem accounts: driver, bus id, PCI vendor:device\n"
	"(from sysfs, through libdrm), the driver's description (from the kernel),\n"
	"whether gpumem classifies its buffers through TTM, and the\n"
	"capacity, use and free space of each memory region (\"-\": not known).\n"
	"\n"
	"  -j, --json    a JSON array, one object per device:\n"
	"                id, name, driver, unique, pci_vendor, pci_device,\n"
	"                description (the last three only when known), ttm,\n"
	"                regions: [{region, capacity, used, free}] (null: unknown;\n"
	"                empty for a device without TTM, shown as system in tables)\n"
	"  -b, --bytes   exact byte counts\n";

static void print_json(const struct gm_dev_list *l)
{
	char hex[8], rb[12];
	struct jw w;
	size_t i, r;

	jw_init(&w, stdout);
	jw_array_begin(&w);
	for (i = 0; i < l->n; i++) {
		const struct gm_dev *d = &l->v[i];

		jw_object_begin(&w);
		jw_kv_u64(&w, "id", d->id);
		jw_kv_string(&w, "name", d->name);
		jw_kv_string(&w, "driver", d->driver);
		jw_kv_string(&w, "unique", d->unique);
		if (d->has_pci) {
			snprintf(hex, sizeof(hex), "%04x", d->pci_vendor);
			jw_kv_string(&w, "pci_vendor", hex);
			snprintf(hex, sizeof(hex), "%04x", d->pci_device);
			jw_kv_string(&w, "pci_device", hex);
		}
		if (d->desc)
			jw_kv_string(&w, "description", d->desc);
		jw_kv_bool(&w, "ttm", d->ttm);
		jw_key(&w, "regions");
		jw_array_begin(&w);
		for (r = 0; r < d->nregions; r++) {
			const struct gm_dev_region *g = &d->regions[r];

			jw_object_begin(&w);
			jw_kv_string(&w, "region", gm_region_label(g->region, rb));
			if (g->has_capacity)
				jw_kv_u64(&w, "capacity", g->capacity);
			else
				jw_kv_null(&w, "capacity");
			if (g->has_used)
				jw_kv_u64(&w, "used", g->used);
			else
				jw_kv_null(&w, "used");
			if (g->has_capacity && g->has_used)
				jw_kv_u64(&w, "free", g->capacity > g->used ? g->capacity - g->used : 0);
			else
				jw_kv_null(&w, "free");
			jw_object_end(&w);
		}
		jw_array_end(&w);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_finish(&w);
}

static int print_table(const struct gm_dev_list *l, bool exact)
{
	static const char *const hdr[] = {
		"DEVICE", "DRIVER", "BUS", "PCI-ID", "TTM", "REGION",
		"CAPACITY", "USED", "FREE", "USE%", "DESCRIPTION",
	};
	char cap[FMT_BYTES_LEN], used[FMT_BYTES_LEN], fr[FMT_BYTES_LEN], pct[16], pci[16], rb[12];
	struct table t;
	size_t i, r;
	int ret = 0;

	tbl_init(&t, 11, hdr, "llllllrrrrl");
	for (i = 0; i < l->n && !ret; i++) {
		const struct gm_dev *d = &l->v[i];
		size_t n = d->nregions ? d->nregions : 1;

		if (d->has_pci)
			snprintf(pci, sizeof(pci), "%04x:%04x", d->pci_vendor, d->pci_device);
		for (r = 0; r < n && !ret; r++) {
			const struct gm_dev_region *g = d->nregions ? &d->regions[r] : NULL;
			bool known = g && g->has_capacity && g->has_used;
			/* no region (a driver without TTM): "system", like debugfs */
			const char *row[11] = {
				d->name, d->driver, d->unique, d->has_pci ? pci : NULL,
				d->ttm ? "yes" : "no", g ? gm_region_label(g->region, rb) : "system",
				g && g->has_capacity ? fmt_bytes(cap, sizeof(cap), g->capacity, exact) : NULL,
				g && g->has_used ? fmt_bytes(used, sizeof(used), g->used, exact) : NULL,
				known ? fmt_bytes(fr, sizeof(fr), g->capacity > g->used ?
						  g->capacity - g->used : 0, exact) : NULL,
				NULL, d->desc,
			};

			if (known && g->capacity) {
				snprintf(pct, sizeof(pct), "%.1f%%",
					 100.0 * (double)g->used / (double)g->capacity);
				row[9] = pct;
			}
			ret = tbl_add(&t, row);
		}
	}
	if (!ret)
		tbl_print(&t, stdout, 0);
	tbl_free(&t);
	return ret ? gm_error("out of memory") : GM_EXIT_OK;
}

int cmd_devices(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = { GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct gm_dev_list devs;
	struct gm_nl nl = { 0 };
	size_t i;
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
		ret = gm_nl_report(&nl, "devices");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	for (i = 0; i < devs.n; i++)
		gm_drm_enrich(&devs.v[i]);
	if (o->json) {
		print_json(&devs);
		ret = GM_EXIT_OK;
	} else {
		ret = print_table(&devs, o->bytes);
	}
	gm_dev_list_free(&devs);
	return ret;
}
