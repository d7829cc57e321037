// SPDX-License-Identifier: GPL-2.0
/*
 * test_output.c - the printing layer: units, terminal-safe text, tables, the JSON
 * writer, the Prometheus format and the field printer (fields.c).
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

/* --- units ------------------------------------------------------------- */

void test_units(void)
{
	static const struct { uint64_t v; const char *want; } b[] = {
		{ 0, "0 B" }, { 1, "1 B" }, { 1023, "1023 B" }, { 1024, "1.0 KiB" },
		{ 1536, "1.5 KiB" }, { 1048575, "1.0 MiB" }, { 3 * 1048576, "3.0 MiB" },
		{ 4194304, "4.0 MiB" }, { 134209536, "128.0 MiB" }, { 1073741824, "1.0 GiB" },
		{ 1610612736, "1.5 GiB" }, { 1099511627776ULL, "1.0 TiB" },
		{ UINT64_MAX, "16.0 EiB" },
	};
	static const struct { uint64_t v; const char *want; } ns[] = {
		{ 0, "0 ns" }, { 999, "999 ns" }, { 1000, "1.0 us" }, { 999999, "1.0 ms" },
		{ 1234567, "1.2 ms" }, { 2000000000, "2.0 s" }, { 86400000000000ULL, "86400.0 s" },
	};
	char buf[FMT_BYTES_LEN], what[64];
	size_t i;

	for (i = 0; i < sizeof(b) / sizeof(*b); i++) {
		snprintf(what, sizeof(what), "fmt_bytes(%" PRIu64 ")", b[i].v);
		eq_str(what, fmt_bytes(buf, sizeof(buf), b[i].v, false), b[i].want);
	}
	eq_str("fmt_bytes exact", fmt_bytes(buf, sizeof(buf), 134209536, true), "134209536");
	eq_str("fmt_bytes exact max", fmt_bytes(buf, sizeof(buf), UINT64_MAX, true),
	       "18446744073709551615");
	for (i = 0; i < sizeof(ns) / sizeof(*ns); i++) {
		snprintf(what, sizeof(what), "fmt_ns(%" PRIu64 ")", ns[i].v);
		eq_str(what, fmt_ns(buf, sizeof(buf), ns[i].v), ns[i].want);
	}
}

/* --- text -------------------------------------------------------------- */

