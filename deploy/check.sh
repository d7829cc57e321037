#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host checks of deploy/, run by scripts/host-checks.sh; one GPUMEM-RESULT
# line per check (series "host"). Needs promtool (Debian's prometheus),
# python3 with PyYAML, node and npm (Debian's nodejs, npm: the validators of
# deploy/validate/package.json, installed once into $GPUMEM_CACHE/npm),
# podman and debootstrap (the Containerfile's base, scripts/fetch-oci-base.sh).
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

cache=${GPUMEM_CACHE:-/var/cache/gpumem}

# k8s-schema: every document of deploy/kubernetes through its kind's
# validator generated from the Kubernetes OpenAPI schema and the Prometheus
# operator's CRDs (what kubectl apply --dry-run=server would reject by type
# or a missing field; no API server here). k8s-privileges: the Pod Security
# level the DaemonSet needs is the one its Namespace enforces, and no
# container that can be reached holds a capability.
k8s_checks() {
	local npmdir=$cache/npm/deploy-validate out sum cafile=()
	# the system's CAs (a TLS proxy's among them), not only node's own
	[ -r /etc/ssl/certs/ca-certificates.crt ] && cafile=(--cafile /etc/ssl/certs/ca-certificates.crt)
	sum=$(cat deploy/validate/package.json deploy/validate/package-lock.json | sha256sum | cut -c1-16)
	if [ "$(cat "$npmdir/.stamp" 2>/dev/null)" != "$sum" ]; then
		rm -rf "$npmdir" && mkdir -p "$npmdir" &&
			cp deploy/validate/package.json deploy/validate/package-lock.json "$npmdir/" &&
			out=$(cd "$npmdir" && npm ci --no-audit --no-fund --silent "${cafile[@]}" 2>&1) &&
			echo "$sum" >"$npmdir/.stamp" ||
			{ printf '%s\n' "$out" | tail -n 20 >&2; }
	fi
	if [ ! -e "$npmdir/.stamp" ]; then
		fail k8s-schema "npm ci of deploy/validate/package.json failed"
	elif out=$(NODE_PATH=$npmdir/node_modules node deploy/validate/validate-k8s.cjs deploy/kubernetes/*.yaml 2>&1); then
		pass "k8s-schema ($(grep -c '^ok ' <<<"$out") documents)"
	else
		printf '%s\n' "$out" >&2
		fail k8s-schema "$(grep -m1 '^FAIL' <<<"$out" | cut -c1-300)"
	fi
	# the checker itself: the single-container agent of earlier manifests
	# (SYS_ADMIN on the scrape port) must fail it
	if out=$(python3 deploy/validate/check-privileges.py deploy/kubernetes/gpumemd-daemonset.yaml 2>&1); then
		printf '%s\n' "$out" | sed 's/^/  k8s-privileges: /' >&2
		python3 - deploy/kubernetes/gpumemd-daemonset.yaml "$tmp/one.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
for d in docs:
    if d.get("kind") == "DaemonSet":
        cs = d["spec"]["template"]["spec"]["containers"]
        ev = next(c for c in cs if c["name"] == "events")
        ev["args"] = ["--listen=$(NODE_IP):9479"]
        ev["ports"] = [{"name": "metrics", "containerPort": 9479, "hostPort": 9479}]
yaml.safe_dump_all(docs, open(sys.argv[2], "w"))
PY
		if python3 deploy/validate/check-privileges.py "$tmp/one.yaml" >/dev/null 2>&1; then
			fail k8s-privileges "the checker passes an events container serving metrics on the node IP"
		else
			pass k8s-privileges
		fi
	else
		printf '%s\n' "$out" >&2
		fail k8s-privileges "$(grep -m1 '^FAIL' <<<"$out" | cut -c1-300)"
	fi
}
k8s_checks

# containerfile: deploy/Containerfile builds the gpumemd image from this
# tree (podman, on a local bookworm base: no registry needed; its layers
# cached in $GPUMEM_CACHE/oci/storage), and the image's gpumemd runs: its
# version is the tree's, and a scrape without the module says gpumem_up 0.
containerfile_check() {
	local base root=$cache/oci/storage run=/run/gpumem-podman out ver ctr
	local pm=(podman --root "$root" --runroot "$run" --storage-driver overlay)
	if ! base=$(bash scripts/fetch-oci-base.sh 2>"$tmp/oci-base.err"); then
		tail -n 20 "$tmp/oci-base.err" >&2
		fail containerfile "scripts/fetch-oci-base.sh failed: $(tail -n 1 "$tmp/oci-base.err")"
		return
	fi
	mkdir -p "$root"
	if ! "${pm[@]}" image exists localhost/gpumem-base:bookworm ||
		[ "$base" -nt "$cache/oci/.imported" ]; then
		"${pm[@]}" import -q "$base" localhost/gpumem-base:bookworm >/dev/null &&
			touch "$cache/oci/.imported"
	fi
	ver=$(cat VERSION)
	if ! out=$("${pm[@]}" build -q --isolation=chroot --network=host --build-arg BASE=localhost/gpumem-base:bookworm \
		-f deploy/Containerfile -t localhost/gpumemd:check . 2>&1); then
		printf '%s\n' "$out" | tail -n 30 >&2
		fail containerfile "podman build: $(tail -n 1 <<<"$out" | cut -c1-200)"
	elif ! ctr=$("${pm[@]}" create localhost/gpumemd:check 2>&1) ||
		! mkdir -p "$tmp/image" || ! "${pm[@]}" export "$ctr" | tar -x -C "$tmp/image" ||
		! "${pm[@]}" rm "$ctr" >/dev/null; then
		fail containerfile "podman create/export of the image: $ctr"
	# the image's own file system, its gpumemd with its libraries, as the
	# user the image names (not through a runtime: hosts such as CI's may
	# refuse a container's rlimits or cgroups; the guest tests run runtimes)
	elif ! out=$(chroot --userspec="$("${pm[@]}" image inspect -f '{{.Config.User}}' localhost/gpumemd:check)" \
		"$tmp/image" /usr/local/sbin/gpumemd --version 2>&1) || ! grep -qF "$ver" <<<"$out"; then
		fail containerfile "the image's gpumemd --version says '$out', not $ver"
	elif ! out=$(chroot --userspec=65534:65534 "$tmp/image" /usr/local/sbin/gpumemd --once --no-events 2>&1) ||
		! grep -qx 'gpumem_up 0' <<<"$out"; then
		printf '%s\n' "$out" | head -n 20 >&2
		fail containerfile "the image's gpumemd --once printed no 'gpumem_up 0'"
	else
		pass "containerfile (gpumemd $ver, runs as $("${pm[@]}" image inspect -f '{{.Config.User}}' localhost/gpumemd:check))"
	fi
	# earlier builds' layers (not the cache of this one) go after a week
	"${pm[@]}" image prune -f --filter until=168h >/dev/null 2>&1
}
containerfile_check
