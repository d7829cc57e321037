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
 * A reply callback: called once per reply message; returns 0 to go on or a
 * negative errno (the rest of a dump is then read and dropped, and the
 * request fails with that error).
 */
typedef int (*gm_nl_reply_fn)(struct nl_msg *msg, void *arg);

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
 */
int gm_nl_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg);

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

#endif
