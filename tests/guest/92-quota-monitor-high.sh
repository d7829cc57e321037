#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quotas: monitor mode lets a placement beyond max through and reports it
# (denied=false, the limit's denied counter counts it), once per placement;
# a high (soft) limit produces one high-crossed event on the way up, none on
# the way down, and one again after the usage went back below it.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-monitor quota-monitor-each quota-high-crossed quota-high-rearm quota-monitor-high-seq"

. "$(dirname "$0")/quota-lib.sh"

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
ctl_ok limit set "$A" --max 16M --high 4M --replace --json
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
ctl_ok limit set "$A" --high 4M --replace --json
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
