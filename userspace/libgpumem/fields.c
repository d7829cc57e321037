// SPDX-License-Identifier: GPL-2.0
/*
 * fields.c - tables, JSON and Prometheus samples from one list of fields.
 */
#include "fields.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>

#include "query.h"

static bool shown(const struct gm_fields *fs, const struct gm_field *f)
{
	return (!f->views || (f->views & GM_VIEW(fs->view))) && !(f->flags & fs->skip);
}

static void get(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	memset(v, 0, sizeof(*v));
	if (f->via) {	/* the field is of what a pointer in obj points to */
		memcpy(&obj, (const char *)obj + f->via - 1, sizeof(obj));
		if (!obj)
			return;
	}
	f->get(f, obj, v, buf);
}

/* GM_FIELD_TEXT: room for a value as text (a list of pids is cut at it) */
#define GM_FIELD_TEXT 512

/* "812,815", cut with "..." when it would not fit */
static void list_text(const struct gm_val *v, char *buf, size_t len)
{
	size_t h, o = 0;

	buf[0] = '\0';
	for (h = 0; h < v->nlist; h++) {
		if (o + 16 >= len) {
			snprintf(buf + o, len - o, "...");
			return;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%u", h ? "," : "", v->list[h]);
	}
}

/* v as text for a person (buf: GM_FIELD_TEXT bytes); NULL: not known */
static const char *text_of(const struct gm_val *v, bool exact, char *buf)
{
	char d[32];

	if (v->text)
		return v->text;
	switch (v->kind) {
	case GM_V_NONE: return NULL;
	case GM_V_U64:
		snprintf(buf, GM_FIELD_TEXT, "%" PRIu64, v->u);
		return buf;
	case GM_V_BYTES: return fmt_bytes(buf, GM_FIELD_TEXT, v->u, exact);
	case GM_V_STR: return v->s;
	case GM_V_BOOL: return v->b ? "yes" : "no";
	case GM_V_NS:
		snprintf(buf, GM_FIELD_TEXT, "%" PRIu64 " (%s)", v->u, fmt_ns(d, sizeof(d), v->u));
		return buf;
	case GM_V_U32S:
		list_text(v, buf, GM_FIELD_TEXT);
		return buf;
	}
	return NULL;
}

/* the region name of a GM_F_REGION field, or its number; buf: 12 bytes */
static const char *region_of(const struct gm_field *f, char *buf)
{
	return gm_region_label(f->arg, buf);
}

static const char *key_of(const struct gm_field *f, char *buf)
{
	return f->flags & GM_F_REGION ? region_of(f, buf) : f->key;
}

static const char *title_of(const struct gm_field *f, char *buf)
{
	char tmp[12];
	size_t i;

	if (!(f->flags & GM_F_REGION))
		return f->title;
	snprintf(buf, 12, "%s", region_of(f, tmp));
	for (i = 0; buf[i]; i++)
		buf[i] = (char)toupper((unsigned char)buf[i]);
	return buf;
}

/* Table columns: the shown fields with a title, GM_F_TAIL ones last. */
static size_t columns(const struct gm_fields *fs, const struct gm_field **cols)
{
	size_t i, n = 0;
	int tail;

	for (tail = 0; tail < 2; tail++)
		for (i = 0; i < fs->n; i++) {
			const struct gm_field *f = &fs->v[i];

			if ((f->title || (f->flags & GM_F_REGION)) && shown(fs, f) &&
			    !!(f->flags & GM_F_TAIL) == tail)
				cols[n++] = f;
		}
	return n;
}

int gm_fields_table(FILE *out, const struct gm_fields *fs, const void *objs, size_t n,
		    size_t stride, size_t max_rows)
{
	const struct gm_field **cols = calloc(fs->n ? fs->n : 1, sizeof(*cols));
	const char **hdr = calloc(fs->n ? fs->n : 1, sizeof(*hdr));
	const char **row = calloc(fs->n ? fs->n : 1, sizeof(*row));
	char (*titles)[12] = calloc(fs->n ? fs->n : 1, sizeof(*titles));
	char (*bufs)[GM_FIELD_BUF] = calloc(fs->n ? fs->n : 1, sizeof(*bufs));
	char (*texts)[GM_FIELD_TEXT] = calloc(fs->n ? fs->n : 1, sizeof(*texts));
	char *align = calloc(fs->n + 1, 1);
	struct table t;
	size_t ncol, c, i;
	int ret = 0;

	if (!cols || !hdr || !row || !titles || !bufs || !texts || !align) {
		ret = -ENOMEM;
		goto out;
	}
	ncol = columns(fs, cols);
	for (c = 0; c < ncol; c++) {
		hdr[c] = title_of(cols[c], titles[c]);
		align[c] = cols[c]->align ? cols[c]->align : 'l';
	}
	tbl_init(&t, ncol, hdr, align);
	for (i = 0; i < n && (!max_rows || i < max_rows) && !ret; i++) {
		const void *obj = (const char *)objs + i * stride;

		for (c = 0; c < ncol; c++) {
			struct gm_val v;

			get(cols[c], obj, &v, bufs[c]);
			row[c] = text_of(&v, fs->exact, texts[c]);
		}
		ret = tbl_add(&t, row);
	}
	if (!ret)
		tbl_print(&t, out, 0);
	tbl_free(&t);
out:
	free(cols);
	free(hdr);
	free(row);
	free(titles);
	free(bufs);
	free(texts);
	free(align);
	return ret;
}

/*
 * the keys and values of obj's fields, the inner ones or the others; keys:
 * the fields' keys escaped (an array of rows escapes them once), or NULL
 */
static void json_members(struct jw *w, const struct gm_fields *fs, const void *obj, bool inner,
			 const struct jw_key *keys)
{
	char buf[GM_FIELD_BUF], kb[12];
	size_t i, j;

	for (i = 0; i < fs->n; i++) {
		const struct gm_field *f = &fs->v[i];
		struct gm_val v;

		if (!(f->key || (f->flags & GM_F_REGION)) || !shown(fs, f) ||
		    !!(f->flags & GM_F_INNER) != inner)
			continue;
		get(f, obj, &v, buf);
		if (v.kind == GM_V_NONE && (f->flags & GM_F_OMIT))
			continue;
		if (keys)
			jw_key_put(w, &keys[i]);
		else
			jw_key(w, key_of(f, kb));
		switch (v.kind) {
		case GM_V_NONE: jw_null(w); break;
		case GM_V_U64:
		case GM_V_BYTES:
		case GM_V_NS: jw_u64(w, v.u); break;
		case GM_V_STR: jw_string(w, v.s); break;
		case GM_V_BOOL: jw_bool(w, v.b); break;
		case GM_V_U32S:
			jw_array_begin(w);
			for (j = 0; j < v.nlist; j++)
				jw_u64(w, v.list[j]);
			jw_array_end(w);
			break;
		}
	}
}

void gm_fields_json(struct jw *w, const struct gm_fields *fs, const void *obj)
{
	jw_object_begin(w);
	json_members(w, fs, obj, false, NULL);
	jw_object_end(w);
}

void gm_fields_json_array(FILE *f, const struct gm_fields *fs, const void *objs, size_t n,
			  size_t stride)
{
	struct jw_key *keys = n > 1 ? calloc(fs->n, sizeof(*keys)) : NULL;
	const void *prev = NULL;
	char kb[12];
	struct jw w;
	size_t i;

	/*
	 * each key escaped once (no memory: for each row, as gm_fields_json);
	 * a region's number in kb is short enough to be kept escaped
	 */
	for (i = 0; keys && i < fs->n; i++)
		if (fs->v[i].key || (fs->v[i].flags & GM_F_REGION))
			jw_key_init(&keys[i], key_of(&fs->v[i], kb));
	jw_init(&w, f);
	jw_array_begin(&w);
	for (i = 0; i < n; i++) {
		const void *obj = (const char *)objs + i * stride;

		if (!fs->inner_key) {
			jw_object_begin(&w);
			json_members(&w, fs, obj, false, keys);
			jw_object_end(&w);
			continue;
		}
		if (!prev || !fs->same_outer(prev, obj)) {	/* the next outer object */
			if (prev) {
				jw_array_end(&w);
				jw_object_end(&w);
			}
			jw_object_begin(&w);
			json_members(&w, fs, obj, false, keys);
			jw_key(&w, fs->inner_key);
			jw_array_begin(&w);
		}
		if (fs->has_inner(obj)) {
			jw_object_begin(&w);
			json_members(&w, fs, obj, true, keys);
			jw_object_end(&w);
		}
		prev = obj;
	}
	if (prev && fs->inner_key) {
		jw_array_end(&w);
		jw_object_end(&w);
	}
	jw_array_end(&w);
	jw_finish(&w);
	free(keys);
}

int gm_fields_kv_table(FILE *out, const struct gm_fields *fs, const void *obj)
{
	static const char *const hdr[] = { "NAME", "VALUE" };
	char buf[GM_FIELD_BUF], text[GM_FIELD_TEXT], kb[12];
	struct table t;
	size_t i;
	int ret = 0;

	tbl_init(&t, 2, hdr, "ll");
	for (i = 0; i < fs->n && !ret; i++) {
		const struct gm_field *f = &fs->v[i];
		const char *row[2];
		struct gm_val v;

		if (!(f->key || (f->flags & GM_F_REGION)) || !shown(fs, f))
			continue;
		get(f, obj, &v, buf);
		row[0] = key_of(f, kb);
		row[1] = text_of(&v, fs->exact, text);
		ret = tbl_add(&t, row);
	}
	if (!ret)
		tbl_print(&t, out, 0);
	tbl_free(&t);
	return ret;
}

void gm_fields_line(FILE *out, const struct gm_fields *fs, const void *obj)
{
	char buf[GM_FIELD_BUF], text[GM_FIELD_TEXT];
	unsigned int clause = 0;	/* of the last clause written */
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct gm_field *f = &fs->v[i];
		const char *t;
		struct gm_val v;
		char *safe;

		if (!f->fmt || !shown(fs, f))
			continue;
		get(f, obj, &v, buf);
		t = text_of(&v, fs->exact, text);
		if (!t || ((f->flags & GM_F_NONZERO) && !v.text && v.u == 0 &&
			   (v.kind == GM_V_U64 || v.kind == GM_V_BYTES)))
			continue;
		if (f->clause)
			fputs(!clause ? ": " : clause == f->clause ? ", " : "; ", out);
		if (f->clause)
			clause = f->clause;
		safe = term_safe(t);
		fprintf(out, f->fmt, safe ? safe : "?", v.word ? v.word : "");
		free(safe);
	}
	fputc('\n', out);
}

