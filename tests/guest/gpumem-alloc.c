// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem-alloc - allocate GPU buffers whose accounting the gpumem guest
 * tests know exactly, print what was allocated, then hold them.
 *
 *   gpumem-alloc list
 *   gpumem-alloc alloc      -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] [hold options]
 *   gpumem-alloc export     -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] -S SOCKET [hold options]
 *   gpumem-alloc import     -d DRIVER -S SOCKET [hold options]
 *   gpumem-alloc selfimport -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] [hold options]
 *   gpumem-alloc forkhold   -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] [hold options]
 *                           a forked child keeps the card fd, outlives the parent
 *   gpumem-alloc forkmany   -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] -F CHILDREN [hold options]
 *                           CHILDREN forked children keep the card fd (each only
 *                           waits for a signal), outlive the parent
 *   gpumem-alloc sendcard   -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] -S SOCKET [hold options]
 *   gpumem-alloc recvcard   -S SOCKET [hold options]   the card fd itself over SCM_RIGHTS
 *   gpumem-alloc maphold|mapfork -d DRIVER [-k KIND] [-n COUNT] [-s SIZE] [hold options]
 *                           every BO mapped, its handle closed (mapfork: then a
 *                           forked child keeps the mappings, outlives the parent)
 *   gpumem-alloc watch-opens [-t SECONDS]   print "OPEN <name>" for every open of a
 *                                           node in /dev/dri (inotify) until a signal
 *
 * Output is line based, for awk:
 *   DEVICE card0 driver=qxl
 *   BO 0 handle=1 size=1048576 kind=vram          one per allocated buffer
 *   EXPORTED handle=1 size=1048576 via=dma-buf    export: the BO served on SOCKET (via=flink
 *                                                 where the driver has no PRIME export)
 *   SENT 1                                        export: an importer got the fd
 *   IMPORTED handle=2 size=1048576                import / selfimport (file 2)
 *   TOTAL bos=3 bytes=3145728                     distinct BOs held, their bytes
 *   CHILD pid=N                                   forkhold / mapfork: the child's pid
 *   CHILDREN n=N first=P last=Q                   forkmany: N children forked, pids P..Q
 *   RECEIVED fd=N                                 recvcard: the card fd received
 *   MAPPED bos=3 bytes=3145728                    maphold / mapfork: mapped, handles closed
 *   READY <pid>                                   everything is in place
 *   FREED                                         buffers released, exiting
 * Sizes are the ones the kernel uses (dumb: the size the ioctl returned;
 * qxl: the requested size rounded up to the page size, as qxl_bo_create does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>
#include <qxl_drm.h>
#include "helper-common.h"

#define MAX_BOS		1024
#define DUMB_WIDTH	1024	/* pixels per row of a dumb buffer */
#define DUMB_BPP	32

enum kind { KIND_VRAM, KIND_SURFACE, KIND_DUMB, KIND_SCANOUT, KIND_MODE };
static const char *const kind_names[] = { "vram", "surface", "dumb", "scanout", "mode" };

struct card {
	int fd;
	char node[32];		/* "card0" */
	char driver[64];	/* drmGetVersion()->name */
};

struct bo {
	uint32_t handle;
	uint64_t size;
	enum kind kind;
};

struct opts {
	const char *driver;
	const char *socket;
	const char *comm;
	enum kind kind;
	bool kind_set;
	unsigned int count;
	uint64_t size;
	unsigned int hold_seconds;
	unsigned int children;
	bool watch_stdin;
};

/* Scanout state, for the one CRTC a "scanout" allocation drives. */
static struct {
	uint32_t fb_id;
	uint32_t crtc_id;
} scanout;

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* A test script that dies must not leave buffers held behind it. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
}

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* "1048576", "1024K", "1M", "2G" (binary units) */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad size '%s'", s);
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	}
	if (*end || v == 0 || v > UINT64_MAX / mult)
		die("bad size '%s'", s);
	return v * mult;
}

static unsigned int parse_uint(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT_MAX)
		die("bad %s '%s'", what, s);
	return v;
}

static bool driver_matches(const char *want, const char *have)
{
	if (!strcmp(want, have))
		return true;
	/* bochs is "bochs-drm" up to 6.x; accept either spelling both ways. */
	if (!strncmp(want, "bochs", 5) && !strncmp(have, "bochs", 5))
		return true;
	if (!strcmp(want, "virtio") && !strcmp(have, "virtio_gpu"))
		return true;
	return false;
}

