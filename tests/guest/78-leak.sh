#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Leak suspicion (kmod/leak.c): with 1000 ms windows and leak_windows=3, three
# qxl allocators run at once, each in a cgroup of its own:
#   a staircase (quota-alloc stair: 256 KiB more every 300 ms, 20 steps, held)
#   a sawtooth  (quota-alloc saw: 2 x 1 MiB, held 150 ms, freed, again)
#   a plateau   (quota-alloc hold: 4 x 1 MiB at once, held)
# `gpumemctl watch --json` must show exactly one leak-suspect for the
# staircase's pid (its comm, cgroup, device, vram) and exactly one for its
# cgroup (no pid), each with a growth of at least 3 windows x 256 KiB, and
# none for the sawtooth and the plateau, their pids or cgroups. Invalid
# values of leak_window_ms and leak_windows are refused and change nothing.
# The parameters are restored at the end.
# Usage: run by the guest runner (scripts/run-guest.sh SERIES --only '78-*').
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="leak-param-invalid leak-staircase leak-sawtooth leak-plateau"

. "$(dirname "$0")/quota-lib.sh"

PAR=/sys/module/gpumem/parameters
[ -w "$PAR/leak_window_ms" ] || fail_all "no $PAR/leak_window_ms (gpumem without leak suspicion)"
CG_S=$GM_CGROOT/gm-leak-stair
CG_W=$GM_CGROOT/gm-leak-saw
CG_P=$GM_CGROOT/gm-leak-plat
quota_setup "$CG_S" "$CG_W" "$CG_P"
win0=$(cat "$PAR/leak_window_ms")
nwin0=$(cat "$PAR/leak_windows")
slack0=$(cat "$PAR/leak_slack")
trap 'echo "$nwin0" >"$PAR/leak_windows"; echo "$slack0" >"$PAR/leak_slack";
	echo "$win0" >"$PAR/leak_window_ms"; _gm_cleanup' EXIT

tc_begin leak-param-invalid
for p in leak_window_ms leak_windows; do
	v0=$(cat "$PAR/$p")
	case $p in
	leak_window_ms) vals="1 99 86400001 -1 abc 4294967296 1.5" ;;
	*) vals="0 1 1001 -1 abc 4294967296" ;;
	esac
	for v in $vals ""; do
		if echo "$v" >"$PAR/$p" 2>/dev/null; then
			tc_fail "$p: writing '$v' succeeded (now $(cat "$PAR/$p"))"
			echo "$v0" >"$PAR/$p"
		fi
		tc_eq "$p after writing '$v'" "$(cat "$PAR/$p")" "$v0"
	done
done
for v in 0 100 86400000 "$win0"; do
	echo "$v" >"$PAR/leak_window_ms" || tc_fail "leak_window_ms: writing $v failed"
	tc_eq "leak_window_ms after writing $v" "$(cat "$PAR/leak_window_ms")" "$v"
done
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
"$CTL" watch --type leak-suspect -t 120 >"$GM_TMP/lw.out" 2>"$GM_TMP/lw.err" &
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
in_cg saw "$CG_W" saw -n 2 -s 1M -p 150000 -t "$HOLD" -c gm-leak-saw ||
	fail_all "sawtooth: $(helper_why saw)"
in_cg plat "$CG_P" hold -n 4 -s 1M -t "$HOLD" -c gm-leak-plat ||
	fail_all "plateau: $(helper_why plat)"
# shellcheck disable=SC2154 # set by spawn_cmd through eval
for p in "$stair_pid" "$saw_pid" "$plat_pid"; do reap "$p" $((HOLD + 60)); done
# two more windows: nothing may come late either
sleep 2
w_since "$mark"
kill -TERM "$lw_pid" 2>/dev/null
reap "$lw_pid" 10
log "gpumemctl watch --type leak-suspect:"
sed 's/^/#   /' "$GM_TMP/lw.out" "$GM_TMP/lw.err"
leaks=$(echo "$ev" | grep '"type":"leak-suspect"')
log "leak-suspect events: $(echo "$leaks" | grep -c .)"

# leak_check WHAT LINE: the figures of one staircase event
leak_check() {
	_g=$(echo "$2" | jget growth)
	_u=$(echo "$2" | jget usage)
	_r=$(echo "$2" | jget rate)
	tc_num -ge "$1: growth" "$_g" $((NWIN * STEP))
	tc_num -le "$1: growth" "$_g" $((NSTEP * STEP))
	tc_eq "$1: growth in whole steps" $(($(num "$_g") % STEP)) 0
	tc_num -ge "$1: usage" "$_u" "$_g"
	tc_num -le "$1: usage" "$_u" $((NSTEP * STEP))
	tc_eq "$1: rate (growth per second)" "$_r" $(($(num "$_g") * 1000 / (NWIN * WIN)))
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
log "sawtooth: $cycles cycles"
# 2 x 150 ms a cycle: about 33 in 10 s; a slow kernel does fewer, but it
# must have freed in every window (at least one cycle a second)
tc_num -ge "sawtooth cycles" "$cycles" "$HOLD"
tc_eq "leak-suspect events of the sawtooth's pid" \
	"$(echo "$leaks" | grep -c "\"pid\":$saw_pid,")" 0
tc_eq "leak-suspect events of the sawtooth's cgroup" \
	"$(echo "$leaks" | grep -c "\"cgroup_id\":$(stat -c %i "$CG_W"),")" 0
tc_end

tc_begin leak-plateau
tc_eq "plateau buffers" "$(out_total plat ok)" 4
tc_eq "leak-suspect events of the plateau's pid" \
	"$(echo "$leaks" | grep -c "\"pid\":$plat_pid,")" 0
tc_eq "leak-suspect events of the plateau's cgroup" \
	"$(echo "$leaks" | grep -c "\"cgroup_id\":$(stat -c %i "$CG_P"),")" 0
tc_end

finish
