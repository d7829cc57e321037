#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The orphaned events' failure paths (kmod/orphans.c), by fault injection
# (kmod/fault_inject.c; the test kernel only: Debian's kernels have no
# CONFIG_FAULT_INJECTION_DEBUG_FS, and SKIP both cases):
#   orphans-lost-event    the report of a claimed orphan's holders fails
#                         (fail_orphans_report, once): its event is lost,
#                         never silently: it takes its sequence number
#                         (hook_events_lost +1 exactly, nothing sent for
#                         it, the watch sees a gap of exactly 1, carried by
#                         the next event as "missed":1), and the orphan is
#                         never reported again (claimed once); the next
#                         orphan, the fault spent, is reported whole;
#   orphans-rmmod-pending the claim fails every time (fail_orphans_claim):
#                         the work stays queued, retrying each second, and
#                         reports nothing; rmmod gpumem then cancels it (no
#                         hang; scripts/check-log reads the kernel log for
#                         KASAN, lockdep and kmemleak reports) and the
#                         module loads again.
# Each orphan: a fork child keeps its exited parent's 2 x 1 MiB of qxl VRAM.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="orphans-lost-event orphans-rmmod-pending"
FR=$GM_DEBUGFS/fail_orphans_report
FC=$GM_DEBUGFS/fail_orphans_claim
if [ ! -d "$FR" ] || [ ! -d "$FC" ]; then
	for t in $CASES; do
		skip "$t" "no fault injection in this kernel ($FR, $FC: CONFIG_FAULT_INJECTION_DEBUG_FS)"
	done
	finish
fi

. "$(dirname "$0")/quota-lib.sh"

A=$GM_CGROOT/gm-orphans-faults
quota_setup "$A"
acg=$(stat -c %i "$A")
restore() {
	[ -d "$FR" ] && fault_off "$FR"
	[ -d "$FC" ] && fault_off "$FC"
	grep -q '^gpumem ' /proc/modules || load_gpumem
}
trap 'restore; _gm_cleanup' EXIT
GM_OEB0=$(cat "$GM_PARAMS/orphan_event_bytes")
echo 1048576 >"$GM_PARAMS/orphan_event_bytes" || fail_all "cannot set orphan_event_bytes"

# hook STAT: hook_STAT in debugfs stats now
hook() { snap stats; num "$(tbl_get "$GM_TMP/stats" value name="hook_$1")"; }
# orph_ev PID: the orphaned events of allocator PID in the watch
orph_ev() { grep '"type":"orphaned"' "$GM_TMP/w.out" | grep "\"pid\":$1,"; }
has_ev() { [ -n "$(orph_ev "$1")" ]; }
fault_spent() { [ "$(cat "$1/times")" = 0 ]; }
# orphan NAME: an allocator in A that leaves 2 x 1 MiB to a fork child and
# exits; NAME_pid is the allocator, NAME_kid the child
orphan() {
	spawn_in_cgroup "$A" "$1" forkhold -d qxl -n 2 -s 1M -c "gm-of-$1" ||
		{ tc_fail "helper $1: $(helper_why "$1")"; return 1; }
	eval "${1}_kid=\$(out_val $1 CHILD pid)"
	eval "GM_PIDS=\"\$GM_PIDS \$${1}_kid\""
	stop "$1"
}

# settle: until no event has been sent for 3 s in a row (at most 30 s), so
# that orphans earlier scripts left behind are reported before the fault is
# armed: the one report it fails must be l1's
settle() {
	_prev=-1 _same=0 _i=0
	while [ $_i -lt 30 ] && [ $_same -lt 3 ]; do
		_cur=$(hook events_sent)
		if [ "$_cur" = "$_prev" ]; then _same=$((_same + 1)); else _same=0; fi
		_prev=$_cur _i=$((_i + 1))
		sleep 1
	done
	[ $_same -ge 3 ]
}

tc_begin orphans-lost-event
settle || tc_fail "events kept coming for 30 s: the fault could hit another orphan's report"
w_sync || tc_fail "the sync event did not arrive"
lost0=$(hook events_lost)
fault_on "$FR" 100 1 N || tc_fail "cannot arm $FR"
orphan l1
# shellcheck disable=SC2154 # l1_pid: set by spawn_cmd through eval
wait_until 15 fault_spent "$FR" || tc_fail "the report of l1's orphan never ran ($FR/times: $(cat "$FR/times"))"
fault_off "$FR"
tc_eq "hook_events_lost rose by" $(($(hook events_lost) - lost0)) 1
orphan l2
wait_until 15 has_ev "$l2_pid" || tc_fail "no orphaned event for l2 ($l2_pid) 15 s after its exit"
w_sync || tc_fail "the sync event did not arrive"
orph_ev "$l1_pid" | sed 's/^/#   l1 event: /'
tc_eq "orphaned events of l1 (lost, claimed once)" "$(orph_ev "$l1_pid" | grep -c .)" 0
tc_eq "orphaned events of l2" "$(orph_ev "$l2_pid" | grep -c .)" 1
ev_check "$(orph_ev "$l2_pid" | head -n 1)" type=orphaned cgroup=/gm-orphans-faults \
	cgroup_id="$acg" usage=2097152 buffers=2
# the gap: exactly one number missing in the whole watch, and the event
# after it says so
tc_eq "events missed in the watch (sum of missed)" \
	"$(sed -n 's/.*"missed":\([0-9]*\).*/\1/p' "$GM_TMP/w.out" | awk '{ s += $1 } END { print s + 0 }')" 1
gap=$(awk '{ s = $0; sub(/.*"seq":/, "", s); sub(/,.*/, "", s)
	if (NR > 1 && s != prev + 1) print prev + 1, s; prev = s }' "$GM_TMP/w.out")
log "  the gap (missing seq, next seq): $gap"
tc_eq "sequence numbers missing in the watch" "$(echo "$gap" | grep -c .)" 1
tc_eq "the event after the gap: missed" \
	"$(grep "\"seq\":${gap#* }," "$GM_TMP/w.out" | jget missed)" 1
for k in "${l1_kid:-}" "${l2_kid:-}"; do
	[ -n "$k" ] && kill -TERM "$k" 2>/dev/null && reap "$k" 10
done
tc_end

tc_begin orphans-rmmod-pending
fault_on "$FC" 100 -1 N || tc_fail "cannot arm $FC"
orphan r1
# the work retries each second: let it go round a few times
sleep 4
w_sync || tc_fail "the sync event did not arrive"
# shellcheck disable=SC2154 # r1_pid: set by spawn_cmd through eval
tc_eq "orphaned events of r1 while the claim fails" "$(orph_ev "$r1_pid" | grep -c .)" 0
timeout 60 rmmod gpumem 2>"$GM_TMP/rmmod.err"
tc_eq "rmmod gpumem with the work pending: exit (stderr: $(_oneline "$(cat "$GM_TMP/rmmod.err")"))" "$?" 0
tc_eq "gpumem loaded after rmmod" "$(grep -c '^gpumem ' /proc/modules)" 0
load_gpumem || tc_fail "loading gpumem again: $(cat "$GM_TMP/modprobe.err")"
tc_eq "fail_orphans_claim of the new module (fresh: probability)" "$(cat "$FC/probability" 2>&1)" 0
[ -n "${r1_kid:-}" ] && kill -TERM "$r1_kid" 2>/dev/null && reap "$r1_kid" 10
tc_end

finish
