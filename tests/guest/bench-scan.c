// SPDX-License-Identifier: GPL-2.0
/*
 * bench-scan - time two ways of answering "who holds GPU memory", side by
 * side in one process, for scripts/bench-walk:
 *
 *   fdinfo: what nvtop/gputop do: every /proc/PID/fd/FD that is a DRM
 *           character device (major 226) has its /proc/PID/fdinfo/FD read
 *           and its drm-* keys parsed;
 *   walk:   one read of /sys/kernel/debug/gpumem/processes, which walks every
 *           client and classifies every BO in the kernel.
 *
 *   orphans: with -o, one read of /sys/kernel/debug/gpumem/orphans (the
 *           charge records, and a walk when there are orphans).
 *   bufs:   with -o too, one read of /sys/kernel/debug/gpumem/buffers (a
 *           walk that lists every buffer with its holders: the walk an
 *           orphans report makes).
 *   frag:   with -f, one read of /sys/kernel/debug/gpumem/fragmentation
 *           after its once-a-second cache has expired (each manager's own
 *           printer runs: a fresh report), and one read right after it
 *           (the cached figures).
 *
 *   cmd:    with -x, one run of a command (e.g. "gpumemctl ps --json"),
 *           process start included, its output thrown away.
 *   dump:   with -n, one proc-get dump of the gpumem netlink family on a
 *           socket opened once (what an agent polling the family pays per
 *           query), in the charged view (counters) and in the held view
 *           (a walk); every reply is parsed (libnl-genl) and its rows
 *           counted.
 *
 * usage: bench-scan [-r REPEAT] [-n] [-o] [-f] [-x "PROGRAM ARGS..."]
 * Prints, per method, the median wall time of a full scan and what it found:
 *   fdinfo median_ns=N fds=N keys=N
 *   walk median_ns=N rows=N kernel_walk_ns=N bos=N collect_ns=N
 *        account_ns=N release_ns=N (kernel time per phase, from stats)
 *   charged median_ns=N rows=N bytes=N      (with -n)
 *   held median_ns=N rows=N bytes=N         (with -n)
 *   charged1 median_ns=N rows=N             (with -n: charged, pid 1 only:
 *                                            the fixed cost of a dump)
 *   cmd median_ns=N                         (with -x)
 *   orphans median_ns=N rows=N              (with -o)
 *   bufs median_ns=N rows=N                 (with -o)
 *   frag median_ns=N rows=N cached_ns=N     (with -f)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include "../../uapi/gpumem.h"

#define DRM_MAJOR	226
#define MAX_REPEAT	1000

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long long median(unsigned long long *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return v[n / 2];
}

/* Read a whole small file into buf; returns its length or -1. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

/* One nvtop-style scan. Returns the DRM fds seen; *keys gets drm-* keys. */
static int scan_fdinfo(long *keys)
{
	static char buf[16384];
	struct dirent *p, *f;
	DIR *proc, *fds;
	int drm_fds = 0;

	*keys = 0;
	proc = opendir("/proc");
	if (!proc)
		return -1;
	while ((p = readdir(proc))) {
		char path[600];

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			struct stat st;
			char *line;

			if (f->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fd/%s",
				 p->d_name, f->d_name);
			if (stat(path, &st) || !S_ISCHR(st.st_mode) ||
			    major(st.st_rdev) != DRM_MAJOR)
				continue;
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s",
				 p->d_name, f->d_name);
			if (slurp(path, buf, sizeof(buf)) < 0)
				continue;
			drm_fds++;
			for (line = strtok(buf, "\n"); line;
			     line = strtok(NULL, "\n"))
				if (!strncmp(line, "drm-", 4))
					(*keys)++;
		}
		closedir(fds);
	}
	closedir(proc);
	return drm_fds;
}

/* One read of a gpumem debugfs file. Returns its rows. */
static int scan_file(const char *path)
{
	static char buf[1 << 16];
	int fd, rows = 0;
	ssize_t n, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < n; i++)
			rows += buf[i] == '\n';
	close(fd);
	return rows - 1;
}

/* One read of the gpumem processes file (a walk). Returns its rows. */
static int scan_walk(void)
{
	return scan_file("/sys/kernel/debug/gpumem/processes");
}

/* --- the netlink dump -------------------------------------------------------- */

struct dump_count {
	long rows;
	unsigned long long bytes;	/* vram + gtt of every row */
};

/*
 * A row: one pass over its attributes, as a lean consumer reads them (the
 * pid; each usage nest's region and bytes).
 */
