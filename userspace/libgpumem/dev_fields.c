// SPDX-License-Identifier: GPL-2.0
/*
 * dev_fields.c - the fields of a device region row (struct gm_dev_row), as
 * `gpumemctl devices` prints them and `gpumemctl export` and gpumemd export
 * them (one list, gm_dev_fieldset()), and the rows of a device list.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "output.h"
#include "query.h"

static void get_pci(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev *d = obj;

	if (!d->has_pci)
		return;
	if (f->arg == 1)	/* vendor */
		snprintf(buf, GM_FIELD_BUF, "%04x", d->pci_vendor);
	else if (f->arg == 2)	/* device */
		snprintf(buf, GM_FIELD_BUF, "%04x", d->pci_device);
	else
		snprintf(buf, GM_FIELD_BUF, "%04x:%04x", d->pci_vendor, d->pci_device);
	v->kind = GM_V_STR;
	v->s = buf;
}

/* no region (a driver without TTM): "system", like debugfs */
static void get_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev_row *row = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = row->region ? gm_region_label(row->region->region, buf) : "system";
}

static void get_free(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev_region *g = obj;

	(void)f;
	(void)buf;
	if (g->has_capacity && g->has_used) {
		v->kind = GM_V_BYTES;
		v->u = g->capacity > g->used ? g->capacity - g->used : 0;
	}
}

static void get_use(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev_region *g = obj;

	(void)f;
	if (g->has_capacity && g->has_used && g->capacity) {
		snprintf(buf, GM_FIELD_BUF, "%.1f%%", 100.0 * (double)g->used / (double)g->capacity);
		v->kind = GM_V_STR;
		v->s = buf;
	}
}

/* 1 - largest free block / free: how scattered the free space is */
static void get_frag(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev_region *g = obj;
	uint64_t free, largest;

	(void)f;
	if (gm_raw_uint(&g->raw, GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES, &free) &&
	    gm_raw_uint(&g->raw, GPUMEM_A_DEV_REGION_LARGEST_FREE, &largest)) {
		snprintf(buf, GM_FIELD_BUF, "%.1f%%", free && largest < free ?
			 100.0 * (1.0 - (double)largest / (double)free) : 0.0);
		v->kind = GM_V_STR;
		v->s = buf;
	}
}

/* a device region's dmem regions: their names ("a,b"), sources, current sum */
static void get_dmem(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_dev_region *g = obj;
	size_t k, len = 0;
	uint64_t sum = 0;
	bool known = false;

	if (!g->ndmem)
		return;
	buf[0] = '\0';
	for (k = 0; k < g->ndmem; k++) {
		const struct gm_dev_dmem *m = &g->dmem[k];
		const char *s = f->arg == 1 ? gm_dmem_source_name(m->source) :
				m->name[0] ? m->name : "?";

		if (f->arg == 2) {
			known |= m->has_current;
			sum += m->current;
			continue;
		}
		len += snprintf(buf + len, len < GM_FIELD_BUF ? GM_FIELD_BUF - len : 0, "%s%s",
				k ? "," : "", s ? s : "?");
	}
	if (f->arg == 2) {
		if (known) {
			v->kind = GM_V_BYTES;
			v->u = sum;
		}
		return;
	}
	v->kind = GM_V_STR;
	v->s = buf;
}

#define DEV GM_VIA(struct gm_dev_row, dev)
#define REG GM_VIA(struct gm_dev_row, region)

/*
 * A device's region (struct gm_dev_row), once for the table, the JSON
 * objects (a device's fields, its regions nested: GM_F_INNER) and the
 * Prometheus device families (export); top's device table leaves out the
 * GM_F_WIDE ones. A dev-region attribute the CLI
 * only shows is one line here: GM_ATTR(struct gm_dev_region, raw, ...), REG.
 */
