#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Orphans (debugfs `orphans`): resident VRAM whose allocating process has
# exited, with the cgroup still charged and who keeps it now. Three
# allocators in cgroup A exit leaving their buffers to: a fork child that
# inherited the card fd (holders = its pid); a dma-buf importer in cgroup B
# (its pid, and "dma-buf"); a fork child that only maps them, every handle
# closed ("mapping"). Exact bytes, buffer counts, pids, cgroups; each row
# goes when its last holder exits. netlink `orphan-get` (through the
# kernel's YNL CLI) and `gpumemctl orphans --json` say the same as debugfs.
# Orphaned events (`gpumemctl watch --json --type orphaned`, with
# orphan_event_bytes set to 2 MiB, the fork child's 2 x 1 MiB exactly): one
# per allocator, with the bytes, buffers and holders the report shows; none
# for an allocator that exits alone (2 x 1280 KiB, freed) nor for one leaving
# 2 x 1020 KiB (below the threshold) to a fork child; invalid values of the
# parameter are refused. Needs qxl (charges are made by the TTM
# hooks). Usage: run by the guest runner (tests/guest/lib.sh).
. "$(dirname "$0")/lib.sh"
require_gpumem
. "$(dirname "$0")/quota-lib.sh"	# ev_check, out_total

CASES="orphans-event-param orphans-none-while-alive orphans-fork-child orphans-dmabuf-importer
orphans-event-none orphans-mapping-only orphans-netlink orphans-ctl orphans-events orphans-gone"
card=$(card_of qxl)
A=$GM_CGROOT/gm-orphans-a
B=$GM_CGROOT/gm-orphans-b
if [ -z "$card" ] || [ ! -r "$GM_DEBUGFS/orphans" ] || ! mkcgroup "$A" || ! mkcgroup "$B"; then
	for t in $CASES; do
		fail "$t" "need a qxl card ($card), $GM_DEBUGFS/orphans and cgroups under $GM_CGROOT"
	done
	finish
fi
acg=$(stat -c %i "$A")
CTL=${GM_CTL:-$GM_BIN/gpumemctl}
EVB=2097152	# orphan_event_bytes: the fork child's 2 x 1 MiB exactly

tc_begin orphans-event-param
if [ ! -w "$GM_PARAMS/orphan_event_bytes" ]; then
	tc_fail "no $GM_PARAMS/orphan_event_bytes (gpumem without orphaned events)"
else
	evb0=$(cat "$GM_PARAMS/orphan_event_bytes")
	tc_eq "orphan_event_bytes default" "$evb0" 1048576
	param_refuses orphan_event_bytes -1 abc 1.5 1M 1099511627777 18446744073709551616
	param_accepts orphan_event_bytes 0 1 1099511627776 "$EVB"
	trap 'echo "$evb0" >"$GM_PARAMS/orphan_event_bytes"; _gm_cleanup' EXIT
fi
tc_end
# the orphaned events, from before the first allocator exits
"$CTL" watch --json --type orphaned -t 900 >"$GM_TMP/ow.out" 2>"$GM_TMP/ow.err" 8>&- &
ow_pid=$!
GM_PIDS="$GM_PIDS $ow_pid"
# ev_of PID: the orphaned events of allocator PID (JSON lines).
ev_of() { grep "\"pid\":$1," "$GM_TMP/ow.out"; }
has_ev() { [ -n "$(ev_of "$1")" ]; }

# orph PID COLUMN: COLUMN of the orphans rows of allocator PID (one a line).
orph() { snap orphans; tbl_get "$GM_TMP/orphans" "$2" pid="$1"; }
orph_rows() { snap orphans; tbl_count "$GM_TMP/orphans" pid="$1"; }
has_orph() { [ "$(orph_rows "$1")" -ge 1 ]; }
no_orph() { [ "$(orph_rows "$1")" = 0 ]; }

# orph_check PID COL=VALUE...: exactly one row for PID, every column checked.
orph_check() {
	_p=$1
	shift
	snap orphans
	tc_eq "orphans rows of allocator $_p" "$(tbl_count "$GM_TMP/orphans" pid="$_p")" 1
	for _kv in "$@"; do
		tc_eq "orphan of $_p ${_kv%%=*}" \
			"$(tbl_get "$GM_TMP/orphans" "${_kv%%=*}" pid="$_p")" "${_kv#*=}"
	done
	tc_num -ge "orphan of $_p since_ms" "$(tbl_get "$GM_TMP/orphans" since_ms pid="$_p")" 0
}

if ! spawn_in_cgroup "$A" f forkhold -d qxl -n 2 -s 1M -c gm-orph-fork ||
	! spawn_in_cgroup "$A" x export -d qxl -n 1 -s 2M -S "$GM_TMP/sock" -c gm-orph-exp ||
	! spawn_in_cgroup "$B" y import -d qxl -S "$GM_TMP/sock" -c gm-orph-imp ||
	! spawn_in_cgroup "$A" m mapfork -d qxl -n 3 -s 1M -c gm-orph-map ||
	! spawn_in_cgroup "$A" s alloc -d qxl -n 2 -s 1280K -c gm-orph-alone ||
	! spawn_in_cgroup "$A" b forkhold -d qxl -n 2 -s 1020K -c gm-orph-below; then
	for t in $CASES; do
		fail "$t" "helpers failed: $(helper_why f) $(helper_why x) $(helper_why y) $(helper_why m)" \
			"$(helper_why s) $(helper_why b)"
	done
	finish
