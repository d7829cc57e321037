#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Leak suspicion (kmod/leak.c): with 1000 ms windows and leak_windows=3, three
# qxl allocators run at once, each in a cgroup of its own:
#   a staircase (quota-alloc stair: 256 KiB more every 300 ms, 20 steps, held)
#   a sawtooth  (quota-alloc saw: 2 + k x 256 KiB in cycle k, held 150 ms,
#               freed, again: rising peaks, over a floor of 4 x 256 KiB
#               held throughout)
#   a sawtooth with a falling floor (16 x 256 KiB held, one freed after
#               each cycle, the same rising peaks above it)
#   a plateau   (quota-alloc hold: 4 x 1 MiB at once, held)
# `gpumemctl watch --json` must show exactly one leak-suspect for the
# staircase's pid (its comm, cgroup, device, vram) and exactly one for its
# cgroup (no pid), each with a growth of at least 3 windows x 256 KiB, and
# none for the sawtooths and the plateau, their pids or cgroups (a
# detector keyed on the peaks, or on the value a window ends at, fails). While they
# run (after the staircase's event), `gpumemctl leaks --json` and debugfs
# `leaks` list exactly those two suspects among the test's pids and cgroups,
# with the event's figures; an unprivileged `gpumemctl leaks` is refused
# (exit 4) and changes nothing; once the staircase has exited it is listed
# no more; with dump_max_bytes at 16 bytes the list (netlink leak-get and
# debugfs) fails with EMSGSIZE. The worker ends each window in runs of at
# most leak_run_buckets hash buckets (debugfs stats: exactly ceil(buckets /
# run_buckets) runs a window end). Invalid values of leak_window_ms and
# leak_windows are refused and change nothing. The parameters are restored at the end.
# Usage: run by the guest runner (scripts/run-guest.sh SERIES --only '78-*').
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="leak-param-invalid leak-staircase leak-sawtooth leak-sawtooth-falling-floor leak-plateau
	leak-list leak-list-unpriv leak-list-capped leak-worker-bounded leak-list-gone"

. "$(dirname "$0")/quota-lib.sh"

PAR=/sys/module/gpumem/parameters
[ -w "$PAR/leak_window_ms" ] || fail_all "no $PAR/leak_window_ms (gpumem without leak suspicion)"
CG_S=$GM_CGROOT/gm-leak-stair
CG_W=$GM_CGROOT/gm-leak-saw
CG_F=$GM_CGROOT/gm-leak-sawf
CG_P=$GM_CGROOT/gm-leak-plat
quota_setup "$CG_S" "$CG_W" "$CG_F" "$CG_P"
win0=$(cat "$PAR/leak_window_ms")
nwin0=$(cat "$PAR/leak_windows")
slack0=$(cat "$PAR/leak_slack")
runs0=$(stat_value leak_runs)
passes0=$(stat_value leak_passes)
trap '[ -n "$cap0" ] && echo "$cap0" >"$PAR/dump_max_bytes";
	echo "$nwin0" >"$PAR/leak_windows"; echo "$slack0" >"$PAR/leak_slack";
	echo "$win0" >"$PAR/leak_window_ms"; _gm_cleanup' EXIT

tc_begin leak-param-invalid
param_refuses leak_window_ms 1 99 86400001 -1 abc 4294967296 1.5
param_refuses leak_windows 0 1 1001 -1 abc 4294967296
param_accepts leak_window_ms 0 100 86400000 "$win0"
tc_end

WIN=1000
NWIN=3
STEP=262144	# 256 KiB
NSTEP=20
HOLD=10		# seconds each helper runs
# the windows start afresh when leak_window_ms is written: last
if ! { echo "$NWIN" >"$PAR/leak_windows" && echo 4096 >"$PAR/leak_slack" &&
	echo "$WIN" >"$PAR/leak_window_ms"; }; then
	fail_all "cannot set the leak parameters"
