#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemd, the node agent, scraped by a real HTTP client (busybox wget):
# with 3 MiB of qxl VRAM held in a cgroup named as the kubelet's cgroupfs
# driver names a container (/kubepods/burstable/pod<uid>/<id>, limited to
# 4 MiB on the qxl card), the scrape's device capacity and used bytes, the
# cgroup's usage and max and the process's bytes equal debugfs (devices,
# quotas, charged), with the pod_uid and container_id labels; a denied
# allocation raises gpumem_cgroup_denied_total (= debugfs's denied) and
# gpumem_events_total{type="quota-exceeded"} and the agent logs it as a JSON
# line; rmmod gpumem makes the next scrape gpumem_up 0 (nothing else from
# the kernel), loading it again gpumem_up 1 and events flow again, the
# agent never restarted; other paths are 404. Two real scrapes (with the
# denial's figures; without the module) are left for the host, whose
# scripts/check-log runs Prometheus' `promtool check metrics` on them:
# results gpumemd-promtool and gpumemd-promtool-nomodule.
#
#   GM_BIN=... sh 79-gpumemd.sh     (the guest runner runs it)
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="gpumemd-scrape gpumemd-denial gpumemd-reload gpumemd-http"
CTL=$GM_BIN/gpumemctl
QA=$GM_BIN/quota-alloc
GD=$GM_BIN/gpumemd
PORT=9479
URL=http://127.0.0.1:$PORT/metrics
UID_=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
CID=4c0ffee1d2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d
KP=$GM_CGROOT/kubepods
CGP=/kubepods/burstable/pod$UID_/$CID
CG=$GM_CGROOT$CGP
GM_HDR_quotas="cgroup_id cgroup device region max high mode usage denied"
GM_HDR_charged="pid comm cgroup_id cgroup device vram gtt bos"

fail_all() { for _t in $CASES; do fail "$_t" "setup: $1"; done; finish; }
[ -x "$GD" ] || fail_all "$GD missing (make -C userspace guest)"
[ -d "${GM_ARTDIR:-}" ] || fail_all "no GM_ARTDIR (run by the guest runner)"
[ -x "$CTL" ] && [ -x "$QA" ] || fail_all "gpumemctl or quota-alloc missing in $GM_BIN"
[ -r "$GM_DEBUGFS/quotas" ] || fail_all "no $GM_DEBUGFS/quotas (gpumem without quotas)"
card=$(card_of qxl)
[ -n "$card" ] || fail_all "no qxl device in this guest"

ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)
ensure_loaded() {
	grep -q '^gpumem ' /proc/modules && return 0
	modprobe gpumem 2>/dev/null || { [ -n "$ko" ] && insmod "$ko"; }
	wait_until 10 test -r "$GM_DEBUGFS/stats"
}
# The console's blinking cursor makes qxl allocate release buffers several
# times a second (88-frag.sh): off while device figures are compared.
blink=/sys/class/graphics/fbcon/cursor_blink
blink0=$(cat "$blink" 2>/dev/null)
[ -n "$blink0" ] && echo 0 >"$blink"
trap 'ensure_loaded; "$CTL" limit clear "$CG" --device "$card" >/dev/null 2>&1
	[ -n "$blink0" ] && echo "$blink0" >"$blink"; _gm_cleanup' EXIT

# the last close of a qxl file restores the console in the closing task's
# cgroup: a file kept open in the root cgroup (91-quota-enforce.sh)
spawn_cmd anchor "$QA" anchor -d qxl -t "$GM_HOLD" || fail_all "anchor: $(helper_why anchor)"
for d in "$KP" "$KP/burstable" "$KP/burstable/pod$UID_" "$CG"; do
	[ -d "$d" ] || mkcgroup "$d" || fail_all "cannot create cgroup $d"
done
"$CTL" limit set "$CG" --max 4M --device "$card" >"$GM_TMP/set.out" 2>&1 ||
	fail_all "limit set: $(cat "$GM_TMP/set.out")"

