// SPDX-License-Identifier: GPL-2.0
/*
 * gpumemctl.c - command line of gpumemctl: global options, dispatch to the
 * subcommands (cmd_*.c), help and the helpers they share.
 */
#include "gpumemctl.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libgpumem.h"
#include "nl.h"
#include "parse.h"
#include "query.h"

static const char main_help[] =
	"Usage: gpumemctl [OPTIONS] COMMAND [COMMAND OPTIONS]\n"
	"\n"
	"Show GPU memory per DRM device, process and cgroup, as accounted by the\n"
	"gpumem kernel module (generic netlink family \"gpumem\").\n"
	"\n"
	"Commands:\n"
	"  devices                    devices and their memory regions\n"
	"  ps [-p PID] [-d DEV] [-c CGROUP] [-H]\n"
	"                             memory per process and device (-H: the held\n"
	"                             view, a walk of every client and buffer)\n"
	"  buffers -p PID [-d DEV] [--min-size SIZE]\n"
	"                             buffers one process holds (CAP_NET_ADMIN)\n"
	"  orphans                    memory whose allocating process has exited,\n"
	"                             and who keeps it now (CAP_NET_ADMIN)\n"
	"  leaks                      processes and cgroups suspected of leaking\n"
	"                             now (CAP_NET_ADMIN)\n"
	"  top [-i SECONDS] [-n FRAMES]\n"
	"                             refreshing view, sorted by VRAM; q quits\n"
	"  stats                      counters of gpumem's walker\n"
	"  cgroups [-d DEV]           memory charged per cgroup, device and region,\n"
	"                             with the limits set there\n"
	"  limit set CGROUP [--max SIZE] [--high SIZE] [--mode enforce|monitor]\n"
	"            [--replace] [-d DEV] [-r REGION]\n"
	"  limit get|clear CGROUP [-d DEV] [-r REGION]\n"
	"  limit list                 set, show, remove and list the GPU memory\n"
	"                             limits of cgroups (CAP_NET_ADMIN)\n"
	"  watch [-n COUNT] [-t SECONDS] [-T TYPE,...]\n"
	"                             print quota and leak events as they come (root)\n"
	"  export --prometheus [-o FILE]\n"
	"                             metrics in the Prometheus text format\n"
	"  policy check [--policy FILE] POD-OR-STATE\n"
	"                             the limits the node policy and a pod's or\n"
	"                             container's annotations give it (no module)\n"
	"  cdi generate [-o FILE]     a CDI spec of the GPUs (gpumem.io/gpu=PCI),\n"
	"                             each with gpumem-oci-hook (no module)\n"
	"  help [COMMAND]             this help, or a command's\n"
	"\n"
	"Options (also accepted after COMMAND):\n"
	"  -j, --json      JSON instead of a table (bytes always exact)\n"
	"  -b, --bytes     exact byte counts instead of KiB/MiB/GiB\n"
	"  -h, --help      this help; COMMAND --help for a command's\n"
	"  -V, --version   print the version\n"
	"\n"
	"DEV is cardN, N or a PCI address (0000:00:02.0); CGROUP a cgroup v2\n"
	"directory, absolute or relative to the cgroup2 mount; SIZE bytes or with\n"
	"a suffix K, M, G, T (KiB, MiB, GiB, TiB: powers of 1024); REGION vram,\n"
	"gtt, system or other.\n"
	"\n"
	"Exit status: 0 success, 1 other error, 2 bad usage, 3 gpumem module not\n"
	"loaded, 4 permission denied.\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv, struct gm_opts *o);
} commands[] = {
	{ "devices", cmd_devices },
	{ "ps", cmd_ps },
	{ "buffers", cmd_buffers },
	{ "orphans", cmd_orphans },
	{ "leaks", cmd_leaks },
	{ "top", cmd_top },
	{ "stats", cmd_stats },
	{ "export", cmd_export },
	{ "cgroups", cmd_cgroups },
	{ "limit", cmd_limit },
	{ "watch", cmd_watch },
	{ "policy", cmd_policy },
	{ "cdi", cmd_cdi },
};

