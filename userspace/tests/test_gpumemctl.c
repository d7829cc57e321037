// SPDX-License-Identifier: GPL-2.0
/*
 * test_gpumemctl.c - host-side unit tests of gpumemctl; no gpumem module
 * needed. Prints "ok N - ..." / "not ok N - ..." lines and finally
 * "N passed, N failed". Usage: test_gpumemctl [PATH-TO-gpumemctl]
 * (with the path, the command line's exit codes are checked too).
 *
 * Sections: units, text sanitising, tables, JSON, Prometheus, argument
 * parsers, reply parsers (messages built with libnl as the kernel would),
 * extended-ack parsing, the do/dump loop against the kernel's own "nlctrl"
 * family, the command line, and the commands' output.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "../nl.h"
#include "../output.h"
#include "../parse.h"
#include "../query.h"
#include "../quota.h"

static int npass, nfail, ntest;

static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (ok)
		npass++;
	else
		nfail++;
	printf("%s %d - ", ok ? "ok" : "not ok", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void skip(const char *what, const char *why)
{
	printf("# skip %s: %s\n", what, why);
}

static void eq_str(const char *what, const char *got, const char *want)
{
	int ok = got && want ? strcmp(got, want) == 0 : got == want;

	result(ok, "%s", what);
	if (!ok)
		printf("#   got  '%s'\n#   want '%s'\n", got ? got : "(null)", want ? want : "(null)");
}

static void eq_u64(const char *what, uint64_t got, uint64_t want)
{
	result(got == want, "%s", what);
	if (got != want)
		printf("#   got %" PRIu64 ", want %" PRIu64 "\n", got, want);
}

/* A memory FILE whose contents the check reads. */
struct mem { char *buf; size_t len; FILE *f; };

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	return m->f;
}

static char *mem_close(struct mem *m)
{
	fclose(m->f);
	return m->buf;
}

/* --- units ------------------------------------------------------------- */

static void test_units(void)
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

static void test_term_safe(void)
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

static void test_utf8(void)
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

static void test_table(void)
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

static void test_json_escape(void)
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
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		char *s = json_of(t[i].in), what[64];

		snprintf(what, sizeof(what), "json_escape #%zu", i + 1);
		eq_str(what, s, t[i].want);
		free(s);
	}
}

static void test_json_writer(void)
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
	       "\"regions\":[{\"region\":\"vram\"},{}],\"holders\":[1,2]},\n"
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
}

/* --- Prometheus -------------------------------------------------------- */

static void test_prometheus(void)
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

/* --- argument parsers ------------------------------------------------- */

static void test_parse_pid(void)
{
	static const struct { const char *s; int ok; uint32_t want; } t[] = {
		{ "1", 1, 1 }, { "812", 1, 812 }, { "4194304", 1, 4194304 },
		{ "0", 1, 0 }, { "-1", 0, 0 }, { "4194305", 0, 0 }, { "abc", 0, 0 },
		{ "", 0, 0 }, { "12x", 0, 0 }, { " 1", 0, 0 }, { "+1", 0, 0 },
		{ "0x10", 0, 0 }, { "99999999999999999999999999", 0, 0 }, { "1.5", 0, 0 },
	};
	char err[GM_ERR_LEN], what[80];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		uint32_t pid = 0;
		int r = parse_pid(t[i].s, &pid, err, sizeof(err));

		snprintf(what, sizeof(what), "parse_pid('%s') %s", t[i].s,
			 t[i].ok ? "accepted" : "rejected");
		result(t[i].ok ? r == 0 && pid == t[i].want : r < 0 && err[0], "%s", what);
	}
	parse_pid("abc", &(uint32_t){ 0 }, err, sizeof(err));
	eq_str("parse_pid message names the value", err, "invalid pid 'abc' (not a number)");
	parse_pid("4194305", &(uint32_t){ 0 }, err, sizeof(err));
	eq_str("parse_pid range message", err,
	       "pid 4194305 out of range (0 to 4194304; 0: in-kernel clients)");
}

static void test_parse_interval_count(void)
{
	static const struct { const char *s; int ok; unsigned int ms; } t[] = {
		{ "2", 1, 2000 }, { "0.5", 1, 500 }, { ".5", 1, 500 }, { "0.1", 1, 100 },
		{ "1.25", 1, 1250 }, { "1.2345", 1, 1234 }, { "86400", 1, 86400000 },
		{ "0.05", 0, 0 }, { "0", 0, 0 }, { "1.", 0, 0 }, { ".", 0, 0 }, { "", 0, 0 },
		{ "abc", 0, 0 }, { "-1", 0, 0 }, { "86401", 0, 0 }, { "1e3", 0, 0 },
		{ "1,5", 0, 0 }, { "99999999999999999999", 0, 0 },
	};
	char err[GM_ERR_LEN], what[80];
	uint64_t n;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		unsigned int ms = 0;
		int r = parse_interval(t[i].s, &ms, err, sizeof(err));

		snprintf(what, sizeof(what), "parse_interval('%s') %s", t[i].s,
			 t[i].ok ? "accepted" : "rejected");
		result(t[i].ok ? r == 0 && ms == t[i].ms : r < 0, "%s", what);
	}
	result(parse_count("3", "n", &n, err, sizeof(err)) == 0 && n == 3, "parse_count('3')");
	result(parse_count("0", "n", &n, err, sizeof(err)) < 0, "parse_count('0') rejected");
	result(parse_count("x", "n", &n, err, sizeof(err)) < 0, "parse_count('x') rejected");
	result(parse_count("-2", "n", &n, err, sizeof(err)) < 0, "parse_count('-2') rejected");
	result(parse_count("4294967296", "n", &n, err, sizeof(err)) < 0,
	       "parse_count(2^32) rejected");
}

static void test_parse_size(void)
{
	static const struct { const char *s; int ok; uint64_t want; } t[] = {
		{ "0", 1, 0 }, { "4096", 1, 4096 }, { "4096B", 1, 4096 }, { "64K", 1, 65536 },
		{ "64k", 1, 65536 }, { "64KiB", 1, 65536 }, { "1M", 1, 1048576 },
		{ "1.5M", 1, 1572864 }, { "2GiB", 1, 2147483648ULL }, { "1T", 1, 1099511627776ULL },
		{ "0.5K", 1, 512 }, { "18446744073709551615", 1, UINT64_MAX },
		{ "16777215T", 1, 16777215ULL << 40 },
		{ "16777216T", 0, 0 }, { "18446744073709551616", 0, 0 }, { "1X", 0, 0 },
		{ "", 0, 0 }, { "K", 0, 0 }, { "-1K", 0, 0 }, { "1 K", 0, 0 }, { "1..5M", 0, 0 },
	};
	char err[GM_ERR_LEN], what[80];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		uint64_t v = 0;
		int r = parse_size(t[i].s, &v, err, sizeof(err));

		snprintf(what, sizeof(what), "parse_size('%s') %s", t[i].s,
			 t[i].ok ? "accepted" : "rejected");
		result(t[i].ok ? r == 0 && v == t[i].want : r < 0, "%s", what);
	}
}

static void test_parse_limit_size(void)
{
	static const struct { const char *s; uint64_t want; } ok[] = {
		{ "1", 1 }, { "4096", 4096 }, { "4096B", 4096 }, { "4096b", 4096 },
		{ "64K", 65536 }, { "64k", 65536 }, { "64KiB", 65536 }, { "64kib", 65536 },
		{ "64KB", 65536 }, { "1M", 1048576 }, { "512MiB", 536870912ULL },
		{ "1.5M", 1572864 }, { "1.5G", 1610612736ULL }, { "2GiB", 2147483648ULL },
		{ "8g", 8589934592ULL }, { "1T", 1099511627776ULL }, { "1TiB", 1099511627776ULL },
		{ ".5K", 512 }, { "0.5K", 512 }, { "1.0K", 1024 }, { "1.50000M", 1572864 },
		{ "0.0009765625K", 1 }, { "0.0000000000009094947017729282379150390625T", 1 },
		{ "0.000000000000909494701772928237915039062500000T", 1 },
		{ "3.0", 3 }, { "007M", 7340032 },
		{ "18446744073709551614", UINT64_MAX - 1 }, { "16777215T", 16777215ULL << 40 },
		{ "17179869183.99999999813735485076904296875G", UINT64_MAX - 1 },
	};
	static const struct { const char *s, *why; } bad[] = {
		{ "0", "at least 1 byte" }, { "0K", "at least 1 byte" }, { "0.0M", "at least 1 byte" },
		{ "-1", "negative" }, { "-1G", "negative" }, { "-0", "negative" },
		{ "1.5", "not a whole number of bytes" }, { "0.1K", "not a whole number of bytes" },
		{ "1.0000000001G", "not a whole number of bytes" },
		{ "0.5B", "not a whole number of bytes" },
		{ "0.00048828125K", "not a whole number of bytes" },
		{ "18446744073709551616", "too large" }, { "16777216T", "too large" },
		/* 2^64 - 1 is the kernel's "no limit", which it refuses as a size */
		{ "18446744073709551615", "too large" },
		{ "16777215.9999999999990905052982270717620849609375T", "too large" },
		{ "99999999999999999999999999", "too large" }, { "17179869184G", "too large" },
		{ "16777215.9999999999999999999999999999999999T", "not a whole number" },
		{ "16777215.99999999999909050529822707176208496094T", "not a whole number" },
		{ "16777216.0T", "too large" },
		{ "", "empty size" }, { "K", "invalid size" }, { "1X", "invalid size" },
		{ "1 K", "invalid size" }, { " 1K", "invalid size" }, { "1K ", "invalid size" },
		{ "1..5M", "invalid size" }, { "1.5.M", "invalid size" }, { "1.", "invalid size" },
		{ ".", "invalid size" }, { ".K", "invalid size" }, { "+1", "invalid size" },
		{ "0x10", "invalid size" }, { "1e3", "invalid size" }, { "1KK", "invalid size" },
		{ "1PiB", "invalid size" }, { "abc", "invalid size" }, { "1,5G", "invalid size" },
	};
	char err[GM_ERR_LEN], what[120];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		uint64_t v = 0;
		int r = parse_limit_size(ok[i].s, &v, err, sizeof(err));

		snprintf(what, sizeof(what), "parse_limit_size('%s') = %" PRIu64, ok[i].s, ok[i].want);
		result(r == 0 && v == ok[i].want, "%s", what);
		if (r != 0 || v != ok[i].want)
			printf("#   got %d, %" PRIu64 ": %s\n", r, v, r ? err : "");
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		uint64_t v = 0;
		int r = parse_limit_size(bad[i].s, &v, err, sizeof(err));

		snprintf(what, sizeof(what), "parse_limit_size('%s') rejected: %s", bad[i].s, bad[i].why);
		result(r < 0 && strstr(err, bad[i].why), "%s", what);
		if (r == 0 || !strstr(err, bad[i].why))
			printf("#   got %d, %" PRIu64 ", '%s'\n", r, v, r ? err : "");
	}
	parse_limit_size("1.5", &(uint64_t){ 0 }, err, sizeof(err));
	eq_str("parse_limit_size message names the value", err,
	       "invalid size '1.5' (not a whole number of bytes)");
	result(parse_limit_size(NULL, &(uint64_t){ 0 }, err, sizeof(err)) < 0, "parse_limit_size(NULL)");
}

static void test_parse_region_mode(void)
{
	char err[GM_ERR_LEN];
	uint32_t v = 99;

	result(parse_region("vram", &v, err, sizeof(err)) == 0 && v == GPUMEM_REGION_VRAM, "region vram");
	result(parse_region("GTT", &v, err, sizeof(err)) == 0 && v == GPUMEM_REGION_GTT, "region GTT");
	result(parse_region("system", &v, err, sizeof(err)) == 0 && v == GPUMEM_REGION_SYSTEM,
	       "region system");
	result(parse_region("other", &v, err, sizeof(err)) == 0 && v == GPUMEM_REGION_OTHER,
	       "region other");
	result(parse_region("lmem", &v, err, sizeof(err)) < 0, "region lmem rejected");
	eq_str("region message", err, "invalid region 'lmem' (vram, gtt, system or other)");
	result(parse_region("", &v, err, sizeof(err)) < 0, "empty region rejected");
	result(parse_mode("enforce", &v, err, sizeof(err)) == 0 && v == GPUMEM_LIMIT_MODE_ENFORCE,
	       "mode enforce");
	result(parse_mode("Monitor", &v, err, sizeof(err)) == 0 && v == GPUMEM_LIMIT_MODE_MONITOR,
	       "mode Monitor");
	result(parse_mode("warn", &v, err, sizeof(err)) < 0, "mode warn rejected");
	eq_str("mode message", err, "invalid mode 'warn' (enforce or monitor)");
}

