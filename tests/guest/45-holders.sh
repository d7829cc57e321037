#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Holders, not only openers (docs/accounting.md, "Accounting rules"): a DRM file counts
# for every live process that has it in an fd table. A fork child that
# inherited the card fd shows the buffers, and keeps showing them under its
# own pid once its parent (the opener) has exited; a card fd handed over
# SCM_RIGHTS shows under the receiver (in another cgroup), and only there
# once the sender has exited. Never a dead pid. Exact bytes, pids, owners.
# Usage: run by the guest runner (tests/guest/lib.sh); uses qxl VRAM if
# present, else vgem.
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="holders-fork-both holders-fork-outlives holders-fork-last holders-scm-both holders-scm-outlives"
pick_vram_card

# held_json PID FIELD: FIELD of PID's held-view row on $card from gpumemctl.
held_json() {
	"$CTL" ps --held --json --pid "$1" --device "$card" 2>"$GM_TMP/ctl.err" |
		sed -n "s/.*\"$2\":\\([0-9]*\\).*/\\1/p"
}

# buf_field COLUMN SIZE: COLUMN of the buffers rows of SIZE on $card (one a line).
buf_field() { snap buffers; tbl_get "$GM_TMP/buffers" "$1" device="$card" size="$2"; }

# --- a fork child shares the parent's file -------------------------------------
# f allocates 2 x 1.125 MiB, forks; the child keeps the inherited fd.
if ! spawn f forkhold -d "$drv" -k "$kind" -n 2 -s 1152K -c gm-forkparent; then
	for t in holders-fork-both holders-fork-outlives holders-fork-last; do
		fail "$t" "forkhold helper failed: $(helper_why f)"
	done
else
	kid_pid=$(out_val f CHILD pid)
	GM_PIDS="$GM_PIDS $kid_pid"
	fbytes=$(out_val f TOTAL bytes)
	fsize=$(out_bo f 0 size)
	log "parent $f_pid, child $kid_pid, $fbytes bytes"

	tc_begin holders-fork-both
	tc_num -gt "child pid" "$kid_pid" 0
	tc_eq "child and parent differ" "$([ "$kid_pid" != "$f_pid" ] && echo yes)" yes
	# both hold the one file: both count both buffers, shared; the owner
	# is the lower pid of the two (the parent)
	proc_check "$f_pid" "$card" "$region=$fbytes" bos=2 shared="$fbytes" owned="$fbytes"
	proc_check "$kid_pid" "$card" "$region=$fbytes" bos=2 shared="$fbytes" owned=0
	tc_eq "owners of the forked buffers" "$(buf_field owner "$fsize" | sort -u | tr '\n' ' ')" "$f_pid "
	tc_eq "holders of the forked buffers" "$(buf_field holders "$fsize" | sort -u | tr '\n' ' ')" \
		"$f_pid,$kid_pid "
	tc_end

	tc_begin holders-fork-outlives
	stop f
	tc_eq "parent exited, child alive" "$(_alive "$f_pid" || echo gone) $(_alive "$kid_pid" && echo alive)" \
		"gone alive"
	wait_until 5 pid_gone "$f_pid" || tc_fail "dead parent $f_pid still in processes/buffers 5 s after exit"
	proc_check "$kid_pid" "$card" "$region=$fbytes" bos=2 shared=0 owned="$fbytes" \
		comm=gm-forkchild
	tc_eq "owners after the parent's exit" "$(buf_field owner "$fsize" | sort -u | tr '\n' ' ')" "$kid_pid "
	tc_eq "holders after the parent's exit" "$(buf_field holders "$fsize" | sort -u | tr '\n' ' ')" "$kid_pid "
	tc_eq "gpumemctl ps --held: child's $region" "$(held_json "$kid_pid" "$region")" "$fbytes"
	tc_eq "gpumemctl ps --held: child's owned" "$(held_json "$kid_pid" owned)" "$fbytes"
	tc_eq "gpumemctl ps --held --pid of the dead parent" \
		"$("$CTL" ps --held --json --pid "$f_pid" 2>/dev/null | grep -c '"pid"')" 0
	tc_end

	tc_begin holders-fork-last
	kill -TERM "$kid_pid"
	reap "$kid_pid" 10
	wait_until 5 pid_gone "$kid_pid" || tc_fail "child $kid_pid still in processes/buffers 5 s after exit"
	tc_eq "buffers of $fsize bytes left on $card" "$(buf_field owner "$fsize")" ""
	tc_end
fi

# --- the card fd itself over SCM_RIGHTS ---------------------------------------
# s allocates one 2.5 MiB buffer and hands its card fd to r (another cgroup).
# Sizes here are ones no console or kernel client buffer has (6.1's qxl
# fbdev buffer is 3 MiB), as the buffers rows are picked by size.
CG=$GM_CGROOT/gm-holders-recv
if ! mkcgroup "$CG" ||
	! spawn s sendcard -d "$drv" -k "$kind" -n 1 -s 2560K -S "$GM_TMP/card.sock" -c gm-cardsender ||
	! spawn_in_cgroup "$CG" r recvcard -S "$GM_TMP/card.sock" -c gm-cardrecv; then
	for t in holders-scm-both holders-scm-outlives; do
		fail "$t" "helpers failed: $(helper_why s) $(helper_why r)"
	done
	finish
fi
sbytes=$(out_val s TOTAL bytes)
wait_until 5 grep -q '^SENT 1' "$GM_TMP/s.out" || log "sender printed no SENT line"

tc_begin holders-scm-both
tc_eq "receiver got an fd" "$(out_val r RECEIVED fd | grep -c '^[0-9][0-9]*$')" 1
lo=$s_pid hi=$r_pid
[ "$r_pid" -lt "$s_pid" ] && lo=$r_pid hi=$s_pid
proc_check "$lo" "$card" "$region=$sbytes" bos=1 shared="$sbytes" owned="$sbytes"
proc_check "$hi" "$card" "$region=$sbytes" bos=1 shared="$sbytes" owned=0
proc_check "$r_pid" "$card" cgroup="/gm-holders-recv" cgroup_id="$(stat -c %i "$CG")" comm=gm-cardrecv
tc_end

tc_begin holders-scm-outlives
stop s
wait_until 5 pid_gone "$s_pid" || tc_fail "dead sender $s_pid still in processes/buffers 5 s after exit"
proc_check "$r_pid" "$card" "$region=$sbytes" bos=1 shared=0 owned="$sbytes" \
	cgroup="/gm-holders-recv" comm=gm-cardrecv
tc_eq "owner of the sent buffer" "$(buf_field owner "$sbytes")" "$r_pid"
tc_eq "holders of the sent buffer" "$(buf_field holders "$sbytes")" "$r_pid"
tc_eq "gpumemctl ps --held: receiver's $region" "$(held_json "$r_pid" "$region")" "$sbytes"
stop r
wait_until 5 pid_gone "$r_pid" || tc_fail "receiver $r_pid still listed 5 s after exit"
tc_eq "buffers of $sbytes bytes left on $card" "$(buf_field owner "$sbytes")" ""
tc_end

finish
