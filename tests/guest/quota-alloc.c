// SPDX-License-Identifier: GPL-2.0
/*
 * quota-alloc - qxl VRAM allocations for gpumem's quota tests and
 * benchmarks. Unlike gpumem-alloc it goes on after a denied allocation
 * (ENOMEM), can start several processes at the same moment, and times the
 * ioctls (CLOCK_MONOTONIC).
 *
 *   quota-alloc hold  [-n N] [-s SIZE] [-g GOFILE] [-t SECONDS] [-c COMM]
 *       try N allocations (a denied one is counted, not fatal), hold the
 *       ones that succeeded until SIGTERM/SIGINT or the hold time ends.
 *       With -g: print ARMED, then wait until GOFILE exists before starting.
 *       Prints: DEVICE cardN / ARMED pid / BO i handle=H size=S (each success)
 *               / TOTAL ok=K denied=D bytes=B / READY pid / FREED
 *   quota-alloc swarm -P PROCS [-n N] [-s SIZE] [-g GOFILE] [-c COMM]
 *       fork PROCS processes, each with a file of its own on the device;
 *       once all are ready (ARMED), each waits for GOFILE, tries N
 *       allocations, frees them and exits. Prints: ARMED pid /
 *       TOTAL ok=K denied=D bytes=B (all of them) / READY pid
 *   quota-alloc churn [-n N] [-s SIZE] [-c COMM]
 *       N x (create one BO, close its handle), or fewer until SIGTERM;
 *       any failure is fatal.
 *       Prints: CHURN n=N total_ns=T median_ns=M p10_ns=.. p90_ns=..
 *   quota-alloc deny  [-n N] [-s SIZE] [-p PACE_US] [-o FILE] [-c COMM]
 *       N allocations that are expected to be denied (a success is closed
 *       again and counted); -o writes "t_before_ns t_after_ns errno" per
 *       attempt; -p sleeps between attempts.
 *       Prints: DENY n=N denied=D ok=K other=O median_ns=M p90_ns=.. total_ns=T
 *   quota-alloc orphan [-n N] [-s SIZE] [-t SECONDS] [-c COMM]
 *       allocate N buffers, mmap each and close its GEM handle: the
 *       mappings keep the buffers alive with no handle and no dma-buf.
 *       Prints: DEVICE cardN / TOTAL ok=K denied=D bytes=B / READY pid
 *   quota-alloc sample -g STOPFILE -o CGROUP [-t SECONDS]
 *       read the debugfs quotas file in a loop until STOPFILE exists and
 *       report the highest usage of CGROUP's all-devices vram row.
 *       Prints: SAMPLES n=N max=M
 *   quota-alloc stair [-n N] [-s SIZE] -p PACE_US [-t SECONDS] [-c COMM]
 *       a staircase: one allocation every PACE_US, N in all, every one
 *       held; then hold until SIGTERM/SIGINT or -t SECONDS (from the start)
 *       ends. Any failure is fatal.
 *       Prints: DEVICE cardN / READY pid (before the first) / STEP i
 *               bytes=B (the bytes held after each) / TOTAL ok=N denied=0
 *               bytes=B / FREED
 *   quota-alloc saw [-n N] [-s SIZE] -p PACE_US [-f FLOOR] [-r] [-F]
 *                   [-t SECONDS] [-c COMM]
 *       a sawtooth: allocate N, hold them PACE_US, free them all, wait
 *       PACE_US, again, until SIGTERM/SIGINT or -t SECONDS ends; over a
 *       floor of FLOOR buffers held throughout (allocated before READY).
 *       -r: the peaks rise, cycle k allocates N + k (at most 4N); -F: the
 *       floor falls, one of its buffers freed after each cycle. Any
 *       failure is fatal. Prints: DEVICE cardN / READY pid / SAW cycles=C
 *       floor=F (buffers left of it) peak=P (the most allocated in a cycle)
 *   quota-alloc replace [-n N] [-s SIZE] -g GOBASE [-o CGROUPDIR] [-t SECONDS] [-c COMM]
 *       allocate N buffers (any failure is fatal) and hold them. The passes:
 *       pass K (1, 2, ...) starts once the file GOBASE.K exists and makes a
 *       QXL_UPDATE_AREA of a 1x1 area on every buffer, for which qxl first
 *       validates the buffer into its domain (VRAM) again if it was
 *       evicted. With -o a forked child makes the passes, from CGROUPDIR
 *       (it shares the file and the handles: the same buffers, asked for
 *       by a process in another cgroup; its name is gm-replace-c);
 *       without, the process itself.
 *       A pass counts ok (validated: qxl then refuses the area of a buffer
 *       without a surface, EINVAL) and denied (ENOMEM/ENOSPC); any other
 *       result is fatal. A go file that says "exec" makes that pass an
 *       EXECBUFFER of a no-op drawable with a reloc to each buffer instead
 *       (qxl validates the buffer first, and backs off cleanly on failure;
 *       UPDATE_AREA keeps the buffer reserved then, see
 *       kmod/evict_guard.c).
 *       Prints: DEVICE cardN / BO i handle=H size=S / CHILD pid=P (with -o,
 *               once it is in CGROUPDIR) / READY pid / ROUND K ok=O
 *               denied=D via=update|exec (each pass) / FREED
 *   quota-alloc anchor -d DRIVER [-t SECONDS]
 *       keep the first device of DRIVER (qxl, bochs, ...) open, not as DRM
 *       master, so that no test process closes its last file (the driver
 *       restores its fbdev console on the last close, allocating in the
 *       closing task's context). Prints: DEVICE cardN / READY pid
 * SIZE takes K/M suffixes (binary). Exit status 0, 1 on a fatal error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <qxl_drm.h>
#include "helper-common.h"

static uint64_t parse_num(const char *s, bool size)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		die("bad number '%s'", s);
	if (size && (*end == 'k' || *end == 'K'))
		mult = 1ull << 10, end++;
	else if (size && (*end == 'm' || *end == 'M'))
		mult = 1ull << 20, end++;
	if (*end || v > UINT64_MAX / mult)
		die("bad number '%s'", s);
	return v * mult;
}

/* The first /dev/dri/cardN whose driver name starts with @drv. */
static int open_card(const char *drv, char *node, size_t len)
{
	char path[64];
	int minor;

	for (minor = 0; minor < 64; minor++) {
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", minor);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && !strncmp(v->name, drv, strlen(drv))) {
			drmFreeVersion(v);
			snprintf(node, len, "card%d", minor);
			return fd;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
	}
	die("no %s device", drv);
}