/* the label fields' values of obj, and the field's extra label, in l */
static size_t labels(const struct gm_fields *fs, const struct gm_field *m, const void *obj,
		     struct prom_label *l, char (*bufs)[GM_FIELD_BUF], char *rb)
{
	size_t i, n = 0;

	for (i = 0; i < fs->n; i++) {
		const struct gm_field *f = &fs->v[i];
		struct gm_val v;

		if (!f->label)
			continue;
		get(f, obj, &v, bufs[n]);
		if (v.kind == GM_V_U64) {
			snprintf(bufs[n], GM_FIELD_BUF, "%" PRIu64, v.u);
			v.s = bufs[n];
		}
		l[n++] = (struct prom_label){ f->label, v.kind == GM_V_NONE ? NULL : v.s };
	}
	if (m->xlabel)
		l[n++] = (struct prom_label){
			m->xlabel, m->flags & GM_F_REGION ? region_of(m, rb) : m->xvalue,
		};
	return n;
}

void gm_fields_prom(FILE *out, const struct gm_fields *fs, const void *objs, size_t n,
		    size_t stride)
{
	struct prom_label *l = calloc(fs->n + 1, sizeof(*l));
	char (*bufs)[GM_FIELD_BUF] = calloc(fs->n + 1, sizeof(*bufs));
	size_t i, j, k;

	if (!l || !bufs)
		goto out;
	for (i = 0; i < fs->n; i++) {
		const struct gm_field *m = &fs->v[i];

		if (!m->metric || !shown(fs, m))
			continue;
		for (j = 0; j < i; j++)	/* the family is written at its first field */
			if (fs->v[j].metric && shown(fs, &fs->v[j]) &&
			    strcmp(fs->v[j].metric, m->metric) == 0)
				break;
		if (j < i)
			continue;
		prom_family(out, m->metric, fs->held && m->help_held ? m->help_held : m->help,
			    m->flags & GM_F_COUNTER ? "counter" : "gauge");
		for (k = 0; k < n; k++) {
			const void *obj = (const char *)objs + k * stride;

			for (j = i; j < fs->n; j++) {
				const struct gm_field *f = &fs->v[j];
				char buf[GM_FIELD_BUF], rb[12];
				struct gm_val v;
				size_t nl;

				if (!f->metric || !shown(fs, f) || strcmp(f->metric, m->metric) != 0)
					continue;
				get(f, obj, &v, buf);
				if (v.kind != GM_V_U64 && v.kind != GM_V_BYTES && v.kind != GM_V_NS)
					continue;	/* not known: no sample */
				nl = labels(fs, f, obj, l, bufs, rb);
				if (v.kind == GM_V_NS)
					prom_sample_seconds(out, f->metric, l, nl, v.u);
				else
					prom_sample(out, f->metric, l, nl, v.u);
			}
		}
	}
out:
	free(l);
	free(bufs);
}

