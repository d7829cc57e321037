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

/* --- the do/dump loop against the kernel's nlctrl family --------------- */

static int count_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0)
		return -EPROTO;
	if (tb[CTRL_ATTR_FAMILY_NAME] && strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), "nlctrl") == 0)
		((int *)arg)[1]++;
	((int *)arg)[0]++;
	return 0;
}

static int fail_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
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