static void test_parse_device(void)
{
	static const struct { const char *s; int ok, by_id; uint32_t id; const char *name; } t[] = {
		{ "card0", 1, 1, 0, "" }, { "card12", 1, 1, 12, "" }, { "3", 1, 1, 3, "" },
		{ "0000:00:02.0", 1, 0, 0, "0000:00:02.0" },
		{ "00:02.0", 1, 0, 0, "0000:00:02.0" },
		{ "0000:0A:1f.7", 1, 0, 0, "0000:0a:1f.7" },
		{ "1:3:0.1", 1, 0, 0, "0001:03:00.1" },
		{ "vgem", 1, 0, 0, "vgem" },
		{ "card", 0, 0, 0, "" }, { "cardx", 0, 0, 0, "" }, { "card-1", 0, 0, 0, "" },
		{ "", 0, 0, 0, "" }, { "a b", 0, 0, 0, "" }, { "x\ty", 0, 0, 0, "" },
	};
	char err[GM_ERR_LEN], what[80];
	struct dev_spec spec;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		int r = parse_device(t[i].s, &spec, err, sizeof(err)), ok;

		if (!t[i].ok)
			ok = r < 0 && err[0];
		else if (t[i].by_id)
			ok = r == 0 && spec.by_id && spec.id == t[i].id;
		else
			ok = r == 0 && !spec.by_id && strcmp(spec.name, t[i].name) == 0;
		snprintf(what, sizeof(what), "parse_device('%s') %s", t[i].s,
			 t[i].ok ? "accepted" : "rejected");
		result(ok, "%s", what);
	}
}

static void test_resolve_device(void)
{
	struct gm_dev v[3] = {
		{ .id = 0, .name = "card0", .driver = "qxl", .unique = "0000:00:02.0" },
		{ .id = 1, .name = "card1", .driver = "bochs-drm", .unique = "0000:00:03.0" },
		{ .id = 2, .name = "card2", .driver = "vgem", .unique = "vgem" },
	};
	struct gm_dev_list l = { .v = v, .n = 3, .cap = 3 };
	struct gm_dev_list none = { 0 };
	char err[GM_ERR_LEN];
	struct dev_spec spec;
	uint32_t id = 99;

	parse_device("card1", &spec, err, sizeof(err));
	result(resolve_device(&spec, "card1", &l, &id, err, sizeof(err)) == 0 && id == 1,
	       "resolve card1");
	parse_device("2", &spec, err, sizeof(err));
	result(resolve_device(&spec, "2", &l, &id, err, sizeof(err)) == 0 && id == 2, "resolve 2");
	parse_device("00:03.0", &spec, err, sizeof(err));
	result(resolve_device(&spec, "00:03.0", &l, &id, err, sizeof(err)) == 0 && id == 1,
	       "resolve short PCI address");
	parse_device("0000:00:02.0", &spec, err, sizeof(err));
	result(resolve_device(&spec, "0000:00:02.0", &l, &id, err, sizeof(err)) == 0 && id == 0,
	       "resolve PCI address");
	parse_device("vgem", &spec, err, sizeof(err));
	result(resolve_device(&spec, "vgem", &l, &id, err, sizeof(err)) == 0 && id == 2,
	       "resolve bus id");
	parse_device("card9", &spec, err, sizeof(err));
	result(resolve_device(&spec, "card9", &l, &id, err, sizeof(err)) < 0, "card9 unknown");
	eq_str("unknown device message lists devices", err,
	       "unknown device 'card9' (devices: card0 card1 card2)");
	parse_device("0000:00:09.0", &spec, err, sizeof(err));
	result(resolve_device(&spec, "0000:00:09.0", &l, &id, err, sizeof(err)) < 0,
	       "unknown PCI address");
	parse_device("card0", &spec, err, sizeof(err));
	result(resolve_device(&spec, "card0", &none, &id, err, sizeof(err)) < 0,
	       "no devices at all");
}

static void test_resolve_cgroup(void)
{
	char err[GM_ERR_LEN], root[256], tmpd[] = "/tmp/gpumemctl-test.XXXXXX";
	struct stat st;
	uint64_t id = 0;

	result(resolve_cgroup("/proc", "/sys/fs/cgroup", &id, err, sizeof(err)) < 0 &&
	       strstr(err, "not a cgroup v2 directory"), "cgroup: /proc is not cgroup2");
	result(resolve_cgroup("/nonexistent-gm", "/sys/fs/cgroup", &id, err, sizeof(err)) < 0 &&
	       strstr(err, "no such cgroup"), "cgroup: missing path");
	result(resolve_cgroup("", "/sys/fs/cgroup", &id, err, sizeof(err)) < 0,
	       "cgroup: empty path");
	if (mkdtemp(tmpd)) {
		result(resolve_cgroup(tmpd, "/sys/fs/cgroup", &id, err, sizeof(err)) < 0 &&
		       strstr(err, "not a cgroup v2 directory"), "cgroup: a tmp directory");
		result(resolve_cgroup("sub", tmpd, &id, err, sizeof(err)) < 0 &&
		       strstr(err, "no such cgroup"), "cgroup: relative, missing");
		rmdir(tmpd);
	}
	result(resolve_cgroup("/etc/passwd", "/sys/fs/cgroup", &id, err, sizeof(err)) < 0,
	       "cgroup: a regular file");

	cgroup2_root(root, sizeof(root));
	if (stat(root, &st) < 0 ||
	    resolve_cgroup(root, root, &id, err, sizeof(err)) < 0) {
		skip("cgroup2 resolution", "no cgroup2 mount on this host");
		return;
	}
	eq_u64("cgroup: the cgroup2 root's id is its inode", id, st.st_ino);
	id = 0;
	result(resolve_cgroup("/", root, &id, err, sizeof(err)) == 0 && id == st.st_ino,
	       "cgroup: '/' is the root cgroup");
}

/* --- reply parsers: messages built as the kernel builds them ----------- */

static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, 0x20, 0, NLM_F_MULTI, cmd, GPUMEM_FAMILY_VERSION);
	return m;
}

/* nla_put_u64_64bit: a zero-length pad attribute may come first */
static void put_u64_pad(struct nl_msg *m, int type, uint64_t v, int pad)
{
	nla_put(m, pad, 0, NULL);
	nla_put_u64(m, type, v);
}

/* the list free functions free the array too: one element is freed here */
static void free_dev(struct gm_dev *d)
{
	free(d->name);
	free(d->driver);
	free(d->unique);
	free(d->regions);
	free(d->desc);
}

static void test_parse_replies(void)
{
	struct nl_msg *m;
	struct nlattr *n;
	struct gm_dev d;
	struct gm_proc p;
	struct gm_buf b;
	struct gm_stats s;
	int r;

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_u32(m, GPUMEM_A_DEV_ID, 1);
	nla_put_string(m, GPUMEM_A_DEV_NAME, "card1");
	nla_put_string(m, GPUMEM_A_DEV_DRIVER, "qxl");
	nla_put_string(m, GPUMEM_A_DEV_UNIQUE, "0000:00:02.0");
	nla_put_u8(m, GPUMEM_A_DEV_TTM, 1);
	n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
	nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, GPUMEM_REGION_VRAM);
	put_u64_pad(m, GPUMEM_A_DEV_REGION_CAPACITY, 134209536, GPUMEM_A_DEV_REGION_PAD);
	put_u64_pad(m, GPUMEM_A_DEV_REGION_USED, 4194304, GPUMEM_A_DEV_REGION_PAD);
	nla_nest_end(m, n);
	n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
	nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, GPUMEM_REGION_SYSTEM);
	nla_nest_end(m, n);
	nla_put_u32(m, 200, 7);	/* an attribute from a newer kernel */
	r = gm_parse_dev(m, &d);
	result(r == 0, "parse dev reply");
	if (r == 0) {
		eq_u64("dev id", d.id, 1);
		eq_str("dev name", d.name, "card1");
		eq_str("dev driver", d.driver, "qxl");
		eq_str("dev unique", d.unique, "0000:00:02.0");
		eq_u64("dev ttm", d.ttm, 1);
		eq_u64("dev regions", d.nregions, 2);
		if (d.nregions == 2) {
			eq_u64("region 0 is vram", d.regions[0].region, GPUMEM_REGION_VRAM);
			eq_u64("vram capacity", d.regions[0].capacity, 134209536);
			eq_u64("vram used", d.regions[0].used, 4194304);
			result(d.regions[0].has_capacity && d.regions[0].has_used, "vram values known");
			result(d.regions[1].region == GPUMEM_REGION_SYSTEM &&
			       !d.regions[1].has_capacity && !d.regions[1].has_used,
			       "system region without values (non-TTM)");
		}
		free_dev(&d);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_string(m, GPUMEM_A_DEV_NAME, "card1");
	result(gm_parse_dev(m, &d) == -EPROTO, "dev reply without id: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_DEV_GET);
	nla_put_u16(m, GPUMEM_A_DEV_ID, 1);	/* too short for NLA_U32 */
	result(gm_parse_dev(m, &d) == -EPROTO, "dev id of the wrong size: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 812);
	nla_put_string(m, GPUMEM_A_PROC_COMM, "gm sp\tace");
	put_u64_pad(m, GPUMEM_A_PROC_CGROUP_ID, 4711, GPUMEM_A_PROC_PAD);
	nla_put_string(m, GPUMEM_A_PROC_CGROUP_PATH, "/test/a");
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 0);
	for (r = 0; r < GM_NREGIONS + 1; r++) {	/* + an unknown region */
		n = nla_nest_start(m, GPUMEM_A_PROC_USAGE);
		nla_put_u32(m, GPUMEM_A_USAGE_REGION, (uint32_t)r);
		put_u64_pad(m, GPUMEM_A_USAGE_BYTES, 1000u * (unsigned)(r + 1), GPUMEM_A_USAGE_PAD);
		nla_nest_end(m, n);
	}
	put_u64_pad(m, GPUMEM_A_PROC_SHARED, 11, GPUMEM_A_PROC_PAD);
	put_u64_pad(m, GPUMEM_A_PROC_OWNED, 22, GPUMEM_A_PROC_PAD);
	nla_put_u32(m, GPUMEM_A_PROC_BOS, 3);
	r = gm_parse_proc(m, &p);
	result(r == 0, "parse proc reply");
	if (r == 0) {
		eq_u64("proc pid", p.pid, 812);
		eq_str("proc comm", p.comm, "gm sp\tace");
		result(p.has_cgroup_id && p.cgroup_id == 4711, "proc cgroup id");
		eq_str("proc cgroup", p.cgroup, "/test/a");
		eq_u64("proc vram", p.usage[GPUMEM_REGION_VRAM], 1000);
		eq_u64("proc gtt", p.usage[GPUMEM_REGION_GTT], 2000);
		eq_u64("proc system", p.usage[GPUMEM_REGION_SYSTEM], 3000);
		eq_u64("proc other", p.usage[GPUMEM_REGION_OTHER], 4000);
		eq_u64("proc shared", p.shared, 11);
		eq_u64("proc owned", p.owned, 22);
		eq_u64("proc bos", p.bos, 3);
		free(p.comm);
		free(p.cgroup);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 0);
	nla_put_string(m, GPUMEM_A_PROC_COMM, "[kernel]");
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 2);
	r = gm_parse_proc(m, &p);
	result(r == 0 && p.pid == 0 && !p.cgroup && !p.has_cgroup_id,
	       "proc reply without cgroup: path NULL");
	if (r == 0) {
		free(p.comm);
		free(p.cgroup);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_PROC_GET);
	nla_put_u32(m, GPUMEM_A_PROC_PID, 1);
	nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, 0);
	nla_put(m, GPUMEM_A_PROC_COMM, 3, "abc");	/* not NUL-terminated */
	result(gm_parse_proc(m, &p) == -EPROTO, "unterminated comm: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_BUF_GET);
	nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, 0);
	nla_put_u32(m, GPUMEM_A_BUF_OWNER, 812);
	nla_put_u32(m, GPUMEM_A_BUF_HANDLE, 2);
	put_u64_pad(m, GPUMEM_A_BUF_SIZE, 1048576, GPUMEM_A_BUF_PAD);
	nla_put_u32(m, GPUMEM_A_BUF_REGION, GPUMEM_REGION_VRAM);
	nla_put_u32(m, GPUMEM_A_BUF_MEM_TYPE, 2);
	nla_put_u8(m, GPUMEM_A_BUF_SHARED, 1);
	nla_put_u32(m, GPUMEM_A_BUF_HOLDER, 812);
	nla_put_u32(m, GPUMEM_A_BUF_HOLDER, 815);
	r = gm_parse_buf(m, &b);
	result(r == 0, "parse buf reply");
	if (r == 0) {
		result(b.owner == 812 && b.handle == 2 && b.size == 1048576 &&
		       b.region == GPUMEM_REGION_VRAM && b.has_mem_type && b.mem_type == 2 &&
		       b.shared, "buf fields");
		result(b.nholders == 2 && b.holders[0] == 812 && b.holders[1] == 815,
		       "buf holders in order");
		free(b.holders);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_BUF_GET);
	nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, 2);
	nla_put_u32(m, GPUMEM_A_BUF_OWNER, 9);
	nla_put_u32(m, GPUMEM_A_BUF_HANDLE, 1);
	r = gm_parse_buf(m, &b);
	result(r == 0 && !b.has_mem_type && !b.shared && b.nholders == 0,
	       "non-TTM buf: no mem_type");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_STATS_GET);
	put_u64_pad(m, GPUMEM_A_STATS_WALKS, 12, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_WALKS_FAILED, 1, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_NS, 1234567, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_CLIENTS, 4, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_BOS, 100, GPUMEM_A_STATS_PAD);
	put_u64_pad(m, GPUMEM_A_STATS_LAST_WALK_SKIPPED, 7, GPUMEM_A_STATS_PAD);
	nla_put_u32(m, GPUMEM_A_STATS_DEVICES, 3);
	r = gm_parse_stats(m, &s);
	result(r == 0 && s.walks == 12 && s.walks_failed == 1 && s.last_walk_ns == 1234567 &&
	       s.last_walk_clients == 4 && s.last_walk_bos == 100 && s.last_walk_skipped == 7 &&
	       s.devices == 3,
	       "parse stats reply");
	nlmsg_free(m);

	eq_str("region names", gm_region_name(GPUMEM_REGION_OTHER), "other");
	result(gm_region_name(GPUMEM_REGION_MAX + 1) == NULL, "unknown region has no name");
	eq_str("attribute names for errors", gm_attr_name(GPUMEM_CMD_BUF_GET, GPUMEM_A_BUF_OWNER),
	       "owner (the pid)");
}

