// SPDX-License-Identifier: GPL-2.0
/*
 * nl-fuzz - send malformed requests to the "gpumem" generic netlink family
 * and check that every one is refused, and read every valid dump looking
 * for leaked kernel pointers.
 *
 *   nl-fuzz fuzz [-n COUNT] [-s SEED] [-C CATEGORY[,CATEGORY...]] [-t SECONDS] [-k]
 *   nl-fuzz scan [-t SECONDS]
 *   nl-fuzz devices [-t SECONDS]
 *   nl-fuzz list
 *
 * fuzz: COUNT requests (default 3000), spread over the categories below by
 * weight (-C: only these). Every request must get an error: an NLMSG_ERROR
 * with error < 0, or an NLMSG_DONE carrying one. Never an ACK, a successful
 * dump or silence (each receive waits at most -t seconds, default 10).
 * Categories marked "msg" must also carry an extended-ack message
 * (NLMSGERR_ATTR_MSG); "msg|miss" accepts NLMSGERR_ATTR_MISS_TYPE naming
 * the missing attribute instead; with -k (kernels before 6.2, whose
 * netlink_dump_control has no extack) a dump refused by the module's .start
 * needs none (counted as startnomsg). The commands the family has, and in which
 * modes, come from the controller (CTRL_CMD_GETFAMILY), so "unknown"
 * commands stay unknown when the family grows. Output, for awk:
 *   SEED <seed>
 *   OPS <cmd>:<do,dump> ...
 *   CAT <name> need=<none|msg|msg|miss> sent=N errors=N msg=N miss=N nomsg=N ok=N
 *       timeout=N io=N data=N startnomsg=N verdict=<pass|fail>
 *   MSG <category> <count> <errno name> <message or "-">
 *   BAD <category> <index> <what happened>: <request description>
 *   RESULT pass|fail
 * The random categories draw from a PRNG seeded with SEED (default: time
 * and pid), so "-s SEED" replays a run.
 *
 * scan: the valid requests (dev-get dump and do for every device,
 * proc-get dump in the held and in the charged view, buf-get dump for
 * every pid the proc dumps list, stats-get); every 8-byte window (4-byte aligned) of every attribute
 * payload is checked for a kernel address (>= 0xffff800000000000).
 *   DEV <id> <name> <driver>
 *   PROC <pid> <dev-id>      (held view)
 *   CPROC <pid> <dev-id>     (charged view)
 *   SCAN messages=N attributes=N windows=N pointers=N errors=N
 *   PTR <command> <attribute path> 0x<value>
 * Exit status 1 when a pointer was found or a valid request failed.
 * devices: the dev-get dump alone (DEV lines).
 * flood: COUNT (-n, default 60) dumps of one kind (-V held|charged|buffers:
 * proc-get in the held or charged view, or buf-get) back to back, as fast
 * as the replies come; counts how each ended:
 *   FLOOD view=V sent=N ok=N busy=N other=N ms=T   (ms: first send to last reply)
 *   BUSYMSG <the extack message of the first EBUSY, or "-">
 *   OTHER <errno name or what happened> <message>   (each refusal but EBUSY)
 *   CALL <sent ms> <answered ms> ok|busy|other   (each dump, CLOCK_MONOTONIC)
 *
 * libnl-3 opens the socket and resolves the family; requests are built with
 * nlmsg_put()/nla_put() and patched by hand where libnl would not go
 * (truncated headers, raw attribute streams); replies are read with recv()
 * and their extended-ack TLVs parsed with nla_parse().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "../../uapi/gpumem.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLMSGERR_ATTR_MISS_TYPE
#define NLMSGERR_ATTR_MISS_TYPE 5
#endif
#define GM_NLMSGERR_MAX 8	/* NLMSGERR_ATTR_* known to any kernel we run */

#define PID_MAX_LIMIT	4194304	/* the kernel's pid_max ceiling, 64-bit */
#define RXBUF		(512 * 1024)
#define MAX_MSGS	48	/* distinct (errno, message) pairs kept per category */
#define MAX_BAD		5	/* BAD lines printed per category */

static struct nl_sock *sk;
static int fd;
static int family;
static uint32_t seq_no = 1000;
static int rx_timeout = 10;
static uint8_t *rxbuf;
static bool start_extack_lost;	/* -k: the kernel drops extack of a dump's .start */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nl-fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

/* --- PRNG (xorshift64*): reproducible from the printed seed --------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd(uint32_t n)	/* 0 .. n-1 */
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

/* --- the family's request policies, as the module declares them ------------ */

struct attr_spec {
	int type;
	int len;	/* exact payload length: 4 (u32) or 8 (u64) */
	bool pid;	/* range 0..PID_MAX_LIMIT */
};

struct op {
	const char *name;
	int cmd;
	bool dump;
	int maxattr;		/* the policy's maxattr (1: stats' reject-all) */
	struct attr_spec a[3];	/* what the request may carry */
	int na;
};

static const struct op ops[] = {
	{ "dev-get-do", GPUMEM_CMD_DEV_GET, false, GPUMEM_A_DEV_ID,
	  { { GPUMEM_A_DEV_ID, 4, false } }, 1 },
	{ "dev-get-dump", GPUMEM_CMD_DEV_GET, true, GPUMEM_A_DEV_ID,
	  { { GPUMEM_A_DEV_ID, 4, false } }, 1 },
	{ "proc-get-dump", GPUMEM_CMD_PROC_GET, true, GPUMEM_A_PROC_MAX,
	  { { GPUMEM_A_PROC_PID, 4, true }, { GPUMEM_A_PROC_DEV_ID, 4, false },
	    { GPUMEM_A_PROC_CGROUP_ID, 8, false } }, 3 },
	{ "buf-get-dump", GPUMEM_CMD_BUF_GET, true, GPUMEM_A_BUF_MAX,
	  { { GPUMEM_A_BUF_DEV_ID, 4, false }, { GPUMEM_A_BUF_OWNER, 4, true } }, 2 },
	{ "stats-get-do", GPUMEM_CMD_STATS_GET, false, 1, { { 0 } }, 0 },
};
#define N_OPS (int)(sizeof(ops) / sizeof(ops[0]))
enum { OP_DEV_DO, OP_DEV_DUMP, OP_PROC, OP_BUF, OP_STATS };

static const struct attr_spec *op_attr(const struct op *op, int type)
{
	int i;

	for (i = 0; i < op->na; i++)
		if (op->a[i].type == type)
			return &op->a[i];
	return NULL;
}

/*
 * Could a strict parse of this attribute stream against @op's policy
 * succeed? A conservative model of __nla_validate_parse(): "false" only
 * when the kernel must reject it.
 */
