// SPDX-License-Identifier: GPL-2.0
/*
 * test_nl.c - the transport (nl.c): nlctrl notifications, extended acks, and the
 * do/dump loop against the kernel's own "nlctrl" family.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

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

void test_family_gone(void)
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

void test_ext_ack(void)
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

/* --- the receive loop (gm_nl_reply_feed), fed datagrams by hand ---------- */

#define SEQ 7

/* one datagram: messages one after the other, each padded to NLMSG_ALIGN */
struct dgram {
	union { struct nlmsghdr h; char b[4096]; } u;
	int len;
};

static void dg_put(struct dgram *d, const void *msg, size_t len)
{
	memcpy(d->u.b + d->len, msg, len);
	memset(d->u.b + d->len + len, 0, NLMSG_ALIGN(len) - len);
	d->len += (int)NLMSG_ALIGN(len);
}

/* a reply row: a genl message of nlctrl's with CTRL_ATTR_FAMILY_NAME name */
static void dg_row(struct dgram *d, uint32_t seq, uint16_t flags, const char *name)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 4242, seq, GENL_ID_CTRL, 0, NLM_F_MULTI | flags, CTRL_CMD_NEWFAMILY, 2);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, name);
	dg_put(d, nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len);
	nlmsg_free(m);
}

/* NLMSG_DONE/ERROR (build_ack()), numbered seq */
static void dg_ack(struct dgram *d, uint32_t seq, int type, int flags, int error,
		   const char *msg, int miss_type)
{
	char buf[512];
	size_t len = build_ack(buf, sizeof(buf), type, flags, error, 0, msg, miss_type);

	((struct nlmsghdr *)buf)->nlmsg_seq = seq;
	dg_put(d, buf, len);
}

/* a header only: NLMSG_NOOP, NLMSG_OVERRUN */
static void dg_bare(struct dgram *d, uint32_t seq, uint16_t type)
{
	struct nlmsghdr h = { .nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = type, .nlmsg_seq = seq };

	dg_put(d, &h, sizeof(h));
}

/* what the callback saw: the rows' names, space-separated */
struct seen { int calls, fail_at; char names[256]; };

static int seen_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct seen *s = arg;

	if (++s->calls == s->fail_at)
		return -ENOMEM;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME])
		return -EPROTO;
	snprintf(s->names + strlen(s->names), sizeof(s->names) - strlen(s->names), "%s%s",
		 s->names[0] ? " " : "", nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]));
	return 0;
}

void test_reply_loop(void)
{
	struct gm_nl nl = { 0 };
	struct gm_nl_reply r;
	struct seen s;
	struct dgram d;
	int ret;

#define START(fail) (memset(&s, 0, sizeof(s)), s.fail_at = (fail), \
		     gm_nl_reply_init(&r, &nl, SEQ, seen_cb, &s))
