// SPDX-License-Identifier: GPL-2.0
/*
 * test_commands.c - the commands' output (ps, devices, buffers, top, stats, export),
 * against the simulated kernel (gpumemctl-fake).
 * (part of test_gpumemctl; see harness.h)
 */
#include <dirent.h>

#include "harness.h"

/*
 * A dump the kernel marks interrupted (NLM_F_DUMP_INTR) is asked again: the
 * fake answers the first dump of a run with every row twice and the mark,
 * so a client that took it would show each row twice.
 */
static void test_dump_intr(const char *fake)
{
	const char *const *const cmds[] = {
		ARGS("ps", "--json"), ARGS("--json", "devices"), ARGS("limit", "list", "--json"),
		ARGS("cgroups", "--json"), ARGS("buffers", "-p", "815", "--json"),
	};
	struct run want, got;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		char what[96];

		snprintf(what, sizeof(what), "interrupted dump asked again: %s %s", cmds[i][0],
			 cmds[i][1]);
		run_fake(fake, NULL, &want, cmds[i]);
		run_fake(fake, "dumpintr", &got, cmds[i]);
		result(want.status == 0 && got.status == 0 && strlen(want.out) > 4,
		       "%s: exit 0 (%d), rows to compare", what, got.status);
		eq_str(what, got.out, want.out);
	}
}

/*
 * The same answers whatever the datagrams the kernel packs them in: one
 * message each (GM_FAKE_DGRAM smaller than any), a few (the fake's
 * default), all of a dump in one; dumps, "do"s with their ACK, errors.
 */
static void test_datagrams(const char *fake)
{
	const char *const *const cmds[] = {
		ARGS("ps", "--json"), ARGS("ps", "-H", "--json"), ARGS("devices", "--json"),
		ARGS("stats", "--json"), ARGS("limit", "list", "--json"),
		ARGS("limit", "get", "/"), ARGS("cgroups", "--json"),
		ARGS("buffers", "-p", "815", "--json"), ARGS("limit", "get", "/", "--region", "gtt"),
		ARGS("limit", "clear", "/", "--region", "gtt"),
	};
	const char *const sizes[] = { "16", "65536" };
	struct run want, got;
	size_t i, j;

	for (i = 0; i < sizeof(cmds) / sizeof(*cmds); i++) {
		run_fake(fake, NULL, &want, cmds[i]);
		for (j = 0; j < sizeof(sizes) / sizeof(*sizes); j++) {
			char what[128];

			setenv("GM_FAKE_DGRAM", sizes[j], 1);
			run_fake(fake, NULL, &got, cmds[i]);
			unsetenv("GM_FAKE_DGRAM");
			snprintf(what, sizeof(what), "datagrams of %s bytes: %s %s: same output, status",
				 sizes[j], cmds[i][0], cmds[i][1]);
			result(got.status == want.status && strcmp(got.out, want.out) == 0 &&
			       strcmp(got.err, want.err) == 0 && (want.out[0] || want.err[0]),
			       "%s (%d)", what, got.status);
		}
	}
}

/*
 * A large dump (1500 more processes, in datagrams of 16 KiB as the kernel
 * packs them): every row once, in pid order (then device), also when the
 * rows come in another order (the client sorts them) and when the dump is
 * asked again (the rows' memory of the first answer freed).
 */
