// SPDX-License-Identifier: GPL-2.0
/*
 * fake_kernel.c - a simulated gpumem kernel side for host tests: it is the
 * other end of nl.c's socket (nl.c built with GM_NL_FAKE: gm_fake_send,
 * gm_fake_recv, gm_fake_recv_event), takes the place of libdrm
 * (drminfo.c), answers requests with netlink messages built the way the
 * kernel builds them (u64 after a pad attribute, multi-attr nests; a dump's
 * messages packed into datagrams as the kernel fills an skb, then
 * NLMSG_DONE; a "do"'s reply, then the ACK; errors as NLMSG_ERROR, or in
 * NLMSG_DONE once a dump sent rows, with their extended ack), and applies
 * the request's filters. Everything above the socket - nl.c's receive loop,
 * query.c, the commands, the printing - is the real code.
 *
 * GM_FAKE in the environment picks a failure or a scenario:
 *   nomodule    the family does not exist
 *   eperm       a caller without CAP_NET_ADMIN/CAP_SYS_ADMIN: exactly the
 *               commands the spec marks admin-perm are refused, and joining
 *               the events group (spec_perms.h, generated from
 *               uapi/gpumem.yaml by scripts/gen-perms.py, which also checks
 *               kmod/netlink.c against the same spec)
 *   dumpfail    PROC_GET fails half-way: two rows, then NLMSG_DONE with
 *               ENOMEM and an extack message
 *   dumpintr    the first dump of a run has every row twice, the second time
 *               and its NLMSG_DONE marked NLM_F_DUMP_INTR: the client must
 *               ask again
 *   noreply     nothing ever answers: the receive times out
 *   spoof       before each answer, a datagram from another sender than the
 *               kernel (a user space process that knows the port) claiming
 *               the request failed: the client must drop it
 *   oldmodule   a module without quotas: LIMIT_*, CGROUP_GET are
 *               EOPNOTSUPP and there is no "events" group
 *   watch       the events group delivers a script (script[] below): events
 *               with a gap in seq (several in one datagram), a receive buffer
 *               overflow, the family going away (nlctrl's DELFAMILY after an
 *               event) and coming back at the third look-up, one more event
 *   watch-idle  the events group never delivers anything
 *
 * GM_FAKE_DGRAM=BYTES: the size of a dump's datagrams (default 512: the
 * few rows of a dump here come in several datagrams of several messages;
 * the kernel's are about 16 KiB, what nl_recv() first offers).
 * GM_FAKE_PROCS=N: N more processes (pid 10000 on, on card0) in PROC_GET,
 * for profiling gpumemctl over a large dump.
 * GM_FAKE_SHUFFLE=SEED: PROC_GET's rows in a random order (a permutation
 * drawn from SEED) instead of by pid: the cost of the client's sort when
 * the rows do not come sorted (the charged view lists them by device, then
 * pid; other orders are the client's worst case).
 *
 * Limits set in one run (LIMIT_SET) are kept for that process only, so that
 * `limit set` reads back what it set.
 *
 * For gpumem-oci-hook, which sets limits on cgroups of its own:
 *   GM_FAKE_CGROUPS=ID:PATH[,ID:PATH...]  more cgroups the kernel knows
 *   GM_FAKE_SETFAIL_DEV=N                 LIMIT_SET on device N fails
 *                                         (ENOSPC, "too many limits")
 *   GM_FAKE_STATE=FILE                    at exit, FILE gets one line per
 *                                         LIMIT_SET/LIMIT_DEL request
 *                                         ("set|del DEV ok|errno") and then
 *                                         one per limit on a GM_FAKE_CGROUPS
 *                                         cgroup ("limit ID DEV REGION max
 *                                         high mode", "-" for none)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "../gpumemctl/drminfo.h"
#include "../libgpumem/nl.h"
#include "../libgpumem/parse.h"
#include "spec_perms.h"

#define FAKE_FAMILY 0x20
#define FAKE_PORT 4242		/* the client socket's netlink port */
#define SPOOF_PORT 4711		/* GM_FAKE=spoof: another process's */

static const char *fake_mode(void)
{
	const char *m = getenv("GM_FAKE");

	return m ? m : "";
}

int gm_nl_open(struct gm_nl *nl)
{
	return gm_nl_open_family(nl, GPUMEM_FAMILY_NAME);
}

