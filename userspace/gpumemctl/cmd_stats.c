// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_stats.c - `gpumemctl stats`: the counters of gpumem's walker and its
 * hook statistics (their fields: stats_fields.c, gpumemd's metrics too).
 */
#include <getopt.h>
#include <stdio.h>

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
	"hook_unattributed (placements charged to nobody), hook_resv_released\n"
	"(reservations a driver kept after a denial, released by gpumem),\n"
	"hook_live_records (charge records alive now), and dmem_unwatched (calls of\n"
	"dmem_cgroup_try_charge() gpumem's probe missed: a dmem refusal among them\n"
	"sent no event); - (JSON: null or left out) from a module without them.\n"
	"\n"
	"  -j, --json    one JSON object with those keys\n";

int cmd_stats(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = { GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	struct gm_fields fs = gm_stats_fieldset();
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
