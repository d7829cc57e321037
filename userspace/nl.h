/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.h - gpumemctl's generic netlink client: connect, resolve the "gpumem"
 * family, send one request ("do" or dump) and hand every reply message to a
 * callback; kernel errors are kept with their extended-ack message.
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
	/* optional: the name of attribute TYPE of CMD's request (for errors) */
	const char *(*attr_name)(uint8_t cmd, int type);
};

/*
 * A reply callback: called once per reply message; returns 0 to go on or a
 * negative errno (the rest of a dump is then read and dropped, and the
 * request fails with that error).
 */
typedef int (*gm_nl_reply_fn)(struct nl_msg *msg, void *arg);

/*
 * Open a socket and resolve the family. 0, or -errno with nl->error etc.
 * set. Only nl->attr_name is kept from what *nl held before.
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
 * gm_nl_report: print the failure of WHAT to stderr ("gpumemctl: WHAT:
 * strerror: extack message") and return the exit code for it (3 module not
 * loaded, 4 permission denied, 1 otherwise).
 */
int gm_nl_report(const struct gm_nl *nl, const char *what);

#endif