static void dump_row(struct nlmsghdr *h, struct dump_count *dc)
{
	struct nlattr *pos, *in;
	int rem, irem, has_pid = 0;
	unsigned long long bytes = 0;

	nlmsg_for_each_attr(pos, h, GENL_HDRLEN, rem) {
		uint32_t region = UINT32_MAX;	/* none sent */
		uint64_t b = 0;

		if (nla_type(pos) == GPUMEM_A_PROC_PID) {
			has_pid = 1;
			continue;
		}
		if (nla_type(pos) != GPUMEM_A_PROC_USAGE)
			continue;
		nla_for_each_nested(in, pos, irem) {
			if (nla_type(in) == GPUMEM_A_USAGE_REGION && nla_len(in) == 4)
				region = nla_get_u32(in);
			else if (nla_type(in) == GPUMEM_A_USAGE_BYTES && nla_len(in) == 8)
				b = nla_get_u64(in);
		}
		if (region <= GPUMEM_REGION_GTT)
			bytes += b;
	}
	if (!has_pid)
		return;
	dc->rows++;
	dc->bytes += bytes;
}

/*
 * One proc-get dump in @view (of @pid only, if not 0); 0 or -1. Received
 * as gpumemctl's transport (libgpumem's gm_nl_run) does: a datagram per
 * nl_recv(), its messages walked in place.
 */
static int proc_dump(struct nl_sock *sk, int family, uint32_t view, uint32_t pid,
		     struct dump_count *dc)
{
	struct nl_msg *m = nlmsg_alloc();
	int ret;

	memset(dc, 0, sizeof(*dc));
	if (!m)
		return -1;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
			 GPUMEM_CMD_PROC_GET, GPUMEM_FAMILY_VERSION) ||
	    nla_put_u32(m, GPUMEM_A_PROC_VIEW, view) < 0 ||
	    (pid && nla_put_u32(m, GPUMEM_A_PROC_PID, pid) < 0)) {
		nlmsg_free(m);
		return -1;
	}
	ret = nl_send_auto(sk, m);
	nlmsg_free(m);
	if (ret < 0)
		return -1;
	for (;;) {
		unsigned char *buf = NULL;
		struct sockaddr_nl from;
		struct nlmsghdr *h;
		int n = nl_recv(sk, &from, &buf, NULL);

		if (n <= 0) {
			free(buf);
			return -1;
		}
		for (h = (struct nlmsghdr *)buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				ret = h->nlmsg_type == NLMSG_DONE ? 0 : -1;
				free(buf);
				return ret;
			}
			dump_row(h, dc);
		}
		free(buf);
	}
}

extern char **environ;

