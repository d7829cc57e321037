#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Failures inside gpumem (fault injection, kmod/fault_inject.c; the test
# kernel has CONFIG_FAULT_INJECTION_DEBUG_FS, Debian's kernels do not):
#  - gpumem out of memory for its charge records (fail_charge, only for the
#    helper's task): every allocation of the helper succeeds although it is
#    over its cgroup's 2 MiB limit, nothing is charged for them, and as soon
#    as gpumem has memory again the limit holds to the byte;
#  - the messages of two events cannot be allocated (fail_event, exactly
#    two failures, only the denied task's): those events are lost, but
#    their sequence numbers are taken, so the watch reports missed=2 on the
#    next event it gets, and the denied counter still counts every denial.
# Every case ends with the cgroup's usage back at 0.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-fault-charge quota-fault-event"
FC=$GM_DEBUGFS/fail_charge
FE=$GM_DEBUGFS/fail_event
if [ ! -d "$FC" ] || [ ! -d "$FE" ]; then
	for t in $CASES; do
		skip "$t" "no fault injection in this kernel ($FC, $FE: CONFIG_FAULT_INJECTION_DEBUG_FS)"
	done
	finish
fi

. "$(dirname "$0")/quota-lib.sh"

trap 'fault_off "$FC"; fault_off "$FE"; "$CTL" limit clear "$G" >/dev/null 2>&1; _gm_cleanup' EXIT

G=$GM_CGROOT/gpumem-q-fault
quota_setup "$G"

# failing_in NAME ARGS...: quota-alloc ARGS in $G with make-it-fail set (the
# faults' task filter), waits for READY as hold_in does
failing_in() {
	_n=$1
	shift
	spawn_cmd "$_n" sh -c 'echo 1 >/proc/self/make-it-fail && echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$G" "$QA" "$@"
}

tc_begin quota-fault-charge
ctl_ok limit set "$G" --max 2M
fault_on "$FC" 100 -1 Y || tc_fail "cannot arm $FC"
failing_in f1 hold -n 4 -s 1M -c gm-q-fault1 -t "$GM_HOLD" || tc_fail "helper: $(helper_why f1)"
tc_eq "allocations while gpumem has no memory (limit 2 MiB)" "$(out_total f1 ok) $(out_total f1 denied)" "4 0"
tc_eq "its buffers" "$(buf_regions "$f1_pid")" "$(repeat 4 vram/2)"
tc_eq "usage of the cgroup (nothing charged)" "$(q_get /gpumem-q-fault all usage)" 0
fault_off "$FC"
stop f1
hold_in "$G" f2 -n 3 -s 1M -c gm-q-fault2 || tc_fail "helper: $(helper_why f2)"
tc_eq "allocations with gpumem back to normal" "$(out_total f2 ok) $(out_total f2 denied)" "2 1"
tc_eq "usage with gpumem back to normal" "$(q_get /gpumem-q-fault all usage)" $((2 * MiB))
stop f2
tc_eq "usage after the helpers exited" "$(q_get /gpumem-q-fault all usage)" 0
tc_end

tc_begin quota-fault-event
ctl_ok limit set "$G" --max 1M
d0=$(q_get /gpumem-q-fault all denied)
m0=$(w_mark)
fault_on "$FE" 100 2 Y || tc_fail "cannot arm $FE"
run_in "$G" d1 sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh "$QA" deny -n 5 -s 2M -c gm-q-fault-d
fault_off "$FE"
tc_eq "denials" "$(out_val d1 DENY denied) $(out_val d1 DENY ok) $(out_val d1 DENY other)" "5 0 0"
tc_eq "failures injected (times left)" "$(cat "$FE/times")" 0
tc_eq "denied counter" "$(q_get /gpumem-q-fault all denied)" $(($(num "$d0") + 5))
w_since "$m0"
tc_eq "events received for the 5 denials" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-fault"')" 3
first=$(echo "$ev" | grep '"cgroup":"/gpumem-q-fault"' | head -n 1)
ev_check "$first" comm=gm-q-fault-d missed=2 denied=true
tc_eq "missed on the later events" "$(echo "$ev" | grep '"cgroup":"/gpumem-q-fault"' | sed -n '2,$p' | grep -c '"missed":0')" 2
tc_eq "usage after the denials" "$(q_get /gpumem-q-fault all usage)" 0
tc_end

finish
