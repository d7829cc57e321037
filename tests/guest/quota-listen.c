// SPDX-License-Identifier: GPL-2.0
/*
 * quota-listen - receive gpumem's quota events (generic netlink family
 * "gpumem", multicast group "events") on a raw netlink socket and stamp
 * each one with CLOCK_MONOTONIC when it is read, for the event benchmark.
 *
 *   quota-listen [-n COUNT] [-t SECONDS] [-i IDLE_SECONDS] [-o FILE] [-b RCVBUF]
 *
 * Prints READY <pid> once subscribed. Ends after COUNT events, SECONDS in
 * all, IDLE_SECONDS without an event (after the first one), or SIGTERM.
 * -o writes one line per event:
 *   seq type cgroup_id pid denied suppressed recv_ns requested usage limit
 * At the end: LISTEN events=E suppressed=S overflows=O first_seq=F
 *             last_seq=L seq_gaps=G min_seq=A max_seq=B missing=M reordered=R
 * (overflows: ENOBUFS, the receive buffer overflowed and events were lost;
 * seq_gaps: sequence numbers skipped from one event to the next, as a
 * listener that expects them in order sees it; missing: numbers between
 * the smallest and the largest never received; reordered: events with a
 * smaller sequence number than the one before).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "../../uapi/gpumem.h"
#include "helper-common.h"
#include "genl-raw.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct ev {
	uint64_t seq, type, cgid, pid, denied, suppressed, requested, usage, limit;
};

int main(int argc, char **argv)
{
	uint64_t count = 0, events = 0, suppressed = 0, overflows = 0, gaps = 0;
	uint64_t first_seq = 0, last_seq = 0, start, last_event = 0;
	uint64_t min_seq = UINT64_MAX, max_seq = 0, reordered = 0;
	double timeout = 0, idle = 0;
	int rcvbuf = 64 << 20, opt, fd;
	const char *outpath = NULL;
	static char buf[1 << 16];
	struct sockaddr_nl sa;
	struct sigaction sig;
	uint16_t family;
	uint32_t group;
	FILE *out = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:t:i:o:b:")) != -1) {
		switch (opt) {
		case 'n': count = strtoull(optarg, NULL, 10); break;
		case 't': timeout = atof(optarg); break;
		case 'i': idle = atof(optarg); break;
		case 'o': outpath = optarg; break;
		case 'b': rcvbuf = atoi(optarg); break;
		default: die("usage: quota-listen [-n COUNT] [-t SECONDS] [-i IDLE] [-o FILE] [-b RCVBUF]");
		}
	}
	memset(&sig, 0, sizeof(sig));
	sig.sa_handler = on_signal;
	sigemptyset(&sig.sa_mask);
	sigaction(SIGTERM, &sig, NULL);
	sigaction(SIGINT, &sig, NULL);

	if (outpath) {
		out = fopen(outpath, "w");
		if (!out)
			die("%s: %s", outpath, strerror(errno));
		setvbuf(out, NULL, _IOFBF, 1 << 20);
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		die("SO_RCVBUF: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind: %s", strerror(errno));
	genl_resolve(fd, &family, &group);
	if (setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
		die("NETLINK_ADD_MEMBERSHIP %u: %s", group, strerror(errno));
	printf("READY %d\n", (int)getpid());

	start = now_ns();
	while (!stop_signal && (!count || events < count)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		int wait_ms = 200;
		ssize_t len;
		struct nlmsghdr *n;

		if (timeout > 0 && now - start >= (uint64_t)(timeout * 1e9))
			break;
		if (idle > 0 && events && now - last_event >= (uint64_t)(idle * 1e9))
			break;
		if (poll(&p, 1, wait_ms) <= 0)
			continue;
		len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS)
				overflows++;
			else if (errno != EAGAIN && errno != EINTR)
				die("recv: %s", strerror(errno));
			continue;
		}
		now = now_ns();
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, (size_t)len); n = NLMSG_NEXT(n, len)) {
			struct genlmsghdr *g = NLMSG_DATA(n);
			struct nlattr *a;
			struct ev e = { 0 };
			int rem;

			if (n->nlmsg_type != family || g->cmd != GPUMEM_CMD_QUOTA_EVENT)
				continue;
			a = (struct nlattr *)((char *)g + GENL_HDRLEN);
			rem = (int)n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			for (; ATTR_OK(a, rem); a = ATTR_NEXT(a, rem)) {
				switch (a->nla_type & NLA_TYPE_MASK) {
				case GPUMEM_A_EVENT_SEQ: e.seq = attr_uint(a); break;
				case GPUMEM_A_EVENT_TYPE: e.type = attr_uint(a); break;
				case GPUMEM_A_EVENT_CGROUP_ID: e.cgid = attr_uint(a); break;
				case GPUMEM_A_EVENT_PID: e.pid = attr_uint(a); break;
				case GPUMEM_A_EVENT_DENIED: e.denied = attr_uint(a); break;
				case GPUMEM_A_EVENT_SUPPRESSED: e.suppressed = attr_uint(a); break;
				case GPUMEM_A_EVENT_REQUESTED: e.requested = attr_uint(a); break;
				case GPUMEM_A_EVENT_USAGE: e.usage = attr_uint(a); break;
				case GPUMEM_A_EVENT_LIMIT: e.limit = attr_uint(a); break;
				}
			}
			if (events && e.seq > last_seq + 1)
				gaps += e.seq - last_seq - 1;
			if (events && e.seq < last_seq)
				reordered++;
			if (e.seq < min_seq)
				min_seq = e.seq;
			if (e.seq > max_seq)
				max_seq = e.seq;
			if (!events)
				first_seq = e.seq;
			last_seq = e.seq;
			events++;
			suppressed += e.suppressed;
			last_event = now;
			if (out)
				fprintf(out, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
					" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
					e.seq, e.type, e.cgid, e.pid, e.denied, e.suppressed, now,
					e.requested, e.usage, e.limit);
		}
	}
	if (out && fclose(out))
		die("%s: %s", outpath, strerror(errno));
	if (!events)
		min_seq = 0;
	printf("LISTEN events=%" PRIu64 " suppressed=%" PRIu64 " overflows=%" PRIu64
	       " first_seq=%" PRIu64 " last_seq=%" PRIu64 " seq_gaps=%" PRIu64 " min_seq=%" PRIu64
	       " max_seq=%" PRIu64 " missing=%" PRIu64 " reordered=%" PRIu64 "\n",
	       events, suppressed, overflows, first_seq, last_seq, gaps, min_seq, max_seq,
	       events ? max_seq - min_seq + 1 - events : 0, reordered);
	return 0;
}
