/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumemctl.h - what the subcommands share: exit codes, global options and
 * the subcommand entry points (cmd_*.c).
 */
#ifndef GPUMEMCTL_H
#define GPUMEMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes (gpumemctl(8), --help). */
enum {
	GM_EXIT_OK = 0,
	GM_EXIT_ERROR = 1,	/* any other failure */
	GM_EXIT_USAGE = 2,	/* bad command line */
	GM_EXIT_NOMODULE = 3,	/* generic netlink family "gpumem" not found */
	GM_EXIT_PERM = 4,	/* EPERM/EACCES from the kernel */
};

/* Options that every subcommand accepts, before or after its name. */
struct gm_opts {
	bool json;		/* --json */
	bool bytes;		/* --bytes: exact byte counts in tables */
};

/*
 * Subcommands: argv[0] is the subcommand's name; they parse their own
 * options (and the global ones again) and return an exit code.
 */
int cmd_devices(int argc, char **argv, struct gm_opts *o);
int cmd_ps(int argc, char **argv, struct gm_opts *o);
int cmd_buffers(int argc, char **argv, struct gm_opts *o);
int cmd_orphans(int argc, char **argv, struct gm_opts *o);
int cmd_leaks(int argc, char **argv, struct gm_opts *o);
int cmd_top(int argc, char **argv, struct gm_opts *o);
int cmd_stats(int argc, char **argv, struct gm_opts *o);
int cmd_export(int argc, char **argv, struct gm_opts *o);
int cmd_limit(int argc, char **argv, struct gm_opts *o);
int cmd_cgroups(int argc, char **argv, struct gm_opts *o);
int cmd_watch(int argc, char **argv, struct gm_opts *o);
int cmd_policy(int argc, char **argv, struct gm_opts *o);
int cmd_cdi(int argc, char **argv, struct gm_opts *o);

/* --- helpers for the subcommands (gpumemctl.c) --- */

/* "gpumemctl SUB: message" and a --help hint on stderr; GM_EXIT_USAGE */
int gm_usage_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "gpumemctl: message" on stderr; GM_EXIT_ERROR */
int gm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Options every subcommand takes: put GM_COMMON_LONGOPTS in its struct
 * option array and GM_COMMON_SHORTOPTS at the start of its short options,
 * and hand every getopt_long() result it does not know itself to
 * gm_common_opt(), which returns GM_OPT_NEXT to go on or an exit code
 * (0 after --help, 2 for an unknown option or a missing argument).
 */
#define GM_COMMON_SHORTOPTS ":hjb"
#define GM_COMMON_LONGOPTS \
	{ "json", no_argument, NULL, 'j' }, \
	{ "bytes", no_argument, NULL, 'b' }, \
	{ "help", no_argument, NULL, 'h' }
#define GM_OPT_NEXT (-1)
int gm_common_opt(int c, const char *sub, char **argv, struct gm_opts *o, const char *help);
/* after getopt_long(): 2 (with a message) if an operand is left, else GM_OPT_NEXT */
int gm_no_operands(const char *sub, int argc, char **argv);

struct gm_nl;
/*
 * gm_report (report.c): print the failure of request WHAT to stderr
 * ("gpumemctl: WHAT: strerror: extack message", the missing attribute by
 * name, advice for EPERM and EOPNOTSUPP, or why the module is not there)
 * and return the exit code for it (3 module not loaded, 4 permission
 * denied, 1 otherwise).
 */
int gm_report(const struct gm_nl *nl, const char *what);
/* name of attribute TYPE in CMD's request, for error messages */
const char *gm_attr_name(uint8_t cmd, int type);

/* gm_nl_open(); GM_OPT_NEXT, or the exit code after printing why not */
int gm_connect(struct gm_nl *nl);

struct dev_spec;
/*
 * The id of the device a --device argument names (gpumem's device list);
 * GM_OPT_NEXT, or the exit code after printing why not (2: no such device).
 */
int gm_device_arg(struct gm_nl *nl, const char *sub, const struct dev_spec *spec,
		  const char *arg, uint32_t *id);

#endif