static void test_parse_quota_replies(void)
{
	struct nl_msg *m;
	struct gm_limit l;
	struct gm_event e;
	int r;

	m = reply(GPUMEM_CMD_LIMIT_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 4711, GPUMEM_A_LIMIT_PAD);
	nla_put_string(m, GPUMEM_A_LIMIT_CGROUP_PATH, "/kubepods.slice/pod1");
	nla_put_u32(m, GPUMEM_A_LIMIT_DEV_ID, 1);
	nla_put_u32(m, GPUMEM_A_LIMIT_REGION, GPUMEM_REGION_GTT);
	put_u64_pad(m, GPUMEM_A_LIMIT_MAX_BYTES, UINT64_MAX, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_HIGH_BYTES, 1, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MODE, GPUMEM_LIMIT_MODE_MONITOR);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 12345, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_DENIED, 7, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, 200, 1);	/* newer kernel */
	r = gm_parse_limit(m, &l);
	result(r == 0, "parse limit reply");
	if (r == 0) {
		result(l.cgroup_id == 4711 && l.has_dev && l.dev_id == 1 &&
		       l.region == GPUMEM_REGION_GTT && l.has_max && l.max == UINT64_MAX &&
		       l.has_high && l.high == 1 && l.has_mode && l.mode == GPUMEM_LIMIT_MODE_MONITOR &&
		       l.has_usage && l.usage == 12345 && l.has_denied && l.denied == 7,
		       "limit fields");
		eq_str("limit cgroup path", l.cgroup, "/kubepods.slice/pod1");
		gm_limit_free(&l);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_CGROUP_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 9, GPUMEM_A_LIMIT_PAD);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 4096, GPUMEM_A_LIMIT_PAD);
	r = gm_parse_limit(m, &l);
	result(r == 0 && !l.has_dev && l.region == GPUMEM_REGION_VRAM && !l.has_max &&
	       !l.has_high && !l.has_mode && !l.has_denied && l.has_usage && !l.cgroup,
	       "cgroup row without device, region, limit: all devices, vram, no limit");
	gm_limit_free(&l);
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_CGROUP_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_USAGE, 4096, GPUMEM_A_LIMIT_PAD);
	result(gm_parse_limit(m, &l) == -EPROTO, "limit reply without cgroup id: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_LIMIT_GET);
	put_u64_pad(m, GPUMEM_A_LIMIT_CGROUP_ID, 9, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MAX_BYTES, 5);	/* too short for NLA_U64 */
	result(gm_parse_limit(m, &l) == -EPROTO, "limit max of the wrong size: -EPROTO");
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED);
	put_u64_pad(m, GPUMEM_A_EVENT_SEQ, 42, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_CGROUP_ID, 4711, GPUMEM_A_EVENT_PAD);
	nla_put_string(m, GPUMEM_A_EVENT_CGROUP_PATH, "/a");
	nla_put_u32(m, GPUMEM_A_EVENT_PID, 812);
	nla_put_string(m, GPUMEM_A_EVENT_COMM, "x");
	nla_put_u32(m, GPUMEM_A_EVENT_DEV_ID, 0);
	nla_put_u32(m, GPUMEM_A_EVENT_REGION, GPUMEM_REGION_VRAM);
	put_u64_pad(m, GPUMEM_A_EVENT_REQUESTED, 1, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_USAGE, 2, GPUMEM_A_EVENT_PAD);
	put_u64_pad(m, GPUMEM_A_EVENT_LIMIT, 3, GPUMEM_A_EVENT_PAD);
	nla_put_u32(m, GPUMEM_A_EVENT_MODE, GPUMEM_LIMIT_MODE_ENFORCE);
	nla_put_u8(m, GPUMEM_A_EVENT_DENIED, 1);
	put_u64_pad(m, GPUMEM_A_EVENT_SUPPRESSED, 5, GPUMEM_A_EVENT_PAD);
	r = gm_parse_event(m, &e);
	result(r == 0, "parse event");
	if (r == 0) {
		result(e.has_type && e.type == GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED && e.has_seq &&
		       e.seq == 42 && e.has_cgroup_id && e.cgroup_id == 4711 && e.has_pid &&
		       e.pid == 812 && e.has_dev_id && e.dev_id == 0 && e.has_region &&
		       e.has_requested && e.requested == 1 && e.has_usage && e.usage == 2 &&
		       e.has_limit && e.limit == 3 && e.has_mode && e.has_denied && e.denied &&
		       e.suppressed == 5, "event fields");
		eq_str("event cgroup", e.cgroup, "/a");
		eq_str("event comm", e.comm, "x");
		gm_event_free(&e);
	}
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD);
	r = gm_parse_event(m, &e);
	result(r == 0 && !e.has_seq && !e.has_pid && !e.has_cgroup_id && !e.cgroup && !e.comm &&
	       !e.has_denied && !e.denied && e.suppressed == 0, "event with the type only");
	gm_event_free(&e);
	nlmsg_free(m);

	m = reply(GPUMEM_CMD_QUOTA_EVENT);
	nla_put_u32(m, GPUMEM_A_EVENT_DENIED, 1);	/* NLA_U8 takes 4 bytes, but ... */
	nla_put(m, GPUMEM_A_EVENT_COMM, 2, "ab");	/* ... an unterminated string fails */
	result(gm_parse_event(m, &e) == -EPROTO, "event with an unterminated comm: -EPROTO");
	nlmsg_free(m);

	eq_str("mode names", gm_mode_name(GPUMEM_LIMIT_MODE_MONITOR), "monitor");
	result(gm_mode_name(7) == NULL, "unknown mode has no name");
	eq_str("event type names", gm_event_type_name(GPUMEM_EVENT_TYPE_HIGH_CROSSED), "high-crossed");
	result(gm_event_type_name(9) == NULL, "unknown event type has no name");
	eq_str("attribute names of limit requests",
	       gm_attr_name(GPUMEM_CMD_LIMIT_SET, GPUMEM_A_LIMIT_MAX_BYTES), "max-bytes");
}

/* --- limits and events as text -------------------------------------------- */

