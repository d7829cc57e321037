#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The hook statistics (debugfs stats hook_*, stats-get, gpumemctl stats),
# against what this script arranges on qxl VRAM:
#  - at rest, hook_charged - hook_uncharged = hook_live_records, and
#    hook_events_sent + hook_events_lost = the last sequence number the
#    event watch saw (every numbered event is one or the other);
#  - a cgroup limited to 2 MiB asks 5 times for 1 MiB while a neighbour
#    keeps 4 MiB resident: hook_denied rises by exactly the 3 denials (as
#    the limit's own denied counter does), hook_guard_refused by at least
#    one per denial (TTM wanted to evict the neighbour each time; it may
#    try more than once), charged by exactly the 2 placements made (on
#    6.1, TTM also gives every buffer it creates a system placement first,
#    charged and uncharged: 5 more of each, one per create);
#    events_sent by exactly the events numbered meanwhile (seq S0+1..S1,
#    S = sent + lost at rest), which are the 3 quota-exceeded events of
#    the cgroup and orphaned events only; nothing fails, nothing is lost or
#    suppressed;
#  - the helpers' own records, exactly: the charged view lists 4 and 2
#    placements for their pids; once they exited, their cgroups are charged
#    nothing and no buffer of theirs is left; charged rose by exactly
#    those 6 (and on 6.1 the creates' first system placements), uncharged
#    by as much plus the records of others that went meanwhile, which are
#    none when the buffer walk saw no buffer of others go or move (then
#    hook_live_records is back at its value before them), and at most those
#    it saw otherwise (qxl frees the console surfaces of earlier last closes
#    late). The script starts from
#    a settled count (records of earlier scripts' buffers that TTM frees
#    late go first: hook_live_records unchanged for 3 s);
#  - with event_burst=1 and event_rate=1 a fresh cgroup denied 5 times
#    sends some events and suppresses the others: sent for it + suppressed
#    = 5 exactly; a 6th denial 2 s later (a token back) is sent and carries
#    the count suppressed before it: the suppressed fields of the cgroup's
#    events add up to hook_events_suppressed's increase;
#  - `gpumemctl stats --json` says what debugfs stats says at rest;
#  - test kernel (fault injection): 3 of 5 placements without memory for
#    their records count as hook_charge_failed = 3 (and make no record), 2
#    events without memory for their message as hook_events_lost = 2.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="hook-stats-at-rest hook-stats-deny hook-stats-freed hook-stats-suppressed
hook-stats-ctl-json hook-stats-fault-charge hook-stats-fault-event"

. "$(dirname "$0")/quota-lib.sh"

P=/sys/module/gpumem/parameters
burst0=$(cat "$P/event_burst" 2>/dev/null)
rate0=$(cat "$P/event_rate" 2>/dev/null)
FC=$GM_DEBUGFS/fail_charge
FE=$GM_DEBUGFS/fail_event
restore() {
	[ -n "$burst0" ] && echo "$burst0" >"$P/event_burst"
	[ -n "$rate0" ] && echo "$rate0" >"$P/event_rate"
	[ -d "$FC" ] && fault_off "$FC"
	[ -d "$FE" ] && fault_off "$FE"
	for _cg in "$H" "$S" "$F"; do "$CTL" limit clear "$_cg" >/dev/null 2>&1; done
}
trap 'restore; _gm_cleanup' EXIT

H=$GM_CGROOT/gpumem-q-hs
N=$GM_CGROOT/gpumem-q-hs-nb
S=$GM_CGROOT/gpumem-q-hs-rl
F=$GM_CGROOT/gpumem-q-hs-f
quota_setup "$H" "$N" "$S" "$F"

