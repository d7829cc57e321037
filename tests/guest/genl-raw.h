/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the static test helpers that talk to the gpumem
 * family without libnl (nl-dumps, quota-listen): attribute walking and the
 * family/group lookup through nlctrl. Include after helper-common.h.
 */
#ifndef GM_GENL_RAW_H
#define GM_GENL_RAW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../uapi/gpumem.h"

#define ATTR_OK(a, rem) ((rem) >= (int)sizeof(struct nlattr) && (a)->nla_len >= sizeof(struct nlattr) && \
			 (a)->nla_len <= (rem))
#define ATTR_NEXT(a, rem) ((rem) -= NLA_ALIGN((a)->nla_len), \
			   (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define ATTR_DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define ATTR_LEN(a) ((int)(a)->nla_len - NLA_HDRLEN)

/* An unsigned attribute of any width (1, 2, 4 or 8 bytes; 0 otherwise). */
static inline uint64_t attr_uint(const struct nlattr *a)
{
	uint64_t v = 0;

	switch (ATTR_LEN(a)) {
	case 1: v = *(uint8_t *)ATTR_DATA(a); break;
	case 2: v = *(uint16_t *)ATTR_DATA(a); break;
	case 4: v = *(uint32_t *)ATTR_DATA(a); break;
	case 8: memcpy(&v, ATTR_DATA(a), 8); break;
	}
	return v;
}

/* The id of the group named @name in a CTRL_ATTR_MCAST_GROUPS nest, 0 if none. */
static inline uint32_t genl_group_id(const struct nlattr *groups, const char *name)
{
	struct nlattr *g = ATTR_DATA(groups);
	int grem = ATTR_LEN(groups);

	for (; ATTR_OK(g, grem); g = ATTR_NEXT(g, grem)) {
		struct nlattr *f = ATTR_DATA(g);
		int frem = ATTR_LEN(g);
		uint32_t id = 0;
		bool named = false;

		for (; ATTR_OK(f, frem); f = ATTR_NEXT(f, frem)) {
			if ((f->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID)
				id = (uint32_t)attr_uint(f);
			else if ((f->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_NAME)
				named = !strncmp(ATTR_DATA(f), name, (size_t)ATTR_LEN(f));
		}
		if (named)
			return id;
	}
	return 0;
}

/*
 * The gpumem family's id and, when @events is not NULL, the id of its
 * "events" group, asked of nlctrl on @fd (a NETLINK_GENERIC socket). Dies
 * when the family (gpumem not loaded) or the group is not there.
 */
static inline void genl_resolve(int fd, uint16_t *family, uint32_t *events)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char buf[64];
	} req;
	static char buf[65536];
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct nlattr *a;
	ssize_t len;
	int rem;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = 1;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 2;
	a = (struct nlattr *)req.buf;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + sizeof(GPUMEM_FAMILY_NAME);
	memcpy(ATTR_DATA(a), GPUMEM_FAMILY_NAME, sizeof(GPUMEM_FAMILY_NAME));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(a->nla_len));
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0)
		die("send: %s", strerror(errno));
	len = recv(fd, buf, sizeof(buf), 0);
	if (len < 0)
		die("recv: %s", strerror(errno));
	if (!NLMSG_OK(n, (size_t)len))
		die("short reply from nlctrl");
	if (n->nlmsg_type == NLMSG_ERROR)
		die("no generic netlink family '%s' (gpumem not loaded?)", GPUMEM_FAMILY_NAME);
	a = (struct nlattr *)((char *)NLMSG_DATA(n) + GENL_HDRLEN);
	rem = (int)n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	*family = 0;
	if (events)
		*events = 0;
	for (; ATTR_OK(a, rem); a = ATTR_NEXT(a, rem)) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			*family = (uint16_t)attr_uint(a);
		else if (events && (a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS)
			*events = genl_group_id(a, GPUMEM_MCGRP_EVENTS);
	}
	if (!*family)
		die("family '%s' has no id", GPUMEM_FAMILY_NAME);
	if (events && !*events)
		die("family '%s' has no '%s' group", GPUMEM_FAMILY_NAME, GPUMEM_MCGRP_EVENTS);
}

#endif /* GM_GENL_RAW_H */
