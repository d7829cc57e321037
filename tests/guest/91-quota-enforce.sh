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

. "$(dirname "$0")/quota-lib.sh"

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
# The limit is on all devices: the event has no dev-id (uapi spec); no
# process requested anything.
ev_check "$ev" type=quota-exceeded cgroup_id="$(cgid /gpumem-q-a)" cgroup=/gpumem-q-a pid=null \
	device=null region=vram requested=0 usage=$((3 * MiB)) limit=$((2 * MiB)) mode=enforce denied=false
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
