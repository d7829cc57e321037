// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - libgpumem's generic netlink transport (libnl-3, libnl-genl-3).
 *
 * libnl 3.7 (bookworm) has no extended-ack support of its own: we turn on
 * NETLINK_EXT_ACK on the socket and read the NLMSGERR_ATTR_* TLVs from
 * NLMSG_ERROR and NLMSG_DONE (a dump that failed half-way reports its error
 * and message there) ourselves, with nla_parse().
 *
 * Replies are read a datagram at a time with nl_recv() and walked in place
 * with nlmsg_ok()/nlmsg_next() (gm_nl_reply_feed), doing what libnl's
 * nl_recvmsgs() did with its default callbacks, without the struct nl_msg it
 * allocates, zeroes, fills and frees for every message (on the host about
 * 900 instructions a row of a dump; this walk costs about 70).
 */
#include "nl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "../../uapi/gpumem.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* Seconds without any message from the kernel before a request gives up. */
#define GM_NL_TIMEOUT 30

int gm_nl_parse_ack(const struct nlmsghdr *nlh, size_t len, int *error,
		    char *msg, size_t msglen, int *miss_type)
{
	static struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t payload, off;

	*error = 0;
	if (msglen)
		msg[0] = '\0';
	*miss_type = -1;
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return -EINVAL;
	len = nlh->nlmsg_len;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;

		if (len < NLMSG_HDRLEN + sizeof(e))
			return -EINVAL;
		memcpy(&e, NLMSG_DATA(nlh), sizeof(e));
		*error = e.error < 0 ? -e.error : e.error;
		payload = sizeof(e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e.msg.nlmsg_len < NLMSG_HDRLEN)
				return -EINVAL;
			payload += e.msg.nlmsg_len - NLMSG_HDRLEN;
		}
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		int v;

		if (len < NLMSG_HDRLEN + sizeof(v))
			return 0;	/* an empty DONE: no error */
		memcpy(&v, NLMSG_DATA(nlh), sizeof(v));
		*error = v < 0 ? -v : 0;
		payload = sizeof(v);
	} else {
		return -EINVAL;
	}

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	off = NLMSG_HDRLEN + NLMSG_ALIGN(payload);
	if (off >= len)
		return 0;
	/* Malformed TLVs are ignored: the error code is what counts. */
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      (int)(len - off), policy) < 0)
		return 0;
	if (tb[NLMSGERR_ATTR_MSG] && msglen)
		snprintf(msg, msglen, "%s", nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		*miss_type = (int)nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	return 0;
}

bool gm_nl_family_gone(const struct nlmsghdr *nlh, size_t len, const char *family)
{
	static struct nla_policy policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct genlmsghdr *g;

	if (len < NLMSG_HDRLEN + GENL_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    nlh->nlmsg_len > len || nlh->nlmsg_type != GENL_ID_CTRL)
		return false;
	g = nlmsg_data(nlh);
	if (g->cmd != CTRL_CMD_DELFAMILY)
		return false;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, policy) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_NAME])
		return false;
	return strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), family) == 0;
}

/*
 * The transport. The host-side tests build this file with GM_NL_FAKE: a
 * simulated kernel (tests/fake_kernel.c) is then the other end of the
 * socket (gm_fake_send/_recv/_recv_event, nl.h) and opens, closes and
 * subscribes; gm_nl_run and gm_nl_read_events are this code either way.
 */
#ifndef GM_NL_FAKE
static int io_send(struct gm_nl *nl, struct nl_msg *req)
{
	return nl_send_auto(nl->sk, req);
}

static int io_recv(struct gm_nl *nl, struct sockaddr_nl *from, unsigned char **buf)
{
	return nl_recv(nl->sk, from, buf, NULL);
}

/* whom the requests go to: the kernel (0) */
static uint32_t io_peer(const struct gm_nl *nl)
{
	return nl_socket_get_peer_port(nl->sk);
}

static ssize_t io_recv_event(struct gm_nl *nl, void *buf, size_t size, struct sockaddr_nl *from,
			     int *msg_flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = {
		.msg_name = from, .msg_namelen = sizeof(*from), .msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n = recvmsg(gm_nl_event_fd(nl), &mh, MSG_DONTWAIT);

	*msg_flags = mh.msg_flags;
	return n;
}
#else
#define io_send gm_fake_send
#define io_recv gm_fake_recv
#define io_peer(nl) 0u
#define io_recv_event gm_fake_recv_event
#endif

/* A libnl error code as an errno. */
static int nlerr_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM: return ENOMEM;
	case NLE_PERM: return EPERM;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_AGAIN: return EAGAIN;
	case NLE_INVAL: return EINVAL;
	case NLE_NOACCESS: return EACCES;
	case NLE_MSGSIZE: return EMSGSIZE;
	case NLE_MSG_TRUNC: return EMSGSIZE;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_SEQ_MISMATCH: return EPROTO;
	case NLE_BUSY: return EBUSY;
	default: return EIO;
	}
}

static void clear_error(struct gm_nl *nl)
{
	nl->error = 0;
	nl->no_family = false;
	nl->msg[0] = '\0';
	nl->miss_type = -1;
	nl->lib_err = NULL;
}

