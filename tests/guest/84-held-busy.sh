#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The held view never waits for a buffer a driver keeps reserved (walk.c):
# with every reservation trylock of the reading task failing (fault
# injection fail_resv, only the reader's task; the test kernel has
# CONFIG_FAULT_INJECTION_DEBUG_FS, Debian's kernels do not), a process's
# three 1 MiB qxl buffers are in no figure and counted as skipped, the
# walk still completes, and gpumemctl says so on stderr. With the faults
# off the same read counts them again, none skipped.
. "$(dirname "$0")/lib.sh"
require_gpumem
orphan_events_off	# this script counts walks exactly

CASES="held-busy-skipped held-busy-cleared"
FR=$GM_DEBUGFS/fail_resv
if [ ! -d "$FR" ]; then
	for t in $CASES; do
		skip "$t" "no fault injection in this kernel ($FR: CONFIG_FAULT_INJECTION_DEBUG_FS)"
	done
	finish
fi

. "$(dirname "$0")/quota-lib.sh"
trap 'fault_off "$FR"; _gm_cleanup' EXIT

# held_ps OUT fail|calm [--json]: gpumemctl ps --held of $h_pid, by a task
# whose reservation trylocks fail (fail) or not (calm)
held_ps() {
	_o=$1 _f=$2
	shift 2
	sh -c '[ "$1" = fail ] && { echo 1 >/proc/self/make-it-fail || exit 111; }; shift; exec "$@"' \
		sh "$_f" "$CTL" --bytes ps --held -p "$h_pid" "$@" >"$GM_TMP/$_o.out" 2>"$GM_TMP/$_o.err"
	eval "${_o}_rc=$?"
}

if ! spawn h alloc -d qxl -k vram -n 3 -s 1M -c gm-busy; then
	for t in $CASES; do fail "$t" "helper: $(helper_why h)"; done
	finish
fi

tc_begin held-busy-skipped
fault_on "$FR" 100 -1 Y || tc_fail "cannot arm $FR"
w0=$(stat_value walks)
held_ps busy fail --json
tc_eq "ps --held --json exit status" "$busy_rc" 0
tc_eq "walks" "$(stat_value walks)" "$(($(num "$w0") + 1))"
row=$(grep -F "\"pid\":$h_pid," "$GM_TMP/busy.out")
tc_eq "rows of the helper" "$(echo "$row" | grep -c .)" 1
tc_eq "vram bos skipped" "$(echo "$row" | jget vram) $(echo "$row" | jget bos) $(echo "$row" | jget skipped)" "0 0 3"
tc_eq "stderr of --json" "$(cat "$GM_TMP/busy.err")" ""
tc_num -ge "stats last_walk_skipped" "$(stat_value last_walk_skipped)" 3
held_ps busyt fail
tc_eq "ps --held (table) exit status" "$busyt_rc" 0
tc_eq "table row of the helper: VRAM BOS" \
	"$(awk -v p="$h_pid" '$1 == p { print $4 " " $10 }' "$GM_TMP/busyt.out")" "0 0"
tc_eq "stderr of the table" "$(cat "$GM_TMP/busyt.err")" \
	"gpumemctl: 3 buffer(s) were busy (reserved by a driver) and are not counted"
fault_off "$FR"
tc_end

tc_begin held-busy-cleared
held_ps calm calm --json
tc_eq "ps --held exit status" "$calm_rc" 0
row=$(grep -F "\"pid\":$h_pid," "$GM_TMP/calm.out")
tc_eq "vram bos skipped" "$(echo "$row" | jget vram) $(echo "$row" | jget bos) $(echo "$row" | jget skipped)" \
	"$((3 * MiB)) 3 0"
tc_eq "stderr" "$(cat "$GM_TMP/calm.err")" ""
tc_end

stop h
finish
