#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many holders of one DRM file (issue 22): a process in cgroup A allocates
# 4 x 64 KiB on qxl and forks GM_FORK_N (default 1000) children that keep
# its card fd. (a) the held view (debugfs `processes` and a netlink dump,
# gpumemctl ps --held), a `buffers` read and, once the allocator has
# exited, an orphans report (debugfs and gpumemctl orphans --json) complete
# and show every holder exactly (capped by dump_max_bytes: the lowest
# holders and the exact number left out), and the walk visited the file's 4 handles
# once (stats last_walk_bos; before issue 22 once per holder); (b) the allocator's exit raises its
# orphaned event (usage, buffers, the 128 lowest holder pids); (c)
# meanwhile allocations in cgroup B keep completing, and the kernel log
# shows no soft lockup, hung task or RCU stall, with the watchdog, hung-task
# and RCU stall thresholds lowered so that a stall of a few seconds is
# reported rather than merely slow. Usage: run by the guest runner.
. "$(dirname "$0")/lib.sh"
require_gpumem
. "$(dirname "$0")/quota-lib.sh"	# ev_check

CASES="fork-holders-setup fork-holders-processes fork-holders-held-dump fork-holders-buffers
fork-holders-orphans fork-holders-orphans-capped fork-holders-orphaned-event fork-holders-other-cgroup fork-holders-no-stall"
N=${GM_FORK_N:-1000}
NB=4
SZ=65536
BYTES=$((NB * SZ))
CTL=${GM_CTL:-$GM_BIN/gpumemctl}
card=$(card_of qxl)
A=$GM_CGROOT/gm-forkh-a
B=$GM_CGROOT/gm-forkh-b
if [ -z "$card" ] || [ ! -r "$GM_DEBUGFS/orphans" ] || ! mkcgroup "$A" || ! mkcgroup "$B"; then
	fail_all "need a qxl card ($card), $GM_DEBUGFS/orphans and cgroups under $GM_CGROOT"
fi

# Lower the stall detectors' thresholds for this script (restored at exit).
WD=/proc/sys/kernel/watchdog_thresh
HT=/proc/sys/kernel/hung_task_timeout_secs
RS=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
wd0=$(cat "$WD" 2>/dev/null) ht0=$(cat "$HT" 2>/dev/null) rs0=$(cat "$RS" 2>/dev/null)
oeb0=$(cat "$GM_PARAMS/orphan_event_bytes")
restore() {
	[ -n "$wd0" ] && echo "$wd0" >"$WD"
	[ -n "$ht0" ] && echo "$ht0" >"$HT"
	[ -n "$rs0" ] && echo "$rs0" >"$RS"
	echo "$oeb0" >"$GM_PARAMS/orphan_event_bytes"
	[ -n "$cap0" ] && echo "$cap0" >"$GM_PARAMS/dump_max_bytes"
	[ -w "$A/cgroup.kill" ] && echo 1 >"$A/cgroup.kill"
	_gm_cleanup
}
trap restore EXIT
detectors=""
{ echo 5 >"$WD"; } 2>/dev/null && detectors="$detectors soft-lockup(10s)"
{ echo 10 >"$HT"; } 2>/dev/null && detectors="$detectors hung-task(10s)"
{ echo 10 >"$RS"; } 2>/dev/null && detectors="$detectors rcu-stall(10s)"
log "stall detectors lowered:$detectors"
echo "gpumem-test: 48-fork-holders start" >/dev/kmsg
echo "$BYTES" >"$GM_PARAMS/orphan_event_bytes"

"$CTL" watch --json --type orphaned -t 900 >"$GM_TMP/ow.out" 2>"$GM_TMP/ow.err" 8>&- &
GM_PIDS="$GM_PIDS $!"

# the handles a walk visits before the allocator: one walk, no helper yet
cat "$GM_DEBUGFS/processes" >/dev/null
bos0=$(stat_value last_walk_bos)

tc_begin fork-holders-setup
GM_READY_TIMEOUT=240	# READY once every child is forked (slow under KASAN)
if ! spawn_in_cgroup "$A" f forkmany -d qxl -n "$NB" -s 64K -F "$N" -c gm-forkmany; then
	tc_fail "forkmany helper failed: $(helper_why f)"
	tc_end
	for t in $CASES; do [ "$t" = fork-holders-setup ] || fail "$t" "setup failed"; done
	finish