static bool stream_may_pass(const struct op *op, const uint8_t *p, int len)
{
	int rem = len;

	while (rem >= (int)sizeof(struct nlattr)) {
		struct nlattr nla;
		const struct attr_spec *s;
		int type;

		memcpy(&nla, p, sizeof(nla));
		if (nla.nla_len < sizeof(nla) || nla.nla_len > rem)
			break;
		type = nla.nla_type & NLA_TYPE_MASK;
		if (type == 0 || type > op->maxattr)
			return false;
		s = op_attr(op, type);
		if (!s || (nla.nla_type & NLA_F_NESTED) || nla.nla_len - 4 != s->len)
			return false;
		if (s->pid) {
			uint32_t v;

			memcpy(&v, p + 4, 4);
			if (v > PID_MAX_LIMIT)
				return false;
		}
		p += NLA_ALIGN(nla.nla_len);
		rem -= NLA_ALIGN(nla.nla_len);
	}
	return rem <= 0;
}

/* --- devices the kernel knows (for ids that do not exist) ------------------ */

static uint32_t dev_ids[64];
static int n_dev_ids;

static bool dev_exists(uint32_t id)
{
	int i;

	for (i = 0; i < n_dev_ids; i++)
		if (dev_ids[i] == id)
			return true;
	return false;
}

static uint32_t bogus_dev_id(int i)
{
	static const uint32_t fixed[] = { 64, 127, 255, 256, 4095, 65535, 0x7fffffff,
					  0x80000000, 0xfffffffe, 0xffffffff };
	uint32_t id;

	do {
		if (i % 3 == 0)
			id = fixed[(i / 3) % (sizeof(fixed) / sizeof(fixed[0]))];
		else if (i % 3 == 1)
			id = rnd(64);	/* small ids: card0..63 that do not exist */
		else
			id = (uint32_t)rnd64();
		i++;
	} while (dev_exists(id));
	return id;
}

/* cgroup ids that name no cgroup: file inodes of cgroupfs, huge values */
static uint64_t cg_file_ids[8];
static int n_cg_file_ids;

static void find_cgroup_file_ids(void)
{
	static const char *const files[] = {
		"/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/cgroup.controllers",
		"/sys/fs/cgroup/cgroup.subtree_control", "/sys/fs/cgroup/cgroup.threads",
	};
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (stat(files[i], &st) == 0 && S_ISREG(st.st_mode))
			cg_file_ids[n_cg_file_ids++] = st.st_ino;
}

static uint64_t bogus_cgroup_id(int i)
{
	switch (i % 4) {
	case 0:
		if (n_cg_file_ids)
			return cg_file_ids[(i / 4) % n_cg_file_ids];
		/* fall through */
	case 1:
		return 0xdead000000000000ULL | rnd64() >> 16;
	case 2:
		return ~0ULL - rnd(1000);
	default:
		return (1ULL << 40) + rnd64() % (1ULL << 40);
	}
}

/* the family's operations, from CTRL_CMD_GETFAMILY: GENL_CMD_CAP_* per command */
static uint32_t op_flags[256];
static int unknown_cmds[256], n_unknown_cmds;
static struct {
	int cmd;
	bool dump;
} missing_modes[512];
static int n_missing_modes;

/* --- sending and receiving -------------------------------------------------- */

static struct nl_msg *req_new_type(int type, int cmd, bool dump, size_t size)
{
	struct nl_msg *m = nlmsg_alloc_size(size);
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);

	if (!m)
		die("nlmsg_alloc_size(%zu) failed", size);
	nlh = nlmsg_put(m, NL_AUTO_PORT, ++seq_no, type, GENL_HDRLEN, flags);
	if (!nlh)
		die("nlmsg_put failed");
	g = nlmsg_data(nlh);
	g->cmd = cmd;
	g->version = GPUMEM_FAMILY_VERSION;
	g->reserved = 0;
	return m;
}

static struct nl_msg *req_new(int cmd, bool dump, size_t size)
{
	return req_new_type(family, cmd, dump, size);
}

static struct nl_msg *req_op(const struct op *op, size_t size)
{
	return req_new(op->cmd, op->dump, size);
}

static struct genlmsghdr *req_genl(struct nl_msg *m)
{
	return nlmsg_data(nlmsg_hdr(m));
}

static void put(struct nl_msg *m, int type, int len, const void *data)
{
	if (nla_put(m, type, len, data) < 0)
		die("nla_put(type %d, len %d) failed", type, len);
}

static void put_u32(struct nl_msg *m, int type, uint32_t v)
{
	put(m, type, 4, &v);
}

static void put_u64(struct nl_msg *m, int type, uint64_t v)
{
	put(m, type, 8, &v);
}

static void put_raw(struct nl_msg *m, const void *data, size_t len)
{
	if (nlmsg_append(m, (void *)data, len, 0) < 0)
		die("nlmsg_append(%zu) failed", len);
}

enum outcome_kind { O_ERROR, O_ACK, O_DONE_OK, O_TIMEOUT, O_IO };

struct outcome {
	enum outcome_kind kind;
	int error;		/* positive errno */
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	int data;		/* data messages that came before the end */
	char io[128];
};

typedef void (*data_fn)(const struct nlmsghdr *nlh, void *arg);

/* Extended-ack TLVs of an NLMSG_ERROR or NLMSG_DONE message. */
static void parse_ext_ack(const struct nlmsghdr *nlh, size_t hlen, struct outcome *o)
{
	struct nlattr *tb[GM_NLMSGERR_MAX + 1];
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(hlen);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || nlh->nlmsg_len <= off)
		return;
	if (nla_parse(tb, GM_NLMSGERR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, NULL) < 0) {
		snprintf(o->msg, sizeof(o->msg), "(unparsable extack TLVs)");
		return;
	}
	if (tb[NLMSGERR_ATTR_MSG] && nla_len(tb[NLMSGERR_ATTR_MSG]) > 0)
		snprintf(o->msg, sizeof(o->msg), "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE] && nla_len(tb[NLMSGERR_ATTR_MISS_TYPE]) >= 4)
		o->miss_type = (int)nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
}

/*
 * Send @len bytes of @m (0: all of it) and read until its NLMSG_ERROR or
 * NLMSG_DONE. Data messages go to @fn.
 */