int gm_nl_open_family(struct gm_nl *nl, const char *family)
{
	memset(nl, 0, sizeof(*nl));
	nl->miss_type = -1;
	if (strcmp(fake_mode(), "nomodule") == 0 || strcmp(family, GPUMEM_FAMILY_NAME) != 0) {
		nl->error = ENOENT;
		nl->no_family = true;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	nl->family = FAKE_FAMILY;
	return 0;
}

static void sock_drop(void);

void gm_nl_close(struct gm_nl *nl)
{
	nl->family = 0;
	sock_drop();	/* what was not read goes with the socket */
}

/* --- the simulated state ------------------------------------------------ */

struct fake_region { uint32_t region; int known; uint64_t capacity, used; };
static const struct fake_dev {
	uint32_t id;
	const char *name, *driver, *unique;
	uint8_t ttm;
	struct fake_region r;
	const char *desc;	/* drm_driver.desc; NULL: not sent */
	int render;		/* N of renderDN; -1: none (not sent) */
} devs[] = {
	{ 0, "card0", "qxl", "0000:00:02.0", 1, { GPUMEM_REGION_VRAM, 1, 134209536, 73400320 },
	  "RH QXL", -1 },
	{ 1, "card1", "bochs-drm", "0000:00:03.0", 1, { GPUMEM_REGION_VRAM, 1, 16777216, 0 }, NULL,
	  -1 },
	{ 2, "card2", "vgem", "vgem", 0, { GPUMEM_REGION_SYSTEM, 0, 0, 0 }, "Virtual GEM provider",
	  128 },
};

static const struct fake_proc {
	uint32_t pid;
	const char *comm;
	uint64_t cgroup_id;	/* 0 for kernel clients, as the kernel sends it */
	const char *cgroup;	/* NULL: not sent */
	uint32_t dev;
	uint64_t usage[4], shared, owned;
	uint32_t bos;
	uint32_t skipped;	/* held view: busy buffers in no figure */
} procs[] = {	/* not in pid order: the commands sort */
	{ 812, "gpumem-alloc", 4711, "/test/a", 0, { 4194304, 0, 0, 0 }, 0, 4194304, 1, 0 },
	{ 0, "[kernel]", 0, NULL, 0, { 1048576, 0, 0, 0 }, 0, 1048576, 1, 0 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 2, { 0, 0, 2097152, 0 }, 1048576, 1048576, 2, 0 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 0, { 1048576, 0, 0, 0 }, 1048576, 0, 1, 0 },
	{ 900, "big", 4713, "/test/a/big", 0, { 67108864, 4096, 0, 0 }, 0, 67108864, 4, 2 },
};

static const struct fake_buf {
	uint32_t dev, owner, handle;
	uint64_t size;
	uint32_t region;
	int has_mt;
	uint32_t mt;
	uint8_t shared;
	uint32_t holders[3];
} bufs[] = {
	{ 0, 812, 1, 4194304, GPUMEM_REGION_VRAM, 1, 2, 0, { 812 } },
	{ 0, 815, 1, 1048576, GPUMEM_REGION_VRAM, 1, 2, 1, { 815, 812 } },
	{ 2, 815, 1, 1048576, GPUMEM_REGION_SYSTEM, 0, 0, 1, { 815, 900 } },
	{ 2, 815, 2, 65536, GPUMEM_REGION_SYSTEM, 0, 0, 0, { 815 } },
};

/* The limits (LIMIT_GET dump) and the cgroup rows (CGROUP_GET). */
struct fake_limit {
	uint64_t cgroup_id;
	const char *path;
	int has_dev;
	uint32_t dev, region;
	int has_max, has_high;
	uint64_t max, high;
	uint32_t mode;
	uint64_t usage, denied;
	int has_limit;	/* cgroup rows: a limit is set on exactly this row */
};

#define MiB 1048576ULL
static struct fake_limit limits[16] = {
	{ 4711, "/test/a", 0, 0, GPUMEM_REGION_VRAM, 1, 1, 64 * MiB, 48 * MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 72 * MiB, 2, 1 },
	{ 4712, "/test/a b", 1, 2, GPUMEM_REGION_SYSTEM, 0, 1, 0, MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 2 * MiB, 0, 1 },
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_VRAM, 1, 0, 64 * MiB, 0,
	  GPUMEM_LIMIT_MODE_MONITOR, 64 * MiB, 3, 1 },
};
static size_t nlimits = 3;

/* every charge counts on its device and on "all devices" (kmod/quota.c) */
static const struct fake_limit cgroup_rows[] = {	/* not sorted: the tool sorts */
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_GTT, 0, 0, 0, 0, 0, 4096, 0, 0 },
	{ 4713, "/test/a/big", 0, 0, GPUMEM_REGION_GTT, 0, 0, 0, 0, 0, 4096, 0, 0 },
	{ 4713, "/test/a/big", 0, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, 64 * MiB, 0, 0 },
	{ 4712, "/test/a b", 0, 0, GPUMEM_REGION_SYSTEM, 0, 0, 0, 0, 0, 2 * MiB, 0, 0 },
	{ 4712, "/test/a b", 0, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, MiB, 0, 0 },
	{ 4711, "/test/a", 1, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, 72 * MiB, 0, 0 },
	{ 4711, "/test/a", 0, 0, GPUMEM_REGION_VRAM, 1, 1, 64 * MiB, 48 * MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 72 * MiB, 2, 1 },
	{ 4712, "/test/a b", 1, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, MiB, 0, 0 },
	{ 4712, "/test/a b", 1, 2, GPUMEM_REGION_SYSTEM, 0, 1, 0, MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 2 * MiB, 0, 1 },
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_VRAM, 1, 0, 64 * MiB, 0,
	  GPUMEM_LIMIT_MODE_MONITOR, 64 * MiB, 3, 1 },
};

#define N(a) (sizeof(a) / sizeof(*(a)))

/* GM_FAKE_CGROUPS: the path of cgroup id, or NULL */
static const char *extra_cgroup(uint64_t id)
{
	static char path[256];
	const char *e = getenv("GM_FAKE_CGROUPS");
	unsigned long long v;
	int n;

	while (e && *e && sscanf(e, "%llu:%255[^,]%n", &v, path, &n) == 2) {
		if (v == id)
			return path;
		e += n;
		e += *e == ',';
	}
	return NULL;
}

/* The path of a cgroup id, as the kernel knows it; NULL: no such cgroup. */
static const char *cgroup_path(uint64_t id)
{
	char root[256];
	struct stat st;
	size_t i;

	if (extra_cgroup(id))
		return extra_cgroup(id);

	for (i = 0; i < N(procs); i++)
		if (procs[i].cgroup && procs[i].cgroup_id == id)
			return procs[i].cgroup;
	if (stat(cgroup2_root(root, sizeof(root)), &st) == 0 && st.st_ino == id)
		return "/";
	return NULL;
}

/* --- the socket ------------------------------------------------------------ */

/* the datagrams the client has not read yet, in order */
static struct {
	struct dgram { unsigned char *buf; size_t len; uint32_t from; } *v;
	size_t n, cap, next;
	bool open;		/* the last datagram is a dump's: it takes more of its messages */
	uint32_t seq;		/* the last sequence number nl_complete_msg() gave */
	size_t dgram;		/* GM_FAKE_DGRAM */
	/* the request being answered */
	struct nlmsghdr req;
	bool dump;
	uint16_t intr;		/* NLM_F_DUMP_INTR once the dump is marked */
	int sent;		/* reply messages so far */
	char msg[128];		/* fail(): the extended ack */
	int miss;
} sock;

/*
 * One message onto the socket, padded to NLMSG_ALIGN: a dump's messages fill
 * a datagram up to its size (one too large for it has one of its own);
 * anything else is a datagram of its own.
 */
