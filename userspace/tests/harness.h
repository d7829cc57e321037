/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - what the parts of test_gpumemctl share: the includes, the
 * result counters and checks, and running gpumemctl as a child. Each
 * test_*.c holds the tests of one concept; test_main.c runs them in order.
 */
#ifndef GM_TEST_HARNESS_H
#define GM_TEST_HARNESS_H

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "../libgpumem/fields.h"
#include "../gpumemctl/gpumemctl.h"
#include "../libgpumem/nl.h"
#include "../libgpumem/output.h"
#include "../libgpumem/parse.h"
#include "../libgpumem/query.h"
#include "../libgpumem/quota.h"


extern int npass, nfail, ntest;

void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void skip(const char *what, const char *why);
void eq_str(const char *what, const char *got, const char *want);
void eq_u64(const char *what, uint64_t got, uint64_t want);

/* A memory FILE whose contents the check reads. */
struct mem { char *buf; size_t len; FILE *f; };
FILE *mem_open(struct mem *m);
char *mem_close(struct mem *m);

/* A finished child: exit status (128 + signal), its stdout and stderr. */
struct run { int status; char out[32768], err[4096]; };
/* Run the tool with args (NULL-terminated), stdout/stderr to temp files. */
void run_tool(const char *tool, struct run *res, const char *const *args);
/* The same; with sig, send it to the tool after_ms milliseconds in. */
void run_tool_sig(const char *tool, struct run *res, const char *const *args,
		  int sig, unsigned int after_ms);
/* the simulated gpumemctl with GM_FAKE=mode (NULL: none) */
void run_fake(const char *fake, const char *mode, struct run *r, const char *const *args);
/* the simulated gpumemctl's output is exactly want, exit 0, nothing on stderr */
void golden(const char *fake, const char *const *args, const char *want);
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
/* out without the "YYYY-MM-DD HH:MM:SS " that starts each line (malloc'ed) */
char *strip_times(const char *out);
long long mono_ms(void);
/* all of fd (up to size - 1 bytes) into buf, NUL-terminated */
void slurp(int fd, char *buf, size_t size);

/* the tests, one concept per file */
void test_units(void);
void test_term_safe(void);
void test_utf8(void);
void test_table(void);
void test_json_escape(void);
void test_card_name(void);
void test_json_writer(void);
void test_prometheus(void);
void test_fields(void);
void test_fields_prom(void);
void test_parse_pid(void);
void test_parse_interval_count(void);
void test_parse_size(void);
void test_parse_limit_size(void);
void test_parse_region_mode(void);
void test_dmem(void);
void test_parse_device(void);
void test_resolve_device(void);
void test_resolve_cgroup(void);
void test_parse_replies(void);
void test_proc_parse(void);
void test_procs_sort(void);
void test_parse_quota_replies(void);
void test_attr_fields(void);
void test_quota_output(void);
void test_family_gone(void);
void test_ext_ack(void);
void test_reply_loop(void);
void test_live_netlink(void);
void test_cli(const char *tool);
void test_commands(const char *fake);
void test_watch_flush(const char *fake);
void test_quota_commands(const char *fake);
void test_hook(const char *hook);
void test_policy_cmd(const char *ctl);

#endif