static void transact(struct nl_msg *m, size_t len, struct outcome *o, data_fn fn, void *arg)
{
	struct nlmsghdr *req = nlmsg_hdr(m);
	uint32_t seq = req->nlmsg_seq;
	size_t total = len ? len : req->nlmsg_len;

	memset(o, 0, sizeof(*o));
	o->miss_type = -1;
	if (len)
		req->nlmsg_len = len;
	if (nl_sendto(sk, req, total) < 0) {
		o->kind = O_IO;
		snprintf(o->io, sizeof(o->io), "send of %zu bytes failed: %s", total, strerror(errno));
		return;
	}
	for (;;) {
		ssize_t n = recv(fd, rxbuf, RXBUF, MSG_TRUNC);
		struct nlmsghdr *nlh;
		int rem;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			o->kind = (errno == EAGAIN || errno == EWOULDBLOCK) ? O_TIMEOUT : O_IO;
			snprintf(o->io, sizeof(o->io), "recv: %s", strerror(errno));
			return;
		}
		if (n > RXBUF) {
			o->kind = O_IO;
			snprintf(o->io, sizeof(o->io), "reply of %zd bytes truncated", n);
			return;
		}
		rem = (int)n;
		for (nlh = (struct nlmsghdr *)rxbuf; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* late reply of an earlier request */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr e;
				size_t hlen = sizeof(e);

				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(e)) {
					o->kind = O_IO;
					snprintf(o->io, sizeof(o->io), "short NLMSG_ERROR");
					return;
				}
				memcpy(&e, NLMSG_DATA(nlh), sizeof(e));
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					hlen += e.msg.nlmsg_len - NLMSG_HDRLEN;
				o->kind = e.error ? O_ERROR : O_ACK;
				o->error = -e.error;
				parse_ext_ack(nlh, hlen, o);
				return;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(nlh), sizeof(int));
				o->kind = err ? O_ERROR : O_DONE_OK;
				o->error = -err;
				parse_ext_ack(nlh, sizeof(int), o);
				return;
			}
			if (nlh->nlmsg_type == NLMSG_NOOP || nlh->nlmsg_type == NLMSG_OVERRUN)
				continue;
			o->data++;
			if (fn)
				fn(nlh, arg);
		}
	}
}

/* --- categories ------------------------------------------------------------- */

enum need { NEED_NONE, NEED_MSG, NEED_MSG_OR_MISS };
static const char *const need_names[] = { "none", "msg", "msg|miss" };

/* A generated request: the message, bytes to send (0: all), description. */
struct req {
	struct nl_msg *m;
	size_t len;
	int miss;	/* the attribute a missing-attribute reply should name */
	bool start;	/* refused by the module's dump .start */
	char desc[160];
};

#define DESC(r, ...) snprintf((r)->desc, sizeof((r)->desc), __VA_ARGS__)

static const struct op *rnd_op(void)
{
	return &ops[rnd(N_OPS)];
}

/* Valid attributes of @op, so that the bad one is not the only content. */
static void put_valid_attrs(struct nl_msg *m, const struct op *op)
{
	int i;

	for (i = 0; i < op->na; i++) {
		const struct attr_spec *s = &op->a[i];

		if (rnd(2))
			continue;
		if (s->pid)
			put_u32(m, s->type, 1);
		else if (s->len == 4 && n_dev_ids)
			put_u32(m, s->type, dev_ids[rnd(n_dev_ids)]);
		else if (s->len == 8)
			put_u64(m, s->type, 1);	/* the root cgroup */
	}
}

/*
 * Command numbers the family does not have (0, and 5..255 while it has four
 * commands), as do and as dump: from the kernel's own list of the family's
 * operations, so commands added later are never sent as "unknown".
 */
static void gen_unknown_cmd(struct req *r, int i)
{
	int cmd = unknown_cmds[i % n_unknown_cmds];
	bool dump = ((i / n_unknown_cmds) + cmd) & 1;

	r->m = req_new(cmd, dump, 256);
	if (rnd(2))
		put_u32(r->m, 1, 0);
	DESC(r, "cmd %d %s", cmd, dump ? "dump" : "do");
}

/* the family's commands in the mode (do or dump) they do not have */
static void gen_op_mode(struct req *r, int i)
{
	int k = i % n_missing_modes;
	int cmd = missing_modes[k].cmd;
	bool dump = missing_modes[k].dump;

	r->m = req_new(cmd, dump, 256);
	if (cmd == GPUMEM_CMD_BUF_GET)
		put_u32(r->m, GPUMEM_A_BUF_OWNER, 1);
	DESC(r, "cmd %d %s (the family has it only as %s)", cmd, dump ? "dump" : "do",
	     dump ? "do" : "dump");
}

/* nlmsg_len shorter than nlmsghdr + genlmsghdr (16..19 bytes) */
static void gen_truncated_hdr(struct req *r, int i)
{
	const struct op *op = &ops[i % N_OPS];

	r->m = req_op(op, 256);
	if (op->na)
		put_u32(r->m, op->a[0].type, 1);
	r->len = NLMSG_HDRLEN + (i / N_OPS) % GENL_HDRLEN;
	DESC(r, "%s with nlmsg_len %zu", op->name, r->len);
}

/* genlmsghdr.reserved != 0 on otherwise valid requests */
static void gen_reserved_hdr(struct req *r, int i)
{
	const struct op *op = &ops[i % N_OPS];
	uint16_t resv = 1 + rnd(0xffff);

	r->m = req_op(op, 256);
	req_genl(r->m)->reserved = resv;
	if (op == &ops[OP_DEV_DO])
		put_u32(r->m, GPUMEM_A_DEV_ID, n_dev_ids ? dev_ids[0] : 0);
	if (op == &ops[OP_BUF])
		put_u32(r->m, GPUMEM_A_BUF_OWNER, 1);
	DESC(r, "%s with genlmsghdr.reserved 0x%04x", op->name, resv);
}

/* nlmsg_flags bits a get request must not carry */
static void gen_bad_nlflags(struct req *r, int i)
{
	static const uint16_t bits[] = { NLM_F_MULTI, NLM_F_DUMP_INTR, NLM_F_DUMP_FILTERED,
					 0x100 /* ROOT alone */, 0x200 /* MATCH alone */,
					 0x400, 0x800, 0x1000, 0x8000 };
	const struct op *op = &ops[i % N_OPS];
	uint16_t b = bits[(i / N_OPS) % (sizeof(bits) / sizeof(bits[0]))];
	struct nlmsghdr *nlh;

	if (op->dump && (b == 0x100 || b == 0x200))
		b = 0x400;	/* ROOT|MATCH is the dump flag itself */
	r->m = req_op(op, 256);
	nlh = nlmsg_hdr(r->m);
	nlh->nlmsg_flags |= b;
	if (op == &ops[OP_DEV_DO])
		put_u32(r->m, GPUMEM_A_DEV_ID, n_dev_ids ? dev_ids[0] : 0);
	if (op == &ops[OP_BUF])
		put_u32(r->m, GPUMEM_A_BUF_OWNER, 1);
	DESC(r, "%s with nlmsg_flags 0x%04x", op->name, nlh->nlmsg_flags);
}