static void test_large_dump(const char *fake)
{
	static const char script[] =
		"out=$(\"$0\" ps --json) || exit 1; printf '%s\\n' \"$out\" | awk 'END { print NR }'; "
		"printf '%s\\n' \"$out\" | sed -n '3,6p;1506p'; printf '%s\\n' \"$out\" | cksum";
	static const char *const modes[][2] = {
		{ NULL, NULL }, { "7", NULL }, { "8", "dumpintr" },
	};
	struct run want, got;
	size_t i;

	setenv("GM_FAKE_PROCS", "1500", 1);
	setenv("GM_FAKE_DGRAM", "16384", 1);
	run_tool("/bin/sh", &want, ARGS("-c", script, fake));
	result(want.status == 0 && strncmp(want.out, "1507\n", 5) == 0 &&
	       strstr(want.out, "\n{\"pid\":815,\"comm\":\"gm sp\\tace \\\"q\\\" \\\\\",\"cgroup_id\":4712,"
			      "\"cgroup\":\"/test/a b\",\"device\":\"card0\"") &&
	       strstr(want.out, "\n{\"pid\":815,\"comm\":\"gm sp\\tace \\\"q\\\" \\\\\",\"cgroup_id\":4712,"
			      "\"cgroup\":\"/test/a b\",\"device\":\"card2\"") &&
	       strstr(want.out, "\n{\"pid\":11499,\"comm\":\"proc-1499\",\"cgroup_id\":5374,"
			      "\"cgroup\":\"/test/many/374\",\"device\":\"card0\",\"view\":\"charged\","
			      "\"vram\":1572864000,\"gtt\":6139904,\"bos\":3}\n"),
	       "ps --json of 1505 rows: every row, the last one's values (%d)", want.status);
	for (i = 1; i < sizeof(modes) / sizeof(*modes); i++) {
		setenv("GM_FAKE_SHUFFLE", modes[i][0], 1);
		if (modes[i][1])
			setenv("GM_FAKE", modes[i][1], 1);
		run_tool("/bin/sh", &got, ARGS("-c", script, fake));
		unsetenv("GM_FAKE");
		unsetenv("GM_FAKE_SHUFFLE");
		result(got.status == 0 && strcmp(got.out, want.out) == 0,
		       "ps --json of 1505 rows in a random order%s: the same, sorted by pid and device",
		       modes[i][1] ? ", the dump asked again" : "");
	}
	unsetenv("GM_FAKE_PROCS");
	unsetenv("GM_FAKE_DGRAM");
}

/* the number of entries in directory path ("." and ".." not counted); -1 if unreadable */
static int dir_entries(const char *path)
{
	struct dirent *e;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/*
 * export -o on what is not a regular file: a FIFO and a character device
 * (through a symbolic link too) are written in place, a symbolic link to a
 * regular file or to nothing is refused and left as it was, a directory is
 * refused; nothing is renamed over any of them.
 */
static void test_export_output(const char *fake)
{
	char dir[] = "/tmp/gmctl-out.XXXXXX", fifo[64], lnk[64], file[64], dlink[64], sub[64];
	char buf[65536], target[96];
	struct run r;
	struct stat st;
	ssize_t n;
	pid_t pid;
	int fd, st_child = 0;

	if (!mkdtemp(dir))
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(lnk, sizeof(lnk), "%s/link", dir);
	snprintf(file, sizeof(file), "%s/file.prom", dir);
	snprintf(dlink, sizeof(dlink), "%s/null", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);

	/* a FIFO: a reader gets the metrics, the FIFO stays a FIFO */
	result(mkfifo(fifo, 0600) == 0, "export -o FIFO: made the FIFO");
	pid = fork();
	if (pid == 0) {
		size_t len = 0;
		int rfd;

		alarm(10);	/* a tool that renamed over the FIFO never opens it */
		rfd = open(fifo, O_RDONLY);

		while (rfd >= 0 && (n = read(rfd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		_exit(len > 27 && strncmp(buf, "# HELP gpumem_process_bytes", 27) == 0 ? 0 : 1);
	}
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", fifo));
	waitpid(pid, &st_child, 0);
	result(r.status == 0 && r.err[0] == '\0', "export -o FIFO: exit 0 (%d: %s)", r.status, r.err);
	result(WIFEXITED(st_child) && WEXITSTATUS(st_child) == 0,
	       "export -o FIFO: the reader got the metrics");
	result(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "export -o FIFO: still a FIFO");

	/* a character device through a symbolic link: written, the link stays */
	result(symlink("/dev/null", dlink) == 0, "export -o: made a link to /dev/null");
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", dlink));
	result(r.status == 0 && r.err[0] == '\0' && r.out[0] == '\0',
	       "export -o link-to-/dev/null: exit 0, written in place");
	n = readlink(dlink, target, sizeof(target) - 1);
	result(lstat(dlink, &st) == 0 && S_ISLNK(st.st_mode) && n == 9 &&
	       strncmp(target, "/dev/null", 9) == 0, "export -o link-to-/dev/null: the link is untouched");
	result(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "export -o: /dev/null still a device");

	/* a symbolic link to a regular file: refused, link and file unchanged */
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		result(write(fd, "old\n", 4) == 4, "export -o: wrote the old file");
		close(fd);
	}
	result(symlink("file.prom", lnk) == 0, "export -o: made a link to a regular file");
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", lnk));
	result(r.status == 1 && strstr(r.err, "a symbolic link") && strstr(r.err, lnk) &&
	       r.out[0] == '\0', "export -o link-to-file: exit 1, says it is a symbolic link");
	n = readlink(lnk, target, sizeof(target) - 1);
	result(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode) && n == 9 &&
	       strncmp(target, "file.prom", 9) == 0, "export -o link-to-file: the link is untouched");
	fd = open(file, O_RDONLY);
	if (fd >= 0) {
		slurp(fd, buf, sizeof(buf));
		close(fd);
	}
	eq_str("export -o link-to-file: the file behind it is untouched", fd >= 0 ? buf : "", "old\n");
	/* a dangling symbolic link: refused, not replaced */
	unlink(lnk);
	result(symlink("nothing-here", lnk) == 0, "export -o: made a dangling link");
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", lnk));
	result(r.status == 1 && strstr(r.err, "a symbolic link"), "export -o dangling link: exit 1");
	snprintf(target, sizeof(target), "%s/nothing-here", dir);
	result(lstat(lnk, &st) == 0 && S_ISLNK(st.st_mode) && lstat(target, &st) < 0,
	       "export -o dangling link: still a link, nothing created behind it");
	/* a directory: refused */
	result(mkdir(sub, 0700) == 0, "export -o: made a directory");
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", sub));
	result(r.status == 1 && strstr(r.err, "Is a directory"), "export -o DIR: exit 1, Is a directory");
	result(lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) && dir_entries(sub) == 0,
	       "export -o DIR: still an empty directory");
	/* a regular file is still replaced atomically (rename: a new inode) */
	result(stat(file, &st) == 0, "export -o: the regular file is there");
	{
		ino_t before = st.st_ino;

		run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "-o", file));
		result(r.status == 0 && lstat(file, &st) == 0 && S_ISREG(st.st_mode) &&
		       st.st_ino != before, "export -o FILE: replaced by a rename (new inode)");
	}
	/* no temporary file left: fifo, null, file.prom, link, sub */
	eq_u64("export -o: no temporary file left in the directory", (uint64_t)dir_entries(dir), 5);
	unlink(fifo);
	unlink(dlink);
	unlink(lnk);
	unlink(file);
	rmdir(sub);
	result(rmdir(dir) == 0, "export -o: test directory removed (nothing else in it)");
}