# the guest's loopback interface is down until someone brings it up
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
"$GD" --listen "127.0.0.1:$PORT" >"$GM_TMP/gd.out" 2>"$GM_TMP/gd.err" 8>&- &
gd_pid=$!
GM_PIDS="$GM_PIDS $gd_pid"
# serving and subscribed
wait_until 10 grep -q "subscribed to gpumem's events" "$GM_TMP/gd.err" ||
	fail_all "gpumemd did not subscribe in 10 s: $(_oneline "$(cat "$GM_TMP/gd.err")")"

# scrape: the metrics in $GM_TMP/m (wget's errors in m.err); 1 if wget failed
scrape() { wget -q -O "$GM_TMP/m" "$URL" 2>"$GM_TMP/m.err"; }
# m NAME LABELS...: the value of the one sample of NAME whose labels include
# all of LABELS (name="value" each); "" if none, "many" if several
m() {
	_n=$1
	shift
	awk -v n="$_n" -v want="$*" '
		index($0, n "{") == 1 || index($0, n " ") == 1 {
			k = split(want, w, " ")
			for (i = 1; i <= k; i++) if (!index($0, w[i])) next
			c++; v = $NF
		}
		END { if (c == 1) print v; else if (c > 1) print "many" }' "$GM_TMP/m"
}

hold_in() {
	spawn_cmd "$2" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$1" "$QA" hold -d qxl -n 3 -s 1M -c "$3" -t "$GM_HOLD"
}
hold_in "$CG" h gm-gpumemd || fail_all "helper: $(helper_why h)"
# shellcheck disable=SC2154 # h_pid: set by spawn_cmd through eval
pid=$h_pid

tc_begin gpumemd-scrape
scrape || tc_fail "wget $URL: $(cat "$GM_TMP/m.err")"
tc_eq "gpumem_up" "$(m gpumem_up)" 1
# device figures: debugfs read right before and after the scrape (qxl makes
# release buffers on its own); the scrape must equal one of them
dv() { tbl_get "$GM_TMP/devices" "$1" device="$card" region=vram; }
ok=""
for try in 1 2 3 4 5; do
	snap devices; c0=$(dv capacity); u0=$(dv used)
	scrape
	snap devices; u1=$(dv used)
	mc=$(m gpumem_device_capacity_bytes "device=\"$card\"" 'region="vram"')
	mu=$(m gpumem_device_used_bytes "device=\"$card\"" 'region="vram"')
	if [ "$mc" = "$c0" ] && { [ "$mu" = "$u0" ] || [ "$mu" = "$u1" ]; }; then ok=1; break; fi
	log "  try $try: capacity $mc (debugfs $c0), used $mu (debugfs $u0 / $u1)"
done
[ -n "$ok" ] || tc_fail "device $card vram: scrape capacity $mc used $mu, debugfs $c0 used $u0/$u1"
tc_num -gt "capacity" "$c0" 0
log "  device $card vram: capacity $mc used $mu"
free=$(m gpumem_device_free_bytes "device=\"$card\"" 'region="vram"')
tc_eq "free = capacity - used" "$free" "$((mc - mu))"
# the cgroup: usage and max on the card equal the quotas file, pod labels
snap quotas
qu=$(tbl_get "$GM_TMP/quotas" usage cgroup="$CGP" device="$card" region=vram)
qm=$(tbl_get "$GM_TMP/quotas" max cgroup="$CGP" device="$card" region=vram)
tc_eq "quotas usage" "$qu" $((3 * MiB))
tc_eq "quotas max" "$qm" $((4 * MiB))
sel="cgroup=\"$CGP\" device=\"$card\" region=\"vram\" pod_uid=\"$UID_\" container_id=\"$CID\""
# shellcheck disable=SC2086 # $sel: one label per word
tc_eq "gpumem_cgroup_usage_bytes" "$(m gpumem_cgroup_usage_bytes $sel)" "$qu"
# shellcheck disable=SC2086
tc_eq "gpumem_cgroup_limit_bytes max" "$(m gpumem_cgroup_limit_bytes $sel 'kind="max"')" "$qm"
# shellcheck disable=SC2086
tc_eq "gpumem_cgroup_denied_total" "$(m gpumem_cgroup_denied_total $sel)" 0
# the process: charged view, equal to debugfs's charged file
snap charged
cv=$(tbl_get "$GM_TMP/charged" vram pid="$pid" device="$card")
tc_eq "charged vram of pid $pid" "$cv" $((3 * MiB))
psel="pid=\"$pid\" comm=\"gm-gpumemd\" cgroup=\"$CGP\" device=\"$card\""
# shellcheck disable=SC2086
tc_eq "gpumem_process_bytes vram" "$(m gpumem_process_bytes $psel 'region="vram"' "pod_uid=\"$UID_\"" "container_id=\"$CID\"")" "$cv"
# shellcheck disable=SC2086
tc_eq "gpumem_process_buffers" "$(m gpumem_process_buffers $psel)" \
	"$(tbl_get "$GM_TMP/charged" bos pid="$pid" device="$card")"