static void test_quota_output(void)
{
	struct gm_limit v[3] = {
		{ .cgroup_id = 4711, .cgroup = "/test/a", .region = GPUMEM_REGION_VRAM,
		  .has_max = true, .max = 64 << 20, .has_high = true, .high = 48 << 20,
		  .has_mode = true, .mode = GPUMEM_LIMIT_MODE_ENFORCE, .has_usage = true,
		  .usage = 16 << 20, .has_denied = true, .denied = 2 },
		{ .cgroup_id = 4712, .cgroup = "/x\ty", .has_dev = true, .dev_id = 2,
		  .region = 7, .has_usage = true, .usage = 1000 },
		{ .cgroup_id = 99, .has_dev = true, .dev_id = 0, .region = GPUMEM_REGION_GTT,
		  .has_high = true, .high = 1, .has_mode = true, .mode = 5 },
	};
	struct gm_limit_list l = { .v = v, .n = 3, .cap = 3 };
	struct timespec when = { .tv_sec = 1763774645, .tv_nsec = 123456789 };
	struct gm_event e = {
		.has_type = true, .type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, .has_seq = true,
		.seq = 42, .has_cgroup_id = true, .cgroup_id = 4711, .cgroup = "/kubepods.slice/pod1",
		.has_pid = true, .pid = 812, .comm = "py\033[2J", .has_dev_id = true, .dev_id = 1,
		.has_region = true, .region = GPUMEM_REGION_VRAM, .has_requested = true,
		.requested = 4 << 20, .has_usage = true, .usage = 62 << 20, .has_limit = true,
		.limit = 64 << 20, .has_mode = true, .mode = GPUMEM_LIMIT_MODE_ENFORCE,
		.has_denied = true, .denied = true, .suppressed = 3,
	};
	struct gm_event t = {
		.has_type = true, .type = GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD, .has_seq = true,
		.seq = 43, .has_dev_id = true, .dev_id = 0, .has_region = true,
		.region = GPUMEM_REGION_VRAM, .has_usage = true, .usage = 1536,
		.has_limit = true, .limit = 1024,
	};
	struct gm_event bare = { .has_type = true, .type = 12 };
	struct gm_seq seq = { 0 };
	uint64_t first = 0;
	struct mem m;
	char *out;

	setenv("TZ", "UTC", 1);
	tzset();

	gm_limits_table(mem_open(&m), &l, false);
	out = mem_close(&m);
	eq_str("limits table: device all, '-' for what is not set, escaped path, id without path", out,
	       "DEVICE  REGION     USAGE       MAX      HIGH   USE%  MODE     DENIED  CGROUP\n"
	       "all     vram    16.0 MiB  64.0 MiB  48.0 MiB  25.0%  enforce       2  /test/a\n"
	       "card2   7         1000 B         -         -      -  -             -  /x\\011y\n"
	       "card0   gtt            -         -       1 B      -  5             -  (id 99)\n");
	free(out);
	gm_limits_table(mem_open(&m), &l, true);
	out = mem_close(&m);
	result(strstr(out, "all     vram    16777216  67108864  50331648  25.0%") != NULL,
	       "limits table --bytes");
	free(out);

	gm_limits_json(mem_open(&m), &l);
	out = mem_close(&m);
	eq_str("limits JSON", out,
	       "[\n"
	       "{\"cgroup_id\":4711,\"cgroup\":\"/test/a\",\"device\":\"all\",\"region\":\"vram\",\"usage\":16777216,\"max\":67108864,\"high\":50331648,\"mode\":\"enforce\",\"denied\":2},\n"
	       "{\"cgroup_id\":4712,\"cgroup\":\"/x\\ty\",\"device\":\"card2\",\"region\":\"7\",\"usage\":1000,\"max\":null,\"high\":null,\"mode\":null,\"denied\":null},\n"
	       "{\"cgroup_id\":99,\"cgroup\":null,\"device\":\"card0\",\"region\":\"gtt\",\"usage\":null,\"max\":null,\"high\":1,\"mode\":\"5\",\"denied\":null}\n"
	       "]\n");
	free(out);
	l.n = 0;
	gm_limits_json(mem_open(&m), &l);
	out = mem_close(&m);
	eq_str("no limits: []", out, "[]\n");
	free(out);

	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	eq_str("event line (quota-exceeded, escaped comm)", out,
	       "2025-11-22 01:24:05 quota-exceeded cgroup /kubepods.slice/pod1 pid 812 (py\\033[2J) "
	       "card1 vram: requested 4.0 MiB, usage 62.0 MiB, max 64.0 MiB; denied (enforce); "
	       "3 suppressed\n");
	free(out);
	gm_event_line(mem_open(&m), &e, &when, true);
	out = mem_close(&m);
	result(strstr(out, "requested 4194304, usage 65011712, max 67108864;") != NULL,
	       "event line --bytes");
	free(out);
	e.type = GPUMEM_EVENT_TYPE_HIGH_CROSSED;
	e.denied = false;
	e.suppressed = 0;
	e.mode = GPUMEM_LIMIT_MODE_MONITOR;
	e.cgroup = NULL;
	e.comm = NULL;
	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	eq_str("event line (high-crossed, no path, no comm)", out,
	       "2025-11-22 01:24:05 high-crossed cgroup (id 4711) pid 812 card1 vram: requested "
	       "4.0 MiB, usage 62.0 MiB, high 64.0 MiB; allowed (monitor)\n");
	free(out);
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	eq_str("event line (device-threshold)", out,
	       "2025-11-22 01:24:05 device-threshold card0 vram: usage 1.5 KiB, threshold 1.0 KiB\n");
	free(out);
	t.denied = true;
	t.has_denied = true;
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	result(strstr(out, "threshold 1.0 KiB; denied\n") != NULL,
	       "event line: another event type says denied when it was");
	free(out);
	t.denied = false;
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	result(strstr(out, "threshold 1.0 KiB\n") != NULL, "... and nothing when it was allowed");
	free(out);
	t.has_denied = false;
	e.dev_id = UINT32_MAX;	/* set below the usage, on all devices */
	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	result(strstr(out, " all-devices vram: ") != NULL, "event line: dev-id (u32)-1 is all devices");
	free(out);
	gm_event_json(mem_open(&m), &e, &when, 0);
	out = mem_close(&m);
	result(strstr(out, "\"device\":\"all\",") != NULL, "event JSON: dev-id (u32)-1 is \"all\"");
	free(out);
	e.dev_id = 1;
	gm_event_line(mem_open(&m), &bare, &when, false);
	out = mem_close(&m);
	eq_str("event line (an unknown type, nothing else)", out, "2025-11-22 01:24:05 event-12\n");
	free(out);

	gm_event_json(mem_open(&m), &t, &when, 2);
	out = mem_close(&m);
	eq_str("event JSON (device-threshold: nulls, missed)", out,
	       "{\"time\":\"2025-11-22T01:24:05.123Z\",\"seq\":43,\"type\":\"device-threshold\","
	       "\"cgroup_id\":null,\"cgroup\":null,\"pid\":null,\"comm\":null,\"device\":\"card0\","
	       "\"region\":\"vram\",\"requested\":null,\"usage\":1536,\"limit\":1024,\"mode\":null,"
	       "\"denied\":null,\"suppressed\":0,\"missed\":2}\n");
	free(out);
	e.comm = "a\"b";
	e.usage = UINT64_MAX;
	gm_event_json(mem_open(&m), &e, &when, 0);
	out = mem_close(&m);
	result(strstr(out, "\"comm\":\"a\\\"b\"") && strstr(out, "\"usage\":18446744073709551615,") &&
	       strstr(out, "\"denied\":false,\"suppressed\":0,\"missed\":0}\n"),
	       "event JSON: escaped comm, exact u64, denied false");
	free(out);

	gm_missed_line(mem_open(&m), &when, 1, 7);
	out = mem_close(&m);
	eq_str("missed line, one event", out,
	       "2025-11-22 01:24:05 warning: 1 event missed (seq 7 not received)\n");
	free(out);
	gm_missed_line(mem_open(&m), &when, 3, 7);
	out = mem_close(&m);
	eq_str("missed line, three", out,
	       "2025-11-22 01:24:05 warning: 3 events missed (seq 7 to 9 not received)\n");
	free(out);

	e.seq = 10;
	eq_u64("seq: the first event misses nothing", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 11;
	eq_u64("seq: +1 misses nothing", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 15;
	eq_u64("seq: a gap of 3", gm_seq_next(&seq, &e, &first), 3);
	eq_u64("seq: first missing", first, 12);
	e.seq = 1;
	eq_u64("seq: going back (a reloaded module) is no gap", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 2;
	eq_u64("seq: counting from there", gm_seq_next(&seq, &e, &first), 0);
	e.has_seq = false;
	eq_u64("seq: an event without seq", gm_seq_next(&seq, &e, &first), 0);
	e.has_seq = true;
	e.seq = 3;
	eq_u64("seq: ... leaves the count alone", gm_seq_next(&seq, &e, &first), 0);
	unsetenv("TZ");
	tzset();
}

/* An nlctrl notification as the kernel sends it (CTRL_CMD_NEWFAMILY/DELFAMILY). */
static size_t build_ctrl(char *buf, size_t size, uint8_t cmd, const char *name)
{
	struct nl_msg *m = nlmsg_alloc();
	size_t len;

	genlmsg_put(m, 0, 0, GENL_ID_CTRL, 0, 0, cmd, 2);
	nla_put_u16(m, CTRL_ATTR_FAMILY_ID, 0x20);
	if (name)
		nla_put_string(m, CTRL_ATTR_FAMILY_NAME, name);
	len = nlmsg_hdr(m)->nlmsg_len;
	if (len > size)
		len = size;
	memcpy(buf, nlmsg_hdr(m), len);
	nlmsg_free(m);
	return len;
}

static void test_family_gone(void)
{
	char buf[256];
	size_t len;

	len = build_ctrl(buf, sizeof(buf), CTRL_CMD_DELFAMILY, "gpumem");
	result(gm_nl_family_gone((struct nlmsghdr *)buf, len, "gpumem"), "DELFAMILY gpumem: gone");
	result(!gm_nl_family_gone((struct nlmsghdr *)buf, len, "other"), "DELFAMILY of another family");
	result(!gm_nl_family_gone((struct nlmsghdr *)buf, NLMSG_HDRLEN + 2, "gpumem"),
	       "DELFAMILY cut short: not taken");
	len = build_ctrl(buf, sizeof(buf), CTRL_CMD_NEWFAMILY, "gpumem");
	result(!gm_nl_family_gone((struct nlmsghdr *)buf, len, "gpumem"), "NEWFAMILY: not gone");
	len = build_ctrl(buf, sizeof(buf), CTRL_CMD_DELFAMILY, NULL);
	result(!gm_nl_family_gone((struct nlmsghdr *)buf, len, "gpumem"), "DELFAMILY without a name");
	len = build_ctrl(buf, sizeof(buf), CTRL_CMD_DELFAMILY, "gpumem");
	((struct nlmsghdr *)buf)->nlmsg_type = 0x20;
	result(!gm_nl_family_gone((struct nlmsghdr *)buf, len, "gpumem"), "not from nlctrl");
}

/* --- extended ack ------------------------------------------------------ */

/* An NLMSG_ERROR/DONE as the kernel sends it: header, payload, TLVs. */
static size_t build_ack(char *buf, size_t size, int type, int flags, int error,
			size_t echo_payload, const char *msg, int miss_type)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	size_t payload, off;

	memset(buf, 0, size);
	nlh->nlmsg_type = (uint16_t)type;
	nlh->nlmsg_flags = (uint16_t)flags;
	if (type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(nlh);

		e->error = error;
		e->msg.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + echo_payload);
		e->msg.nlmsg_type = 0x20;
		payload = sizeof(*e) + echo_payload;
	} else {
		memcpy(NLMSG_DATA(nlh), &error, sizeof(error));
		payload = sizeof(error);
	}
	off = NLMSG_HDRLEN + NLMSG_ALIGN(payload);
	if (msg) {
		struct nlattr *a = (struct nlattr *)(buf + off);

		a->nla_type = NLMSGERR_ATTR_MSG;
		a->nla_len = (uint16_t)(NLA_HDRLEN + strlen(msg) + 1);
		memcpy((char *)a + NLA_HDRLEN, msg, strlen(msg) + 1);
		off += NLA_ALIGN(a->nla_len);
	}
	if (miss_type >= 0) {
		struct nlattr *a = (struct nlattr *)(buf + off);
		uint32_t v = (uint32_t)miss_type;

		a->nla_type = NLMSGERR_ATTR_MISS_TYPE;
		a->nla_len = NLA_HDRLEN + 4;
		memcpy((char *)a + NLA_HDRLEN, &v, 4);
		off += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = (uint32_t)(msg || miss_type >= 0 ? off : NLMSG_HDRLEN + payload);
	return nlh->nlmsg_len;
}

static void test_ext_ack(void)
{
	char buf[512], msg[GM_NL_MSG_LEN];
	int error, miss;
	size_t len;

	len = build_ack(buf, sizeof(buf), NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, -EINVAL, 0,
			"owner (pid) is required", GPUMEM_A_BUF_OWNER);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) == 0 &&
	       error == EINVAL, "ack: capped error code");
	eq_str("ack: capped extack message", msg, "owner (pid) is required");
	eq_u64("ack: missing attribute type", (uint64_t)miss, GPUMEM_A_BUF_OWNER);

	len = build_ack(buf, sizeof(buf), NLMSG_ERROR, NLM_F_ACK_TLVS, -EPERM, 14,
			"not allowed", -1);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) == 0 &&
	       error == EPERM && miss == -1, "ack: uncapped (request echoed) error");
	eq_str("ack: message after the echoed request", msg, "not allowed");

	len = build_ack(buf, sizeof(buf), NLMSG_ERROR, NLM_F_CAPPED, -ENOENT, 0, NULL, -1);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) == 0 &&
	       error == ENOENT && msg[0] == '\0', "ack: error without TLVs");

	len = build_ack(buf, sizeof(buf), NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS, -EINVAL, 0,
			"dump failed", -1);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) == 0 &&
	       error == EINVAL, "done: dump error code");
	eq_str("done: dump extack message", msg, "dump failed");

	len = build_ack(buf, sizeof(buf), NLMSG_DONE, NLM_F_MULTI, 0, 0, NULL, -1);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) == 0 &&
	       error == 0, "done: success");

	len = build_ack(buf, sizeof(buf), NLMSG_ERROR, NLM_F_CAPPED, -EINVAL, 0, NULL, -1);
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, NLMSG_HDRLEN + 2, &error, msg, sizeof(msg),
			       &miss) == -EINVAL, "ack: truncated message rejected");
	((struct nlmsghdr *)buf)->nlmsg_type = 0x20;
	result(gm_nl_parse_ack((struct nlmsghdr *)buf, len, &error, msg, sizeof(msg), &miss) ==
	       -EINVAL, "ack: not an ack rejected");
}

/* --- the do/dump loop against the kernel's nlctrl family --------------- */

static int count_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0)
		return -EPROTO;
	if (tb[CTRL_ATTR_FAMILY_NAME] && strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), "nlctrl") == 0)
		((int *)arg)[1]++;
	((int *)arg)[0]++;
	return 0;
}

static int fail_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(*(int *)arg)++;
	return -ENOMEM;
}