/* Run argv once with stdout to /dev/null; returns its exit status or -1. */
static int run_cmd(char **argv)
{
	posix_spawn_file_actions_t fa;
	int status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static unsigned long long stat_value(const char *name)
{
	char buf[1024], *p;
	size_t len = strlen(name);

	if (slurp("/sys/kernel/debug/gpumem/stats", buf, sizeof(buf)) < 0)
		return 0;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (!strncmp(p, name, len) && p[len] == ' ')
			return strtoull(p + len + 1, NULL, 10);
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned long long t_fd[MAX_REPEAT], t_walk[MAX_REPEAT],
		k_walk[MAX_REPEAT], k_col[MAX_REPEAT], k_acc[MAX_REPEAT],
		k_rel[MAX_REPEAT], t_cmd[MAX_REPEAT], t_charged[MAX_REPEAT],
		t_held[MAX_REPEAT], t_none[MAX_REPEAT];
	int repeat = 15, i, fds = 0, rows = 0, opt, nargs = 0, family = -1;
	struct dump_count dc_charged = { 0 }, dc_held = { 0 }, dc_none = { 0 };
	struct nl_sock *sk = NULL;
	bool use_nl = false, use_orphans = false, use_frag = false;
	static unsigned long long t_orph[MAX_REPEAT], t_frag[MAX_REPEAT],
		t_fragc[MAX_REPEAT], t_bufs[MAX_REPEAT];
	int orows = 0, frows = 0, brows = 0;
	char *cmd = NULL, *args[16];
	long keys = 0;

	while ((opt = getopt(argc, argv, "fnor:x:")) != -1) {
		if (opt == 'f') {
			use_frag = true;
			continue;
		}
		if (opt == 'o') {
			use_orphans = true;
			continue;
		}
		if (opt == 'x') {
			cmd = optarg;
			continue;
		}
		if (opt == 'n') {
			use_nl = true;
			continue;
		}
		if (opt != 'r') {
			fprintf(stderr, "usage: bench-scan [-r REPEAT] [-n] [-o] [-f] [-x CMD]\n");
			return 2;
		}
		repeat = atoi(optarg);
		if (repeat < 1 || repeat > MAX_REPEAT) {
			fprintf(stderr, "bench-scan: -r takes 1..%d\n",
				MAX_REPEAT);
			return 2;
		}
	}
	if (cmd) {
		for (args[nargs] = strtok(cmd, " "); args[nargs] && nargs < 15;
		     args[++nargs] = strtok(NULL, " "))
			;
		args[nargs] = NULL;
	}
	if (use_nl) {
		sk = nl_socket_alloc();
		if (sk) {	/* as libgpumem's gm_nl_open() */
			nl_socket_disable_msg_peek(sk);
			nl_socket_set_msg_buf_size(sk, 32768);
		}
		if (!sk || genl_connect(sk) < 0 ||
		    (family = genl_ctrl_resolve(sk, GPUMEM_FAMILY_NAME)) < 0) {
			fprintf(stderr, "bench-scan: no gpumem netlink family\n");
			return 1;
		}
	}
	/* Interleave the methods so all see the same machine state. */
	for (i = 0; i < repeat; i++) {
		unsigned long long t0 = now_ns();

		fds = scan_fdinfo(&keys);
		t_fd[i] = now_ns() - t0;
		t0 = now_ns();
		rows = scan_walk();
		t_walk[i] = now_ns() - t0;
		k_walk[i] = stat_value("last_walk_ns");
		k_col[i] = stat_value("last_walk_collect_ns");
		k_acc[i] = stat_value("last_walk_account_ns");
		k_rel[i] = stat_value("last_walk_release_ns");
		if (use_orphans) {
			t0 = now_ns();
			orows = scan_file("/sys/kernel/debug/gpumem/orphans");
			t_orph[i] = now_ns() - t0;
			if (orows < 0) {
				fprintf(stderr, "bench-scan: orphans read failed\n");
				return 1;
			}
			t0 = now_ns();
			brows = scan_file("/sys/kernel/debug/gpumem/buffers");
			t_bufs[i] = now_ns() - t0;
			if (brows < 0) {
				fprintf(stderr, "bench-scan: buffers read failed\n");
				return 1;
			}
		}
		if (use_frag) {
			/* out of the once-a-second cache (not timed) */
			usleep(1100 * 1000);
			t0 = now_ns();
			frows = scan_file("/sys/kernel/debug/gpumem/fragmentation");
			t_frag[i] = now_ns() - t0;
			t0 = now_ns();
			if (scan_file("/sys/kernel/debug/gpumem/fragmentation") != frows ||
			    frows < 0) {
				fprintf(stderr, "bench-scan: fragmentation read failed\n");
				return 1;
			}
			t_fragc[i] = now_ns() - t0;
		}
		if (cmd) {
			t0 = now_ns();
			if (run_cmd(args)) {
				fprintf(stderr, "bench-scan: %s failed\n", args[0]);
				return 1;
			}
			t_cmd[i] = now_ns() - t0;
		}
		if (use_nl) {
			t0 = now_ns();
			if (proc_dump(sk, family, GPUMEM_PROC_VIEW_CHARGED, 0, &dc_charged)) {
				fprintf(stderr, "bench-scan: charged dump failed\n");
				return 1;
			}
			t_charged[i] = now_ns() - t0;
			t0 = now_ns();
			if (proc_dump(sk, family, GPUMEM_PROC_VIEW_HELD, 0, &dc_held)) {
				fprintf(stderr, "bench-scan: held dump failed\n");
				return 1;
			}
			t_held[i] = now_ns() - t0;
			/* the fixed cost: the same dump filtered to init (no rows) */
			t0 = now_ns();
			if (proc_dump(sk, family, GPUMEM_PROC_VIEW_CHARGED, 1, &dc_none)) {
				fprintf(stderr, "bench-scan: filtered dump failed\n");
				return 1;
			}
			t_none[i] = now_ns() - t0;
		}
		if (fds < 0 || rows < 0) {
			fprintf(stderr, "bench-scan: scan failed (fds %d rows %d)\n",
				fds, rows);
			return 1;
		}
	}
	printf("fdinfo median_ns=%llu fds=%d keys=%ld\n", median(t_fd, repeat),
	       fds, keys);
	printf("walk median_ns=%llu rows=%d kernel_walk_ns=%llu bos=%llu collect_ns=%llu account_ns=%llu release_ns=%llu\n",
	       median(t_walk, repeat), rows, median(k_walk, repeat),
	       stat_value("last_walk_bos"), median(k_col, repeat),
	       median(k_acc, repeat), median(k_rel, repeat));
	if (use_nl) {
		printf("charged median_ns=%llu rows=%ld bytes=%llu\n",
		       median(t_charged, repeat), dc_charged.rows, dc_charged.bytes);
		printf("held median_ns=%llu rows=%ld bytes=%llu\n",
		       median(t_held, repeat), dc_held.rows, dc_held.bytes);
		printf("charged1 median_ns=%llu rows=%ld\n", median(t_none, repeat),
		       dc_none.rows);
		nl_socket_free(sk);
	}
	if (cmd)
		printf("cmd median_ns=%llu\n", median(t_cmd, repeat));
	if (use_orphans) {
		printf("orphans median_ns=%llu rows=%d\n", median(t_orph, repeat), orows);
		printf("bufs median_ns=%llu rows=%d\n", median(t_bufs, repeat), brows);
	}
	if (use_frag)
		printf("frag median_ns=%llu rows=%d cached_ns=%llu\n",
		       median(t_frag, repeat), frows, median(t_fragc, repeat));
	return 0;
}