# orphan_bufs: the placements of exited owners (debugfs orphans' buffers):
# also those no file lists, such as what qxl allocates at a last close
orphan_bufs() {
	snap orphans
	awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "buffers") c = i; next }
		c { n += $c } END { print n + 0 }' "$GM_TMP/orphans"
}
# hs NAME: debugfs stats as $GM_TMP/hs.NAME; hv NAME KEY: hook_KEY there.
hs() { snap stats; cp "$GM_TMP/stats" "$GM_TMP/hs.$1"; }
hv() { num "$(tbl_get "$GM_TMP/hs.$1" value name="hook_$2")"; }
# hd A B KEY: hook_KEY's increase from snapshot A to B.
hd() { echo $(($(hv "$2" "$3") - $(hv "$1" "$3"))); }
# last_seq: the sequence number of the last event the watch printed.
last_seq() { tail -n 1 "$GM_TMP/w.out" | sed -n 's/.*"seq":\([0-9]*\).*/\1/p'; }
# at_rest: a snapshot "rest" in which both identities hold (the counters are
# read one after the other: another allocation may fall between them).
at_rest() {
	hs rest
	[ $(($(hv rest charged) - $(hv rest uncharged))) -eq "$(hv rest live_records)" ] &&
		[ $(($(hv rest events_sent) + $(hv rest events_lost))) -eq "$(num "$(last_seq)")" ]
}

HOOK_KEYS="charged uncharged charge_failed denied guard_refused events_sent events_suppressed
events_lost live_records unattributed resv_released"
# rest_why: what at_rest found, for a failure
rest_why() {
	echo "charged $(hv rest charged) - uncharged $(hv rest uncharged) vs live_records" \
		"$(hv rest live_records); events sent $(hv rest events_sent) + lost" \
		"$(hv rest events_lost) vs last seq $(last_seq)"
}

tc_begin hook-stats-at-rest
w_sync || tc_fail "the sync event did not arrive"
hs first
for k in $HOOK_KEYS; do
	[ -n "$(tbl_get "$GM_TMP/hs.first" value name="hook_$k")" ] || tc_fail "no hook_$k in debugfs stats"
done
wait_until 10 at_rest || tc_fail "not at rest: $(rest_why)"
log "at rest: $(rest_why)"
tc_num -ge "sequence numbers taken (the sync events at least)" "$(num "$(last_seq)")" 1
tc_num -ge "hook_denied (the sync events' denials at least)" "$(hv rest denied)" 1
tc_end

# jget_sum KEY: the sum of KEY over the JSON lines on stdin
jget_sum() { _sum=0; while IFS= read -r _l; do _sum=$((_sum + $(num "$(printf '%s\n' "$_l" | jget "$1")"))); done; echo "$_sum"; }
# settled: at rest, and hook_live_records unchanged for 3 s
settled() {
	at_rest || return 1
	_l0=$(hv rest live_records)
	sleep 3
	at_rest && [ "$(hv rest live_records)" = "$_l0" ]
}
# charged_bos PID: the placements the charged view counts for PID on qxl
charged_bos() { snap charged; num "$(tbl_get "$GM_TMP/charged" bos pid="$1" device="$qxl")"; }
# seq_events A B: the events the watch printed with A < seq <= B
seq_events() {
	awk -v a="$1" -v b="$2" '{ s = $0; sub(/.*"seq":/, "", s); sub(/[,}].*/, "", s)
		if (s + 0 > a && s + 0 <= b) print }' "$GM_TMP/w.out"
}

# SYS_FIRST: 1 where TTM places a buffer it creates in system memory first
# (6.1; gone in 6.2), each create then one more charge and uncharge
SYS_FIRST=0
[ "$(kernel_mm)" -lt 602 ] && SYS_FIRST=1

