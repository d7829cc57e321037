// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_stats.c - `gpumemctl stats`: the counters of gpumem's walker.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

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
	"devices.\n"
	"\n"
	"  -j, --json    one JSON object with those keys\n";

int cmd_stats(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = { GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 } };
	static const char *const hdr[] = { "NAME", "VALUE" };
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
		ret = gm_nl_report(&nl, "stats");
		gm_nl_close(&nl);
		return ret;
	}
	gm_nl_close(&nl);

	if (o->json) {
		struct jw w;

		jw_init(&w, stdout);
		jw_object_begin(&w);
		jw_kv_u64(&w, "walks", s.walks);
		jw_kv_u64(&w, "walks_failed", s.walks_failed);
		jw_kv_u64(&w, "last_walk_ns", s.last_walk_ns);
		jw_kv_u64(&w, "last_walk_clients", s.last_walk_clients);
		jw_kv_u64(&w, "last_walk_bos", s.last_walk_bos);
		jw_kv_u64(&w, "last_walk_skipped", s.last_walk_skipped);
		jw_kv_u64(&w, "devices", s.devices);
		jw_object_end(&w);
		jw_finish(&w);
	} else {
		char v[7][48], d[32];
		const char *rows[7][2] = {
			{ "walks", v[0] }, { "walks_failed", v[1] }, { "last_walk_ns", v[2] },
			{ "last_walk_clients", v[3] }, { "last_walk_bos", v[4] },
			{ "last_walk_skipped", v[6] }, { "devices", v[5] },
		};
		struct table t;
		int i;

		snprintf(v[0], sizeof(v[0]), "%" PRIu64, s.walks);
		snprintf(v[1], sizeof(v[1]), "%" PRIu64, s.walks_failed);
		snprintf(v[2], sizeof(v[2]), "%" PRIu64 " (%s)", s.last_walk_ns,
			 fmt_ns(d, sizeof(d), s.last_walk_ns));
		snprintf(v[3], sizeof(v[3]), "%" PRIu64, s.last_walk_clients);
		snprintf(v[4], sizeof(v[4]), "%" PRIu64, s.last_walk_bos);
		snprintf(v[5], sizeof(v[5]), "%u", s.devices);
		snprintf(v[6], sizeof(v[6]), "%" PRIu64, s.last_walk_skipped);
		tbl_init(&t, 2, hdr, "ll");
		for (i = 0; i < 7; i++)
			if (tbl_add(&t, rows[i]) < 0) {
				tbl_free(&t);
				return gm_error("out of memory");
			}
		tbl_print(&t, stdout, 0);
		tbl_free(&t);
	}
	return GM_EXIT_OK;
}