/* Open /dev/dri/cardN; fill node and driver. Returns fd or -1. */
static int open_card_node(int minor, struct card *c)
{
	char path[64];
	drmVersionPtr v;
	int fd;

	snprintf(path, sizeof(path), "/dev/dri/card%d", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	v = drmGetVersion(fd);
	if (!v) {
		close(fd);
		return -1;
	}
	c->fd = fd;
	snprintf(c->node, sizeof(c->node), "card%d", minor);
	snprintf(c->driver, sizeof(c->driver), "%s", v->name);
	drmFreeVersion(v);
	return fd;
}

/* Open the first card whose driver matches; a second call opens it again. */
static void open_card(const char *driver, struct card *c)
{
	struct card tmp;
	int minor;

	for (minor = 0; minor < 64; minor++) {
		if (open_card_node(minor, &tmp) < 0)
			continue;
		if (driver_matches(driver, tmp.driver)) {
			*c = tmp;
			return;
		}
		close(tmp.fd);
	}
	die("no /dev/dri/card* with driver '%s' (try 'gpumem-alloc list')", driver);
}

/*
 * Report every open of a DRM node (inotify on /dev/dri: it sees opens by
 * any process, and opens nothing itself) until a signal or the hold time.
 */
static int cmd_watch_opens(unsigned int hold_seconds)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	double end = 0;
	struct timespec ts;
	int fd;

	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, DRM_DIR_NAME, IN_OPEN) < 0)
		die("inotify on %s: %s", DRM_DIR_NAME, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end = ts.tv_sec + hold_seconds;
	printf("READY %d\n", (int)getpid());
	while (!stop_signal) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n, off;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec >= end)
			break;
		if (poll(&p, 1, 200) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		for (off = 0; n > 0 && off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);

			/* an open of the directory itself (a readdir) is no device open */
			if (ev->len)
				printf("OPEN %s\n", ev->name);
			else
				printf("OPENDIR\n");
			off += sizeof(*ev) + ev->len;
		}
	}
	printf("STOPPED\n");
	close(fd);
	return 0;
}

static int cmd_list(void)
{
	struct card c;
	int minor, found = 0;

	for (minor = 0; minor < 64; minor++) {
		if (open_card_node(minor, &c) < 0)
			continue;
		printf("%s %s\n", c.node, c.driver);
		close(c.fd);
		found++;
	}
	return found ? 0 : 1;
}

static void alloc_qxl(const struct card *c, enum kind kind, uint64_t size, struct bo *bo)
{
	uint64_t page = page_size();

	if (strcmp(c->driver, "qxl"))
		die("kind '%s' needs a qxl device, %s is %s", kind_names[kind], c->node, c->driver);

	if (kind == KIND_VRAM) {
		struct drm_qxl_alloc a = { 0 };

		if (size > UINT32_MAX)
			die("qxl allocations are limited to 4 GiB");
		a.size = size;
		if (drmIoctl(c->fd, DRM_IOCTL_QXL_ALLOC, &a))
			die("%s: DRM_IOCTL_QXL_ALLOC %" PRIu64 " bytes: %s", c->node, size, strerror(errno));
		bo->handle = a.handle;
		bo->size = round_up(size, page);	/* qxl_bo_create() */
	} else {
		/*
		 * The surface domain: qxl sizes the BO as stride * (height + 1)
		 * and places it in TTM_PL_PRIV (surface BAR), VRAM as fallback.
		 */
		struct drm_qxl_alloc_surf s = { 0 };
		uint64_t stride = DUMB_WIDTH * 4;
		uint64_t rows = round_up(size, stride) / stride;

		s.format = 32;			/* SPICE_SURFACE_FMT_32_xRGB */
		s.width = DUMB_WIDTH;
		s.height = rows > 1 ? rows - 1 : 1;
		s.stride = stride;
		if ((uint64_t)s.height + 1 > INT_MAX / stride)
			die("qxl surface too large");
		if (drmIoctl(c->fd, DRM_IOCTL_QXL_ALLOC_SURF, &s))
			die("%s: DRM_IOCTL_QXL_ALLOC_SURF %ux%u: %s", c->node, s.width, s.height, strerror(errno));
		bo->handle = s.handle;
		bo->size = round_up(stride * ((uint64_t)s.height + 1), page);
	}
}

static void alloc_dumb(const struct card *c, uint32_t width, uint32_t height, struct bo *bo,
		       uint32_t *pitch)
{
	struct drm_mode_create_dumb d = { 0 };

	d.width = width;
	d.height = height;
	d.bpp = DUMB_BPP;
	if (drmIoctl(c->fd, DRM_IOCTL_MODE_CREATE_DUMB, &d))
		die("%s (%s): DRM_IOCTL_MODE_CREATE_DUMB %ux%u: %s", c->node, c->driver, width, height,
		    strerror(errno));
	bo->handle = d.handle;
	bo->size = d.size;
	if (pitch)
		*pitch = d.pitch;
}

