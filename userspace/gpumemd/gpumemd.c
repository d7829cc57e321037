// SPDX-License-Identifier: GPL-2.0
/*
 * gpumemd - gpumem's node agent: serves Prometheus metrics over HTTP
 * (libmicrohttpd; GET /metrics) and/or writes a node_exporter textfile
 * atomically, each time from a fresh look at the kernel (gpumemd_metrics.c),
 * and logs every event of gpumem's events group as one JSON line on stdout
 * (the format of `gpumemctl watch --json`), counting them by type. When the
 * module goes away it waits for it (a look every second) and subscribes
 * again: no restart across rmmod/modprobe. See gpumemd(8).
 *
 *   gpumemd [--listen [ADDR:]PORT | --no-listen] [--textfile PATH
 *           [--interval SEC]] [--no-events] [--cgroupns PATH] [--once]
 */
#define _GNU_SOURCE	/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <netlink/genl/genl.h>

#include "atomic_file.h"
#include "gpumemd.h"
#include "libgpumem.h"
#include "quota.h"

#define DEFAULT_LISTEN "127.0.0.1:9479"
#define RETRY_MS 1000
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static const char usage[] =
	"Usage: gpumemd [OPTIONS]\n"
	"\n"
	"gpumem's node agent: Prometheus metrics over HTTP (GET /metrics) and/or\n"
	"a node_exporter textfile, every event of gpumem's events group as a JSON\n"
	"line on stdout. Survives module reloads.\n"
	"\n"
	"  -l, --listen [ADDR:]PORT  serve http://ADDR:PORT/metrics (default\n"
	"                            " DEFAULT_LISTEN "; \":PORT\" is every address,\n"
	"                            \"[::1]:PORT\" an IPv6 one)\n"
	"  -L, --no-listen           no HTTP server\n"
	"  -t, --textfile PATH       write the metrics to PATH atomically (a temporary\n"
	"                            file in the same directory, renamed) every\n"
	"                            --interval seconds\n"
	"  -i, --interval SEC        textfile period, 1 to 3600 (default 15)\n"
	"  -E, --no-events           do not subscribe to the events group\n"
	"                            (no CAP_SYS_ADMIN needed; no event counters)\n"
	"  -C, --cgroupns PATH       enter the cgroup namespace PATH first (e.g.\n"
	"                            /proc/1/ns/cgroup in a hostPID pod): process\n"
	"                            cgroup paths are then the host's\n"
	"  --process-metrics auto|on|off\n"
	"                            per-process series: auto (default) while the node\n"
	"                            has at most 500 process rows, else only the\n"
	"                            per-cgroup (pod, container) ones\n"
	"  -1, --once                print the metrics to stdout once and exit\n"
	"  -h, --help                this text\n"
	"  -V, --version             the version\n";

static volatile sig_atomic_t stop;
/* what a scrape writes (command line; read by the HTTP and textfile threads) */
static struct gd_scrape_opts scrape_opts = { .procs = GD_PROCS_AUTO };

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	fputs("gpumemd: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- the metrics as a string ------------------------------------------ */

static struct gd_events events;

/* a scrape in a malloc'ed buffer (*len bytes); NULL if out of memory */
static char *render(size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	gd_scrape(f, &events, &scrape_opts);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* --- HTTP -------------------------------------------------------------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * GET (or HEAD) /metrics, nothing else; a request with a body is refused
 * before it is read (its first call comes before any of the body).
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	static const char not_found[] = "404 not found: gpumemd serves /metrics\n";
	static const char bad_method[] = "405 only GET\n";
	static const char no_body[] = "413 no request body\n";
	static const char oom[] = "500 out of memory\n";
	const char *cl;
	size_t len;
	char *body;

	(void)cls;
	(void)version;
	(void)upload_data;
	if (*con_cls)	/* a later call: only a body comes this way */
		return MHD_NO;
	*con_cls = c;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", (void *)bad_method,
			     sizeof(bad_method) - 1, MHD_RESPMEM_PERSISTENT);
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (*upload_data_size || (cl && strcmp(cl, "0") != 0) ||
	    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return reply(c, MHD_HTTP_CONTENT_TOO_LARGE, "text/plain", (void *)no_body,
			     sizeof(no_body) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", (void *)not_found,
			     sizeof(not_found) - 1, MHD_RESPMEM_PERSISTENT);
	body = render(&len);
	if (!body)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", (void *)oom,
			     sizeof(oom) - 1, MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, CONTENT_TYPE, body, len, MHD_RESPMEM_MUST_FREE);
}