fi
mark=$(w_mark)
# the suspects as a person sees them: the text watch, leak-suspect only
"$CTL" watch --type leak-suspect -t 120 >"$GM_TMP/lw.out" 2>"$GM_TMP/lw.err" 8>&- &
lw_pid=$!
GM_PIDS="$GM_PIDS $lw_pid"
# in_cg NAME CGDIR ARGS...: quota-alloc ARGS in CGDIR; waits for READY.
in_cg() {
	_n=$1 _cg=$2
	shift 2
	spawn_cmd "$_n" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$_cg" "$QA" "$@"
}
in_cg stair "$CG_S" stair -n "$NSTEP" -s "$STEP" -p 300000 -t "$HOLD" -c gm-leak-stair ||
	fail_all "staircase: $(helper_why stair)"
in_cg saw "$CG_W" saw -n 2 -s "$STEP" -f 4 -r -p 150000 -t "$HOLD" -c gm-leak-saw ||
	fail_all "sawtooth: $(helper_why saw)"
in_cg sawf "$CG_F" saw -n 2 -s "$STEP" -f 16 -F -r -p 150000 -t "$HOLD" -c gm-leak-sawf ||
	fail_all "sawtooth with a falling floor: $(helper_why sawf)"
in_cg plat "$CG_P" hold -n 4 -s 1M -t "$HOLD" -c gm-leak-plat ||
	fail_all "plateau: $(helper_why plat)"
# the suspects now, once the staircase's event came (it is one until its
# helper exits: its floor never falls back)
t=0
# shellcheck disable=SC2154 # set by spawn_cmd through eval
# (and its cgroup's: the cgroups' counters come a few runs of the leak
# worker after the processes')
until { grep -q " pid $stair_pid " "$GM_TMP/lw.out" &&
	[ "$(grep -c "leak-suspect cgroup /gm-leak-stair card" "$GM_TMP/lw.out")" -ge 1 ]; } ||
	[ $t -ge $((HOLD * 5)) ]; do
	sleep 0.2
	t=$((t + 1))
done
"$CTL" leaks --json >"$GM_TMP/leaks.json" 2>"$GM_TMP/leaks.err"
leaks_rc=$?
cp /sys/kernel/debug/gpumem/leaks "$GM_TMP/leaks.dbg" 2>"$GM_TMP/leaks.dbg.err"
leaks_dbg_rc=$?
"$GM_BIN/gm-nsexec" -u 65534 -- "$CTL" leaks --json >"$GM_TMP/leaks.unpriv" 2>&1
unpriv_rc=$?
# the list kept for a reader is capped (dump_max_bytes): 16 bytes hold no row
cap0=$(cat "$PAR/dump_max_bytes")
echo 16 >"$PAR/dump_max_bytes"
"$CTL" leaks --json >"$GM_TMP/leaks.cap" 2>&1
cap_rc=$?
cat /sys/kernel/debug/gpumem/leaks >"$GM_TMP/leaks.dbgcap" 2>&1
cap_dbg_rc=$?
echo "$cap0" >"$PAR/dump_max_bytes"
"$CTL" leaks --json >"$GM_TMP/leaks2.json" 2>&1
leaks2_rc=$?
stair_alive=0
kill -0 "$stair_pid" 2>/dev/null && stair_alive=1
for p in "$stair_pid" "$saw_pid" "$sawf_pid" "$plat_pid"; do reap "$p" $((HOLD + 60)); done
# the staircase's buffers are freed: its rows go (a delayed free may lag)
t=0
while "$CTL" leaks --json >"$GM_TMP/leaks3.json" 2>&1 &&
	grep -q -e "\"pid\":$stair_pid," -e "\"cgroup_id\":$(stat -c %i "$CG_S")," \
		"$GM_TMP/leaks3.json" && [ $t -lt 50 ]; do
	sleep 0.2
	t=$((t + 1))
done
# two more windows: nothing may come late either
sleep 2
w_since "$mark"
kill -TERM "$lw_pid" 2>/dev/null
reap "$lw_pid" 10
log "gpumemctl watch --type leak-suspect:"
sed 's/^/#   /' "$GM_TMP/lw.out" "$GM_TMP/lw.err"
leaks=$(echo "$ev" | grep '"type":"leak-suspect"')
log "leak-suspect events: $(echo "$leaks" | grep -c .)"