static void sock_put(const struct nlmsghdr *h, bool dump, uint32_t from)
{
	size_t len = NLMSG_ALIGN(h->nlmsg_len);
	struct dgram *d = sock.n > sock.next ? &sock.v[sock.n - 1] : NULL;

	if (!(dump && sock.open && d && d->from == from && d->len + len <= sock.dgram)) {
		if (sock.n == sock.cap) {
			sock.cap = sock.cap ? 2 * sock.cap : 16;
			sock.v = realloc(sock.v, sock.cap * sizeof(*sock.v));
			if (!sock.v)
				abort();
		}
		d = &sock.v[sock.n++];
		*d = (struct dgram){ .from = from };
	}
	d->buf = realloc(d->buf, d->len + len);
	if (!d->buf)
		abort();
	memcpy(d->buf + d->len, h, h->nlmsg_len);
	memset(d->buf + d->len + h->nlmsg_len, 0, len - h->nlmsg_len);
	d->len += len;
	sock.open = dump;
}

static void sock_drop(void)
{
	while (sock.next < sock.n)
		free(sock.v[sock.next++].buf);
	sock.n = sock.next = 0;
	sock.open = false;
}

/* a reply message of the request being answered, with its header filled in */
static void emit(struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);

	h->nlmsg_pid = sock.req.nlmsg_pid;
	h->nlmsg_seq = sock.req.nlmsg_seq;
	h->nlmsg_flags = sock.dump ? NLM_F_MULTI | sock.intr : 0;
	sock_put(h, sock.dump, 0);
	sock.sent++;
	nlmsg_free(m);
}

/*
 * The end of an answer, as netlink_ack() and netlink_dump_done() make it
 * for a socket with NETLINK_EXT_ACK and NETLINK_CAP_ACK: NLMSG_ERROR (error
 * 0: the ACK of a "do") with the request's header, or NLMSG_DONE with the
 * dump's error; the extended ack (fail()'s message and missing attribute)
 * after it. from: the sender (GM_FAKE=spoof).
 */
static void sock_ack(int type, int error, uint32_t from)
{
	struct nl_msg *m = nlmsg_alloc();
	bool tlvs = error && (sock.msg[0] || sock.miss >= 0);
	struct nlmsghdr *h;

	if (type == NLMSG_ERROR) {
		struct nlmsgerr e = { .error = error, .msg = sock.req };

		h = nlmsg_put(m, sock.req.nlmsg_pid, sock.req.nlmsg_seq, NLMSG_ERROR, sizeof(e),
			      NLM_F_CAPPED | (tlvs ? NLM_F_ACK_TLVS : 0));
		memcpy(nlmsg_data(h), &e, sizeof(e));
	} else {
		h = nlmsg_put(m, sock.req.nlmsg_pid, sock.req.nlmsg_seq, NLMSG_DONE, sizeof(error),
			      NLM_F_MULTI | sock.intr | (tlvs ? NLM_F_ACK_TLVS : 0));
		memcpy(nlmsg_data(h), &error, sizeof(error));
	}
	if (tlvs && sock.msg[0])
		nla_put_string(m, NLMSGERR_ATTR_MSG, sock.msg);
	if (tlvs && sock.miss >= 0)
		nla_put_u32(m, NLMSGERR_ATTR_MISS_TYPE, (uint32_t)sock.miss);
	sock_put(nlmsg_hdr(m), type == NLMSG_DONE, from);
	nlmsg_free(m);
}

static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	/* port, sequence number and flags: emit() */
	genlmsg_put(m, 0, 0, FAKE_FAMILY, 0, 0, cmd, GPUMEM_FAMILY_VERSION);
	return m;
}

/* nla_put_u64_64bit(): a pad attribute first, as on a kernel that aligns */
static void put_u64(struct nl_msg *m, int type, uint64_t v, int pad)
{
	nla_put(m, pad, 0, NULL);
	nla_put_u64(m, type, v);
}

/* The request fails with err: its extended ack is msg (NULL: none) and miss. */
static int fail(int err, const char *msg, int miss)
{
	snprintf(sock.msg, sizeof(sock.msg), "%s", msg ? msg : "");
	sock.miss = miss;
	return -err;
}

static int is_below(const char *path, const char *root)
{
	size_t n = strlen(root);

	return path && strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void put_limit(struct nl_msg *m, const struct fake_limit *l, int cgroup_row)
{
	put_u64(m, GPUMEM_A_LIMIT_CGROUP_ID, l->cgroup_id, GPUMEM_A_LIMIT_PAD);
	nla_put_string(m, GPUMEM_A_LIMIT_CGROUP_PATH, l->path);
	if (l->has_dev)
		nla_put_u32(m, GPUMEM_A_LIMIT_DEV_ID, l->dev);
	nla_put_u32(m, GPUMEM_A_LIMIT_REGION, l->region);
	put_u64(m, GPUMEM_A_LIMIT_USAGE, l->usage, GPUMEM_A_LIMIT_PAD);
	if (cgroup_row && !l->has_limit)
		return;
	if (l->has_max)
		put_u64(m, GPUMEM_A_LIMIT_MAX_BYTES, l->max, GPUMEM_A_LIMIT_PAD);
	if (l->has_high)
		put_u64(m, GPUMEM_A_LIMIT_HIGH_BYTES, l->high, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MODE, l->mode);
	put_u64(m, GPUMEM_A_LIMIT_DENIED, l->denied, GPUMEM_A_LIMIT_PAD);
}

/* The limit the request names; -1 if there is none. */
static int find_limit(struct nlattr **tb)
{
	uint64_t id = nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID]);
	int has_dev = tb[GPUMEM_A_LIMIT_DEV_ID] != NULL;
	uint32_t dev = has_dev ? nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) : 0;
	uint32_t region = tb[GPUMEM_A_LIMIT_REGION] ? nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) :
			  GPUMEM_REGION_VRAM;
	size_t i;

	for (i = 0; i < nlimits; i++)
		if (limits[i].cgroup_id == id && limits[i].has_dev == has_dev &&
		    (!has_dev || limits[i].dev == dev) && limits[i].region == region)
			return (int)i;
	return -1;
}