fi
tc_eq "allocator total" "$(out_val f TOTAL bytes)" "$BYTES"
tc_eq "children forked" "$(out_val f CHILDREN n)" "$N"
# every holder, ascending: the allocator and its children
sort -n "$A/cgroup.procs" >"$GM_TMP/holders"
tc_eq "processes in cgroup A" "$(grep -c . "$GM_TMP/holders")" $((N + 1))
sed "/^$f_pid\$/d" "$GM_TMP/holders" >"$GM_TMP/kids"
tc_eq "children in cgroup A" "$(grep -c . "$GM_TMP/kids")" "$N"
tc_eq "lowest holder is the allocator" "$(head -n 1 "$GM_TMP/holders")" "$f_pid"
tc_end

# (a) debugfs processes: every holder charged the 4 buffers once, shared;
# the lowest pid (the allocator) owns them; the walk visited their 4
# handles once.
tc_begin fork-holders-processes
snap processes
awk -v c="$card" 'NR > 1 && $5 == c && ($2 == "gm-forkmany" || $2 == "gm-forkmany-kid") {
	print $1, $6, $10, $11, $12 }' "$GM_TMP/processes" | sort -n >"$GM_TMP/procs"
tc_eq "rows of the holders" "$(grep -c . "$GM_TMP/procs")" $((N + 1))
tc_eq "holders' pids" "$(cut -d' ' -f1 "$GM_TMP/procs" | md5sum)" "$(md5sum <"$GM_TMP/holders")"
tc_eq "allocator's row (pid vram shared owned bos)" "$(head -n 1 "$GM_TMP/procs")" \
	"$f_pid $BYTES $BYTES $BYTES $NB"
tc_eq "children's rows (vram shared owned bos)" \
	"$(sed 1d "$GM_TMP/procs" | cut -d' ' -f2- | sort | uniq -c | awk '{ $1 = $1; print }')" \
	"$N $BYTES $BYTES 0 $NB"
# a file's handles are collected once, whatever the number of its holders
# (before issue 22: once per holder, $NB x $((N + 1)))
tc_eq "handles the walk visited, more than before the allocator" \
	"$(($(num "$(stat_value last_walk_bos)") - $(num "$bos0")))" "$NB"
tc_end

# (c) from here on, cgroup B allocates and frees 2 x 128 KiB over and over,
# each run checked, until $GM_TMP/b.stop exists: "ok" or "bad: ..." per run.
: >"$GM_TMP/b.log"
(
	while [ ! -e "$GM_TMP/b.stop" ]; do
		sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$B" \
			"$GM_ALLOC" alloc -d qxl -n 2 -s 128K -t 0 -c gm-forkh-b >"$GM_TMP/b.out" 2>&1 8>&-
		rc=$?
		t=$(out_val b TOTAL bytes)
		if [ "$rc" = 0 ] && [ "$t" = 262144 ]; then echo ok; else echo "bad: rc $rc total '$t'"; fi
	done >>"$GM_TMP/b.log"
) 8>&- &
b_loop=$!
GM_PIDS="$GM_PIDS $b_loop"
b_runs() { grep -c . "$GM_TMP/b.log"; }
# b_progress: wait for 2 more runs of cgroup B than now.
b_progress() {
	_b0=$(b_runs)
	_b_more() { [ "$(b_runs)" -ge $((_b0 + 2)) ]; }
	wait_until 60 _b_more
}

# (a) the held view over netlink (a dump of every row)
tc_begin fork-holders-held-dump
"$CTL" ps --held --json --device "$card" >"$GM_TMP/held.json" 2>"$GM_TMP/held.err"
tc_eq "gpumemctl ps --held exit" "$?" 0
head -c 300 "$GM_TMP/held.err"
tr '{' '\n' <"$GM_TMP/held.json" | grep '"comm":"gm-forkmany' |
	sed -n 's/.*"pid":\([0-9]*\),.*"vram":\([0-9]*\).*/\1 \2/p' | sort -n >"$GM_TMP/held"