/* an attribute of the right type number with the wrong length */
static void gen_wrong_len(struct req *r, int i)
{
	static const int lens[] = { 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 32 };
	const struct op *op = &ops[i % (N_OPS - 1)];
	const struct attr_spec *s = &op->a[(i / (N_OPS - 1)) % op->na];
	uint8_t buf[32];
	int len;

	do
		len = lens[rnd(sizeof(lens) / sizeof(lens[0]))];
	while (len == s->len);
	memset(buf, 0, sizeof(buf));
	buf[0] = (uint8_t)rnd(3);	/* small values: the content is not the problem */
	r->m = req_op(op, 256);
	if (rnd(2))
		put_valid_attrs(r->m, op);
	put(r->m, s->type, len, buf);
	DESC(r, "%s attr %d (u%d) with %d bytes%s", op->name, s->type, s->len * 8, len,
	     len == 1 ? " (a u8)" : len == 4 ? " (a u32)" : len == 8 ? " (a u64)" : "");
}

/* an attribute with an empty payload */
static void gen_empty(struct req *r, int i)
{
	const struct op *op = &ops[i % (N_OPS - 1)];
	const struct attr_spec *s = &op->a[(i / (N_OPS - 1)) % op->na];

	r->m = req_op(op, 256);
	put(r->m, s->type, 0, NULL);
	if (rnd(2))
		put_valid_attrs(r->m, op);
	DESC(r, "%s attr %d with an empty payload", op->name, s->type);
}

/* a NUL-terminated string where an integer belongs */
static void gen_string(struct req *r, int i)
{
	static const char *const strs[] = { "", "0", "1", "card0", "4194305", "18446744073709551615",
					    "/sys/fs/cgroup", "qxl", "0000:00:01.0", "-1", "0x10" };
	const struct op *op = &ops[i % (N_OPS - 1)];
	const struct attr_spec *s = &op->a[(i / (N_OPS - 1)) % op->na];
	const char *str;

	do
		str = strs[rnd(sizeof(strs) / sizeof(strs[0]))];
	while ((int)strlen(str) + 1 == s->len);
	r->m = req_op(op, 256);
	if (nla_put_string(r->m, s->type, str) < 0)
		die("nla_put_string failed");
	DESC(r, "%s attr %d (u%d) as string \"%s\"", op->name, s->type, s->len * 8, str);
}

/* attribute type 0 or beyond the policy's maxattr */
static void gen_unknown_attr(struct req *r, int i)
{
	const struct op *op = &ops[i % N_OPS];
	int type;

	switch (rnd(4)) {
	case 0: type = 0; break;
	case 1: type = op->maxattr + 1; break;
	case 2: type = op->maxattr + 1 + rnd(32); break;
	/* up to the largest type a u16 nla_type holds without flag bits */
	default: type = op->maxattr + 1 + rnd((NLA_TYPE_MASK & 0xffff) - op->maxattr); break;
	}
	r->m = req_op(op, 256);
	if (rnd(2))
		put_valid_attrs(r->m, op);
	put_u32(r->m, type, 1);
	if (rnd(2))
		put_valid_attrs(r->m, op);
	DESC(r, "%s attr type %d (maxattr %d)", op->name, type, op->maxattr);
}

/* types within maxattr that the request does not take (reply attributes) */
static void gen_unsupported_attr(struct req *r, int i)
{
	/* dev-get takes its only attribute: nothing in range is unsupported */
	const struct op *op = &ops[OP_PROC + i % 3];
	int type, tries = 0;

	do
		type = 1 + rnd(op->maxattr);
	while (op_attr(op, type) && ++tries < 100);
	if (op_attr(op, type))
		die("no unsupported attribute for %s", op->name);
	r->m = req_op(op, 256);
	put_u64(r->m, type, 1);
	DESC(r, "%s reply-only attr %d", op->name, type);
}

/* NLA_F_NESTED: an attribute nested 1..32 levels deep */
static void gen_nested(struct req *r, int i)
{
	const struct op *op = &ops[i % N_OPS];
	int levels = i % 8 == 0 ? 32 : 1 + rnd(32);
	struct nlattr *nest[33];
	int type, k;

	switch (rnd(3)) {
	case 0: type = op->na ? op->a[rnd(op->na)].type : 1; break;	/* an integer attribute */
	case 1: type = 1 + rnd(op->maxattr); break;
	default: type = op->maxattr + 1 + rnd(100); break;
	}
	r->m = req_op(op, 4096);
	if (levels == 1 && rnd(2)) {
		/* four bytes of payload: the length fits a u32, the flag does not */
		nest[0] = nla_nest_start(r->m, type | NLA_F_NESTED);
		put(r->m, 1, 0, NULL);
		nla_nest_end(r->m, nest[0]);
		DESC(r, "%s attr %d|NLA_F_NESTED holding one empty attr", op->name, type);
		return;
	}
	for (k = 0; k < levels; k++) {
		nest[k] = nla_nest_start(r->m, (k ? 1 + (int)rnd(8) : type) | NLA_F_NESTED);
		if (!nest[k])
			die("nla_nest_start failed");
	}
	put_u32(r->m, 1, 0);
	for (k = levels - 1; k >= 0; k--)
		nla_nest_end(r->m, nest[k]);
	DESC(r, "%s attr %d nested %d levels", op->name, type, levels);
}

/* pids beyond PID_MAX_LIMIT */
static void gen_range(struct req *r, int i)
{
	const struct op *op = i % 2 ? &ops[OP_PROC] : &ops[OP_BUF];
	int type = i % 2 ? GPUMEM_A_PROC_PID : GPUMEM_A_BUF_OWNER;
	uint32_t v;

	switch (i / 2 % 4) {
	case 0: v = PID_MAX_LIMIT + 1; break;
	case 1: v = 0xffffffff; break;
	case 2: v = 0x80000000; break;
	default: v = PID_MAX_LIMIT + 1 + rnd(0xffffffff - PID_MAX_LIMIT - 1); break;
	}
	r->m = req_op(op, 256);
	put_u32(r->m, type, v);
	DESC(r, "%s pid attr %d = %u", op->name, type, v);
}

/* required attributes left out */
static void gen_missing(struct req *r, int i)
{
	switch (i % 3) {
	case 0:
		r->m = req_op(&ops[OP_DEV_DO], 256);
		r->miss = GPUMEM_A_DEV_ID;
		DESC(r, "dev-get do without GPUMEM_A_DEV_ID");
		break;
	case 1:
		r->m = req_op(&ops[OP_BUF], 256);
		r->miss = GPUMEM_A_BUF_OWNER;
		r->start = true;
		DESC(r, "buf-get dump without GPUMEM_A_BUF_OWNER");
		break;
	default:
		r->m = req_op(&ops[OP_BUF], 256);
		put_u32(r->m, GPUMEM_A_BUF_DEV_ID, n_dev_ids ? dev_ids[rnd(n_dev_ids)] : 0);
		r->miss = GPUMEM_A_BUF_OWNER;
		r->start = true;
		DESC(r, "buf-get dump with a device but without GPUMEM_A_BUF_OWNER");
		break;
	}
}

