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
#   charged-lastclose      the documented rule for what a driver allocates
#                          when a process closes its last file of a card
#                          (docs/limits.md, "Known limits of the attribution"):
#                          charged to the process and its cgroup, at most
#                          one console surface, the process's counters let
#                          go once it exited; whether qxl allocates at all
#                          in a given close is not required (a gpumem that
#                          stopped misattributing passes too).
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
# bochs may make their drivers allocate or pin console buffers in the
# closing task's context. Three listers, each in cgroup LC (nothing else
# runs there). For each, right after its exit:
#  (a) LC holds at least what the charged view says of the lister (the
#      placements are the same ones, charged to both; LC is read first and
#      nothing can be charged there any more, so charges only fall between
#      the reads): a process charged what its cgroup is not breaks the rule;
#  (b) at most one console surface (1024x768 at 32 bpp, 3 MiB) and qxl's
#      release buffers: 4 MiB, whatever the close before left;
#  (c) 10 s later no rows of the lister (the sweep lets go of an exited
#      process's counters within 2-4 s).
CTL=$GM_BIN/gpumemctl
LC=$GM_CGROOT/gpumem-charged-lc
rmdir "$LC" 2>/dev/null
# lc_usage: LC's vram bytes on qxl (gpumemctl cgroups --json; 0 without a row)
lc_usage() {
	"$CTL" cgroups --json 2>/dev/null | grep -F '"cgroup":"/gpumem-charged-lc",' |
		grep -F "\"device\":\"$qxl\"," | grep -F '"region":"vram"' |
		sed -n 's/.*"usage":\([0-9]*\).*/\1/p' | head -n 1
}
if [ ! -x "$CTL" ]; then
	tc_fail "$CTL missing"
elif ! mkcgroup "$LC"; then
	tc_fail "cannot create $LC"
else
	k=0 seen=0
	while [ $k -lt 3 ]; do
		k=$((k + 1))
		sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; echo $$ >"$2"; exec "$3" list' \
			sh "$LC" "$GM_TMP/list.pid" "$GM_ALLOC" >"$GM_TMP/list.out" 2>&1 ||
			tc_fail "lister $k: exit $?: $(_oneline "$(cat "$GM_TMP/list.out")")"
		lp=$(cat "$GM_TMP/list.pid")
		u=$(num "$(lc_usage)")
		v=$(num "$(charged_of "$lp" "$qxl" vram)")
		log "  lister $k (pid $lp), right after its exit: charged $v, its cgroup $u bytes on $qxl"
		[ "$v" -gt 0 ] && seen=$((seen + 1))
		tc_num -le "lister $k: charged view bytes (at most what its cgroup holds: $u)" "$v" "$u"
		tc_num -le "lister $k: charged view bytes (at most one console surface + release buffers)" \
			"$v" $((4 * 1048576))
		wait_until 10 no_rows "$lp" ||
			tc_fail "lister $k: pid $lp (exited) still has rows 10 s later: $(awk -v p="$lp" '$1 == p' "$GM_TMP/charged" | tr '\n' ';')"
	done
	log "  listers charged for their last close: $seen of $k (qxl's business; not required)"
fi
rmdir "$LC" 2>/dev/null
tc_end

finish