tc_eq "held rows of the holders" "$(grep -c . "$GM_TMP/held")" $((N + 1))
tc_eq "held rows' pids" "$(cut -d' ' -f1 "$GM_TMP/held" | md5sum)" "$(md5sum <"$GM_TMP/holders")"
tc_eq "held rows' vram" "$(cut -d' ' -f2 "$GM_TMP/held" | sort -u)" "$BYTES"
tc_end

# (a) buffers: the 4 rows list every holder, ascending
tc_begin fork-holders-buffers
snap buffers
awk -v c="$card" -v p="$f_pid" 'NR > 1 && $1 == c && $2 == p' "$GM_TMP/buffers" >"$GM_TMP/bufs"
tc_eq "buffer rows of the allocator" "$(grep -c . "$GM_TMP/bufs")" "$NB"
tc_eq "their sizes" "$(awk '{ print $4 }' "$GM_TMP/bufs" | sort -u)" "$SZ"
tc_eq "their holders" "$(awk '{ print $8 }' "$GM_TMP/bufs" | sort -u)" \
	"$(paste -sd, "$GM_TMP/holders")"
tc_end
b_progress || log "cgroup B made no progress during the held views"

# (b) the allocator exits: its buffers stay with the children
stop f
ev_of() { grep "\"pid\":$f_pid," "$GM_TMP/ow.out"; }
has_ev() { [ -n "$(ev_of)" ]; }
orph_rows() { snap orphans; tbl_count "$GM_TMP/orphans" pid="$f_pid"; }
has_orph() { [ "$(orph_rows)" -ge 1 ]; }

tc_begin fork-holders-orphans
wait_until 20 has_orph || tc_fail "no orphans row for $f_pid 20 s after its exit"
snap orphans
tc_eq "orphans rows of $f_pid" "$(tbl_count "$GM_TMP/orphans" pid="$f_pid")" 1
for kv in device="$card" region=vram bytes="$BYTES" buffers="$NB" cgroup=/gm-forkh-a \
	comm=gm-forkmany; do
	tc_eq "orphan ${kv%%=*}" "$(tbl_get "$GM_TMP/orphans" "${kv%%=*}" pid="$f_pid")" "${kv#*=}"
done
# debugfs shows the lowest holders, then "+N" for the others; the full
# list is in the netlink report
dh=$(tbl_get "$GM_TMP/orphans" holders pid="$f_pid")
shown=$(echo "$dh" | tr , '\n' | grep -c '^[0-9]')
tc_eq "orphan holders (debugfs)" "$dh" \
	"$(head -n "$shown" "$GM_TMP/kids" | paste -sd,),+$((N - shown))"
tc_num -ge "orphan holders (debugfs) shown" "$shown" 3
"$CTL" orphans --json >"$GM_TMP/orph.json" 2>"$GM_TMP/orph.err"
tc_eq "gpumemctl orphans --json exit" "$?" 0
tr '{' '\n' <"$GM_TMP/orph.json" | grep "\"pid\":$f_pid," |
	sed -n 's/.*"holders":\[\([0-9,]*\)\].*/\1/p' >"$GM_TMP/orph.holders"
tc_eq "orphan holders (netlink): every child" "$(cat "$GM_TMP/orph.holders")" \
	"$(paste -sd, "$GM_TMP/kids")"
tc_eq "orphan holders dropped (netlink), complete list" \
	"$(tr '{' '\n' <"$GM_TMP/orph.json" | grep "\"pid\":$f_pid," |
		sed -n 's/.*"holders_dropped":\([0-9]*\).*/\1/p')" 0
tc_end

