#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host checks of deploy/, run by scripts/host-checks.sh; one GPUMEM-RESULT
# line per check (series "host"). Needs promtool (Debian's prometheus) and
# python3.
#
# Usage: bash deploy/check.sh      (from anywhere)
set -uo pipefail
pass() { echo "GPUMEM-RESULT: PASS host $1"; }
fail() { echo "GPUMEM-RESULT: FAIL host $1: $2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/.." || exit 1

# prometheus-rules: deploy/prometheus's alerting rules load and their unit
# tests pass (each alert fires above its threshold, not at or below it);
# grafana-promql: every query of the dashboard parses (as a recording rule)
deploy_checks() {
	local d=$tmp/deploy out
	mkdir -p "$d"
	if out=$(promtool check rules deploy/prometheus/gpumem-rules.yml 2>&1) &&
		out=$(cd deploy/prometheus && promtool test rules gpumem-rules.test.yml 2>&1); then
		pass prometheus-rules
	else
		printf '%s\n' "$out" | head -n 40 >&2
		fail prometheus-rules "promtool check/test rules: $(grep -m1 -i 'fail\|error' <<<"$out" | cut -c1-200)"
	fi
	if python3 - deploy/grafana/gpumem-dashboard.json "$d/dash-rules.yml" <<'PY' &&
import json, sys
dash = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
with open(sys.argv[2], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
        f.write("      - record: dashboard:q%d\n        expr: %s\n" % (i, json.dumps(e)))
PY
		out=$(promtool check rules "$d/dash-rules.yml" 2>&1); then
		pass "grafana-promql ($(grep -c 'record:' "$d/dash-rules.yml") queries)"
	else
		printf '%s\n' "$out" | head -n 20 >&2
		fail grafana-promql "a dashboard query does not parse: $(grep -m1 -i error <<<"$out" | cut -c1-200)"
	fi
}

deploy_checks
