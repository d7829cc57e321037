#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Container-relative views (docs/netlink.md, "Container-relative views"): gpumemctl
# run inside new pid and cgroup namespaces (gm-nsexec -C -P, as
# `unshare -p -f -C` would; host network namespace) sees what /proc would:
#   ns-view-own-pid        ps (charged and held) shows the process that
#                          allocated 2 x 1 MiB inside with its namespace pid
#                          (the pid it printed itself, and /proc's NSpid),
#                          its exact bytes and its cgroup path from the
#                          namespace's root ("/in"), with the host's id;
#   ns-view-hides-outside  a process outside (3 x 1 MiB) and kernel clients
#                          are in no row inside: exactly one row;
#   ns-view-pid-filter     ps -p and buffers -p take the namespace's pid:
#                          the inside process's row and buffers (owner and
#                          holders in namespace pids); the outside process's
#                          host pid given inside selects nothing;
#   ns-view-host-view      the same processes from the host: host pids,
#                          full paths, the same bytes;
#   ns-view-cgroup-outside from a cgroup namespace only (host pid namespace)
#                          rooted at the outside process's cgroup, the inside
#                          process's path is "/../gpumem-ns-view/in" (as
#                          /proc/PID/cgroup shows it there) with its host pid.
# Usage: run by the guest runner (scripts/guest-init.sh), or by hand in a
# guest: sh 76-ns-view.sh
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="ns-view-own-pid ns-view-hides-outside ns-view-pid-filter ns-view-host-view ns-view-cgroup-outside"
CTL=${GM_CTL:-$GM_BIN/gpumemctl}
NSX=$GM_BIN/gm-nsexec
fail_all() { for _t in $CASES; do fail "$_t" "setup: $1"; done; finish; }

# jget KEY: KEY's value in the one-line JSON object on stdin (strings unquoted).
jget() {
	awk -v k="\"$1\":" '{ i = index($0, k); if (!i) next; s = substr($0, i + length(k))
		if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s) } else sub(/[,}].*/, "", s)
		print s; exit }'
}
# rows FILE: the JSON rows (objects) of a gpumemctl --json output
rows() { grep '^{' "$1" 2>/dev/null; }
# row FILE COMM: the row of the process named COMM
row() { rows "$1" | grep -F "\"comm\":\"$2\"," | head -n 1; }

[ -r "$GM_CGROOT/cgroup.controllers" ] || fail_all "cgroup2 not mounted on $GM_CGROOT"
[ -x "$CTL" ] && [ -x "$NSX" ] || fail_all "gpumemctl or gm-nsexec missing in $GM_BIN"
qxl=$(card_of qxl)
[ -n "$qxl" ] || fail_all "no qxl device in this guest"

C=$GM_CGROOT/gpumem-ns-view
O=$GM_CGROOT/gpumem-ns-out
rmdir "$C/in" "$C" "$O" 2>/dev/null	# leftovers of an aborted run
mkcgroup "$C" && mkcgroup "$C/in" && mkcgroup "$O" || fail_all "cannot create cgroups under $GM_CGROOT"

# The outside process: 3 x 1 MiB in O, in the host's namespaces.
spawn_in_cgroup "$O" out alloc -d qxl -k vram -n 3 -s 1M -c gm-ns-out ||
	fail_all "outside helper: $(helper_why out)"

# The container: a shell, pid 1 of a new pid namespace, in a new cgroup
# namespace rooted at C (it moves itself there first). It starts the
# allocator in C/in, runs gpumemctl, says "ready" and waits for the host's
# queries to end. Arguments: tmp dir, gpumem-alloc, gpumemctl, C, tick,
# the outside process's host pid.
INNER='T=$1 ALLOC=$2 CTL=$3 CG=$4 TICK=$5 OUT=$6
sh -c "echo \$\$ >\"\$1/cgroup.procs\" || exit 111; shift; exec \"\$@\"" sh "$CG/in" \
	"$ALLOC" alloc -d qxl -k vram -n 2 -s 1M -t 600 -c gm-ns-in >"$T/in-alloc.out" 2>&1 8>&- &
p=$!
echo "$p" >"$T/in.pid"
echo "$$" >"$T/in.self"
i=0
until grep -q "^READY " "$T/in-alloc.out"; do
	i=$((i + 1)); [ $i -lt 300 ] && kill -0 $p 2>/dev/null || { echo "allocator not ready"; exit 3; }
	sleep "$TICK"