/* Find a connected connector, its preferred mode and a CRTC that can drive it. */
static void pick_output(const struct card *c, uint32_t *conn_id, uint32_t *crtc_id,
			drmModeModeInfo *mode)
{
	drmModeResPtr res = drmModeGetResources(c->fd);
	int i, j, k;

	if (!res)
		die("%s: drmModeGetResources: %s (not a KMS device?)", c->node, strerror(errno));
	for (i = 0; i < res->count_connectors; i++) {
		drmModeConnectorPtr conn = drmModeGetConnector(c->fd, res->connectors[i]);

		if (!conn)
			continue;
		if (conn->connection != DRM_MODE_CONNECTED || conn->count_modes == 0) {
			drmModeFreeConnector(conn);
			continue;
		}
		*mode = conn->modes[0];
		for (j = 0; j < conn->count_modes; j++) {
			if (conn->modes[j].type & DRM_MODE_TYPE_PREFERRED) {
				*mode = conn->modes[j];
				break;
			}
		}
		for (j = 0; j < conn->count_encoders; j++) {
			drmModeEncoderPtr enc = drmModeGetEncoder(c->fd, conn->encoders[j]);

			if (!enc)
				continue;
			for (k = 0; k < res->count_crtcs; k++) {
				if (enc->possible_crtcs & (1u << k)) {
					*conn_id = conn->connector_id;
					*crtc_id = res->crtcs[k];
					drmModeFreeEncoder(enc);
					drmModeFreeConnector(conn);
					drmModeFreeResources(res);
					return;
				}
			}
			drmModeFreeEncoder(enc);
		}
		drmModeFreeConnector(conn);
	}
	drmModeFreeResources(res);
	die("%s: no connected connector with a mode and a usable CRTC", c->node);
}

/* Become DRM master (a modeset needs it). */
static void become_master(const struct card *c)
{
	int err;

	if (!drmSetMaster(c->fd))
		return;
	err = errno;
	if (!drmIsMaster(c->fd))
		die("%s: cannot become DRM master (%s): is another process master?", c->node,
		    strerror(err));
}

/* Show buffer @handle (32 bpp, @pitch bytes a row) in @mode on a CRTC: the driver pins it. */
static void show_on_crtc(const struct card *c, uint32_t handle, uint32_t pitch,
			 uint32_t conn_id, uint32_t crtc_id, drmModeModeInfo *mode)
{
	if (scanout.fb_id)
		die("only one scanout buffer per process");
	if (drmModeAddFB(c->fd, mode->hdisplay, mode->vdisplay, 24, DUMB_BPP, pitch, handle,
			 &scanout.fb_id))
		die("%s: drmModeAddFB %ux%u: %s", c->node, mode->hdisplay, mode->vdisplay,
		    strerror(errno));
	if (drmModeSetCrtc(c->fd, crtc_id, scanout.fb_id, 0, 0, &conn_id, 1, mode))
		die("%s: drmModeSetCrtc %s on CRTC %u: %s", c->node, mode->name, crtc_id,
		    strerror(errno));
	scanout.crtc_id = crtc_id;
	printf("SCANOUT mode=%s crtc=%u connector=%u\n", mode->name, crtc_id, conn_id);
}

/* A dumb buffer the size of the current mode, shown on a CRTC (scanout) or not (mode). */
static void alloc_mode_sized(const struct card *c, struct bo *bo, bool show)
{
	drmModeModeInfo mode;
	uint32_t conn_id, crtc_id, pitch;

	if (show)
		become_master(c);
	else if (drmIsMaster(c->fd) && drmDropMaster(c->fd))
		die("%s: drmDropMaster: %s", c->node, strerror(errno));	/* leave it to a compositor */
	pick_output(c, &conn_id, &crtc_id, &mode);
	alloc_dumb(c, mode.hdisplay, mode.vdisplay, bo, &pitch);
	if (show)
		show_on_crtc(c, bo->handle, pitch, conn_id, crtc_id, &mode);
	else
		printf("MODE %s pitch=%u\n", mode.name, pitch);
}

/* Show an imported buffer (a "mode" buffer of another process) on a CRTC. */
static void show_imported(const struct card *c, const struct bo *bo)
{
	drmModeModeInfo mode;
	uint32_t conn_id, crtc_id, pitch;

	become_master(c);
	pick_output(c, &conn_id, &crtc_id, &mode);
	pitch = mode.hdisplay * (DUMB_BPP / 8);
	if (bo->size < (uint64_t)pitch * mode.vdisplay)
		die("imported buffer of %" PRIu64 " bytes is smaller than mode %s", bo->size,
		    mode.name);
	show_on_crtc(c, bo->handle, pitch, conn_id, crtc_id, &mode);
}