void gm_get_u32(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	uint32_t x;

	(void)buf;
	memcpy(&x, (const char *)obj + f->arg, sizeof(x));
	v->kind = GM_V_U64;
	v->u = x;
}

void gm_get_u64(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	memcpy(&v->u, (const char *)obj + f->arg, sizeof(v->u));
	v->kind = GM_V_U64;
}

void gm_get_bytes(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	gm_get_u64(f, obj, v, buf);
	v->kind = GM_V_BYTES;
}

void gm_get_str(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	memcpy(&v->s, (const char *)obj + f->arg, sizeof(v->s));
	if (v->s)
		v->kind = GM_V_STR;
}

void gm_get_bool(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	memcpy(&v->b, (const char *)obj + f->arg, sizeof(v->b));
	v->kind = GM_V_BOOL;
}

static const struct gm_raw *raw_of(const struct gm_field *f, const void *obj)
{
	return (const struct gm_raw *)(const void *)((const char *)obj + f->arg);
}

void gm_get_attr_u64(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	if (gm_raw_uint(raw_of(f, obj), f->attr, &v->u))
		v->kind = GM_V_U64;
}

void gm_get_attr_bytes(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	if (gm_raw_uint(raw_of(f, obj), f->attr, &v->u))
		v->kind = GM_V_BYTES;
}