static void test_live_netlink(void)
{
	struct gm_nl nl = { 0 };
	struct nl_msg *req;
	char longname[64];
	int n[2] = { 0, 0 }, r, calls = 0;

	if (gm_nl_open_family(&nl, "nlctrl") < 0) {
		skip("live netlink", nl.lib_err ? nl.lib_err : "no generic netlink here");
		return;
	}
	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, true);
	r = gm_nl_run(&nl, req, count_cb, n);
	result(r == 0 && n[0] > 0 && n[1] == 1, "dump: all families, nlctrl once (%d)", n[0]);

	n[0] = n[1] = 0;
	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, false);
	nla_put_string(req, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	r = gm_nl_run(&nl, req, count_cb, n);
	result(r == 0 && n[0] == 1 && n[1] == 1, "do: one reply, then the ACK");

	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, false);
	nla_put_string(req, CTRL_ATTR_FAMILY_NAME, "nosuchfam-gm");
	r = gm_nl_run(&nl, req, count_cb, n);
	result(r == -ENOENT && nl.error == ENOENT, "do: kernel error code (%d, %s)", r, strerror(nl.error));

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, false);
	nla_put_string(req, CTRL_ATTR_FAMILY_NAME, longname);
	r = gm_nl_run(&nl, req, count_cb, n);
	result(r < 0 && nl.error != 0, "do: policy violation fails (%s)", strerror(nl.error));
	result(nl.msg[0] != '\0', "do: the kernel's extack message is kept ('%s')", nl.msg);

	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, true);
	r = gm_nl_run(&nl, req, fail_cb, &calls);
	result(r == -ENOMEM && calls == 1, "dump: a callback error stops the calls");
	n[0] = n[1] = 0;
	req = gm_nl_request(&nl, CTRL_CMD_GETFAMILY, true);
	r = gm_nl_run(&nl, req, count_cb, n);
	result(r == 0 && n[1] == 1, "dump: the socket is clean after a failed dump");
	gm_nl_close(&nl);

	/* the event socket, on nlctrl's own "notify" group */
	r = gm_nl_subscribe(&nl, "nlctrl", "notify");
	result(r == 0 && gm_nl_event_fd(&nl) >= 0, "subscribe: nlctrl notify (%s)",
	       r ? strerror(nl.error) : "ok");
	if (r == 0) {
		struct sockaddr_nl to = { .nl_family = AF_NETLINK };
		char buf[256];
		socklen_t alen = sizeof(to);
		size_t len;
		int fd;

		calls = 0;
		r = gm_nl_read_events(&nl, fail_cb, &calls);
		result(r == 0 && calls == 0, "read_events: nothing queued, does not block");
		/* a DELFAMILY "gpumem"... sent by a user space process: ignored */
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		getsockname(gm_nl_event_fd(&nl), (struct sockaddr *)&to, &alen);
		len = build_ctrl(buf, sizeof(buf), CTRL_CMD_DELFAMILY, "nlctrl");
		if (fd >= 0 && sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) ==
		    (ssize_t)len) {
			usleep(10000);
			r = gm_nl_read_events(&nl, fail_cb, &calls);
			result(r == 0 && calls == 0, "read_events: a spoofed DELFAMILY from user space "
			       "is dropped (%d)", r);
		} else {
			skip("spoofed DELFAMILY", strerror(errno));
		}
		if (fd >= 0)
			close(fd);
		gm_nl_close(&nl);
	}
	result(gm_nl_family_present("nlctrl") == 1, "family_present: nlctrl (from a dump)");
	result(gm_nl_family_present("nosuchfam-gm") == 0, "family_present: a missing family");
	r = gm_nl_subscribe(&nl, "nlctrl", "no-such-group");
	result(r == -ENOENT && !nl.no_family, "subscribe: a group the family lacks: ENOENT");

	if (access("/sys/module/gpumem", F_OK) == 0) {
		skip("family missing", "gpumem is loaded on this host");
		return;
	}
	r = gm_nl_open(&nl);
	result(r < 0 && nl.no_family, "gpumem family missing: no_family set");
	r = gm_nl_subscribe(&nl, "gpumem", "events");
	result(r < 0 && nl.no_family, "subscribe: gpumem missing: no_family set");
}

/* --- the command line ----------------------------------------------------- */

struct run { int status; char out[32768], err[4096]; };

static void slurp(int fd, char *buf, size_t size)
{
	size_t o = 0;
	ssize_t n;

	while (o + 1 < size && (n = read(fd, buf + o, size - 1 - o)) > 0)
		o += (size_t)n;
	buf[o] = '\0';
}

static void run_tool_sig(const char *tool, struct run *res, const char *const *args,
			 int sig, unsigned int after_ms);

/* Run the tool with args (NULL-terminated), stdout/stderr to temp files. */
static void run_tool(const char *tool, struct run *res, const char *const *args)
{
	run_tool_sig(tool, res, args, 0, 0);
}

/* The same; with sig, send it to the tool after_ms milliseconds in. */
static void run_tool_sig(const char *tool, struct run *res, const char *const *args,
			 int sig, unsigned int after_ms)
{
	char of[] = "/tmp/gmctl-out.XXXXXX", ef[] = "/tmp/gmctl-err.XXXXXX";
	const char *argv[16] = { tool };
	int ofd = mkstemp(of), efd = mkstemp(ef), st = 0, i;
	pid_t pid;

	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(ofd, 1);
		dup2(efd, 2);
		execv(tool, (char *const *)argv);
		_exit(127);
	}
	if (sig) {
		/* once the tool catches sig (SigCgt), or after 5 s, plus after_ms */
		char path[64], line[256];
		int tries;

		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		for (tries = 0; tries < 500; tries++) {
			FILE *f = fopen(path, "r");
			unsigned long long caught = 0;

			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "SigCgt: %llx", &caught) == 1)
					break;
			if (f)
				fclose(f);
			if (caught & (1ULL << (sig - 1)))
				break;
			usleep(10000);
		}
		usleep(after_ms * 1000);
		kill(pid, sig);
	}
	waitpid(pid, &st, 0);
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	lseek(ofd, 0, SEEK_SET);
	lseek(efd, 0, SEEK_SET);
	slurp(ofd, res->out, sizeof(res->out));
	slurp(efd, res->err, sizeof(res->err));
	close(ofd);
	close(efd);
	unlink(of);
	unlink(ef);
}

static void test_cli(const char *tool)
{
	static const struct { const char *args[6]; const char *needle; } usage[] = {
		{ { NULL }, "no command" },
		{ { "bogus", NULL }, "unknown command 'bogus'" },
		{ { "--bogus", NULL }, "unknown option '--bogus'" },
		{ { "ps", "--bogus", NULL }, "unknown option '--bogus'" },
		{ { "ps", "-x", NULL }, "unknown option '-x'" },
		{ { "ps", "--pid", NULL }, "needs an argument" },
		{ { "ps", "--pid", "abc", NULL }, "invalid pid 'abc'" },
		{ { "ps", "--pid", "4194305", NULL }, "out of range" },
		{ { "ps", "--pid", "-5", NULL }, "out of range" },
		{ { "ps", "--pid", "4194305", NULL }, "out of range" },
		{ { "ps", "--pid=12abc", NULL }, "invalid pid" },
		{ { "ps", "--device", "card", NULL }, "invalid device" },
		{ { "ps", "--cgroup", "/proc", NULL }, "not a cgroup v2 directory" },
		{ { "ps", "--cgroup", "/nonexistent-gm", NULL }, "no such cgroup" },
		{ { "ps", "extra", NULL }, "unexpected argument 'extra'" },
		{ { "buffers", NULL }, "--pid PID is required" },
		{ { "buffers", "-p", "x", NULL }, "invalid pid" },
		{ { "buffers", "-p", "1", "--min-size", "1X", NULL }, "invalid size" },
		{ { "top", "--interval", "0", NULL }, "invalid interval" },
		{ { "top", "--iterations", "0", NULL }, "invalid number of iterations" },
		{ { "top", "--json", NULL }, "no JSON" },
		{ { "export", NULL }, "--prometheus is required" },
		{ { "export", "--prometheus", "--json", NULL }, "--json" },
		{ { "stats", "now", NULL }, "unexpected argument" },
		{ { "help", "bogus", NULL }, "unknown command" },
		{ { "limit", NULL }, "which action?" },
		{ { "limit", "bogus", "/", NULL }, "unknown action 'bogus'" },
		{ { "limit", "set", "/", NULL }, "needs --max SIZE, --high SIZE or both (or --mode" },
		{ { "limit", "set", "/", "--replace", "--mode=monitor", NULL },
		  "needs --max SIZE, --high SIZE or both" },
		{ { "limit", "get", "/", "--replace", NULL }, "go with 'limit set' only" },
		{ { "limit", "set", "--max", "1G", NULL }, "needs a CGROUP" },
		{ { "limit", "get", NULL }, "needs a CGROUP" },
		{ { "limit", "set", "/", "--max", "0" }, "invalid size '0' (must be at least 1 byte)" },
		{ { "limit", "set", "/", "--max", "-1" }, "negative" },
		{ { "limit", "set", "/", "--max", "1.5" }, "not a whole number of bytes" },
		{ { "limit", "set", "/", "--max", "0.3K" }, "not a whole number of bytes" },
		{ { "limit", "set", "/", "--max", "16777216T" }, "too large" },
		{ { "limit", "set", "/", "--max", "lots" }, "invalid size 'lots'" },
		{ { "limit", "set", "/", "--high", "1X" }, "--high: invalid size" },
		{ { "limit", "set", "/", "--max=1G", "--high=2G" }, "--high 2G is more than --max 1G" },
		{ { "limit", "set", "/", "--max=1G", "--mode=warn" }, "invalid mode 'warn'" },
		{ { "limit", "set", "/", "--max=1G", "--region=lmem" }, "invalid region 'lmem'" },
		{ { "limit", "set", "/", "--max=1G", "--region=system" }, "limits apply to vram and gtt only" },
		{ { "limit", "set", "/", "--max=1G", "--region=other" }, "limits apply to vram and gtt only" },
		{ { "limit", "set", "/", "--max=1G", "--device=card" }, "invalid device" },
		{ { "limit", "set", "/nonexistent-gm", "--max=1G", NULL }, "no such cgroup" },
		{ { "limit", "set", "/proc", "--max=1G", NULL }, "not a cgroup v2 directory" },
		{ { "limit", "get", "/", "--max=1G", NULL }, "go with 'limit set' only" },
		{ { "limit", "clear", "/", "--mode=monitor", NULL }, "go with 'limit set' only" },
		{ { "limit", "list", "/", NULL }, "unexpected argument '/'" },
		{ { "limit", "list", "-r", "gtt", NULL }, "do not go with 'limit list'" },
		{ { "limit", "get", "/", "/x", NULL }, "unexpected argument '/x'" },
		{ { "cgroups", "extra", NULL }, "unexpected argument 'extra'" },
		{ { "cgroups", "--device", "card", NULL }, "invalid device" },
		{ { "watch", "--count", "0", NULL }, "invalid count '0'" },
		{ { "watch", "--count", "x", NULL }, "invalid count" },
		{ { "watch", "--timeout", "0", NULL }, "--timeout: invalid interval" },
		{ { "watch", "now", NULL }, "unexpected argument 'now'" },
	};
	static const char *const helps[][3] = {
		{ "--help", NULL }, { "-h", NULL }, { "help", NULL }, { "devices", "--help", NULL },
		{ "ps", "-h", NULL }, { "buffers", "--help", NULL }, { "top", "--help", NULL },
		{ "stats", "--help", NULL }, { "export", "--help", NULL }, { "help", "ps", NULL },
		{ "help", "help", NULL },
		{ "limit", "--help", NULL }, { "help", "limit", NULL }, { "cgroups", "--help", NULL },
		{ "watch", "--help", NULL }, { "help", "watch", NULL },
	};
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(usage) / sizeof(*usage); i++) {
		char what[160], *p = what;
		const char *const *a;

		p += sprintf(p, "cli exit 2:");
		for (a = usage[i].args; *a; a++)
			p += snprintf(p, sizeof(what) - (size_t)(p - what) - 1, " %s", *a);
		run_tool(tool, &r, usage[i].args);
		result(r.status == 2 && strstr(r.err, usage[i].needle) && r.out[0] == '\0',
		       "%s", what);
		if (r.status != 2 || !strstr(r.err, usage[i].needle))
			printf("#   status %d, stderr: %s", r.status, r.err);
	}
	for (i = 0; i < sizeof(helps) / sizeof(*helps); i++) {
		run_tool(tool, &r, helps[i]);
		result(r.status == 0 && strstr(r.out, "Usage: gpumemctl") && r.err[0] == '\0',
		       "cli help: %s %s", helps[i][0], helps[i][1] ? helps[i][1] : "");
	}
	run_tool(tool, &r, (const char *const[]){ "--help", NULL });
	result(strstr(r.out, "3 gpumem module not") != NULL, "cli help lists the exit codes");
	result(strstr(r.out, "  limit set CGROUP") && strstr(r.out, "  watch ") &&
	       strstr(r.out, "  cgroups "), "cli help lists limit, watch, cgroups");
	result(strstr(r.out, "[-H]") && strstr(r.out, "[--replace]") &&
	       !strstr(r.out, "limit set CGROUP --max"),
	       "cli help lists ps -H and limit set --replace, --max optional");
	run_tool(tool, &r, (const char *const[]){ "--version", NULL });
	result(r.status == 0 && strncmp(r.out, "gpumemctl ", 10) == 0, "cli --version");

	if (access("/sys/module/gpumem", F_OK) == 0) {
		skip("cli exit 3", "gpumem is loaded on this host");
		return;
	}
	{
		static const char *const nomod[][5] = {
			{ "devices", NULL }, { "ps", NULL }, { "--json", "ps", "--pid", "1" },
			{ "stats", NULL }, { "buffers", "--pid", "1", NULL },
			{ "export", "--prometheus", NULL }, { "top", "-n", "1", NULL },
			{ "cgroups", NULL }, { "limit", "list", NULL }, { "watch", NULL },
		};

		for (i = 0; i < sizeof(nomod) / sizeof(*nomod); i++) {
			run_tool(tool, &r, nomod[i]);
			result(r.status == 3 && strstr(r.err, "not loaded") && r.out[0] == '\0',
			       "cli exit 3 without the module: %s", nomod[i][0]);
		}
	}
}

