#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The charged view (debugfs charged, proc-get's default view): counters kept
# at allocation and free time follow what processes arranged here, exactly:
#   charged-alloc-free     a process's qxl VRAM placements appear with its
#                          exact bytes and count, and go when it frees them;
#   charged-shared-exit    a dma-buf shared buffer counts for its allocator
#                          only (the importer holds it: held view), and
#                          leaves the counters when the allocator exits while
#                          the importer keeps it (then: held view only);
#   charged-lastclose      what a driver allocates when a process closes a
#                          card (qxl console and release buffers, a bochs
#                          console pinned to VRAM) is seen charged to it
#                          right after, and does not stay with it.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="charged-alloc-free charged-shared-exit charged-lastclose"
qxl=$(card_of qxl)
if [ -z "$qxl" ]; then
	for t in $CASES; do fail "$t" "no qxl card in this guest (run-guest.sh attaches qxl-vga)"; done
	finish
fi

# charged_of PID DEVICE COLUMN: one value of the charged view ("" if no row)
charged_of() { snap charged; tbl_get "$GM_TMP/charged" "$3" pid="$1" device="$2"; }
no_rows() { snap charged; [ "$(tbl_count "$GM_TMP/charged" pid="$1")" = 0 ]; }

tc_begin charged-alloc-free
CG=$GM_CGROOT/gpumem-charged
rmdir "$CG" 2>/dev/null
if ! mkcgroup "$CG"; then
	tc_fail "cannot create $CG"
elif spawn_in_cgroup "$CG" a alloc -d qxl -k vram -n 3 -s 256K -c gm-charged-a; then
	tc_eq "vram gtt bos of a: 3 x 256 KiB" \
		"$(charged_of "$a_pid" "$qxl" vram) $(charged_of "$a_pid" "$qxl" gtt) $(charged_of "$a_pid" "$qxl" bos)" \
		"786432 0 3"
	tc_eq "cgroup of a (id = the directory's inode, path)" \
		"$(charged_of "$a_pid" "$qxl" cgroup_id) $(charged_of "$a_pid" "$qxl" cgroup)" \
		"$(stat -c %i "$CG") /gpumem-charged"
	stop a
	wait_until 10 no_rows "$a_pid" || tc_fail "rows of pid $a_pid 10 s after it freed and exited"
else
	tc_fail "helper: $(helper_why a)"
fi
rmdir "$CG" 2>/dev/null
tc_end

tc_begin charged-shared-exit
sock=$GM_TMP/charged.sock
if ! spawn x export -d qxl -k vram -n 1 -s 1M -S "$sock" -c gm-charged-x; then
	tc_fail "exporter: $(helper_why x)"
elif ! spawn y import -d qxl -S "$sock" -c gm-charged-y; then
	tc_fail "importer: $(helper_why y)"
	stop x
else
	size=$(out_val x EXPORTED size)
	tc_eq "exported size" "$size" 1048576
	tc_eq "charged: the exporter has its placement (the exported BO)" \
		"$(charged_of "$x_pid" "$qxl" vram) $(charged_of "$x_pid" "$qxl" bos)" "1048576 1"
	tc_eq "charged: the importer has none (it allocated nothing)" "$(charged_of "$y_pid" "$qxl" vram)" ""
	tc_eq "held: the importer holds the shared buffer" \
		"$(proc_field "$y_pid" "$qxl" vram) $(proc_field "$y_pid" "$qxl" shared)" "$size $size"
	stop_keep=$x_pid
	kill -TERM "$x_pid" 2>/dev/null
	reap "$x_pid" 10
	wait_until 10 no_rows "$stop_keep" ||
		tc_fail "charged: the exited exporter still has $(charged_of "$stop_keep" "$qxl" vram) bytes 10 s later"
	tc_eq "held: the importer still holds it after the exporter exited" \
		"$(proc_field "$y_pid" "$qxl" vram)" "$size"
	tc_eq "charged: still nothing for the importer" "$(charged_of "$y_pid" "$qxl" vram)" ""
	stop y
fi
tc_end

tc_begin charged-lastclose
# `gpumem-alloc list` opens and closes every card: the last close of qxl and
# bochs makes their drivers allocate or pin console buffers in its context.
# Whether qxl allocates anything depends on what it still has (a release
# buffer with room left, the console surface of an earlier close): a lister
# with no row right after its exit proves nothing, so up to 5 listers run
# until one is seen charged; its rows must then leave (no handle reaches
# those buffers: gone from the process's counters after 2 s).
lp="" charged_lp="" k=0
while [ $k -lt 5 ] && [ -z "$charged_lp" ]; do
	k=$((k + 1))
	sh -c 'echo $$ >"$1"; exec "$2" list' sh "$GM_TMP/list.pid" "$GM_ALLOC" >"$GM_TMP/list.out" 2>&1
	lp=$(cat "$GM_TMP/list.pid")
	snap charged
	rows=$(tbl_get "$GM_TMP/charged" - pid="$lp")
	log "  lister $k (pid $lp), right after its exit: $(_oneline "${rows:-no rows}")"
	[ -n "$rows" ] && charged_lp=$lp
done
if [ -z "$charged_lp" ]; then
	tc_fail "none of $k listers was charged for its last close: nothing seen that could leave"
else
	wait_until 10 no_rows "$charged_lp" ||
		tc_fail "charged: pid $charged_lp (exited) still has rows 10 s later: $(awk -v p="$charged_lp" '$1 == p' "$GM_TMP/charged" | tr '\n' ';')"
fi
tc_end

finish
