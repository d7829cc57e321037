#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Device-threshold events: with threshold_pct set so that a device region
# crosses it, exactly one device-threshold event comes when it does (device,
# region, requested, the threshold in bytes = capacity x pct / 100 of the
# region as the devices file shows it); crossing again after the usage went
# back below the low mark (threshold_pct - threshold_hyst_pct) gives one more
# (96-quota-tenants tests the hysteresis itself). Invalid values of threshold_pct, event_rate
# and event_burst are refused by the parameter write and change nothing.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-param-invalid quota-threshold-bochs quota-threshold-bochs-again quota-threshold-qxl"

. "$(dirname "$0")/quota-lib.sh"

quota_setup
PAR=$GM_PARAMS
pct0=$(cat "$PAR/threshold_pct")
trap 'echo "$pct0" >"$PAR/threshold_pct"; _gm_cleanup' EXIT

tc_begin quota-param-invalid
param_refuses threshold_pct 101 -1 abc 1000 4294967296 1.5
param_refuses threshold_hyst_pct 101 -1 abc 4294967296
for p in event_rate event_burst; do
	param_refuses $p 0 1000001 -1 abc 4294967296
done
param_accepts threshold_pct 0 100 "$pct0"
tc_end

# thr_events MARK: $ev = the device-threshold events since MARK.
thr_events() { w_since "$1"; ev=$(echo "$ev" | grep '"type":"device-threshold"'); }

# bochs (TTM VRAM on 6.x, 16 MiB): a pinned scanout buffer crosses a
# threshold just above the current use.
bochs=$(card_of bochs)
if [ -z "$bochs" ] || [ "$(bochs_expect_ttm)" != yes ]; then
	skip quota-threshold-bochs "no bochs device with TTM VRAM on this kernel"
	skip quota-threshold-bochs-again "no bochs device with TTM VRAM on this kernel"
elif ! spawn_cmd banchor "$QA" anchor -d bochs -t "$GM_HOLD"; then
	fail quota-threshold-bochs "bochs anchor: $(helper_why banchor)"
else
	tc_begin quota-threshold-bochs
	cap=$(dev_field "$bochs" vram capacity)
	used=$(dev_field "$bochs" vram used)
	# the smallest percentage above what is used plus 1 MiB (a scanout is >= 3 MiB)
	pct=$(( ($(num "$used") + MiB) * 100 / $(num "$cap") + 1 ))
	thr=$(( $(num "$cap") * pct / 100 ))
	log "$bochs: capacity $cap, used $used: threshold_pct=$pct ($thr bytes)"
	echo "$pct" >"$PAR/threshold_pct" || tc_fail "threshold_pct: writing $pct failed"
	m0=$(w_mark)
	if spawn_cmd s1 "$GM_ALLOC" alloc -d bochs -k scanout -t "$GM_HOLD" -c gm-q-thr1; then
		size=$(out_bo s1 0 size)
		thr_events "$m0"
		tc_eq "device-threshold events" "$(echo "$ev" | grep -c .)" 1
		ev_check "$ev" device="$bochs" region=vram pid="$s1_pid" comm=gm-q-thr1 requested="$size" \
			limit="$thr" cgroup_id=null
		tc_num -gt "event usage (above the threshold)" "$(echo "$ev" | jget usage)" "$thr"
	else
		tc_fail "scanout: $(helper_why s1)"
	fi
	tc_end

	# Back below the low mark (the scanout is unpinned and freed), then one
	# buffer crosses again in one step: one more event.
	tc_begin quota-threshold-bochs-again
	stop s1
	hyst=$(cat "$PAR/threshold_hyst_pct")
	low=$(( $(num "$cap") * (pct - (hyst < pct ? hyst : pct)) / 100 ))
	bochs_below() { [ "$(num "$(dev_field "$bochs" vram used)")" -lt "$low" ]; }
	wait_until 5 bochs_below ||
		tc_fail "$bochs vram used still $(dev_field "$bochs" vram used) >= $low (low mark) after the scanout exited"
	m0=$(w_mark)
	if spawn_cmd s2 "$GM_ALLOC" alloc -d bochs -k scanout -t "$GM_HOLD" -c gm-q-thr2; then
		thr_events "$m0"
		tc_eq "device-threshold events on the second crossing" "$(echo "$ev" | grep -c .)" 1
		ev_check "$ev" device="$bochs" pid="$s2_pid" limit="$thr"
		stop s2
	else
		tc_fail "scanout: $(helper_why s2)"
	fi
	tc_end