/* GM_FAKE_STATE: the requests that changed limits, written at exit */
static char state_log[4096];

static void log_op(const char *op, struct nlattr **tb, int ret)
{
	size_t n = strlen(state_log);
	char dev[16] = "all";

	if (!getenv("GM_FAKE_STATE"))
		return;
	if (tb[GPUMEM_A_LIMIT_DEV_ID])
		snprintf(dev, sizeof(dev), "card%u", nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]));
	snprintf(state_log + n, sizeof(state_log) - n, "%s %s %s\n", op, dev,
		 ret ? strerror(-ret) : "ok");
}

static void write_state(void)
{
	FILE *f = fopen(getenv("GM_FAKE_STATE"), "w");
	size_t i;

	if (!f)
		return;
	fputs(state_log, f);
	for (i = 0; i < nlimits; i++) {
		const struct fake_limit *l = &limits[i];
		char dev[16] = "all", max[24] = "-", high[24] = "-";

		if (!extra_cgroup(l->cgroup_id))
			continue;
		if (l->has_dev)
			snprintf(dev, sizeof(dev), "card%u", l->dev);
		if (l->has_max)
			snprintf(max, sizeof(max), "%llu", (unsigned long long)l->max);
		if (l->has_high)
			snprintf(high, sizeof(high), "%llu", (unsigned long long)l->high);
		fprintf(f, "limit %llu %s %u %s %s %u\n", (unsigned long long)l->cgroup_id, dev,
			l->region, max, high, l->mode);
	}
	fclose(f);
}

static int limit_cmd_do(struct nl_msg *req, uint8_t cmd, struct nlattr **tb);

/* LIMIT_SET/DEL logged for GM_FAKE_STATE; GM_FAKE_SETFAIL_DEV */
static int limit_cmd(struct nl_msg *req, uint8_t cmd, struct nlattr **tb)
{
	static bool at_exit;
	const char *fail_dev = getenv("GM_FAKE_SETFAIL_DEV");
	int ret;

	if (!at_exit && getenv("GM_FAKE_STATE")) {
		atexit(write_state);
		at_exit = true;
	}
	if (cmd == GPUMEM_CMD_LIMIT_SET && fail_dev && tb[GPUMEM_A_LIMIT_DEV_ID] &&
	    nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) == strtoul(fail_dev, NULL, 10))
		ret = fail(ENOSPC, "too many limits", -1);
	else
		ret = limit_cmd_do(req, cmd, tb);
	if (cmd == GPUMEM_CMD_LIMIT_SET || cmd == GPUMEM_CMD_LIMIT_DEL)
		log_op(cmd == GPUMEM_CMD_LIMIT_SET ? "set" : "del", tb, ret);
	return ret;
}

/* LIMIT_SET/GET/DEL and CGROUP_GET, checked as kmod/netlink.c checks them. */
static int limit_cmd_do(struct nl_msg *req, uint8_t cmd, struct nlattr **tb)
{
	int dump = (nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP, i;
	struct fake_limit *l;
	bool replace;
	size_t k;

	static int root_added;
	char root[256];
	struct stat st;

	if (strcmp(fake_mode(), "oldmodule") == 0)
		return fail(EOPNOTSUPP, NULL, -1);
	/* a limit on the cgroup2 root of this host, so that the tests can name it */
	if (!root_added && stat(cgroup2_root(root, sizeof(root)), &st) == 0) {
		limits[nlimits++] = (struct fake_limit){
			st.st_ino, "/", 0, 0, GPUMEM_REGION_VRAM, 1, 0, 1024 * MiB, 0,
			GPUMEM_LIMIT_MODE_ENFORCE, 5 * MiB, 0, 1,
		};
	}
	root_added = 1;
	if (cmd == GPUMEM_CMD_CGROUP_GET) {
		for (k = 0; k < N(cgroup_rows); k++) {
			struct nl_msg *m = reply(cmd);

			put_limit(m, &cgroup_rows[k], 1);
			emit(m);
		}
		return 0;
	}
	if (cmd == GPUMEM_CMD_LIMIT_GET && dump) {
		for (k = 0; k < nlimits; k++) {
			struct nl_msg *m = reply(cmd);

			put_limit(m, &limits[k], 0);
			emit(m);
		}
		return 0;
	}
	if (!tb[GPUMEM_A_LIMIT_CGROUP_ID])
		return fail(EINVAL, "cgroup-id is required", GPUMEM_A_LIMIT_CGROUP_ID);
	if (tb[GPUMEM_A_LIMIT_REGION] && nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) > GPUMEM_REGION_MAX)
		return fail(EINVAL, "unknown region", -1);
	i = find_limit(tb);
	if (cmd == GPUMEM_CMD_LIMIT_GET || cmd == GPUMEM_CMD_LIMIT_DEL) {
		if (i < 0)
			return fail(ENOENT, "no limit on this cgroup, device and region", -1);
		if (cmd == GPUMEM_CMD_LIMIT_DEL) {
			limits[i] = limits[--nlimits];
			return 0;
		}
		{
			struct nl_msg *m = reply(cmd);

			put_limit(m, &limits[i], 0);
			emit(m);
			return 0;
		}
	}
	/* LIMIT_SET: changes what it is given, or replaces the whole limit */
	replace = tb[GPUMEM_A_LIMIT_REPLACE] != NULL;
	if (!tb[GPUMEM_A_LIMIT_MAX_BYTES] && !tb[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    (replace || !tb[GPUMEM_A_LIMIT_MODE]))
		return fail(EINVAL, "max-bytes or high-bytes is required", -1);
	if ((tb[GPUMEM_A_LIMIT_MAX_BYTES] && !nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES])) ||
	    (tb[GPUMEM_A_LIMIT_HIGH_BYTES] && !nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES])))
		return fail(EINVAL, "a limit is at least 1 byte", -1);
	if (tb[GPUMEM_A_LIMIT_MAX_BYTES] && tb[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]) > nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]))
		return fail(EINVAL, "high-bytes is more than max-bytes", -1);
	if (tb[GPUMEM_A_LIMIT_MODE] && nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]) > GPUMEM_LIMIT_MODE_MONITOR)
		return fail(EINVAL, "unknown mode", -1);
	if (tb[GPUMEM_A_LIMIT_DEV_ID] && nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) >= N(devs))
		return fail(ENODEV, "no such device", -1);
	if (!cgroup_path(nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID])))
		return fail(ENOENT, "no such cgroup", -1);
	if (i < 0 && !tb[GPUMEM_A_LIMIT_MAX_BYTES] && !tb[GPUMEM_A_LIMIT_HIGH_BYTES])
		return fail(ENODATA, "no such limit to change", -1);
	if (i >= 0 && !replace) {	/* keep what is not given */
		struct fake_limit m = limits[i];

		if (tb[GPUMEM_A_LIMIT_MAX_BYTES]) {
			m.has_max = 1;
			m.max = nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]);
		}
		if (tb[GPUMEM_A_LIMIT_HIGH_BYTES]) {
			m.has_high = 1;
			m.high = nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]);
		}
		if (tb[GPUMEM_A_LIMIT_MODE])
			m.mode = nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]);
		if (m.has_max && m.has_high && m.high > m.max)
			return fail(EINVAL, "high-bytes would be above max-bytes", -1);
		limits[i] = m;
		return 0;
	}
	if (i < 0) {
		if (nlimits == N(limits))
			return fail(ENOSPC, "too many limits", -1);
		i = (int)nlimits++;
		memset(&limits[i], 0, sizeof(limits[i]));
	}
	l = &limits[i];
	l->cgroup_id = nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID]);
	l->path = cgroup_path(l->cgroup_id);
	l->has_dev = tb[GPUMEM_A_LIMIT_DEV_ID] != NULL;
	l->dev = l->has_dev ? nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) : 0;
	l->region = tb[GPUMEM_A_LIMIT_REGION] ? nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) :
		    GPUMEM_REGION_VRAM;
	l->has_max = tb[GPUMEM_A_LIMIT_MAX_BYTES] != NULL;
	l->max = l->has_max ? nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]) : 0;
	l->has_high = tb[GPUMEM_A_LIMIT_HIGH_BYTES] != NULL;
	l->high = l->has_high ? nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]) : 0;
	l->mode = tb[GPUMEM_A_LIMIT_MODE] ? nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]) :
		  GPUMEM_LIMIT_MODE_ENFORCE;
	l->has_limit = 1;
	return 0;
}

