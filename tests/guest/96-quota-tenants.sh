#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Events per tenant (kmod/events.c): every event is rate-limited per event
# type, cgroup and device, so one tenant's flood leaves another's events
# intact, and device-threshold events have hysteresis.
#  - tenant-denials-apart: A and B are children of P, which has the limit
#    (max 1 byte); with event_burst=5 and event_rate=1, A is denied 40
#    times, then B 3 times, then (2 s later) A once more. B's 3 events all
#    arrive, none suppressed (a bucket per limit, as before, gave B none);
#    A's events plus the suppressed counts they carry are exactly A's 41
#    denials.
#  - tenant-threshold-apart: A crosses a qxl threshold over and over
#    (threshold_hyst_pct=0: re-armed at every free) for 6 s with
#    event_burst=2, event_rate=1: some of A's device-threshold events are
#    suppressed (fewer events than cycles); then B crosses it
#    once and its event arrives, suppressed=0.
#  - threshold-hysteresis: buffers allocated and freed across the threshold
#    in a loop (a sawtooth) give exactly one device-threshold event while
#    the low mark (threshold_pct - threshold_hyst_pct) is below the lowest
#    usage; with the low mark between the lowest usage and the threshold,
#    every fall below it re-arms the event: more events come.
# Against the module before per-tenant buckets (main at c88d5dd, 6.12) all
# three fail: B got 0 of its 3 events and A's carried B's suppressions
# (44 for A's 41); A's threshold flood was not limited (13 events for 13
# cycles); the sawtooth gave 11 events, not 1.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="tenant-denials-apart tenant-threshold-apart threshold-hysteresis"

. "$(dirname "$0")/quota-lib.sh"

P=$GM_CGROOT/gpumem-q-ten
A=$P/a
B=$P/b
quota_setup "$P" "$A" "$B"
PAR=$GM_PARAMS
pct0=$(cat "$PAR/threshold_pct") hyst0=$(cat "$PAR/threshold_hyst_pct" 2>/dev/null)
rate0=$(cat "$PAR/event_rate") burst0=$(cat "$PAR/event_burst")
restore() {
	echo "$pct0" >"$PAR/threshold_pct"
	[ -n "$hyst0" ] && echo "$hyst0" >"$PAR/threshold_hyst_pct"
	echo "$rate0" >"$PAR/event_rate"
	echo "$burst0" >"$PAR/event_burst"
}
trap 'restore; _gm_cleanup' EXIT

# by_pid PID: the events of $ev from PID; sum_suppressed: their suppressed total
by_pid() { echo "$ev" | grep -F "\"pid\":$1,"; }
sum_suppressed() { awk -v k='"suppressed":' '{ i = index($0, k); if (!i) next
	s = substr($0, i + length(k)); sub(/[,}].*/, "", s); t += s } END { print t + 0 }'; }

tc_begin tenant-denials-apart
# the burst first: a bucket made before (a limit's, on main) starts full at 200
echo 5 >"$PAR/event_burst" && echo 1 >"$PAR/event_rate" || tc_fail "cannot set event_burst/event_rate"
ctl_ok limit set "$P" --max 1
m0=$(w_mark)
run_in "$A" a1 "$QA" deny -n 40 -s 64K -c gm-ten-a
run_in "$B" b1 "$QA" deny -n 3 -s 64K -c gm-ten-b
sleep 2	# one token for A again (event_rate 1/s)
run_in "$A" a2 "$QA" deny -n 1 -s 64K -c gm-ten-a
tc_eq "A's denials" "$(out_val a1 DENY denied) $(out_val a2 DENY denied)" "40 1"
tc_eq "B's denials" "$(out_val b1 DENY denied)" 3
w_since "$m0"
restore
evb=$(by_pid "$b1_pid")
tc_eq "B's quota-exceeded events (A's flood before them)" "$(echo "$evb" | grep -c '"type":"quota-exceeded"')" 3
tc_eq "suppressed in B's events" "$(echo "$evb" | sum_suppressed)" 0
eva=$( (by_pid "$a1_pid"; by_pid "$a2_pid") | grep -F '"type":"quota-exceeded"')
na=$(echo "$eva" | grep -c .)
sa=$(echo "$eva" | sum_suppressed)
log "A: $na events, carrying $sa suppressed"
tc_eq "A's events + the suppressed they carry" $((na + sa)) 41
tc_num -ge "suppressed carried by A's last event" "$(by_pid "$a2_pid" | sum_suppressed)" 1
tc_eq "every event names P's limit" "$( (echo "$evb"; echo "$eva") | grep -vc '"cgroup":"/gpumem-q-ten"')" 0
# raised inside the allocations, sent by the events' worker: none lost
tc_eq "events the watch saw missed (lost: gaps in the numbers)" \
	"$(echo "$ev" | grep -c '"missed":[1-9]')" 0
"$CTL" limit clear "$P" >/dev/null 2>&1
tc_end