static void alloc_one(const struct card *c, enum kind kind, uint64_t size, struct bo *bo)
{
	bo->kind = kind;
	switch (kind) {
	case KIND_VRAM:
	case KIND_SURFACE:
		alloc_qxl(c, kind, size, bo);
		break;
	case KIND_DUMB: {
		uint64_t rows = round_up(size, DUMB_WIDTH * 4) / (DUMB_WIDTH * 4);

		if (rows > UINT32_MAX)
			die("dumb buffer too large");
		alloc_dumb(c, DUMB_WIDTH, rows, bo, NULL);
		break;
	}
	case KIND_SCANOUT:
	case KIND_MODE:
		alloc_mode_sized(c, bo, kind == KIND_SCANOUT);
		break;
	}
}

static void alloc_all(const struct card *c, const struct opts *o, struct bo *bos)
{
	unsigned int i;

	for (i = 0; i < o->count; i++) {
		alloc_one(c, o->kind, o->size, &bos[i]);
		printf("BO %u handle=%u size=%" PRIu64 " kind=%s\n", i, bos[i].handle, bos[i].size,
		       kind_names[bos[i].kind]);
	}
}

static uint64_t total_bytes(const struct bo *bos, unsigned int n)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += bos[i].size;
	return sum;
}

static void free_bo(const struct card *c, const struct bo *bo)
{
	if (bo->kind == KIND_DUMB || bo->kind == KIND_SCANOUT || bo->kind == KIND_MODE) {
		struct drm_mode_destroy_dumb d = { .handle = bo->handle };

		if (drmIoctl(c->fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d))
			fprintf(stderr, "gpumem-alloc: destroy dumb %u: %s\n", bo->handle, strerror(errno));
	} else if (drmCloseBufferHandle(c->fd, bo->handle)) {
		fprintf(stderr, "gpumem-alloc: close handle %u: %s\n", bo->handle, strerror(errno));
	}
}

/* Turn the CRTC off and drop the FB (closing the file would do it too). */
static void stop_scanout(const struct card *c)
{
	if (!scanout.fb_id)
		return;
	drmModeSetCrtc(c->fd, scanout.crtc_id, 0, 0, 0, NULL, 0, NULL);
	drmModeRmFB(c->fd, scanout.fb_id);
	scanout.fb_id = 0;
}

static void free_all(const struct card *c, const struct bo *bos, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free_bo(c, &bos[i]);
}

static int export_bo(const struct card *c, uint32_t handle)
{
	int fd;

	if (drmPrimeHandleToFD(c->fd, handle, DRM_CLOEXEC, &fd))
		die("%s: drmPrimeHandleToFD(handle %u): %s", c->node, handle, strerror(errno));
	return fd;
}

static uint32_t import_bo(const struct card *c, int dmabuf, uint64_t *size)
{
	uint32_t handle;
	off_t end;

	if (drmPrimeFDToHandle(c->fd, dmabuf, &handle))
		die("%s: drmPrimeFDToHandle: %s", c->node, strerror(errno));
	end = lseek(dmabuf, 0, SEEK_END);	/* a dma-buf's size */
	if (end < 0)
		die("lseek on dma-buf: %s", strerror(errno));
	*size = end;
	return handle;
}

static void socket_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		die("socket path too long: %s", path);
	strcpy(sa->sun_path, path);
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa;
	int s;

	socket_addr(path, &sa);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("socket: %s", strerror(errno));
	unlink(path);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 8))
		die("listen on %s: %s", path, strerror(errno));
	return s;
}

/*
 * Hand the buffer to an importer: the dma-buf @fd over SCM_RIGHTS, or, where
 * the driver has no PRIME export (bochs before 6.6), its flink name as
 * "N<name>" with no descriptor.
 */
