// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - the command line: options, usage errors and exit codes of the real
 * gpumemctl.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

void test_cli(const char *tool)
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