#define DG() (memset(&d, 0, sizeof(d)))

	/* several rows and NLMSG_DONE in one datagram */
	nl.error = EIO;
	nl.interrupted = true;
	START(0);
	result(nl.error == 0 && !nl.interrupted && nl.miss_type == -1,
	       "reply: init clears the last failure");
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ, 0, "b");
	dg_row(&d, SEQ, 0, "c");
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI, 0, NULL, -1);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && gm_nl_reply_end(&r) == 0 && !nl.interrupted,
	       "reply: rows and NLMSG_DONE in one datagram: done, 0");
	eq_str("reply: every row of the datagram, in order", s.names, "a b c");

	/* a dump over three datagrams, NLMSG_DONE alone in the last */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ, 0, "b");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && !r.done, "reply: a datagram of rows without NLMSG_DONE: read on");
	DG();
	dg_row(&d, SEQ, 0, "c");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	DG();
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI, 0, NULL, -1);
	ret = ret ? ret : gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && gm_nl_reply_end(&r) == 0,
	       "reply: a dump split over three datagrams: done at NLMSG_DONE");
	eq_str("reply: the rows of every datagram", s.names, "a b c");

	/* a dump that fails half-way: NLMSG_DONE with the error and extack */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS, -ENOMEM,
	       "snapshot: out of memory", GPUMEM_A_PROC_PID);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && gm_nl_reply_end(&r) == -ENOMEM && nl.error == ENOMEM,
	       "reply: NLMSG_DONE with an error: the dump fails with it");
	eq_str("reply: NLMSG_DONE's extack message", nl.msg, "snapshot: out of memory");
	eq_u64("reply: NLMSG_DONE's missing attribute", (uint64_t)nl.miss_type, GPUMEM_A_PROC_PID);
	eq_str("reply: the rows before the failure were seen", s.names, "a");

	/* NLM_F_DUMP_INTR on a later row */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ, NLM_F_DUMP_INTR, "b");
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI | NLM_F_DUMP_INTR, 0, NULL, -1);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && gm_nl_reply_end(&r) == 0 && nl.interrupted && s.calls == 2,
	       "reply: NLM_F_DUMP_INTR: read to the end, nl->interrupted set");

	/* a callback error: the rest is read, then the request fails */
	START(1);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ, 0, "b");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	DG();
	dg_row(&d, SEQ, 0, "c");
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI, 0, NULL, -1);
	ret = ret ? ret : gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && s.calls == 1, "reply: after a callback error, no more calls, "
	       "read to NLMSG_DONE (%d calls)", s.calls);
	result(gm_nl_reply_end(&r) == -ENOMEM && nl.error == ENOMEM,
	       "reply: a callback error is the request's");

	/* a "do": the reply, then the ACK in a datagram of its own */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "one");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && !r.done, "reply: a do's reply: wait for the ACK");
	DG();
	dg_ack(&d, SEQ, NLMSG_ERROR, NLM_F_CAPPED, 0, NULL, -1);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && gm_nl_reply_end(&r) == 0 && s.calls == 1,
	       "reply: NLMSG_ERROR 0 is the ACK: done, 0");

	/* a "do" refused: NLMSG_ERROR with extack; what follows it is not read */
	START(0);
	DG();
	dg_ack(&d, SEQ, NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, -EINVAL,
	       "owner (pid) is required", GPUMEM_A_BUF_OWNER);
	dg_row(&d, SEQ, 0, "after");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && r.done && gm_nl_reply_end(&r) == -EINVAL && nl.error == EINVAL &&
	       nl.miss_type == GPUMEM_A_BUF_OWNER && s.calls == 0,
	       "reply: NLMSG_ERROR: the kernel's error, its missing attribute; the rest ignored");
	eq_str("reply: NLMSG_ERROR's extack message", nl.msg, "owner (pid) is required");

	/* NLMSG_NOOP is skipped */
	START(0);
	DG();
	dg_bare(&d, SEQ, NLMSG_NOOP);
	dg_row(&d, SEQ, 0, "a");
	dg_ack(&d, SEQ, NLMSG_DONE, NLM_F_MULTI, 0, NULL, -1);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == 0 && gm_nl_reply_end(&r) == 0 && s.calls == 1, "reply: NLMSG_NOOP skipped");

	/* NLMSG_OVERRUN fails */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_bare(&d, SEQ, NLMSG_OVERRUN);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret < 0 && nl.error == -ret && nl.lib_err, "reply: NLMSG_OVERRUN fails (%s)",
	       nl.lib_err ? nl.lib_err : "?");

	/* another sequence number: libnl's check */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ - 1, 0, "stale");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == -EPROTO && nl.error == EPROTO && nl.lib_err && s.calls == 1,
	       "reply: a message of another request: EPROTO (%s)", nl.lib_err ? nl.lib_err : "?");

	/* a datagram cut in the middle of a message */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	dg_row(&d, SEQ, 0, "cut");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len - 8);
	result(ret == -EMSGSIZE && nl.error == EMSGSIZE && nl.lib_err && s.calls == 1,
	       "reply: a message cut short: fails (%s), the whole ones before it taken",
	       nl.lib_err ? nl.lib_err : "?");
	/* bytes after the last message that are no message */
	START(0);
	DG();
	dg_row(&d, SEQ, 0, "a");
	ret = gm_nl_reply_feed(&r, d.u.b, d.len + 8);
	result(ret == -EMSGSIZE && s.calls == 1, "reply: bytes that are no whole message: fails");
	/* an NLMSG_ERROR too short for its struct nlmsgerr */
	START(0);
	DG();
	dg_ack(&d, SEQ, NLMSG_ERROR, NLM_F_CAPPED, -EINVAL, NULL, -1);
	d.u.h.nlmsg_len = NLMSG_HDRLEN + 4;
	d.len = (int)NLMSG_ALIGN(d.u.h.nlmsg_len);
	ret = gm_nl_reply_feed(&r, d.u.b, d.len);
	result(ret == -EMSGSIZE && !r.done, "reply: a truncated NLMSG_ERROR fails");
#undef START
#undef DG
}

/* --- the do/dump loop against the kernel's nlctrl family --------------- */

static int count_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0)
		return -EPROTO;
	if (tb[CTRL_ATTR_FAMILY_NAME] && strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), "nlctrl") == 0)
		((int *)arg)[1]++;
	((int *)arg)[0]++;
	return 0;
}

static int fail_cb(const struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(*(int *)arg)++;
	return -ENOMEM;
}

void test_live_netlink(void)
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