# leak_check WHAT LINE: the figures of one staircase suspect, an event's or
# a listed one's: growth in whole steps within what the staircase did, the
# windows it rose over (an event's: exactly NWIN, checked by ev_check; a
# listed one's: since the rise began), the rate = growth per second over them
leak_check() {
	_g=$(echo "$2" | jget growth)
	_u=$(echo "$2" | jget usage)
	_w=$(echo "$2" | jget windows)
	tc_num -ge "$1: growth" "$_g" $((NWIN * STEP))
	tc_num -le "$1: growth" "$_g" $((NSTEP * STEP))
	tc_eq "$1: growth in whole steps" $(($(num "$_g") % STEP)) 0
	tc_num -ge "$1: usage" "$_u" "$_g"
	tc_num -le "$1: usage" "$_u" $((NSTEP * STEP))
	tc_num -ge "$1: windows" "$_w" "$NWIN"
	tc_num -le "$1: windows" "$_w" $((HOLD + 5))
	[ "$(num "$_w")" -gt 0 ] &&
		tc_eq "$1: rate (growth per second)" "$(echo "$2" | jget rate)" \
			$(($(num "$_g") * 1000 / ($(num "$_w") * WIN)))
}

tc_begin leak-staircase
tc_eq "staircase steps" "$(out_total stair ok)" "$NSTEP"
cgid_s=$(stat -c %i "$CG_S")
mine=$(echo "$leaks" | grep "\"pid\":$stair_pid,")
tc_eq "leak-suspect events of the staircase's pid" "$(echo "$mine" | grep -c .)" 1
if [ -n "$mine" ]; then
	ev_check "$mine" comm=gm-leak-stair cgroup=/gm-leak-stair cgroup_id="$cgid_s" \
		device="$qxl" region=vram windows="$NWIN" window_ms="$WIN" missed=0
	leak_check process "$mine"
fi
cgl=$(echo "$leaks" | grep '"pid":null' | grep "\"cgroup_id\":$cgid_s,")
tc_eq "leak-suspect events of the staircase's cgroup" "$(echo "$cgl" | grep -c .)" 1
if [ -n "$cgl" ]; then
	ev_check "$cgl" cgroup=/gm-leak-stair device="$qxl" region=vram windows="$NWIN" \
		window_ms="$WIN" comm=null
	leak_check cgroup "$cgl"
fi
# the text watch: only leak-suspect lines (the sync events are quota-exceeded),
# one for the staircase's pid, one for its cgroup
tc_eq "watch --type leak-suspect: other lines" \
	"$(grep -Evc '^[0-9-]+ [0-9:]+ leak-suspect ' "$GM_TMP/lw.out")" 0
tc_eq "watch --type leak-suspect: lines of the staircase's pid" \
	"$(grep -Ec "^[0-9-]+ [0-9:]+ leak-suspect cgroup /gm-leak-stair pid $stair_pid \(gm-leak-stair\) $qxl vram: usage [0-9.]+ [KMG]?i?B, growth [0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s; over $NWIN windows of $WIN ms\$" "$GM_TMP/lw.out")" 1
tc_eq "watch --type leak-suspect: lines of the staircase's cgroup" \
	"$(grep -Ec "^[0-9-]+ [0-9:]+ leak-suspect cgroup /gm-leak-stair $qxl vram: usage [0-9.]+ [KMG]?i?B, growth [0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s; over $NWIN windows of $WIN ms\$" "$GM_TMP/lw.out")" 1
tc_end

tc_begin leak-sawtooth
cycles=$(out_val saw SAW cycles)
log "sawtooth: $(grep '^SAW' "$GM_TMP/saw.out")"
# 2 x 150 ms a cycle: about 33 in 10 s; a slow kernel does fewer, but it
# must have freed in every window (at least one cycle a second)
tc_num -ge "sawtooth cycles" "$cycles" "$HOLD"
tc_eq "its floor at the end (fixed: 4 buffers)" "$(out_val saw SAW floor)" 4
# peaks rose by one buffer a cycle, to at most 8 (4 x 2)
p_want=$((2 + cycles - 1))
[ "$p_want" -gt 8 ] && p_want=8
tc_eq "its highest peak (buffers)" "$(out_val saw SAW peak)" "$p_want"
tc_eq "leak-suspect events of the sawtooth's pid" \
	"$(echo "$leaks" | grep -c "\"pid\":$saw_pid,")" 0
tc_eq "leak-suspect events of the sawtooth's cgroup" \
	"$(echo "$leaks" | grep -c "\"cgroup_id\":$(stat -c %i "$CG_W"),")" 0