/* device ids no device has */
static void gen_nodev(struct req *r, int i)
{
	uint32_t id = bogus_dev_id(i);

	switch (i % 3) {
	case 0:
		r->m = req_op(&ops[OP_DEV_DO], 256);
		put_u32(r->m, GPUMEM_A_DEV_ID, id);
		DESC(r, "dev-get do id %u", id);
		break;
	case 1:
		r->m = req_op(&ops[OP_PROC], 256);
		if (rnd(2))
			put_u32(r->m, GPUMEM_A_PROC_PID, 1);
		put_u32(r->m, GPUMEM_A_PROC_DEV_ID, id);
		r->start = true;
		DESC(r, "proc-get dump dev-id %u", id);
		break;
	default:
		r->m = req_op(&ops[OP_BUF], 256);
		put_u32(r->m, GPUMEM_A_BUF_OWNER, 1);
		put_u32(r->m, GPUMEM_A_BUF_DEV_ID, id);
		r->start = true;
		DESC(r, "buf-get dump owner 1 dev-id %u", id);
		break;
	}
}

/* cgroup ids no cgroup has */
static void gen_nocgroup(struct req *r, int i)
{
	uint64_t id = bogus_cgroup_id(i);

	r->m = req_op(&ops[OP_PROC], 256);
	if (rnd(2))
		put_u32(r->m, GPUMEM_A_PROC_PID, 1);
	put_u64(r->m, GPUMEM_A_PROC_CGROUP_ID, id);
	r->start = true;
	DESC(r, "proc-get dump cgroup-id 0x%" PRIx64, id);
}

/* attributes of (almost) 64 KiB */
static void gen_oversize(struct req *r, int i)
{
	const struct op *op = &ops[i % N_OPS];
	int len = i % 2 ? 65531 : 60000 + (int)rnd(5531);	/* 65531 + 4 = max nla_len */
	static char *big;
	int type;

	if (!big) {
		big = malloc(65536);
		if (!big)
			die("out of memory");
	}
	memset(big, 'A' + i % 26, len - 1);
	big[len - 1] = '\0';
	switch (rnd(3)) {
	case 0: type = op->na ? op->a[rnd(op->na)].type : 1; break;
	case 1: type = op->maxattr + 1 + rnd(16); break;
	default: type = 1 + rnd(op->maxattr); break;
	}
	r->m = req_op(op, len + 1024);
	put(r->m, type, len, big);
	DESC(r, "%s attr %d: a %d-byte string", op->name, type, len);
}

/* random attribute streams the policy must reject */
static void gen_garbage(struct req *r, int i)
{
	const struct op *op = rnd_op();
	uint8_t buf[512];
	int len = 0, tries = 0;

	(void)i;
	do {
		len = 0;
		if (rnd(4) == 0) {
			/* plain random bytes */
			len = 1 + rnd(256);
			for (int k = 0; k < len; k++)
				buf[k] = (uint8_t)rnd64();
		} else {
			/* a sequence of TLVs with random types, lengths, contents */
			int n = 1 + rnd(8);

			for (int k = 0; k < n && len < 400; k++) {
				struct nlattr nla;
				int plen = rnd(4) == 0 ? rnd(40) : (rnd(2) ? 4 : 8);
				int tlen = NLA_ALIGN(NLA_HDRLEN + plen);

				nla.nla_type = rnd(3) == 0 ? (uint16_t)rnd64() : (uint16_t)rnd(op->maxattr + 3);
				nla.nla_len = rnd(8) == 0 ? (uint16_t)rnd(600) : NLA_HDRLEN + plen;
				memcpy(buf + len, &nla, sizeof(nla));
				for (int b = NLA_HDRLEN; b < tlen; b++)
					buf[len + b] = rnd(2) ? (uint8_t)rnd64() : 0;
				len += tlen;
			}
			if (rnd(4) == 0)
				len -= rnd(len);	/* cut it anywhere */
			if (rnd(8) == 0 && len < 500)
				len += 1 + rnd(3);	/* trailing bytes */
		}
	} while ((len == 0 || stream_may_pass(op, buf, len)) && ++tries < 1000);
	if (len == 0 || stream_may_pass(op, buf, len))
		die("could not draw an invalid attribute stream");
	r->m = req_op(op, 1024);
	put_raw(r->m, buf, len);
	DESC(r, "%s, %d random bytes of attributes (starting %02x%02x%02x%02x)", op->name, len,
	     buf[0], len > 1 ? buf[1] : 0, len > 2 ? buf[2] : 0, len > 3 ? buf[3] : 0);
}

struct msg_count {
	int error;
	char msg[256];
	int count;
};

struct category {
	const char *name;
	int weight;
	enum need need;
	void (*gen)(struct req *r, int i);
	const char *doc;
	/* results */
	int count;
	int sent, errors, with_msg, with_miss, no_msg, start_no_msg, ok, timeout, io, data, bad;
	struct msg_count msgs[MAX_MSGS];
	int n_msgs;
};

#define CAT(n, w, nd, g, d) { .name = n, .weight = w, .need = nd, .gen = g, .doc = d }
static struct category cats[] = {
	CAT("unknown-cmd", 3, NEED_NONE, gen_unknown_cmd, "command numbers the family has not (0, 5..255)"),
	CAT("op-mode", 1, NEED_NONE, gen_op_mode, "do of a dump-only command, dump of a do-only one"),
	CAT("truncated-hdr", 1, NEED_NONE, gen_truncated_hdr, "nlmsg_len shorter than the genl header"),
	CAT("reserved-hdr", 1, NEED_MSG, gen_reserved_hdr, "genlmsghdr.reserved != 0"),
	CAT("bad-nlflags", 1, NEED_MSG, gen_bad_nlflags, "reserved nlmsg_flags on a get"),
	CAT("wrong-len", 2, NEED_MSG, gen_wrong_len, "u8/u16/u64 where u32, u32 where u64, odd lengths"),
	CAT("empty-payload", 1, NEED_MSG, gen_empty, "integer attributes with no payload"),
	CAT("string-for-int", 1, NEED_MSG, gen_string, "strings where integers belong"),
	CAT("unknown-attr", 2, NEED_MSG, gen_unknown_attr, "attribute type 0 or beyond maxattr"),
	CAT("unsupported-attr", 1, NEED_MSG, gen_unsupported_attr, "reply-only attributes in a request"),
	CAT("nested", 1, NEED_MSG, gen_nested, "NLA_F_NESTED, up to 32 levels"),
	CAT("out-of-range", 1, NEED_MSG, gen_range, "pids beyond PID_MAX_LIMIT"),
	CAT("missing-attr", 1, NEED_MSG_OR_MISS, gen_missing, "required attributes left out"),
	CAT("no-device", 1, NEED_MSG, gen_nodev, "device ids no device has"),
	CAT("no-cgroup", 1, NEED_MSG, gen_nocgroup, "cgroup ids no cgroup has"),
	CAT("oversize", 1, NEED_MSG, gen_oversize, "64 KiB attributes"),
	CAT("garbage", 3, NEED_MSG, gen_garbage, "random attribute streams"),
};
#define N_CATS (int)(sizeof(cats) / sizeof(cats[0]))

