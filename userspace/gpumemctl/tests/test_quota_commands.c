// SPDX-License-Identifier: GPL-2.0
/*
 * test_quota_commands.c - limit, cgroups and watch against the simulated kernel.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

/*
 * `watch` with stdout on a pipe: the first line must arrive while the tool
 * is still running (flushed per event); then SIGTERM ends it with status 0.
 */
void test_watch_flush(const char *fake)
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

void test_quota_commands(const char *fake)
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
	       "quota-exceeded cgroup /test/a b pid 815 (gm sp\\011ace) card2 system by dmem: requested 64.0 KiB, usage 2.0 MiB, max 2.0 MiB; allowed (monitor); 3 suppressed\n"
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

