#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quotas under concurrency: several processes in two children of a limited
# cgroup start allocating 1 MiB buffers at the same moment, asking for more
# than the limit together. The limit is never overshot: the sum of what
# they got is exactly the limit, and the usage sampled all along never
# exceeds it. Every denied request is counted. A neighbour in another cgroup
# keeps 4 MiB resident in VRAM all along: no round evicts any of it. Runs on
# a guest with 4 vCPUs under multi-threaded TCG (scripts/run-guest.sh), so the
# allocators really run at the same time; every round is checked.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-race-no-overshoot quota-race-denied-count quota-race-exact-zero quota-race-neighbour"

. "$(dirname "$0")/quota-lib.sh"

A=$GM_CGROOT/gpumem-q-race
N=$GM_CGROOT/gpumem-q-race-nb
quota_setup "$A" "$A/r1" "$A/r2" "$N"
procs=6 per=4 rounds=3 xmb=8
cpus=$(grep -c '^processor' /proc/cpuinfo)
log "$cpus CPUs online"
hold_in "$N" nb -n 4 -s 1M -c gm-q-race-nb || fail_all "neighbour: $(helper_why nb)"
nb_before=$(buf_regions "$nb_pid")
nb_bad=""
[ "$nb_before" = "$(repeat 4 vram/2)" ] || nb_bad="neighbour's buffers before: $nb_before;"
X=$((xmb * MiB))
ctl_ok limit set "$A" --max "${xmb}M" >/dev/null
log "$rounds rounds of $procs processes x $per x 1 MiB against a limit of $xmb MiB"

round=0 over="" got_bad="" denied_bad="" zero_bad=""
while [ $round -lt $rounds ]; do
	round=$((round + 1))
	rm -f "$GM_TMP/go" "$GM_TMP/stop"
	d0=$(num "$(q_get /gpumem-q-race all denied)")
	i=0 names=""
	while [ $i -lt $procs ]; do
		cg=$A/r$((i % 2 + 1))
		: >"$GM_TMP/p$i.out"
		sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$cg" \
			"$QA" hold -n "$per" -s 1M -g "$GM_TMP/go" -t "$GM_HOLD" -c "gm-q-race$i" \
			>"$GM_TMP/p$i.out" 2>&1 8>&- &
		eval "p${i}_pid=$!"
		GM_PIDS="$GM_PIDS $!"
		names="$names p$i"
		i=$((i + 1))
	done
	armed() { [ "$(cat "$GM_TMP"/p*.out | grep -c '^ARMED ')" -ge "$procs" ]; }
	readyall() { [ "$(cat "$GM_TMP"/p*.out | grep -c '^READY ')" -ge "$procs" ]; }
	wait_until 60 armed || { fail quota-race-no-overshoot "helpers did not start: $(cat "$GM_TMP"/p*.out)"; finish; }
	# the usage in the quotas file, read in a loop until "stop" exists
	spawn_cmd samp "$QA" sample -g "$GM_TMP/stop" -o /gpumem-q-race -t "$GM_HOLD" ||
		{ fail quota-race-no-overshoot "sampler: $(helper_why samp)"; finish; }
	touch "$GM_TMP/go"
	wait_until 60 readyall || { fail quota-race-no-overshoot "helpers did not finish: $(cat "$GM_TMP"/p*.out)"; finish; }
	touch "$GM_TMP/stop"
	sampled() { grep -q '^SAMPLES ' "$GM_TMP/samp.out"; }
	wait_until 10 sampled || over="$over round $round: the sampler did not stop;"
	reap "$samp_pid" 5
	ok=0 den=0
	for n in $names; do
		ok=$((ok + $(num "$(out_total "$n" ok)")))
		den=$((den + $(num "$(out_total "$n" denied)")))
	done
	usage=$(q_get /gpumem-q-race all usage)
	max=$(out_val samp SAMPLES max)
	nsamp=$(num "$(out_val samp SAMPLES n)")
	dd=$(($(num "$(q_get /gpumem-q-race all denied)") - d0))
	log "round $round: got $ok MiB, denied $den requests, usage $usage, $nsamp samples, max sample $max, denied counter +$dd"
	[ "$ok" -eq "$xmb" ] && [ "$usage" = "$X" ] || got_bad="$got_bad round $round: got $ok MiB (want $xmb), usage $usage (want $X);"
	[ "$(num "$max")" -le "$X" ] && [ "$nsamp" -gt 0 ] || over="$over round $round: max sampled usage $max of $nsamp samples > $X;"
	[ "$dd" -eq "$den" ] || denied_bad="$denied_bad round $round: denied counter +$dd, processes were denied $den times;"
	for n in $names; do stop "$n"; done
	u=$(q_get /gpumem-q-race all usage)
	[ "$u" = 0 ] || zero_bad="$zero_bad round $round: usage $u after the processes exited;"
	nb_now=$(buf_regions "$nb_pid")
	[ "$nb_now" = "$nb_before" ] || nb_bad="$nb_bad round $round: neighbour's buffers $nb_now;"
done

tc_begin quota-race-no-overshoot
[ -n "$got_bad" ] && tc_fail "$got_bad"
[ -n "$over" ] && tc_fail "$over"
tc_end
tc_begin quota-race-denied-count
[ -n "$denied_bad" ] && tc_fail "$denied_bad"
tc_end
tc_begin quota-race-neighbour
tc_num -ge "online CPUs (real parallelism)" "$cpus" 4
[ -n "$nb_bad" ] && tc_fail "$nb_bad"
tc_eq "neighbour usage" "$(cg_usage /gpumem-q-race-nb all)" $((4 * MiB))
stop nb
tc_eq "neighbour usage after exit" "$(cg_usage /gpumem-q-race-nb all)" 0
tc_end
tc_begin quota-race-exact-zero
[ -n "$zero_bad" ] && tc_fail "$zero_bad"
tc_eq "child usage" "$(cg_usage /gpumem-q-race/r1 all) $(cg_usage /gpumem-q-race/r2 all)" "0 0"
tc_end

"$CTL" limit clear "$A" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
