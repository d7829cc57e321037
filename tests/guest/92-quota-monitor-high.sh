#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quotas: monitor mode lets a placement beyond max through and reports it
# (denied=false, the limit's denied counter counts it), once per placement;
# a high (soft) limit produces one high-crossed event on the way up, none on
# the way down, and one again after the usage went back below it.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-monitor quota-monitor-each quota-high-crossed quota-high-rearm quota-monitor-high-seq"

# --- quota helpers (the same block in every 9x quota test) -------------------
CTL=$GM_BIN/gpumemctl
QA=$GM_BIN/quota-alloc
GM_HDR_quotas="cgroup_id cgroup device region max high mode usage denied"
QTEST=no
case $(uname -r) in *gpumem-test*) QTEST=yes ;; esac
SYNC=$GM_CGROOT/gpumem-q-sync

skip_all() { for _t in $CASES; do skip "$_t" "$1"; done; finish; }

# jget KEY: KEY's value in the one-line JSON object on stdin (strings unquoted).
jget() {
	awk -v k="\"$1\":" '{ i = index($0, k); if (!i) next; s = substr($0, i + length(k))
		if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s) } else sub(/[,}].*/, "", s)
		print s; exit }'
}
# cg_usage CGPATH DEVICE: the cgroup's vram usage (cardN or all) from
# `gpumemctl cgroups --json`; 0 without a row (nothing charged, no limit).
cg_usage() {
	"$CTL" cgroups --json >"$GM_TMP/cg.json" 2>"$GM_TMP/cg.err" || { echo "error"; return; }
	_u=$(grep -F "\"cgroup\":\"$1\"," "$GM_TMP/cg.json" | grep -F "\"device\":\"$2\"," |
		grep -F '"region":"vram"' | jget usage)
	echo "${_u:-0}"
}
# q_get CGPATH DEVICE COLUMN: a column of the quotas file ("" without a row).
q_get() { snap quotas; tbl_get "$GM_TMP/quotas" "$3" cgroup="$1" device="$2" region=vram; }
cgid() { stat -c %i "$GM_CGROOT$1"; }

# ctl ARGS...: gpumemctl, output in $GM_TMP/ctl.out, exit status in $ctl_rc.
ctl() { "$CTL" "$@" >"$GM_TMP/ctl.out" 2>&1; ctl_rc=$?; }
ctl_ok() { ctl "$@"; [ "$ctl_rc" = 0 ] || tc_fail "gpumemctl $* exited $ctl_rc: $(cat "$GM_TMP/ctl.out")"; }

# hold_in CGDIR NAME ARGS...: quota-alloc hold in CGDIR, buffers held; waits for READY.
hold_in() {
	_cg=$1 _n=$2
	shift 2
	spawn_cmd "$_n" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$_cg" "$QA" hold "$@" -t "$GM_HOLD"
}
out_total() { out_val "$1" TOTAL "$2"; }

# run_in CGDIR NAME CMD...: run CMD in CGDIR to its end (bounded, 60 s);
# sets NAME_pid and NAME_rc, output in $GM_TMP/NAME.out.
run_in() {
	_cg=$1 _n=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$_cg" "$@" \
		>"$GM_TMP/$_n.out" 2>&1 &
	_p=$!
	eval "${_n}_pid=$_p"
	GM_PIDS="$GM_PIDS $_p"
	_end=$(($(date +%s) + 60))
	while _alive "$_p" && [ "$(date +%s)" -lt "$_end" ]; do sleep "$GM_TICK"; done
	_alive "$_p" && kill -KILL "$_p" 2>/dev/null
	wait "$_p"
	eval "${_n}_rc=$?"
	GM_PIDS=$(echo "$GM_PIDS" | tr ' ' '\n' | grep -vx "$_p" | tr '\n' ' ')
}

