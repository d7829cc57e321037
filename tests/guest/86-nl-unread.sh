#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unread dumps (kmod/netlink.c): a requester that starts dumps and never
# reads them keeps neither the module nor gpumem's memory.
#  - unread-one-socket: 1000 dump requests (cgroup-get, limit-get, proc-get,
#    dev-get in turn) on one socket, none read: netlink runs one dump per
#    socket at a time (the others get EBUSY), and a dump that fits in one
#    message ends in the pass that starts it; at most one dump (the one that
#    found the receive buffer full) stays, holding at most one module
#    reference; the memory charged to the requester's cgroup
#    (memory.current: gpumem charges a dump's state to its requester) is
#    less than 2 MiB above that of the same requester sending 4 (the
#    helper's binary is read beforehand, so neither is charged its page
#    cache). After it closes the socket: no reference left.
#  - unread-many-sockets: 1000 sockets with one dev-get dump each (a few
#    devices: one message), none read: every dump ended in its first pass,
#    so gpumem's module reference count stays what it was (a dump that
#    waited to be read held one per socket: 1000).
#  - unread-cap: with dump_max_bytes at 64 bytes a dump's snapshot is over
#    the cap: gpumemctl ps fails with the extack message naming it (before
#    6.2, whose netlink core drops a dump start's extack: EMSGSIZE); so do
#    the walks kept for a reader, each stopped at the cap: gpumemctl ps
#    --held (a held-view dump), gpumemctl buffers (buf-get) and a read of
#    debugfs `buffers` (EMSGSIZE): the walk statistic walks_failed rises by
#    exactly those 3; back at its value, the same requests work.
#  - unread-rmmod: once they are closed, rmmod gpumem succeeds (and it is
#    loaded again).
# Against the module before dumps ended in their first pass (main at
# c88d5dd, 6.12): 1000 sockets held 1000 module references, one socket 2.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="unread-one-socket unread-many-sockets unread-cap unread-rmmod"
ND=$GM_BIN/nl-dumps
trap 'grep -q "^gpumem " /proc/modules || load_gpumem; _gm_cleanup' EXIT

# refs: gpumem's module reference count (/proc/modules, third column)
refs() { awk '$1 == "gpumem" { print $3 }' /proc/modules; }
# kmem CG: the kernel memory charged to CG (slab + vmalloc + sock), bytes
# (memory.stat is flushed every 2 s: for the log only)
kmem() { awk '$1 == "slab" || $1 == "vmalloc" || $1 == "sock" { t += $2 } END { print t + 0 }' "$1/memory.stat"; }
# run_dumps CG NAME ARGS...: nl-dumps in CG, READY waited for
run_dumps() {
	_cg=$1 _n=$2
	shift 2
	spawn_cmd "$_n" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$_cg" "$ND" "$@" -t 120
}

memcg=""
if grep -qw memory "$GM_CGROOT/cgroup.controllers" 2>/dev/null; then
	grep -qw memory "$GM_CGROOT/cgroup.subtree_control" || echo +memory >"$GM_CGROOT/cgroup.subtree_control"
	grep -qw memory "$GM_CGROOT/cgroup.subtree_control" && memcg=yes
fi
D0=$GM_CGROOT/gpumem-unread0
D1=$GM_CGROOT/gpumem-unread1
D2=$GM_CGROOT/gpumem-unread2
for d in "$D0" "$D1" "$D2"; do
	rmdir "$d" 2>/dev/null
	mkcgroup "$d" || { for t in $CASES; do fail "$t" "cannot create cgroup $d"; done; finish; }
done
r0=$(refs)
log "gpumem module references at rest: $r0"

tc_begin unread-one-socket
cat "$ND" >/dev/null	# its page cache charged here, not to D0 or D1
if run_dumps "$D0" few -n 4 && run_dumps "$D1" one -n 1000; then
	tc_eq "requests sent" "$(out_val one SENT requests)" 1000
	r1=$(refs)
	log "references with 1000 unread dumps on one socket: $r1"
	tc_num -le "module references while unread" "$r1" $((r0 + 1))
	if [ -n "$memcg" ]; then
		c0=$(cat "$D0/memory.current") c1=$(cat "$D1/memory.current")
		log "memory charged: 4 requests $c0, 1000 requests $c1 bytes"
		tc_num -gt "memory charged to the requester of 4 (it is measured)" "$c0" 0
		tc_num -lt "memory of 1000 unread dumps over 4" $((c1 - c0)) $((2 * MiB))
		sleep 3
		log "kernel memory (memory.stat slab + vmalloc + sock): 4 requests $(kmem "$D0"), 1000 requests $(kmem "$D1") bytes"
	else
		tc_fail "no memory controller in $GM_CGROOT: the memory charged cannot be measured"
	fi
	stop one
	stop few
	tc_eq "module references after closing" "$(refs)" "$r0"