# qxl's vram use, settled: stable within 1 MiB for 2 s in a row (at most 15 s;
# buffers of earlier tests may still be on TTM's delayed-delete list).
qxl_settled() {
	_i=0 _prev=-1 _still=0
	while [ $_i -lt 15 ] && [ $_still -lt 2 ]; do
		_u=$(num "$(dev_field "$qxl" vram used)")
		if [ "$_prev" -ge 0 ] && [ $((_u - _prev)) -lt "$MiB" ] && [ $((_prev - _u)) -lt "$MiB" ]; then
			_still=$((_still + 1))
		else
			_still=0
		fi
		_prev=$_u _i=$((_i + 1))
		sleep 1
	done
	echo "$_u"
}
# thr_setup ABOVE: threshold_pct = the smallest percentage ABOVE bytes over
# qxl's settled use; sets $cap $base $pct $thr.
thr_setup() {
	# Buffers freed but not yet destroyed (TTM deletes a fenced buffer
	# later, qxl signals lazily) still count in the managers' use until
	# TTM's next eviction walk, which the sawtooth's allocations would
	# run: its use would not rise. A denial (the sync event's) may run it,
	# but does not always reap them: gpumem's guard refuses evictions to
	# the denied task, and TTM asks eviction_valuable before it reaps a
	# deleted buffer. So $base may still count such buffers; they go
	# when qxl collects its releases, at any time later (a case that
	# needs a crossing measures the use again just before it).
	w_sync || tc_fail "the sync event did not arrive"
	base=$(qxl_settled)
	cap=$(num "$(dev_field "$qxl" vram capacity)")
	pct=$(( (base + $1) * 100 / cap + 1 ))
	thr=$(( cap * pct / 100 ))
	log "$qxl: capacity $cap, used $base: threshold_pct=$pct ($thr bytes)"
	echo "$pct" >"$PAR/threshold_pct" || tc_fail "threshold_pct: writing $pct failed"
}
# saw_in CG NAME MIB: a sawtooth of MIB 1 MiB buffers in CG, 150 ms up, 150 ms down.
saw_in() {
	spawn_cmd "$2" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$1" "$QA" saw -n "$3" -s 1M -p 150000 -t 60 -c "gm-$2"
}

tc_begin tenant-threshold-apart
thr_setup $((8 * MiB))
echo 0 >"$PAR/threshold_hyst_pct" || tc_fail "cannot set threshold_hyst_pct"
echo 2 >"$PAR/event_burst" && echo 1 >"$PAR/event_rate" || tc_fail "cannot set event_burst/event_rate"
m0=$(w_mark)
if saw_in "$A" sa 16; then
	sleep 6
	stop sa
	cycles=$(out_val sa SAW cycles)
	below() { [ "$(num "$(dev_field "$qxl" vram used)")" -le "$thr" ]; }
	wait_until 10 below || tc_fail "qxl vram still above $thr after A's sawtooth"
	# B crosses from the use now, not from $base: freed qxl buffers
	# counted in $base may have gone meanwhile (7.4 MB in failing runs,
	# where 16 x 1 MiB then ended 215 KB short of $thr).
	ub=$(num "$(dev_field "$qxl" vram used)")
	nb=$(( (thr - ub) / MiB + 9 ))	# ends 8..9 MiB above $thr
	hold_in "$B" hb -n "$nb" -s 1M -c gm-ten-hb || tc_fail "helper: $(helper_why hb)"
	uh=$(num "$(dev_field "$qxl" vram used)")
	log "B: $nb x 1 MiB from $ub: $uh while held (threshold $thr)"
	tc_num -gt "qxl vram use while B holds (above the threshold)" "$uh" "$thr"
	w_since "$m0"
	na=$(by_pid "$sa_pid" | grep -c '"type":"device-threshold"')
	log "A: $cycles sawtooth cycles, $na device-threshold events"
	tc_num -ge "A's sawtooth cycles" "$cycles" 10
	tc_num -lt "A's device-threshold events (burst 2 + 1/s)" "$na" "$cycles"
	evb=$(by_pid "$hb_pid" | grep -F '"type":"device-threshold"')
	tc_eq "B's device-threshold events" "$(echo "$evb" | grep -c .)" 1
	tc_eq "suppressed in B's event" "$(echo "$evb" | sum_suppressed)" 0
	stop hb
else
	tc_fail "sawtooth: $(helper_why sa)"
fi
restore
tc_end

tc_begin threshold-hysteresis
thr_setup $((8 * MiB))
# the low mark at 0: nothing re-arms the event
echo "$pct" >"$PAR/threshold_hyst_pct" || tc_fail "cannot set threshold_hyst_pct"
m0=$(w_mark)
if saw_in "$A" saw 16; then
	sleep 3
	w_since "$m0"
	# one crossing, whoever's allocation made it: the sawtooth's, or one
	# qxl makes for itself (4 KiB, no pid) while the sawtooth is up
	tc_eq "device-threshold events on $qxl with the low mark at 0 (a sawtooth below it)" \
		"$(echo "$ev" | grep -F "\"device\":\"$qxl\"" | grep -c '"type":"device-threshold"')" 1
	# the low mark 2 MiB above the sawtooth's bottom: every cycle re-arms
	h=$(( pct - ( (base + 2 * MiB) * 100 + cap - 1) / cap ))
	if [ "$h" -lt 1 ]; then
		tc_fail "no whole percentage between $base + 2 MiB and $thr (capacity $cap)"
	else
		log "threshold_hyst_pct=$h: low mark $((cap * (pct - h) / 100))"
		echo "$h" >"$PAR/threshold_hyst_pct" || tc_fail "cannot set threshold_hyst_pct"
		m1=$(w_mark)
		sleep 5
		w_since "$m1"
		n2=$(by_pid "$saw_pid" | grep -c '"type":"device-threshold"')
		log "sawtooth cycles so far: re-armed events $n2"
		tc_num -ge "device-threshold events once the low mark is above the bottom" "$n2" 2
	fi
	stop saw
else
	tc_fail "sawtooth: $(helper_why saw)"
fi
restore
tc_end

"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