#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

int gm_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "gpumemctl%s%s: ", sub ? " " : "", sub ? sub : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'gpumemctl%s%s --help'.\n", sub ? " " : "", sub ? sub : "");
	return GM_EXIT_USAGE;
}

int gm_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("gpumemctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return GM_EXIT_ERROR;
}

int gm_common_opt(int c, const char *sub, char **argv, struct gm_opts *o, const char *help)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	switch (c) {
	case 'j':
		o->json = true;
		return GM_OPT_NEXT;
	case 'b':
		o->bytes = true;
		return GM_OPT_NEXT;
	case 'h':
		fputs(help, stdout);
		return GM_EXIT_OK;
	case ':':
		return gm_usage_error(sub, "option '%s' needs an argument", arg);
	case '?':
		if (optopt && optopt != '?' && strncmp(arg, "--", 2) != 0)
			return gm_usage_error(sub, "unknown option '-%c'", optopt);
		return gm_usage_error(sub, "unknown option '%s'", arg);
	default:
		return gm_usage_error(sub, "unexpected option '%s'", arg);
	}
}

int gm_no_operands(const char *sub, int argc, char **argv)
{
	if (optind < argc)
		return gm_usage_error(sub, "unexpected argument '%s'", argv[optind]);
	return GM_OPT_NEXT;
}

int gm_connect(struct gm_nl *nl)
{
	if (gm_nl_open(nl) < 0)
		return gm_report(nl, "cannot talk to the kernel");
	return GM_OPT_NEXT;
}

int gm_device_arg(struct gm_nl *nl, const char *sub, const struct dev_spec *spec,
		  const char *arg, uint32_t *id)
{
	struct gm_dev_list devs;
	char err[GM_ERR_LEN];
	uint32_t v;
	int ret;

	if (gm_get_devices(nl, &devs) < 0)
		return gm_report(nl, "devices");
	ret = resolve_device(spec, arg, &devs, &v, err, sizeof(err));
	gm_dev_list_free(&devs);
	if (ret < 0)
		return gm_usage_error(sub, "%s", err);
	*id = v;
	return GM_OPT_NEXT;
}

static int run(int argc, char **argv, struct gm_opts *o)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[0], commands[i].name) == 0) {
			optind = 0;	/* full reset for the command's getopt_long() */
			return commands[i].fn(argc, argv, o);
		}
	return gm_usage_error(NULL, "unknown command '%s'", argv[0]);
}

static int help_cmd(int argc, char **argv, struct gm_opts *o)
{
	char *hargv[] = { argv[1], "--help", NULL };

	if (argc < 2) {
		fputs(main_help, stdout);
		return GM_EXIT_OK;
	}
	if (argc > 2)
		return gm_usage_error("help", "unexpected argument '%s'", argv[2]);
	if (strcmp(argv[1], "help") == 0) {
		fputs("Usage: gpumemctl help [COMMAND]\n"
		      "\n"
		      "Without COMMAND, gpumemctl's help; with it, that command's (as\n"
		      "gpumemctl COMMAND --help).\n", stdout);
		return GM_EXIT_OK;
	}
	return run(2, hargv, o);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct gm_opts o = { 0 };
	int c, ret;

	opterr = 0;	/* we print the messages */
	while ((c = getopt_long(argc, argv, "+" GM_COMMON_SHORTOPTS "V", opts, NULL)) != -1) {
		if (c == 'V') {
			printf("gpumemctl %s\n", gm_version);
			return GM_EXIT_OK;
		}
		ret = gm_common_opt(c, NULL, argv, &o, main_help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	if (optind >= argc)
		return gm_usage_error(NULL, "no command given");
	if (strcmp(argv[optind], "help") == 0)
		ret = help_cmd(argc - optind, argv + optind, &o);
	else
		ret = run(argc - optind, argv + optind, &o);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "gpumemctl: write error: %s\n", strerror(errno));
		return ret ? ret : GM_EXIT_ERROR;
	}
	return ret;
}
