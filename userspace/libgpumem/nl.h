/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.h - libgpumem's generic netlink transport: connect, resolve the "gpumem"
 * family, send one request ("do" or dump) and hand every reply message to a
 * callback; kernel errors are kept with their extended-ack message. The
 * transport only records what failed: what to tell the user, and the exit
 * code, are the caller's (gpumemctl: gm_report() in report.c; others:
 * gm_nl_strerror() in libgpumem.h).
 */
#ifndef GPUMEMCTL_NL_H
#define GPUMEMCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>
#include <netlink/msg.h>

struct nl_sock;

#define GM_NL_MSG_LEN 256
/* the receive buffer: the largest datagram the kernel sends a dump in */
#define GM_NL_RECV_BUF 32768

struct gm_nl {
	struct nl_sock *sk;
	int family;		/* generic netlink family id of "gpumem" */
	/* the last failure */
	int error;		/* positive errno; 0 if none */
	bool no_family;		/* the family is not registered: module not loaded */
	char msg[GM_NL_MSG_LEN];	/* kernel's extack message ("" if none) */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if not sent */
	bool interrupted;	/* a dump was marked NLM_F_DUMP_INTR */
	const char *lib_err;	/* libnl's description of a local failure */
	uint8_t cmd;		/* command of the last request */
	/* gm_nl_subscribe(): the family whose unregistration ends the events */
	char family_name[32];
};

/*
 * A reply callback: called once per reply message, nlh pointing into the
 * receive buffer (valid during the call only; nlh->nlmsg_len bytes, checked
 * to be within the datagram); returns 0 (or any value >= 0) to go on or a
 * negative errno (the rest of a dump is then read and dropped, and the
 * request fails with that error).
 */
typedef int (*gm_nl_reply_fn)(const struct nlmsghdr *nlh, void *arg);

/*
 * Open a socket and resolve the family. 0, or -errno with nl->error etc.
 * set.
 */
int gm_nl_open(struct gm_nl *nl);
/* the same for another generic netlink family (tests use "nlctrl") */
int gm_nl_open_family(struct gm_nl *nl, const char *family);
void gm_nl_close(struct gm_nl *nl);

/* A new request message for CMD (NLM_F_DUMP if dump); NULL if out of memory. */
struct nl_msg *gm_nl_request(struct gm_nl *nl, uint8_t cmd, bool dump);

/*
 * gm_nl_run: send req (freed here), read until the reply is complete (the
 * ACK of a "do", NLMSG_DONE of a dump, or an error) and call fn for every
 * reply message. 0, or -errno with nl->error, nl->msg etc. set.
 *
 * Each datagram is read whole with nl_recv() and its messages are walked in
 * place (no struct nl_msg per message). Datagrams from another sender than
 * the socket's peer (the kernel) are dropped; a message whose sequence
 * number is not the request's fails the request (EPROTO, like libnl's own
 * check), and so do a datagram that ends in a cut message and a truncated
 * NLMSG_ERROR (EMSGSIZE, "Message truncated") and NLMSG_OVERRUN. NLMSG_NOOP
 * is skipped; NLM_F_DUMP_INTR on any message sets nl->interrupted. A receive
 * timeout (30 s without a datagram) is ETIMEDOUT. libnl's own expected
 * sequence number is not advanced: once requests went through gm_nl_run,
 * do not call libnl's receive functions (nl_recvmsgs, genl_ctrl_*) on the
 * same socket.
 */
int gm_nl_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg);

/*
 * The receive side of gm_nl_run on its own: one request's reply, fed one
 * datagram at a time (the unit tests feed it by hand).
 */
struct gm_nl_reply {
	struct gm_nl *nl;
	gm_nl_reply_fn fn;
	void *arg;
	uint32_t seq;		/* the request's sequence number */
	bool done;		/* its ACK, NLMSG_DONE or error was read */
	int cb_err;		/* the first error of fn */
};

/* Start reading the reply to the request numbered seq (clears nl's error). */
void gm_nl_reply_init(struct gm_nl_reply *r, struct gm_nl *nl, uint32_t seq,
		      gm_nl_reply_fn fn, void *arg);
