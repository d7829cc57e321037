#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod gpumem while limits are set, buffers charged to limited cgroups are
# alive and a watch is subscribed: the unload succeeds, allocation keeps
# working (no limit applies any more), buffers allocated before or while
# unloaded can be freed after gpumem is loaded again, and the new instance
# starts with no limits and charges only what is allocated after it, exactly.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-rmmod quota-rmmod-alloc-after quota-rmmod-reload quota-rmmod-under-load
quota-rmmod-orphan-event"

. "$(dirname "$0")/quota-lib.sh"

if ! grep -q '^gpumem ' /proc/modules; then
	for t in $CASES; do fail "$t" "gpumem is not a loaded module here"; done
	finish
fi
ensure_loaded() { grep -q '^gpumem ' /proc/modules || load_gpumem || fail quota-rmmod-reload "modprobe: $(cat "$GM_TMP/modprobe.err")"; }
trap 'ensure_loaded; _gm_cleanup' EXIT

A=$GM_CGROOT/gpumem-q-rm
B=$GM_CGROOT/gpumem-q-rmb
quota_setup "$A" "$B"

tc_begin quota-rmmod
ctl_ok limit set "$A" --max 4M
ctl_ok limit set "$B" --max 2M --device "$qxl"
hold_in "$A" a1 -n 3 -s 1M -c gm-q-rm1 || tc_fail "helper: $(helper_why a1)"
hold_in "$B" b1 -n 2 -s 1M -c gm-q-rm2 || tc_fail "helper: $(helper_why b1)"
tc_eq "A and B usage before" "$(q_get /gpumem-q-rm all usage) $(q_get /gpumem-q-rmb "$qxl" usage)" \
	"$((3 * MiB)) $((2 * MiB))"
a_before=$(buf_regions "$a1_pid")
if rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	[ -e "$GM_DEBUGFS" ] && tc_fail "$GM_DEBUGFS still exists after rmmod"
else
	tc_fail "rmmod gpumem with limits and charged buffers: $(cat "$GM_TMP/rmmod.err")"
fi
tc_eq "A's buffers are still there" "$(_alive "$a1_pid" && echo alive)" alive
tc_end

tc_begin quota-rmmod-alloc-after
# No gpumem: A's 4 MiB limit is gone with it.
run_in "$A" a2 "$GM_ALLOC" alloc -d qxl -k vram -n 4 -s 1M -t 0 -c gm-q-rm3
tc_eq "4 MiB more in A without gpumem: exit status" "$a2_rc" 0
hold_in "$A" a3 -n 2 -s 1M -c gm-q-rm4 || tc_fail "helper: $(helper_why a3)"
tc_eq "a3 got/denied" "$(out_total a3 ok) $(out_total a3 denied)" "2 0"
tc_end

tc_begin quota-rmmod-reload
if ! load_gpumem; then
	tc_fail "modprobe gpumem: $(cat "$GM_TMP/modprobe.err")"
	tc_end
	finish
fi
snap quotas
tc_eq "quotas rows after the reload (header only)" "$(wc -l <"$GM_TMP/quotas" | tr -d ' ')" 1
ctl_ok limit list --json
tc_eq "limit list after the reload" "$(tr -d '\n ' <"$GM_TMP/ctl.out")" "[]"
tc_eq "A usage (allocated before the load: never charged)" "$(cg_usage /gpumem-q-rm all)" 0
tc_eq "A's buffers as before" "$(buf_regions "$a1_pid")" "$a_before"
# Buffers allocated before the reload are freed: nothing to uncharge.
stop a1
stop b1
stop a3
tc_eq "A and B usage after their old buffers are freed" "$(cg_usage /gpumem-q-rm all) $(cg_usage /gpumem-q-rmb all)" "0 0"
# The new instance enforces and charges again, exactly.
if "$CTL" limit set "$A" --max 2M >/dev/null 2>&1; then
	hold_in "$A" a4 -n 3 -s 1M -c gm-q-rm5 || tc_fail "helper: $(helper_why a4)"
	tc_eq "a4 got/denied under 2 MiB" "$(out_total a4 ok) $(out_total a4 denied)" "2 1"
	tc_eq "A usage" "$(q_get /gpumem-q-rm all usage)" $((2 * MiB))
	stop a4
	tc_eq "A usage at the end" "$(q_get /gpumem-q-rm all usage)" 0
	"$CTL" limit clear "$A" >/dev/null 2>&1