/* GM_FAKE_PROCS: process i past the table's */
static const struct fake_proc *many_proc(size_t i)
{
	static char comm[32], cgroup[48];
	static struct fake_proc p;

	snprintf(comm, sizeof(comm), "proc-%zu", i);
	snprintf(cgroup, sizeof(cgroup), "/test/many/%zu", i / 4);
	p = (struct fake_proc){ (uint32_t)(10000 + i), comm, 5000 + i / 4, cgroup, 0,
				{ (i + 1) * MiB, i * 4096, 0, 0 }, 0, (i + 1) * MiB, 3, 0 };
	return &p;
}

/*
 * GM_FAKE_SHUFFLE: the order of PROC_GET's n rows, a permutation of 0..n-1
 * (Fisher-Yates with xorshift64 from the seed; malloc'ed), or NULL: in order
 */
static size_t *proc_order(size_t n)
{
	const char *seed = getenv("GM_FAKE_SHUFFLE");
	uint64_t x;
	size_t *v, i, j, t;

	if (!seed || !n)
		return NULL;
	v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	x = strtoull(seed, NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
	for (i = 0; i < n; i++)
		v[i] = i;
	for (i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % (i + 1));
		t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
	return v;
}

/* The handlers: the answer's messages (emit()); 0, or fail()'s -errno. */
static int fake_run(struct nl_msg *req)
{
	struct nlattr *tb[16] = { 0 };
	uint8_t cmd = genlmsg_hdr(nlmsg_hdr(req))->cmd;
	const char *many = getenv("GM_FAKE_PROCS");
	size_t i, h, nprocs = N(procs) + (many ? strtoul(many, NULL, 10) : 0), *order;
	bool dumpfail = strcmp(fake_mode(), "dumpfail") == 0;

	genlmsg_parse(nlmsg_hdr(req), 0, tb, 15, NULL);

	/* GENL_ADMIN_PERM: the genetlink core refuses before any handler */
	if (strcmp(fake_mode(), "eperm") == 0 && cmd <= GPUMEM_CMD_MAX &&
	    gm_spec_admin_perm[cmd])
		return fail(EPERM, NULL, -1);

	switch (cmd) {
	case GPUMEM_CMD_DEV_GET:
		for (i = 0; i < N(devs); i++) {
			const struct fake_dev *d = &devs[i];
			struct nl_msg *m = reply(cmd);
			struct nlattr *n;

			if (tb[GPUMEM_A_DEV_ID] && nla_get_u32(tb[GPUMEM_A_DEV_ID]) != d->id) {
				nlmsg_free(m);
				continue;
			}
			nla_put_u32(m, GPUMEM_A_DEV_ID, d->id);
			nla_put_string(m, GPUMEM_A_DEV_NAME, d->name);
			nla_put_string(m, GPUMEM_A_DEV_DRIVER, d->driver);
			nla_put_string(m, GPUMEM_A_DEV_UNIQUE, d->unique);
			if (d->desc)
				nla_put_string(m, GPUMEM_A_DEV_DESC, d->desc);
			if (d->render >= 0)
				nla_put_u32(m, GPUMEM_A_DEV_RENDER_ID, (uint32_t)d->render);
			nla_put_u8(m, GPUMEM_A_DEV_TTM, d->ttm);
			/* a device without TTM has no region (kmod/netlink.c) */
			if (d->ttm) {
				n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
				nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, d->r.region);
				if (d->r.known)
					put_u64(m, GPUMEM_A_DEV_REGION_CAPACITY, d->r.capacity,
						GPUMEM_A_DEV_REGION_PAD);
				put_u64(m, GPUMEM_A_DEV_REGION_USED, d->r.used, GPUMEM_A_DEV_REGION_PAD);
				/* qxl's free space in five blocks, the largest 32 MiB */
				if (d->id == 0) {
					put_u64(m, GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES,
						60809216, GPUMEM_A_DEV_REGION_PAD);
					put_u64(m, GPUMEM_A_DEV_REGION_LARGEST_FREE,
						33554432, GPUMEM_A_DEV_REGION_PAD);
					put_u64(m, GPUMEM_A_DEV_REGION_FREE_BLOCKS, 5,
						GPUMEM_A_DEV_REGION_PAD);
				}
				nla_nest_end(m, n);
			}
			emit(m);
		}
		break;
	case GPUMEM_CMD_PROC_GET:
		order = proc_order(nprocs);
		for (i = 0; i < nprocs; i++) {
			size_t at = order ? order[i] : i;
			const struct fake_proc *p = at < N(procs) ? &procs[at] : many_proc(at - N(procs));
			struct nl_msg *m;
			bool held;
			int r;

			if (dumpfail && sock.sent == 2) {
				free(order);
				return fail(ENOMEM, "snapshot: out of memory", -1);
			}

			if (tb[GPUMEM_A_PROC_PID] && nla_get_u32(tb[GPUMEM_A_PROC_PID]) != p->pid)
				continue;
			if (tb[GPUMEM_A_PROC_DEV_ID] && nla_get_u32(tb[GPUMEM_A_PROC_DEV_ID]) != p->dev)
				continue;
			if (tb[GPUMEM_A_PROC_CGROUP_ID]) {
				uint64_t want = nla_get_u64(tb[GPUMEM_A_PROC_CGROUP_ID]);
				const char *root = NULL;
				size_t k;

				for (k = 0; k < N(procs); k++)
					if (procs[k].cgroup_id == want)
						root = procs[k].cgroup;
				if (p->cgroup_id != want && !(root && is_below(p->cgroup, root)))
					continue;
			}
			held = tb[GPUMEM_A_PROC_VIEW] &&
			       nla_get_u32(tb[GPUMEM_A_PROC_VIEW]) == GPUMEM_PROC_VIEW_HELD;
			m = reply(cmd);
			nla_put_u32(m, GPUMEM_A_PROC_PID, p->pid);
			nla_put_string(m, GPUMEM_A_PROC_COMM, p->comm);
			put_u64(m, GPUMEM_A_PROC_CGROUP_ID, p->cgroup_id, GPUMEM_A_PROC_PAD);
			if (p->cgroup)
				nla_put_string(m, GPUMEM_A_PROC_CGROUP_PATH, p->cgroup);
			nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, p->dev);
			nla_put_u32(m, GPUMEM_A_PROC_VIEW,
				    held ? GPUMEM_PROC_VIEW_HELD : GPUMEM_PROC_VIEW_CHARGED);
			/* like kmod/netlink.c: the charged view has vram and gtt only */
			for (r = 0; r < (held ? 4 : 2); r++) {
				struct nlattr *n = nla_nest_start(m, GPUMEM_A_PROC_USAGE);

				nla_put_u32(m, GPUMEM_A_USAGE_REGION, (uint32_t)r);
				put_u64(m, GPUMEM_A_USAGE_BYTES, p->usage[r], GPUMEM_A_USAGE_PAD);
				nla_nest_end(m, n);
			}
			if (held) {
				put_u64(m, GPUMEM_A_PROC_SHARED, p->shared, GPUMEM_A_PROC_PAD);
				put_u64(m, GPUMEM_A_PROC_OWNED, p->owned, GPUMEM_A_PROC_PAD);
				nla_put_u32(m, GPUMEM_A_PROC_SKIPPED, p->skipped);
			}
			nla_put_u32(m, GPUMEM_A_PROC_BOS, p->bos);
			emit(m);
		}
		free(order);
		break;
	case GPUMEM_CMD_BUF_GET:
		if (!tb[GPUMEM_A_BUF_OWNER])
			return fail(EINVAL, "owner (pid) is required", GPUMEM_A_BUF_OWNER);
		for (i = 0; i < N(bufs); i++) {
			const struct fake_buf *b = &bufs[i];
			struct nl_msg *m;
			uint32_t want = nla_get_u32(tb[GPUMEM_A_BUF_OWNER]);	/* held by */

			for (h = 0; h < 3 && b->holders[h] != want; h++)
				;
			if (h == 3)
				continue;
			if (tb[GPUMEM_A_BUF_DEV_ID] && nla_get_u32(tb[GPUMEM_A_BUF_DEV_ID]) != b->dev)
				continue;
			m = reply(cmd);
			nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, b->dev);
			nla_put_u32(m, GPUMEM_A_BUF_OWNER, b->owner);
			nla_put_u32(m, GPUMEM_A_BUF_HANDLE, b->handle);
			put_u64(m, GPUMEM_A_BUF_SIZE, b->size, GPUMEM_A_BUF_PAD);
			nla_put_u32(m, GPUMEM_A_BUF_REGION, b->region);
			if (b->has_mt)
				nla_put_u32(m, GPUMEM_A_BUF_MEM_TYPE, b->mt);
			nla_put_u8(m, GPUMEM_A_BUF_SHARED, b->shared);
			for (h = 0; h < 3 && b->holders[h]; h++)
				nla_put_u32(m, GPUMEM_A_BUF_HOLDER, b->holders[h]);
			emit(m);
		}
		break;
	case GPUMEM_CMD_STATS_GET: {
		struct nl_msg *m = reply(cmd);

		put_u64(m, GPUMEM_A_STATS_WALKS, 12, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_WALKS_FAILED, 0, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_NS, 1234567, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_CLIENTS, 4, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_BOS, 100, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_SKIPPED, 2, GPUMEM_A_STATS_PAD);
		nla_put_u32(m, GPUMEM_A_STATS_DEVICES, 3);
		put_u64(m, GPUMEM_A_STATS_CHARGED, 501, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_UNCHARGED, 430, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_CHARGE_FAILED, 5, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_DENIED, 17, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_GUARD_REFUSED, 23, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_SENT, 29, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_SUPPRESSED, 6, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_LOST, 2, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LIVE_RECORDS, 71, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_UNATTRIBUTED, 13, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_RESV_RELEASED, 3, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_DMEM_UNWATCHED, 7, GPUMEM_A_STATS_PAD);
		emit(m);
		break;
	}
	case GPUMEM_CMD_LIMIT_SET:
	case GPUMEM_CMD_LIMIT_GET:
	case GPUMEM_CMD_LIMIT_DEL:
	case GPUMEM_CMD_CGROUP_GET:
		return limit_cmd(req, cmd, tb);
	default:
		return fail(EOPNOTSUPP, NULL, -1);
	}
	return 0;
}