/*
 * gm_nl_reply_feed: the messages of one datagram of len bytes (buf aligned
 * for a struct nlmsghdr). 0 (r->done: the reply is complete; the rest of the
 * datagram is then ignored), or -errno with nl->error etc. set: the request
 * failed, read no more.
 */
int gm_nl_reply_feed(struct gm_nl_reply *r, const void *buf, int len);
/* The request's result once r->done: 0, or -errno with nl->error etc. set. */
int gm_nl_reply_end(struct gm_nl_reply *r);

/*
 * gm_nl_parse_ack: from an NLMSG_ERROR or NLMSG_DONE message of len bytes,
 * the error (positive errno, 0 for none) and the extack message and
 * missing-attribute type if the kernel sent them. 0, or -EINVAL if nlh is
 * not such a message or is truncated.
 */
int gm_nl_parse_ack(const struct nlmsghdr *nlh, size_t len, int *error,
		    char *msg, size_t msglen, int *miss_type);

/*
 * Multicast events.
 *
 * gm_nl_subscribe: a socket in nlctrl's "notify" group (joined first, so
 * that the family's unregistration is seen whenever it happens) and in the
 * multicast group GROUP of FAMILY. 0, or -errno with nl->error etc. set:
 * nl->no_family when FAMILY is not registered, EPERM or EACCES when the
 * kernel does not let this process join GROUP (an admin-only group),
 * ENOENT without no_family when FAMILY has no group GROUP.
 */
int gm_nl_subscribe(struct gm_nl *nl, const char *family, const char *group);
/*
 * gm_nl_family_present: 1 if FAMILY is registered, 0 if not, -errno if
 * nlctrl could not be asked. Looks through a dump of all families: unlike
 * a look-up by name, that never makes the kernel load the family's module
 * (request_module() of a MODULE_ALIAS_GENL_FAMILY), so it is what to poll
 * while waiting for a module that was unloaded on purpose.
 */
int gm_nl_family_present(const char *family);
/* the descriptor to poll() for POLLIN */
int gm_nl_event_fd(const struct gm_nl *nl);
/*
 * gm_nl_read_events: read what is queued, without blocking, and call fn for
 * every message of the family the kernel sent (messages from a user space
 * sender are dropped); fn returning < 0 stops the reading with that value.
 * Returns 0 when the queue is empty, -ENOBUFS when messages were lost (the
 * socket's receive buffer overflowed; reading goes on), -ENODEV when the
 * family was unregistered (nlctrl CTRL_CMD_DELFAMILY: close, and subscribe
 * again once it is back), another -errno when the socket failed.
 */
int gm_nl_read_events(struct gm_nl *nl, gm_nl_reply_fn fn, void *arg);

/* Is nlh (len bytes) nlctrl's notification that FAMILY was unregistered? */
bool gm_nl_family_gone(const struct nlmsghdr *nlh, size_t len, const char *family);

/*
 * The simulated kernel of the host tests (tests/fake_kernel.c) is the other
 * end of the socket of nl.c built with GM_NL_FAKE: gm_nl_run and
 * gm_nl_read_events are the same code, only these stand for the socket.
 *   gm_fake_send: as nl_send_auto() (completes the header: port, sequence
 *                 number, NLM_F_REQUEST | NLM_F_ACK; does not free req)
 *   gm_fake_recv: as nl_recv() (the next datagram, malloc'ed; -NLE_AGAIN when
 *                 none is queued: the receive timeout)
 *   gm_fake_recv_event: as recvmsg(MSG_DONTWAIT) on the events socket (-1
 *                 with errno EAGAIN when none is queued, ENOBUFS when events
 *                 were lost)
 */
struct sockaddr_nl;
int gm_fake_send(struct gm_nl *nl, struct nl_msg *req);
int gm_fake_recv(struct gm_nl *nl, struct sockaddr_nl *from, unsigned char **buf);
long gm_fake_recv_event(struct gm_nl *nl, void *buf, size_t size, struct sockaddr_nl *from,
			int *msg_flags);

#endif