done
q() { _n=$1; shift; "$CTL" "$@" >"$T/in-$_n.json" 2>"$T/in-$_n.err"; echo $? >"$T/in-$_n.rc"; }
q ps ps --json
q held ps --held --json
q ps-p ps --json -p "$p"
q held-p ps --held --json -p "$p"
q out-p ps --held --json -p "$OUT"
q buf buffers --json -p "$p"
cat /proc/self/cgroup >"$T/in-cgroup"
: >"$T/in.ready"
i=0
while [ ! -e "$T/in.done" ] && [ $i -lt 1500 ]; do i=$((i + 1)); sleep "$TICK"; done
kill $p
wait $p
exit 0'
: >"$GM_TMP/ns.out"
sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$C" \
	"$NSX" -C -P -- sh -c "$INNER" sh "$GM_TMP" "$GM_ALLOC" "$CTL" "$C" "$GM_TICK" "$out_pid" \
	>"$GM_TMP/ns.out" 2>&1 8>&- &
ns_pid=$!
GM_PIDS="$GM_PIDS $ns_pid"
ns_ready() { [ -e "$GM_TMP/in.ready" ] || ! kill -0 "$ns_pid" 2>/dev/null; }
wait_until 120 ns_ready ||
	fail_all "the namespaced shell did not get ready"
[ -e "$GM_TMP/in.ready" ] ||
	fail_all "the namespaced shell exited: $(cat "$GM_TMP/ns.out" "$GM_TMP/in-alloc.out" 2>/dev/null | tr '\n' ' ')"

inpid=$(cat "$GM_TMP/in.pid")			# $! of the shell inside
ready=$(awk '$1 == "READY" { print $2; exit }' "$GM_TMP/in-alloc.out")	# its own getpid()
# its host pid: the one row of its name in the host's held view
"$CTL" ps --held --json >"$GM_TMP/host-held.json" 2>"$GM_TMP/host-held.err"
host=$(row "$GM_TMP/host-held.json" gm-ns-in | jget pid)
nspid=$(awk '$1 == "NSpid:" { print $NF }' "/proc/${host:-0}/status" 2>/dev/null)
log "inside: \$\$=$(cat "$GM_TMP/in.self") \$!=$inpid READY=$ready; host pid $host, NSpid $nspid; outside $out_pid"
for f in ps held ps-p held-p out-p buf; do
	log "inside $f (exit $(cat "$GM_TMP/in-$f.rc")): $(cat "$GM_TMP/in-$f.json" "$GM_TMP/in-$f.err" | tr '\n' ' ')"
done

tc_begin ns-view-own-pid
tc_eq "the shell inside is pid 1 of its namespace" "$(cat "$GM_TMP/in.self")" 1
tc_eq "the allocator's own getpid() is the shell's \$!" "$ready" "$inpid"
tc_eq "/proc/$host/status NSpid (the kernel's translation)" "$nspid" "$inpid"
tc_eq "its cgroup inside (/proc/self/cgroup of the shell)" "$(cat "$GM_TMP/in-cgroup")" "0::/"
for v in ps held; do
	r=$(row "$GM_TMP/in-$v.json" gm-ns-in)
	tc_eq "$v inside: exit status" "$(cat "$GM_TMP/in-$v.rc")" 0
	tc_eq "$v inside: pid" "$(echo "$r" | jget pid)" "$inpid"
	tc_eq "$v inside: vram" "$(echo "$r" | jget vram)" $((2 * MiB))
	tc_eq "$v inside: bos" "$(echo "$r" | jget bos)" 2
	tc_eq "$v inside: device" "$(echo "$r" | jget device)" "$qxl"
	tc_eq "$v inside: cgroup" "$(echo "$r" | jget cgroup)" /in
	tc_eq "$v inside: cgroup_id (the host's id)" "$(echo "$r" | jget cgroup_id)" "$(stat -c %i "$C/in")"
done
tc_end

tc_begin ns-view-hides-outside
for v in ps held; do
	tc_eq "$v inside: rows" "$(rows "$GM_TMP/in-$v.json" | wc -l | tr -d ' ')" 1
	tc_eq "$v inside: rows of the outside process" "$(row "$GM_TMP/in-$v.json" gm-ns-out)" ""
	tc_eq "$v inside: pid 0 ([kernel]) rows" "$(rows "$GM_TMP/in-$v.json" | grep -c '"pid":0,')" 0
done
tc_end

