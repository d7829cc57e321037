/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fields.h - one printer per field. A command lists the fields of what it
 * shows once (struct gm_field: table column, JSON key, Prometheus metric or
 * label, how to get the value); the same list then drives the table, the
 * JSON objects and the Prometheus samples, as iproute2's
 * print_*(PRINT_ANY, key, fmt, value) does.
 */
#ifndef GPUMEMCTL_FIELDS_H
#define GPUMEMCTL_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

/*
 * One value: GM_V_NONE is "not known": "-" in tables, null in JSON, no sample.
 * GM_V_NS is a duration in ns: "N (1.2 ms)" in tables, N in JSON, seconds
 * (Prometheus' base unit) in a sample; GM_V_U32S a list of numbers: "1,2,3"
 * in tables, [1,2,3] in JSON.
 */
enum gm_val_kind { GM_V_NONE, GM_V_U64, GM_V_BYTES, GM_V_STR, GM_V_BOOL, GM_V_NS, GM_V_U32S };

struct gm_val {
	enum gm_val_kind kind;
	uint64_t u;		/* GM_V_U64, GM_V_BYTES, GM_V_NS */
	const char *s;		/* GM_V_STR (NULL: null in JSON, "-" in tables) */
	bool b;			/* GM_V_BOOL: "yes"/"no", true/false */
	const uint32_t *list;	/* GM_V_U32S */
	size_t nlist;
	const char *text;	/* tables and lines: this spelling instead (also of
				 * a GM_V_NONE value), e.g. a local time for a UTC one */
	const char *word;	/* lines: the word a field's fmt puts before it (%2$s) */
};

#define GM_FIELD_BUF 64	/* scratch for a getter's formatted strings */

struct gm_field;
/* the value of field f of obj; buf (GM_FIELD_BUF bytes) for a formatted string */
typedef void (*gm_field_get)(const struct gm_field *f, const void *obj, struct gm_val *v,
			     char *buf);

/* flags */
#define GM_F_TAIL	0x1	/* free text: the last table column, whatever its place here */
#define GM_F_WIDE	0x2	/* left out of compact tables (gm_fields_table's skip) */
#define GM_F_REGION	0x4	/* a region's figure: arg is the enum gpumem_region value;
				 * the JSON key and label value are the region's name,
				 * the title its upper case */
#define GM_F_INNER	0x8	/* JSON: a field of the nested elements (gm_fields.inner_key) */
#define GM_F_OMIT	0x10	/* JSON: the key is left out when the value is not known */
#define GM_F_NONZERO	0x20	/* lines: left out when 0 */
#define GM_F_COUNTER	0x40	/* Prometheus: the metric is a counter (else a gauge) */
#define GM_F_DMEM	0x80	/* a figure of the dmem cgroup controller's: left out
				 * (skip) where no device region has a dmem region */

struct gm_field {
	const char *title;	/* table column; NULL: not in tables */
	char align;		/* 'l' or 'r' */
	const char *key;	/* JSON key; NULL: not in JSON */
	const char *label;	/* Prometheus label name; NULL: not a label */
	const char *metric;	/* Prometheus metric of this value, a gauge (GM_F_COUNTER:
				 * a counter); NULL: none */
	const char *help, *help_held;	/* its HELP text (help_held: in the held view) */
	const char *xlabel;	/* metric: one more label, valued by xvalue (or the
				 * region name, GM_F_REGION) */
	const char *xvalue;
	const char *fmt;	/* gm_fields_line: the value in a sentence, a printf
				 * format of the value (%1$s) and v.word (%2$s) */
	unsigned int clause;	/* gm_fields_line: 0 the head, else the clause group */
	unsigned int views;	/* GM_VIEWS_ALL or a mask of (1 << view) */
	unsigned int flags;
	size_t via;		/* 1 + offset of a pointer in the object: the getter
				 * gets what it points to (0: the object itself) */
	uint32_t arg;		/* for the getter */
	int attr;		/* gm_get_attr_*: the attribute type */
	gm_field_get get;
};

/*
 * A field that shows attribute ATTR of the struct gm_raw MEMBER of TYPE
 * (query.h) with a gm_get_attr_* getter: a new attribute of a reply is one
 * such line in the command's list, e.g. in dev_fields.c
 *   { .title = "EVICTED", .align = 'r', .key = "evicted", .flags = GM_F_INNER,
 *     GM_ATTR(struct gm_dev_region, raw, GPUMEM_A_DEV_REGION_EVICTED),
 *     GM_VIA(struct gm_dev_row, region), .get = gm_get_attr_bytes },
 */
#define GM_ATTR(type, member, attr_) .arg = offsetof(type, member), .attr = (attr_)
/* the object's pointer MEMBER leads to what the getter reads (NULL: not known) */
#define GM_VIA(type, member) .via = offsetof(type, member) + 1

#define GM_VIEW(v) (1u << (v))
#define GM_VIEWS_ALL 0	/* a field of every view */

