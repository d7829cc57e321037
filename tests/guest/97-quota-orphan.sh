#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Charges of buffers no GEM handle reaches (README, "Attribution rule" and
# "Known limits"):
# (1) A process that mmaps its buffers and closes their handles: 2 s later
#     the charges move to the root and no longer count against its limit.
# (2) The sweep that moves them also runs while other processes allocate.
# (3) The last close of a qxl file makes qxl allocate its console surface
#     and release buffers in the closing task's context: those charges do not
#     stay with the cgroup (at once when the process was killed: exiting
#     tasks are never charged). Runs without the anchor the other quota tests
#     keep open; skipped when another process holds a qxl file.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-orphan-mmap-moved quota-orphan-sweep-under-load
quota-lastclose-usage quota-lastclose-exiting"

. "$(dirname "$0")/quota-lib.sh"

L=$GM_CGROOT/gpumem-q-last
O=$GM_CGROOT/gpumem-q-orph
O2=$GM_CGROOT/gpumem-q-orph2
quota_setup "$L" "$O" "$O2"

# README's rule: a buffer kept only through a CPU mapping after its last
# handle is closed is reached by no handle: 2 s later its charge moves to the
# root, so it no longer counts against O's limit.
tc_begin quota-orphan-mmap-moved
ctl_ok limit set "$O" --max 4M
if spawn_cmd o1 sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
	sh "$O" "$QA" orphan -n 4 -s 1M -t "$GM_HOLD" -c gm-q-orph1; then
	tc_eq "mapped, handles closed" "$(out_total o1 ok)" 4
	tc_eq "O usage" "$(q_get /gpumem-q-orph all usage)" $((4 * MiB))
	ozero() { [ "$(q_get /gpumem-q-orph all usage)" = 0 ]; }
	wait_until 10 ozero ||
		tc_fail "O usage still $(q_get /gpumem-q-orph all usage) 10 s after the handles were closed"
	# (not r0 + 4 MiB: qxl frees console buffers charged to the root meanwhile)
	tc_num -ge "root usage (the moved 4 MiB included)" "$(cg_usage / all)" $((4 * MiB))
	run_in "$O" o2 "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 1M -t 0 -c gm-q-orph2
	tc_eq "1 MiB more in O once the mapped 4 MiB moved to the root: exit status" "$o2_rc" 0
	stop o1
	tc_eq "O usage after the process exits" "$(cg_usage /gpumem-q-orph all)" 0
else
	tc_fail "helper: $(helper_why o1)"
fi
tc_end

# The sweep (what a buffer no handle reaches is moved to the root 2 s
# later) must also run while other processes keep allocating. Without load
# first: if a mapped buffer is not moved there, there is nothing to sweep.
tc_begin quota-orphan-sweep-under-load
o2zero() { [ "$(q_get /gpumem-q-orph2 all usage)" = 0 ]; }
ctl_ok limit set "$O2" --max 64M
if ! spawn_cmd s1 sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
	sh "$O2" "$QA" orphan -n 1 -s 1M -t "$GM_HOLD" -c gm-q-sweep1; then
	tc_fail "helper: $(helper_why s1)"
	tc_end
elif ! wait_until 8 o2zero; then
	stop s1
	tc_skip "a mapped buffer without a handle stays charged (nothing for the sweep to move)"
else
	log "without load: moved to the root"
	stop s1
	# a process in the root cgroup allocates and frees 64 KiB every 0.5 s
	spawn_cmd churn sh -c 'echo READY $$; exec "$1" deny -n 80 -p 500000 -s 64K -c gm-q-churn' sh "$QA"
	if spawn_cmd s2 sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$O2" "$QA" orphan -n 1 -s 1M -t "$GM_HOLD" -c gm-q-sweep2; then
		tc_eq "charged at first" "$(q_get /gpumem-q-orph2 all usage)" "$MiB"
		if ! wait_until 10 o2zero; then
			tc_fail "still charged 10 s later while another process allocates every 0.5 s (without load it moved within 8 s)"
			stop churn
			wait_until 10 o2zero && log "moved to the root within 10 s once the other process stopped"
		fi
	else
		tc_fail "helper: $(helper_why s2)"
	fi
	stop churn
	stop s2
	tc_end
fi

stop anchor
# Anyone else holding the qxl device open?
others=""
for fd in /proc/[0-9]*/fd/*; do
	[ "$(readlink "$fd" 2>/dev/null)" = "/dev/dri/$qxl" ] || continue
	p=${fd#/proc/}
	others="$others ${p%%/*}"
done
if [ -n "$others" ]; then
	for t in quota-lastclose-usage quota-lastclose-exiting; do
		skip "$t" "other processes hold /dev/dri/$qxl open:$others"
	done
	finish
fi

mark() { echo "gpumem-test: 97-quota-lastclose $1 $$" >/dev/kmsg; }
since() { dmesg | sed -n "/gpumem-test: 97-quota-lastclose $1 $$/,\$p" | sed 1d; }

# (A driver buffer allocated in a limited task's close() is charged and, at
# the limit, denied like the task's own: README "Known limits". Only that it
# does not stay charged is asserted, below.)
ctl_ok limit set "$L" --max 2M
run_in "$L" l1 "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 1M -t 0 -c gm-q-last1

tc_begin quota-lastclose-usage
zero() { [ "$(q_get /gpumem-q-last all usage)" = 0 ]; }
u=$(q_get /gpumem-q-last all usage)
log "usage right after the exit: $u"
wait_until 10 zero || tc_fail "usage still $(q_get /gpumem-q-last all usage) 10 s after the process exited"
ctl_ok limit set "$L" --max 64M
run_in "$L" l2 "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 1M -t 0 -c gm-q-last2
u=$(q_get /gpumem-q-last all usage)
log "usage right after the exit (under 64 MiB): $u"
wait_until 10 zero || tc_fail "usage still $(q_get /gpumem-q-last all usage) 10 s after the process exited (limit not reached)"
# the same buffers leave the process's counters (the charged view) too
l2_gone() { snap charged; [ "$(tbl_count "$GM_TMP/charged" pid="$l2_pid")" = 0 ]; }
wait_until 10 l2_gone ||
	tc_fail "charged view: pid $l2_pid still has $(tbl_get "$GM_TMP/charged" vram pid="$l2_pid") bytes 10 s after it exited"
tc_end

# A process killed with its file open: the last close happens while it
# exits, and exiting tasks are never charged.
tc_begin quota-lastclose-exiting
ctl_ok limit set "$L" --max 2M
m0=$(w_mark)
d0=$(q_get /gpumem-q-last all denied)
mark exiting
if spawn_cmd k1 sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
	sh "$L" "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 1M -t "$GM_HOLD" -c gm-q-kill1; then
	kill -KILL "$k1_pid"
	reap "$k1_pid" 10
	tc_eq "usage right after the killed process is gone" "$(q_get /gpumem-q-last all usage)" 0
	w_since "$m0"
	tc_eq "events against the cgroup" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-last"')" 0
	tc_eq "denied counter" "$(q_get /gpumem-q-last all denied)" "$d0"
	since exiting | grep -i -E 'qxl|drm' | grep -v -E '\(4096, |qxl_alloc_ioctl' | grep -i -E 'failed|error' >"$GM_TMP/k.log"
	[ -s "$GM_TMP/k.log" ] && tc_fail "qxl errors in the kernel log: $(tr '\n' ' ' <"$GM_TMP/k.log")"
else
	tc_fail "helper: $(helper_why k1)"
fi
tc_end

"$CTL" limit clear "$L" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