# stats-get: the walks counter equals debugfs stats read right before and
# after the scrape (when nothing walked in between: tried 5 times)
ok=""
for try in 1 2 3 4 5; do
	snap stats; w0=$(tbl_get "$GM_TMP/stats" value name=walks)
	scrape
	snap stats; w1=$(tbl_get "$GM_TMP/stats" value name=walks)
	mw=$(m gpumem_walks_total)
	[ -n "$w0" ] && [ "$w0" = "$w1" ] && { ok=1; break; }
done
[ -n "$ok" ] || tc_fail "debugfs walks changed across every scrape ($w0 -> $w1)"
tc_eq "gpumem_walks_total = debugfs walks" "$mw" "$w0"
# the agent's own families
tc_eq "gpumem_events_subscribed" "$(m gpumem_events_subscribed)" 1
tc_eq "gpumem_scrape_errors" "$(m gpumem_scrape_errors)" 0
tc_end

# deny: 2 MiB more in the cgroup (3 + 2 > 4): denied; gpumemd's figures rise
# deny_once: sets $deny_pid
deny_once() {
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$CG" "$QA" deny -d qxl -n 1 -s 2M -c gm-gd-deny >"$GM_TMP/deny.out" 2>&1 8>&-
	log "  deny: $(_oneline "$(cat "$GM_TMP/deny.out")")"
}
evq() { m gpumem_events_total 'type="quota-exceeded"'; }
json_lines() { grep -c "\"type\":\"quota-exceeded\",\"cgroup_id\":[0-9]*,\"cgroup\":\"$CGP\"" "$GM_TMP/gd.out"; }

tc_begin gpumemd-denial
scrape
# shellcheck disable=SC2086
d0=$(m gpumem_cgroup_denied_total $sel)
e0=$(evq)
j0=$(json_lines)
deny_once
ok=""
for try in 1 2 3 4 5 6 7 8 9 10; do
	scrape
	# shellcheck disable=SC2086
	d1=$(m gpumem_cgroup_denied_total $sel)
	e1=$(evq)
	[ "$(num "$d1")" -gt "$(num "$d0")" ] && [ "$(num "$e1")" -gt "$(num "$e0")" ] &&
		[ "$(json_lines)" -gt "$j0" ] && { ok=1; break; }
	sleep 1
done
[ -n "$ok" ] || log "  after 10 s: denied $d1, events $e1, JSON lines $(json_lines)"
snap quotas
tc_eq "gpumem_cgroup_denied_total = quotas denied" "$d1" \
	"$(tbl_get "$GM_TMP/quotas" denied cgroup="$CGP" device="$card" region=vram)"
tc_eq "gpumem_cgroup_denied_total rose by" "$(($(num "$d1") - $(num "$d0")))" 1
tc_eq "gpumem_events_total{quota-exceeded} rose by (the one denial)" "$(($(num "$e1") - $(num "$e0")))" 1
tc_eq "JSON event lines for $CGP" "$(json_lines)" $((j0 + 1))
# the host checks this scrape with promtool (scripts/check-log)
cp "$GM_TMP/m" "$GM_ARTDIR/gpumemd-promtool.prom" || tc_fail "cannot leave the scrape for the host"
line=$(grep "\"cgroup\":\"$CGP\"" "$GM_TMP/gd.out" | tail -n 1)
log "  event line: $line"
case $line in
'{"time":"'*'","seq":'*',"type":"quota-exceeded",'*'"comm":"gm-gd-deny","device":"'"$card"'","region":"vram","requested":2097152,'*'"limit":4194304,"mode":"enforce","denied":true,'*'}') ;;
*) tc_fail "unexpected JSON event line '$line'" ;;
esac
tc_end