/* --- the commands' output, against the simulated kernel ---------------- */

static void run_fake(const char *fake, const char *mode, struct run *r, const char *const *args)
{
	if (mode)
		setenv("GM_FAKE", mode, 1);
	run_tool(fake, r, args);
	unsetenv("GM_FAKE");
}

static void golden(const char *fake, const char *const *args, const char *want)
{
	char what[160], *p = what;
	const char *const *a;
	struct run r;

	p += sprintf(p, "output of");
	for (a = args; *a; a++)
		p += snprintf(p, sizeof(what) - (size_t)(p - what) - 1, " %s", *a);
	run_fake(fake, NULL, &r, args);
	result(r.status == 0 && r.err[0] == '\0', "%s: exit 0, nothing on stderr", what);
	eq_str(what, r.out, want);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_commands(const char *fake)
{
	struct run r;
	int lines = 0, frames = 0;
	const char *p;

	golden(fake, ARGS("devices"),
	       "DEVICE  DRIVER     BUS           PCI-ID     TTM  REGION   CAPACITY      USED      FREE   USE%  DESCRIPTION\n"
	       "card0   qxl        0000:00:02.0  1b36:0100  yes  vram    128.0 MiB  70.0 MiB  58.0 MiB  54.7%  RH QXL\n"
	       "card1   bochs-drm  0000:00:03.0  -          yes  vram     16.0 MiB       0 B  16.0 MiB   0.0%  -\n"
	       "card2   vgem       vgem          -          no   system          -         -         -      -  Virtual GEM provider\n");
	golden(fake, ARGS("devices", "--bytes"),
	       "DEVICE  DRIVER     BUS           PCI-ID     TTM  REGION   CAPACITY      USED      FREE   USE%  DESCRIPTION\n"
	       "card0   qxl        0000:00:02.0  1b36:0100  yes  vram    134209536  73400320  60809216  54.7%  RH QXL\n"
	       "card1   bochs-drm  0000:00:03.0  -          yes  vram     16777216         0  16777216   0.0%  -\n"
	       "card2   vgem       vgem          -          no   system          -         -         -      -  Virtual GEM provider\n");
	golden(fake, ARGS("--json", "devices"),
	       "[\n"
	       "{\"id\":0,\"name\":\"card0\",\"driver\":\"qxl\",\"unique\":\"0000:00:02.0\",\"pci_vendor\":\"1b36\",\"pci_device\":\"0100\",\"description\":\"RH QXL\",\"ttm\":true,\"regions\":[{\"region\":\"vram\",\"capacity\":134209536,\"used\":73400320,\"free\":60809216}]},\n"
	       "{\"id\":1,\"name\":\"card1\",\"driver\":\"bochs-drm\",\"unique\":\"0000:00:03.0\",\"ttm\":true,\"regions\":[{\"region\":\"vram\",\"capacity\":16777216,\"used\":0,\"free\":16777216}]},\n"
	       "{\"id\":2,\"name\":\"card2\",\"driver\":\"vgem\",\"unique\":\"vgem\",\"description\":\"Virtual GEM provider\",\"ttm\":false,\"regions\":[]}\n"
	       "]\n");
	golden(fake, ARGS("ps"),	/* the charged view: vram, gtt, bos */
	       "PID  COMM                   DEVICE      VRAM      GTT  BOS  CGROUP\n"
	       "  0  [kernel]               card0    1.0 MiB      0 B    1  -\n"
	       "812  gpumem-alloc           card0    4.0 MiB      0 B    1  /test/a\n"
	       "815  gm sp\\011ace \"q\" \\134  card0    1.0 MiB      0 B    1  /test/a b\n"
	       "815  gm sp\\011ace \"q\" \\134  card2        0 B      0 B    2  /test/a b\n"
	       "900  big                    card0   64.0 MiB  4.0 KiB    4  /test/a/big\n");
	golden(fake, ARGS("ps", "--json", "--pid", "812"),
	       "[\n"
	       "{\"pid\":812,\"comm\":\"gpumem-alloc\",\"cgroup_id\":4711,\"cgroup\":\"/test/a\",\"device\":\"card0\",\"view\":\"charged\",\"vram\":4194304,\"gtt\":0,\"bos\":1}\n"
	       "]\n");
	run_fake(fake, NULL, &r, ARGS("ps", "--held"));
	result(r.status == 0 &&
	       !strcmp(r.err, "gpumemctl: 2 buffer(s) were busy (reserved by a driver) and are not counted\n"),
	       "ps --held: exit 0, pid 900's busy buffers noted on stderr");
	eq_str("output of ps --held", r.out,
	       "PID  COMM                   DEVICE      VRAM      GTT   SYSTEM  OTHER   SHARED     OWNED  BOS  CGROUP\n"
	       "  0  [kernel]               card0    1.0 MiB      0 B      0 B    0 B      0 B   1.0 MiB    1  -\n"
	       "812  gpumem-alloc           card0    4.0 MiB      0 B      0 B    0 B      0 B   4.0 MiB    1  /test/a\n"
	       "815  gm sp\\011ace \"q\" \\134  card0    1.0 MiB      0 B      0 B    0 B  1.0 MiB       0 B    1  /test/a b\n"
	       "815  gm sp\\011ace \"q\" \\134  card2        0 B      0 B  2.0 MiB    0 B  1.0 MiB   1.0 MiB    2  /test/a b\n"
	       "900  big                    card0   64.0 MiB  4.0 KiB      0 B    0 B      0 B  64.0 MiB    4  /test/a/big\n");
	golden(fake, ARGS("--bytes", "ps", "-H", "--device", "card2"),
	       "PID  COMM                   DEVICE  VRAM  GTT   SYSTEM  OTHER   SHARED    OWNED  BOS  CGROUP\n"
	       "815  gm sp\\011ace \"q\" \\134  card2      0    0  2097152      0  1048576  1048576    2  /test/a b\n");
	golden(fake, ARGS("ps", "-H", "--json", "--pid", "815", "--device", "00:02.0"),
	       "[\n"
	       "{\"pid\":815,\"comm\":\"gm sp\\tace \\\"q\\\" \\\\\",\"cgroup_id\":4712,\"cgroup\":\"/test/a b\",\"device\":\"card0\",\"view\":\"held\",\"vram\":1048576,\"gtt\":0,\"system\":0,\"other\":0,\"shared\":1048576,\"owned\":0,\"bos\":1,\"skipped\":0}\n"
	       "]\n");
	golden(fake, ARGS("ps", "--pid", "0"),	/* pid 0: the in-kernel clients */
	       "PID  COMM      DEVICE     VRAM  GTT  BOS  CGROUP\n"
	       "  0  [kernel]  card0   1.0 MiB  0 B    1  -\n");
	run_fake(fake, NULL, &r, ARGS("buffers", "-p", "4194303"));
	result(r.status == 1 && r.out[0] == '\0' &&
	       !strcmp(r.err, "gpumemctl: buffers: no process 4194303\n"),
	       "buffers -p of a pid that does not exist: exit 1, says so");
	golden(fake, ARGS("ps", "--json", "--pid", "1"), "[]\n");
	golden(fake, ARGS("ps", "-j", "-p", "1"), "[]\n");
	golden(fake, ARGS("ps", "--held", "--json", "--pid", "812"),
	       "[\n"
	       "{\"pid\":812,\"comm\":\"gpumem-alloc\",\"cgroup_id\":4711,\"cgroup\":\"/test/a\",\"device\":\"card0\",\"view\":\"held\",\"vram\":4194304,\"gtt\":0,\"system\":0,\"other\":0,\"shared\":0,\"owned\":4194304,\"bos\":1,\"skipped\":0}\n"
	       "]\n");
	golden(fake, ARGS("ps", "--held", "--json", "--pid", "900"),
	       "[\n"
	       "{\"pid\":900,\"comm\":\"big\",\"cgroup_id\":4713,\"cgroup\":\"/test/a/big\",\"device\":\"card0\",\"view\":\"held\",\"vram\":67108864,\"gtt\":4096,\"system\":0,\"other\":0,\"shared\":0,\"owned\":67108864,\"bos\":4,\"skipped\":2}\n"
	       "]\n");
	run_fake(fake, NULL, &r, ARGS("ps", "--held", "--pid", "900"));
	result(r.status == 0 && strstr(r.out, "900  big") &&
	       !strcmp(r.err, "gpumemctl: 2 buffer(s) were busy (reserved by a driver) and are not counted\n"),
	       "ps --held: busy buffers are noted on stderr");
	run_fake(fake, NULL, &r, ARGS("ps", "--held", "--pid", "812"));
	result(r.status == 0 && r.err[0] == '\0', "ps --held: no note without busy buffers");
	run_fake(fake, NULL, &r, ARGS("ps", "--json"));
	p = "[\n{\"pid\":0,\"comm\":\"[kernel]\",\"cgroup_id\":0,\"cgroup\":null,\"device\":\"card0\",\"view\":\"charged\",\"vram\":1048576,";
	result(r.status == 0 && strncmp(r.out, p, strlen(p)) == 0,
	       "ps --json: kernel clients first, cgroup_id 0, cgroup null");
	golden(fake, ARGS("buffers", "-p", "812"),	/* held: its own and one of 815's */
	       "DEVICE  OWNER  HANDLE     SIZE  REGION  MEM_TYPE  SHARED  HOLDERS\n"
	       "card0     812       1  4.0 MiB  vram           2  no      812\n"
	       "card0     815       1  1.0 MiB  vram           2  yes     815,812\n"
	       "2 buffers, 5.0 MiB\n");
	golden(fake, ARGS("buffers", "-p", "815"),
	       "DEVICE  OWNER  HANDLE      SIZE  REGION  MEM_TYPE  SHARED  HOLDERS\n"
	       "card0     815       1   1.0 MiB  vram           2  yes     815,812\n"
	       "card2     815       1   1.0 MiB  system         -  yes     815,900\n"
	       "card2     815       2  64.0 KiB  system         -  no      815\n"
	       "3 buffers, 2.1 MiB\n");
	golden(fake, ARGS("buffers", "--pid", "815", "--device", "vgem", "--min-size", "100K", "--bytes"),
	       "DEVICE  OWNER  HANDLE     SIZE  REGION  MEM_TYPE  SHARED  HOLDERS\n"
	       "card2     815       1  1048576  system         -  yes     815,900\n"
	       "1 buffer, 1048576 bytes\n");
	golden(fake, ARGS("buffers", "--json", "-p", "815"),
	       "[\n"
	       "{\"device\":\"card0\",\"owner\":815,\"handle\":1,\"size\":1048576,\"region\":\"vram\",\"mem_type\":2,\"shared\":true,\"holders\":[815,812]},\n"
	       "{\"device\":\"card2\",\"owner\":815,\"handle\":1,\"size\":1048576,\"region\":\"system\",\"mem_type\":null,\"shared\":true,\"holders\":[815,900]},\n"
	       "{\"device\":\"card2\",\"owner\":815,\"handle\":2,\"size\":65536,\"region\":\"system\",\"mem_type\":null,\"shared\":false,\"holders\":[815]}\n"
	       "]\n");
	golden(fake, ARGS("stats"),
	       "NAME               VALUE\n"
	       "walks              12\n"
	       "walks_failed       0\n"
	       "last_walk_ns       1234567 (1.2 ms)\n"
	       "last_walk_clients  4\n"
	       "last_walk_bos      100\n"
	       "last_walk_skipped  2\n"
	       "devices            3\n");
	golden(fake, ARGS("stats", "--json"),
	       "{\"walks\":12,\"walks_failed\":0,\"last_walk_ns\":1234567,\"last_walk_clients\":4,\"last_walk_bos\":100,\"last_walk_skipped\":2,\"devices\":3}\n");

	run_fake(fake, NULL, &r, ARGS("export", "--prometheus"));
	result(r.status == 0, "export --prometheus (charged view): exit 0");
	result(strstr(r.out, "gpumem_process_bytes{pid=\"815\",comm=\"gm sp\tace \\\"q\\\" \\\\\",cgroup=\"/test/a b\",device=\"card2\",region=\"system\"}") == NULL &&
	       strstr(r.out, "gpumem_process_shared_bytes") == NULL &&
	       strstr(r.out, "gpumem_process_bytes{pid=\"900\",comm=\"big\",cgroup=\"/test/a/big\",device=\"card0\",region=\"gtt\"} 4096\n") != NULL,
	       "export (charged view): vram and gtt only, no shared or owned");
	for (p = r.out, lines = 0; *p; p++)
		lines += *p == '\n';
	eq_u64("export (charged view): number of lines (7 families, 5x2+5 process, 6 device, "
	       "10 cgroup usage and 4 limit samples)", (uint64_t)lines, 7 * 2 + 5 * 2 + 5 + 6 + 10 + 4);
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "--held"));
	result(r.status == 0, "export --prometheus --held: exit 0");
	result(strstr(r.out, "# TYPE gpumem_process_bytes gauge\n"
			     "gpumem_process_bytes{pid=\"0\",comm=\"[kernel]\",cgroup=\"\",device=\"card0\",region=\"vram\"} 1048576\n") != NULL,
	       "export: TYPE line, then samples sorted by pid");
	result(strstr(r.out, "gpumem_process_bytes{pid=\"815\",comm=\"gm sp\tace \\\"q\\\" \\\\\",cgroup=\"/test/a b\",device=\"card2\",region=\"system\"} 2097152\n") != NULL,
	       "export: label values escaped");
	result(strstr(r.out, "gpumem_device_free_bytes{device=\"card0\",driver=\"qxl\",pci=\"0000:00:02.0\",region=\"vram\"} 60809216\n") != NULL,
	       "export: device free bytes");
	result(strstr(r.out, "gpumem_device_capacity_bytes{device=\"card2\"") == NULL,
	       "export: unknown capacity left out");
	result(strstr(r.out, "gpumem_process_buffers{pid=\"900\",comm=\"big\",cgroup=\"/test/a/big\",device=\"card0\"} 4\n") != NULL,
	       "export: buffers");
	for (p = r.out, lines = 0; *p; p++)
		lines += *p == '\n';
	eq_u64("export: number of lines (9 families, 5x4+5x3 process, 6 device, 10 cgroup "
	       "usage and 4 limit samples)", (uint64_t)lines, 9 * 2 + 5 * 4 + 5 * 3 + 6 + 10 + 4);

	{
		char path[] = "/tmp/gmctl-prom.XXXXXX", file[64], buf[8192];
		struct stat st;
		int fd;

		if (mkdtemp(path)) {
			snprintf(file, sizeof(file), "%s/gpumem.prom", path);
			run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", file));
			fd = open(file, O_RDONLY);
			result(r.status == 0 && fd >= 0 && r.out[0] == '\0', "export -o FILE writes the file");
			if (fd >= 0) {
				slurp(fd, buf, sizeof(buf));
				close(fd);
				result(strncmp(buf, "# HELP gpumem_process_bytes", 27) == 0, "export -o: contents");
				result(stat(file, &st) == 0 && (st.st_mode & 0777) == 0644, "export -o: mode 0644");
				unlink(file);
			}
			result(rmdir(path) == 0, "export -o: no temporary file left behind");
		}
	}
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", "/nonexistent-gm/x.prom"));
	result(r.status == 1 && strstr(r.err, "/nonexistent-gm/x.prom"), "export -o unwritable: exit 1");

	run_fake(fake, NULL, &r, ARGS("top", "--iterations", "2", "--interval", "0.1"));
	for (p = r.out; (p = strstr(p, "gpumemctl top - ")); p++)
		frames++;
	result(r.status == 0 && frames == 2, "top -n 2: two frames, exit 0 (%d)", frames);
	result(strchr(r.out, '\033') == NULL, "top: no escape sequences when not on a terminal");
	p = strstr(r.out, "PID  COMM");
	result(p && strstr(p, "\n900  big") && strstr(p, "\n900  big") < strstr(p, "\n812  gpumem-alloc"),
	       "top: sorted by VRAM");
	result(strstr(r.out, "\n\ngpumemctl top - ") != NULL, "top: frames separated by an empty line");

	run_fake(fake, NULL, &r, ARGS("ps", "--device", "card7"));
	result(r.status == 2 && strstr(r.err, "unknown device 'card7' (devices: card0 card1 card2)"),
	       "unknown device: exit 2, names the devices");
	run_fake(fake, NULL, &r, ARGS("buffers", "--pid", "1", "--device", "0000:00:09.0"));
	result(r.status == 2 && strstr(r.err, "unknown device '0000:00:09.0'"),
	       "unknown PCI address: exit 2");
	run_fake(fake, "eperm", &r, ARGS("buffers", "--pid", "812"));
	result(r.status == 4 && strstr(r.err, "Operation not permitted") && r.out[0] == '\0',
	       "EPERM from the kernel: exit 4");
	run_fake(fake, "dumpfail", &r, ARGS("ps"));
	result(r.status == 1 && strstr(r.err, "snapshot: out of memory"),
	       "failed dump: exit 1 with the kernel's message");
	run_fake(fake, "nomodule", &r, ARGS("devices"));
	result(r.status == 3 && strstr(r.err, "not loaded"), "no family: exit 3");
	run_fake(fake, "nomodule", &r, ARGS("ps", "--pid", "x"));
	result(r.status == 2, "bad arguments are reported before the module is looked for");
}

