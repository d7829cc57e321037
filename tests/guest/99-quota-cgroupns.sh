#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Limits against readers and writers in other namespaces (issue: "one
# unprivileged read from inside a cgroup namespace erases every limit"):
# (1) an unprivileged user in new user + cgroup namespaces, rooted in a
#     cgroup of its own, reads limits, cgroups and usage: every read
#     succeeds (exit 0), `limit list --json` lists the node's limits with
#     host paths, as the host does, and every limit on the node is still
#     there afterwards, and still after the sweep ran;
# (2) the same user's writes (limit set/clear) are refused with EPERM and
#     change nothing;
# (3) root inside a cgroup namespace sees host limits with host paths;
# (4) an event caused by a task inside a cgroup namespace names the host
#     path of its cgroup.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="ns-unpriv-read-keeps-limits ns-unpriv-write-eperm ns-root-reads-host ns-event-host-path"

. "$(dirname "$0")/quota-lib.sh"

NSX=$GM_BIN/gm-nsexec
A=$GM_CGROOT/gpumem-q-ns-a
B=$GM_CGROOT/gpumem-q-ns-b
R=$GM_CGROOT/gpumem-q-ns-reader
NS_UID=60124
quota_setup "$A" "$B" "$R"

ctl_ok limit set "$A" --max 4M
ctl_ok limit set "$B" --max 8M --high 6M
# limits: "cgroup max high mode" of every limit on the node, sorted
limits() { "$CTL" limit list --json 2>/dev/null | limits_of; }
# limits_of: the same, of `limit list --json` output on stdin
limits_of() {
	tr '{' '\n' | grep '"cgroup"' | while IFS= read -r l; do
		echo "$(echo "{$l" | jget cgroup) $(echo "{$l" | jget max) $(echo "{$l" | jget high) $(echo "{$l" | jget mode)"
	done | sort
}
before=$(limits)
log "limits before: $before"
# in_ns CGDIR NAME ARGS...: gm-nsexec ARGS from a process moved into CGDIR first
in_ns() {
	_cg=$1 _n=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 112; shift; exec "$@"' sh "$_cg" "$NSX" "$@" \
		>"$GM_TMP/$_n.out" 2>"$GM_TMP/$_n.err" 8>&-
	eval "${_n}_rc=$?"
}

tc_begin ns-unpriv-read-keeps-limits
tc_eq "limits set" "$(echo "$before" | grep -c gpumem-q-ns)" 2
for cmd in "limit list" "limit list --json" "cgroups" "cgroups --json" "ps" "ps --held" "devices" \
	"limit get $A"; do
	# shellcheck disable=SC2086
	in_ns "$R" rd -u "$NS_UID" -U -C -- "$CTL" $cmd
	tc_eq "'$cmd' as uid $NS_UID in user+cgroup ns: exit (stderr: $(_oneline "$(head -c 300 "$GM_TMP/rd.err")"))" \
		"$rd_rc" 0
	[ "$cmd" = "limit list --json" ] &&
		tc_eq "limits as the namespaced reader lists them" "$(limits_of <"$GM_TMP/rd.out")" "$before"
	tc_eq "limits after '$cmd'" "$(limits)" "$before"
done
in_ns "$R" who -u "$NS_UID" -U -C -- cat /proc/self/cgroup
tc_eq "the reader's cgroup seen from inside" "$(cat "$GM_TMP/who.out")" "0::/"
sleep 5	# two sweeps: a removed cgroup's limit is dropped there
tc_eq "limits after the sweep" "$(limits)" "$before"
tc_end

tc_begin ns-unpriv-write-eperm
in_ns "$R" wr -u "$NS_UID" -U -C -- "$CTL" limit set "$A" --max 64M
tc_eq "limit set in the namespaces: exit status (4 = permission denied)" "$wr_rc" 4
in_ns "$R" wr -u "$NS_UID" -U -C -- "$CTL" limit clear "$B"
tc_eq "limit clear in the namespaces: exit status" "$wr_rc" 4
tc_eq "limits after the writes" "$(limits)" "$before"
tc_end

tc_begin ns-root-reads-host
in_ns "$R" rr -C -- "$CTL" limit get "$A" --json
tc_eq "root in a cgroup ns: limit get exit status" "$rr_rc" 0
tc_eq "its cgroup path" "$(jget cgroup <"$GM_TMP/rr.out")" /gpumem-q-ns-a
tc_eq "its max" "$(jget max <"$GM_TMP/rr.out")" $((4 * MiB))
in_ns "$R" rs -C -- "$CTL" limit set "$B" --max 16M --json
tc_eq "root in a cgroup ns: limit set exit status" "$rs_rc" 0
tc_eq "the reply's cgroup path" "$(jget cgroup <"$GM_TMP/rs.out")" /gpumem-q-ns-b
tc_eq "the limit as the host sees it" "$(q_get /gpumem-q-ns-b all max)" $((16 * MiB))
ctl_ok limit set "$B" --max 8M --high 6M
tc_eq "limits after" "$(limits)" "$before"
tc_end

tc_begin ns-event-host-path
m0=$(w_mark)
# in A, whose limit is 4 MiB, inside a cgroup ns rooted at A: 5 x 1 MiB
in_ns "$A" ev -C -- "$GM_ALLOC" alloc -d qxl -k vram -n 5 -s 1M -t 0 -c gm-q-ns-ev
tc_eq "allocating in A's cgroup ns: exit status (the 5th MiB denied)" "$ev_rc" 1
tc_eq "buffers it got" "$(grep -c '^BO ' "$GM_TMP/ev.out")" 4
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" cgroup=/gpumem-q-ns-a cgroup_id="$(cgid /gpumem-q-ns-a)" denied=true usage=$((4 * MiB))
tc_eq "A usage after the process exited" "$(q_get /gpumem-q-ns-a all usage)" 0
tc_end

"$CTL" limit clear "$A" >/dev/null 2>&1
"$CTL" limit clear "$B" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
