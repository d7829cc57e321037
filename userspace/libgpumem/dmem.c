// SPDX-License-Identifier: GPL-2.0
/*
 * dmem.c - the dmem cgroup controller's files (dmem.h). Each line is
 * "<region name> <value>", the value a decimal byte count or "max" (the
 * format dmemcg_limit_show() and dmem_cgroup_region_capacity_show() print
 * in kernel/cgroup/dmem.c; region names have no blanks).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmem.h"
#include "parse.h"
#include "query.h"

static const char *const names[GM_DMEM_NFILES] = {
	[GM_DMEM_CAPACITY] = "dmem.capacity", [GM_DMEM_CURRENT] = "dmem.current",
	[GM_DMEM_PEAK] = "dmem.peak", [GM_DMEM_MIN] = "dmem.min",
	[GM_DMEM_LOW] = "dmem.low", [GM_DMEM_MAX] = "dmem.max",
};

const char *gm_dmem_file_name(enum gm_dmem_file file)
{
	return file < GM_DMEM_NFILES ? names[file] : "dmem.?";
}

/* "<name> <bytes|max>\n": the value of name, or -EPROTO */
static int parse_line(char *line, const char *region, struct gm_dmem_val *out)
{
	char *sp = strchr(line, ' '), *val, *end;
	unsigned long long v;

	if (!sp || sp == line)
		return -EPROTO;
	*sp = '\0';
	val = sp + 1;
	val[strcspn(val, "\n")] = '\0';
	if (strcmp(line, region) != 0)
		return 0;
	out->known = true;
	if (strcmp(val, "max") == 0) {
		out->unlimited = true;
		return 0;
	}
	errno = 0;
	v = strtoull(val, &end, 10);
	if (!*val || *end || errno || val[0] == '-')
		return -EPROTO;
	out->bytes = v;
	return 0;
}

int gm_dmem_read(const char *dir, enum gm_dmem_file file, const char *region,
		 struct gm_dmem_val *out)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	*out = (struct gm_dmem_val){ 0 };
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, gm_dmem_file_name(file)) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && !out->known && getline(&line, &cap, f) > 0)
		ret = parse_line(line, region, out);
	if (!ret && ferror(f))
		ret = -EIO;
	free(line);
	fclose(f);
	return ret;
}

int gm_dmem_read_cgroup(const char *path, enum gm_dmem_file file, const char *region,
			struct gm_dmem_val *out)
{
	char root[PATH_MAX], dir[PATH_MAX];

	cgroup2_root(root, sizeof(root));
	if (!path)
		path = "";
	if ((size_t)snprintf(dir, sizeof(dir), "%s%s%s", root,
			     path[0] == '/' || !path[0] ? "" : "/",
			     strcmp(path, "/") == 0 ? "" : path) >= sizeof(dir))
		return -ENAMETOOLONG;
	return gm_dmem_read(dir, file, region, out);
}

bool gm_dmem_enrich(struct gm_dev_list *l)
{
	bool any = false;
	size_t i, r, k;

	for (i = 0; i < l->n; i++) {
		for (r = 0; r < l->v[i].nregions; r++) {
			struct gm_dev_region *g = &l->v[i].regions[r];

			for (k = 0; k < g->ndmem; k++) {
				struct gm_dmem_val v;

				any = true;
				if (!g->dmem[k].name[0] ||
				    gm_dmem_read_cgroup("", GM_DMEM_CURRENT, g->dmem[k].name, &v) ||
				    !v.known || v.unlimited)
					continue;
				g->dmem[k].has_current = true;
				g->dmem[k].current = v.bytes;
			}
		}
	}
	return any;
}

/* the first dmem region's name of device DEV's region REGION, or NULL */
static const char *dmem_name(const struct gm_dev_list *devs, uint32_t dev, uint32_t region)
{
	size_t i, r;

	for (i = 0; i < devs->n; i++) {
		if (devs->v[i].id != dev)
			continue;
		for (r = 0; r < devs->v[i].nregions; r++) {
			const struct gm_dev_region *g = &devs->v[i].regions[r];

			if (g->region == region && g->ndmem && g->dmem[0].name[0])
				return g->dmem[0].name;
		}
	}
	return NULL;
}

bool gm_dmem_limits(const struct gm_dev_list *devs, struct gm_limit_list *l)
{
	static const enum gm_dmem_file files[] = {
		GM_DMEM_CURRENT, GM_DMEM_MAX, GM_DMEM_MIN, GM_DMEM_LOW,
	};
	bool any = false;
	size_t i, k;

	for (i = 0; i < l->n; i++) {
		struct gm_limit *x = &l->v[i];
		const char *name;

		if (!x->has_dev || !(name = dmem_name(devs, x->dev_id, x->region)))
			continue;
		any = true;
		snprintf(x->dmem_region, sizeof(x->dmem_region), "%s", name);
		if (!x->cgroup)
			continue;
		for (k = 0; k < sizeof(files) / sizeof(*files); k++)
			gm_dmem_read_cgroup(x->cgroup, files[k], name, &x->dmem[files[k]]);
	}
	l->dmem = any;
	return any;
}

void gm_limits_dmem(struct gm_nl *nl, struct gm_limit_list *l)
{
	struct gm_dev_list devs;

	if (gm_get_devices(nl, &devs) < 0)
		return;		/* no dmem figures, nothing else lost */
	gm_dmem_limits(&devs, l);
	gm_dev_list_free(&devs);
}

int gm_dmem_region_lookup(const struct gm_dev_list *devs, const char *name, uint32_t *dev,
			  uint32_t *region)
{
	size_t i, r, k;

	for (i = 0; i < devs->n; i++) {
		for (r = 0; r < devs->v[i].nregions; r++) {
			const struct gm_dev_region *g = &devs->v[i].regions[r];

			for (k = 0; k < g->ndmem; k++) {
				if (strcmp(g->dmem[k].name, name) == 0) {
					*dev = devs->v[i].id;
					*region = g->region;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}
