#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A placement a user task makes on a buffer owner's behalf is a request in
# the owner's name (docs/limits.md, "Who may place an owner's buffer"): on qxl, a
# process P of cgroup O allocates a 1 MiB VRAM buffer X and forks a child
# C that moves to a sibling cgroup S, keeping the DRM file (and X's handle).
# A process E of a third cgroup B fills VRAM: TTM evicts X to system
# memory in E's task (TTM's move, not a request: nobody is denied for it).
# O then holds 2 MiB more, reaching its 2 MiB max on qxl. C's
# QXL_UPDATE_AREA makes qxl validate X into VRAM again: that is O's
# request from another cgroup, and it is denied (O's usage stays at its
# max, S pays nothing, the event names O's process and C); once O is back
# under its max the same request succeeds and is charged to O, not to S.
# Before this rule, C's placement was "forced": charged to O beyond its max.
# qxl's UPDATE_AREA keeps the buffer reserved when its validation fails (a
# driver bug, see kmod/evict_guard.c): gpumem releases that reservation
# before C is back in user space (hook_resv_released), so X stays usable.
# Until then the ioctl core runs with it held, which lockdep reports: on a
# kernel with lockdep (the test series) C's denied request is an
# EXECBUFFER referring to X instead (qxl validates X the same way and backs
# off cleanly); its release buffer is qxl's, made in C's task and so
# charged to S, never X.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-sibling-evicted quota-sibling-denied quota-sibling-event quota-sibling-within-max"

. "$(dirname "$0")/quota-lib.sh"

O=$GM_CGROOT/gpumem-q-sib-o
S=$GM_CGROOT/gpumem-q-sib-s
B=$GM_CGROOT/gpumem-q-sib-b
quota_setup "$O" "$S" "$B"
go=$GM_TMP/sib-go
rm -f "$go".*
ctl_ok limit set "$O" --max 2M --device "$qxl"
ctl_ok limit set "$S" --max 2M --device "$qxl"
usage_of() { _u=$(q_get "$1" "$qxl" usage); echo "${_u:-0}"; }

tc_begin quota-sibling-evicted
spawn_cmd p sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
	sh "$O" "$QA" replace -n 1 -s 1M -g "$go" -o "$S" -t "$GM_HOLD" -c gm-q-sib-p ||
	fail_all "replace helper: $(helper_why p)"
c_pid=$(out_val p CHILD pid)
tc_eq "the child's cgroup" "$(cut -d: -f3 "/proc/$c_pid/cgroup")" /gpumem-q-sib-s
tc_eq "X in VRAM" "$(buf_regions "$p_pid")" "$(repeat 1 vram/2)"
tc_eq "O usage with X in VRAM" "$(usage_of /gpumem-q-sib-o)" "$MiB"
# E fills qxl's VRAM (more than it has): X, the oldest, goes to system
hold_in "$B" e -n 96 -s 1M -c gm-q-sib-e || tc_fail "filler: $(helper_why e)"
tc_eq "X after E filled VRAM" "$(buf_regions "$p_pid")" "$(repeat 1 system/0)"
tc_eq "O usage with X evicted" "$(usage_of /gpumem-q-sib-o)" 0
tc_eq "O denied counter (an eviction is no request)" "$(q_get /gpumem-q-sib-o "$qxl" denied)" 0
stop e
tc_eq "B usage after E exited" "$(cg_usage /gpumem-q-sib-b "$qxl")" 0
tc_end

tc_begin quota-sibling-denied
hold_in "$O" o2 -n 2 -s 1M -c gm-q-sib-o2 || tc_fail "O's helper: $(helper_why o2)"
tc_eq "o2 got/denied" "$(out_total o2 ok) $(out_total o2 denied)" "2 0"
tc_eq "O usage at its max" "$(usage_of /gpumem-q-sib-o)" $((2 * MiB))
m0=$(w_mark)
r0=$(stat_value hook_resv_released)
if [ -e /proc/lockdep ]; then via=exec; else via=update; fi
echo "$via" >"$go.1.tmp" && mv "$go.1.tmp" "$go.1"
wait_until 30 grep -q '^ROUND 1 ' "$GM_TMP/p.out" || tc_fail "the child's pass 1 did not end: $(helper_why p)"
tc_eq "C's $via of X: ok/denied/via" "$(out_val p ROUND ok) $(out_val p ROUND denied) $(out_val p ROUND via)" "0 1 $via"
if [ "$via" = update ]; then
	tc_eq "hook_resv_released rose by (qxl kept X reserved)" "$(($(stat_value hook_resv_released) - r0))" 1
else
	tc_eq "hook_resv_released rose by (EXECBUFFER backs off)" "$(($(stat_value hook_resv_released) - r0))" 0
fi
tc_eq "X stays in system memory" "$(buf_regions "$p_pid")" "$(repeat 1 system/0)"
tc_eq "O usage (still at its max)" "$(usage_of /gpumem-q-sib-o)" $((2 * MiB))
if [ "$via" = update ]; then
	tc_eq "S usage" "$(usage_of /gpumem-q-sib-s)" 0
else
	tc_num -lt "S usage (qxl's release buffer at most, not X)" "$(usage_of /gpumem-q-sib-s)" "$MiB"
fi
tc_eq "O denied counter" "$(q_get /gpumem-q-sib-o "$qxl" denied)" 1
tc_eq "S denied counter" "$(q_get /gpumem-q-sib-s "$qxl" denied)" 0
tc_eq "o2's buffers stay in VRAM (the denial evicted nothing)" "$(buf_regions "$o2_pid")" "$(repeat 2 vram/2)"
tc_end

tc_begin quota-sibling-event
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded cgroup=/gpumem-q-sib-o pid="$p_pid" comm=gm-q-sib-p \
	req_pid="$c_pid" req_comm=gm-replace-c device="$qxl" region=vram requested="$MiB" \
	usage=$((2 * MiB)) limit=$((2 * MiB)) mode=enforce denied=true
tc_end

# Back under its max, the same request from S succeeds: charged to O.
tc_begin quota-sibling-within-max
stop o2
tc_eq "O usage after o2 exited" "$(usage_of /gpumem-q-sib-o)" 0
touch "$go.2"
wait_until 30 grep -q '^ROUND 2 ' "$GM_TMP/p.out" || tc_fail "the child's pass 2 did not end: $(helper_why p)"
tc_eq "C's UPDATE_AREA of X: ok/denied" "$(awk '$1 == "ROUND" && $2 == 2 { print $3, $4, $5 }' "$GM_TMP/p.out")" "ok=1 denied=0 via=update"
tc_eq "X back in VRAM" "$(buf_regions "$p_pid")" "$(repeat 1 vram/2)"
tc_eq "O usage (X is O's)" "$(usage_of /gpumem-q-sib-o)" "$MiB"
if [ "$via" = update ]; then
	tc_eq "S usage" "$(usage_of /gpumem-q-sib-s)" 0
else
	tc_num -lt "S usage (qxl's release buffer at most, not X)" "$(usage_of /gpumem-q-sib-s)" "$MiB"
fi
tc_eq "O denied counter" "$(q_get /gpumem-q-sib-o "$qxl" denied)" 1
stop p
tc_eq "O usage after P and C exited" "$(usage_of /gpumem-q-sib-o)" 0
tc_end

"$CTL" limit clear "$O" >/dev/null 2>&1
"$CTL" limit clear "$S" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