tc_end

tc_begin leak-sawtooth-falling-floor
cycles=$(out_val sawf SAW cycles)
log "sawtooth with a falling floor: $(grep '^SAW' "$GM_TMP/sawf.out")"
tc_num -ge "cycles" "$cycles" "$HOLD"
f_want=$((16 - cycles))
[ "$f_want" -lt 0 ] && f_want=0
tc_eq "its floor at the end (16 buffers, one fewer a cycle)" "$(out_val sawf SAW floor)" "$f_want"
tc_eq "leak-suspect events of its pid" "$(echo "$leaks" | grep -c "\"pid\":$sawf_pid,")" 0
tc_eq "leak-suspect events of its cgroup" \
	"$(echo "$leaks" | grep -c "\"cgroup_id\":$(stat -c %i "$CG_F"),")" 0
tc_end

tc_begin leak-plateau
tc_eq "plateau buffers" "$(out_total plat ok)" 4
tc_eq "leak-suspect events of the plateau's pid" \
	"$(echo "$leaks" | grep -c "\"pid\":$plat_pid,")" 0
tc_eq "leak-suspect events of the plateau's cgroup" \
	"$(echo "$leaks" | grep -c "\"cgroup_id\":$(stat -c %i "$CG_P"),")" 0
tc_end

tc_begin leak-list
log "gpumemctl leaks --json (exit $leaks_rc):"
sed 's/^/#   /' "$GM_TMP/leaks.json" "$GM_TMP/leaks.err"
log "debugfs leaks (cp exit $leaks_dbg_rc):"
sed 's/^/#   /' "$GM_TMP/leaks.dbg" "$GM_TMP/leaks.dbg.err"
tc_eq "staircase still running when listed" "$stair_alive" 1
tc_eq "gpumemctl leaks exit status" "$leaks_rc" 0
mine=$(grep "\"pid\":$stair_pid," "$GM_TMP/leaks.json")
tc_eq "listed suspects of the staircase's pid" "$(echo "$mine" | grep -c .)" 1
if [ -n "$mine" ]; then
	ev_check "$mine" comm=gm-leak-stair cgroup=/gm-leak-stair cgroup_id="$cgid_s" \
		device="$qxl" region=vram window_ms="$WIN"
	leak_check "listed process" "$mine"
	tc_num -le "listed process: since_ms" "$(echo "$mine" | jget since_ms)" $(((HOLD + 5) * 1000))
fi
cgl=$(grep '"pid":null' "$GM_TMP/leaks.json" | grep "\"cgroup_id\":$cgid_s,")
tc_eq "listed suspects of the staircase's cgroup" "$(echo "$cgl" | grep -c .)" 1
if [ -n "$cgl" ]; then
	ev_check "$cgl" comm=null cgroup=/gm-leak-stair device="$qxl" region=vram \
		window_ms="$WIN"
	leak_check "listed cgroup" "$cgl"
	tc_num -le "listed cgroup: since_ms" "$(echo "$cgl" | jget since_ms)" $(((HOLD + 5) * 1000))
fi
for p in "$saw_pid" "$sawf_pid" "$plat_pid"; do
	tc_eq "listed suspects of pid $p (sawtooth or plateau)" \
		"$(grep -c "\"pid\":$p," "$GM_TMP/leaks.json")" 0
done
for c in "$CG_W" "$CG_F" "$CG_P"; do
	tc_eq "listed suspects of cgroup $c" \
		"$(grep -c "\"cgroup_id\":$(stat -c %i "$c")," "$GM_TMP/leaks.json")" 0
done
# debugfs: the same two rows (figures read a moment apart: their shape)
tc_eq "debugfs leaks: header" "$(head -n1 "$GM_TMP/leaks.dbg")" \
	"device region pid comm cgroup_id cgroup usage growth rate windows since_ms"