static void send_fd(int sock, int fd, uint32_t flink_name)
{
	char msgbuf[16] = "F";
	struct iovec iov = { .iov_base = msgbuf, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	memset(&u, 0, sizeof(u));
	if (fd < 0) {
		iov.iov_len = snprintf(msgbuf, sizeof(msgbuf), "N%u", flink_name);
		msg.msg_control = NULL;
		msg.msg_controllen = 0;
	} else {
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		fprintf(stderr, "gpumem-alloc: sendmsg: %s\n", strerror(errno));
}

/* Fetch what send_fd() sent: a dma-buf fd, or -1 and the flink name in *@name. */
static int recv_fd(const char *path, unsigned int timeout_s, uint32_t *name)
{
	struct sockaddr_un sa;
	char msgbuf[16];
	struct iovec iov = { .iov_base = msgbuf, .iov_len = sizeof(msgbuf) - 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct timeval tv = { .tv_sec = timeout_s };
	struct cmsghdr *cm;
	ssize_t n;
	int s, fd;

	socket_addr(path, &sa);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("socket: %s", strerror(errno));
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		die("connect to %s: %s", path, strerror(errno));
	n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
	if (n < 1)
		die("nothing received on %s: %s", path, n < 0 ? strerror(errno) : "peer closed");
	close(s);
	msgbuf[n] = '\0';
	if (msgbuf[0] == 'N') {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(msgbuf + 1, &end, 10);
		if (errno || end == msgbuf + 1 || *end || !v || v > UINT32_MAX)
			die("bad flink name message '%s' on %s", msgbuf, path);
		*name = v;
		return -1;
	}
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
	    cm->cmsg_len != CMSG_LEN(sizeof(int)))
		die("message on %s carried no file descriptor", path);
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A forked child holds without a READY line (the test waits for the parent's). */
static bool hold_quiet;

/*
 * Hold until a signal, EOF on stdin (with -w) or the hold time ends. With a
 * listening socket, hand the dma-buf fd to every importer that connects.
 */
static void hold(const struct opts *o, int listen_fd, int dmabuf, uint32_t flink_name)
{
	double end = now_s() + o->hold_seconds;
	unsigned int sent = 0;

	if (!hold_quiet)
		printf("READY %d\n", (int)getpid());
	while (!stop_signal) {
		struct pollfd p[2];
		int n = 0, in = -1, ls = -1, i;
		double left = end - now_s();

		if (left <= 0) {
			printf("TIMEOUT after %u s\n", o->hold_seconds);
			return;
		}
		if (o->watch_stdin) {
			in = n;
			p[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		}
		if (listen_fd >= 0) {
			ls = n;
			p[n++] = (struct pollfd){ .fd = listen_fd, .events = POLLIN };
		}
		if (poll(p, n, left > 1 ? 1000 : (int)(left * 1000) + 1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (in >= 0 && p[in].revents) {
			char buf[256];
			ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

			if (r == 0 || (r < 0 && errno != EINTR)) {
				printf("STDIN closed\n");
				return;
			}
		}
		if (ls >= 0 && (p[ls].revents & POLLIN)) {
			i = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
			if (i >= 0) {
				send_fd(i, dmabuf, flink_name);
				close(i);
				printf("SENT %u\n", ++sent);
			}
		}
	}
	printf("SIGNAL %d\n", (int)stop_signal);
}

static int cmd_alloc(const struct opts *o)
{
	static struct bo bos[MAX_BOS];
	struct card c;

	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	hold(o, -1, -1, 0);
	stop_scanout(&c);
	free_all(&c, bos, o->count);
	close(c.fd);
	printf("FREED\n");
	return 0;
}

/* Allocate COUNT BOs; export the first and serve its fd on the socket. */
static int cmd_export(const struct opts *o)
{
	static struct bo bos[MAX_BOS];
	uint32_t flink_name = 0;
	struct card c;
	int dmabuf, ls;

	if (!o->socket)
		die("export needs -S SOCKET");
	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	if (drmPrimeHandleToFD(c.fd, bos[0].handle, DRM_CLOEXEC, &dmabuf)) {
		struct drm_gem_flink f = { .handle = bos[0].handle };

		if (errno != ENOSYS)
			die("%s: drmPrimeHandleToFD(handle %u): %s", c.node, bos[0].handle,
			    strerror(errno));
		/* no PRIME on this driver: hand out a flink name */
		if (drmIoctl(c.fd, DRM_IOCTL_GEM_FLINK, &f))
			die("%s: DRM_IOCTL_GEM_FLINK(handle %u): %s", c.node, bos[0].handle,
			    strerror(errno));
		dmabuf = -1;
		flink_name = f.name;
	}
	printf("EXPORTED handle=%u size=%" PRIu64 " via=%s\n", bos[0].handle, bos[0].size,
	       dmabuf < 0 ? "flink" : "dma-buf");
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	ls = listen_on(o->socket);
	hold(o, ls, dmabuf, flink_name);
	close(ls);
	unlink(o->socket);
	if (dmabuf >= 0)
		close(dmabuf);
	stop_scanout(&c);
	free_all(&c, bos, o->count);
	close(c.fd);
	printf("FREED\n");
	return 0;
}

/* Receive a dma-buf, import it on our own open of the device, drop the fd. */
static int cmd_import(const struct opts *o)
{
	struct card c;
	struct bo bo = { .kind = KIND_VRAM };
	uint32_t name = 0;
	int dmabuf;

	if (!o->socket)
		die("import needs -S SOCKET");
	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	dmabuf = recv_fd(o->socket, o->hold_seconds, &name);
	if (dmabuf < 0) {
		struct drm_gem_open g = { .name = name };

		if (drmIoctl(c.fd, DRM_IOCTL_GEM_OPEN, &g))
			die("%s: DRM_IOCTL_GEM_OPEN(name %u): %s", c.node, name, strerror(errno));
		bo.handle = g.handle;
		bo.size = g.size;
	} else {
		bo.handle = import_bo(&c, dmabuf, &bo.size);
		close(dmabuf);
	}
	printf("IMPORTED handle=%u size=%" PRIu64 "\n", bo.handle, bo.size);
	if (o->kind_set && o->kind == KIND_SCANOUT)
		show_imported(&c, &bo);
	printf("TOTAL bos=1 bytes=%" PRIu64 "\n", bo.size);
	hold(o, -1, -1, 0);
	stop_scanout(&c);
	free_bo(&c, &bo);
	close(c.fd);
	printf("FREED\n");
	return 0;
}

/* One process, two files on the same device, every BO has a handle in both. */
static int cmd_selfimport(const struct opts *o)
{
	static struct bo bos[MAX_BOS], dup[MAX_BOS];
	struct card c1, c2;
	unsigned int i;

	open_card(o->driver, &c1);
	open_card(o->driver, &c2);
	if (strcmp(c1.node, c2.node))
		die("second open found %s, not %s", c2.node, c1.node);
	printf("DEVICE %s driver=%s\n", c1.node, c1.driver);
	alloc_all(&c1, o, bos);
	for (i = 0; i < o->count; i++) {
		int dmabuf = export_bo(&c1, bos[i].handle);

		dup[i].kind = KIND_VRAM;	/* freed with GEM_CLOSE */
		dup[i].handle = import_bo(&c2, dmabuf, &dup[i].size);
		close(dmabuf);
		printf("IMPORTED file=2 handle=%u size=%" PRIu64 "\n", dup[i].handle, dup[i].size);
	}
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	hold(o, -1, -1, 0);
	stop_scanout(&c1);
	free_all(&c2, dup, o->count);
	free_all(&c1, bos, o->count);
	close(c2.fd);
	close(c1.fd);
	printf("FREED\n");
	return 0;
}

/*
 * Fork a child that keeps what the process has (its card fd, its mappings)
 * and holds it until a signal, printing "CHILD pid=N" before the parent goes
 * on; the child outlives the parent (no parent-death signal). Returns in the
 * parent only.
 */
static void fork_holder(const struct opts *o)
{
	int sync[2];
	pid_t kid;
	char b;

	if (pipe(sync))
		die("pipe: %s", strerror(errno));
	kid = fork();
	if (kid < 0)
		die("fork: %s", strerror(errno));
	if (!kid) {
		close(sync[0]);
		prctl(PR_SET_PDEATHSIG, 0);	/* outlive the parent */
		if (prctl(PR_SET_NAME, "gm-forkchild"))
			die("PR_SET_NAME: %s", strerror(errno));
		printf("CHILD pid=%d\n", (int)getpid());
		close(sync[1]);
		hold_quiet = true;
		hold(o, -1, -1, 0);
		printf("CHILD-EXIT\n");
		exit(0);
	}
	close(sync[1]);
	if (read(sync[0], &b, 1) < 0)	/* EOF once the child has printed */
		die("read: %s", strerror(errno));
	close(sync[0]);
}

/*
 * forkhold: allocate, fork a child that keeps the inherited card fd (see
 * fork_holder()); the parent holds, then exits without freeing anything
 * (its copy of the fd goes, the child's keeps the file and its buffers).
 */
static int cmd_forkhold(const struct opts *o)
{
	static struct bo bos[MAX_BOS];
	struct card c;

	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	fork_holder(o);
	hold(o, -1, -1, 0);
	close(c.fd);
	printf("PARENT-EXIT\n");
	return 0;
}

/*
 * forkmany: allocate, fork -F children that keep the inherited card fd and
 * do nothing but wait for a signal (SIGTERM's default action: they die; the
 * test kills them); the parent holds, then exits without freeing anything.
 */
static int cmd_forkmany(const struct opts *o)
{
	static struct bo bos[MAX_BOS];
	pid_t kid, first = 0, last = 0;
	unsigned int i;
	struct card c;

	if (!o->children)
		die("forkmany needs -F CHILDREN");
	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	fflush(stdout);
	for (i = 0; i < o->children; i++) {
		kid = fork();
		if (kid < 0)
			die("fork %u: %s", i, strerror(errno));
		if (!kid) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			prctl(PR_SET_PDEATHSIG, 0);	/* outlive the parent */
			prctl(PR_SET_NAME, "gm-forkmany-kid");
			for (;;)
				pause();
		}
		if (!first)
			first = kid;
		last = kid;
	}
	printf("CHILDREN n=%u first=%d last=%d\n", o->children, (int)first, (int)last);
	hold(o, -1, -1, 0);
	close(c.fd);
	printf("PARENT-EXIT\n");
	return 0;
}

/*
 * sendcard: allocate, then hand the card fd itself (not a dma-buf) over
 * SCM_RIGHTS to every process that connects to the socket; hold.
 */
static int cmd_sendcard(const struct opts *o)
{
	static struct bo bos[MAX_BOS];
	struct card c;
	int ls;

	if (!o->socket)
		die("sendcard needs -S SOCKET");
	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	printf("TOTAL bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	ls = listen_on(o->socket);
	hold(o, ls, c.fd, 0);
	close(ls);
	unlink(o->socket);
	close(c.fd);		/* the buffers stay with the receivers' file */
	printf("CLOSED\n");
	return 0;
}

/* recvcard: receive a card fd from sendcard and hold it (no ioctl on it). */
static int cmd_recvcard(const struct opts *o)
{
	uint32_t name = 0;
	int fd;

	if (!o->socket)
		die("recvcard needs -S SOCKET");
	fd = recv_fd(o->socket, o->hold_seconds, &name);
	if (fd < 0)
		die("no card fd received");
	printf("RECEIVED fd=%d\n", fd);
	hold(o, -1, -1, 0);
	close(fd);
	printf("CLOSED\n");
	return 0;
}

/* CPU-map a buffer (qxl's or the dumb map ioctl), the whole of it. */
static void *map_bo(const struct card *c, const struct bo *bo)
{
	uint64_t offset;
	void *p;

	if (bo->kind == KIND_VRAM || bo->kind == KIND_SURFACE) {
		struct drm_qxl_map m = { .handle = bo->handle };

		if (drmIoctl(c->fd, DRM_IOCTL_QXL_MAP, &m))
			die("%s: DRM_IOCTL_QXL_MAP(%u): %s", c->node, bo->handle, strerror(errno));
		offset = m.offset;
	} else {
		struct drm_mode_map_dumb m = { .handle = bo->handle };

		if (drmIoctl(c->fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
			die("%s: DRM_IOCTL_MODE_MAP_DUMB(%u): %s", c->node, bo->handle,
			    strerror(errno));
		offset = m.offset;
	}
	p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, offset);
	if (p == MAP_FAILED)
		die("%s: mmap of handle %u: %s", c->node, bo->handle, strerror(errno));
	return p;
}

/*
 * maphold: allocate, map every buffer, close every handle (the mappings
 * keep the buffers: "mapping-only"), hold; MAPPED bytes=N once done.
 * mapfork (@fork_kid): the same, then fork a child that keeps the mappings
 * (fork_holder()) and outlives the parent.
 */
static int cmd_maphold(const struct opts *o, bool fork_kid)
{
	static struct bo bos[MAX_BOS];
	static void *maps[MAX_BOS];
	struct card c;
	unsigned int i;

	open_card(o->driver, &c);
	printf("DEVICE %s driver=%s\n", c.node, c.driver);
	alloc_all(&c, o, bos);
	for (i = 0; i < o->count; i++) {
		maps[i] = map_bo(&c, &bos[i]);
		memset(maps[i], 0x5a, 64);
	}
	free_all(&c, bos, o->count);
	printf("MAPPED bos=%u bytes=%" PRIu64 "\n", o->count, total_bytes(bos, o->count));
	if (fork_kid)
		fork_holder(o);
	hold(o, -1, -1, 0);
	for (i = 0; i < o->count; i++)
		munmap(maps[i], bos[i].size);
	close(c.fd);
	printf("UNMAPPED\n");
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: gpumem-alloc list\n"
	      "       gpumem-alloc alloc|export|import|selfimport -d DRIVER [options]\n"
	      "       gpumem-alloc forkhold|sendcard|maphold|mapfork -d DRIVER [options]\n"
	      "       gpumem-alloc forkmany -d DRIVER -F CHILDREN [options]\n"
	      "       gpumem-alloc recvcard -S SOCKET [options]\n"
	      "  forkhold: a forked child keeps the card fd (CHILD pid=N) and outlives\n"
	      "  the parent; sendcard: the card fd itself over -S to each recvcard;\n"
	      "  maphold: every buffer mapped, its handle closed; mapfork: the same, then\n"
	      "  a forked child keeps the mappings and outlives the parent\n"
	      "       gpumem-alloc watch-opens [-t SECONDS]   (OPEN lines for opens in /dev/dri)\n"
	      "  -d, --driver NAME      qxl, bochs, vgem, virtio_gpu (drmGetVersion name)\n"
	      "  -k, --kind KIND        vram | surface (qxl ioctls), dumb, scanout (a dumb\n"
	      "                         buffer of the mode, shown), mode (the same, not shown)\n"
	      "                         (default: vram on qxl, dumb elsewhere); import -k\n"
	      "                         scanout shows the imported buffer\n"
	      "  -n, --count N          number of buffers (default 1; scanout: 1)\n"
	      "  -s, --size BYTES       per buffer, K/M/G suffixes (default 1M)\n"
	      "  -S, --socket PATH      export: serve the first BO's dma-buf; import: fetch it\n"
	      "  -t, --hold-seconds N   hold at most N seconds (default 300)\n"
	      "  -w, --stdin            also release when stdin reaches EOF\n"
	      "  -c, --comm NAME        set the process name (comm)\n"
	      "  -F, --children N       forkmany: children holding the card fd\n"
	      "Buffers are held until SIGTERM/SIGINT/SIGHUP, EOF (-w) or the hold time.\n", f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "driver", required_argument, NULL, 'd' },
		{ "kind", required_argument, NULL, 'k' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "socket", required_argument, NULL, 'S' },
		{ "hold-seconds", required_argument, NULL, 't' },
		{ "stdin", no_argument, NULL, 'w' },
		{ "comm", required_argument, NULL, 'c' },
		{ "children", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .count = 1, .size = 1 << 20, .hold_seconds = 300 };
	const char *cmd;
	unsigned int k;
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argv[1][0] == '-') {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2;
	}
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt_long(argc, argv, "d:k:n:s:S:t:wc:F:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': o.driver = optarg; break;
		case 'k':
			for (k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
				if (!strcmp(optarg, kind_names[k]))
					break;
			if (k == sizeof(kind_names) / sizeof(kind_names[0]))
				die("unknown kind '%s'", optarg);
			o.kind = k;
			o.kind_set = true;
			break;
		case 'n': o.count = parse_uint(optarg, "count"); break;
		case 's': o.size = parse_size(optarg); break;
		case 'S': o.socket = optarg; break;
		case 't': o.hold_seconds = parse_uint(optarg, "hold time"); break;
		case 'w': o.watch_stdin = true; break;
		case 'c': o.comm = optarg; break;
		case 'F': o.children = parse_uint(optarg, "children"); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);

	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (!strcmp(cmd, "watch-opens")) {
		install_signals();
		return cmd_watch_opens(o.hold_seconds);
	}

	if (!strcmp(cmd, "recvcard")) {
		if (o.comm && prctl(PR_SET_NAME, o.comm))
			die("PR_SET_NAME: %s", strerror(errno));
		install_signals();
		return cmd_recvcard(&o);
	}
	if (!o.driver)
		die("%s needs -d DRIVER", cmd);
	if (!o.kind_set)
		o.kind = strcmp(o.driver, "qxl") ? KIND_DUMB : KIND_VRAM;
	if (o.count < 1 || o.count > MAX_BOS)
		die("count must be 1..%d", MAX_BOS);
	if ((o.kind == KIND_SCANOUT || o.kind == KIND_MODE) && o.count != 1)
		die("%s allocates exactly one buffer", kind_names[o.kind]);
	if (o.comm && prctl(PR_SET_NAME, o.comm))
		die("PR_SET_NAME: %s", strerror(errno));
	install_signals();

	if (!strcmp(cmd, "alloc"))
		return cmd_alloc(&o);
	if (!strcmp(cmd, "export"))
		return cmd_export(&o);
	if (!strcmp(cmd, "import"))
		return cmd_import(&o);
	if (!strcmp(cmd, "selfimport"))
		return cmd_selfimport(&o);
	if (!strcmp(cmd, "forkhold"))
		return cmd_forkhold(&o);
	if (!strcmp(cmd, "forkmany"))
		return cmd_forkmany(&o);
	if (!strcmp(cmd, "sendcard"))
		return cmd_sendcard(&o);
	if (!strcmp(cmd, "maphold"))
		return cmd_maphold(&o, false);
	if (!strcmp(cmd, "mapfork"))
		return cmd_maphold(&o, true);
	usage(stderr);
	die("unknown command '%s'", cmd);
}