static const struct gm_field dev_fields[] = {
	{ .key = "id", DEV, .get = gm_get_u32, .arg = offsetof(struct gm_dev, id) },
	{ .title = "DEVICE", .key = "name", .label = "device", DEV,
	  .get = gm_get_str, .arg = offsetof(struct gm_dev, name) },
	{ .title = "DRIVER", .key = "driver", .label = "driver", DEV,
	  .get = gm_get_str, .arg = offsetof(struct gm_dev, driver) },
	{ .title = "BUS", .key = "unique", .label = "pci", .flags = GM_F_WIDE, DEV,
	  .get = gm_get_str, .arg = offsetof(struct gm_dev, unique) },
	{ .title = "PCI-ID", .flags = GM_F_WIDE, DEV, .get = get_pci },
	{ .key = "pci_vendor", .flags = GM_F_OMIT, DEV, .get = get_pci, .arg = 1 },
	{ .key = "pci_device", .flags = GM_F_OMIT, DEV, .get = get_pci, .arg = 2 },
	{ .title = "DESCRIPTION", .key = "description", DEV,
	  .flags = GM_F_TAIL | GM_F_OMIT | GM_F_WIDE,
	  .get = gm_get_str, .arg = offsetof(struct gm_dev, desc) },
	{ .title = "RENDER", .key = "render_id", .flags = GM_F_OMIT | GM_F_WIDE, DEV,
	  GM_ATTR(struct gm_dev, raw, GPUMEM_A_DEV_RENDER_ID), .get = gm_get_attr_u64 },
	{ .title = "TTM", .key = "ttm", .flags = GM_F_WIDE, DEV,
	  .get = gm_get_bool, .arg = offsetof(struct gm_dev, ttm) },
	{ .title = "REGION", .key = "region", .label = "region", .flags = GM_F_INNER,
	  .get = get_region },
	{ .title = "CAPACITY", .align = 'r', .key = "capacity", .flags = GM_F_INNER, REG,
	  GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_CAPACITY),
	  .get = gm_get_attr_bytes, .metric = "gpumem_device_capacity_bytes",
	  .help = "Capacity of a device memory region in bytes." },
	{ .title = "USED", .align = 'r', .key = "used", .flags = GM_F_INNER, REG,
	  GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_USED),
	  .get = gm_get_attr_bytes, .metric = "gpumem_device_used_bytes",
	  .help = "Bytes in use in a device memory region, kernel-internal buffers included." },
	{ .title = "FREE", .align = 'r', .key = "free", .flags = GM_F_INNER | GM_F_WIDE, REG,
	  .get = get_free, .metric = "gpumem_device_free_bytes",
	  .help = "Free bytes of a device memory region." },
	{ .title = "USE%", .align = 'r', REG, .get = get_use },
	{ .title = "LARGEST", .align = 'r', .key = "largest_free", .flags = GM_F_INNER | GM_F_WIDE,
	  REG, GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_LARGEST_FREE),
	  .get = gm_get_attr_bytes, .metric = "gpumem_device_largest_free_bytes",
	  .help = "Largest free block of a device memory region in bytes (the largest placement that fits without eviction)." },
	{ .title = "BLOCKS", .align = 'r', .key = "free_blocks", .flags = GM_F_INNER | GM_F_WIDE,
	  REG, GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_FREE_BLOCKS),
	  .get = gm_get_attr_u64, .metric = "gpumem_device_free_blocks",
	  .help = "Free blocks of a device memory region." },
	{ .key = "free_blocks_bytes", .flags = GM_F_INNER, REG,
	  GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES),
	  .get = gm_get_attr_bytes, .metric = "gpumem_device_free_blocks_bytes",
	  .help = "Bytes in the free blocks of a device memory region, as its allocator describes them." },
	{ .title = "FRAG%", .align = 'r', .flags = GM_F_WIDE, REG, .get = get_frag },
	/* the dmem cgroup controller's (source dmem): where it charges the region */
	{ .title = "DMEM", .key = "dmem_region", .flags = GM_F_INNER | GM_F_OMIT | GM_F_DMEM,
	  REG, .get = get_dmem, .arg = 0 },
	{ .title = "DMEM-BY", .key = "dmem_registered_by",
	  .flags = GM_F_INNER | GM_F_OMIT | GM_F_DMEM, REG, .get = get_dmem, .arg = 1 },
	{ .title = "DMEM-CUR", .align = 'r', .key = "dmem_current",
	  .flags = GM_F_INNER | GM_F_OMIT | GM_F_DMEM, REG, .get = get_dmem, .arg = 2,
	  .metric = "gpumem_device_dmem_current_bytes",
	  .help = "Bytes the dmem cgroup controller charged on a device region (its root "
		  "cgroup's dmem.current), where dmem limits the region." },
};

static bool same_dev(const void *a, const void *b)
{
	return ((const struct gm_dev_row *)a)->dev == ((const struct gm_dev_row *)b)->dev;
}

static bool has_region(const void *row)
{
	return ((const struct gm_dev_row *)row)->region != NULL;
}

struct gm_fields gm_dev_fieldset(bool exact)
{
	return (struct gm_fields){
		.v = dev_fields, .n = sizeof(dev_fields) / sizeof(*dev_fields), .exact = exact,
		.inner_key = "regions", .same_outer = same_dev, .has_inner = has_region,
		.skip = GM_F_DMEM,
	};
}

struct gm_fields gm_dev_fieldset_dmem(bool exact, bool dmem)
{
	struct gm_fields fs = gm_dev_fieldset(exact);

	if (dmem)
		fs.skip &= ~GM_F_DMEM;
	return fs;
}

struct gm_dev_row *gm_dev_rows(const struct gm_dev_list *l, size_t *n)
{
	struct gm_dev_row *rows;
	size_t i, r, k = 0;

	*n = 0;
	for (i = 0; i < l->n; i++)
		k += l->v[i].nregions ? l->v[i].nregions : 1;
	rows = k ? calloc(k, sizeof(*rows)) : NULL;
	if (!rows)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct gm_dev *d = &l->v[i];

		if (!d->nregions)
			rows[(*n)++] = (struct gm_dev_row){ d, NULL };
		for (r = 0; r < d->nregions; r++)
			rows[(*n)++] = (struct gm_dev_row){ d, &d->regions[r] };
	}
	return rows;
}