else
	tc_fail "nl-dumps: $(helper_why few) $(helper_why one)"
fi
tc_end

tc_begin unread-many-sockets
ulimit -n 4096 2>/dev/null
if run_dumps "$D2" many -n 1000 -s 1000 -c dev; then
	tc_eq "requests sent" "$(out_val many SENT requests) $(out_val many SENT send_errors)" "1000 0"
	r2=$(refs)
	log "references with 1000 sockets of one unread dump each: $r2"
	tc_eq "module references while unread" "$r2" "$r0"
	stop many
	grep -q '^CLOSED' "$GM_TMP/many.out" || tc_fail "nl-dumps did not close its sockets"
else
	tc_fail "nl-dumps: $(helper_why many)"
fi
tc_end

tc_begin unread-cap
CTL=$GM_BIN/gpumemctl
cap0=$(cat "$GM_PARAMS/dump_max_bytes")
if [ -z "$cap0" ]; then
	tc_fail "no dump_max_bytes parameter in $GM_PARAMS"
else
	wf0=$(stat_value walks_failed)
	echo 64 >"$GM_PARAMS/dump_max_bytes" || tc_fail "cannot set dump_max_bytes"
	"$CTL" ps >"$GM_TMP/ps-cap.out" 2>&1
	rc=$?
	"$CTL" ps --held >"$GM_TMP/held-cap.out" 2>&1
	rc_held=$?
	"$CTL" buffers -p 1 >"$GM_TMP/buf-cap.out" 2>&1
	rc_buf=$?
	cat "$GM_DEBUGFS/buffers" >"$GM_TMP/dbg-cap.out" 2>&1
	rc_dbg=$?
	echo "$cap0" >"$GM_PARAMS/dump_max_bytes"
	log "with a 64-byte cap: ps --held exit $rc_held: $(head -c 200 "$GM_TMP/held-cap.out")"
	log "with a 64-byte cap: buffers exit $rc_buf: $(head -c 200 "$GM_TMP/buf-cap.out")"
	log "with a 64-byte cap: debugfs buffers exit $rc_dbg: $(head -c 200 "$GM_TMP/dbg-cap.out")"
	tc_num -ne "gpumemctl ps --held exit status with a 64-byte cap" "$rc_held" 0
	tc_num -ne "gpumemctl buffers exit status with a 64-byte cap" "$rc_buf" 0
	tc_num -ne "read of debugfs buffers: exit status with a 64-byte cap" "$rc_dbg" 0
	grep -q 'Message too long' "$GM_TMP/dbg-cap.out" ||
		tc_fail "debugfs buffers did not fail with EMSGSIZE: $(head -c 200 "$GM_TMP/dbg-cap.out")"
	tc_eq "walks stopped at the cap (walks_failed rose by)" \
		$(($(stat_value walks_failed) - wf0)) 3
	log "gpumemctl ps with a 64-byte cap: exit $rc: $(head -c 300 "$GM_TMP/ps-cap.out")"
	tc_num -ne "gpumemctl ps exit status with a 64-byte cap" "$rc" 0
	# Before 6.2 the netlink core drops the extack of a dump's .start
	# (85-nl-robust): there the reason is EMSGSIZE's text alone
	if [ "$(kernel_mm)" -lt 602 ]; then
		grep -qx 'gpumemctl: processes: Message too long' "$GM_TMP/ps-cap.out" ||
			tc_fail "gpumemctl ps did not fail with EMSGSIZE: $(head -c 300 "$GM_TMP/ps-cap.out")"
	else
		grep -q dump_max_bytes "$GM_TMP/ps-cap.out" ||
			tc_fail "gpumemctl ps did not report the cap: $(head -c 300 "$GM_TMP/ps-cap.out")"
	fi
	"$CTL" ps >"$GM_TMP/ps-cap.out" 2>&1
	tc_eq "gpumemctl ps exit status with dump_max_bytes $cap0" "$?" 0
	"$CTL" ps --held >"$GM_TMP/held-cap.out" 2>&1
	tc_eq "gpumemctl ps --held exit status with dump_max_bytes $cap0" "$?" 0
	"$CTL" buffers -p 1 >"$GM_TMP/buf-cap.out" 2>&1
	tc_eq "gpumemctl buffers exit status with dump_max_bytes $cap0" "$?" 0
	cat "$GM_DEBUGFS/buffers" >/dev/null
	tc_eq "read of debugfs buffers: exit status with dump_max_bytes $cap0" "$?" 0
fi
tc_end

tc_begin unread-rmmod
if rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	load_gpumem || tc_fail "loading gpumem again failed: $(cat "$GM_TMP/modprobe.err")"
else
	tc_fail "rmmod gpumem after the unread dumps were closed: $(cat "$GM_TMP/rmmod.err"), references $(refs)"
fi
tc_end

finish