# The report kept for a reader is capped (dump_max_bytes): with 2048 bytes
# its rows fit but not 1000 holder pids; the row lists the lowest holders
# and says how many it left out, exactly the rest; statistic
# orphans_truncated rises by what the report left out. With 64 bytes not
# even a row fits: EMSGSIZE, the extack naming the cap (6.2+).
tc_begin fork-holders-orphans-capped
cap0=$(cat "$GM_PARAMS/dump_max_bytes")
tr0=$(stat_value orphans_truncated)
echo 2048 >"$GM_PARAMS/dump_max_bytes"
"$CTL" orphans --json >"$GM_TMP/orphc.json" 2>"$GM_TMP/orphc.err"
rc=$?
echo 64 >"$GM_PARAMS/dump_max_bytes"
"$CTL" orphans --json >"$GM_TMP/orph64.json" 2>"$GM_TMP/orph64.err"
rc64=$?
echo "$cap0" >"$GM_PARAMS/dump_max_bytes"
tr1=$(stat_value orphans_truncated)
tc_eq "gpumemctl orphans --json exit (2048-byte cap)" "$rc" 0
head -c 300 "$GM_TMP/orphc.err"
row=$(tr '{' '\n' <"$GM_TMP/orphc.json" | grep "\"pid\":$f_pid,")
listed=$(echo "$row" | sed -n 's/.*"holders":\[\([0-9,]*\)\].*/\1/p')
nlisted=$(echo "$listed" | tr , '\n' | grep -c .)
dropped=$(echo "$row" | sed -n 's/.*"holders_dropped":\([0-9]*\).*/\1/p')
all_dropped=$(tr '{' '\n' <"$GM_TMP/orphc.json" |
	sed -n 's/.*"holders_dropped":\([0-9]*\).*/\1/p' | awk '{ t += $1 } END { print t + 0 }')
log "2048-byte cap: $nlisted holders listed, $dropped dropped; all rows: $all_dropped dropped"
tc_num -gt "holders dropped from the capped row" "${dropped:-0}" 0
tc_eq "holders listed + dropped" $((nlisted + ${dropped:-0})) "$N"
tc_eq "holders listed: the lowest" "$listed" "$(head -n "$nlisted" "$GM_TMP/kids" | paste -sd,)"
tc_eq "orphans_truncated rose by the holders the report left out" $((tr1 - tr0)) "$all_dropped"
tc_num -ne "gpumemctl orphans exit (64-byte cap)" "$rc64" 0
check_cap_error "gpumemctl orphans" "$GM_TMP/orph64.err"
tc_end

tc_begin fork-holders-orphaned-event
wait_until 30 has_ev || tc_fail "no orphaned event for $f_pid 30 s after its exit"
tc_eq "orphaned events of $f_pid" "$(ev_of | grep -c .)" 1
if has_ev; then
	ev_check "$(ev_of | head -n 1)" type=orphaned device="$card" region=vram \
		cgroup=/gm-forkh-a usage="$BYTES" buffers="$NB" comm=gm-forkmany missed=0
	# an event names the 128 lowest holders
	tc_eq "orphaned event holders" \
		"$(ev_of | head -n 1 | sed -n 's/.*"holders":\[\([0-9,]*\)\].*/\1/p')" \
		"$(head -n 128 "$GM_TMP/kids" | paste -sd,)"
fi
tc_end
b_progress || log "cgroup B made no progress after the allocator's exit"

# (c) cgroup B's allocations went on and all succeeded
tc_begin fork-holders-other-cgroup
touch "$GM_TMP/b.stop"
reap "$b_loop" 60
tc_num -ge "cgroup B allocation runs" "$(b_runs)" 4
tc_eq "cgroup B runs that failed" "$(grep -v '^ok$' "$GM_TMP/b.log" | head -n 3)" ""
tc_end

tc_begin fork-holders-no-stall
echo 1 >"$A/cgroup.kill" 2>/dev/null || for p in $(cat "$A/cgroup.procs"); do kill -KILL "$p"; done
gone() { [ -z "$(cat "$A/cgroup.procs")" ]; }
wait_until 60 gone || tc_fail "children of cgroup A still alive 60 s after cgroup.kill"
dmesg | sed -n '/gpumem-test: 48-fork-holders start/,$p' >"$GM_TMP/dmesg"
tc_eq "kernel log since the start: stall reports" \
	"$(grep -iE 'soft lockup|blocked for more than|hung_task|rcu.*(stall|self-detected)' "$GM_TMP/dmesg" | head -n 5)" ""
if [ -z "$detectors" ]; then
	tc_fail "no stall detector could be lowered ($WD, $HT, $RS)"
fi
tc_end

finish
