// SPDX-License-Identifier: GPL-2.0
/*
 * test_dmem.c - the dmem cgroup controller's files as libgpumem reads them
 * (libgpumem/dmem.c), and its figures in the limit and cgroup tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "dmem.h"
#include "fields.h"
#include "query.h"
#include "quota.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

void test_dmem(void)
{
	char dir[] = "/tmp/gpumem-dmem-test.XXXXXX";
	struct gm_limit v[2] = {
		{ .cgroup_id = 7, .cgroup = "/t", .has_dev = true, .dev_id = 0,
		  .region = GPUMEM_REGION_VRAM, .has_usage = true, .usage = 2 << 20,
		  .dmem_region = "drm/0000:00:02.0/vram0",
		  .dmem = { [GM_DMEM_CURRENT] = { true, false, 2 << 20 },
			    [GM_DMEM_MAX] = { true, false, 4 << 20 },
			    [GM_DMEM_MIN] = { true, false, 0 },
			    [GM_DMEM_LOW] = { true, true, 0 } } },
		{ .cgroup_id = 8, .cgroup = "/u", .region = GPUMEM_REGION_VRAM,
		  .has_usage = true, .usage = 1 << 20 },
	};
	struct gm_limit_list l = { .v = v, .n = 2, .cap = 2, .dmem = true };
	struct gm_dmem_val d;
	struct mem m;
	char *out;
	int ret;

	if (!mkdtemp(dir)) {
		result(0, "dmem: a temporary directory");
		return;
	}
	put(dir, "dmem.max", "drm/0000:00:02.0/vram0 4194304\ndrm/0000:00:02.0/vram1 max\n");
	put(dir, "dmem.current", "drm/0000:00:02.0/vram0 -1\n");
	put(dir, "dmem.low", "novalue\n");

	ret = gm_dmem_read(dir, GM_DMEM_MAX, "drm/0000:00:02.0/vram0", &d);
	result(ret == 0 && d.known && !d.unlimited && d.bytes == 4194304,
	       "dmem.max: a region's bytes");
	ret = gm_dmem_read(dir, GM_DMEM_MAX, "drm/0000:00:02.0/vram1", &d);
	result(ret == 0 && d.known && d.unlimited, "dmem.max: a region's \"max\"");
	ret = gm_dmem_read(dir, GM_DMEM_MAX, "drm/0000:00:02.0/vram", &d);
	result(ret == 0 && !d.known, "dmem.max: a region it does not list (no prefix match)");
	ret = gm_dmem_read(dir, GM_DMEM_CURRENT, "drm/0000:00:02.0/vram0", &d);
	result(ret == -EPROTO, "dmem.current: a negative value is refused (-EPROTO)");
	ret = gm_dmem_read(dir, GM_DMEM_LOW, "x", &d);
	result(ret == -EPROTO, "dmem.low: a line without a value is refused (-EPROTO)");
	ret = gm_dmem_read(dir, GM_DMEM_MIN, "x", &d);
	result(ret == -ENOENT && !d.known, "dmem.min: no file (no dmem controller): -ENOENT");

	gm_limits_table(mem_open(&m), &l, true);
	out = mem_close(&m);
	eq_str("limits table with dmem: its current and max beside gpumem's (source dmem)", out,
	       "DEVICE  REGION    USAGE  MAX  HIGH  USE%  MODE  DENIED  DMEM                    "
	       "DMEM-CUR  DMEM-MAX  DMEM-MIN  DMEM-LOW  CGROUP\n"
	       "card0   vram    2097152    -     -     -  -          -  drm/0000:00:02.0/vram0   "
	       "2097152   4194304         0       max  /t\n"
	       "all     vram    1048576    -     -     -  -          -  -                              "
	       "-         -         -         -  /u\n");
	free(out);
	gm_limits_json(mem_open(&m), &l);
	out = mem_close(&m);
	eq_str("limits JSON with dmem: the dmem keys only where there is a dmem region", out,
	       "[\n"
	       "{\"cgroup_id\":7,\"cgroup\":\"/t\",\"device\":\"card0\",\"region\":\"vram\",\"usage\":2097152,\"max\":null,\"high\":null,\"mode\":null,\"denied\":null,\"dmem_region\":\"drm/0000:00:02.0/vram0\",\"dmem_current\":2097152,\"dmem_max\":4194304,\"dmem_min\":0,\"dmem_low\":\"max\"},\n"
	       "{\"cgroup_id\":8,\"cgroup\":\"/u\",\"device\":\"all\",\"region\":\"vram\",\"usage\":1048576,\"max\":null,\"high\":null,\"mode\":null,\"denied\":null}\n"
	       "]\n");
	free(out);
	l.dmem = false;
	gm_limits_table(mem_open(&m), &l, true);
	out = mem_close(&m);
	result(out && !strstr(out, "DMEM"), "limits table without dmem: no dmem column");
	free(out);

	{
		struct gm_dev_region regs[2] = {
			{ .region = GPUMEM_REGION_GTT },
			{ .region = GPUMEM_REGION_VRAM, .ndmem = 2,
			  .dmem = { { .name = "drm/0000:00:02.0/vram0" },
				    { .name = "drm/0000:00:02.0/vram1" } } },
		};
		struct gm_dev devv[2] = {
			{ .id = 3 },
			{ .id = 5, .regions = regs, .nregions = 2 },
		};
		struct gm_dev_list devs = { .v = devv, .n = 2 };
		uint32_t dev = 0, region = 0;

		ret = gm_dmem_region_lookup(&devs, "drm/0000:00:02.0/vram1", &dev, &region);
		result(ret == 0 && dev == 5 && region == GPUMEM_REGION_VRAM,
		       "dmem name -> device and gpumem region");
		ret = gm_dmem_region_lookup(&devs, "drm/0000:00:02.0/vram", &dev, &region);
		result(ret == -ENOENT, "dmem name: no prefix match (-ENOENT)");
	}
	{
		struct gm_dev_region regs[1] = {
			{ .region = GPUMEM_REGION_VRAM, .ndmem = 2,
			  .dmem = { { .name = "drm/a/vram0", .source = GPUMEM_DMEM_SOURCE_GPUMEM,
				      .has_current = true, .current = 1 << 20 },
				    { .name = "drm/a/vram1", .source = GPUMEM_DMEM_SOURCE_DRIVER,
				      .has_current = true, .current = 2 << 20 } } },
		};
		struct gm_dev devv[1] = {
			{ .id = 0, .name = "card0", .driver = "qxl", .unique = "a", .regions = regs,
			  .nregions = 1 },
		};
		struct gm_dev_list devs = { .v = devv, .n = 1 };
		struct gm_dev_row *rows;
		struct gm_fields fs;
		size_t n;

		rows = gm_dev_rows(&devs, &n);
		fs = gm_dev_fieldset_dmem(true, true);
		gm_fields_json_array(mem_open(&m), &fs, rows, n, sizeof(*rows));
		out = mem_close(&m);
		result(out && strstr(out, "\"dmem_region\":\"drm/a/vram0,drm/a/vram1\","
					  "\"dmem_registered_by\":\"gpumem,driver\","
					  "\"dmem_current\":3145728}"),
		       "devices JSON with dmem: names, who registered them, current summed");
		free(out);
		fs = gm_dev_fieldset_dmem(true, false);
		gm_fields_json_array(mem_open(&m), &fs, rows, n, sizeof(*rows));
		out = mem_close(&m);
		result(out && !strstr(out, "dmem"), "devices JSON without dmem: no dmem key");
		free(out);
		free(rows);
	}

	unlink(strcat(strcpy((char[512]){ 0 }, dir), "/dmem.max"));
	unlink(strcat(strcpy((char[512]){ 0 }, dir), "/dmem.current"));
	unlink(strcat(strcpy((char[512]){ 0 }, dir), "/dmem.low"));
	rmdir(dir);
}