/*
 * The request, as nl_send_auto() sends it: numbered, and answered at once
 * (the answer waits on the socket). GM_FAKE=dumpintr: the first dump of a
 * run is answered twice over, the second time marked NLM_F_DUMP_INTR (the
 * kernel's lists changed while it was dumped); a client that does not ask
 * again shows every row twice.
 */
int gm_fake_send(struct gm_nl *nl, struct nl_msg *req)
{
	static bool interrupted_once;
	struct nlmsghdr *h = nlmsg_hdr(req);
	int ret;

	(void)nl;
	if (!sock.seq)
		sock.seq = 1000;
	/* nl_complete_msg() */
	if (h->nlmsg_pid == NL_AUTO_PORT)
		h->nlmsg_pid = FAKE_PORT;
	if (h->nlmsg_seq == NL_AUTO_SEQ)
		h->nlmsg_seq = sock.seq++;
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;

	sock.req = *h;
	sock.dgram = getenv("GM_FAKE_DGRAM") ? strtoul(getenv("GM_FAKE_DGRAM"), NULL, 10) : 512;
	sock.dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	sock.intr = 0;
	sock.sent = 0;
	sock.open = false;		/* a new answer starts a new datagram */
	fail(0, NULL, -1);
	if (strcmp(fake_mode(), "noreply") == 0)
		return (int)h->nlmsg_len;
	if (strcmp(fake_mode(), "spoof") == 0) {
		snprintf(sock.msg, sizeof(sock.msg), "spoofed");
		sock_ack(NLMSG_ERROR, -EPERM, SPOOF_PORT);
		fail(0, NULL, -1);
	}
	ret = fake_run(req);
	if (ret == 0 && sock.dump && strcmp(fake_mode(), "dumpintr") == 0 && !interrupted_once) {
		interrupted_once = true;
		sock.intr = NLM_F_DUMP_INTR;
		ret = fake_run(req);
	}
	if (ret < 0)	/* a dump that sent rows ends in NLMSG_DONE, with its error */
		sock_ack(sock.dump && sock.sent ? NLMSG_DONE : NLMSG_ERROR, ret, 0);
	else
		sock_ack(sock.dump ? NLMSG_DONE : NLMSG_ERROR, 0, 0);
	return (int)h->nlmsg_len;
}