tc_eq "debugfs leaks: the staircase's pid" \
	"$(grep -Ec "^$qxl vram $stair_pid gm-leak-stair $cgid_s /gm-leak-stair [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+\$" "$GM_TMP/leaks.dbg")" 1
tc_eq "debugfs leaks: the staircase's cgroup" \
	"$(grep -Ec "^$qxl vram - - $cgid_s /gm-leak-stair [0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+\$" "$GM_TMP/leaks.dbg")" 1
tc_eq "debugfs leaks: rows of the sawtooths and the plateau" \
	"$(grep -Ec " ($saw_pid|$sawf_pid|$plat_pid) | ($(stat -c %i "$CG_W")|$(stat -c %i "$CG_F")|$(stat -c %i "$CG_P")) " "$GM_TMP/leaks.dbg")" 0
tc_end

tc_begin leak-list-unpriv
log "gpumemctl leaks as uid 65534 (exit $unpriv_rc): $(cat "$GM_TMP/leaks.unpriv")"
tc_eq "gpumemctl leaks as uid 65534: exit status (permission denied)" "$unpriv_rc" 4
tc_eq "gpumemctl leaks as uid 65534: rows printed" \
	"$(grep -c '"pid"' "$GM_TMP/leaks.unpriv")" 0
# reading changed nothing: the suspects are still listed, and no second
# event came for them (leak-staircase counts the events)
tc_eq "gpumemctl leaks again: exit status" "$leaks2_rc" 0
tc_eq "listed again: the staircase's pid" "$(grep -c "\"pid\":$stair_pid," "$GM_TMP/leaks2.json")" 1
tc_eq "listed again: the staircase's cgroup" \
	"$(grep '"pid":null' "$GM_TMP/leaks2.json" | grep -c "\"cgroup_id\":$cgid_s,")" 1
tc_end

tc_begin leak-list-capped
log "gpumemctl leaks with a 16-byte cap (exit $cap_rc): $(head -c 300 "$GM_TMP/leaks.cap")"
log "debugfs leaks with a 16-byte cap (exit $cap_dbg_rc): $(head -c 300 "$GM_TMP/leaks.dbgcap")"
tc_num -ne "gpumemctl leaks exit status with a 16-byte cap" "$cap_rc" 0
tc_num -ne "read of debugfs leaks: exit status with a 16-byte cap" "$cap_dbg_rc" 0
grep -q 'Message too long' "$GM_TMP/leaks.dbgcap" ||
	tc_fail "debugfs leaks did not fail with EMSGSIZE: $(head -c 200 "$GM_TMP/leaks.dbgcap")"
check_cap_error "gpumemctl leaks" "$GM_TMP/leaks.cap"
tc_end

# The leak worker ends a window in runs of at most leak_run_buckets hash
# buckets: the last window end took exactly ceil(leak_buckets /
# leak_run_buckets) runs, and every window end of the test (one a second)
# took that many runs (one going on at each end of the test aside).
tc_begin leak-worker-bounded
nb=$(stat_value leak_buckets)
rb=$(stat_value leak_run_buckets)
runs=$(($(stat_value leak_runs) - runs0))
passes=$(($(stat_value leak_passes) - passes0))
R=$(((nb + rb - 1) / rb))
log "leak worker: $passes window ends in $runs runs; $nb buckets, $rb a run"
tc_num -gt "buckets a run visits (leak_run_buckets)" "$rb" 0
tc_num -lt "buckets a run visits: fewer than a window end's" "$rb" "$nb"
tc_eq "runs of the last window end (leak_pass_runs)" "$(stat_value leak_pass_runs)" "$R"
tc_num -ge "window ends during the test" "$passes" 5
tc_num -ge "runs during the test" "$runs" $(((passes - 1) * R + 1))
tc_num -le "runs during the test (a window end restarted by each parameter set)" "$runs" $(((passes + 5) * R))
tc_end

tc_begin leak-list-gone
log "gpumemctl leaks --json after the helpers exited:"
sed 's/^/#   /' "$GM_TMP/leaks3.json"
tc_eq "listed suspects of the staircase's pid after its exit" \
	"$(grep -c "\"pid\":$stair_pid," "$GM_TMP/leaks3.json")" 0
tc_eq "listed suspects of the staircase's cgroup after its exit" \
	"$(grep -c "\"cgroup_id\":$cgid_s," "$GM_TMP/leaks3.json")" 0
tc_end

finish