else
	tc_fail "limit set after the reload failed"
fi
# The watch came back by itself (it waits for the family).
"$CTL" limit set "$SYNC" --max 1 >/dev/null 2>&1
if w_sync; then
	log "watch: $(tr '\n' ' ' <"$GM_TMP/w.err")"
else
	tc_fail "gpumemctl watch got no event after the reload: $(cat "$GM_TMP/w.err")"
fi
tc_end

# rmmod while four processes allocate and free without a pause, two of
# them in a limited cgroup: it ends within 30 s (the wait for the wrappers
# in flight is finite), no allocation fails meanwhile, and they go on.
tc_begin quota-rmmod-under-load
ctl_ok limit set "$A" --max 64M
i=0 ch=""
while [ $i -lt 4 ]; do
	cg=$GM_CGROOT
	[ $i -lt 2 ] && cg=$A
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$cg" \
		"$QA" churn -n 10000000 -s 64K -c gm-q-rmch$i >"$GM_TMP/ch$i.out" 2>&1 8>&- &
	ch="$ch $!"
	GM_PIDS="$GM_PIDS $!"
	i=$((i + 1))
done
sleep 1
t0=$(date +%s)
rmmod gpumem 2>"$GM_TMP/rmmod.err" || tc_fail "rmmod under load: $(cat "$GM_TMP/rmmod.err")"
tc_num -le "seconds rmmod took under load" $(($(date +%s) - t0)) 30
alive=0
for p in $ch; do _alive "$p" && alive=$((alive + 1)); done
tc_eq "allocating processes still running after rmmod" "$alive" 4
sleep 1	# and they go on allocating without gpumem
i=0
for p in $ch; do
	kill -TERM "$p" 2>/dev/null
	reap "$p" 30
	grep -q '^CHURN n=[1-9]' "$GM_TMP/ch$i.out" ||
		tc_fail "allocating process $i: $(tail -n 2 "$GM_TMP/ch$i.out")"
	i=$((i + 1))
done
load_gpumem || tc_fail "modprobe after rmmod under load: $(cat "$GM_TMP/modprobe.err")"
tc_end

# rmmod just as an orphaned event is due: an allocator in A exits leaving
# 2 x 1 MiB to its fork child, a read of orphans kicks the events' work,
# and gpumem is unloaded at once (the work is waited for or cancelled, the
# charge sweep too). The child's buffers are freed after the reload.
tc_begin quota-rmmod-orphan-event
echo 1048576 >"$GM_PARAMS/orphan_event_bytes"
if ! spawn_in_cgroup "$A" o forkhold -d qxl -n 2 -s 1M -c gm-q-rmorph; then
	tc_fail "helper: $(helper_why o)"
else
	okid=$(out_val o CHILD pid)
	GM_PIDS="$GM_PIDS $okid"
	stop o
	cat "$GM_DEBUGFS/orphans" >/dev/null
	rmmod gpumem 2>"$GM_TMP/rmmod.err" || tc_fail "rmmod with an orphaned event due: $(cat "$GM_TMP/rmmod.err")"
	load_gpumem || tc_fail "modprobe after it: $(cat "$GM_TMP/modprobe.err")"
	kill -TERM "$okid" 2>/dev/null
	reap "$okid" 10
	_alive "$okid" && tc_fail "the fork child $okid did not exit"
	tc_eq "A usage after the child's exit (charged before the reload: never here)" \
		"$(cg_usage /gpumem-q-rm all)" 0
fi
tc_end

"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