/* One VRAM allocation: 0 and the handle, or the errno. */
static int qxl_alloc(int fd, uint64_t size, uint32_t *handle)
{
	struct drm_qxl_alloc a = { .size = (uint32_t)size };

	if (ioctl(fd, DRM_IOCTL_QXL_ALLOC, &a))
		return errno;
	*handle = a.handle;
	return 0;
}

static void qxl_free(int fd, uint32_t handle)
{
	if (drmCloseBufferHandle(fd, handle))
		die("close handle %u: %s", handle, strerror(errno));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile P (0..100) of N sorted values. */
static uint64_t pct(const uint64_t *v, size_t n, unsigned int p)
{
	if (!n)
		return 0;
	return v[(n - 1) * p / 100];
}

struct opts {
	uint64_t count, size, pace_us, hold, procs, floor;
	bool rising, falling;
	const char *go, *out, *driver;
};

/* Wait -t seconds, or until a termination signal. */
static void hold(const struct opts *o)
{
	uint64_t end = now_ns() + o->hold * 1000000000ull;

	while (!stop_signal && now_ns() < end)
		usleep(20000);
}

/* What was allocated, then READY: the test may look now. */
static void report_ready(uint64_t ok, uint64_t denied, const struct opts *o)
{
	printf("TOTAL ok=%" PRIu64 " denied=%" PRIu64 " bytes=%" PRIu64 "\n", ok, denied,
	       ok * o->size);
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
}

static int cmd_anchor(int fd, const char *node, const struct opts *o)
{
	if (drmIsMaster(fd) && drmDropMaster(fd))
		die("%s: drmDropMaster: %s", node, strerror(errno));
	printf("DEVICE %s\n", node);
	printf("READY %d\n", (int)getpid());
	hold(o);
	printf("FREED\n");
	return 0;
}

static int cmd_hold(int fd, const char *node, const struct opts *o)
{
	uint32_t *h = calloc(o->count, sizeof(*h));
	uint64_t ok = 0, denied = 0, i;

	if (!h)
		die("out of memory");
	printf("DEVICE %s\n", node);
	if (o->go) {
		printf("ARMED %d\n", (int)getpid());
		fflush(stdout);
		while (access(o->go, F_OK) && !stop_signal)
			usleep(500);
	}
	for (i = 0; i < o->count && !stop_signal; i++) {
		int err = qxl_alloc(fd, o->size, &h[ok]);

		if (err == ENOMEM || err == ENOSPC) {
			denied++;
			continue;
		}
		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size, strerror(err));
		printf("BO %" PRIu64 " handle=%u size=%" PRIu64 "\n", i, h[ok], o->size);
		ok++;
	}
	report_ready(ok, denied, o);
	hold(o);
	for (i = 0; i < ok; i++)
		qxl_free(fd, h[i]);
	printf("FREED\n");
	free(h);
	return 0;
}