static const char *errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case ERANGE: return "ERANGE";
	case EPERM: return "EPERM";
	case EMSGSIZE: return "EMSGSIZE";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	case ENOBUFS: return "ENOBUFS";
	default: {
		static char buf[16];

		snprintf(buf, sizeof(buf), "errno%d", e);
		return buf;
	}
	}
}

static void note_msg(struct category *c, const struct outcome *o)
{
	const char *m = o->msg[0] ? o->msg : (o->miss_type >= 0 ? "(missing-attribute TLV only)" : "-");
	int k;

	for (k = 0; k < c->n_msgs; k++)
		if (c->msgs[k].error == o->error && !strcmp(c->msgs[k].msg, m)) {
			c->msgs[k].count++;
			return;
		}
	if (c->n_msgs < MAX_MSGS) {
		c->msgs[c->n_msgs].error = o->error;
		snprintf(c->msgs[c->n_msgs].msg, sizeof(c->msgs[0].msg), "%s", m);
		c->msgs[c->n_msgs].count = 1;
		c->n_msgs++;
	}
}

static void bad(struct category *c, int i, const struct req *r, const char *fmt, ...)
{
	va_list ap;

	c->bad++;
	if (c->bad > MAX_BAD)
		return;
	printf("BAD %s %d ", c->name, i);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", r->desc);
	fflush(stdout);
}

static void run_one(struct category *c, int i)
{
	struct req r;
	struct outcome o;

	memset(&r, 0, sizeof(r));
	r.miss = -1;
	c->gen(&r, i);
	transact(r.m, r.len, &o, NULL, NULL);
	nlmsg_free(r.m);
	c->sent++;
	if (o.data) {
		c->data += o.data;
		bad(c, i, &r, "%d data message(s) before the end", o.data);
	}
	switch (o.kind) {
	case O_ERROR:
		break;
	case O_ACK:
		c->ok++;
		bad(c, i, &r, "accepted (ACK)");
		return;
	case O_DONE_OK:
		c->ok++;
		bad(c, i, &r, "accepted (dump completed)");
		return;
	case O_TIMEOUT:
		c->timeout++;
		bad(c, i, &r, "no answer within %d s", rx_timeout);
		return;
	case O_IO:
		c->io++;
		bad(c, i, &r, "%s", o.io);
		return;
	}
	c->errors++;
	note_msg(c, &o);
	if (o.msg[0])
		c->with_msg++;
	if (o.miss_type >= 0)
		c->with_miss++;
	if (c->need != NEED_NONE && !o.msg[0] && r.start && start_extack_lost) {
		c->start_no_msg++;	/* before 6.2: netlink_dump_control has no extack */
	} else if (c->need == NEED_MSG && !o.msg[0]) {
		c->no_msg++;
		bad(c, i, &r, "%s without an extack message", errno_name(o.error));
	} else if (c->need == NEED_MSG_OR_MISS && !o.msg[0] && o.miss_type != r.miss) {
		c->no_msg++;
		bad(c, i, &r, "%s without an extack message or missing-type %d (got %d)",
		    errno_name(o.error), r.miss, o.miss_type);
	} else if (c->need == NEED_NONE && !o.msg[0]) {
		c->no_msg++;	/* reported, not a failure */
	}
}

/* --- valid requests: devices, and the pointer scan -------------------------- */

struct scan {
	const char *what;
	long messages, attrs, windows, pointers;
	/* the last dev-get / proc-get reply, for the caller */
	uint32_t pids[4096];
	int n_pids;
	bool print;
	const char *tag;	/* what a printed proc-get row starts with */
};

static void scan_attrs(struct scan *s, const char *path, struct nlattr *head, int len)
{
	struct nlattr *nla;
	int rem;
	char sub[128];

	nla_for_each_attr(nla, head, len, rem) {
		int type = nla_type(nla);
		const uint8_t *p = nla_data(nla);
		int plen = nla_len(nla);

		s->attrs++;
		snprintf(sub, sizeof(sub), "%s/%d", path, type);
		if (nla->nla_type & NLA_F_NESTED) {
			scan_attrs(s, sub, nla_data(nla), plen);
			continue;
		}
		for (int off = 0; off + 8 <= plen; off += 4) {
			uint64_t v;

			memcpy(&v, p + off, 8);
			s->windows++;
			if (v >= 0xffff800000000000ULL) {
				s->pointers++;
				printf("PTR %s %s+%d 0x%016" PRIx64 "\n", s->what, sub, off, v);
			}
		}
	}
}

static void scan_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct scan *s = arg;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[GPUMEM_A_PROC_MAX + 1];
	struct nlattr *head = (struct nlattr *)((char *)g + GENL_HDRLEN);
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	if (nlh->nlmsg_type != family || len < 0)
		return;
	s->messages++;
	scan_attrs(s, s->what, head, len);
	if (g->cmd == GPUMEM_CMD_DEV_GET) {
		struct nlattr *dtb[GPUMEM_A_DEV_MAX + 1];

		if (nla_parse(dtb, GPUMEM_A_DEV_MAX, head, len, NULL) < 0 || !dtb[GPUMEM_A_DEV_ID])
			return;
		if (n_dev_ids < 64 && !dev_exists(nla_get_u32(dtb[GPUMEM_A_DEV_ID])))
			dev_ids[n_dev_ids++] = nla_get_u32(dtb[GPUMEM_A_DEV_ID]);
		if (s->print)
			printf("DEV %u %s %s\n", nla_get_u32(dtb[GPUMEM_A_DEV_ID]),
			       dtb[GPUMEM_A_DEV_NAME] ? nla_get_string(dtb[GPUMEM_A_DEV_NAME]) : "-",
			       dtb[GPUMEM_A_DEV_DRIVER] ? nla_get_string(dtb[GPUMEM_A_DEV_DRIVER]) : "-");
	} else if (g->cmd == GPUMEM_CMD_PROC_GET) {
		uint32_t pid;
		int k;

		if (nla_parse(tb, GPUMEM_A_PROC_MAX, head, len, NULL) < 0 || !tb[GPUMEM_A_PROC_PID])
			return;
		pid = nla_get_u32(tb[GPUMEM_A_PROC_PID]);
		if (s->print)
			printf("%s %u %u\n", s->tag, pid,
			       tb[GPUMEM_A_PROC_DEV_ID] ? nla_get_u32(tb[GPUMEM_A_PROC_DEV_ID]) : 0);
		for (k = 0; k < s->n_pids; k++)
			if (s->pids[k] == pid)
				return;
		if (s->n_pids < 4096)
			s->pids[s->n_pids++] = pid;
	}
}