tc_begin gpumemd-reload
if ! grep -q '^gpumem ' /proc/modules; then
	tc_fail "gpumem is not a loaded module here"
	tc_end
	finish
fi
stop h	# the cgroup's buffers go before the module
if ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
else
	scrape || tc_fail "scrape without the module: wget: $(cat "$GM_TMP/m.err")"
	tc_eq "gpumem_up without the module" "$(m gpumem_up)" 0
	cp "$GM_TMP/m" "$GM_ARTDIR/gpumemd-promtool-nomodule.prom" ||
		tc_fail "cannot leave the scrape for the host"
	tc_eq "kernel samples without the module" \
		"$(grep -c '^gpumem_\(device\|process\|cgroup\|walks\|last_walk\)' "$GM_TMP/m")" 0
	wait_until 5 grep -q "gpumem was unloaded" "$GM_TMP/gd.err" ||
		tc_fail "no note of the unload in the agent's log"
	scrape
	tc_eq "gpumem_events_subscribed without the module" "$(m gpumem_events_subscribed)" 0
	grep -q '^gpumem ' /proc/modules && tc_fail "gpumem came back by itself (a scrape loaded it?)"
	ensure_loaded || tc_fail "could not load gpumem again"
	wait_until 5 grep -q "subscribed again" "$GM_TMP/gd.err" ||
		tc_fail "the agent did not subscribe again 5 s after the load"
	scrape
	tc_eq "gpumem_up after the load" "$(m gpumem_up)" 1
	tc_eq "gpumem_events_subscribed after the load" "$(m gpumem_events_subscribed)" 1
	tc_eq "gpumem_events_resubscriptions_total" "$(m gpumem_events_resubscriptions_total)" 1
	snap devices
	tc_eq "device regions after the load (debugfs devices' rows)" \
		"$(grep -c "^gpumem_device_capacity_bytes{device=\"$card\"" "$GM_TMP/m")" \
		"$(tbl_count "$GM_TMP/devices" device="$card")"
	tc_num -ge "device regions after the load" "$(tbl_count "$GM_TMP/devices" device="$card")" 1
	# the limits went with the module: set again, and deny again
	"$CTL" limit set "$CG" --max 1M --device "$card" >"$GM_TMP/set.out" 2>&1 ||
		tc_fail "limit set after the load: $(cat "$GM_TMP/set.out")"
	e0=$(evq)
	j0=$(json_lines)
	deny_once
	jl_more() { [ "$(json_lines)" -gt "$j0" ]; }
	wait_until 10 jl_more || tc_fail "no JSON event line after the reload"
	scrape
	tc_eq "quota-exceeded events after the reload (the one denial)" "$(($(num "$(evq)") - $(num "$e0")))" 1
	tc_eq "JSON event lines after the reload" "$(json_lines)" $((j0 + 1))
	# shellcheck disable=SC2086
	tc_eq "denied after the reload (a new module counts anew)" \
		"$(m gpumem_cgroup_denied_total $sel)" 1
fi
_alive "$gd_pid" || tc_fail "gpumemd is not running any more"
tc_end

tc_begin gpumemd-http
wget -q -O "$GM_TMP/x" "http://127.0.0.1:$PORT/" 2>"$GM_TMP/x.err" &&
	tc_fail "GET / succeeded: $(head -c 200 "$GM_TMP/x")"
grep -q 404 "$GM_TMP/x.err" || tc_fail "GET /: not a 404: $(cat "$GM_TMP/x.err")"
wget -q -O "$GM_TMP/x" --post-data=x "$URL" 2>"$GM_TMP/x.err" &&
	tc_fail "POST /metrics succeeded"
grep -q 405 "$GM_TMP/x.err" || tc_fail "POST /metrics: not a 405: $(cat "$GM_TMP/x.err")"
kill -TERM "$gd_pid"
reap "$gd_pid" 5
wait_until 3 grep -q stopping "$GM_TMP/gd.err" || tc_fail "no clean stop on SIGTERM"
tc_end

finish