/* nl_recv(): the next datagram; none: what a receive timeout returns */
int gm_fake_recv(struct gm_nl *nl, struct sockaddr_nl *from, unsigned char **buf)
{
	struct dgram d;

	(void)nl;
	if (sock.next == sock.n) {
		sock_drop();
		return -NLE_AGAIN;
	}
	d = sock.v[sock.next++];
	if (sock.next == sock.n)
		sock_drop();	/* all read: the array starts again */
	memset(from, 0, sizeof(*from));
	from->nl_family = AF_NETLINK;
	from->nl_pid = d.from;
	*buf = d.buf;
	return (int)d.len;
}

/* libdrm's sysfs view: card0 is a QXL on PCI, the others have no PCI ids. */
void gm_drm_enrich(struct gm_dev *d)
{
	if (d->id == 0) {
		d->has_pci = true;
		d->pci_vendor = 0x1b36;
		d->pci_device = 0x0100;
	}
}

/* --- the events group ------------------------------------------------------ */

enum step_kind { EV, LOST, GONE };
static const struct fake_step {
	enum step_kind kind;
	uint32_t type;
	uint64_t seq, cgroup_id;
	const char *cgroup, *comm;
	uint32_t pid, dev, region;
	uint64_t requested, usage, limit;
	int mode, denied;	/* -1: not sent */
	uint64_t suppressed;
	int source;		/* 0: not sent, else the enum's value + 1 */
} script[] = {
	/* first connection */
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 1, 4711, "/test/a", "gpumem-alloc", 812, 0,
	  GPUMEM_REGION_VRAM, 4 * MiB, 62 * MiB, 64 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 1, 0, 0 },
	{ EV, GPUMEM_EVENT_TYPE_HIGH_CROSSED, 2, 4713, "/test/a/big", "big", 900, 0,
	  GPUMEM_REGION_VRAM, MiB, 48 * MiB, 48 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 0, 0, 0 },
	{ EV, GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD, 5, 0, NULL, NULL, 0, 0,
	  GPUMEM_REGION_VRAM, MiB, 120 * MiB, 120795955, -1, 0, 0, 0 },
	{ LOST, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 6, 4712, "/test/a b", "gm sp\tace", 815, 2,
	  GPUMEM_REGION_SYSTEM, 65536, 2 * MiB, 2 * MiB, GPUMEM_LIMIT_MODE_MONITOR, 0, 3,
	  GPUMEM_LIMIT_SOURCE_DMEM + 1 },
	{ GONE, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	/* after the module came back: numbering starts again */
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 1, 4711, "/test/a", "gpumem-alloc", 812, 0,
	  GPUMEM_REGION_VRAM, 4 * MiB, 62 * MiB, 64 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 1, 0, 0 },
};