tc_begin hook-stats-deny
# Room first: 8 MiB placed and freed by a process of its own, so that the
# helpers' 6 MiB need no eviction (were qxl's VRAM nearly full of what
# earlier scripts left, TTM's moves of those buffers would be charges too).
# Whatever this evicts is done before the snapshot.
run_in "$N" room "$QA" hold -n 8 -s 1M -t 1 -c gm-hs-room
[ "$room_rc" = 0 ] || tc_fail "making room: quota-alloc exited $room_rc: $(tail -n 2 "$GM_TMP/room.out")"
# Buffers freed but not yet destroyed (TTM deletes a buffer whose fences
# are pending later; qxl signals them lazily) keep their records, invisible
# to the buffer walk, until TTM's next eviction walk destroys them: any
# allocation that needs room, such as h1's denied ones. A denial first (the
# sync event's), then the count must stay put across another one.
reaped() {
	w_sync && settled || return 1
	_r0=$(hv rest live_records)
	w_sync && at_rest && [ "$(hv rest live_records)" = "$_r0" ]
}
wait_until 60 reaped || tc_fail "not settled before: $(rest_why)"
cp "$GM_TMP/hs.rest" "$GM_TMP/hs.base"
snap buffers
cp "$GM_TMP/buffers" "$GM_TMP/buffers.base"
orph0=$(orphan_bufs)
sync0=${W_SYNC_RUNS:-0}
ctl_ok limit set "$H" --max 2M
hold_in "$N" nb -n 4 -s 1M -c gm-hs-nb || tc_fail "neighbour: $(helper_why nb)"
tc_eq "neighbour's buffers" "$(out_total nb ok) $(out_total nb denied)" "4 0"
dq0=$(num "$(q_get /gpumem-q-hs all denied)")
ds0=$(num "$(q_get /gpumem-q-sync all denied)")
wait_until 10 at_rest || tc_fail "not at rest with the neighbour: $(rest_why)"
cp "$GM_TMP/hs.rest" "$GM_TMP/hs.d0"
orph_d0=$(orphan_bufs)
hold_in "$H" h1 -n 5 -s 1M -c gm-hs-h1 || tc_fail "helper: $(helper_why h1)"
hs d1
# A buffer an exited process freed whose fences qxl signalled only now is
# destroyed by h1's eviction walks (its record goes): a placement of an
# exited owner, in the orphans report before and not after (CI on 6.12
# once saw 3 such go here although the count had settled before).
orph_d1=$(orphan_bufs)
went=$((orph_d0 > orph_d1 ? orph_d0 - orph_d1 : 0))
log "orphaned placements: $orph_d0 before h1, $orph_d1 after"
tc_eq "h1 got/denied" "$(out_total h1 ok) $(out_total h1 denied)" "2 3"
tc_eq "the limit's denied counter rose by" $(($(num "$(q_get /gpumem-q-hs all denied)") - dq0)) 3
tc_eq "the sync cgroup's denied counter rose by" $(($(num "$(q_get /gpumem-q-sync all denied)") - ds0)) 0
tc_eq "hook_denied rose by" "$(hd d0 d1 denied)" 3
tc_num -ge "hook_guard_refused rose by (one eviction at least per denial)" "$(hd d0 d1 guard_refused)" 3
# h1's 2 placements are the only records that stay; before 6.2 TTM gives
# every buffer it creates a system placement first (ttm_bo_init_reserved),
# a charge and an uncharge of h1's for each of its 5 creates
tc_eq "records alive rose by (h1's 2 placements, less $went orphaned ones gone)" \
	"$(hd d0 d1 live_records)" $((2 - went))
tc_eq "hook_charged rose by (h1's 2 placements, + $((5 * SYS_FIRST)) first system placements)" \
	"$(hd d0 d1 charged)" $((2 + 5 * SYS_FIRST))
tc_eq "hook_uncharged rose by (the first system placements, + $went orphaned ones gone)" \
	"$(hd d0 d1 uncharged)" $((5 * SYS_FIRST + went))
tc_eq "hook_charge_failed rose by" "$(hd d0 d1 charge_failed)" 0
tc_eq "hook_events_lost rose by" "$(hd d0 d1 events_lost)" 0
tc_eq "hook_events_suppressed rose by (a fresh bucket of 200)" "$(hd d0 d1 events_suppressed)" 0
# the events numbered from d0 to d1, once the watch printed them (the sync
# event comes after d1)
s0=$(($(hv d0 events_sent) + $(hv d0 events_lost)))
s1=$(($(hv d1 events_sent) + $(hv d1 events_lost)))
w_sync || tc_fail "the sync event did not arrive"
seq_events "$s0" "$s1" >"$GM_TMP/dev.ev"
sed 's/^/#   /' "$GM_TMP/dev.ev"
n_h=$(grep '"type":"quota-exceeded"' "$GM_TMP/dev.ev" | grep -c '"cgroup":"/gpumem-q-hs"')
n_sync=$(grep -c '"cgroup":"/gpumem-q-sync"' "$GM_TMP/dev.ev")
n_orph=$(grep -c '"type":"orphaned"' "$GM_TMP/dev.ev")
tc_eq "events numbered meanwhile, as the watch printed them" "$(grep -c . "$GM_TMP/dev.ev")" $((s1 - s0))
tc_eq "h1's quota-exceeded events among them" "$n_h" 3
tc_eq "events of others among them (but the sync event and orphaned ones)" \
	$((s1 - s0 - n_h - n_sync - n_orph)) 0