/* "[ADDR:]PORT", "[V6ADDR]:PORT": the address to bind (ADDR empty: any) */
static int parse_listen(const char *arg, struct sockaddr_storage *ss, bool *v6)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char host[128] = "", *end;
	const char *port = arg, *colon = strrchr(arg, ':');
	long p;

	if (colon) {
		size_t hl = (size_t)(colon - arg);

		if (hl >= sizeof(host))
			return -1;
		memcpy(host, arg, hl);
		host[hl] = '\0';
		port = colon + 1;
		if (host[0] == '[') {
			if (hl < 2 || host[hl - 1] != ']')
				return -1;
			memmove(host, host + 1, hl - 2);
			host[hl - 2] = '\0';
		}
	} else {
		snprintf(host, sizeof(host), "127.0.0.1");
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (errno || end == port || *end || p < 1 || p > 65535)
		return -1;
	if (getaddrinfo(host[0] ? host : NULL, port, &hints, &res) != 0)
		return -1;
	if (!host[0]) {	/* every address: IPv6 any, dual stack */
		for (struct addrinfo *a = res; a; a = a->ai_next)
			if (a->ai_family == AF_INET6) {
				memcpy(ss, a->ai_addr, a->ai_addrlen);
				*v6 = true;
				freeaddrinfo(res);
				return 0;
			}
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return 0;
}

/* ss: the address parse_listen() gave; any: every address (":PORT") */
static struct MHD_Daemon *start_http(const struct sockaddr_storage *ss, bool v6, bool any)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (v6)
		flags |= any ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	/* the port too, for libmicrohttpd's messages (the address decides) */
	uint16_t port = ntohs(ss->ss_family == AF_INET6 ?
			      ((const struct sockaddr_in6 *)ss)->sin6_port :
			      ((const struct sockaddr_in *)ss)->sin_port);

	return MHD_start_daemon(flags, port, NULL, NULL, on_request, NULL,
				MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)16,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)8,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
				MHD_OPTION_END);
}

/* --- textfile ---------------------------------------------------------- */

/* PATH through a temporary file in its directory, renamed over it */
static int write_textfile(const char *path)
{
	size_t len;
	char *body = render(&len);
	int ret;

	ret = body ? gm_write_file_atomic(path, body, len) : -ENOMEM;
	if (ret < 0)
		note("cannot write %s: %s", path, strerror(-ret));
	free(body);
	return ret;
}

/* --- events ------------------------------------------------------------ */

struct watch {
	struct gm_seq seq;
};

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
			note("dropped a malformed event");
		return 0;	/* not an event (or a malformed one, dropped) */
	}
	clock_gettime(CLOCK_REALTIME, &now);
	pthread_mutex_lock(&events.lock);
	if (e.has_type && e.type < events.ntypes && gm_event_type_name(e.type))
		events.by_type[e.type]++;
	else
		events.unknown++;
	if (e.has_source && e.source == GPUMEM_LIMIT_SOURCE_DMEM)
		events.dmem++;
	events.lost += missed;
	events.suppressed += e.suppressed;
	pthread_mutex_unlock(&events.lock);
	gm_event_json(stdout, &e, &now, missed);
	fflush(stdout);
	gm_event_free(&e);
	return 0;
}

static void set_subscribed(bool on, bool again)
{
	pthread_mutex_lock(&events.lock);
	events.subscribed = on;
	if (on && again)
		events.reconnects++;
	pthread_mutex_unlock(&events.lock);
}

/*
 * The events group until a signal: subscribe, read, and when the family
 * goes away (or the socket fails) look every second whether it is back.
 */
static void *event_loop(void *arg)
{
	struct gm_nl nl = { 0 };
	struct watch w = { { 0 } };
	bool connected = false, ever = false, noted = false;
	long long retry_at = 0;

	(void)arg;
	while (!stop) {
		struct pollfd pfd;
		long long now = now_ms();
		int n;

		if (!connected && now >= retry_at) {
			n = gm_nl_family_present(GPUMEM_FAMILY_NAME);
			if (n == 1 && gm_nl_subscribe(&nl, GPUMEM_FAMILY_NAME,
						      GPUMEM_MCGRP_EVENTS) == 0) {
				connected = true;
				w.seq.valid = false;	/* a new module counts anew */
				set_subscribed(true, ever);
				note("%s to gpumem's events", ever ? "subscribed again" : "subscribed");
				ever = true;
				noted = false;
				continue;
			}
			if (!noted) {
				char buf[GM_NL_MSG_LEN + 128];

				if (n == 1 && (nl.error == EPERM || nl.error == EACCES))
					note("not allowed to join the events group (CAP_SYS_ADMIN "
					     "needed); trying again every second");
				else if (n == 1)
					note("cannot subscribe yet (%s); trying again every second",
					     gm_nl_strerror(&nl, buf, sizeof(buf)));
				else
					note("gpumem is not loaded; waiting for it");
				noted = true;
			}
			gm_nl_close(&nl);
			retry_at = now + RETRY_MS;
		}
		if (!connected) {
			/* short sleeps: a signal stops the agent within 200 ms */
			poll(NULL, 0, 200);
			continue;
		}
		pfd = (struct pollfd){ .fd = gm_nl_event_fd(&nl), .events = POLLIN };
		n = poll(&pfd, 1, 200);
		if (n <= 0)
			continue;
		n = gm_nl_read_events(&nl, on_event, &w);
		if (n == -ENOBUFS) {
			pthread_mutex_lock(&events.lock);
			events.overflows++;
			pthread_mutex_unlock(&events.lock);
			note("event socket overflowed: events lost");
		} else if (n < 0) {
			note(n == -ENODEV ? "gpumem was unloaded; waiting for it to come back" :
			     "receiving events failed; subscribing again");
			gm_nl_close(&nl);
			connected = false;
			noted = true;	/* said why; the next note when it is back */
			set_subscribed(false, false);
			retry_at = now_ms();
		}
	}
	gm_nl_close(&nl);
	return NULL;
}

