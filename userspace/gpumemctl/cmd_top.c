// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_top.c - `gpumemctl top`: a refreshing view of the devices and of the
 * processes sorted by VRAM. On a terminal the screen is redrawn in place
 * and q quits (stdin in non-canonical mode, restored on every way out,
 * Ctrl-Z included, and set again after fg); a resized window is redrawn at
 * once; otherwise one plain frame is printed per interval.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "parse.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl top [-i SECONDS] [-n FRAMES] [-H] [--bytes]\n"
	"\n"
	"Show the devices' memory use and the processes sorted by VRAM, refreshed\n"
	"every interval. On a terminal the screen is redrawn in place (at once when\n"
	"the window is resized); q (or Ctrl-C) quits, Ctrl-Z suspends (the terminal\n"
	"is restored, fg resumes). Processes that do not fit the window are counted\n"
	"on the last line. When standard output is not a terminal, one frame is\n"
	"printed per interval, without escape sequences.\n"
	"\n"
	"  -i, --interval SECONDS   time between frames (default 2; 0.1 to 86400)\n"
	"  -n, --iterations N       stop after N frames\n"
	"  -H, --held               the held view (a walk of every buffer: all\n"
	"                           regions and drivers, shared bytes) instead of\n"
	"                           the charged view (VRAM/GTT counters); see\n"
	"                           gpumemctl ps --help\n"
	"  -b, --bytes              exact byte counts\n";

static volatile sig_atomic_t got_signal, got_winch, got_tstp;
static struct termios saved_tio;
static bool tty_raw, cursor_hidden;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_winch(int sig)
{
	(void)sig;
	got_winch = 1;
}

static void on_tstp(int sig)
{
	(void)sig;
	got_tstp = 1;
}

static void restore_terminal(void)
{
	if (cursor_hidden) {
		fputs("\033[?25h", stdout);
		fflush(stdout);
		cursor_hidden = false;
	}
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
		tty_raw = false;
	}
}

/* Key presses without Enter and without echo; signals (Ctrl-C) still work. */
static void terminal_raw(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return;
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
		tty_raw = true;
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* On a terminal: redraw on SIGWINCH, suspend cleanly on SIGTSTP. */
static void catch_tty_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
}

static void screen_enter(bool keys)
{
	if (keys)
		terminal_raw();
	fputs("\033[?25l\033[2J", stdout);	/* hide the cursor, clear */
	fflush(stdout);
	cursor_hidden = true;
}

/*
 * Ctrl-Z: give the terminal back as it was, stop with the default action,
 * and take it again after fg (SIGCONT lets raise() return).
 */
static void suspend(bool keys)
{
	struct sigaction sa, old;

	got_tstp = 0;
	fputs("\033[H\033[2J", stdout);
	restore_terminal();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTSTP, &sa, &old);
	raise(SIGTSTP);
	sigaction(SIGTSTP, &old, NULL);
	screen_enter(keys);
}

static int cmp_vram(const void *a, const void *b)
{
	const struct gm_proc *x = a, *y = b;
	uint64_t tx = 0, ty = 0;
	int r;

	if (x->usage[GPUMEM_REGION_VRAM] != y->usage[GPUMEM_REGION_VRAM])
		return x->usage[GPUMEM_REGION_VRAM] > y->usage[GPUMEM_REGION_VRAM] ? -1 : 1;
	for (r = 0; r < GM_NREGIONS; r++) {
		tx += x->usage[r];
		ty += y->usage[r];
	}
	if (tx != ty)
		return tx > ty ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->dev_id < y->dev_id ? -1 : x->dev_id > y->dev_id;
}

/* devices' fields (gm_dev_fieldset()) without the wide ones */
static void device_table(FILE *f, const struct gm_dev_list *devs, bool exact)
{
	struct gm_fields fs = gm_dev_fieldset(exact);
	struct gm_dev_row *rows;
	size_t n;

	fs.skip |= GM_F_WIDE;	/* (and the dmem fields: gm_dev_fieldset()) */
	rows = gm_dev_rows(devs, &n);
	gm_fields_table(f, &fs, rows, n, sizeof(*rows), 0);	/* ENOMEM: no rows */
	free(rows);
}

/*
 * The process rows, at most @max_rows of them (0: all); a last line counts
 * what did not fit. ps's fields (gm_proc_fieldset()), without the wide ones
 * (OWNED): the charged view fills no SYSTEM, OTHER or SHARED, and its field
 * list leaves them out.
 */
static void process_table(FILE *f, const struct gm_proc_list *procs, bool held, bool exact,
			  size_t max_rows)
{
	struct gm_fields fs = gm_proc_fieldset(held, exact);
	size_t shown;

	fs.skip = GM_F_WIDE;
	shown = max_rows && procs->n > max_rows ? max_rows - 1 : procs->n;
	gm_fields_table(f, &fs, procs->v, shown, sizeof(*procs->v), 0);	/* ENOMEM: no rows */
	if (shown < procs->n)
		fprintf(f, "... %zu more row%s (a larger window shows them)\n", procs->n - shown,
			procs->n - shown == 1 ? "" : "s");
}

/*
 * Processes, not rows: a process on two devices has two rows, adjacent in
 * @procs (gm_procs_sort()'s order).
 */
