#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host checks of gpumemd (the node agent) against the simulated kernel
# (tests/fake_kernel.c), run by scripts/host-checks.sh after `make check`
# built tests/gpumemd-fake and tests/gpumemctl-fake; one GPUMEM-RESULT line
# per check (series "host"). Needs promtool (Debian's prometheus) and curl.
#
# Usage: bash userspace/gpumemd/tests/gpumemd-checks.sh USERSPACE_BUILD_DIR
set -uo pipefail
[ $# = 1 ] || { echo "usage: $0 USERSPACE_BUILD_DIR" >&2; exit 2; }
pass() { echo "GPUMEM-RESULT: PASS host $1"; }
fail() { echo "GPUMEM-RESULT: FAIL host $1: $2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gpumemd-metrics: gpumemd --once against the simulated kernel
# (tests/gpumemd-fake, built by make check) passes promtool check metrics,
# and every sample and HELP/TYPE line of gpumemctl export is in it once its
# pod_uid/container_id labels are set aside (one set of names, labels and
# values); without the module only gpumem_up 0 (and promtool still passes).
# the fake kernel's hook statistics (tests/fake_kernel.c), each by its name
# and type, counters in _total
hook_want=
# (in the spec's attribute order: the records gauge, then the later counters)
for m in charged:501 uncharged:430 charge_failed:5 denied:17 guard_refused:23 \
	events_sent:29 events_suppressed:6 events_lost:2 records:71 unattributed:13 \
	resv_released:3 dmem_unwatched:7; do
	if [ "${m%%:*}" = records ]; then
		hook_want+="# TYPE gpumem_charge_records gauge gpumem_charge_records ${m#*:} "
	elif [ "${m%%:*}" = dmem_unwatched ]; then
		hook_want+="# TYPE gpumem_dmem_unwatched_total counter gpumem_dmem_unwatched_total ${m#*:} "
	else
		hook_want+="# TYPE gpumem_hook_${m%%:*}_total counter gpumem_hook_${m%%:*}_total ${m#*:} "
	fi
done
gpumemd_checks() {
	local u=$1 d=$tmp/gpumemd out missing
	mkdir -p "$d"
	if ! (cd "$u" && ./tests/gpumemd-fake --once >"$d/gd.prom" 2>"$d/gd.err" &&
		./tests/gpumemctl-fake export --prometheus >"$d/ctl.prom" &&
		GM_FAKE=nomodule ./tests/gpumemd-fake --once >"$d/nomod.prom"); then
		fail gpumemd-metrics "tests/gpumemd-fake --once failed: $(head -c 300 "$d/gd.err")"
		return
	fi
	sed -e 's/,pod_uid="[^"]*",container_id="[^"]*"//' "$d/gd.prom" | sort >"$d/gd.sorted"
	sort "$d/ctl.prom" >"$d/ctl.sorted"
	missing=$(comm -13 "$d/gd.sorted" "$d/ctl.sorted")
	if ! out=$(promtool check metrics <"$d/gd.prom" 2>&1); then
		fail gpumemd-metrics "promtool check metrics: $(head -c 300 <<<"$out")"
	elif ! out=$(promtool check metrics <"$d/nomod.prom" 2>&1) ||
		[ "$(grep -v '^#' "$d/nomod.prom" | grep -c '^gpumem_[a-z_]*[{ ]')" != \
		  "$(grep -c '^gpumem_events\|^gpumem_up 0$' "$d/nomod.prom")" ] ||
		! grep -qx 'gpumem_up 0' "$d/nomod.prom"; then
		fail gpumemd-metrics "without the module: not gpumem_up 0 alone, or promtool: $out"
	elif ! grep -qx 'gpumem_up 1' "$d/gd.prom" || [ ! -s "$d/ctl.sorted" ]; then
		fail gpumemd-metrics "no gpumem_up 1, or gpumemctl export printed nothing"
	elif [ "$(grep -E '^(# TYPE )?gpumem_(hook_|charge_records|dmem_unwatched)' "$d/gd.prom" | tr '\n' ' ')" != "$hook_want" ]; then
		fail gpumemd-metrics "hook statistics (the fake kernel's distinct values): $(grep -E '^gpumem_(hook_|charge_records|dmem_unwatched)' "$d/gd.prom" | tr '\n' ' ')"
	elif [ -n "$missing" ]; then
		printf '%s\n' "$missing" | head -n 20 >&2
		fail gpumemd-metrics "$(grep -c . <<<"$missing") line(s) of gpumemctl export not in gpumemd's scrape"
	else
		pass "gpumemd-metrics ($(grep -vc '^#' "$d/gd.prom") samples)"
	fi
	gpumemd_events "$u" "$d"
	gpumemd_http "$u" "$d"
	gpumemd_cardinality "$u" "$d"
}

# gpumemd-cardinality: gpumem_device_info, one series per device with its
# PCI address; --process-metrics: auto writes the per-process families for
# the fake kernel's 5 processes and none for 605 (GM_FAKE_PROCS=600), on
# writes all 605 x 2 regions, off none (the cgroup families stay)
gpumemd_cardinality() {
	local u=$1 d=$2 info want='gpumem_device_info{device="card0",driver="qxl",pci="0000:00:02.0"} 1
gpumem_device_info{device="card1",driver="bochs-drm",pci="0000:00:03.0"} 1
gpumem_device_info{device="card2",driver="vgem",pci="vgem"} 1'
	count() { grep -c '^gpumem_process_bytes{' "$1"; }
	(cd "$u" && ./tests/gpumemd-fake --once >"$d/c-auto.prom" &&
		GM_FAKE_PROCS=600 ./tests/gpumemd-fake --once >"$d/c-many.prom" &&
		GM_FAKE_PROCS=600 ./tests/gpumemd-fake --once --process-metrics on >"$d/c-on.prom" &&
		./tests/gpumemd-fake --once --process-metrics off >"$d/c-off.prom")
	info=$(grep '^gpumem_device_info' "$d/c-auto.prom")
	if [ "$info" != "$want" ]; then
		fail gpumemd-cardinality "gpumem_device_info: $(tr '\n' ' ' <<<"$info")"
	elif [ "$(count "$d/c-auto.prom") $(count "$d/c-many.prom") $(count "$d/c-on.prom") $(count "$d/c-off.prom")" != "10 0 1210 0" ]; then
		fail gpumemd-cardinality "process series auto/auto-600/on-600/off: $(count "$d/c-auto.prom") $(count "$d/c-many.prom") $(count "$d/c-on.prom") $(count "$d/c-off.prom"), want 10 0 1210 0"
	elif ! grep -qx 'gpumem_process_metrics 1' "$d/c-auto.prom" ||
		! grep -qx 'gpumem_process_metrics 0' "$d/c-many.prom" ||
		! grep -qx 'gpumem_process_metrics 0' "$d/c-off.prom" ||
		! grep -q '^gpumem_cgroup_usage_bytes{' "$d/c-off.prom" ||
		! promtool check metrics <"$d/c-many.prom" >/dev/null 2>&1; then
		fail gpumemd-cardinality "gpumem_process_metrics, the cgroup families or promtool"
	else
		pass gpumemd-cardinality
	fi
}

# gpumemd-events: the fake kernel's event script (GM_FAKE=watch: 5 events, one
# of them dmem's, a gap of 2, an overflow, the family gone and back) counted exactly in the
# textfile, one JSON line per event, subscribed again without a restart
gpumemd_events() {
	local u=$1 d=$2 p got want i
	(cd "$u" && GM_FAKE=watch exec ./tests/gpumemd-fake --no-listen \
		--textfile "$d/ev.prom" --interval 1 >"$d/ev.out" 2>"$d/ev.err") &
	p=$!
	for i in $(seq 50); do
		grep -qx 'gpumem_events_resubscriptions_total 1' "$d/ev.prom" 2>/dev/null &&
			[ "$(wc -l <"$d/ev.out")" -ge 5 ] && sleep 1.2 && break
		sleep 0.2
	done
	kill "$p" 2>/dev/null
	wait "$p"
	got=$(grep '^gpumem_events' "$d/ev.prom" 2>/dev/null | tr '\n' ' ')
	want='gpumem_events_total{type="quota-exceeded"} 3 gpumem_events_total{type="high-crossed"} 1 '
	want+='gpumem_events_total{type="device-threshold"} 1 gpumem_events_total{type="fragmented-denial"} 0 '
	if [[ $got != "$want"* ]] ||
		[[ $got != *'gpumem_events_dmem_total 1 gpumem_events_lost_total 2 gpumem_events_overflows_total 1 gpumem_events_suppressed_total 3 gpumem_events_resubscriptions_total 1 gpumem_events_subscribed 1 ' ]] ||
		[ "$(grep -c '^{"time":".*,"missed":[0-9]*}$' "$d/ev.out")" != 5 ] ||
		! grep -q 'stopping' "$d/ev.err"; then
		cat "$d/ev.err" >&2
		fail gpumemd-events "counters '$got', $(wc -l <"$d/ev.out") JSON lines (want 5)"
	else
		pass gpumemd-events
	fi
}

# gpumemd-http: GET /metrics 200 with the exposition content type (and what
# promtool accepts), any other path 404, POST 405, a GET with a body 413
gpumemd_http() {
	local u=$1 d=$2 p port=$((20000 + $$ % 10000)) codes
	(cd "$u" && exec ./tests/gpumemd-fake --listen "127.0.0.1:$port" --no-events \
		>/dev/null 2>"$d/http.err") &
	p=$!
	for i in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$port/metrics" && break
		sleep 0.1
	done
	codes=$(url=http://127.0.0.1:$port
		curl -s -o "$d/http.prom" -w '%{http_code} %{content_type}' "$url/metrics"
		curl -s -o /dev/null -w ' %{http_code}' "$url/"
		curl -s -o /dev/null -w ' %{http_code}' "$url/metrics/x"
		curl -s -o /dev/null -w ' %{http_code}' -X POST -d x "$url/metrics"
		curl -s -o /dev/null -w ' %{http_code}' -X GET -d x "$url/metrics")
	kill "$p" 2>/dev/null
	wait "$p"
	if [ "$codes" = "200 text/plain; version=0.0.4; charset=utf-8 404 404 405 413" ] &&
		promtool check metrics <"$d/http.prom" >/dev/null 2>&1 && grep -qx 'gpumem_up 1' "$d/http.prom"; then
		pass gpumemd-http
	else
		cat "$d/http.err" >&2
		fail gpumemd-http "status and type '$codes', want '200 text/plain; version=0.0.4; charset=utf-8 404 404 405 413' and a body promtool accepts"
	fi
}

gpumemd_checks "$(cd "$1" && pwd)"