void test_commands(const char *fake)
{
	struct run r, shuffled;
	int lines = 0, frames = 0;
	const char *p;

	test_dump_intr(fake);
	test_datagrams(fake);
	test_large_dump(fake);

	golden(fake, ARGS("devices"),
	       "DEVICE  DRIVER     BUS           PCI-ID     RENDER  TTM  REGION   CAPACITY      USED      FREE   USE%   LARGEST  BLOCKS  FRAG%  DESCRIPTION\n"
	       "card0   qxl        0000:00:02.0  1b36:0100  -       yes  vram    128.0 MiB  70.0 MiB  58.0 MiB  54.7%  32.0 MiB       5  44.8%  RH QXL\n"
	       "card1   bochs-drm  0000:00:03.0  -          -       yes  vram     16.0 MiB       0 B  16.0 MiB   0.0%         -       -      -  -\n"
	       "card2   vgem       vgem          -          128     no   system          -         -         -      -         -       -      -  Virtual GEM provider\n");
	golden(fake, ARGS("devices", "--bytes"),
	       "DEVICE  DRIVER     BUS           PCI-ID     RENDER  TTM  REGION   CAPACITY      USED      FREE   USE%   LARGEST  BLOCKS  FRAG%  DESCRIPTION\n"
	       "card0   qxl        0000:00:02.0  1b36:0100  -       yes  vram    134209536  73400320  60809216  54.7%  33554432       5  44.8%  RH QXL\n"
	       "card1   bochs-drm  0000:00:03.0  -          -       yes  vram     16777216         0  16777216   0.0%         -       -      -  -\n"
	       "card2   vgem       vgem          -          128     no   system          -         -         -      -         -       -      -  Virtual GEM provider\n");
	golden(fake, ARGS("--json", "devices"),
	       "[\n"
	       "{\"id\":0,\"name\":\"card0\",\"driver\":\"qxl\",\"unique\":\"0000:00:02.0\",\"pci_vendor\":\"1b36\",\"pci_device\":\"0100\",\"description\":\"RH QXL\",\"ttm\":true,\"regions\":[{\"region\":\"vram\",\"capacity\":134209536,\"used\":73400320,\"free\":60809216,\"largest_free\":33554432,\"free_blocks\":5,\"free_blocks_bytes\":60809216}]},\n"
	       "{\"id\":1,\"name\":\"card1\",\"driver\":\"bochs-drm\",\"unique\":\"0000:00:03.0\",\"ttm\":true,\"regions\":[{\"region\":\"vram\",\"capacity\":16777216,\"used\":0,\"free\":16777216,\"largest_free\":null,\"free_blocks\":null,\"free_blocks_bytes\":null}]},\n"
	       "{\"id\":2,\"name\":\"card2\",\"driver\":\"vgem\",\"unique\":\"vgem\",\"description\":\"Virtual GEM provider\",\"render_id\":128,\"ttm\":false,\"regions\":[]}\n"
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
	/* the fake kernel's hook statistics are distinct: each lands in its row */
	golden(fake, ARGS("stats"),
	       "NAME                    VALUE\n"
	       "walks                   12\n"
	       "walks_failed            0\n"
	       "last_walk_ns            1234567 (1.2 ms)\n"
	       "last_walk_clients       4\n"
	       "last_walk_bos           100\n"
	       "last_walk_skipped       2\n"
	       "devices                 3\n"
	       "hook_charged            501\n"
	       "hook_uncharged          430\n"
	       "hook_charge_failed      5\n"
	       "hook_denied             17\n"
	       "hook_guard_refused      23\n"
	       "hook_events_sent        29\n"
	       "hook_events_suppressed  6\n"
	       "hook_events_lost        2\n"
	       "hook_live_records       71\n"
	       "hook_unattributed       13\n"
	       "hook_resv_released      3\n"
	       "dmem_unwatched          7\n");
	golden(fake, ARGS("stats", "--json"),
	       "{\"walks\":12,\"walks_failed\":0,\"last_walk_ns\":1234567,\"last_walk_clients\":4,\"last_walk_bos\":100,\"last_walk_skipped\":2,\"devices\":3,"
	       "\"hook_charged\":501,\"hook_uncharged\":430,\"hook_charge_failed\":5,\"hook_denied\":17,\"hook_guard_refused\":23,"
	       "\"hook_events_sent\":29,\"hook_events_suppressed\":6,\"hook_events_lost\":2,\"hook_live_records\":71,\"hook_unattributed\":13,\"hook_resv_released\":3,\"dmem_unwatched\":7}\n");

	run_fake(fake, NULL, &r, ARGS("export", "--prometheus"));
	result(r.status == 0, "export --prometheus (charged view): exit 0");
	result(strstr(r.out, "gpumem_process_bytes{pid=\"815\",comm=\"gm sp\tace \\\"q\\\" \\\\\",cgroup=\"/test/a b\",device=\"card2\",region=\"system\"}") == NULL &&
	       strstr(r.out, "gpumem_process_shared_bytes") == NULL &&
	       strstr(r.out, "gpumem_process_bytes{pid=\"900\",comm=\"big\",cgroup=\"/test/a/big\",device=\"card0\",region=\"gtt\"} 4096\n") != NULL,
	       "export (charged view): vram and gtt only, no shared or owned");
	for (p = r.out, lines = 0; *p; p++)
		lines += *p == '\n';
	eq_u64("export (charged view): number of lines (10 families, 5x2+5 process, 9 device, "
	       "10 cgroup usage and 4 limit samples)", (uint64_t)lines, 10 * 2 + 5 * 2 + 5 + 9 + 10 + 4);
	run_fake(fake, NULL, &r, ARGS("export", "--prometheus", "--held"));
	result(r.status == 0, "export --prometheus --held: exit 0");
	result(strstr(r.out, "# TYPE gpumem_process_bytes gauge\n"
			     "gpumem_process_bytes{pid=\"0\",comm=\"[kernel]\",cgroup=\"\",device=\"card0\",region=\"vram\"} 1048576\n") != NULL,
	       "export: TYPE line, then samples sorted by pid");
	result(strstr(r.out, "gpumem_process_bytes{pid=\"815\",comm=\"gm sp\tace \\\"q\\\" \\\\\",cgroup=\"/test/a b\",device=\"card2\",region=\"system\"} 2097152\n") != NULL,
	       "export: label values escaped");
	result(strstr(r.out, "gpumem_device_free_bytes{device=\"card0\",driver=\"qxl\",pci=\"0000:00:02.0\",region=\"vram\"} 60809216\n") != NULL,
	       "export: device free bytes");
	result(strstr(r.out, "gpumem_device_largest_free_bytes{device=\"card0\",driver=\"qxl\",pci=\"0000:00:02.0\",region=\"vram\"} 33554432\n") != NULL &&
	       strstr(r.out, "gpumem_device_free_blocks{device=\"card0\",driver=\"qxl\",pci=\"0000:00:02.0\",region=\"vram\"} 5\n") != NULL &&
	       strstr(r.out, "gpumem_device_largest_free_bytes{device=\"card1\"") == NULL,
	       "export: fragmentation of the regions whose allocator describes it");
	result(strstr(r.out, "gpumem_device_capacity_bytes{device=\"card2\"") == NULL,
	       "export: unknown capacity left out");
	result(strstr(r.out, "gpumem_process_buffers{pid=\"900\",comm=\"big\",cgroup=\"/test/a/big\",device=\"card0\"} 4\n") != NULL,
	       "export: buffers");
	for (p = r.out, lines = 0; *p; p++)
		lines += *p == '\n';
	eq_u64("export: number of lines (12 families, 5x4+5x3 process, 9 device, 10 cgroup "
	       "usage and 4 limit samples)", (uint64_t)lines, 12 * 2 + 5 * 4 + 5 * 3 + 9 + 10 + 4);

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
	test_export_output(fake);

	run_fake(fake, NULL, &r, ARGS("top", "--iterations", "2", "--interval", "0.1"));
	for (p = r.out; (p = strstr(p, "gpumemctl top - ")); p++)
		frames++;
	result(r.status == 0 && frames == 2, "top -n 2: two frames, exit 0 (%d)", frames);
	/* 5 rows, 4 processes: 815 has a row on card0 and one on card2 */
	result(strstr(r.out, "s - 4 processes\n") != NULL, "top: counts processes, not rows");
	setenv("GM_FAKE_SHUFFLE", "1", 1);	/* 815's rows apart, as a kernel may send them */
	run_fake(fake, NULL, &shuffled, ARGS("top", "--iterations", "1"));
	unsetenv("GM_FAKE_SHUFFLE");
	result(strstr(shuffled.out, "s - 4 processes\n") != NULL,
	       "top: counts processes, also from rows in any order");
	result(strchr(r.out, '\033') == NULL, "top: no escape sequences when not on a terminal");
	result(strstr(r.out, "\nDEVICE  DRIVER     REGION   CAPACITY      USED   USE%\n"
			     "card0   qxl        vram    128.0 MiB  70.0 MiB  54.7%\n"
			     "card1   bochs-drm  vram     16.0 MiB       0 B   0.0%\n"
			     "card2   vgem       system          -         -      -\n") != NULL,
	       "top: the devices' fields without the wide ones (BUS, PCI-ID, RENDER, TTM, FREE, DESCRIPTION)");
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
	result(r.status == 1 && strstr(r.err, "snapshot: out of memory") && r.out[0] == '\0',
	       "failed dump: exit 1 with the kernel's message (NLMSG_DONE's), no row printed");
	run_fake(fake, "noreply", &r, ARGS("ps"));
	result(r.status == 1 && strstr(r.err, "processes: Connection timed out"),
	       "no answer: the receive timeout is ETIMEDOUT, exit 1 (%s)", r.err);
	run_fake(fake, "spoof", &r, ARGS("limit", "list"));
	result(r.status == 0 && strstr(r.out, "/test/a b") && r.err[0] == '\0',
	       "a datagram from a user space sender is dropped, the kernel's answer taken");
	run_fake(fake, "nomodule", &r, ARGS("devices"));
	result(r.status == 3 && strstr(r.err, "not loaded"), "no family: exit 3");
	run_fake(fake, "nomodule", &r, ARGS("ps", "--pid", "x"));
	result(r.status == 2, "bad arguments are reported before the module is looked for");
}