/* --- main -------------------------------------------------------------- */

/*
 * proc-get gives cgroup paths in the caller's cgroup namespace: a pod's
 * agent enters the host's to report host paths (with pod_uid and
 * container_id parsed from them) as the cgroup families do.
 */
static int enter_cgroupns(const char *path)
{
	struct stat want, have;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	/* in it already (a host's agent given the host's): nothing to do */
	if (fd >= 0 && fstat(fd, &want) == 0 && stat("/proc/self/ns/cgroup", &have) == 0 &&
	    want.st_ino == have.st_ino && want.st_dev == have.st_dev) {
		close(fd);
		return 0;
	}
	if (fd < 0 || setns(fd, CLONE_NEWCGROUP) < 0) {
		note("--cgroupns %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "no-listen", no_argument, NULL, 'L' },
		{ "textfile", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "no-events", no_argument, NULL, 'E' },
		{ "cgroupns", required_argument, NULL, 'C' },
		{ "once", no_argument, NULL, '1' },
		{ "process-metrics", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen = DEFAULT_LISTEN, *textfile = NULL, *cgroupns = NULL;
	bool once = false, no_events = false, v6 = false;
	struct sockaddr_storage addr = { 0 };
	struct MHD_Daemon *http = NULL;
	pthread_t thread;
	struct sigaction sa;
	long interval = 15;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "l:Lt:i:EC:1hVP:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen = optarg;
			break;
		case 'L':
			listen = NULL;
			break;
		case 't':
			if (!*optarg) {
				note("--textfile: empty file name");
				return 2;
			}
			textfile = optarg;
			break;
		case 'i':
			errno = 0;
			interval = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || interval < 1 || interval > 3600) {
				note("--interval %s: not a number of seconds from 1 to 3600", optarg);
				return 2;
			}
			break;
		case 'E':
			no_events = true;
			break;
		case 'C':
			cgroupns = optarg;
			break;
		case '1':
			once = true;
			break;
		case 'P':
			if (strcmp(optarg, "auto") == 0) {
				scrape_opts.procs = GD_PROCS_AUTO;
			} else if (strcmp(optarg, "on") == 0) {
				scrape_opts.procs = GD_PROCS_ON;
			} else if (strcmp(optarg, "off") == 0) {
				scrape_opts.procs = GD_PROCS_OFF;
			} else {
				note("--process-metrics %s: auto, on or off", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("gpumemd %s\n", gm_version);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		note("unexpected argument: %s", argv[optind]);
		return 2;
	}
	/* before any thread: a namespace is entered by the calling thread only */
	if (cgroupns && enter_cgroupns(cgroupns) < 0)
		return 1;
	if (gd_events_init(&events) < 0) {
		note("out of memory");
		return 1;
	}
	if (once) {
		gd_scrape(stdout, NULL, &scrape_opts);
		return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	}
	if (!listen && !textfile) {
		note("nothing to do: --no-listen without --textfile");
		return 2;
	}
	if (listen && parse_listen(listen, &addr, &v6) < 0) {
		note("--listen %s: not [ADDR:]PORT with a numeric address and a port 1-65535",
		     listen);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* one event a line, each out at once (journald, kubectl logs) */
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!no_events) {
		events.enabled = true;
		if (pthread_create(&thread, NULL, event_loop, NULL) != 0) {
			note("cannot start the event thread");
			return 1;
		}
	}
	if (listen) {
		http = start_http(&addr, v6, listen[0] == ':');
		if (!http) {
			note("cannot serve HTTP on %s", listen);
			stop = 1;
			if (!no_events)
				pthread_join(thread, NULL);
			return 1;
		}
		note("serving http://%s/metrics", listen);
	}
	while (!stop) {
		long long next = now_ms() + interval * 1000;

		if (textfile)
			write_textfile(textfile);
		while (!stop && now_ms() < next)
			poll(NULL, 0, 200);
	}
	note("stopping");
	if (http)
		MHD_stop_daemon(http);
	if (!no_events)
		pthread_join(thread, NULL);
	return 0;
}
