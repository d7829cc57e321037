#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Orphaned events turned on while an allocator lives: its exit is reported.
# With orphan_event_bytes at 0, an allocator maps 2 x 1 MiB of qxl VRAM,
# closes every handle and forks a child that keeps the mappings; once the
# placements left its process counters (no handle for 2 s), no record is
# counted for a process and the charge sweep, with nothing to watch, stops.
# Then orphan_event_bytes goes to 1 MiB and the allocator exits: exactly one
# orphaned event for it (2 MiB, 2 buffers, held by a mapping), which needs
# the sweep to have been started again by the switch. Needs qxl and no
# other process with charged VRAM/GTT (the sweep would run for it anyway:
# the test could not fail). Usage: run by the guest runner (lib.sh).
. "$(dirname "$0")/lib.sh"
require_gpumem
. "$(dirname "$0")/quota-lib.sh"	# ev_check

CASES="orphans-switch-quiet orphans-switch-on-event"
card=$(card_of qxl)
A=$GM_CGROOT/gm-orphans-sw
CTL=${GM_CTL:-$GM_BIN/gpumemctl}
if [ -z "$card" ] || [ ! -w "$GM_PARAMS/orphan_event_bytes" ] || ! mkcgroup "$A"; then
	for t in $CASES; do
		fail "$t" "need a qxl card ($card), $GM_PARAMS/orphan_event_bytes and a cgroup under $GM_CGROOT"
	done
	finish
fi
evb0=$(cat "$GM_PARAMS/orphan_event_bytes")
trap 'echo "$evb0" >"$GM_PARAMS/orphan_event_bytes"; _gm_cleanup' EXIT
echo 0 >"$GM_PARAMS/orphan_event_bytes"

"$CTL" watch --json --type orphaned -t 900 >"$GM_TMP/sw.out" 2>"$GM_TMP/sw.err" 8>&- &
GM_PIDS="$GM_PIDS $!"
ev_of() { grep "\"pid\":$1," "$GM_TMP/sw.out"; }
has_ev() { [ -n "$(ev_of "$1")" ]; }
charged_rows() { snap charged; tbl_count "$GM_TMP/charged"; }
quiet() { [ "$(charged_rows)" = 0 ]; }

tc_begin orphans-switch-quiet
if ! spawn_in_cgroup "$A" m mapfork -d qxl -n 2 -s 1M -c gm-orph-sw; then
	tc_fail "mapfork failed: $(helper_why m)"
else
	mkid=$(out_val m CHILD pid)
	GM_PIDS="$GM_PIDS $mkid"
	tc_eq "mapfork buffers mapped" "$(out_val m MAPPED bytes)" 2097152
	# no handle for 2 s: out of the counters at the next sweep (every 2 s)
	wait_until 10 quiet ||
		tc_fail "charged rows left (another process charged, or the mapper's placements still counted): $(cat "$GM_TMP/charged")"
	# a sweep that saw nothing counted for a process does not come back
	sleep 3
	tc_eq "orphaned events while off" "$(grep -c . "$GM_TMP/sw.out")" 0
fi
tc_end

tc_begin orphans-switch-on-event
if [ -z "${m_pid:-}" ]; then
	tc_fail "no mapper (see orphans-switch-quiet)"
else
	echo 1048576 >"$GM_PARAMS/orphan_event_bytes"
	stop m
	wait_until 10 has_ev "$m_pid" ||
		tc_fail "no orphaned event for $m_pid 10 s after its exit (events were turned on while it lived)"
	tc_eq "orphaned events of $m_pid" "$(ev_of "$m_pid" | grep -c .)" 1
	ev_check "$(ev_of "$m_pid" | head -n 1)" type=orphaned device="$card" region=vram \
		cgroup=/gm-orphans-sw cgroup_id="$(stat -c %i "$A")" usage=2097152 buffers=2 \
		kinds=mapping comm=gm-orph-sw missed=0
fi
tc_end
finish
