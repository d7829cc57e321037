// SPDX-License-Identifier: GPL-2.0
/*
 * nl-dumps - start gpumem dumps and never read them: a requester that
 * leaves its replies unread, for the unread-dump test (86-nl-unread).
 *
 *   nl-dumps [-n REQUESTS] [-s SOCKETS] [-c CMDS] [-t SECONDS]
 *
 * Opens SOCKETS generic netlink sockets (default 1) and sends REQUESTS
 * dump requests (default 1000) over them in turn, cycling through CMDS
 * (default cgroup,limit,proc,dev: cgroup-get, limit-get, proc-get in the
 * charged view, dev-get), one send() each, reading nothing. Prints SENT requests=R send_errors=E, then
 * READY <pid>, and holds the sockets open until SIGTERM or SECONDS (default
 * 600); closes them and prints CLOSED at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../uapi/gpumem.h"
#include "helper-common.h"
#include "genl-raw.h"

/* The family id of "gpumem", from nlctrl (on a socket of its own). */
static uint16_t resolve_family(void)
{
	uint16_t id;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	genl_resolve(fd, &id, NULL);
	close(fd);
	return id;
}

int main(int argc, char **argv)
{
	char cmdlist[64] = "cgroup,limit,proc,dev", *tok, *save;
	long requests = 1000, nsock = 1, errors = 0, i;
	uint8_t cmds[16];
	size_t ncmds = 0;
	double seconds = 600;
	struct sigaction sig;
	uint64_t end;
	uint16_t family;
	int opt, *fds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:s:c:t:")) != -1) {
		switch (opt) {
		case 'c': snprintf(cmdlist, sizeof(cmdlist), "%s", optarg); break;
		case 'n': requests = atol(optarg); break;
		case 's': nsock = atol(optarg); break;
		case 't': seconds = atof(optarg); break;
		default: die("usage: nl-dumps [-n REQUESTS] [-s SOCKETS] [-c CMDS] [-t SECONDS]");
		}
	}
	for (tok = strtok_r(cmdlist, ",", &save); tok && ncmds < sizeof(cmds);
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "cgroup"))
			cmds[ncmds++] = GPUMEM_CMD_CGROUP_GET;
		else if (!strcmp(tok, "limit"))
			cmds[ncmds++] = GPUMEM_CMD_LIMIT_GET;
		else if (!strcmp(tok, "proc"))
			cmds[ncmds++] = GPUMEM_CMD_PROC_GET;
		else if (!strcmp(tok, "dev"))
			cmds[ncmds++] = GPUMEM_CMD_DEV_GET;
		else
			die("-c: unknown command '%s' (cgroup, limit, proc, dev)", tok);
	}
	if (!ncmds)
		die("-c: no command");
	if (requests < 1 || nsock < 1)
		die("-n and -s take a positive number");
	memset(&sig, 0, sizeof(sig));
	sig.sa_handler = on_signal;
	sigemptyset(&sig.sa_mask);
	sigaction(SIGTERM, &sig, NULL);
	sigaction(SIGINT, &sig, NULL);

	family = resolve_family();
	fds = calloc(nsock, sizeof(*fds));
	if (!fds)
		die("out of memory");
	for (i = 0; i < nsock; i++) {
		struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

		fds[i] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		if (fds[i] < 0)
			die("socket %ld: %s", i, strerror(errno));
		if (bind(fds[i], (struct sockaddr *)&sa, sizeof(sa)))
			die("bind: %s", strerror(errno));
	}
	for (i = 0; i < requests; i++) {
		struct {
			struct nlmsghdr n;
			struct genlmsghdr g;
		} req;

		memset(&req, 0, sizeof(req));
		req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
		req.n.nlmsg_type = family;
		req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		req.n.nlmsg_seq = (uint32_t)i + 1;
		req.g.cmd = cmds[i % ncmds];
		req.g.version = GPUMEM_FAMILY_VERSION;
		/* a full receive buffer makes the kernel drop the reply, not fail the send */
		if (send(fds[i % nsock], &req, req.n.nlmsg_len, MSG_DONTWAIT) < 0)
			errors++;
	}
	printf("SENT requests=%ld send_errors=%ld\n", requests, errors);
	printf("READY %d\n", (int)getpid());
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (!stop_signal && now_ns() < end)
		poll(NULL, 0, 100);
	for (i = 0; i < nsock; i++)
		close(fds[i]);
	free(fds);
	printf("CLOSED\n");
	return 0;
}