#define GM_QXL_CMD_DRAW	1	/* spice's QXL_CMD_DRAW (qxl_dev.h, not uapi) */

/*
 * One EXECBUFFER of a no-op drawable (zeros: QXL_DRAW_NOP on surface 0)
 * with a reloc to @handle: qxl reserves and validates the buffer first
 * (qxl_release_reserve_list) and backs off cleanly when that fails.
 */
static int qxl_exec_reloc(int fd, uint32_t handle)
{
	static uint8_t drawable[128];
	struct drm_qxl_reloc r = {
		.src_handle = handle, .dst_handle = 0, .reloc_type = QXL_RELOC_TYPE_BO,
		.dst_offset = 64,	/* inside the drawable, past its header */
	};
	struct drm_qxl_command c = {
		.command = (uintptr_t)drawable, .relocs = (uintptr_t)&r,
		.type = GM_QXL_CMD_DRAW, .command_size = sizeof(drawable), .relocs_num = 1,
	};
	struct drm_qxl_execbuffer e = { .commands_num = 1, .commands = (uintptr_t)&c };

	return ioctl(fd, DRM_IOCTL_QXL_EXECBUFFER, &e) ? errno : 0;
}

/*
 * One pass of "replace", counted: an UPDATE_AREA of every buffer, or, when
 * the pass's go file says "exec", an EXECBUFFER referring to it.
 */
static void replace_pass(int fd, const char *node, const uint32_t *h, uint64_t n,
			 unsigned int k, bool exec)
{
	uint64_t ok = 0, denied = 0, i;

	for (i = 0; i < n; i++) {
		struct drm_qxl_update_area u = {
			.handle = h[i], .top = 0, .left = 0, .bottom = 1, .right = 1,
		};
		int err;

		if (exec)
			err = qxl_exec_reloc(fd, h[i]);
		else
			err = ioctl(fd, DRM_IOCTL_QXL_UPDATE_AREA, &u) ? errno : 0;
		if (err == ENOMEM || err == ENOSPC)
			denied++;
		else if (!err || (!exec && err == EINVAL))
			ok++;
		else
			die("%s: %s handle %u: %s", node,
			    exec ? "DRM_IOCTL_QXL_EXECBUFFER" : "DRM_IOCTL_QXL_UPDATE_AREA",
			    h[i], strerror(err));
	}
	printf("ROUND %u ok=%" PRIu64 " denied=%" PRIu64 " via=%s\n", k, ok, denied,
	       exec ? "exec" : "update");
	fflush(stdout);
}