static size_t count_processes(const struct gm_proc_list *procs)
{
	size_t i, n = 0;

	for (i = 0; i < procs->n; i++)
		n += !i || procs->v[i].pid != procs->v[i - 1].pid;
	return n;
}

/*
 * Put a frame on a terminal: home, every line cut to the width and cleared
 * to its end, the rest of the screen cleared. No flicker, no wrapping.
 */
static void draw(const char *frame, size_t cols)
{
	size_t col = 0;
	const char *p;

	fputs("\033[H", stdout);
	for (p = frame; *p; p++) {
		if (*p == '\n') {
			fputs("\033[K\n", stdout);
			col = 0;
			continue;
		}
		if (((unsigned char)*p & 0xc0) != 0x80)
			col++;
		if (col <= cols)
			fputc(*p, stdout);
	}
	fputs("\033[J", stdout);
	fflush(stdout);
}

/* Wait up to ms; true if the user asked to quit (q, or a signal). */
static bool wait_or_quit(unsigned int ms, bool keys)
{
	struct timespec now, end;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	for (;;) {
		long left;
		int n;

		if (got_signal)
			return true;
		if (got_winch || got_tstp)
			return false;	/* redraw now (after a suspension) */
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long)(end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000L;
		if (left <= 0)
			return false;
		n = poll(keys ? &pfd : NULL, keys ? 1 : 0, (int)left);
		if (n > 0) {
			char c;

			if (read(STDIN_FILENO, &c, 1) == 1 && (c == 'q' || c == 'Q'))
				return true;
			if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
				keys = false;
		}
	}
}

int cmd_top(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "held", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct gm_proc_filter all = { 0 };
	unsigned int interval = 2000;
	uint64_t iterations = 0, frame;
	struct gm_nl nl = { 0 };
	char err[GM_ERR_LEN];
	bool tty, keys;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS "i:n:H", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_interval(optarg, &interval, err, sizeof(err)) < 0)
				return gm_usage_error("top", "%s", err);
			break;
		case 'n':
			if (parse_count(optarg, "number of iterations", &iterations, err, sizeof(err)) < 0)
				return gm_usage_error("top", "%s", err);
			break;
		case 'H':
			all.held = true;
			break;
		default:
			ret = gm_common_opt(c, "top", argv, o, help);
			if (ret != GM_OPT_NEXT)
				return ret;
		}
	}
	ret = gm_no_operands("top", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (o->json)
		return gm_usage_error("top", "top has no JSON output (use ps --json)");

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;

	tty = isatty(STDOUT_FILENO);
	keys = tty && isatty(STDIN_FILENO);
	catch_signals();
	atexit(restore_terminal);
	if (tty) {
		catch_tty_signals();
		screen_enter(keys);
	}

	ret = GM_EXIT_OK;
	for (frame = 1; !got_signal; frame++) {
		size_t nproc;
		struct gm_dev_list devs;
		struct gm_proc_list procs;
		struct winsize ws = { .ws_row = 24, .ws_col = 80 };
		char stamp[32], iv[32], *buf = NULL;
		size_t len = 0, max_rows = 0;
		time_t now = time(NULL);
		FILE *f;

		if (gm_get_devices(&nl, &devs) < 0) {
			restore_terminal();
			ret = gm_report(&nl, "devices");
			break;
		}
		if (gm_get_procs(&nl, &all, &procs) < 0) {
			gm_dev_list_free(&devs);
			restore_terminal();
			ret = gm_report(&nl, "processes");
			break;
		}
		gm_procs_sort(&procs);
		nproc = count_processes(&procs);
		if (procs.n)
			qsort(procs.v, procs.n, sizeof(*procs.v), cmp_vram);

		f = open_memstream(&buf, &len);
		if (!f) {
			gm_dev_list_free(&devs);
			gm_proc_list_free(&procs);
			restore_terminal();
			ret = gm_error("out of memory");
			break;
		}
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		snprintf(iv, sizeof(iv), "%u.%u", interval / 1000, interval % 1000 / 100);
		fprintf(f, "gpumemctl top - %s - every %ss - %zu process%s%s\n\n", stamp, iv,
			nproc, nproc == 1 ? "" : "es", keys ? " - q quits" : "");
		device_table(f, &devs, o->bytes);
		fputc('\n', f);
		if (tty) {
			/* title, blank, device header, blank, process header */
			size_t i, used = 5;

			ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
			for (i = 0; i < devs.n; i++)
				used += devs.v[i].nregions ? devs.v[i].nregions : 1;
			max_rows = ws.ws_row > used + 1 ? ws.ws_row - used - 1 : 1;
		}
		process_table(f, &procs, all.held, o->bytes, max_rows);
		fclose(f);
		gm_dev_list_free(&devs);
		gm_proc_list_free(&procs);

		if (tty) {
			draw(buf, ws.ws_col ? ws.ws_col : 80);
		} else {
			if (frame > 1)
				fputc('\n', stdout);
			fputs(buf, stdout);
			fflush(stdout);
		}
		free(buf);
		if (iterations && frame >= iterations)
			break;
		if (wait_or_quit(interval, keys))
			break;
		if (got_tstp)
			suspend(keys);
		got_winch = 0;
	}
	restore_terminal();
	gm_nl_close(&nl);
	return ret;
}