/* One valid request; 0 if it succeeded. */
static int valid(struct scan *s, const char *what, struct nl_msg *m, bool expect_data)
{
	struct outcome o;

	s->what = what;
	transact(m, 0, &o, scan_msg, s);
	nlmsg_free(m);
	if ((o.kind == O_ACK || o.kind == O_DONE_OK) && (o.data || !expect_data))
		return 0;
	printf("ERROR %s: %s%s%s%s\n", what,
	       o.kind == O_ERROR ? errno_name(o.error) : o.kind == O_TIMEOUT ? "timeout" :
	       o.kind == O_IO ? o.io : "no data",
	       o.msg[0] ? " (" : "", o.msg, o.msg[0] ? ")" : "");
	return 1;
}

static int do_scan(bool print_devs, bool full)
{
	struct scan *s = calloc(1, sizeof(*s));
	struct nl_msg *m;
	int errors = 0, k, nd;
	char what[64];

	if (!s)
		die("out of memory");
	s->print = print_devs;
	n_dev_ids = 0;
	errors += valid(s, "dev-get-dump", req_op(&ops[OP_DEV_DUMP], 256), true);
	if (!full)
		goto out;
	s->print = false;
	nd = n_dev_ids;
	for (k = 0; k < nd; k++) {
		m = req_op(&ops[OP_DEV_DO], 256);
		put_u32(m, GPUMEM_A_DEV_ID, dev_ids[k]);
		snprintf(what, sizeof(what), "dev-get-do(%u)", dev_ids[k]);
		errors += valid(s, what, m, true);
	}
	/* the held view (a walk: every process with a handle) first */
	s->print = print_devs;
	s->tag = "PROC";
	m = req_op(&ops[OP_PROC], 256);
	put_u32(m, GPUMEM_A_PROC_VIEW, GPUMEM_PROC_VIEW_HELD);
	errors += valid(s, "proc-get-dump(held)", m, false);
	/* then the default, charged view (counters; rows printed as CPROC) */
	s->tag = "CPROC";
	errors += valid(s, "proc-get-dump(charged)", req_op(&ops[OP_PROC], 256), false);
	s->print = false;
	for (k = 0; k < s->n_pids && k < 256; k++) {
		m = req_op(&ops[OP_BUF], 256);
		put_u32(m, GPUMEM_A_BUF_OWNER, s->pids[k]);
		snprintf(what, sizeof(what), "buf-get-dump(%u)", s->pids[k]);
		errors += valid(s, what, m, false);
	}
	errors += valid(s, "stats-get-do", req_op(&ops[OP_STATS], 256), true);
out:
	printf("SCAN messages=%ld attributes=%ld windows=%ld pointers=%ld errors=%d\n",
	       s->messages, s->attrs, s->windows, s->pointers, errors);
	k = errors || s->pointers;
	free(s);
	return k;
}

/* --- flood ------------------------------------------------------------------ */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int do_flood(long count, const char *view)
{
	long k, ok = 0, busy = 0, other = 0;
	char busymsg[256] = "-";
	struct outcome o;
	double t0, t1;

	if (strcmp(view, "held") && strcmp(view, "charged") && strcmp(view, "buffers"))
		die("-V: held, charged or buffers, not '%s'", view);
	t0 = now_ms();
	for (k = 0; k < count; k++) {
		struct nl_msg *m;

		if (!strcmp(view, "buffers")) {
			m = req_op(&ops[OP_BUF], 256);
		} else {
			m = req_op(&ops[OP_PROC], 256);
			put_u32(m, GPUMEM_A_PROC_VIEW, strcmp(view, "held") ?
				GPUMEM_PROC_VIEW_CHARGED : GPUMEM_PROC_VIEW_HELD);
		}
		t1 = now_ms();
		transact(m, 0, &o, NULL, NULL);
		nlmsg_free(m);
		/* each dump: when it was sent and answered (CLOCK_MONOTONIC) */
		printf("CALL %.3f %.3f %s\n", t1, now_ms(),
		       o.kind == O_ACK || o.kind == O_DONE_OK ? "ok" :
		       o.kind == O_ERROR && o.error == EBUSY ? "busy" : "other");
		if (o.kind == O_ACK || o.kind == O_DONE_OK) {
			ok++;
		} else if (o.kind == O_ERROR && o.error == EBUSY) {
			if (!busy++ && o.msg[0])
				snprintf(busymsg, sizeof(busymsg), "%s", o.msg);
		} else {
			other++;
			printf("OTHER %s %s\n", o.kind == O_ERROR ? errno_name(o.error) :
			       o.kind == O_TIMEOUT ? "timeout" : "io", o.msg[0] ? o.msg : o.io);
		}
	}
	printf("FLOOD view=%s sent=%ld ok=%ld busy=%ld other=%ld ms=%.0f\n",
	       view, count, ok, busy, other, now_ms() - t0);
	printf("BUSYMSG %s\n", busymsg);
	return other ? 1 : 0;
}

/* --- the family's operations ------------------------------------------------ */

static void family_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *op;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	int rem;

	(void)arg;
	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    nla_parse(tb, CTRL_ATTR_MAX, (struct nlattr *)((char *)g + GENL_HDRLEN),
		      nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, NULL) < 0 || !tb[CTRL_ATTR_OPS])
		return;
	nla_for_each_nested(op, tb[CTRL_ATTR_OPS], rem) {
		struct nlattr *otb[CTRL_ATTR_OP_MAX + 1];

		if (nla_parse_nested(otb, CTRL_ATTR_OP_MAX, op, NULL) < 0 || !otb[CTRL_ATTR_OP_ID])
			continue;
		if (nla_get_u32(otb[CTRL_ATTR_OP_ID]) < 256)
			op_flags[nla_get_u32(otb[CTRL_ATTR_OP_ID])] = otb[CTRL_ATTR_OP_FLAGS] ?
				nla_get_u32(otb[CTRL_ATTR_OP_FLAGS]) : GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP;
	}
}

