// SPDX-License-Identifier: GPL-2.0
/*
 * proc_fields.c - the fields of a process row (struct gm_proc), as
 * `gpumemctl ps` and `top` print them and `gpumemctl export` and gpumemd
 * export them: one list for both views, gm_proc_fieldset() picks a view's.
 */
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "output.h"
#include "query.h"

static void get_cgroup_id(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_proc *p = obj;

	(void)f;
	(void)buf;
	if (p->has_cgroup_id) {
		v->kind = GM_V_U64;
		v->u = p->cgroup_id;
	}
}

static void get_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_proc *p = obj;

	(void)f;
	v->kind = GM_V_STR;
	v->s = gm_card_name(buf, p->dev_id);
}

static void get_view(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_proc *p = obj;

	(void)f;
	(void)buf;
	v->kind = GM_V_STR;
	v->s = gm_view_name(p->held ? GPUMEM_PROC_VIEW_HELD : GPUMEM_PROC_VIEW_CHARGED);
}

static void get_usage(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_proc *p = obj;

	(void)buf;
	v->kind = GM_V_BYTES;
	v->u = f->arg < GM_NREGIONS ? p->usage[f->arg] : 0;
}

#define HELD GM_VIEW(GPUMEM_PROC_VIEW_HELD)
#define PROC_BYTES "gpumem_process_bytes"
#define PROC_BYTES_HELP \
	"Bytes of the VRAM/GTT placements a process allocated, still resident, per device and region."
#define PROC_BYTES_HELP_HELD \
	"Bytes of the distinct GPU buffer objects a process holds, per device and region."
#define REGION(r, views_) {							\
	.align = 'r', .flags = GM_F_REGION, .arg = (r), .views = (views_), .get = get_usage,	\
	.metric = PROC_BYTES, .xlabel = "region",				\
	.help = PROC_BYTES_HELP, .help_held = PROC_BYTES_HELP_HELD,		\
}

/*
 * A process row (struct gm_proc), once for ps (table and JSON), top (the
 * table without OWNED) and export (Prometheus). The charged view has no
 * system, other, shared, owned or skipped.
 */
static const struct gm_field gm_proc_fields[] = {
	{ .title = "PID", .align = 'r', .key = "pid", .label = "pid",
	  .get = gm_get_u32, .arg = offsetof(struct gm_proc, pid) },
	{ .title = "COMM", .key = "comm", .label = "comm",
	  .get = gm_get_str, .arg = offsetof(struct gm_proc, comm) },
	{ .key = "cgroup_id", .get = get_cgroup_id },
	{ .title = "CGROUP", .key = "cgroup", .label = "cgroup", .flags = GM_F_TAIL,
	  .get = gm_get_str, .arg = offsetof(struct gm_proc, cgroup) },
	{ .title = "DEVICE", .key = "device", .label = "device", .get = get_device },
	{ .key = "view", .get = get_view },
	REGION(GPUMEM_REGION_VRAM, GM_VIEWS_ALL),
	REGION(GPUMEM_REGION_GTT, GM_VIEWS_ALL),
	REGION(GPUMEM_REGION_SYSTEM, HELD),
	REGION(GPUMEM_REGION_OTHER, HELD),
	{ .title = "SHARED", .align = 'r', .key = "shared", .views = HELD,
	  .metric = "gpumem_process_shared_bytes",
	  .help = "Bytes of a process's buffers that other processes or dma-buf share.",
	  .get = gm_get_bytes, .arg = offsetof(struct gm_proc, shared) },
	{ .title = "OWNED", .align = 'r', .key = "owned", .views = HELD, .flags = GM_F_WIDE,
	  .metric = "gpumem_process_owned_bytes",
	  .help = "Bytes of the buffers a process owns (each buffer counted once per device).",
	  .get = gm_get_bytes, .arg = offsetof(struct gm_proc, owned) },
	{ .title = "BOS", .align = 'r', .key = "bos",
	  .metric = "gpumem_process_buffers",
	  .help = "Number of distinct GPU buffer objects a process holds.",
	  .get = gm_get_u32, .arg = offsetof(struct gm_proc, bos) },
	{ .key = "skipped", .views = HELD,
	  .get = gm_get_u32, .arg = offsetof(struct gm_proc, skipped) },
};

struct gm_fields gm_proc_fieldset(bool held, bool exact)
{
	return (struct gm_fields){
		.v = gm_proc_fields, .n = sizeof(gm_proc_fields) / sizeof(*gm_proc_fields),
		.view = held ? GPUMEM_PROC_VIEW_HELD : GPUMEM_PROC_VIEW_CHARGED,
		.held = held, .exact = exact,
	};
}