/* The passes of "replace", until a signal or the hold time ends. */
static void replace_passes(int fd, const char *node, const uint32_t *h,
			   const struct opts *o)
{
	uint64_t end = now_ns() + o->hold * 1000000000ull;
	unsigned int k = 1;
	char go[4096];

	while (!stop_signal && now_ns() < end) {
		char word[8] = "";
		FILE *f;

		snprintf(go, sizeof(go), "%s.%u", o->go, k);
		f = fopen(go, "r");
		if (!f) {
			usleep(2000);
			continue;
		}
		if (!fgets(word, sizeof(word), f))
			word[0] = '\0';
		fclose(f);
		replace_pass(fd, node, h, o->count, k++, !strncmp(word, "exec", 4));
	}
}

static int cmd_replace(int fd, const char *node, const struct opts *o)
{
	uint32_t *h = calloc(o->count, sizeof(*h));
	pid_t child = -1;
	uint64_t i;

	if (!h)
		die("out of memory");
	if (!o->go)
		die("replace needs -g GOBASE");
	printf("DEVICE %s\n", node);
	for (i = 0; i < o->count; i++) {
		int err = qxl_alloc(fd, o->size, &h[i]);

		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size, strerror(err));
		printf("BO %" PRIu64 " handle=%u size=%" PRIu64 "\n", i, h[i], o->size);
	}
	if (o->out) {
		int p[2];
		char c;

		if (pipe(p))
			die("pipe: %s", strerror(errno));
		fflush(stdout);
		child = fork();
		if (child < 0)
			die("fork: %s", strerror(errno));
		if (!child) {
			char path[4096];
			FILE *f;

			prctl(PR_SET_PDEATHSIG, SIGTERM);
			prctl(PR_SET_NAME, "gm-replace-c");
			close(p[0]);
			snprintf(path, sizeof(path), "%s/cgroup.procs", o->out);
			f = fopen(path, "w");
			if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
				die("cannot move into %s: %s", o->out, strerror(errno));
			printf("CHILD pid=%d\n", (int)getpid());
			fflush(stdout);
			if (write(p[1], "x", 1) != 1)
				die("pipe: %s", strerror(errno));
			close(p[1]);
			replace_passes(fd, node, h, o);
			_exit(0);
		}
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			die("replace: the child did not get into %s", o->out);
		close(p[0]);
		printf("READY %d\n", (int)getpid());
		fflush(stdout);
		hold(o);
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	} else {
		printf("READY %d\n", (int)getpid());
		fflush(stdout);
		replace_passes(fd, node, h, o);
	}
	for (i = 0; i < o->count; i++)
		qxl_free(fd, h[i]);
	printf("FREED\n");
	free(h);
	return 0;
}

/* Sleep @us, or less when a termination signal comes. */
static void nap(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000ull;

	while (!stop_signal && now_ns() < end)
		usleep(us < 20000 ? (useconds_t)us : 20000);
}

static int cmd_stair(int fd, const char *node, const struct opts *o)
{
	uint32_t *h = calloc(o->count, sizeof(*h));
	uint64_t end = now_ns() + o->hold * 1000000000ull, ok, i;

	if (!h)
		die("out of memory");
	if (!o->pace_us)
		die("stair needs -p PACE_US");
	printf("DEVICE %s\n", node);
	printf("READY %d\n", (int)getpid());
	for (ok = 0; ok < o->count && !stop_signal; ok++) {
		int err;

		if (ok)
			nap(o->pace_us);
		err = qxl_alloc(fd, o->size, &h[ok]);
		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size, strerror(err));
		printf("STEP %" PRIu64 " bytes=%" PRIu64 "\n", ok, (ok + 1) * o->size);
	}
	printf("TOTAL ok=%" PRIu64 " denied=0 bytes=%" PRIu64 "\n", ok, ok * o->size);
	while (!stop_signal && now_ns() < end)
		usleep(20000);
	for (i = 0; i < ok; i++)
		qxl_free(fd, h[i]);
	printf("FREED\n");
	free(h);
	return 0;
}

