// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_stats.c - `gpumemctl stats`: the counters of gpumem's walker and its
 * hook statistics.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "../uapi/gpumem.h"
#include "fields.h"
#include "gpumemctl.h"
#include "output.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl stats [--json]\n"
	"\n"
	"Counters of gpumem's walker (one walk of every DRM client and buffer per\n"
	"snapshot): walks, walks_failed, last_walk_ns (duration of the last walk),\n"
	"last_walk_clients, last_walk_bos, last_walk_skipped (buffers whose placement\n"
	"the walk could not read: a driver kept them reserved), and the number of\n"
	"devices; then the hook statistics since the module was loaded:\n"
	"hook_charged and hook_uncharged (charge records tied to a placement and\n"
	"given back), hook_charge_failed (placements left unaccounted: gpumem had\n"
	"no memory), hook_denied (placements a limit refused), hook_guard_refused\n"
	"(evictions the eviction guard refused), hook_events_sent,\n"
	"hook_events_suppressed (rate limit) and hook_events_lost (sequence gaps),\n"
	"and hook_live_records (charge records alive now); - (JSON: null) from a\n"
	"module without them.\n"
	"\n"
	"  -j, --json    one JSON object with those keys\n";

#define STAT(key_, attr_, get_) \
	{ .key = (key_), GM_ATTR(struct gm_stats, raw, GPUMEM_A_STATS_##attr_), .get = (get_) }

/* The counters, once for the NAME VALUE table and the JSON object. */
static const struct gm_field stats_fields[] = {
	STAT("walks", WALKS, gm_get_attr_u64),
	STAT("walks_failed", WALKS_FAILED, gm_get_attr_u64),
	STAT("last_walk_ns", LAST_WALK_NS, gm_get_attr_ns),
	STAT("last_walk_clients", LAST_WALK_CLIENTS, gm_get_attr_u64),
	STAT("last_walk_bos", LAST_WALK_BOS, gm_get_attr_u64),
	STAT("last_walk_skipped", LAST_WALK_SKIPPED, gm_get_attr_u64),
	STAT("devices", DEVICES, gm_get_attr_u64),
	STAT("hook_charged", CHARGED, gm_get_attr_u64),
	STAT("hook_uncharged", UNCHARGED, gm_get_attr_u64),
	STAT("hook_charge_failed", CHARGE_FAILED, gm_get_attr_u64),
	STAT("hook_denied", DENIED, gm_get_attr_u64),
	STAT("hook_guard_refused", GUARD_REFUSED, gm_get_attr_u64),
	STAT("hook_events_sent", EVENTS_SENT, gm_get_attr_u64),
	STAT("hook_events_suppressed", EVENTS_SUPPRESSED, gm_get_attr_u64),
	STAT("hook_events_lost", EVENTS_LOST, gm_get_attr_u64),
	STAT("hook_live_records", LIVE_RECORDS, gm_get_attr_u64),
};

int cmd_stats(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = { GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct gm_fields fs = {
		.v = stats_fields, .n = sizeof(stats_fields) / sizeof(*stats_fields),
	};
	struct gm_nl nl = { 0 };
	struct gm_stats s;
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		ret = gm_common_opt(c, "stats", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands("stats", argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;

	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	if (gm_get_stats(&nl, &s) < 0) {
		ret = gm_report(&nl, "stats");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	ret = GM_EXIT_OK;
	if (o->json) {
		struct jw w;

		jw_init(&w, stdout);
		gm_fields_json(&w, &fs, &s);
		jw_finish(&w);
	} else if (gm_fields_kv_table(stdout, &fs, &s) < 0) {
		ret = gm_error("out of memory");
	}
	gm_stats_free(&s);
	return ret;
}