/* Record a libnl failure; returns -errno. */
static int lib_fail(struct gm_nl *nl, int nlerr)
{
	nl->error = nlerr_errno(nlerr);
	nl->lib_err = nl_geterror(nlerr);
	return -nl->error;
}

struct nl_msg *gm_nl_request(struct gm_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 dump ? NLM_F_DUMP : 0, cmd, GPUMEM_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	nl->cmd = cmd;
	return msg;
}

/* --- one request's reply ------------------------------------------------ */

void gm_nl_reply_init(struct gm_nl_reply *r, struct gm_nl *nl, uint32_t seq,
		      gm_nl_reply_fn fn, void *arg)
{
	*r = (struct gm_nl_reply){ .nl = nl, .fn = fn, .arg = arg, .seq = seq };
	clear_error(nl);
	nl->interrupted = false;
}

/* NLMSG_DONE, or NLMSG_ERROR with an error: the end, with the error if any. */
static void take_ack(struct gm_nl_reply *r, const struct nlmsghdr *nlh)
{
	struct gm_nl *nl = r->nl;
	int error;

	if (gm_nl_parse_ack(nlh, nlh->nlmsg_len, &error, nl->msg, sizeof(nl->msg),
			    &nl->miss_type) < 0)
		error = EPROTO;
	nl->error = error;
	r->done = true;
}

/*
 * What libnl's recvmsgs() did with its default callbacks and ours (on_valid,
 * on_finish, on_ack, on_error before), without a struct nl_msg per message.
 */
int gm_nl_reply_feed(struct gm_nl_reply *r, const void *buf, int len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct gm_nl *nl = r->nl;

	for (; !r->done && nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_seq != r->seq)
			return lib_fail(nl, -NLE_SEQ_MISMATCH);
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			nl->interrupted = true;	/* read on to NLMSG_DONE; the caller asks again */
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_OVERRUN:
			return lib_fail(nl, -NLE_MSG_OVERFLOW);
		case NLMSG_DONE:	/* the end of a dump, with its error if it failed half-way */
			take_ack(r, nlh);
			break;
		case NLMSG_ERROR:
			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return lib_fail(nl, -NLE_MSG_TRUNC);
			if (((const struct nlmsgerr *)nlmsg_data(nlh))->error)
				take_ack(r, nlh);
			else
				r->done = true;	/* the ACK of a "do" */
			break;
		default:
			if (!r->cb_err && r->fn) {
				int ret = r->fn(nlh, r->arg);

				if (ret < 0)
					r->cb_err = ret;	/* read the rest, then fail */
			}
		}
	}
	/* not done, and bytes left that are no whole message: a cut datagram */
	if (!r->done && len > 0)
		return lib_fail(nl, -NLE_MSG_TRUNC);
	return 0;
}

int gm_nl_reply_end(struct gm_nl_reply *r)
{
	struct gm_nl *nl = r->nl;

	if (nl->error)
		return -nl->error;
	if (r->cb_err) {
		nl->error = -r->cb_err;
		return r->cb_err;
	}
	return 0;
}

int gm_nl_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg)
{
	struct gm_nl_reply r;
	int ret;

	gm_nl_reply_init(&r, nl, 0, fn, arg);
	ret = io_send(nl, req);
	r.seq = nlmsg_hdr(req)->nlmsg_seq;	/* NL_AUTO_SEQ: numbered by the send */
	nlmsg_free(req);
	if (ret < 0)
		return lib_fail(nl, ret);
	while (!r.done) {
		struct sockaddr_nl from = { 0 };
		unsigned char *buf = NULL;
		int n = io_recv(nl, &from, &buf);

		if (n == 0 || n == -NLE_AGAIN) {
			/* SO_RCVTIMEO: nothing for GM_NL_TIMEOUT seconds */
			nl->error = ETIMEDOUT;
			return -ETIMEDOUT;
		}
		if (n < 0)
			return lib_fail(nl, n);
		/* only the kernel answers (a user space sender knowing our port does not) */
		ret = from.nl_pid == io_peer(nl) ? gm_nl_reply_feed(&r, buf, n) : 0;
		free(buf);
		if (ret < 0)
			return ret;
	}
	return gm_nl_reply_end(&r);
}

#ifndef GM_NL_FAKE
int gm_nl_open(struct gm_nl *nl)
{
	return gm_nl_open_family(nl, GPUMEM_FAMILY_NAME);
}