fi
fkid=$(out_val f CHILD pid)
mkid=$(out_val m CHILD pid)
bkid=$(out_val b CHILD pid)
GM_PIDS="$GM_PIDS $fkid $mkid $bkid"
log "fork $f_pid -> $fkid, export $x_pid -> import $y_pid, mapfork $m_pid -> $mkid"

tc_begin orphans-none-while-alive
tc_eq "header" "$(head -n 1 "$GM_DEBUGFS/orphans")" \
	"device region bytes buffers cgroup_id cgroup pid comm since_ms holders"
for p in "$f_pid" "$x_pid" "$m_pid"; do
	tc_eq "orphans rows of live allocator $p" "$(orph_rows "$p")" 0
done
tc_eq "mapfork buffers mapped" "$(out_val m MAPPED bytes)" 3145728
tc_end

tc_begin orphans-fork-child
stop f
# the charge sweep notices the exit (every 2 s): no read of orphans before
wait_until 10 has_ev "$f_pid" || tc_fail "no orphaned event for $f_pid 10 s after its exit"
wait_until 5 has_orph "$f_pid" || tc_fail "no orphans row for $f_pid 5 s after its exit"
orph_check "$f_pid" device="$card" region=vram bytes=2097152 buffers=2 cgroup_id="$acg" \
	cgroup=/gm-orphans-a comm=gm-orph-fork holders="$fkid"
tc_end

tc_begin orphans-dmabuf-importer
stop x
wait_until 5 has_orph "$x_pid" || tc_fail "no orphans row for $x_pid 5 s after its exit"
orph_check "$x_pid" device="$card" region=vram bytes=2097152 buffers=1 cgroup_id="$acg" \
	cgroup=/gm-orphans-a comm=gm-orph-exp holders="$y_pid,dma-buf"
tc_end

# Exits that raise no event: alone (buffers freed), below the threshold.
# Both before the mapping-only allocator's exit, whose event (checked in
# orphans-events) comes from a later pass of the work than their deaths.
tc_begin orphans-event-none
tc_eq "alone: buffers" "$(out_total s bytes)" 2621440
stop s
stop b
wait_until 5 has_orph "$b_pid" || tc_fail "no orphans row for $b_pid 5 s after its exit"
orph_check "$b_pid" device="$card" region=vram bytes=2088960 buffers=2 cgroup_id="$acg" \
	cgroup=/gm-orphans-a comm=gm-orph-below holders="$bkid"
# (TTM may free a busy buffer a moment later)
wait_until 5 no_orph "$s_pid" || tc_fail "orphans rows of $s_pid (exited alone): $(orph_rows "$s_pid")"
tc_end

tc_begin orphans-mapping-only
stop m
# the sweep again, for placements no longer in the process's counters
wait_until 10 has_ev "$m_pid" || tc_fail "no orphaned event for $m_pid 10 s after its exit"
wait_until 5 has_orph "$m_pid" || tc_fail "no orphans row for $m_pid 5 s after its exit"
orph_check "$m_pid" device="$card" region=vram bytes=3145728 buffers=3 cgroup_id="$acg" \
	cgroup=/gm-orphans-a comm=gm-orph-map holders=mapping
tc_end

# netlink orphan-get (the YNL CLI, as root: the op is admin-only) = debugfs,
# for the three allocators: "pid bytes buffers cgroup since>=0 holders".
PY=${GM_PYTHON:-/usr/bin/python3}
YNL=${GM_YNL:-/opt/ynl}
tc_begin orphans-netlink
if [ ! -x "$PY" ] || [ ! -e "$YNL/cli.py" ] || [ ! -e "$YNL/gpumem.yaml" ]; then
	tc_fail "no python3 / YNL CLI in the initramfs ($PY, $YNL/cli.py)"
else
	"$PY" "$YNL/cli.py" --spec "$YNL/gpumem.yaml" --no-schema --dump orphan-get \
		>"$GM_TMP/nl.out" 2>"$GM_TMP/nl.err"
	tc_eq "cli.py --dump orphan-get exit" "$?" 0
	sed 's/^/#   /' "$GM_TMP/nl.err" | head -n 10
	"$PY" -c '
import ast, sys
names = ["kernel", "dma-buf", "mapping", "busy"]
for d in ast.literal_eval(open(sys.argv[1]).read() or "[]"):
    k = d.get("kinds", 0)
    if isinstance(k, int):
        k = [n for i, n in enumerate(names) if k >> i & 1]
    h = [str(p) for p in d.get("holder", [])] + [n for n in names if n in k]
    print(d["pid"], d["bytes"], d["buffers"], d.get("cgroup-path", "-"),
          "yes" if d["since-ms"] >= 0 else "no", ",".join(h) or "-")