/*
 * Ask the controller which commands the family has, in which modes; the
 * commands this program models must be there as it expects.
 */
static void query_family_ops(void)
{
	struct nl_msg *m = req_new_type(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, false, 256);
	struct outcome o;
	int cmd, k;

	if (nla_put_string(m, CTRL_ATTR_FAMILY_NAME, GPUMEM_FAMILY_NAME) < 0)
		die("nla_put_string failed");
	transact(m, 0, &o, family_msg, NULL);
	nlmsg_free(m);
	if (o.kind != O_ACK)
		die("CTRL_CMD_GETFAMILY %s failed", GPUMEM_FAMILY_NAME);
	printf("OPS");
	for (cmd = 0; cmd < 256; cmd++) {
		uint32_t f = op_flags[cmd];

		if (!f) {
			unknown_cmds[n_unknown_cmds++] = cmd;
			continue;
		}
		printf(" %d:%s%s%s", cmd, f & GENL_CMD_CAP_DO ? "do" : "",
		       (f & GENL_CMD_CAP_DO) && (f & GENL_CMD_CAP_DUMP) ? "," : "",
		       f & GENL_CMD_CAP_DUMP ? "dump" : "");
		if (!(f & GENL_CMD_CAP_DO))
			missing_modes[n_missing_modes++] = (typeof(missing_modes[0])){ cmd, false };
		if (!(f & GENL_CMD_CAP_DUMP))
			missing_modes[n_missing_modes++] = (typeof(missing_modes[0])){ cmd, true };
	}
	printf("\n");
	for (k = 0; k < N_OPS; k++)
		if (!(op_flags[ops[k].cmd] & (ops[k].dump ? GENL_CMD_CAP_DUMP : GENL_CMD_CAP_DO)))
			die("the family has no %s (cmd %d): nl-fuzz does not match this module",
			    ops[k].name, ops[k].cmd);
	if (!n_unknown_cmds || !n_missing_modes)
		die("no unknown command or missing mode to send");
}

/* --- main ------------------------------------------------------------------- */

static bool cat_selected(const char *list, const char *name)
{
	char *copy, *tok, *save;
	bool hit = false;

	if (!list)
		return true;
	copy = strdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!fnmatch(tok, name, 0))
			hit = true;
	free(copy);
	return hit;
}

static void open_family(void)
{
	int one = 1;
	struct timeval tv = { .tv_sec = rx_timeout };

	sk = nl_socket_alloc();
	if (!sk)
		die("nl_socket_alloc failed");
	if (genl_connect(sk) < 0)
		die("genl_connect failed");
	family = genl_ctrl_resolve(sk, GPUMEM_FAMILY_NAME);
	if (family < 0)
		die("family %s: %s", GPUMEM_FAMILY_NAME, nl_geterror(family));
	fd = nl_socket_get_fd(sk);
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
		die("NETLINK_EXT_ACK: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		die("SO_RCVTIMEO: %s", strerror(errno));
	if (nl_socket_set_buffer_size(sk, 4 << 20, 1 << 20) < 0)
		die("nl_socket_set_buffer_size failed");
	rxbuf = malloc(RXBUF);
	if (!rxbuf)
		die("out of memory");
}

static void usage(FILE *f)
{
	int k;

	fputs("usage: nl-fuzz fuzz [-n COUNT] [-s SEED] [-C CATEGORY,...] [-t SECONDS] [-k]\n"
	      "       nl-fuzz scan [-t SECONDS]\n"
	      "       nl-fuzz devices [-t SECONDS]\n"
	      "       nl-fuzz flood [-n COUNT] [-V held|charged|buffers] [-t SECONDS]\n"
	      "       nl-fuzz list\ncategories:\n", f);
	for (k = 0; k < N_CATS; k++)
		fprintf(f, "  %-18s %-8s %s\n", cats[k].name, need_names[cats[k].need], cats[k].doc);
}

int main(int argc, char **argv)
{
	const char *mode, *only = NULL, *view = "held";
	long count = -1;	/* -n; default: 3000 (fuzz), 60 (flood) */
	uint64_t seed = 0;
	bool seed_set = false;
	int opt, k, weights = 0, fails = 0;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "n:s:C:t:V:kh")) != -1) {
		switch (opt) {
		case 'V': view = optarg; break;
		case 'n': count = strtol(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); seed_set = true; break;
		case 'C': only = optarg; break;
		case 't': rx_timeout = atoi(optarg); break;
		case 'k': start_extack_lost = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!strcmp(mode, "list")) {
		usage(stdout);
		return 0;
	}
	if (rx_timeout < 1)
		rx_timeout = 1;
	open_family();
	if (!strcmp(mode, "scan"))
		return do_scan(true, true);
	if (!strcmp(mode, "devices"))
		return do_scan(true, false);
	if (!strcmp(mode, "flood"))
		return do_flood(count < 0 ? 60 : count, view);
	if (strcmp(mode, "fuzz")) {
		usage(stderr);
		return 2;
	}

	if (!seed_set)
		seed = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid() << 20;
	if (!seed)
		seed = 1;
	rng_state = seed;
	printf("SEED %" PRIu64 "\n", seed);
	query_family_ops();
	if (do_scan(false, false))
		die("the valid dev-get dump failed before fuzzing");
	find_cgroup_file_ids();

	for (k = 0; k < N_CATS; k++)
		if (cat_selected(only, cats[k].name))
			weights += cats[k].weight;
	if (!weights)
		die("no category matches '%s'", only);
	for (k = 0; k < N_CATS; k++) {
		struct category *c = &cats[k];
		int i, j;

		if (!cat_selected(only, c->name))
			continue;
		c->count = (int)((count < 0 ? 3000 : count) * c->weight / weights);
		if (c->count < 1)
			c->count = 1;
		for (i = 0; i < c->count; i++)
			run_one(c, i);
		bool pass = c->errors == c->sent && (c->need == NEED_NONE || c->no_msg == 0);

		fails += !pass;
		printf("CAT %s need=%s sent=%d errors=%d msg=%d miss=%d nomsg=%d ok=%d timeout=%d io=%d data=%d startnomsg=%d verdict=%s\n",
		       c->name, need_names[c->need], c->sent, c->errors, c->with_msg, c->with_miss,
		       c->no_msg, c->ok, c->timeout, c->io, c->data, c->start_no_msg,
		       pass ? "pass" : "fail");
		for (j = 0; j < c->n_msgs; j++)
			printf("MSG %s %d %s %s\n", c->name, c->msgs[j].count,
			       errno_name(c->msgs[j].error), c->msgs[j].msg);
		fflush(stdout);
	}
	printf("RESULT %s\n", fails ? "fail" : "pass");
	nl_socket_free(sk);
	return fails ? 1 : 0;
}
