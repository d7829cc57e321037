#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Ownerless stays ownerless (docs/limits.md, "Unattributed placements"): a process
# P of cgroup A allocates two 1 MiB qxl VRAM buffers while gpumem is not
# loaded; gpumem is loaded; a process E of cgroup B fills VRAM, so that TTM
# evicts P's buffers to system memory in E's task; E exits; P re-places
# them (QXL_UPDATE_AREA validates each into VRAM again). Nobody's usage
# moves for them, they are counted as unattributed (hook statistic and the
# device's unattributed bytes in debugfs stats), and nobody is denied for
# them afterwards: B and A each get exactly their max. Before, E became
# their owner at the eviction, P's re-placement was charged to B (2 MiB
# after E had exited) and B's next allocation was denied.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-preload-evicted quota-preload-replaced quota-preload-nobody-denied"

. "$(dirname "$0")/quota-lib.sh"

if ! grep -q '^gpumem ' /proc/modules; then
	for t in $CASES; do fail "$t" "gpumem is not a loaded module here"; done
	finish
fi
ensure_loaded() { grep -q '^gpumem ' /proc/modules || load_gpumem; }
# The console's blinking cursor makes qxl allocate release buffers from a
# kernel worker (unattributed too): off while the unattributed figures are
# compared.
blink=/sys/class/graphics/fbcon/cursor_blink
blink0=$(cat "$blink" 2>/dev/null)
[ -n "$blink0" ] && echo 0 >"$blink"
trap '[ -n "$blink0" ] && echo "$blink0" >"$blink"; ensure_loaded; _gm_cleanup' EXIT

A=$GM_CGROOT/gpumem-q-pre-a
B=$GM_CGROOT/gpumem-q-pre-b
go=$GM_TMP/pre-go
rm -f "$go".*
rmdir "$A" 2>/dev/null
mkcgroup "$A" || fail_all "cannot create cgroup $A"
rmmod gpumem 2>"$GM_TMP/rmmod.err" || fail_all "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
spawn_cmd p sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
	sh "$A" "$QA" replace -n 2 -s 1M -g "$go" -t "$GM_HOLD" -c gm-q-pre-p ||
	{ ensure_loaded; fail_all "P (before the load): $(helper_why p)"; }
load_gpumem || fail_all "modprobe gpumem: $(cat "$GM_TMP/modprobe.err")"
quota_setup "$B"
unattr() { _v=$(stat_value "unattributed_${qxl}_vram"); echo "${_v:-0}"; }
h0=$(stat_value hook_unattributed)
u0=$(unattr)

tc_begin quota-preload-evicted
tc_eq "P's buffers (placed before the load)" "$(buf_regions "$p_pid")" "$(repeat 2 vram/2)"
tc_eq "A usage" "$(cg_usage /gpumem-q-pre-a "$qxl")" 0
hold_in "$B" e -n 96 -s 1M -c gm-q-pre-e || tc_fail "filler: $(helper_why e)"
tc_eq "P's buffers after E filled VRAM" "$(buf_regions "$p_pid")" "$(repeat 2 system/0)"
e_vram=$(buf_regions "$e_pid" | tr ' ' '\n' | grep -c '^vram/')
tc_eq "B usage: E's buffers in VRAM, no more" "$(cg_usage /gpumem-q-pre-b "$qxl")" $((e_vram * MiB))
tc_eq "A usage" "$(cg_usage /gpumem-q-pre-a "$qxl")" 0
stop e
tc_eq "B usage after E exited" "$(cg_usage /gpumem-q-pre-b "$qxl")" 0
tc_end

tc_begin quota-preload-replaced
touch "$go.1"
wait_until 30 grep -q '^ROUND 1 ' "$GM_TMP/p.out" || tc_fail "P's pass did not end: $(helper_why p)"
tc_eq "P's UPDATE_AREA of its buffers: ok/denied" "$(out_val p ROUND ok) $(out_val p ROUND denied)" "2 0"
tc_eq "P's buffers" "$(buf_regions "$p_pid")" "$(repeat 2 vram/2)"
tc_eq "A usage" "$(cg_usage /gpumem-q-pre-a "$qxl")" 0
tc_eq "B usage" "$(cg_usage /gpumem-q-pre-b "$qxl")" 0
tc_eq "hook_unattributed rose by" "$(($(stat_value hook_unattributed) - h0))" 2
tc_eq "unattributed bytes of $qxl vram rose by" "$(($(unattr) - u0))" $((2 * MiB))
tc_end

tc_begin quota-preload-nobody-denied
ctl_ok limit set "$B" --max 1M --device "$qxl"
hold_in "$B" e2 -n 1 -s 1M -c gm-q-pre-e2 || tc_fail "B's helper: $(helper_why e2)"
tc_eq "B's 1 MiB under its 1 MiB max: got/denied" "$(out_total e2 ok) $(out_total e2 denied)" "1 0"
tc_eq "B usage" "$(q_get /gpumem-q-pre-b "$qxl" usage)" "$MiB"
ctl_ok limit set "$A" --max 1M --device "$qxl"
hold_in "$A" a2 -n 1 -s 1M -c gm-q-pre-a2 || tc_fail "A's helper: $(helper_why a2)"
tc_eq "A's 1 MiB under its 1 MiB max: got/denied" "$(out_total a2 ok) $(out_total a2 denied)" "1 0"
tc_eq "A usage" "$(q_get /gpumem-q-pre-a "$qxl" usage)" "$MiB"
stop e2
stop a2
stop p
tc_eq "unattributed bytes of $qxl vram after P exited" "$(unattr)" "$u0"
tc_eq "A and B usage at the end" "$(cg_usage /gpumem-q-pre-a "$qxl") $(cg_usage /gpumem-q-pre-b "$qxl")" "0 0"
tc_end

"$CTL" limit clear "$A" >/dev/null 2>&1
"$CTL" limit clear "$B" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