/* --- limits, cgroups and events, against the simulated kernel ------------ */

/* out without the "YYYY-MM-DD HH:MM:SS " that starts each line (malloc'ed) */
static char *strip_times(const char *out)
{
	char *r = malloc(strlen(out) + 1), *o = r;
	const char *p = out;

	while (r && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (n > 20 && p[4] == '-' && p[7] == '-' && p[10] == ' ' && p[13] == ':' &&
		    p[16] == ':' && p[19] == ' ') {
			p += 20;
			n -= 20;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	if (r)
		*o = '\0';
	return r;
}

static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * `watch` with stdout on a pipe: the first line must arrive while the tool
 * is still running (flushed per event); then SIGTERM ends it with status 0.
 */
static void test_watch_flush(const char *fake)
{
	int p[2], st = 0, lines = 0;
	char buf[8192];
	size_t len = 0;
	long long end;
	pid_t pid;

	if (pipe(p) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		setenv("GM_FAKE", "watch", 1);
		dup2(nul, 0);
		dup2(p[1], 1);
		dup2(nul, 2);
		close(p[0]);
		execl(fake, fake, "watch", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	end = mono_ms() + 10000;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (lines < 7 && mono_ms() < end) {
		ssize_t n = read(p[0], buf + len, sizeof(buf) - 1 - len);

		if (n > 0) {
			buf[len + (size_t)n] = '\0';
			for (ssize_t i = 0; i < n; i++)
				lines += buf[len + (size_t)i] == '\n';
			len += (size_t)n;
		} else if (n == 0) {
			break;
		} else {
			usleep(20000);
		}
	}
	result(lines == 7, "watch: every event line arrives while it runs (flushed; %d lines)", lines);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	close(p[0]);
	result(WIFEXITED(st) && WEXITSTATUS(st) == 0, "watch: SIGTERM ends it with status 0");
}

static void test_quota_commands(const char *fake)
{
	char root[256], want[2048], err[GM_ERR_LEN];
	struct stat st;
	uint64_t root_id = 0;
	long long t0, ms;
	struct run r;
	char *out;
	int n;
	const char *p;

	golden(fake, ARGS("limit", "list"),
	       "DEVICE  REGION     USAGE       MAX      HIGH    USE%  MODE     DENIED  CGROUP\n"
	       "all     vram     5.0 MiB   1.0 GiB         -    0.5%  enforce       0  /\n"
	       "all     vram    72.0 MiB  64.0 MiB  48.0 MiB  112.5%  enforce       2  /test/a\n"
	       "card2   system   2.0 MiB         -   1.0 MiB       -  enforce       0  /test/a b\n"
	       "card0   vram    64.0 MiB  64.0 MiB         -  100.0%  monitor       3  /test/a/big\n");
	cgroup2_root(root, sizeof(root));
	if (stat(root, &st) < 0 || resolve_cgroup("/", root, &root_id, err, sizeof(err)) < 0) {
		skip("limit set/get/clear", "no cgroup2 mount on this host");
		return;
	}
	snprintf(want, sizeof(want),
		 "[\n"
		 "{\"cgroup_id\":%" PRIu64 ",\"cgroup\":\"/\",\"device\":\"all\",\"region\":\"vram\",\"usage\":5242880,\"max\":1073741824,\"high\":null,\"mode\":\"enforce\",\"denied\":0},\n"
		 "{\"cgroup_id\":4711,\"cgroup\":\"/test/a\",\"device\":\"all\",\"region\":\"vram\",\"usage\":75497472,\"max\":67108864,\"high\":50331648,\"mode\":\"enforce\",\"denied\":2},\n"
		 "{\"cgroup_id\":4712,\"cgroup\":\"/test/a b\",\"device\":\"card2\",\"region\":\"system\",\"usage\":2097152,\"max\":null,\"high\":1048576,\"mode\":\"enforce\",\"denied\":0},\n"
		 "{\"cgroup_id\":4713,\"cgroup\":\"/test/a/big\",\"device\":\"card0\",\"region\":\"vram\",\"usage\":67108864,\"max\":67108864,\"high\":null,\"mode\":\"monitor\",\"denied\":3}\n"
		 "]\n", root_id);
	golden(fake, ARGS("limit", "list", "--json"), want);
	golden(fake, ARGS("--bytes", "limit", "get", root),
	       "DEVICE  REGION    USAGE         MAX  HIGH  USE%  MODE     DENIED  CGROUP\n"
	       "all     vram    5242880  1073741824     -  0.5%  enforce       0  /\n");
	snprintf(want, sizeof(want),
		 "{\"cgroup_id\":%" PRIu64 ",\"cgroup\":\"/\",\"device\":\"all\",\"region\":\"vram\",\"usage\":5242880,\"max\":1073741824,\"high\":null,\"mode\":\"enforce\",\"denied\":0}\n",
		 root_id);
	golden(fake, ARGS("limit", "get", "/", "--json"), want);
	golden(fake, ARGS("limit", "set", "/", "--max", "1.5G", "--high", "1G", "-d", "00:03.0"),
	       "DEVICE  REGION  USAGE      MAX     HIGH  USE%  MODE     DENIED  CGROUP\n"
	       "card1   vram      0 B  1.5 GiB  1.0 GiB  0.0%  enforce       0  /\n");
	/* set changes what it is given: --high and --mode keep the 1 GiB max */
	snprintf(want, sizeof(want),
		 "{\"cgroup_id\":%" PRIu64 ",\"cgroup\":\"/\",\"device\":\"all\",\"region\":\"vram\",\"usage\":5242880,\"max\":1073741824,\"high\":512,\"mode\":\"monitor\",\"denied\":0}\n",
		 root_id);
	golden(fake, ARGS("limit", "set", "/", "--high", "0.5KiB", "--mode", "monitor", "--json"), want);
	/* --mode alone changes the mode only */
	snprintf(want, sizeof(want),
		 "{\"cgroup_id\":%" PRIu64 ",\"cgroup\":\"/\",\"device\":\"all\",\"region\":\"vram\",\"usage\":5242880,\"max\":1073741824,\"high\":null,\"mode\":\"monitor\",\"denied\":0}\n",
		 root_id);
	golden(fake, ARGS("limit", "set", "/", "--mode", "monitor", "--json"), want);
	/* --replace: what is not given goes, the mode is enforce */
	snprintf(want, sizeof(want),
		 "{\"cgroup_id\":%" PRIu64 ",\"cgroup\":\"/\",\"device\":\"all\",\"region\":\"vram\",\"usage\":5242880,\"max\":null,\"high\":512,\"mode\":\"enforce\",\"denied\":0}\n",
		 root_id);
	golden(fake, ARGS("limit", "set", "/", "--high", "0.5KiB", "--replace", "--json"), want);
	run_fake(fake, NULL, &r, ARGS("limit", "set", "/", "--high", "2G"));
	result(r.status == 1 && strstr(r.err, "high-bytes would be above max-bytes"),
	       "limit set --high above the kept max: exit 1, the kernel's message");
	run_fake(fake, NULL, &r, ARGS("limit", "set", "/", "--mode", "monitor", "-r", "gtt"));
	result(r.status == 1 && strstr(r.err, "no such limit to change"),
	       "limit set --mode of no limit: exit 1, the kernel's message");
	golden(fake, ARGS("limit", "set", "/", "--max=1t", "--region=gtt", "--device=card2"),
	       "DEVICE  REGION  USAGE      MAX  HIGH  USE%  MODE     DENIED  CGROUP\n"
	       "card2   gtt       0 B  1.0 TiB     -  0.0%  enforce       0  /\n");
	golden(fake, ARGS("limit", "clear", "/"), "");
	snprintf(want, sizeof(want),
		 "{\"cgroup_id\":%" PRIu64 ",\"device\":\"all\",\"region\":\"vram\",\"removed\":true}\n",
		 root_id);
	golden(fake, ARGS("limit", "clear", "/", "--json"), want);

	run_fake(fake, NULL, &r, ARGS("limit", "get", "/", "--region", "gtt"));
	result(r.status == 1 && r.out[0] == '\0' &&
	       strstr(r.err, "limit get: No such file or directory: no limit on this cgroup, device "
			     "and region"), "limit get of no limit: exit 1, the kernel's message");
	run_fake(fake, NULL, &r, ARGS("limit", "clear", "/", "-d", "9"));
	result(r.status == 2 && strstr(r.err, "unknown device '9'"), "limit clear -d 9: exit 2");
	run_fake(fake, NULL, &r, ARGS("limit", "set", "/", "--max", "1G", "-d", "card9"));
	result(r.status == 2 && strstr(r.err, "unknown device 'card9' (devices: card0 card1 card2)"),
	       "limit set on an unknown device: exit 2");
	run_fake(fake, "eperm", &r, ARGS("limit", "set", "/", "--max", "1G"));
	result(r.status == 4 && strstr(r.err, "Operation not permitted") && r.out[0] == '\0',
	       "limit set without CAP_NET_ADMIN: exit 4");
	/* who may do what comes from the spec (tests/spec_perms.h), as in kmod/ */
	run_fake(fake, "eperm", &r, ARGS("limit", "list"));
	result(r.status == 0 && strstr(r.out, "enforce"),
	       "limit list without CAP_NET_ADMIN: works (limit-get is open in the spec)");
	run_fake(fake, "eperm", &r, ARGS("limit", "get", "/"));
	result(r.status == 0, "limit get without CAP_NET_ADMIN: works");
	run_fake(fake, "eperm", &r, ARGS("limit", "clear", "/"));
	result(r.status == 4 && strstr(r.err, "Operation not permitted"),
	       "limit clear without CAP_NET_ADMIN: exit 4 (limit-del is admin-perm)");
	run_fake(fake, "eperm", &r, ARGS("cgroups"));
	result(r.status == 0 && strstr(r.out, "/test/a/big"), "cgroups without CAP_NET_ADMIN: works");
	run_fake(fake, "oldmodule", &r, ARGS("limit", "list"));
	result(r.status == 1 && strstr(r.err, "does not know this request"),
	       "limit list on a module without quotas: exit 1, says why");
	run_fake(fake, "nomodule", &r, ARGS("limit", "set", "/", "--max", "1G"));
	result(r.status == 3, "limit set without the module: exit 3");

	golden(fake, ARGS("cgroups"),
	       "DEVICE  REGION     USAGE       MAX      HIGH    USE%  MODE     DENIED  CGROUP\n"
	       "all     vram    72.0 MiB  64.0 MiB  48.0 MiB  112.5%  enforce       2  /test/a\n"
	       "card0   vram    72.0 MiB         -         -       -  -             -  /test/a\n"
	       "all     vram     1.0 MiB         -         -       -  -             -  /test/a b\n"
	       "all     system   2.0 MiB         -         -       -  -             -  /test/a b\n"
	       "card0   vram     1.0 MiB         -         -       -  -             -  /test/a b\n"
	       "card2   system   2.0 MiB         -   1.0 MiB       -  enforce       0  /test/a b\n"
	       "all     vram    64.0 MiB         -         -       -  -             -  /test/a/big\n"
	       "all     gtt      4.0 KiB         -         -       -  -             -  /test/a/big\n"
	       "card0   vram    64.0 MiB  64.0 MiB         -  100.0%  monitor       3  /test/a/big\n"
	       "card0   gtt      4.0 KiB         -         -       -  -             -  /test/a/big\n");
	golden(fake, ARGS("cgroups", "--device", "card2", "--json"),
	       "[\n"
	       "{\"cgroup_id\":4712,\"cgroup\":\"/test/a b\",\"device\":\"card2\",\"region\":\"system\",\"usage\":2097152,\"max\":null,\"high\":1048576,\"mode\":\"enforce\",\"denied\":0}\n"
	       "]\n");
	golden(fake, ARGS("cgroups", "-d", "1", "--json"), "[]\n");

	run_fake(fake, NULL, &r, ARGS("export", "--prometheus"));
	result(r.status == 0 && strstr(r.out, "# TYPE gpumem_cgroup_usage_bytes gauge\n"
					       "gpumem_cgroup_usage_bytes{cgroup=\"/test/a\",device=\"all\",region=\"vram\"} 75497472\n"),
	       "export: cgroup usage");
	result(strstr(r.out, "gpumem_cgroup_limit_bytes{cgroup=\"/test/a\",device=\"all\",region=\"vram\",kind=\"max\"} 67108864\n"
			     "gpumem_cgroup_limit_bytes{cgroup=\"/test/a\",device=\"all\",region=\"vram\",kind=\"high\"} 50331648\n"
			     "gpumem_cgroup_limit_bytes{cgroup=\"/test/a b\",device=\"card2\",region=\"system\",kind=\"high\"} 1048576\n") != NULL,
	       "export: cgroup limits, max and high");
	run_fake(fake, "oldmodule", &r, ARGS("export", "--prometheus"));
	result(r.status == 0 && r.err[0] == '\0' && strstr(r.out, "gpumem_process_bytes") &&
	       !strstr(r.out, "gpumem_cgroup_"), "export on a module without quotas: no cgroup families");

	/* watch: the scripted events, a gap, an overflow, the module gone and back */
	t0 = mono_ms();
	run_fake(fake, "watch", &r, ARGS("watch", "--count", "5"));
	ms = mono_ms() - t0;
	out = strip_times(r.out);
	eq_str("watch: event lines, warnings; numbering starts again after the reload", out,
	       "quota-exceeded cgroup /test/a pid 812 (gpumem-alloc) card0 vram: requested 4.0 MiB, usage 62.0 MiB, max 64.0 MiB; denied (enforce)\n"
	       "high-crossed cgroup /test/a/big pid 900 (big) card0 vram: requested 1.0 MiB, usage 48.0 MiB, high 48.0 MiB; allowed (enforce)\n"
	       "warning: 2 events missed (seq 3 to 4 not received)\n"
	       "device-threshold card0 vram: requested 1.0 MiB, usage 120.0 MiB, threshold 115.2 MiB\n"
	       "warning: events lost (the socket's receive buffer overflowed)\n"
	       "quota-exceeded cgroup /test/a b pid 815 (gm sp\\011ace) card2 system: requested 64.0 KiB, usage 2.0 MiB, max 2.0 MiB; allowed (monitor); 3 suppressed\n"
	       "quota-exceeded cgroup /test/a pid 812 (gpumem-alloc) card0 vram: requested 4.0 MiB, usage 62.0 MiB, max 64.0 MiB; denied (enforce)\n");
	free(out);
	eq_str("watch: notes on stderr when the module goes and comes back", r.err,
	       "gpumemctl: watch: the gpumem module was unloaded (its generic netlink family is gone); waiting for it to come back\n"
	       "gpumemctl: watch: gpumem is back; watching again\n");
	result(r.status == 0, "watch --count 5: exit 0 after the fifth event");
	result(ms >= 900 && ms < 5000,
	       "watch: looks for the family again every 0.5 s, no busy loop (%lld ms for 3 look-ups)", ms);

	run_fake(fake, "watch", &r, ARGS("watch", "-n", "5", "--json"));
	for (p = r.out, n = 0; (p = strstr(p, "{\"time\":\"")); p++)
		n++;
	result(r.status == 0 && n == 5, "watch --json: 5 objects (%d)", n);
	result(strstr(r.out, "\"seq\":5,\"type\":\"device-threshold\",\"cgroup_id\":null,\"cgroup\":null,"
			     "\"pid\":null,\"comm\":null,\"device\":\"card0\",\"region\":\"vram\",\"requested\":1048576,"
			     "\"usage\":125829120,\"limit\":120795955,\"mode\":null,\"denied\":false,\"suppressed\":0,"
			     "\"missed\":2}\n") != NULL, "watch --json: exact integers, nulls, missed");
	result(strstr(r.out, "warning") == NULL && strstr(r.err, "warning: 2 events missed") &&
	       strstr(r.err, "warning: events lost"), "watch --json: warnings on stderr only");

	run_fake(fake, "watch-idle", &r, ARGS("watch", "--timeout", "0.3"));
	result(r.status == 0 && r.out[0] == '\0' && r.err[0] == '\0', "watch --timeout: exit 0");
	run_fake(fake, "watch-idle", &r, ARGS("watch", "--timeout", "0.2", "--count", "1"));
	result(r.status == 1 && strstr(r.err, "timed out with 0 of 1 events"),
	       "watch --timeout before --count events: exit 1");
	setenv("GM_FAKE", "watch-idle", 1);
	t0 = mono_ms();
	run_tool_sig(fake, &r, ARGS("watch"), SIGINT, 200);
	ms = mono_ms() - t0;
	result(r.status == 0 && ms < 3000, "watch: SIGINT ends it with status 0 (%lld ms)", ms);
	run_tool_sig(fake, &r, ARGS("watch", "--json"), SIGTERM, 200);
	result(r.status == 0, "watch: SIGTERM ends it with status 0");
	unsetenv("GM_FAKE");
	run_fake(fake, "eperm", &r, ARGS("watch"));
	result(r.status == 4 && strstr(r.err, "not allowed to receive gpumem's events") &&
	       strstr(r.err, "CAP_SYS_ADMIN"), "watch without privileges: exit 4, says why");
	run_fake(fake, "oldmodule", &r, ARGS("watch"));
	result(r.status == 1 && strstr(r.err, "no \"events\" multicast group"),
	       "watch on a module without events: exit 1");
	run_fake(fake, "nomodule", &r, ARGS("watch"));
	result(r.status == 3 && strstr(r.err, "not loaded"), "watch without the module: exit 3");
	test_watch_flush(fake);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_units();
	test_utf8();
	test_term_safe();
	test_table();
	test_json_escape();
	test_json_writer();
	test_prometheus();
	test_parse_pid();
	test_parse_interval_count();
	test_parse_size();
	test_parse_limit_size();
	test_parse_region_mode();
	test_parse_device();
	test_resolve_device();
	test_resolve_cgroup();
	test_parse_replies();
	test_parse_quota_replies();
	test_quota_output();
	test_family_gone();
	test_ext_ack();
	test_live_netlink();
	if (argc > 1)
		test_cli(argv[1]);
	else
		skip("command line", "no path to gpumemctl given");
	if (argc > 2) {
		test_commands(argv[2]);
		test_quota_commands(argv[2]);
	} else
		skip("commands", "no path to the simulated gpumemctl given");
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