fi

# qxl: the vram region is two TTM managers (VRAM and the surface BAR); the
# threshold is a percentage of the region's capacity.
tc_begin quota-threshold-qxl
# Buffers the earlier tests freed may still be on TTM's delayed-delete list
# (seen: 40 MiB released while this test climbed): wait until qxl's used
# stays within 1 MiB for three seconds in a row (at most 30 s) before
# measuring it.
i=0 prev=-1 still=0
while [ $i -lt 30 ] && [ $still -lt 3 ]; do
	u=$(num "$(dev_field "$qxl" vram used)")
	if [ "$prev" -ge 0 ] && [ $((u - prev)) -lt "$MiB" ] && [ $((prev - u)) -lt "$MiB" ]; then
		still=$((still + 1))
	else
		still=0
	fi
	prev=$u i=$((i + 1))
	sleep 1
done
log "  $qxl used settled after $i s (stable for $still s)"
snap devices
cap=$(tbl_get "$GM_TMP/devices" capacity device="$qxl" region=vram)
used=$(tbl_get "$GM_TMP/devices" used device="$qxl" region=vram)
pct=$(( ($(num "$used") + 8 * MiB) * 100 / $(num "$cap") + 1 ))
thr=$(( $(num "$cap") * pct / 100 ))
# qxl's own release and console buffers come and go by several MiB (seen:
# 3 on 6.x, more on 7.3): end 24 MiB above the threshold so the region stays
# above it. Its own frees while we climb may re-arm the edge, so qxl is
# checked for at least one event with the right fields; exactly-once is
# checked on bochs, which has no buffers of its own coming and going.
n=$(( (thr - $(num "$used")) / MiB + 24 ))
log "$qxl: capacity $cap, used $used: threshold_pct=$pct ($thr bytes), allocating $n MiB"
echo "$pct" >"$PAR/threshold_pct" || tc_fail "threshold_pct: writing $pct failed"
m0=$(w_mark)
hold_in "$GM_CGROOT" q1 -n "$n" -s 1M -c gm-q-thr3 || tc_fail "helper: $(helper_why q1)"
tc_eq "MiB the helper got" "$(out_total q1 ok) $(out_total q1 denied)" "$n 0"
# Delayed deletes of earlier tests' buffers can still take tens of MiB away
# while we climb (seen once: the region ended below the threshold with the
# helper's 32 MiB in it). The premise is that the region ends above the
# threshold: if it does not, a second helper climbs the rest of the way.
pids=$q1_pid
after=$(num "$(dev_field "$qxl" vram used)")
if [ "$after" -le $((thr + MiB)) ]; then
	n2=$(( (thr - after) / MiB + 24 ))
	log "  $qxl used $after after the helper (threshold $thr): $n2 MiB more"
	hold_in "$GM_CGROOT" q2 -n "$n2" -s 1M -c gm-q-thr3 || tc_fail "helper: $(helper_why q2)"
	tc_eq "MiB the second helper got" "$(out_total q2 ok) $(out_total q2 denied)" "$n2 0"
	pids="$pids $q2_pid"
fi
thr_events "$m0"
tc_num -ge "device-threshold events" "$(echo "$ev" | grep -c .)" 1
ev=$(echo "$ev" | head -n 1)
ev_check "$ev" device="$qxl" region=vram limit="$thr" requested="$MiB" comm=gm-q-thr3
evpid=$(echo "$ev" | jget pid)
case " $pids " in
*" $evpid "*) log "  ok: event pid $evpid is a helper's ($pids)" ;;
*) tc_fail "event pid is '$evpid', want one of $pids" ;;
esac
tc_num -gt "event usage (above the threshold)" "$(num "$(echo "$ev" | jget usage)")" "$thr"
stop q1
stop q2
tc_end

echo "$pct0" >"$PAR/threshold_pct"
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
