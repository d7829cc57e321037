#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quotas, enforce mode, end to end on qxl VRAM: cgroup A limited to 4 MiB
# (all devices), cgroup B unlimited. A's allocations beyond the limit are
# denied with ENOMEM, A's usage never exceeds it, B's allocations succeed
# and B's (and A's) buffers stay in VRAM (a denied task evicts nothing);
# `gpumemctl watch --json` gets exactly one quota-exceeded event per denied
# request with every field right; lowering the limit below the usage is
# reported; raising and clearing it allow allocations again; usage returns
# to exactly 0 when the processes exit.
#
# Every test of the 9x quota series keeps one qxl file open in the root
# cgroup (an "anchor"): the last close of a qxl file restores the fbdev
# console, and that allocates in the closing task's context (see
# 97-quota-lastclose.sh); with the anchor, a helper's exit frees exactly
# what it allocated.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-enforce-deny quota-enforce-no-eviction quota-enforce-event quota-deny-per-request
quota-set-below-usage quota-raise-clear quota-exact-zero quota-event-seq"

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

A=$GM_CGROOT/gpumem-q-a
B=$GM_CGROOT/gpumem-q-b
quota_setup "$A" "$B"
X=$((4 * MiB))

tc_begin quota-enforce-deny
ctl_ok limit set "$A" --max 4M --json
tc_eq "limit set reply max" "$(jget max <"$GM_TMP/ctl.out")" "$X"
tc_eq "limit set reply device" "$(jget device <"$GM_TMP/ctl.out")" all
tc_eq "limit set reply mode" "$(jget mode <"$GM_TMP/ctl.out")" enforce
tc_eq "quotas row for A" "$(q_get /gpumem-q-a all max) $(q_get /gpumem-q-a all mode) $(q_get /gpumem-q-a all usage) $(q_get /gpumem-q-a all denied)" \
	"$X enforce 0 0"
m0=$(w_mark)
hold_in "$B" b1 -n 8 -s 1M -c gm-q-b1 || tc_fail "B helper: $(helper_why b1)"
tc_eq "B allocations" "$(out_total b1 ok) $(out_total b1 denied)" "8 0"
hold_in "$A" a1 -n 3 -s 1M -c gm-q-a1 || tc_fail "A helper: $(helper_why a1)"
tc_eq "A's first 3 MiB" "$(out_total a1 ok) $(out_total a1 denied)" "3 0"
tc_eq "A usage (quotas)" "$(q_get /gpumem-q-a all usage)" $((3 * MiB))
tc_eq "A usage all devices (cgroups)" "$(cg_usage /gpumem-q-a all)" $((3 * MiB))
tc_eq "A usage $qxl (cgroups)" "$(cg_usage /gpumem-q-a "$qxl")" $((3 * MiB))
tc_eq "B usage $qxl (cgroups)" "$(cg_usage /gpumem-q-b "$qxl")" $((8 * MiB))
b_before=$(buf_regions "$b1_pid")
a_before=$(buf_regions "$a1_pid")
tc_eq "B's buffers before" "$b_before" "$(repeat 8 vram/2)"
tc_eq "A's buffers before" "$a_before" "$(repeat 3 vram/2)"
# 1 MiB fits (4 MiB), the second one is denied: gpumem-alloc fails with ENOMEM.
run_in "$A" a2 "$GM_ALLOC" alloc -d qxl -k vram -n 2 -s 1M -t 0 -c gm-q-a2
tc_eq "gpumem-alloc over the limit: exit status" "$a2_rc" 1
tc_eq "buffers it got" "$(grep -c '^BO ' "$GM_TMP/a2.out")" 1
grep -q 'DRM_IOCTL_QXL_ALLOC 1048576 bytes: Cannot allocate memory' "$GM_TMP/a2.out" ||
	tc_fail "no ENOMEM from gpumem-alloc: $(cat "$GM_TMP/a2.out")"
tc_eq "A usage after the denial (quotas)" "$(q_get /gpumem-q-a all usage)" $((3 * MiB))
tc_eq "A denied counter" "$(q_get /gpumem-q-a all denied)" 1
ctl_ok limit get "$A" --json
tc_eq "limit get usage/denied" "$(jget usage <"$GM_TMP/ctl.out")/$(jget denied <"$GM_TMP/ctl.out")" "$((3 * MiB))/1"
# B is not limited: 4 more MiB.
run_in "$B" b2 "$GM_ALLOC" alloc -d qxl -k vram -n 4 -s 1M -t 0 -c gm-q-b2
tc_eq "B's further allocations: exit status" "$b2_rc" 0
tc_end

tc_begin quota-enforce-no-eviction
tc_eq "B's buffers after A's denial" "$(buf_regions "$b1_pid")" "$b_before"
tc_eq "A's own buffers after its denial" "$(buf_regions "$a1_pid")" "$a_before"
tc_eq "B usage $qxl" "$(cg_usage /gpumem-q-b "$qxl")" $((8 * MiB))
tc_end