static int cmd_saw(int fd, const char *node, const struct opts *o)
{
	uint64_t max = o->rising ? 4 * o->count : o->count;
	uint32_t *h = calloc(max, sizeof(*h));
	uint32_t *fl = calloc(o->floor + 1, sizeof(*fl));
	uint64_t end, cycles = 0, i, n, nfloor = 0, peak = 0;

	if (!h || !fl)
		die("out of memory");
	if (!o->pace_us)
		die("saw needs -p PACE_US");
	printf("DEVICE %s\n", node);
	for (; nfloor < o->floor; nfloor++) {
		int err = qxl_alloc(fd, o->size, &fl[nfloor]);

		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 " (floor): %s", node, o->size,
			    strerror(err));
	}
	printf("READY %d\n", (int)getpid());
	fflush(stdout);
	end = now_ns() + o->hold * 1000000000ull;
	while (!stop_signal && now_ns() < end) {
		n = o->rising ? o->count + cycles : o->count;
		if (n > max)
			n = max;
		for (i = 0; i < n; i++) {
			int err = qxl_alloc(fd, o->size, &h[i]);

			if (err)
				die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size,
				    strerror(err));
		}
		if (n > peak)
			peak = n;
		nap(o->pace_us);
		for (i = 0; i < n; i++)
			qxl_free(fd, h[i]);
		if (o->falling && nfloor)
			qxl_free(fd, fl[--nfloor]);
		cycles++;
		nap(o->pace_us);
	}
	printf("SAW cycles=%" PRIu64 " floor=%" PRIu64 " peak=%" PRIu64 "\n", cycles, nfloor, peak);
	for (i = 0; i < nfloor; i++)
		qxl_free(fd, fl[i]);
	free(fl);
	free(h);
	return 0;
}

static int cmd_orphan(int fd, const char *node, const struct opts *o)
{
	void **maps = calloc(o->count, sizeof(*maps));
	uint64_t ok = 0, denied = 0, i;

	if (!maps)
		die("out of memory");
	printf("DEVICE %s\n", node);
	for (i = 0; i < o->count; i++) {
		struct drm_qxl_map m = { 0 };
		uint32_t handle = 0;
		int err = qxl_alloc(fd, o->size, &handle);

		if (err == ENOMEM || err == ENOSPC) {
			denied++;
			continue;
		}
		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size, strerror(err));
		m.handle = handle;
		if (ioctl(fd, DRM_IOCTL_QXL_MAP, &m))
			die("%s: DRM_IOCTL_QXL_MAP: %s", node, strerror(errno));
		maps[ok] = mmap(NULL, o->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)m.offset);
		if (maps[ok] == MAP_FAILED)
			die("%s: mmap: %s", node, strerror(errno));
		qxl_free(fd, handle);
		printf("MAPPED %" PRIu64 " size=%" PRIu64 "\n", i, o->size);
		ok++;
	}
	report_ready(ok, denied, o);
	hold(o);
	for (i = 0; i < ok; i++)
		munmap(maps[i], o->size);
	printf("FREED\n");
	free(maps);
	return 0;
}

static int cmd_churn(int fd, const char *node, const struct opts *o)
{
	uint64_t *t = calloc(o->count, sizeof(*t)), i, start, total;

	if (!t)
		die("out of memory");
	start = now_ns();
	for (i = 0; i < o->count && !stop_signal; i++) {
		uint64_t t0 = now_ns();
		uint32_t handle = 0;
		int err = qxl_alloc(fd, o->size, &handle);

		if (err)
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 " (iteration %" PRIu64 "): %s",
			    node, o->size, i, strerror(err));
		qxl_free(fd, handle);
		t[i] = now_ns() - t0;
	}
	total = now_ns() - start;
	qsort(t, i, sizeof(*t), cmp_u64);
	printf("CHURN n=%" PRIu64 " total_ns=%" PRIu64 " median_ns=%" PRIu64 " p10_ns=%" PRIu64
	       " p90_ns=%" PRIu64 "\n", i, total, pct(t, i, 50), pct(t, i, 10), pct(t, i, 90));
	free(t);
	return 0;
}

