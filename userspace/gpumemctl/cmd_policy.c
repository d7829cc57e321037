// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_policy.c - `gpumemctl policy check`: what the node policy and a
 * container's annotations give it (the decision gpumem-oci-hook would
 * apply, libgpumem/policy.h), from a Kubernetes Pod, an OCI state or an
 * OCI config.json. Reads files only; needs no module.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "annotations.h"
#include "gpumemctl.h"
#include "output.h"
#include "policy.h"
#include "query.h"

static const char help[] =
	"Usage: gpumemctl policy check [--policy FILE] [--json] POD-OR-STATE\n"
	"\n"
	"Explain the GPU memory limits a container gets from the node policy and its\n"
	"annotations, as gpumem-oci-hook would set them: the container's limit (on\n"
	"all devices or those gpumem.io/devices names), the pod's limit, the mode,\n"
	"and where each comes from. POD-OR-STATE is a JSON file (- for standard\n"
	"input): a Kubernetes Pod (kubectl get pod NAME -o json; its namespace is\n"
	"metadata.namespace), an OCI state or an OCI config.json (their\n"
	"annotations, the runtime's io.kubernetes.* ones included).\n"
	"\n"
	"  --policy FILE   the policy file (default " GM_POLICY_PATH "; none if\n"
	"                  that does not exist)\n"
	"  -j, --json      one JSON object\n"
	"  -b, --bytes     exact byte counts\n"
	"\n"
	"Exit status: 0 the container would start (with these limits), 1 it would be\n"
	"refused (the reason on stderr) or a file cannot be read, 2 bad usage.\n";

static void print_limit(const struct gm_opts *o, const char *what,
			const struct gm_policy_limit *l, const char *devices)
{
	char max[32], high[32];

	if (!l->set) {
		printf("%-10s none\n", what);
		return;
	}
	printf("%-10s max %s  high %s  mode %s%s%s\n", what,
	       l->has_max ? fmt_bytes(max, sizeof(max), l->max, o->bytes) : "-",
	       l->has_high ? fmt_bytes(high, sizeof(high), l->high, o->bytes) : "-",
	       l->mode == GPUMEM_LIMIT_MODE_MONITOR ? "monitor" : "enforce",
	       devices ? "  devices " : "", devices ? devices : "");
}

static void json_limit(struct jw *w, const char *key, const struct gm_policy_limit *l)
{
	jw_key(w, key);
	if (!l->set) {
		jw_null(w);
		return;
	}
	jw_object_begin(w);
	if (l->has_max)
		jw_kv_u64(w, "max", l->max);
	else
		jw_kv_null(w, "max");
	if (l->has_high)
		jw_kv_u64(w, "high", l->high);
	else
		jw_kv_null(w, "high");
	jw_kv_string(w, "mode", l->mode == GPUMEM_LIMIT_MODE_MONITOR ? "monitor" : "enforce");
	jw_object_end(w);
}

static void print_json(const struct gm_policy_decision *d, const char *policy, bool loaded)
{
	char copy[sizeof(d->note)], *line, *save = NULL;
	struct jw w;

	jw_init(&w, stdout);
	jw_object_begin(&w);
	jw_kv_string(&w, "policy", loaded ? policy : NULL);
	jw_kv_string(&w, "namespace", d->kubernetes ? d->ns : NULL);
	json_limit(&w, "container", &d->ctr);
	jw_kv_string(&w, "devices", d->devices);
	json_limit(&w, "all_devices", &d->ctr_all);
	json_limit(&w, "pod", &d->pod);
	jw_kv_bool(&w, "lowered", d->clamped);
	jw_key(&w, "notes");
	jw_array_begin(&w);
	snprintf(copy, sizeof(copy), "%s", d->note);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		jw_string(&w, line);
	jw_array_end(&w);
	jw_object_end(&w);
	jw_finish(&w);
}

static int policy_check(int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		{ "policy", required_argument, NULL, 'P' },
		GM_COMMON_LONGOPTS, { NULL, 0, NULL, 0 }
	};
	const char *policy = GM_POLICY_PATH, *file;
	struct gm_annotations *ann = NULL;
	struct gm_policy_decision d;
	struct json_object *doc;
	struct gm_policy pol;
	bool given = false;
	char err[512];
	int c, ret;

	while ((c = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		if (c == 'P') {
			policy = optarg;
			given = true;
			continue;
		}
		ret = gm_common_opt(c, "policy check", argv, o, help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	if (optind + 1 != argc)
		return gm_usage_error("policy check", optind < argc ?
				      "one POD-OR-STATE file, not more" :
				      "which pod or OCI state? (a JSON file, - for stdin)");
	file = argv[optind];
	if (gm_policy_load(policy, !given, &pol, err, sizeof(err)) < 0)
		return gm_error("%s", err);
	doc = strcmp(file, "-") == 0 ? json_object_from_fd(0) : json_object_from_file(file);
	if (!doc) {
		gm_policy_free(&pol);
		return gm_error("%s: not a JSON document: %s", file, json_util_get_last_err());
	}
	ret = GM_EXIT_ERROR;
	ann = malloc(sizeof(*ann));
	if (!ann) {
		gm_error("out of memory");
		goto out;
	}
	if (gm_annotations_read(doc, ann, err, sizeof(err)) < 0) {
		gm_error("%s: %s", file, err);
		goto out;
	}
	if (gm_policy_decide(&pol, ann->a, ann->n, &d, err, sizeof(err)) < 0) {
		gm_error("refused: %s", err);
		goto out;
	}
	if (o->json) {
		print_json(&d, policy, pol.loaded);
	} else {
		char copy[sizeof(d.note)], *line, *save = NULL;

		printf("%-10s %s\n", "policy", pol.loaded ? policy : "none");
		print_limit(o, "container", &d.ctr, d.devices);
		if (d.ctr_all.set)
			print_limit(o, "all-devs", &d.ctr_all, NULL);
		print_limit(o, "pod", &d.pod, NULL);
		snprintf(copy, sizeof(copy), "%s", d.note);
		for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("  %s\n", line);
	}
	ret = GM_EXIT_OK;
out:
	free(ann);
	json_object_put(doc);
	gm_policy_free(&pol);
	return ret;
}

int cmd_policy(int argc, char **argv, struct gm_opts *o)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		if (argc < 2)
			return gm_usage_error("policy", "which subcommand? (check)");
		fputs(help, stdout);
		return GM_EXIT_OK;
	}
	if (strcmp(argv[1], "check") != 0)
		return gm_usage_error("policy", "unknown subcommand '%s' (check)", argv[1]);
	return policy_check(argc - 1, argv + 1, o);
}