' "$GM_TMP/nl.out" | sort >"$GM_TMP/nl.rows"
	snap orphans
	awk 'NR > 1 { print $7, $3, $4, $6, ($9 >= 0 ? "yes" : "no"), $10 }' "$GM_TMP/orphans" |
		sort >"$GM_TMP/dbg.rows"
	for p in "$f_pid" "$x_pid" "$m_pid"; do
		tc_eq "netlink row of $p" "$(awk -v p="$p" '$1 == p' "$GM_TMP/nl.rows")" \
			"$(awk -v p="$p" '$1 == p' "$GM_TMP/dbg.rows")"
	done
	tc_eq "netlink row of $x_pid (exact)" "$(awk -v p="$x_pid" '$1 == p' "$GM_TMP/nl.rows")" \
		"$x_pid 2097152 1 /gm-orphans-a yes $y_pid,dma-buf"
fi
tc_end

# gpumemctl orphans --json: "bytes buffers holders kinds cgroup" of each allocator.
CTL=${GM_CTL:-$GM_BIN/gpumemctl}
ctl_row() {
	grep "\"pid\":$1," "$GM_TMP/ctl.json" | sed -n \
		's/.*"bytes":\([0-9]*\).*"buffers":\([0-9]*\).*"holders":\[\([0-9,]*\)\].*"kinds":"\([^"]*\)".*"cgroup":"\([^"]*\)".*/\1 \2 \3 \4 \5/p'
}
tc_begin orphans-ctl
"$CTL" orphans --json >"$GM_TMP/ctl.json" 2>"$GM_TMP/ctl.err"
tc_eq "gpumemctl orphans --json exit" "$?" 0
sed 's/^/#   /' "$GM_TMP/ctl.json" "$GM_TMP/ctl.err" | head -n 10
tc_eq "gpumemctl row of $f_pid" "$(ctl_row "$f_pid")" "2097152 2 $fkid - /gm-orphans-a"
tc_eq "gpumemctl row of $x_pid" "$(ctl_row "$x_pid")" "2097152 1 $y_pid dma-buf /gm-orphans-a"
tc_eq "gpumemctl row of $m_pid" "$(ctl_row "$m_pid")" "3145728 3  mapping /gm-orphans-a"
"$CTL" orphans --bytes >"$GM_TMP/ctl.tbl" 2>&1
tc_eq "gpumemctl orphans (table) exit" "$?" 0
tc_eq "table rows of the three allocators" \
	"$(awk -v a="$f_pid" -v b="$x_pid" -v c="$m_pid" '$5 == a || $5 == b || $5 == c' "$GM_TMP/ctl.tbl" | wc -l | tr -d ' ')" 3
tc_end

# ev_is PID BYTES BUFFERS HOLDERS KINDS COMM: exactly one event, every field.
ev_is() {
	_l=$(ev_of "$1")
	tc_eq "orphaned events of $1" "$(echo "$_l" | grep -c .)" 1
	[ -n "$_l" ] || return
	ev_check "$(echo "$_l" | head -n 1)" type=orphaned device="$card" region=vram \
		cgroup=/gm-orphans-a cgroup_id="$acg" usage="$2" buffers="$3" kinds="$5" \
		comm="$6" missed=0 requested=null limit=null
	tc_eq "orphaned event of $1: holders" \
		"$(echo "$_l" | head -n 1 | sed -n 's/.*"holders":\[\([0-9,]*\)\].*/\1/p')" "$4"
}
tc_begin orphans-events
wait_until 20 has_ev "$m_pid" || tc_fail "no orphaned event for $m_pid 20 s after its exit"
for p in "$f_pid" "$x_pid"; do
	wait_until 5 has_ev "$p" || tc_fail "no orphaned event for $p"
done
log "gpumemctl watch --json --type orphaned:"
sed 's/^/#   /' "$GM_TMP/ow.out" "$GM_TMP/ow.err"
# the fork child's: the bytes the report showed (orphans-fork-child)
ev_is "$f_pid" 2097152 2 "$fkid" - gm-orph-fork
ev_is "$x_pid" 2097152 1 "$y_pid" dma-buf gm-orph-exp
ev_is "$m_pid" 3145728 3 "" mapping gm-orph-map
tc_eq "orphaned events of $s_pid (exited alone)" "$(ev_of "$s_pid" | grep -c .)" 0
tc_eq "orphaned events of $b_pid (2088960 bytes, below $EVB)" "$(ev_of "$b_pid" | grep -c .)" 0
tc_eq "events other than orphaned" "$(grep -vc '"type":"orphaned"' "$GM_TMP/ow.out")" 0
tc_eq "events missed" "$(grep -c '"missed":[1-9]' "$GM_TMP/ow.out")" 0
tc_end

# The last holders go: the buffers are freed, the rows with them.
tc_begin orphans-gone
for p in "$fkid" "$mkid" "$bkid"; do
	kill -TERM "$p"
	reap "$p" 10
done
stop y
for p in "$f_pid" "$x_pid" "$m_pid" "$b_pid"; do
	wait_until 5 no_orph "$p" || tc_fail "orphans row of $p still there 5 s after its holders exited"
done
tc_end

finish
