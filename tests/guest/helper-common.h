/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every static test helper here needs (gpumem-alloc, quota-alloc,
 * quota-listen): die() with the program's name, a flag set by the
 * termination signals, and a monotonic clock in nanoseconds. Each helper
 * is one program, so these are static to it. Include after _GNU_SOURCE.
 */
#ifndef GM_HELPER_COMMON_H
#define GM_HELPER_COMMON_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The termination signal received, 0 until then. */
static volatile sig_atomic_t stop_signal;

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static inline void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static inline void on_signal(int sig)
{
	stop_signal = sig;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* GM_HELPER_COMMON_H */
