/* SPDX-License-Identifier: GPL-2.0 */
/*
 * quota.h - how gpumemctl prints limits, per-cgroup usage and quota events
 * (tables, JSON, one line per event). No netlink here: the unit tests call
 * these directly.
 */
#ifndef GPUMEMCTL_QUOTA_H
#define GPUMEMCTL_QUOTA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "output.h"
#include "query.h"

/* "cardN", or "all" for a limit on all devices; buf: 16 bytes */
const char *gm_limit_device(const struct gm_limit *l, char *buf);

/*
 * The table of limits or of cgroup usage rows:
 * DEVICE REGION USAGE MAX HIGH USE% MODE DENIED CGROUP (USE% of max; "-"
 * for what the kernel did not send). 0 or -ENOMEM.
 */
int gm_limits_table(FILE *f, const struct gm_limit_list *l, bool exact);

/*
 * One limit as a JSON object: cgroup_id, cgroup, device ("cardN" or "all"),
 * region, usage, max, high, mode, denied (null when not sent).
 */
void gm_limit_json(struct jw *w, const struct gm_limit *l);
/* a JSON array of them, one per line */
void gm_limits_json(FILE *f, const struct gm_limit_list *l);
/*
 * The Prometheus families gpumem_cgroup_usage_bytes{cgroup,device,region}
 * and gpumem_cgroup_limit_bytes{cgroup,device,region,kind="max"|"high"}.
 */
void gm_limits_prom(FILE *f, const struct gm_limit_list *l);
/* the fields of a limit row, listed once for all of these */
struct gm_fields gm_limit_fieldset(bool exact);

/* --- events ------------------------------------------------------------ */

/* (gm_seq and gm_receive_event() are libgpumem's: query.h) */

/*
 * The device of an event about a limit on all devices (gpumem sends its
 * internal "all devices" number, -1, as the u32 dev-id): shown as "all".
 */
#define GM_EVENT_ALL_DEVICES UINT32_MAX

/*
 * gm_event_line: one line for a person (with the newline), e.g.
 *   2025-11-22 01:24:05 quota-exceeded cgroup /test/a pid 812 (gpumem-alloc)
 *   card0 vram: requested 4.0 MiB, usage 60.0 MiB, max 64.0 MiB; denied
 *   (enforce); 3 suppressed
 * (on one line). when is the local time it was received; exact prints bytes.
 * "denied"/"allowed" is said for quota-exceeded and high-crossed events, and
 * for any other event only when it was denied.
 * Strings from the kernel are made terminal-safe (term_safe()).
 */
void gm_event_line(FILE *f, const struct gm_event *e, const struct timespec *when, bool exact);

/*
 * gm_event_json: one JSON object and a newline: time (UTC, RFC 3339 with
 * milliseconds), seq, type, cgroup_id, cgroup, pid, comm, device, region,
 * requested, usage, limit, mode, denied (boolean), suppressed, missed (events
 * missed before this one, from seq); null for what was not sent.
 */
void gm_event_json(FILE *f, const struct gm_event *e, const struct timespec *when,
		   uint64_t missed);

/* "TIME warning: N events missed (seq A to B not received)" and a newline */
void gm_missed_line(FILE *f, const struct timespec *when, uint64_t missed, uint64_t first);

/* "2025-11-22 01:24:05" (local time); buf: 32 bytes */
char *gm_local_time(char *buf, size_t len, const struct timespec *when);

#endif
