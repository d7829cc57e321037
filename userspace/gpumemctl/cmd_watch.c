// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_watch.c - `gpumemctl watch`: print gpumem's quota events (multicast
 * group "events", admin-only) as they come, one line or JSON object each.
 *
 * When the module goes away (nlctrl's CTRL_CMD_DELFAMILY, or the socket
 * fails) the socket is closed and the family looked for again right away
 * and then every 0.5 s, sleeping in between, until it is back. The looking
 * is a dump of nlctrl's families: asking for "gpumem" by name would make the
 * kernel load the module again if it has a family alias. SIGINT and
 * SIGTERM end the watch with status 0; they are blocked except inside
 * ppoll(), so none is lost between a check and the wait.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include "../../uapi/gpumem.h"
#include "gpumemctl.h"
#include "nl.h"
#include "output.h"
#include "parse.h"
#include "query.h"
#include "quota.h"

#define RETRY_MS 500	/* how often to look for the family while it is gone */

static const char help[] =
	"Usage: gpumemctl watch [--json] [--bytes] [-n COUNT] [-t SECONDS]\n"
	"                       [-T TYPE[,TYPE...]]\n"
	"\n"
	"Print gpumem's quota events as they happen, one line each: the time it\n"
	"was received, the type (quota-exceeded, high-crossed, device-threshold,\n"
	"fragmented-denial, leak-suspect, orphaned), cgroup, pid and command,\n"
	"device and region, the bytes requested, the usage before the placement\n"
	"and the limit (max, high or threshold), whether the placement was\n"
	"denied or allowed (and the limit's mode), and how many events of that\n"
	"cgroup rate limiting suppressed since its last one. A leak-suspect (a process's or,\n"
	"without pid, a cgroup's own usage rose window after window: a leak?)\n"
	"shows the usage now, the growth, its rate and the windows instead. An\n"
	"orphaned event (a process exited leaving at least the module parameter\n"
	"orphan_event_bytes resident on a device and region, kept by others)\n"
	"shows the bytes resident, the buffers and who holds them: live pids,\n"
	"\"kernel\", \"dma-buf\", \"mapping\" or \"busy\" (see `gpumemctl orphans`). A\n"
	"warning line says when sequence numbers were skipped (events missed).\n"
	"Output is flushed after every event.\n"
	"\n"
	"When the gpumem module is unloaded, a note goes to stderr and the watch\n"
	"waits for it to be loaded again. Ends on SIGINT or SIGTERM (status 0).\n"
	"Needs root (the events group is for CAP_SYS_ADMIN only); exit status 4\n"
	"without it.\n"
	"\n"
	"  -n, --count N        exit after N events\n"
	"  -t, --timeout SECONDS\n"
	"                       exit after SECONDS (0.1 to 86400): status 0, or 1\n"
	"                       when --count N events had not come by then\n"
	"  -T, --type TYPE[,TYPE...]\n"
	"                       only events of these types (e.g. leak-suspect:\n"
	"                       the leak suspects as they are raised); the others\n"
	"                       are not printed nor counted, but their sequence\n"
	"                       numbers are: no false 'missed' warning\n"
	"  -j, --json           one JSON object per line and event: time (UTC),\n"
	"                       seq, type, cgroup_id, cgroup, pid, comm, device,\n"
	"                       region, requested, usage, limit, mode, denied,\n"
	"                       suppressed, missed (null: not sent); leak-suspect\n"
	"                       also growth, rate (bytes/s), windows, window_ms;\n"
	"                       orphaned also buffers, holders (pids), kinds;\n"
	"                       warnings go to stderr\n"
	"  -b, --bytes          exact byte counts\n";

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

struct watch {
	const struct gm_opts *o;
	struct gm_seq seq;
	uint64_t count, max_count;
	uint64_t types;		/* bit per enum gpumem_event_type shown; 0: all */
	int write_err;
};

