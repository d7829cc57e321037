/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - gpumemctl's one printing layer: human units, aligned tables,
 * a small JSON writer and the Prometheus text exposition format (0.0.4).
 * Nothing here knows about netlink or gpumem's data model.
 */
#ifndef GPUMEMCTL_OUTPUT_H
#define GPUMEMCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Output formats of the listing subcommands. */
enum out_format { OUT_TABLE, OUT_JSON, OUT_PROMETHEUS };

/* --- units ------------------------------------------------------------- */

/* Large enough for any formatted u64 ("18446744073709551615", "1023.9 EiB"). */
#define FMT_BYTES_LEN 32

/*
 * fmt_bytes: bytes as "512 B", "1.5 KiB", "3.0 MiB", ... (binary units, one
 * decimal, rounded to nearest; never "1024.0 KiB") or, with exact, the
 * decimal number of bytes. Returns buf.
 */
char *fmt_bytes(char *buf, size_t len, uint64_t bytes, bool exact);

/* fmt_ns: a duration as "812 ns", "1.2 us", "3.4 ms", "2.0 s". Returns buf. */
char *fmt_ns(char *buf, size_t len, uint64_t ns);

/* --- text sanitising --------------------------------------------------- */

/*
 * utf8_next: decode one UTF-8 sequence at s (n bytes available). Returns its
 * length (1..4) and the code point in *cp, or 0 for an invalid, overlong,
 * surrogate or truncated sequence (then *cp is the single byte s[0]).
 */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/*
 * term_safe: s made safe for a terminal: control characters, DEL, a
 * backslash and bytes that are not valid UTF-8 become \ooo (octal, as in
 * /proc/mounts and gpumem's debugfs files). Returns a malloc'ed string
 * (NULL only when out of memory).
 */
char *term_safe(const char *s);

/* display width of a term_safe() string (one column per code point) */
size_t display_width(const char *s);

/* --- tables ------------------------------------------------------------ */

struct table {
	size_t ncols;
	const char *const *hdr;	/* column titles */
	const char *align;	/* one char per column: 'l' or 'r' */
	char **cells;		/* nrows * ncols, term_safe() copies */
	size_t nrows, cap;
};

void tbl_init(struct table *t, size_t ncols, const char *const *hdr, const char *align);
/* tbl_add: one row of t->ncols strings (NULL prints as "-"); 0 or -ENOMEM */
int tbl_add(struct table *t, const char *const *row);
/*
 * tbl_print: header and rows, columns separated by two blanks, padded to
 * the widest cell; max_rows limits the rows printed (0 = all).
 */
void tbl_print(const struct table *t, FILE *f, size_t max_rows);
void tbl_free(struct table *t);

/* --- JSON -------------------------------------------------------------- */

#define JW_MAX_DEPTH 16

/*
 * A streaming JSON writer. Compact output; the elements of a top-level array
 * are put on lines of their own, so that line-oriented tools can read them.
 * Misuse (too deep, key outside an object) is a programming error and
 * aborts.
 */
struct jw {
	FILE *f;
	int depth;
	bool first[JW_MAX_DEPTH];	/* no element written yet at this depth */
	char kind[JW_MAX_DEPTH];	/* '[' or '{' */
	bool after_key;
	size_t len;			/* bytes in buf, not yet written to f */
	char buf[4096];
};

void jw_init(struct jw *w, FILE *f);
void jw_array_begin(struct jw *w);
void jw_array_end(struct jw *w);
void jw_object_begin(struct jw *w);
void jw_object_end(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_string(struct jw *w, const char *s);	/* NULL writes null */
void jw_u64(struct jw *w, uint64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);
/* end of the document: a final newline */
void jw_finish(struct jw *w);

/*
 * A key escaped once, for many objects (the keys of a field list in an
 * array of rows): jw_key_put() writes what jw_key() writes.
 */
struct jw_key {
	const char *key;
	size_t len;		/* of s; 0: too long, jw_key_put() escapes key */
	char s[48];		/* "key": as JSON */
};
void jw_key_init(struct jw_key *k, const char *key);
void jw_key_put(struct jw *w, const struct jw_key *k);

/* key + value shorthands */
void jw_kv_string(struct jw *w, const char *key, const char *s);
void jw_kv_u64(struct jw *w, const char *key, uint64_t v);
void jw_kv_bool(struct jw *w, const char *key, bool v);
void jw_kv_null(struct jw *w, const char *key);

/*
 * json_escape: s as a JSON string literal with the quotes. ", \ and control
 * characters are escaped (\n, \t, ... or \u00XX), DEL as \u007f; bytes
 * that are not valid UTF-8 become U+FFFD, so the output is always valid JSON.
 */
void json_escape(FILE *f, const char *s);

/* --- Prometheus text format 0.0.4 -------------------------------------- */

struct prom_label {
	const char *name;
	const char *value;	/* NULL is written as "" */
};

/* "# HELP name text" (text escaped: \ and newline) and "# TYPE name type" */
void prom_family(FILE *f, const char *name, const char *help, const char *type);
/* name{l1="v1",...} value - label values escaped: \ " and newline */
void prom_sample(FILE *f, const char *name, const struct prom_label *labels,
		 size_t nlabels, uint64_t value);
/* the same with a duration of ns nanoseconds, written in seconds (%.9f) */
void prom_sample_seconds(FILE *f, const char *name, const struct prom_label *labels,
			 size_t nlabels, uint64_t ns);
/* a label value escaped per the format (invalid UTF-8 becomes U+FFFD) */
void prom_escape_label(FILE *f, const char *v);

#endif