static int cmd_deny(int fd, const char *node, const struct opts *o)
{
	uint64_t *t = calloc(o->count, sizeof(*t)), i, n = 0, denied = 0, ok = 0, other = 0;
	uint64_t start, total;
	FILE *out = NULL;

	if (!t)
		die("out of memory");
	if (o->out && !(out = fopen(o->out, "w")))
		die("%s: %s", o->out, strerror(errno));
	if (out)
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	start = now_ns();
	for (i = 0; i < o->count && !stop_signal; i++) {
		uint32_t handle = 0;
		uint64_t t0, t1;
		int err;

		t0 = now_ns();
		err = qxl_alloc(fd, o->size, &handle);
		t1 = now_ns();
		t[n++] = t1 - t0;
		if (out)
			fprintf(out, "%" PRIu64 " %" PRIu64 " %d\n", t0, t1, err);
		if (!err) {
			ok++;
			qxl_free(fd, handle);
		} else if (err == ENOMEM || err == ENOSPC) {
			denied++;
		} else {
			other++;
		}
		if (o->pace_us)
			usleep(o->pace_us);
	}
	total = now_ns() - start;
	if (out && fclose(out))
		die("%s: %s", o->out, strerror(errno));
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("DENY n=%" PRIu64 " denied=%" PRIu64 " ok=%" PRIu64 " other=%" PRIu64
	       " median_ns=%" PRIu64 " p90_ns=%" PRIu64 " total_ns=%" PRIu64 " device=%s\n",
	       n, denied, ok, other, pct(t, n, 50), pct(t, n, 90), total, node);
	free(t);
	return 0;
}

/* The usage column of CGROUP's "all vram" row of the quotas file, or -1. */
static long long quota_usage(const char *cgroup)
{
	static char buf[1 << 16];
	long long usage = -1;
	char *line, *save = NULL;
	size_t len;
	FILE *f;

	f = fopen("/sys/kernel/debug/gpumem/quotas", "r");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char cg[256], dev[32], region[16], max[32], high[32], mode[16];
		unsigned long long id, u, d;

		if (sscanf(line, "%llu %255s %31s %15s %31s %31s %15s %llu %llu", &id, cg, dev, region,
			   max, high, mode, &u, &d) == 9 &&
		    !strcmp(cg, cgroup) && !strcmp(dev, "all") && !strcmp(region, "vram"))
			usage = (long long)u;
	}
	return usage;
}

/*
 * One process of a swarm: its counts go to the parent through @wfd. It
 * blocks on @gofd until the parent closes the other end (the start for all
 * at once; no process polls), and dies with the parent.
 */
static void swarm_child(const struct opts *o, int wfd, int gofd, pid_t parent)
{
	uint64_t counts[2] = { 0, 0 }, i, n = 0;
	uint32_t *h = calloc(o->count, sizeof(*h));
	char node[32], byte;
	int fd;
	ssize_t r;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	fd = open_card("qxl", node, sizeof(node));
	if (!h)
		die("out of memory");
	if (write(wfd, counts, 1) != 1)	/* one byte: ready */
		die("swarm: write: %s", strerror(errno));
	do
		r = read(gofd, &byte, 1);
	while (r < 0 && errno == EINTR && !stop_signal);
	for (i = 0; i < o->count && !stop_signal; i++) {
		int err = qxl_alloc(fd, o->size, &h[n]);

		if (!err)
			n++;
		else if (err == ENOMEM || err == ENOSPC)
			counts[1]++;
		else
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 ": %s", node, o->size, strerror(err));
	}
	counts[0] = n;
	for (i = 0; i < n; i++)
		qxl_free(fd, h[i]);
	if (write(wfd, counts, sizeof(counts)) != sizeof(counts))
		die("swarm: write: %s", strerror(errno));
	_exit(0);
}

