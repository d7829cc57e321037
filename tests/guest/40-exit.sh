#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Exit: a process's lines and buffers disappear when it exits, its neighbours'
# numbers do not move, and a shared BO stays while another process holds it,
# its ownership passing to the oldest remaining client (docs/accounting.md's owner rule).
# A: private BOs. X: exports one BO to Y, then Z (opened in that order).
# Uses qxl VRAM if present, else vgem.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="exit-private exit-owner-of-shared exit-next-owner exit-last-holder"
pick_vram_card

if ! spawn a alloc -d "$drv" -k "$kind" -n 2 -s 1M -c gm-private ||
	! spawn x export -d "$drv" -k "$kind" -n 1 -s 2M -S "$GM_TMP/sock" -c gm-exporter ||
	! spawn y import -d "$drv" -S "$GM_TMP/sock" -c gm-importer-y ||
	! spawn z import -d "$drv" -S "$GM_TMP/sock" -c gm-importer-z; then
	for t in $CASES; do
		fail "$t" "helpers failed: $(helper_why a) $(helper_why x) $(helper_why y) $(helper_why z)"
	done
	finish
fi
abytes=$(out_val a TOTAL bytes)
size=$(out_val x EXPORTED size)

# shared_row COLUMN: that column of the shared BO's row (held by z throughout).
shared_row() { snap buffers; tbl_get "$GM_TMP/buffers" "$1" device="$card" size="$size" shared=yes; }

# --- a private holder exits -----------------------------------------------------
tc_begin exit-private
proc_check "$a_pid" "$card" "$region=$abytes" bos=2 owned="$abytes"
stop a
wait_until 5 pid_gone "$a_pid" || tc_fail "pid $a_pid still in processes/buffers 5 s after exit"
proc_check "$x_pid" "$card" "$region=$size" bos=1 shared="$size" owned="$size"
proc_check "$y_pid" "$card" "$region=$size" bos=1 shared="$size" owned=0
proc_check "$z_pid" "$card" "$region=$size" bos=1 shared="$size" owned=0
tc_end

# --- the exporter (owner) exits: the oldest remaining client, y, owns it ----------
tc_begin exit-owner-of-shared
tc_eq "rows for pid $x_pid before its exit" "$(pid_rows "$x_pid")" 1
stop x
wait_until 5 pid_gone "$x_pid" || tc_fail "pid $x_pid still in processes/buffers 5 s after exit"
# Still a dma-buf export (the GEM object keeps its dma_buf while handles
# exist), so still "shared" (docs/accounting.md: exported or imported).
proc_check "$y_pid" "$card" "$region=$size" bos=1 owned="$size" shared="$size"
proc_check "$z_pid" "$card" "$region=$size" bos=1 owned=0 shared="$size"
tc_eq "shared BO owner" "$(shared_row owner)" "$y_pid"
tc_eq "shared BO handle (y's)" "$(shared_row handle)" "$(out_val y IMPORTED handle)"
tc_eq "shared BO holders" "$(shared_row holders)" "$y_pid,$z_pid"
tc_end

# --- then y exits: z owns it ----------------------------------------------------
tc_begin exit-next-owner
tc_eq "rows for pid $y_pid before its exit" "$(pid_rows "$y_pid")" 1
stop y
wait_until 5 pid_gone "$y_pid" || tc_fail "pid $y_pid still in processes/buffers 5 s after exit"
proc_check "$z_pid" "$card" "$region=$size" bos=1 owned="$size" shared="$size"
tc_eq "shared BO owner" "$(shared_row owner)" "$z_pid"
tc_eq "shared BO holders" "$(shared_row holders)" "$z_pid"
tc_end

# --- the last holder exits: nothing of any of them is left ----------------------------
# The shared BO is listed (held by z alone) right before z exits, and not at
# all once it has.
tc_begin exit-last-holder
tc_eq "rows for pid $z_pid before its exit" "$(pid_rows "$z_pid")" 1
tc_eq "shared BO owner and holders before z's exit" "$(shared_row owner) $(shared_row holders)" "$z_pid $z_pid"
stop z
wait_until 5 pid_gone "$z_pid" || tc_fail "pid $z_pid still in processes/buffers 5 s after exit"
tc_eq "rows of the shared BO after the last holder's exit" "$(shared_row -)" ""
for p in "$a_pid" "$x_pid" "$y_pid"; do pid_gone "$p" || tc_fail "exited pid $p is listed again"; done
for n in a x y z; do
	grep -q '^FREED' "$(out_of $n)" || tc_fail "helper $n did not free its buffers and exit cleanly"
done
tc_end

finish