/* what gm_fields_* print: the fields of view VIEW, except those with a SKIP flag */
struct gm_fields {
	const struct gm_field *v;
	size_t n;
	uint32_t view;		/* e.g. GPUMEM_PROC_VIEW_CHARGED; ignored by GM_VIEWS_ALL fields */
	bool held;		/* help_held texts */
	unsigned int skip;	/* GM_F_* flags of fields to leave out (tables) */
	bool exact;		/* tables: exact byte counts */
	/*
	 * JSON of rows with nested elements (a device's regions): the rows of
	 * one object are adjacent (same_outer), the GM_F_INNER fields of each
	 * row for which has_inner() is true go into an array under inner_key.
	 */
	const char *inner_key;
	bool (*same_outer)(const void *a, const void *b);
	bool (*has_inner)(const void *obj);
};

/* the rows objs[0..n) (each stride bytes) as a table; at most max_rows (0: all). 0 or -ENOMEM */
int gm_fields_table(FILE *f, const struct gm_fields *fs, const void *objs, size_t n,
		    size_t stride, size_t max_rows);
/* obj as one JSON object */
void gm_fields_json(struct jw *w, const struct gm_fields *fs, const void *obj);
/* objs as a JSON array, one object per line (nested: gm_fields.inner_key) */
void gm_fields_json_array(FILE *f, const struct gm_fields *fs, const void *objs, size_t n,
			  size_t stride);
/*
 * Prometheus: for every metric of the list (in its order), the family and a
 * sample per object and field of that metric (objects in order), labelled
 * with the list's label fields and the field's own extra label. Values are
 * integers as they are, GM_V_NS durations in seconds; a value not known, or
 * of another kind, has no sample.
 */
void gm_fields_prom(FILE *f, const struct gm_fields *fs, const void *objs, size_t n,
		    size_t stride);

/*
 * One object as a NAME VALUE table, a row per field with a key (the key is
 * the name). 0 or -ENOMEM.
 */
int gm_fields_kv_table(FILE *f, const struct gm_fields *fs, const void *obj);
/*
 * One object as a sentence and a newline: the fields with a fmt, in order;
 * the head's (clause 0) as they come, then the clauses, the first after
 * ": ", the next of the same clause group after ", ", of another after "; ".
 * Strings are made terminal-safe. Values not known are left out (or their
 * v.text written).
 */
void gm_fields_line(FILE *f, const struct gm_fields *fs, const void *obj);

/*
 * common getters: the u32/u64/bool/string member at offset arg of the
 * object (a NULL string is not known)
 */
/*
 * gm_card_name: "cardN" of device id into buf, returned: "card", the digits,
 * a NUL (15 bytes at most for a 32-bit id, 25 for any). By hand, as jw_u64
 * does: a snprintf was ~700 instructions a row of gpumemctl ps --json.
 */
char *gm_card_name(char *buf, uint64_t id);
void gm_get_u32(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_u64(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_bytes(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_str(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_bool(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);

/*
 * Attribute getters (GM_ATTR): attribute f->attr of the struct gm_raw at
 * offset arg, not known when the kernel did not send it. _u64 an integer
 * of any width, _bytes one in bytes, _ns a duration, _bool a u8 or flag
 * (false when not sent: the spec's flags), _str a string, _device a device
 * id, _region a region.
 */
void gm_get_attr_u64(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_attr_bytes(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_attr_ns(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_attr_bool(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_attr_str(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
/* a device id as "cardN", a region (enum gpumem_region) by its name */
void gm_get_attr_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);
void gm_get_attr_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);

/* --- the field lists of the replies (dev_fields.c, proc_fields.c, stats_fields.c) --- */

/*
 * proc_fields.c: the fields of a process row (struct gm_proc), listed once
 * for gpumemctl's ps, top and export and gpumemd's metrics;
 * gm_proc_fieldset() picks a view's.
 */
struct gm_fields gm_proc_fieldset(bool held, bool exact);

/*
 * dev_fields.c: a device and one of its regions, a row of `gpumemctl
 * devices` (region NULL: a device without regions, a "system" row); the
 * fields of such rows, listed once for devices (table, JSON with the
 * regions nested), export and gpumemd (the device families).
 */
struct gm_dev;
struct gm_dev_region;
struct gm_dev_list;
struct gm_dev_row {
	const struct gm_dev *dev;
	const struct gm_dev_region *region;
};
/* the rows of l's devices in order (malloc'ed); NULL and *n 0: none, or no memory */
struct gm_dev_row *gm_dev_rows(const struct gm_dev_list *l, size_t *n);
/* without the dmem fields (GM_F_DMEM); _dmem: with them when DMEM */
struct gm_fields gm_dev_fieldset(bool exact);
struct gm_fields gm_dev_fieldset_dmem(bool exact, bool dmem);

/*
 * stats_fields.c: the counters of stats-get (struct gm_stats), listed once
 * for `stats` (NAME VALUE table, JSON) and gpumemd's metrics.
 */
struct gm_fields gm_stats_fieldset(void);

#endif