tc_eq "hook_events_sent rose by (h1's 3 + the sync event + orphaned events)" \
	"$(hd d0 d1 events_sent)" $((3 + n_sync + n_orph))
tc_eq "the helpers' records in the charged view (nb, h1)" \
	"$(charged_bos "$nb_pid") $(charged_bos "$h1_pid")" "4 2"
tc_end

tc_begin hook-stats-freed
stop h1
stop nb
# back at the settled count (TTM may free the helpers' buffers a little
# later), or below it: another owner's buffer may go meanwhile (qxl frees
# console surfaces of earlier last closes late), counted below
back() { at_rest && [ "$(hv rest live_records)" -le "$(hv base live_records)" ]; }
wait_until 20 back || tc_fail "hook_live_records not back at $(hv base live_records) or below: $(rest_why)"
snap buffers
# others_went: the buffers of others (neither helper's) listed before the
# helpers and gone or moved since, as the buffer walk sees them
others_went=$(awk -v a="$nb_pid" -v b="$h1_pid" 'NR == FNR { if (FNR > 1) seen[$0]++; next }
	FNR > 1 && $2 != a && $2 != b && seen[$0] > 0 { seen[$0]-- }
	END { n = 0; for (l in seen) n += seen[l]; print n }' "$GM_TMP/buffers.base" "$GM_TMP/buffers")
# and the placements of exited owners that went, which no file lists (qxl
# frees what it allocated at an earlier last close late)
orph1=$(orphan_bufs)
[ "$orph0" -gt "$orph1" ] && others_went=$((others_went + orph0 - orph1))
went=$(($(hv base live_records) - $(hv rest live_records)))
log "hook_live_records $(hv base live_records) before the helpers, $(hv rest live_records) after;" \
	"others' buffers gone or moved meanwhile: $others_went (orphaned placements $orph0 before, $orph1 after)"
[ "$others_went" = 0 ] || sed 's/^/#   before: /' "$GM_TMP/buffers.base"
[ "$others_went" = 0 ] || sed 's/^/#   after:  /' "$GM_TMP/buffers"
tc_eq "the cgroups' usage" "$(q_get /gpumem-q-hs all usage) $(cg_usage /gpumem-q-hs-nb "$qxl")" "0 0"
tc_eq "the helpers' rows in the charged view" "$(charged_bos "$nb_pid") $(charged_bos "$h1_pid")" "0 0"
tc_eq "the helpers' buffers in the buffer walk" \
	"$(awk -v a="$nb_pid" -v b="$h1_pid" '$2 == a || $2 == b' "$GM_TMP/buffers" | grep -c .)" 0
# charges: exactly the helpers' 6 placements (+ on 6.1 the first system
# placements of nb's 4 and h1's 5 creates and of the sync events' creates)
nfirst=$(((9 + ${W_SYNC_RUNS:-0} - sync0) * SYS_FIRST))
tc_eq "hook_charged rose by (4 + 2 placements + $nfirst first system placements)" \
	"$(hd base rest charged)" $((6 + nfirst))
# records that went: none but the others' buffers the walk saw go (a
# record of the helpers' left behind cannot hide behind one of theirs)
if [ "$others_went" = 0 ]; then
	tc_eq "hook_live_records after the helpers (nothing else went)" \
		"$(hv rest live_records)" "$(hv base live_records)"
else
	tc_num -le "records that went (at most the others' buffers gone or moved: $others_went)" \
		"$went" "$others_went"
fi
tc_eq "hook_uncharged rose by (all the helpers' charges given back, and the $went records of others that went)" \
	"$(hd base rest uncharged)" $((6 + nfirst + went))
tc_end

tc_begin hook-stats-suppressed
if [ -z "$burst0" ] || [ -z "$rate0" ]; then
	tc_fail "no event_burst/event_rate parameters in $P"
else
	# A bucket is filled when its limit is made: with a burst of 1, S's
	# first denial is sent and the next ones within a second suppressed.
	echo 1 >"$P/event_burst" && echo 1 >"$P/event_rate" || tc_fail "cannot set event_burst/event_rate"
	hs r0
	m0=$(w_mark)
	ctl_ok limit set "$S" --max 1
	run_in "$S" r1 "$QA" deny -n 5 -s 64K -c gm-hs-rl
	hs r1
	echo "$burst0" >"$P/event_burst"
	echo "$rate0" >"$P/event_rate"
	tc_eq "denials" "$(out_val r1 DENY denied) $(out_val r1 DENY ok) $(out_val r1 DENY other)" "5 0 0"
	w_since "$m0"
	sent=$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-hs-rl"')
	log "events for the 5 denials: $sent sent, $(hd r0 r1 events_suppressed) suppressed"
	tc_eq "hook_denied rose by" "$(hd r0 r1 denied)" 5
	tc_eq "events sent for the cgroup + hook_events_suppressed increase" \
		$((sent + $(hd r0 r1 events_suppressed))) 5
	tc_num -ge "suppressed (5 denials well within 4 seconds)" "$(hd r0 r1 events_suppressed)" 1
	# every event numbered meanwhile is sent (none lost): the cgroup's and
	# any orphaned event of an exiting process, as the watch printed them
	tc_eq "hook_events_sent rose by (the events numbered meanwhile)" "$(hd r0 r1 events_sent)" \
		"$(seq_events $(($(hv r0 events_sent) + $(hv r0 events_lost))) \
			$(($(hv r1 events_sent) + $(hv r1 events_lost))) | grep -c .)"
	tc_eq "hook_events_lost rose by" "$(hd r0 r1 events_lost)" 0
	# The count suppressed after the last event sent travels with the
	# next one: a 6th denial once a token is back (rate 1/s).
	echo 1 >"$P/event_burst" && echo 1 >"$P/event_rate"
	sleep 2
	run_in "$S" r2 "$QA" deny -n 1 -s 64K -c gm-hs-rl
	hs r2
	echo "$burst0" >"$P/event_burst"
	echo "$rate0" >"$P/event_rate"
	w_since "$m0"
	echo "$ev" | grep '"cgroup":"/gpumem-q-hs-rl"' >"$GM_TMP/rl.ev"
	tc_eq "hook_events_suppressed rose by (the 6th denial was sent)" "$(hd r1 r2 events_suppressed)" 0
	tc_eq "events of the cgroup for 6 denials" "$(grep -c . "$GM_TMP/rl.ev")" $((sent + 1))
	tc_eq "the 6th event's suppressed: those after the last one sent" \
		"$(tail -n 1 "$GM_TMP/rl.ev" | jget suppressed)" \
		$(($(hd r0 r1 events_suppressed) - $(head -n "$sent" "$GM_TMP/rl.ev" | jget_sum suppressed)))
	tc_eq "the suppressed fields of its events add up to hook_events_suppressed's rise" \
		"$(jget_sum suppressed <"$GM_TMP/rl.ev")" "$(hd r0 r2 events_suppressed)"
	tc_num -ge "the 6th event's suppressed" "$(tail -n 1 "$GM_TMP/rl.ev" | jget suppressed)" 1
fi
tc_end

# gpumemctl stats --json against debugfs stats: both read at rest, and
# debugfs read again after gpumemctl (the same: nothing moved between).
tc_begin hook-stats-ctl-json
ok=""
for try in 1 2 3 4 5; do
	hs j0
	"$CTL" stats --json >"$GM_TMP/stats.json" 2>"$GM_TMP/stats.err" || { tc_fail "gpumemctl stats --json: $(cat "$GM_TMP/stats.err")"; break; }
	hs j1
	# the hook statistics alone (a background walk, such as the orphaned
	# events' report, moves the walk counters without any placement)
	grep '^hook_' "$GM_TMP/hs.j0" >"$GM_TMP/hs.j0h"
	grep '^hook_' "$GM_TMP/hs.j1" >"$GM_TMP/hs.j1h"
	if [ -s "$GM_TMP/hs.j0h" ] && cmp -s "$GM_TMP/hs.j0h" "$GM_TMP/hs.j1h"; then ok=1; break; fi
	sleep 1
done
# Never still (the debug kernel's chatty console has qxl allocate release
# buffers from kernel context, hook_unattributed, all the time): each value
# gpumemctl printed must then lie between the two debugfs reads around it.
[ -n "$ok" ] || log "debugfs stats' hook lines moved in all 5 tries: values checked between the reads"
# between KEY GOT: GOT within the two reads' values of KEY (equal when still)
between() {
	_a=$(num "$(tbl_get "$GM_TMP/hs.j0" value name="$1")")
	_b=$(num "$(tbl_get "$GM_TMP/hs.j1" value name="$1")")
	_g=$(num "$2")
	if [ "$_a" -gt "$_b" ]; then _t=$_a _a=$_b _b=$_t; fi
	if [ "$_g" -ge "$_a" ] && [ "$_g" -le "$_b" ]; then
		log "  ok: $1 = $_g (debugfs $_a..$_b)"
	else
		tc_fail "$1: gpumemctl stats --json says '$2', debugfs $_a..$_b"
	fi
}
if [ -s "$GM_TMP/stats.json" ]; then
	n=0
	for k in $HOOK_KEYS; do
		between "hook_$k" "$(jget "hook_$k" <"$GM_TMP/stats.json")"
		n=$((n + 1))
	done
	for k in walks walks_failed devices; do
		between "$k" "$(jget "$k" <"$GM_TMP/stats.json")"
	done
	tc_eq "hook statistics compared" "$n" 11
	"$CTL" stats >"$GM_TMP/stats.txt" 2>&1
	tc_eq "gpumemctl stats: hook rows" "$(grep -c '^hook_' "$GM_TMP/stats.txt")" 11
elif [ -z "$GM_TC_WHY" ]; then
	tc_fail "gpumemctl stats --json printed nothing"
fi
tc_end

if [ ! -d "$FC" ] || [ ! -d "$FE" ]; then
	for t in hook-stats-fault-charge hook-stats-fault-event; do
		skip "$t" "no fault injection in this kernel ($FC, $FE: CONFIG_FAULT_INJECTION_DEBUG_FS)"
	done
	finish
fi

# failing_in NAME ARGS...: quota-alloc ARGS in $F with make-it-fail set (the
# faults' task filter), waits for READY as hold_in does
failing_in() {
	_n=$1
	shift
	spawn_cmd "$_n" sh -c 'echo 1 >/proc/self/make-it-fail && echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$F" "$QA" "$@"
}

tc_begin hook-stats-fault-charge
wait_until 10 at_rest || tc_fail "not at rest before: $(rest_why)"
cp "$GM_TMP/hs.rest" "$GM_TMP/hs.f0"
fault_on "$FC" 100 3 Y || tc_fail "cannot arm $FC"
failing_in f1 hold -n 5 -s 1M -c gm-hs-f1 -t "$GM_HOLD" || tc_fail "helper: $(helper_why f1)"
tc_eq "failures injected (times left)" "$(cat "$FC/times")" 0
fault_off "$FC"
wait_until 10 at_rest || tc_fail "not at rest with f1's buffers: $(rest_why)"
cp "$GM_TMP/hs.rest" "$GM_TMP/hs.f1"
tc_eq "allocations (gpumem's failures never fail them)" "$(out_total f1 ok) $(out_total f1 denied)" "5 0"
tc_eq "hook_charge_failed rose by" "$(hd f0 f1 charge_failed)" 3
tc_num -ge "hook_charged rose by (2 of the 5 placements at least)" "$(hd f0 f1 charged)" 2
tc_eq "the cgroup's usage: 2 MiB charged" "$(cg_usage /gpumem-q-hs-f "$qxl")" $((2 * MiB))
stop f1
tc_eq "the cgroup's usage after f1 exits" "$(cg_usage /gpumem-q-hs-f "$qxl")" 0
tc_end

tc_begin hook-stats-fault-event
ctl_ok limit set "$F" --max 1
hs e0
m0=$(w_mark)
fault_on "$FE" 100 2 Y || tc_fail "cannot arm $FE"
run_in "$F" e1 sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh "$QA" deny -n 3 -s 64K -c gm-hs-ev
fault_off "$FE"
hs e1
tc_eq "denials" "$(out_val e1 DENY denied) $(out_val e1 DENY ok) $(out_val e1 DENY other)" "3 0 0"
tc_eq "failures injected (times left)" "$(cat "$FE/times")" 0
tc_eq "hook_events_lost rose by" "$(hd e0 e1 events_lost)" 2
tc_num -ge "hook_events_sent rose by" "$(hd e0 e1 events_sent)" 1
w_since "$m0"
tc_eq "events received for the 3 denials" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-hs-f"')" 1
wait_until 10 at_rest || tc_fail "not at rest after the lost events: $(rest_why)"
tc_end

finish