# The event watch: `gpumemctl watch --json` in the background. w_sync makes
# a denied allocation in $SYNC (limit 1 byte) and waits for its event: every
# event sent before it has then been printed too.
w_start() {
	: >"$GM_TMP/w.out"
	"$CTL" watch --json -t 900 >"$GM_TMP/w.out" 2>"$GM_TMP/w.err" &
	w_pid=$!
	GM_PIDS="$GM_PIDS $w_pid"
	w_sync
}
w_sync() {
	_before=$(grep -c '"cgroup":"/gpumem-q-sync"' "$GM_TMP/w.out")
	_end=$(($(date +%s) + 60))
	while :; do
		run_in "$SYNC" sync "$QA" deny -n 1 -s 4K -c gm-q-sync
		_w=$(($(date +%s) + 3))
		while [ "$(date +%s)" -lt "$_w" ]; do
			[ "$(grep -c '"cgroup":"/gpumem-q-sync"' "$GM_TMP/w.out")" -gt "$_before" ] && return 0
			sleep "$GM_TICK"
		done
		if [ "$(date +%s)" -ge "$_end" ] || ! _alive "$w_pid"; then
			log "watch output:"; sed 's/^/#   /' "$GM_TMP/w.out" "$GM_TMP/w.err"
			return 1
		fi
	done
}
# w_mark: the number of event lines so far; w_since MARK: $ev = the events
# after MARK (sync events left out), after a w_sync.
w_mark() { wc -l <"$GM_TMP/w.out" | tr -d ' '; }
w_since() {
	w_sync || tc_fail "the sync event did not arrive"
	ev=$(sed -n "$(($1 + 1)),\$p" "$GM_TMP/w.out" | grep -v '"cgroup":"/gpumem-q-sync"')
	log "events: $(echo "$ev" | grep -c .)"
	echo "$ev" | sed 's/^/#   /'
}
# ev_check LINE KEY=VALUE...: the event's fields.
ev_check() {
	_l=$1
	shift
	for _kv in "$@"; do
		tc_eq "event ${_kv%%=*}" "$(echo "$_l" | jget "${_kv%%=*}")" "${_kv#*=}"
	done
}
# seq_check: every event the watch printed has seq = previous + 1, missed 0.
seq_check() {
	awk '{ s = $0; sub(/.*"seq":/, "", s); sub(/,.*/, "", s)
		m = $0; sub(/.*"missed":/, "", m); sub(/[,}].*/, "", m)
		if (NR > 1 && s != prev + 1) { printf "seq %s after %s\n", s, prev; bad = 1 }
		if (m != 0) { printf "missed %s at seq %s\n", m, s; bad = 1 }
		prev = s } END { exit bad }' "$GM_TMP/w.out"
}
# buf_regions PID: "region/mem_type" of every buffer PID owns, sorted, one line.
buf_regions() { snap buffers; tbl_get "$GM_TMP/buffers" - owner="$1" | awk '{ print $5 "/" $6 }' | sort | tr '\n' ' '; }
repeat() { _i=0; while [ $_i -lt "$1" ]; do printf '%s ' "$2"; _i=$((_i + 1)); done; }

# Common setup: qxl, cgroup2, gpumemctl with limits, the anchor, $SYNC.
quota_setup() {
	[ -r "$GM_CGROOT/cgroup.controllers" ] || skip_all "cgroup2 not mounted on $GM_CGROOT"
	[ -x "$CTL" ] && [ -x "$QA" ] || skip_all "gpumemctl or quota-alloc missing in $GM_BIN"
	"$CTL" help limit >/dev/null 2>&1 || skip_all "this gpumemctl has no 'limit' command"
	[ -r "$GM_DEBUGFS/quotas" ] || skip_all "no $GM_DEBUGFS/quotas (gpumem without quotas)"
	qxl=$(card_of qxl)
	[ -n "$qxl" ] || skip_all "no qxl device in this guest"
	spawn_cmd anchor "$QA" anchor -d qxl -t "$GM_HOLD" || skip_all "anchor failed: $(helper_why anchor)"
	for _cg in "$@" "$SYNC"; do
		rmdir "$_cg" 2>/dev/null
		mkcgroup "$_cg" || skip_all "cannot create cgroup $_cg"
	done
	"$CTL" limit set "$SYNC" --max 1 >/dev/null 2>&1 || skip_all "cannot set a limit on $SYNC"
	w_start || skip_all "gpumemctl watch --json got no event from the sync cgroup"
}
# --- end of the quota helpers --------------------------------------------------

A=$GM_CGROOT/gpumem-q-mon
quota_setup "$A"
X=$((4 * MiB))