int gm_nl_open_family(struct gm_nl *nl, const char *family)
{
	struct timeval tv = { .tv_sec = GM_NL_TIMEOUT };
	int one = 1, ret, fd;

	memset(nl, 0, sizeof(*nl));
	clear_error(nl);
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		nl->error = ENOMEM;
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		ret = lib_fail(nl, ret);
		gm_nl_close(nl);
		return ret;
	}
	fd = nl_socket_get_fd(nl->sk);
	/* Kernel error messages; errors without the echoed request. Both are
	 * best effort: an old kernel just sends less. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/*
	 * A datagram per read, into one buffer big enough for any: the kernel
	 * builds a dump's datagrams at most 32 KiB long (netlink_dump()), and
	 * a reply that did not fit would be cut and fail (EMSGSIZE), never be
	 * read in part. No peek at the size first: that is a second copy and
	 * a second system call per datagram.
	 */
	nl_socket_disable_msg_peek(nl->sk);
	nl_socket_set_msg_buf_size(nl->sk, GM_NL_RECV_BUF);

	ret = genl_ctrl_resolve(nl->sk, family);
	if (ret < 0) {
		int err = lib_fail(nl, ret);

		if (ret == -NLE_OBJ_NOTFOUND)
			nl->no_family = true;
		gm_nl_close(nl);
		return err;
	}
	nl->family = ret;
	return 0;
}

void gm_nl_close(struct gm_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/* --- multicast events --------------------------------------------------- */

int gm_nl_subscribe(struct gm_nl *nl, const char *family, const char *group)
{
	struct gm_nl ctl = { 0 };
	int ret, notify, fam, grp, rcvbuf = 1 << 20;

	memset(nl, 0, sizeof(*nl));
	clear_error(nl);
	snprintf(nl->family_name, sizeof(nl->family_name), "%s", family);
	/* a second socket for the requests: the event socket only receives */
	ret = gm_nl_open_family(&ctl, "nlctrl");
	if (ret < 0) {
		nl->error = ctl.error;
		nl->lib_err = ctl.lib_err;
		return ret;
	}
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		gm_nl_close(&ctl);
		nl->error = ENOMEM;
		return -ENOMEM;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0)
		goto fail;
	nl_socket_disable_seq_check(nl->sk);
	/* bursts of events: room for a few thousand (beyond rmem_max with
	 * CAP_NET_ADMIN; best effort) */
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(nl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	ret = notify = genl_ctrl_resolve_grp(ctl.sk, "nlctrl", "notify");
	if (ret < 0)
		goto fail;
	ret = nl_socket_add_membership(nl->sk, notify);
	if (ret < 0)
		goto fail;
	ret = fam = genl_ctrl_resolve(ctl.sk, family);
	if (ret < 0) {
		if (ret == -NLE_OBJ_NOTFOUND)
			nl->no_family = true;
		goto fail;
	}
	ret = grp = genl_ctrl_resolve_grp(ctl.sk, family, group);
	if (ret < 0)
		goto fail;
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret < 0)
		goto fail;
	nl->family = fam;
	gm_nl_close(&ctl);
	return 0;
fail:
	ret = lib_fail(nl, ret);
	gm_nl_close(&ctl);
	gm_nl_close(nl);
	return ret;
}

struct present { const char *name; int found; };

static int present_cb(const struct nlmsghdr *nlh, void *arg)
{
	static struct nla_policy policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct present *p = arg;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, CTRL_ATTR_MAX, policy) == 0 &&
	    tb[CTRL_ATTR_FAMILY_NAME] && strcmp(nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]), p->name) == 0)
		p->found = 1;
	return 0;
}

int gm_nl_family_present(const char *family)
{
	struct present p = { .name = family };
	struct gm_nl ctl = { 0 };
	struct nl_msg *req;
	int ret;

	ret = gm_nl_open_family(&ctl, "nlctrl");
	if (ret < 0)
		return ret;
	req = gm_nl_request(&ctl, CTRL_CMD_GETFAMILY, true);
	ret = req ? gm_nl_run(&ctl, req, present_cb, &p) : -ENOMEM;
	gm_nl_close(&ctl);
	return ret < 0 ? ret : p.found;
}

int gm_nl_event_fd(const struct gm_nl *nl)
{
	return nl->sk ? nl_socket_get_fd(nl->sk) : -1;
}
#endif /* GM_NL_FAKE */

int gm_nl_read_events(struct gm_nl *nl, gm_nl_reply_fn fn, void *arg)
{
	static union { struct nlmsghdr h; char b[65536]; } buf;
	bool gone = false;

	for (;;) {
		struct sockaddr_nl from = { 0 };
		struct nlmsghdr *nlh;
		int len, flags = 0;
		ssize_t n;

		n = io_recv_event(nl, buf.b, sizeof(buf.b), &from, &flags);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || gone)
				break;
			nl->error = errno;
			nl->lib_err = NULL;
			return -nl->error;	/* ENOBUFS included: the caller goes on */
		}
		if (n == 0 || from.nl_pid != 0 || (flags & MSG_TRUNC))
			continue;	/* not from the kernel, or cut: dropped */
		len = (int)n;
		for (nlh = &buf.h; nlmsg_ok(nlh, len); nlh = nlmsg_next(nlh, &len)) {
			int ret;

			if (nlh->nlmsg_type == GENL_ID_CTRL) {
				if (gm_nl_family_gone(nlh, nlh->nlmsg_len, nl->family_name))
					gone = true;
				continue;
			}
			if (gone || nlh->nlmsg_type != nl->family || !fn)
				continue;
			ret = fn(nlh, arg);
			if (ret < 0)
				return ret;
		}
	}
	if (gone) {
		nl->error = ENODEV;
		return -ENODEV;
	}
	return 0;
}