void test_term_safe(void)
{
	static const struct { const char *in, *want; } t[] = {
		{ "gpumem-alloc", "gpumem-alloc" },
		{ "gm sp\tace", "gm sp\\011ace" },
		{ "a\nb", "a\\012b" },
		{ "back\\slash", "back\\134slash" },
		{ "\033[2J", "\\033[2J" },
		{ "del\x7f", "del\\177" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xff\xfe", "\\377\\376" },
		{ "c1\xc2\x9b", "c1\\302\\233" },	/* U+009B CSI */
		{ "trunc\xe2\x82", "trunc\\342\\202" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char *s = term_safe(t[i].in), what[64];

		snprintf(what, sizeof(what), "term_safe #%zu", i + 1);
		eq_str(what, s, t[i].want);
		free(s);
	}
	eq_u64("display_width of UTF-8", display_width("caf\xc3\xa9"), 4);
}

void test_utf8(void)
{
	uint32_t cp;

	eq_u64("utf8 ascii", utf8_next((const unsigned char *)"a", 1, &cp), 1);
	eq_u64("utf8 2-byte", utf8_next((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	eq_u64("utf8 2-byte cp", cp, 0xe9);
	eq_u64("utf8 4-byte", utf8_next((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
	eq_u64("utf8 4-byte cp", cp, 0x1f600);
	eq_u64("utf8 overlong", utf8_next((const unsigned char *)"\xc0\xaf", 2, &cp), 0);
	eq_u64("utf8 surrogate", utf8_next((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
	eq_u64("utf8 > U+10FFFF", utf8_next((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
	eq_u64("utf8 truncated", utf8_next((const unsigned char *)"\xe2\x82", 2, &cp), 0);
	eq_u64("utf8 lone continuation", utf8_next((const unsigned char *)"\x80", 1, &cp), 0);
}

/* --- tables ------------------------------------------------------------ */

void test_table(void)
{
	static const char *const hdr[] = { "PID", "COMM", "VRAM", "CGROUP" };
	const char *r1[] = { "812", "gpumem-alloc", "4.0 MiB", "/test/a" };
	const char *r2[] = { "7", "x\ty", "512 B", NULL };
	struct table t;
	struct mem m;
	char *out;

	tbl_init(&t, 4, hdr, "rlrl");
	tbl_add(&t, r1);
	tbl_add(&t, r2);
	tbl_print(&t, mem_open(&m), 0);
	out = mem_close(&m);
	eq_str("table aligned, escaped, '-' for NULL, no trailing blanks", out,
	       "PID  COMM             VRAM  CGROUP\n"
	       "812  gpumem-alloc  4.0 MiB  /test/a\n"
	       "  7  x\\011y          512 B  -\n");
	free(out);
	tbl_print(&t, mem_open(&m), 1);
	out = mem_close(&m);
	eq_str("table max_rows", out,
	       "PID  COMM             VRAM  CGROUP\n"
	       "812  gpumem-alloc  4.0 MiB  /test/a\n");
	free(out);
	tbl_free(&t);
}

/* --- JSON -------------------------------------------------------------- */

static char *json_of(const char *s)
{
	struct mem m;

	json_escape(mem_open(&m), s);
	return mem_close(&m);
}

void test_json_escape(void)
{
	static const struct { const char *in, *want; } t[] = {
		{ "plain", "\"plain\"" },
		{ "", "\"\"" },
		{ "say \"hi\"", "\"say \\\"hi\\\"\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "a\nb\tc\rd\be\ff", "\"a\\nb\\tc\\rd\\be\\ff\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "del\x7f", "\"del\\u007f\"" },
		{ "/test/a", "\"/test/a\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
		{ "bad\xff", "\"bad\\ufffd\"" },
		{ "trunc\xc3", "\"trunc\\ufffd\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "[kernel]", "\"[kernel]\"" },
		{ "ab\"cd\\e\x01" "fg\xc3\xa9h", "\"ab\\\"cd\\\\e\\u0001fg\xc3\xa9h\"" },
	};
	char all[128], want[1024], *got, *o = want;
	const char *const shorts = "\b\f\n\r\t";
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char *s = json_of(t[i].in), what[64];

		snprintf(what, sizeof(what), "json_escape #%zu", i + 1);
		eq_str(what, s, t[i].want);
		free(s);
	}

	/* every ASCII byte, against the rules spelled out */
	*o++ = '"';
	for (i = 1; i < 128; i++) {
		all[i - 1] = (char)i;
		if (i == '"' || i == '\\')
			o += sprintf(o, "\\%c", (int)i);
		else if (strchr(shorts, (int)i))
			o += sprintf(o, "\\%c", "bfnrt"[strchr(shorts, (int)i) - shorts]);
		else if (i < 0x20 || i == 0x7f)
			o += sprintf(o, "\\u%04zx", i);
		else
			*o++ = (char)i;
	}
	all[127] = '\0';
	strcpy(o, "\"");
	got = json_of(all);
	eq_str("json_escape: every ASCII byte", got, want);
	free(got);
}

void test_card_name(void)
{
	char buf[32];

	eq_str("card name: 0", gm_card_name(buf, 0), "card0");
	eq_str("card name: 10", gm_card_name(buf, 10), "card10");
	eq_str("card name: UINT32_MAX", gm_card_name(buf, UINT32_MAX), "card4294967295");
	eq_str("card name: UINT64_MAX", gm_card_name(buf, UINT64_MAX), "card18446744073709551615");
}

/*
 * The writer's pieces against what they must write: numbers as printf
 * writes them (two digits a division), strings of every length across the
 * buffer's end (copied a byte at a time, the buffer flushed when full),
 * keys escaped once (jw_key_init/jw_key_put) as jw_key() writes them.
 */
static void test_json_writer_pieces(void)
{
	static const char *const keys[] = {
		"pid", "", "a\"b\\c", "\x01\x1f\x7f", "caf\xc3\xa9", "bad\xff", "k",
		"012345678901234567890123456789012345678901234",	/* 45: kept escaped */
		"0123456789012345678901234567890123456789012345",	/* 46: too long */
		"\x01\x01\x01\x01\x01\x01\x01\x01\x01",			/* 9 escapes: too long */
	};
	uint64_t v = 0, x = 88172645463325252ull;
	char num[32], *out, *want, *o;
	size_t i, k, len, cap = 1 << 20;
	struct jw_key jk;
	struct mem m;
	struct jw w;
	bool ok = true;

	/* numbers: 0..100000, 10^k - 1, 10^k, 10^k + 1, random, UINT64_MAX */
	want = malloc(cap);
	len = (size_t)sprintf(want, "[");
	jw_init(&w, mem_open(&m));
	jw_array_begin(&w);
	for (i = 0; i < 100000 + 3 * 20 + 1000; i++) {
		if (i <= 100000) {
			v = i;
		} else if (i < 100000 + 3 * 20) {
			uint64_t p = 1;

			for (k = 0; k < (i - 100000) / 3; k++)
				p *= 10;
			v = p - 1 + (i - 100000) % 3;
		} else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v = x >> (x % 64);
		}
		jw_u64(&w, v);
		len += (size_t)snprintf(want + len, cap - len, "%s%" PRIu64, i ? ",\n" : "\n", v);
	}
	jw_u64(&w, UINT64_MAX);
	len += (size_t)snprintf(want + len, cap - len, ",\n%" PRIu64 "\n]\n", UINT64_MAX);
	jw_array_end(&w);
	jw_finish(&w);
	out = mem_close(&m);
	result(out && strcmp(out, want) == 0,
	       "json numbers as printf writes them (0 to 100000, around powers of 10, random, UINT64_MAX)");
	free(out);

	/* strings of 0..300 bytes, plain and with escapes, across many flushes */
	len = (size_t)sprintf(want, "[");
	jw_init(&w, mem_open(&m));
	jw_array_begin(&w);
	for (i = 0; i <= 300; i++) {
		char s[302];

		for (k = 0; k < i; k++)
			s[k] = (char)(i % 7 == 3 && k % 5 == 4 ? '"' : 'a' + (int)((i + k) % 26));
		s[i] = '\0';
		jw_string(&w, s);
		o = want + len;
		o += sprintf(o, "%s\"", i ? ",\n" : "\n");
		for (k = 0; k < i; k++) {
			if (s[k] == '"')
				*o++ = '\\';
			*o++ = s[k];
		}
		*o++ = '"';
		len = (size_t)(o - want);
		snprintf(num, sizeof(num), "%zu", i);
		jw_string(&w, num);
		len += (size_t)sprintf(want + len, ",\n\"%s\"", num);
	}
	strcpy(want + len, "\n]\n");
	jw_array_end(&w);
	jw_finish(&w);
	out = mem_close(&m);
	result(out && strlen(out) > 2 * sizeof(w.buf) && strcmp(out, want) == 0,
	       "json strings of 0 to 300 bytes over %zu bytes: as written, across the buffer's end",
	       out ? strlen(out) : 0);
	free(out);
	free(want);

	/* a key escaped once writes what jw_key() writes */
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		char *by_key;

		jw_init(&w, mem_open(&m));
		jw_object_begin(&w);
		jw_key(&w, keys[i]);
		jw_u64(&w, 1);
		jw_key(&w, keys[i]);
		jw_null(&w);
		jw_object_end(&w);
		jw_finish(&w);
		by_key = mem_close(&m);
		jw_key_init(&jk, keys[i]);
		jw_init(&w, mem_open(&m));
		jw_object_begin(&w);
		jw_key_put(&w, &jk);
		jw_u64(&w, 1);
		jw_key_put(&w, &jk);
		jw_null(&w);
		jw_object_end(&w);
		jw_finish(&w);
		out = mem_close(&m);
		if (!by_key || !out || strcmp(by_key, out) != 0 ||
		    (jk.len == 0) != (i >= sizeof(keys) / sizeof(*keys) - 2)) {
			ok = false;
			printf("#   key %zu: '%s' and '%s' (kept: %zu)\n", i, by_key ? by_key : "",
			       out ? out : "", jk.len);
		}
		free(by_key);
		free(out);
	}
	result(ok, "json keys escaped once write what jw_key() writes (escapes, UTF-8, an "
		   "invalid byte, empty; too long ones escaped each time)");
}

void test_json_writer(void)
{
	struct mem m;
	struct jw w;
	char *out;

	jw_init(&w, mem_open(&m));
	jw_array_begin(&w);
	jw_array_end(&w);
	jw_finish(&w);
	out = mem_close(&m);
	eq_str("json empty array", out, "[]\n");
	free(out);

	jw_init(&w, mem_open(&m));
	jw_array_begin(&w);
	jw_object_begin(&w);
	jw_kv_u64(&w, "pid", 812);
	jw_kv_string(&w, "comm", "gm \"x\"");
	jw_kv_null(&w, "cgroup");
	jw_kv_string(&w, "null_str", NULL);
	jw_kv_bool(&w, "ttm", true);
	jw_kv_u64(&w, "big", UINT64_MAX);
	jw_key(&w, "regions");
	jw_array_begin(&w);
	jw_object_begin(&w);
	jw_kv_string(&w, "region", "vram");
	jw_object_end(&w);
	jw_object_begin(&w);
	jw_object_end(&w);
	jw_array_end(&w);
	jw_key(&w, "holders");
	jw_array_begin(&w);
	jw_u64(&w, 1);
	jw_u64(&w, 2);
	jw_u64(&w, 0);
	jw_u64(&w, 10);
	jw_array_end(&w);
	jw_object_end(&w);
	jw_object_begin(&w);
	jw_kv_bool(&w, "ttm", false);
	jw_object_end(&w);
	jw_array_end(&w);
	jw_finish(&w);
	out = mem_close(&m);
	eq_str("json array of objects, one per line", out,
	       "[\n"
	       "{\"pid\":812,\"comm\":\"gm \\\"x\\\"\",\"cgroup\":null,\"null_str\":null,"
	       "\"ttm\":true,\"big\":18446744073709551615,"
	       "\"regions\":[{\"region\":\"vram\"},{}],\"holders\":[1,2,0,10]},\n"
	       "{\"ttm\":false}\n"
	       "]\n");
	free(out);

	jw_init(&w, mem_open(&m));
	jw_object_begin(&w);
	jw_kv_u64(&w, "walks", 12);
	jw_kv_u64(&w, "devices", 3);
	jw_object_end(&w);
	jw_finish(&w);
	out = mem_close(&m);
	eq_str("json object", out, "{\"walks\":12,\"devices\":3}\n");
	free(out);

	test_json_writer_pieces();
}

/* --- Prometheus -------------------------------------------------------- */

void test_prometheus(void)
{
	struct prom_label l[3] = {
		{ "pid", "812" }, { "comm", "a\\b\"c\nd" }, { "cgroup", NULL },
	};
	struct mem m;
	char *out;

	prom_escape_label(mem_open(&m), "back\\slash \"quoted\"\nnext");
	out = mem_close(&m);
	eq_str("prom label escaping", out, "back\\\\slash \\\"quoted\\\"\\nnext");
	free(out);

	prom_escape_label(mem_open(&m), "tab\there caf\xc3\xa9 bad\xff");
	out = mem_close(&m);
	eq_str("prom label: tab and UTF-8 kept, invalid byte U+FFFD", out,
	       "tab\there caf\xc3\xa9 bad\xef\xbf\xbd");
	free(out);

	prom_sample(mem_open(&m), "gpumem_process_bytes", l, 3, 4194304);
	out = mem_close(&m);
	eq_str("prom sample", out,
	       "gpumem_process_bytes{pid=\"812\",comm=\"a\\\\b\\\"c\\nd\",cgroup=\"\"} 4194304\n");
	free(out);

	prom_sample(mem_open(&m), "gpumem_x", NULL, 0, UINT64_MAX);
	out = mem_close(&m);
	eq_str("prom sample without labels", out, "gpumem_x 18446744073709551615\n");
	free(out);

	prom_family(mem_open(&m), "gpumem_x", "Help with \\ and\nnewline.", "gauge");
	out = mem_close(&m);
	eq_str("prom HELP/TYPE", out,
	       "# HELP gpumem_x Help with \\\\ and\\nnewline.\n# TYPE gpumem_x gauge\n");
	free(out);
}


/* --- one printer per field (fields.c) --------------------------------- */

struct row { uint32_t id; const char *name; uint64_t bytes; bool has_max; uint64_t max; };

static void get_max(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct row *r = obj;

	(void)f;
	(void)buf;
	if (r->has_max) {
		v->kind = GM_V_BYTES;
		v->u = r->max;
	}
}

static void get_kind(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	(void)f;
	(void)obj;
	snprintf(buf, GM_FIELD_BUF, "k%d", 7);
	v->kind = GM_V_STR;
	v->s = buf;
}

void test_fields(void)
{
	static const struct gm_field fl[] = {
		{ .title = "NAME", .label = "name", .flags = GM_F_TAIL,
		  .get = gm_get_str, .arg = offsetof(struct row, name) },
		{ .title = "ID", .align = 'r', .key = "id", .label = "id",
		  .get = gm_get_u32, .arg = offsetof(struct row, id) },
		{ .key = "name", .get = gm_get_str, .arg = offsetof(struct row, name) },
		{ .align = 'r', .flags = GM_F_REGION, .arg = GPUMEM_REGION_GTT, .get = get_max,
		  .metric = "t_bytes", .xlabel = "region", .help = "h" },
		{ .title = "BYTES", .align = 'r', .key = "bytes", .views = GM_VIEW(1),
		  .metric = "t_bytes", .xlabel = "region", .xvalue = "all",
		  .get = gm_get_bytes, .arg = offsetof(struct row, bytes) },
		{ .title = "KIND", .key = "kind", .flags = GM_F_WIDE, .get = get_kind },
	};
	static const struct row rows[] = {
		{ 1, "one", 2048, true, 4096 },
		{ 22, NULL, 0, false, 0 },
	};
	struct gm_fields fs = { .v = fl, .n = sizeof(fl) / sizeof(*fl), .view = 1 };
	struct mem m;
	char *out;

	gm_fields_table(mem_open(&m), &fs, rows, 2, sizeof(*rows), 0);
	out = mem_close(&m);
	eq_str("fields: table (tail column last, region title, '-' for none)", out,
	       "ID      GTT    BYTES  KIND  NAME\n"
	       " 1  4.0 KiB  2.0 KiB  k7    one\n"
	       "22        -      0 B  k7    -\n");
	free(out);
	fs.skip = GM_F_WIDE;
	fs.exact = true;
	gm_fields_table(mem_open(&m), &fs, rows, 2, sizeof(*rows), 1);
	out = mem_close(&m);
	eq_str("fields: table without wide fields, exact, one row", out,
	       "ID   GTT  BYTES  NAME\n"
	       " 1  4096   2048  one\n");
	free(out);
	fs.skip = 0;
	fs.view = 0;	/* BYTES is a view-1 field */
	gm_fields_json_array(mem_open(&m), &fs, rows, 2, sizeof(*rows));
	out = mem_close(&m);
	eq_str("fields: JSON in list order, region key, null for none", out,
	       "[\n{\"id\":1,\"name\":\"one\",\"gtt\":4096,\"kind\":\"k7\"},\n"
	       "{\"id\":22,\"name\":null,\"gtt\":null,\"kind\":\"k7\"}\n]\n");
	free(out);
	fs.view = 1;
	gm_fields_prom(mem_open(&m), &fs, rows, 2, sizeof(*rows));
	out = mem_close(&m);
	eq_str("fields: Prometheus, one family, samples per row and field, labels in order", out,
	       "# HELP t_bytes h\n# TYPE t_bytes gauge\n"
	       "t_bytes{name=\"one\",id=\"1\",region=\"gtt\"} 4096\n"
	       "t_bytes{name=\"one\",id=\"1\",region=\"all\"} 2048\n"
	       "t_bytes{name=\"\",id=\"22\",region=\"all\"} 0\n");
	free(out);
}

/* Prometheus types and units: GM_F_COUNTER, a gauge, a GM_V_NS duration */

struct walk_row { const char *dev; uint32_t id; uint64_t walks, records, ns; bool has_ns; };

static void get_walk_ns(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct walk_row *r = obj;

	(void)f;
	(void)buf;
	if (r->has_ns) {
		v->kind = GM_V_NS;
		v->u = r->ns;
	}
}

void test_fields_prom(void)
{
	static const struct gm_field fl[] = {
		{ .key = "walks", .metric = "t_walks_total", .flags = GM_F_COUNTER,
		  .help = "Walks.", .get = gm_get_u64, .arg = offsetof(struct walk_row, walks) },
		{ .label = "device", .get = gm_get_str, .arg = offsetof(struct walk_row, dev) },
		{ .key = "records", .metric = "t_records", .help = "Records alive.",
		  .get = gm_get_u64, .arg = offsetof(struct walk_row, records) },
		{ .key = "last_walk_ns", .metric = "t_last_walk_seconds",
		  .help = "Duration of the last walk.", .get = get_walk_ns },
		{ .label = "id", .get = gm_get_u32, .arg = offsetof(struct walk_row, id) },
	};
	static const struct walk_row rows[] = {
		{ "card0", 0, 12, 71, 1234567, true },
		{ "card\"1", 1, 0, 0, 3000000000u, true },
		{ NULL, 2, UINT64_MAX, 5, 0, false },
	};
	struct gm_fields fs = { .v = fl, .n = sizeof(fl) / sizeof(*fl) };
	struct mem m;
	char *out;

	gm_fields_prom(mem_open(&m), &fs, rows, 3, sizeof(*rows));
	out = mem_close(&m);
	eq_str("fields: Prometheus counter and gauge TYPEs, ns as seconds, no sample when not known",
	       out,
	       "# HELP t_walks_total Walks.\n# TYPE t_walks_total counter\n"
	       "t_walks_total{device=\"card0\",id=\"0\"} 12\n"
	       "t_walks_total{device=\"card\\\"1\",id=\"1\"} 0\n"
	       "t_walks_total{device=\"\",id=\"2\"} 18446744073709551615\n"
	       "# HELP t_records Records alive.\n# TYPE t_records gauge\n"
	       "t_records{device=\"card0\",id=\"0\"} 71\n"
	       "t_records{device=\"card\\\"1\",id=\"1\"} 0\n"
	       "t_records{device=\"\",id=\"2\"} 5\n"
	       "# HELP t_last_walk_seconds Duration of the last walk.\n"
	       "# TYPE t_last_walk_seconds gauge\n"
	       "t_last_walk_seconds{device=\"card0\",id=\"0\"} 0.001234567\n"
	       "t_last_walk_seconds{device=\"card\\\"1\",id=\"1\"} 3.000000000\n");
	free(out);

	/* the same ns in JSON and tables: the integer as it is */
	gm_fields_json_array(mem_open(&m), &fs, rows, 1, sizeof(*rows));
	out = mem_close(&m);
	eq_str("fields: a GM_V_NS value in JSON stays ns", out,
	       "[\n{\"walks\":12,\"records\":71,\"last_walk_ns\":1234567}\n]\n");
	free(out);

	/* one object, no label fields: bare samples */
	fs.v = fl + 3;
	fs.n = 1;
	gm_fields_prom(mem_open(&m), &fs, rows, 1, sizeof(*rows));
	out = mem_close(&m);
	eq_str("fields: Prometheus ns sample without labels", out,
	       "# HELP t_last_walk_seconds Duration of the last walk.\n"
	       "# TYPE t_last_walk_seconds gauge\n"
	       "t_last_walk_seconds 0.001234567\n");
	free(out);
}