tc_begin quota-enforce-event
w_since "$m0"
tc_eq "events since the limit was set" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded cgroup_id="$(cgid /gpumem-q-a)" cgroup=/gpumem-q-a \
	pid="$a2_pid" comm=gm-q-a2 device="$qxl" region=vram requested="$MiB" \
	usage="$X" limit="$X" mode=enforce denied=true suppressed=0 missed=0
tc_end

# One process asking three times over the limit: three denied placements,
# three events (each is a new request, not TTM retrying the same one).
tc_begin quota-deny-per-request
m0=$(w_mark)
d0=$(q_get /gpumem-q-a all denied)
hold_in "$A" a3 -n 4 -s 1M -c gm-q-a3 || tc_fail "helper: $(helper_why a3)"
tc_eq "a3 got/denied" "$(out_total a3 ok) $(out_total a3 denied)" "1 3"
tc_eq "A usage" "$(q_get /gpumem-q-a all usage)" "$X"
tc_eq "A denied counter increase" $(($(num "$(q_get /gpumem-q-a all denied)") - $(num "$d0"))) 3
w_since "$m0"
tc_eq "events for the 3 denied requests" "$(echo "$ev" | grep -c '"pid":'"$a3_pid"',')" 3
stop a3
tc_eq "A usage after a3 exits" "$(q_get /gpumem-q-a all usage)" $((3 * MiB))
tc_end

# A limit below the current usage: nothing is evicted, one event (nothing
# requested), the next placement is denied.
tc_begin quota-set-below-usage
m0=$(w_mark)
ctl_ok limit set "$A" --max 2M
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
# The limit is on all devices (dev-id 0xffffffff, "all" in gpumemctl); no
# process requested anything.
ev_check "$ev" type=quota-exceeded cgroup_id="$(cgid /gpumem-q-a)" cgroup=/gpumem-q-a pid=null \
	device=all region=vram requested=0 usage=$((3 * MiB)) limit=$((2 * MiB)) mode=enforce denied=false
tc_eq "A's buffers" "$(buf_regions "$a1_pid")" "$a_before"
tc_eq "A usage" "$(q_get /gpumem-q-a all usage)" $((3 * MiB))
run_in "$A" a4 "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 64K -t 0 -c gm-q-a4
tc_eq "64 KiB over the lowered limit: exit status" "$a4_rc" 1
tc_end

tc_begin quota-raise-clear
ctl_ok limit set "$A" --max 8M
run_in "$A" a5 "$GM_ALLOC" alloc -d qxl -k vram -n 5 -s 1M -t 0 -c gm-q-a5
tc_eq "5 MiB more under the raised limit (8 MiB): exit status" "$a5_rc" 0
run_in "$A" a6 "$GM_ALLOC" alloc -d qxl -k vram -n 6 -s 1M -t 0 -c gm-q-a6
tc_eq "6 MiB more (9 MiB > 8 MiB): exit status" "$a6_rc" 1
tc_eq "buffers a6 got" "$(grep -c '^BO ' "$GM_TMP/a6.out")" 5
ctl_ok limit clear "$A"
ctl_ok limit list --json
grep -q '"cgroup":"/gpumem-q-a"' "$GM_TMP/ctl.out" && tc_fail "limit list still has A after clear"
tc_eq "quotas rows for A after clear" "$(snap quotas; tbl_count "$GM_TMP/quotas" cgroup=/gpumem-q-a)" 0
run_in "$A" a7 "$GM_ALLOC" alloc -d qxl -k vram -n 12 -s 1M -t 0 -c gm-q-a7
tc_eq "12 MiB more without a limit: exit status" "$a7_rc" 0
tc_eq "A usage" "$(cg_usage /gpumem-q-a all)" $((3 * MiB))
tc_end

tc_begin quota-exact-zero
ctl_ok limit set "$A" --max 4M
stop a1
stop b1
tc_eq "A usage after its processes exit (quotas)" "$(q_get /gpumem-q-a all usage)" 0
tc_eq "A usage all devices (cgroups)" "$(cg_usage /gpumem-q-a all)" 0
tc_eq "A usage $qxl (cgroups)" "$(cg_usage /gpumem-q-a "$qxl")" 0
tc_eq "B usage (cgroups)" "$(cg_usage /gpumem-q-b all) $(cg_usage /gpumem-q-b "$qxl")" "0 0"
tc_eq "B has no row" "$(grep -c '"cgroup":"/gpumem-q-b"' "$GM_TMP/cg.json")" 0
tc_end

tc_begin quota-event-seq
if ! out=$(seq_check); then
	tc_fail "$out"
fi
tc_num -ge "events seen" "$(wc -l <"$GM_TMP/w.out" | tr -d ' ')" 5
[ -s "$GM_TMP/w.err" ] && tc_fail "watch warnings: $(cat "$GM_TMP/w.err")"
tc_end

"$CTL" limit clear "$A" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
