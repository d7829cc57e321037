// SPDX-License-Identifier: GPL-2.0
/*
 * test_parse.c - command-line values: pids, counts, intervals, sizes, regions,
 * modes, devices and cgroups.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

/* --- argument parsers ------------------------------------------------- */

void test_parse_pid(void)
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

void test_parse_interval_count(void)
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

void test_parse_size(void)
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

void test_parse_limit_size(void)
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

void test_parse_region_mode(void)
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

void test_parse_device(void)
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

void test_resolve_device(void)
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

void test_resolve_cgroup(void)
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