/* --type: the comma-separated names into a mask; -1 (message in err) if one is unknown */
static int parse_types(const char *arg, uint64_t *mask, char *err, size_t len)
{
	const char *p = arg;

	*mask = 0;
	do {
		size_t n = strcspn(p, ",");
		uint32_t t;

		for (t = 0; t < 64; t++) {
			const char *name = gm_event_type_name(t);

			if (name && strlen(name) == n && !strncmp(name, p, n))
				break;
		}
		if (t == 64) {
			snprintf(err, len, "--type: unknown event type '%.*s'", (int)n, p);
			return -1;
		}
		*mask |= 1ull << t;
		p += n;
	} while (*p++ == ',');
	return 0;
}

/* Stop reading: enough events (--count), or stdout failed. */
#define STOP_DONE (-ECANCELED)
#define STOP_WRITE (-EIO)

static void note(const char *fmt, const char *arg)
{
	fflush(stdout);
	fputs("gpumemctl: watch: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static int on_event(const struct nlmsghdr *nlh, void *arg)
{
	struct watch *w = arg;
	struct timespec now;
	uint64_t missed, first;
	struct gm_event e;
	int ret;

	ret = gm_receive_event(nlh, &w->seq, &e, &missed, &first);
	if (ret <= 0) {
		if (ret < 0)
			note("%s", "dropped a malformed event");
		return 0;	/* not an event (or a malformed one, dropped) */
	}
	clock_gettime(CLOCK_REALTIME, &now);
	if (w->types && (!e.has_type || e.type >= 64 || !(w->types & (1ull << e.type)))) {
		/* filtered out: its number counts, so missed stays the gaps before it */
		if (missed) {
			fflush(stdout);
			gm_missed_line(w->o->json ? stderr : stdout, &now, missed, first);
		}
		gm_event_free(&e);
		return 0;
	}
	if (w->o->json) {
		if (missed) {
			fflush(stdout);
			gm_missed_line(stderr, &now, missed, first);
		}
		gm_event_json(stdout, &e, &now, missed);
	} else {
		if (missed)
			gm_missed_line(stdout, &now, missed, first);
		gm_event_line(stdout, &e, &now, w->o->bytes);
	}
	gm_event_free(&e);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		w->write_err = errno ? errno : EIO;
		return STOP_WRITE;
	}
	w->count++;
	return w->max_count && w->count >= w->max_count ? STOP_DONE : 0;
}

static void buffer_overflow(const struct watch *w)
{
	struct timespec now;
	char ts[32];

	clock_gettime(CLOCK_REALTIME, &now);
	fflush(stdout);
	fprintf(w->o->json ? stderr : stdout,
		"%s warning: events lost (the socket's receive buffer overflowed)\n",
		gm_local_time(ts, sizeof(ts), &now));
	fflush(stdout);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Why the first subscription failed; the exit code. */
static int subscribe_failed(const struct gm_nl *nl)
{
	if (nl->no_family)
		return gm_report(nl, "watch");
	if (nl->error == EPERM || nl->error == EACCES) {
		fflush(stdout);
		fprintf(stderr, "gpumemctl: watch: not allowed to receive gpumem's events: %s "
			"(the \"%s\" group is for root only: CAP_SYS_ADMIN)\n",
			strerror(nl->error), GPUMEM_MCGRP_EVENTS);
		return GM_EXIT_PERM;
	}
	if (nl->error == ENOENT) {
		fflush(stdout);
		fprintf(stderr, "gpumemctl: watch: the loaded gpumem module has no \"%s\" "
			"multicast group (is it older than gpumemctl?)\n", GPUMEM_MCGRP_EVENTS);
		return GM_EXIT_ERROR;
	}
	return gm_report(nl, "watch");
}

int cmd_watch(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "type", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct watch w = { .o = o };
	unsigned int timeout = 0;
	long long deadline = 0, retry_at = 0;
	struct gm_nl nl = { 0 };
	bool connected, retry_noted = false;
	sigset_t block, orig;
	struct sigaction sa;
	char err[GM_ERR_LEN];
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "n:t:T:", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_count(optarg, "count", &w.max_count, err, sizeof(err)) < 0)
				return gm_usage_error("watch", "%s", err);
			break;
		case 't':
			if (parse_interval(optarg, &timeout, err, sizeof(err)) < 0)
				return gm_usage_error("watch", "--timeout: %s", err);
			break;
		case 'T':
			if (parse_types(optarg, &w.types, err, sizeof(err)) < 0)
				return gm_usage_error("watch", "%s", err);
			break;
		default:
			ret = gm_common_opt(c, "watch", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("watch", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (gm_nl_subscribe(&nl, GPUMEM_FAMILY_NAME, GPUMEM_MCGRP_EVENTS) < 0) {
		ret = subscribe_failed(&nl);
		goto out;
	}
	connected = true;
	if (timeout)
		deadline = now_ms() + timeout;

	ret = GM_EXIT_OK;
	while (!got_signal) {
		struct pollfd pfd = { .fd = gm_nl_event_fd(&nl), .events = POLLIN };
		long long now = now_ms(), wait = -1;
		struct timespec ts;
		int n;

		if (deadline && now >= deadline) {
			if (w.max_count && w.count < w.max_count) {
				fflush(stdout);
				fprintf(stderr, "gpumemctl: watch: timed out with %llu of %llu events\n",
					(unsigned long long)w.count, (unsigned long long)w.max_count);
				ret = GM_EXIT_ERROR;
			}
			break;
		}
		if (!connected && now >= retry_at) {
			/* a dump, not a look-up by name: that would load the module */
			n = gm_nl_family_present(GPUMEM_FAMILY_NAME);
			if (n == 1 &&
			    gm_nl_subscribe(&nl, GPUMEM_FAMILY_NAME, GPUMEM_MCGRP_EVENTS) == 0) {
				connected = true;
				retry_noted = false;
				w.seq.valid = false;	/* a new module counts anew */
				note("%s", "gpumem is back; watching again");
				continue;
			}
			if (n == 1 && (nl.error == EPERM || nl.error == EACCES)) {
				ret = subscribe_failed(&nl);
				break;
			}
			if (n < 0 && !retry_noted) {
				note("cannot ask the kernel for its families (%s); trying again",
				     strerror(-n));
				retry_noted = true;
			} else if (n == 1 && !nl.no_family && !retry_noted) {
				note("cannot watch yet (%s); trying again", strerror(nl.error));
				retry_noted = true;
			}
			retry_at = now + RETRY_MS;
		}
		if (!connected)
			wait = retry_at - now;
		if (deadline && (wait < 0 || deadline - now < wait))
			wait = deadline - now;
		if (wait >= 0) {
			ts.tv_sec = (time_t)(wait / 1000);
			ts.tv_nsec = (long)(wait % 1000) * 1000000L;
		}
		n = ppoll(connected ? &pfd : NULL, connected ? 1 : 0, wait >= 0 ? &ts : NULL, &orig);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = gm_error("watch: poll: %s", strerror(errno));
			break;
		}
		if (!connected || n == 0)
			continue;
		n = gm_nl_read_events(&nl, on_event, &w);
		if (n == STOP_DONE)
			break;
		if (n == STOP_WRITE) {
			fprintf(stderr, "gpumemctl: write error: %s\n", strerror(w.write_err));
			ret = GM_EXIT_ERROR;
			break;
		}
		if (n == -ENOBUFS) {
			buffer_overflow(&w);
		} else if (n < 0) {
			if (n == -ENODEV)
				note("%s", "the gpumem module was unloaded (its generic netlink family "
				     "is gone); waiting for it to come back");
			else
				note("receiving events failed (%s); reconnecting", strerror(-n));
			gm_nl_close(&nl);
			connected = false;
			retry_at = now_ms();	/* once right away, then every RETRY_MS */
		}
	}
out:
	gm_nl_close(&nl);
	sigprocmask(SIG_SETMASK, &orig, NULL);
	return ret;
}
