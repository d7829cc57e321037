// SPDX-License-Identifier: GPL-2.0
/*
 * output.c - human units, tables, JSON and Prometheus text for gpumemctl and
 * gpumemd.
 */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- units ------------------------------------------------------------- */

/*
 * Scale v by 2^(10 k) (units of 1024) or 10^(3 k) (units of 1000) to one
 * decimal, rounded; move up one unit when rounding reaches the next one.
 */
static void scaled(char *buf, size_t len, uint64_t v, const char *const *units,
		   int nunits, long double step)
{
	long double div = 1;
	int k = 0;
	uint64_t tenths;

	while (k + 1 < nunits && (long double)v >= div * step) {
		div *= step;
		k++;
	}
	if (k == 0) {
		snprintf(buf, len, "%" PRIu64 " %s", v, units[0]);
		return;
	}
	tenths = (uint64_t)((long double)v * 10 / div + 0.5L);
	if ((long double)tenths >= step * 10 && k + 1 < nunits) {
		div *= step;
		k++;
		tenths = (uint64_t)((long double)v * 10 / div + 0.5L);
	}
	snprintf(buf, len, "%" PRIu64 ".%" PRIu64 " %s", tenths / 10, tenths % 10, units[k]);
}

char *fmt_bytes(char *buf, size_t len, uint64_t bytes, bool exact)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	if (exact)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		scaled(buf, len, bytes, units, 7, 1024.0L);
	return buf;
}

char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };

	scaled(buf, len, ns, units, 4, 1000.0L);
	return buf;
}

/* --- text sanitising --------------------------------------------------- */

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	*cp = s[0];
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

char *term_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "-");
	size_t n = strlen((const char *)p), i = 0, o = 0;
	char *out = malloc(4 * n + 1);	/* worst case: every byte as \ooo */
	uint32_t cp;

	if (!out)
		return NULL;
	while (i < n) {
		size_t l = utf8_next(p + i, n - i, &cp);
		bool ok = l > 1 ? cp >= 0xa0 : (l == 1 && cp >= 0x20 && cp != 0x7f && cp != '\\');

		if (ok) {
			memcpy(out + o, p + i, l);
			o += l;
			i += l;
		} else {
			/* escape the first byte only: what follows may be fine */
			o += (size_t)sprintf(out + o, "\\%03o", p[i]);
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

size_t display_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* --- tables ------------------------------------------------------------ */

void tbl_init(struct table *t, size_t ncols, const char *const *hdr, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->hdr = hdr;
	t->align = align;
}

int tbl_add(struct table *t, const char *const *row)
{
	size_t i, base;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c)
			return -ENOMEM;
		t->cells = c;
		t->cap = cap;
	}
	base = t->nrows * t->ncols;
	for (i = 0; i < t->ncols; i++) {
		t->cells[base + i] = term_safe(row[i]);
		if (!t->cells[base + i]) {
			while (i--)
				free(t->cells[base + i]);
			return -ENOMEM;
		}
	}
	t->nrows++;
	return 0;
}

static void put_cell(FILE *f, const char *s, size_t width, char align, bool last)
{
	size_t w = display_width(s), pad = width > w ? width - w : 0;

	if (align == 'r')
		fprintf(f, "%*s%s", (int)pad, "", s);
	else if (last)
		fputs(s, f);
	else
		fprintf(f, "%s%*s", s, (int)pad, "");
}

void tbl_print(const struct table *t, FILE *f, size_t max_rows)
{
	size_t *width = calloc(t->ncols, sizeof(*width));
	size_t r, c, rows = t->nrows;

	if (!width)
		return;
	if (max_rows && rows > max_rows)
		rows = max_rows;
	for (c = 0; c < t->ncols; c++)
		width[c] = display_width(t->hdr[c]);
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t w = display_width(t->cells[r * t->ncols + c]);

			if (w > width[c])
				width[c] = w;
		}
	for (c = 0; c < t->ncols; c++) {
		put_cell(f, t->hdr[c], width[c], t->align[c], c + 1 == t->ncols);
		fputs(c + 1 == t->ncols ? "\n" : "  ", f);
	}
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->ncols; c++) {
			put_cell(f, t->cells[r * t->ncols + c], width[c], t->align[c],
				 c + 1 == t->ncols);
			fputs(c + 1 == t->ncols ? "\n" : "  ", f);
		}
	free(width);
}

