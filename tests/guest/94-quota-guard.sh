#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The eviction guard has no ceiling: 100 processes of a cgroup whose limit
# is exceeded ask for VRAM at the same moment (4 vCPUs, multi-threaded
# TCG), while a neighbour in another cgroup keeps 8 MiB resident in qxl's
# VRAM. Every request is denied and counted, and not one of the
# neighbour's buffers is evicted to make room for them (the old guard had
# 64 slots: the 65th denied task made TTM evict its neighbours).
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-guard-all-denied quota-guard-neighbour-resident quota-guard-exact-zero"

. "$(dirname "$0")/quota-lib.sh"

D=$GM_CGROOT/gpumem-q-guard
N=$GM_CGROOT/gpumem-q-guard-nb
quota_setup "$D" "$N"
procs=100 per=2
ctl_ok limit set "$D" --max 1
hold_in "$N" nb -n 8 -s 1M -c gm-q-guard-nb || fail_all "neighbour: $(helper_why nb)"
nb_before=$(buf_regions "$nb_pid")
d0=$(num "$(q_get /gpumem-q-guard all denied)")

rm -f "$GM_TMP/go"
sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$D" \
	"$QA" swarm -P "$procs" -n "$per" -s 1M -g "$GM_TMP/go" -c gm-q-guard \
	>"$GM_TMP/sw.out" 2>&1 8>&- &
sw_pid=$!
GM_PIDS="$GM_PIDS $sw_pid"
armed() { grep -q '^ARMED ' "$GM_TMP/sw.out"; }
wait_until 120 armed || fail_all "the $procs processes did not all start: $(tail -n 3 "$GM_TMP/sw.out")"
log "$procs processes armed on $(grep -c '^processor' /proc/cpuinfo) CPUs"
touch "$GM_TMP/go"
done_all() { grep -q '^READY ' "$GM_TMP/sw.out"; }
wait_until 120 done_all || fail_all "the $procs processes did not finish: $(tail -n 3 "$GM_TMP/sw.out")"
ok=$(awk '$1 == "TOTAL" { sub("ok=", "", $2); print $2 }' "$GM_TMP/sw.out")
den=$(awk '$1 == "TOTAL" { sub("denied=", "", $3); print $3 }' "$GM_TMP/sw.out")
reap "$sw_pid" 10

tc_begin quota-guard-all-denied
tc_eq "buffers the $procs processes got" "$ok" 0
tc_eq "requests denied" "$den" $((procs * per))
tc_eq "the cgroup's denied counter" "$(($(num "$(q_get /gpumem-q-guard all denied)") - d0))" $((procs * per))
tc_end

tc_begin quota-guard-neighbour-resident
tc_eq "neighbour's buffers before" "$nb_before" "$(repeat 8 vram/2)"
tc_eq "neighbour's buffers after $((procs * per)) denials" "$(buf_regions "$nb_pid")" "$nb_before"
tc_eq "neighbour usage" "$(cg_usage /gpumem-q-guard-nb all)" $((8 * MiB))
tc_end

tc_begin quota-guard-exact-zero
tc_eq "usage of the denied cgroup" "$(q_get /gpumem-q-guard all usage)" 0
stop nb
tc_eq "neighbour usage after it exited" "$(cg_usage /gpumem-q-guard-nb all)" 0
tc_end

"$CTL" limit clear "$D" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