tc_begin quota-monitor
ctl_ok limit set "$A" --max 4M --mode monitor --json
tc_eq "limit set reply mode" "$(jget mode <"$GM_TMP/ctl.out")" monitor
hold_in "$A" a1 -n 3 -s 1M -c gm-q-m1 || tc_fail "helper: $(helper_why a1)"
m0=$(w_mark)
# 4 MiB fits, 5 MiB is over max: allowed and reported.
hold_in "$A" a2 -n 2 -s 1M -c gm-q-m2 || tc_fail "helper: $(helper_why a2)"
tc_eq "a2 got/denied" "$(out_total a2 ok) $(out_total a2 denied)" "2 0"
tc_eq "A usage beyond max (quotas)" "$(q_get /gpumem-q-mon all usage)" $((5 * MiB))
tc_eq "A usage (cgroups)" "$(cg_usage /gpumem-q-mon "$qxl")" $((5 * MiB))
tc_eq "denied counter (reported placements)" "$(q_get /gpumem-q-mon all denied)" 1
tc_eq "a2's buffers" "$(buf_regions "$a2_pid")" "vram/2 vram/2 "
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded cgroup_id="$(cgid /gpumem-q-mon)" cgroup=/gpumem-q-mon \
	pid="$a2_pid" comm=gm-q-m2 device="$qxl" region=vram requested="$MiB" usage="$X" \
	limit="$X" mode=monitor denied=false suppressed=0
stop a2
tc_eq "A usage after a2 exits" "$(q_get /gpumem-q-mon all usage)" $((3 * MiB))
tc_end

# Every placement beyond max is reported, also several of one process.
tc_begin quota-monitor-each
m0=$(w_mark)
hold_in "$A" a3 -n 3 -s 1M -c gm-q-m3 || tc_fail "helper: $(helper_why a3)"
tc_eq "a3 got/denied" "$(out_total a3 ok) $(out_total a3 denied)" "3 0"
tc_eq "denied counter" "$(q_get /gpumem-q-mon all denied)" 3
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 2
tc_eq "their usage" "$(echo "$ev" | while IFS= read -r l; do echo "$l" | jget usage; done | tr '\n' ' ')" \
	"$X $((5 * MiB)) "
tc_eq "all allowed" "$(echo "$ev" | grep -c '"denied":false')" 2
stop a3
tc_end

tc_begin quota-high-crossed
ctl_ok limit set "$A" --max 16M --high 4M --json
tc_eq "limit set reply max/high/mode" \
	"$(jget max <"$GM_TMP/ctl.out")/$(jget high <"$GM_TMP/ctl.out")/$(jget mode <"$GM_TMP/ctl.out")" \
	"$((16 * MiB))/$X/enforce"
tc_eq "quotas high column" "$(q_get /gpumem-q-mon all high)" "$X"
m0=$(w_mark)
# 3 MiB held: 4 MiB is not above high, 5 MiB is (event), 6 MiB no event.
hold_in "$A" a4 -n 3 -s 1M -c gm-q-h4 || tc_fail "helper: $(helper_why a4)"
tc_eq "a4 got/denied" "$(out_total a4 ok) $(out_total a4 denied)" "3 0"
tc_eq "A usage" "$(q_get /gpumem-q-mon all usage)" $((6 * MiB))
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=high-crossed cgroup_id="$(cgid /gpumem-q-mon)" cgroup=/gpumem-q-mon \
	pid="$a4_pid" comm=gm-q-h4 device="$qxl" region=vram requested="$MiB" usage="$X" \
	limit="$X" mode=enforce denied=false suppressed=0
m0=$(w_mark)
stop a4
tc_eq "A usage after a4 exits" "$(q_get /gpumem-q-mon all usage)" $((3 * MiB))
w_since "$m0"
tc_eq "events on the way down" "$(echo "$ev" | grep -c .)" 0
tc_end

# Below high again: the next crossing is reported again (high only, no max).
tc_begin quota-high-rearm
ctl_ok limit set "$A" --high 4M --json
tc_eq "limit set reply max/high" "$(jget max <"$GM_TMP/ctl.out")/$(jget high <"$GM_TMP/ctl.out")" "null/$X"
m0=$(w_mark)
hold_in "$A" a5 -n 4 -s 1M -c gm-q-h5 || tc_fail "helper: $(helper_why a5)"
tc_eq "a5 got/denied (no max)" "$(out_total a5 ok) $(out_total a5 denied)" "4 0"
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=high-crossed pid="$a5_pid" usage="$X" limit="$X" denied=false
stop a5
stop a1
tc_eq "A usage at the end" "$(q_get /gpumem-q-mon all usage)" 0
tc_end

tc_begin quota-monitor-high-seq
if ! out=$(seq_check); then
	tc_fail "$out"
fi
[ -s "$GM_TMP/w.err" ] && tc_fail "watch warnings: $(cat "$GM_TMP/w.err")"
tc_end

"$CTL" limit clear "$A" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