tc_begin ns-view-pid-filter
for v in ps-p held-p; do
	tc_eq "$v inside: exit status" "$(cat "$GM_TMP/in-$v.rc")" 0
	tc_eq "$v inside: rows" "$(rows "$GM_TMP/in-$v.json" | wc -l | tr -d ' ')" 1
	r=$(row "$GM_TMP/in-$v.json" gm-ns-in)
	tc_eq "$v inside: pid" "$(echo "$r" | jget pid)" "$inpid"
	tc_eq "$v inside: vram" "$(echo "$r" | jget vram)" $((2 * MiB))
done
tc_eq "-p <outside host pid> inside: rows" "$(rows "$GM_TMP/in-out-p.json" | wc -l | tr -d ' ')" 0
tc_eq "-p <outside host pid> inside: its comm anywhere" "$(grep -c gm-ns-out "$GM_TMP/in-out-p.json")" 0
tc_eq "buffers -p inside: exit status" "$(cat "$GM_TMP/in-buf.rc")" 0
tc_eq "buffers -p inside: buffers" "$(rows "$GM_TMP/in-buf.json" | wc -l | tr -d ' ')" 2
tc_eq "buffers -p inside: owned by its namespace pid" \
	"$(rows "$GM_TMP/in-buf.json" | grep -c "\"owner\":$inpid,")" 2
tc_eq "buffers -p inside: held by its namespace pid alone" \
	"$(rows "$GM_TMP/in-buf.json" | grep -c "\"holders\":\[$inpid\]")" 2
tc_eq "buffers -p inside: bytes" \
	"$(rows "$GM_TMP/in-buf.json" | while IFS= read -r l; do echo "$l" | jget size; done | awk '{ s += $1 } END { print s + 0 }')" \
	$((2 * MiB))
tc_end

tc_begin ns-view-host-view
"$CTL" ps --json >"$GM_TMP/host-ps.json" 2>"$GM_TMP/host-ps.err"
log "host ps: $(grep gm-ns- "$GM_TMP/host-ps.json" | tr '\n' ' ')"
tc_eq "host pid is not the namespace pid" "$([ "${host:-0}" != "$inpid" ] && echo differs)" differs
for v in ps held; do
	r=$(row "$GM_TMP/host-$v.json" gm-ns-in)
	tc_eq "$v on the host: inside process's pid" "$(echo "$r" | jget pid)" "$host"
	tc_eq "$v on the host: its vram" "$(echo "$r" | jget vram)" $((2 * MiB))
	tc_eq "$v on the host: its cgroup" "$(echo "$r" | jget cgroup)" /gpumem-ns-view/in
	r=$(row "$GM_TMP/host-$v.json" gm-ns-out)
	tc_eq "$v on the host: outside process's pid" "$(echo "$r" | jget pid)" "$out_pid"
	tc_eq "$v on the host: its vram" "$(echo "$r" | jget vram)" $((3 * MiB))
	tc_eq "$v on the host: its cgroup" "$(echo "$r" | jget cgroup)" /gpumem-ns-out
done
"$CTL" buffers --json -p "$host" >"$GM_TMP/host-buf.json" 2>&1
tc_eq "buffers -p on the host: owned by the host pid" \
	"$(rows "$GM_TMP/host-buf.json" | grep -c "\"owner\":$host,")" 2
tc_end

tc_begin ns-view-cgroup-outside
# a cgroup namespace rooted at O, the host's pid namespace
sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$O" \
	"$NSX" -C -- "$CTL" ps --held --json >"$GM_TMP/cg.json" 2>"$GM_TMP/cg.err" 8>&-
tc_eq "exit status" "$?" 0
log "cgroup ns at $O: $(grep gm-ns- "$GM_TMP/cg.json" | tr '\n' ' ')"
r=$(row "$GM_TMP/cg.json" gm-ns-in)
tc_eq "inside process: host pid" "$(echo "$r" | jget pid)" "$host"
tc_eq "inside process: path from O" "$(echo "$r" | jget cgroup)" /../gpumem-ns-view/in
r=$(row "$GM_TMP/cg.json" gm-ns-out)
tc_eq "outside process: host pid" "$(echo "$r" | jget pid)" "$out_pid"
tc_eq "outside process: path (O is the root)" "$(echo "$r" | jget cgroup)" /
tc_eq "outside process: vram" "$(echo "$r" | jget vram)" $((3 * MiB))
tc_end

: >"$GM_TMP/in.done"
reap "$ns_pid" 30
stop out
finish