static struct {
	int pipe[2];		/* readable while the script has steps for this connection */
	size_t next;		/* the next step */
	int gone, lookups;	/* the family is away; look-ups since */
	int subscribed;
} w = { { -1, -1 }, 0, 0, 0, 0 };

static int watching(void)
{
	return strcmp(fake_mode(), "watch") == 0;
}

static void arm(void)
{
	char c = 1, buf[16];

	while (read(w.pipe[0], buf, sizeof(buf)) > 0)	/* non-blocking: drain */
		;
	if (watching() && w.subscribed && !w.gone && w.next < N(script) &&
	    write(w.pipe[1], &c, 1) != 1)
		abort();
}

int gm_nl_subscribe(struct gm_nl *nl, const char *family, const char *group)
{
	const char *mode = fake_mode();

	(void)group;
	memset(nl, 0, sizeof(*nl));
	nl->miss_type = -1;
	snprintf(nl->family_name, sizeof(nl->family_name), "%s", family);
	if (strcmp(mode, "nomodule") == 0 || w.gone) {
		nl->error = ENOENT;
		nl->no_family = true;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	if (strcmp(mode, "eperm") == 0 && GM_SPEC_EVENTS_ADMIN) {
		nl->error = EPERM;
		return -EPERM;
	}
	if (strcmp(mode, "oldmodule") == 0) {
		nl->error = ENOENT;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	if (w.pipe[0] < 0 && pipe(w.pipe) < 0)
		abort();
	fcntl(w.pipe[0], F_SETFL, O_NONBLOCK);
	w.gone = 0;
	w.subscribed = 1;
	nl->family = FAKE_FAMILY;
	arm();
	return 0;
}

/* After the script's GONE: absent for two looks, back at the third. */
int gm_nl_family_present(const char *family)
{
	if (strcmp(family, GPUMEM_FAMILY_NAME) != 0 || strcmp(fake_mode(), "nomodule") == 0)
		return 0;
	if (w.gone && ++w.lookups < 3)
		return 0;
	w.gone = 0;
	return 1;
}

int gm_nl_event_fd(const struct gm_nl *nl)
{
	(void)nl;
	return w.pipe[0];
}

static struct nl_msg *event_msg(const struct fake_step *s)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, FAKE_FAMILY, 0, 0, GPUMEM_CMD_QUOTA_EVENT, GPUMEM_FAMILY_VERSION);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, s->type);
	put_u64(m, GPUMEM_A_EVENT_SEQ, s->seq, GPUMEM_A_EVENT_PAD);
	if (s->cgroup) {
		put_u64(m, GPUMEM_A_EVENT_CGROUP_ID, s->cgroup_id, GPUMEM_A_EVENT_PAD);
		nla_put_string(m, GPUMEM_A_EVENT_CGROUP_PATH, s->cgroup);
		nla_put_u32(m, GPUMEM_A_EVENT_PID, s->pid);
		nla_put_string(m, GPUMEM_A_EVENT_COMM, s->comm);
	}
	nla_put_u32(m, GPUMEM_A_EVENT_DEV_ID, s->dev);
	nla_put_u32(m, GPUMEM_A_EVENT_REGION, s->region);
	put_u64(m, GPUMEM_A_EVENT_REQUESTED, s->requested, GPUMEM_A_EVENT_PAD);
	put_u64(m, GPUMEM_A_EVENT_USAGE, s->usage, GPUMEM_A_EVENT_PAD);
	put_u64(m, GPUMEM_A_EVENT_LIMIT, s->limit, GPUMEM_A_EVENT_PAD);
	if (s->mode >= 0)
		nla_put_u32(m, GPUMEM_A_EVENT_MODE, (uint32_t)s->mode);
	if (s->denied >= 0)
		nla_put_u8(m, GPUMEM_A_EVENT_DENIED, (uint8_t)s->denied);
	if (s->suppressed)
		put_u64(m, GPUMEM_A_EVENT_SUPPRESSED, s->suppressed, GPUMEM_A_EVENT_PAD);
	if (s->source)
		nla_put_u32(m, GPUMEM_A_EVENT_SOURCE, (uint32_t)(s->source - 1));
	return m;
}

/* nlctrl's notification that the family was unregistered */
static struct nl_msg *delfamily_msg(const char *family)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, GENL_ID_CTRL, 0, 0, CTRL_CMD_DELFAMILY, 2);
	nla_put_u16(m, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, family);
	return m;
}

/*
 * recvmsg(MSG_DONTWAIT) on the events socket: the script's next events in
 * one datagram, up to a LOST (-1, ENOBUFS, when nothing comes before it) or
 * a GONE (nlctrl's DELFAMILY, last in the datagram); -1 with EAGAIN when
 * there is nothing (the pipe poll() watches is then armed again).
 */
long gm_fake_recv_event(struct gm_nl *nl, void *buf, size_t size, struct sockaddr_nl *from,
			int *msg_flags)
{
	size_t len = 0;

	memset(from, 0, sizeof(*from));
	from->nl_family = AF_NETLINK;
	*msg_flags = 0;
	while (watching() && !w.gone && w.next < N(script)) {
		const struct fake_step *s = &script[w.next];
		struct nl_msg *m;
		struct nlmsghdr *h;

		if (s->kind == LOST) {
			if (len)
				break;	/* what came before first */
			w.next++;
			arm();
			errno = ENOBUFS;
			return -1;
		}
		m = s->kind == GONE ? delfamily_msg(nl->family_name) : event_msg(s);
		h = nlmsg_hdr(m);
		if (len + NLMSG_ALIGN(h->nlmsg_len) > size)
			abort();
		memcpy((char *)buf + len, h, h->nlmsg_len);
		memset((char *)buf + len + h->nlmsg_len, 0, NLMSG_ALIGN(h->nlmsg_len) - h->nlmsg_len);
		len += NLMSG_ALIGN(h->nlmsg_len);
		nlmsg_free(m);
		w.next++;
		if (s->kind == GONE) {
			w.gone = 1;
			w.lookups = 0;
			w.subscribed = 0;
		}
	}
	if (len)
		return (long)len;
	arm();
	errno = EAGAIN;
	return -1;
}