static int cmd_swarm(const struct opts *o)
{
	uint64_t ok = 0, denied = 0, i, counts[2];
	pid_t self = getpid();
	char byte;
	int p[2], go[2];

	if (!o->procs || !o->go)
		die("swarm needs -P PROCS and -g GOFILE");
	if (pipe(p) || pipe(go))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	for (i = 0; i < o->procs; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			close(p[0]);
			close(go[1]);
			swarm_child(o, p[1], go[0], self);
		}
	}
	close(p[1]);
	close(go[0]);
	for (i = 0; i < o->procs; i++)
		if (read(p[0], &byte, 1) != 1)
			die("swarm: a process died before it was ready");
	printf("ARMED %d\n", (int)self);
	fflush(stdout);
	/* one process polls for GOFILE; closing the pipe starts them all */
	while (access(o->go, F_OK) && !stop_signal)
		usleep(1000);
	if (stop_signal)
		die("swarm: stopped before the start");	/* the children die with us */
	close(go[1]);
	for (i = 0; i < o->procs; i++) {
		if (read(p[0], counts, sizeof(counts)) != sizeof(counts))
			die("swarm: a process died before it reported");
		ok += counts[0];
		denied += counts[1];
	}
	while (wait(NULL) > 0)
		;
	report_ready(ok, denied, o);
	return 0;
}

static int cmd_sample(const struct opts *o)
{
	uint64_t n = 0, end = now_ns() + o->hold * 1000000000ull;
	long long max = -1;

	if (!o->go || !o->out)
		die("sample needs -g STOPFILE -o CGROUP");
	printf("READY %d\n", (int)getpid());
	while (access(o->go, F_OK) && !stop_signal && now_ns() < end) {
		long long u = quota_usage(o->out);

		if (u > max)
			max = u;
		n++;
	}
	printf("SAMPLES n=%" PRIu64 " max=%lld\n", n, max);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .count = 1, .size = 1 << 20, .hold = 300 };
	struct sigaction sa;
	const char *cmd;
	char node[32];
	int opt, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		die("usage: quota-alloc hold|swarm|churn|deny|orphan|stair|saw|sample|replace|anchor [-P PROCS] [-d DRIVER] [-n N] [-s SIZE] [-g GOFILE] [-t SECS] "
		    "[-p PACE_US] [-o FILE] [-c COMM]");
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "n:s:g:t:p:o:c:d:P:f:rF")) != -1) {
		switch (opt) {
		case 'f': o.floor = parse_num(optarg, false); break;
		case 'r': o.rising = true; break;
		case 'F': o.falling = true; break;
		case 'P': o.procs = parse_num(optarg, false); break;
		case 'd': o.driver = optarg; break;
		case 'n': o.count = parse_num(optarg, false); break;
		case 's': o.size = parse_num(optarg, true); break;
		case 'g': o.go = optarg; break;
		case 't': o.hold = parse_num(optarg, false); break;
		case 'p': o.pace_us = parse_num(optarg, false); break;
		case 'o': o.out = optarg; break;
		case 'c':
			if (prctl(PR_SET_NAME, optarg))
				die("PR_SET_NAME: %s", strerror(errno));
			break;
		default: die("bad option");
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (!o.count || o.count > 10000000 || !o.size || o.size > UINT32_MAX)
		die("bad count or size");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	if (!strcmp(cmd, "sample"))
		return cmd_sample(&o);
	if (!strcmp(cmd, "swarm"))
		return cmd_swarm(&o);
	fd = open_card(o.driver ? o.driver : "qxl", node, sizeof(node));
	if (!strcmp(cmd, "anchor"))
		return cmd_anchor(fd, node, &o);
	if (o.driver && strcmp(o.driver, "qxl"))
		die("%s allocates on qxl only", cmd);
	if (!strcmp(cmd, "hold"))
		return cmd_hold(fd, node, &o);
	if (!strcmp(cmd, "churn"))
		return cmd_churn(fd, node, &o);
	if (!strcmp(cmd, "orphan"))
		return cmd_orphan(fd, node, &o);
	if (!strcmp(cmd, "stair"))
		return cmd_stair(fd, node, &o);
	if (!strcmp(cmd, "saw"))
		return cmd_saw(fd, node, &o);
	if (!strcmp(cmd, "replace"))
		return cmd_replace(fd, node, &o);
	if (!strcmp(cmd, "deny"))
		return cmd_deny(fd, node, &o);
	die("unknown command '%s'", cmd);
}