void gm_get_attr_ns(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	if (gm_raw_uint(raw_of(f, obj), f->attr, &v->u))
		v->kind = GM_V_NS;
}

void gm_get_attr_bool(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct nlattr *a = gm_raw_find(raw_of(f, obj), f->attr);
	uint64_t u = 0;

	(void)buf;
	v->kind = GM_V_BOOL;
	v->b = a && (nla_len(a) == 0 || (gm_raw_uint(raw_of(f, obj), f->attr, &u) && u));
}

void gm_get_attr_str(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)buf;
	v->s = gm_raw_str(raw_of(f, obj), f->attr);
	if (v->s)
		v->kind = GM_V_STR;
}

char *gm_card_name(char *buf, uint64_t id)
{
	char digits[20];
	size_t n = 0, i;

	do {
		digits[n++] = (char)('0' + id % 10);
		id /= 10;
	} while (id);
	memcpy(buf, "card", 4);
	for (i = 0; i < n; i++)
		buf[4 + i] = digits[n - 1 - i];
	buf[4 + n] = '\0';
	return buf;
}

void gm_get_attr_device(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	uint64_t id;

	if (!gm_raw_uint(raw_of(f, obj), f->attr, &id))
		return;
	v->kind = GM_V_STR;
	v->s = gm_card_name(buf, id);
}

void gm_get_attr_region(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	uint64_t region;

	if (!gm_raw_uint(raw_of(f, obj), f->attr, &region))
		return;
	v->kind = GM_V_STR;
	v->s = gm_region_label((uint32_t)region, buf);
}