void tbl_free(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

/* --- JSON -------------------------------------------------------------- */

/*
 * The writer keeps its output in its own buffer and hands it to the stream
 * in pieces of up to sizeof(buf) bytes (a stdio call per character or
 * number cost more than the rest of a row). A document holds the stream's
 * lock from jw_init() to jw_finish(): its lines are never interleaved with
 * another thread's.
 */
static void jw_flush(struct jw *w)
{
	if (w->len)
		fwrite(w->buf, 1, w->len, w->f);
	w->len = 0;
}

static void jw_put(struct jw *w, const void *p, size_t n)
{
	const char *s = p;
	char *o;

	if (w->len + n > sizeof(w->buf)) {
		jw_flush(w);
		if (n > sizeof(w->buf)) {
			fwrite(p, 1, n, w->f);
			return;
		}
	}
	o = w->buf + w->len;
	w->len += n;
	/*
	 * what a row puts is short (keys, numbers, escapes): two copies of a
	 * fixed size, overlapping, instead of a memcpy() call of any size
	 */
	if (n >= 8 && n <= 16) {
		memcpy(o, s, 8);
		memcpy(o + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(o, s, 4);
		memcpy(o + n - 4, s + n - 4, 4);
	} else if (n && n < 4) {
		o[0] = s[0];
		o[n / 2] = s[n / 2];
		o[n - 1] = s[n - 1];
	} else if (n) {
		memcpy(o, s, n);
	}
}

static void jw_putc(struct jw *w, char c)
{
	if (w->len == sizeof(w->buf))
		jw_flush(w);
	w->buf[w->len++] = c;
}

static void jw_puts(struct jw *w, const char *s)
{
	jw_put(w, s, strlen(s));
}

/*
 * The bytes a JSON string holds as they are: printable ASCII but '"' and
 * '\\' (0x22, 0x5c). Not NUL: a run stops at the end. A table: a load and
 * a test a byte.
 */
static const unsigned char jw_plain[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* '"' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* '\\' */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,	/* DEL */
};

static bool jw_is_plain(unsigned char c)
{
	return jw_plain[c];
}

/*
 * s as a JSON string literal, into the writer's buffer: runs of plain bytes
 * are copied into it byte by byte as they are tested (no call per run)
 */
static void jw_escape(struct jw *w, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	uint32_t cp;
	size_t l;

	jw_putc(w, '"');
	for (;;) {
		char *o = w->buf + w->len, *end = w->buf + sizeof(w->buf);

		while (o < end && jw_is_plain(*p))
			*o++ = (char)*p++;
		w->len = (size_t)(o - w->buf);
		if (o == end) {
			jw_flush(w);	/* full: the run goes on in an empty buffer */
			continue;
		}
		if (!*p)
			break;
		/* a sequence is at most 4 bytes; utf8_next() stops at the NUL */
		l = utf8_next(p, strnlen((const char *)p, 4), &cp);
		if (l == 0) {
			jw_puts(w, "\\ufffd");
			p++;
			continue;
		}
		switch (cp) {
		case '"': jw_puts(w, "\\\""); break;
		case '\\': jw_puts(w, "\\\\"); break;
		case '\b': jw_puts(w, "\\b"); break;
		case '\f': jw_puts(w, "\\f"); break;
		case '\n': jw_puts(w, "\\n"); break;
		case '\r': jw_puts(w, "\\r"); break;
		case '\t': jw_puts(w, "\\t"); break;
		default:
			if (cp < 0x20 || cp == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", (unsigned int)cp);
				jw_puts(w, esc);
			} else {
				jw_put(w, p, l);
			}
		}
		p += l;
	}
	jw_putc(w, '"');
}

void json_escape(FILE *f, const char *s)
{
	struct jw w;

	jw_init(&w, f);
	jw_escape(&w, s);
	jw_flush(&w);
	funlockfile(f);
}

void jw_init(struct jw *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->after_key = false;
	w->len = 0;
	flockfile(f);
}

/* Before a value (or a key): the separator its container needs. */
static void jw_sep(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->kind[w->depth - 1] == '{')
		abort();	/* a value in an object needs a key */
	if (!w->first[w->depth - 1])
		jw_putc(w, ',');
	w->first[w->depth - 1] = false;
	if (w->depth == 1)
		jw_putc(w, '\n');
}

static void jw_open(struct jw *w, char kind)
{
	jw_sep(w);
	if (w->depth == JW_MAX_DEPTH)
		abort();
	w->kind[w->depth] = kind;
	w->first[w->depth] = true;
	w->depth++;
	jw_putc(w, kind);
}

static void jw_close(struct jw *w, char kind)
{
	if (w->depth == 0 || w->kind[w->depth - 1] != kind || w->after_key)
		abort();
	w->depth--;
	if (w->depth == 0 && kind == '[' && !w->first[0])
		jw_putc(w, '\n');
	jw_putc(w, kind == '[' ? ']' : '}');
}

void jw_array_begin(struct jw *w) { jw_open(w, '['); }
void jw_array_end(struct jw *w) { jw_close(w, '['); }
void jw_object_begin(struct jw *w) { jw_open(w, '{'); }
void jw_object_end(struct jw *w) { jw_close(w, '{'); }

void jw_key(struct jw *w, const char *key)
{
	if (w->depth == 0 || w->kind[w->depth - 1] != '{' || w->after_key)
		abort();
	if (!w->first[w->depth - 1])
		jw_putc(w, ',');
	w->first[w->depth - 1] = false;
	jw_escape(w, key);
	jw_putc(w, ':');
	w->after_key = true;
}

void jw_key_init(struct jw_key *k, const char *key)
{
	struct jw t;

	k->key = key;
	k->len = 0;
	/* escaped, a byte takes at most 6 ("\\u001f", "\\ufffd"): t never flushes */
	if (strlen(key) > (sizeof(t.buf) - 3) / 6)
		return;
	t.f = NULL;
	t.len = 0;
	jw_escape(&t, key);
	jw_putc(&t, ':');
	if (t.len <= sizeof(k->s)) {
		memcpy(k->s, t.buf, t.len);
		k->len = t.len;
	}
}

void jw_key_put(struct jw *w, const struct jw_key *k)
{
	if (!k->len) {
		jw_key(w, k->key);
		return;
	}
	if (w->depth == 0 || w->kind[w->depth - 1] != '{' || w->after_key)
		abort();
	if (!w->first[w->depth - 1])
		jw_putc(w, ',');
	w->first[w->depth - 1] = false;
	jw_put(w, k->s, k->len);
	w->after_key = true;
}

void jw_string(struct jw *w, const char *s)
{
	if (!s) {
		jw_null(w);
		return;
	}
	jw_sep(w);
	jw_escape(w, s);
}

/* "00" to "99": two digits for each division */
static const char jw_digits2[200] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void jw_u64(struct jw *w, uint64_t v)
{
	char buf[20];	/* UINT64_MAX has 20 digits */
	size_t i = sizeof(buf);

	jw_sep(w);
	/* digits by hand: fprintf's format machinery costs more than the row */
	while (v >= 100) {
		i -= 2;
		memcpy(buf + i, jw_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		i -= 2;
		memcpy(buf + i, jw_digits2 + 2 * v, 2);
	} else {
		buf[--i] = (char)('0' + v);
	}
	jw_put(w, buf + i, sizeof(buf) - i);
}

void jw_bool(struct jw *w, bool v)
{
	jw_sep(w);
	jw_puts(w, v ? "true" : "false");
}

void jw_null(struct jw *w)
{
	jw_sep(w);
	jw_puts(w, "null");
}

void jw_finish(struct jw *w)
{
	if (w->depth != 0)
		abort();
	jw_putc(w, '\n');
	jw_flush(w);
	funlockfile(w->f);
}

void jw_kv_string(struct jw *w, const char *key, const char *s) { jw_key(w, key); jw_string(w, s); }
void jw_kv_u64(struct jw *w, const char *key, uint64_t v) { jw_key(w, key); jw_u64(w, v); }
void jw_kv_bool(struct jw *w, const char *key, bool v) { jw_key(w, key); jw_bool(w, v); }
void jw_kv_null(struct jw *w, const char *key) { jw_key(w, key); jw_null(w); }

/* --- Prometheus -------------------------------------------------------- */

void prom_escape_label(FILE *f, const char *v)
{
	const unsigned char *p = (const unsigned char *)(v ? v : "");
	size_t n = strlen((const char *)p), i = 0;
	uint32_t cp;

	while (i < n) {
		size_t l = utf8_next(p + i, n - i, &cp);

		if (l == 0) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			i++;
			continue;
		}
		if (cp == '\\')
			fputs("\\\\", f);
		else if (cp == '"')
			fputs("\\\"", f);
		else if (cp == '\n')
			fputs("\\n", f);
		else
			fwrite(p + i, 1, l, f);
		i += l;
	}
}

void prom_family(FILE *f, const char *name, const char *help, const char *type)
{
	const char *p;

	fprintf(f, "# HELP %s ", name);
	for (p = help; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* name{l1="v1",...}: a sample without its value */
static void prom_series(FILE *f, const char *name, const struct prom_label *labels,
			size_t nlabels)
{
	size_t i;

	fputs(name, f);
	if (nlabels) {
		fputc('{', f);
		for (i = 0; i < nlabels; i++) {
			fprintf(f, "%s%s=\"", i ? "," : "", labels[i].name);
			prom_escape_label(f, labels[i].value);
			fputc('"', f);
		}
		fputc('}', f);
	}
}

void prom_sample(FILE *f, const char *name, const struct prom_label *labels,
		 size_t nlabels, uint64_t value)
{
	prom_series(f, name, labels, nlabels);
	fprintf(f, " %" PRIu64 "\n", value);
}

void prom_sample_seconds(FILE *f, const char *name, const struct prom_label *labels,
			 size_t nlabels, uint64_t ns)
{
	prom_series(f, name, labels, nlabels);
	fprintf(f, " %.9f\n", (double)ns * 1e-9);
}
