// SPDX-License-Identifier: GPL-2.0
/*
 * test_policy.c - `gpumemctl policy check`: the decision the node policy
 * and a Pod's or OCI state's annotations make, exact, as text and JSON;
 * a tenant's own io.kubernetes. annotations are not the namespace; the
 * exit status of a refused container and of a bad policy.
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

static char dir[] = "/tmp/gm-policy.XXXXXX";

static int put(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f))
		return -1;
	return chmod(path, 0644);
}

void test_policy_cmd(const char *ctl)
{
	char pol[256], pod[256], greedy[256], state[256], cmd[300], want[2048];
	struct run r;

	if (!mkdtemp(dir) ||
	    put("policy.conf", "[defaults]\nvram.max = 1G\nvram.ceiling = 4G\n"
		"pod-vram.max = 6G\nover-ceiling = clamp\n\n[namespace:ml-team]\n"
		"vram.ceiling = 8G\n", pol, sizeof(pol)) ||
	    put("pod.json", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
		"\"namespace\":\"ml-team\",\"annotations\":{\"gpumem.io/vram.max\":\"6G\","
		"\"io.kubernetes.pod.namespace\":\"kube-system\"}}}", pod, sizeof(pod)) ||
	    put("greedy.json", "{\"kind\":\"Pod\",\"metadata\":{\"annotations\":"
		"{\"gpumem.io/vram.max\":\"64G\",\"gpumem.io/vram.high\":\"32G\"}}}",
		greedy, sizeof(greedy)) ||
	    put("state.json", "{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"pid\":1,\"annotations\":"
		"{\"gpumem.io/mode\":\"monitor\",\"gpumem.io/vram.max\":\"1G\"}}", state,
		sizeof(state))) {
		result(0, "policy check: cannot write the test files: %s", strerror(errno));
		return;
	}

	/* the Pod's namespace is metadata.namespace, not its own io.kubernetes. annotation */
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", pol, "--bytes", pod));
	result(r.status == 0, "policy check: a Pod within its namespace's ceiling: exit 0 (%d: %s)",
	       r.status, r.err);
	snprintf(want, sizeof(want), "policy     %s\n"
		 "container  max 6442450944  high -  mode enforce\n"
		 "pod        max 6442450944  high -  mode enforce\n"
		 "  namespace ml-team: its own section, then [defaults]\n"
		 "  mode: enforce\n"
		 "  vram.max: 6442450944 bytes, from the annotation\n"
		 "  pod-vram.max: 6442450944 bytes, the default of [defaults]\n", pol);
	eq_str("policy check: the Pod's limits and why, exact (namespace from metadata)", r.out,
	       want);

	/* over-ceiling = clamp: lowered to [defaults]' ceiling, high with it; JSON */
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", pol, "--json", greedy));
	snprintf(want, sizeof(want), "{\"policy\":\"%s\",\"namespace\":\"default\","
		 "\"container\":{\"max\":4294967296,\"high\":4294967296,\"mode\":\"enforce\"},"
		 "\"devices\":null,\"all_devices\":null,"
		 "\"pod\":{\"max\":6442450944,\"high\":null,\"mode\":\"enforce\"},"
		 "\"lowered\":true,\"notes\":[\"namespace default: no section of its own, "
		 "[defaults]\",\"mode: enforce\",\"vram.max: the annotation's 68719476736 bytes "
		 "lowered to the ceiling of [defaults], 4294967296 bytes\",\"vram.high: lowered to "
		 "the max with it\",\"vram.high: 4294967296 bytes, from the annotation\","
		 "\"pod-vram.max: 6442450944 bytes, the default of [defaults]\"]}\n", pol);
	result(r.status == 0, "policy check --json: exit 0 (%d: %s)", r.status, r.err);
	eq_str("policy check --json: clamped to the ceiling, exact", r.out, want);

	/* an OCI state; without a policy the annotations alone decide */
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", pol, "-b", state));
	result(r.status == 0 && strstr(r.out, "container  max 1073741824  high -  mode enforce\n") &&
	       strstr(r.out, "pod        none\n") &&
	       strstr(r.out, "mode: the annotation's monitor raised to the policy's enforce"),
	       "policy check: an OCI state, monitor raised to enforce under clamp (%s)", r.out);
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", "/nonexistent", state));
	result(r.status == 1 && strstr(r.err, "policy /nonexistent: No such file"),
	       "policy check: --policy that does not exist: exit 1 (%s)", r.err);

	/* refused: over-ceiling = refuse (the default) */
	if (put("refuse.conf", "[defaults]\nvram.ceiling = 4G\n", pol, sizeof(pol)))
		result(0, "policy check: cannot write refuse.conf");
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", pol, greedy));
	result(r.status == 1 && r.out[0] == '\0' &&
	       strstr(r.err, "refused: annotation gpumem.io/vram.max (68719476736 bytes) is above "
			     "the vram.max ceiling of [defaults] (4294967296 bytes)"),
	       "policy check: above the ceiling under refuse: exit 1, the reason (%s)", r.err);
	if (put("bad.conf", "[defaults]\nvram.ceiling = none\n", pol, sizeof(pol)))
		result(0, "policy check: cannot write bad.conf");
	run_tool(ctl, &r, ARGS("policy", "check", "--policy", pol, greedy));
	result(r.status == 1 && strstr(r.err, "bad.conf:2: vram.ceiling: 'none' is no ceiling"),
	       "policy check: a bad policy: exit 1, file and line (%s)", r.err);
	run_tool(ctl, &r, ARGS("policy", "check"));
	result(r.status == 2, "policy check: no file: exit 2");
	run_tool(ctl, &r, ARGS("policy", "frob"));
	result(r.status == 2 && strstr(r.err, "unknown subcommand 'frob'"),
	       "policy: unknown subcommand: exit 2");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	result(system(cmd) == 0, "policy check: test files removed");
}
