#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl watch against real quota events: a cgroup with a 1 MiB VRAM max
# on the qxl device allocates 2 x 1 MiB; `watch --json` and `watch -n 1`
# print the quota-exceeded event (cgroup, comm, device, region, limit, mode,
# denied). Then gpumem is unloaded under a running watch: it says so on
# stderr, waits without spinning (CPU time checked), says when the module is
# back and prints the next event; SIGTERM ends it with status 0.
# Skipped without a qxl device or without quota support in the module.
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="ctl-watch-json ctl-watch-line ctl-watch-reload"
if [ ! -x "$CTL" ]; then
	for t in $CASES; do fail "$t" "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"; done
	finish
fi
card=$(card_of qxl)
if [ -z "$card" ]; then
	for t in $CASES; do fail "$t" "no qxl device to place VRAM on"; done
	finish
fi
CG=$GM_CGROOT/gm-watch
mkcgroup "$CG" || { for t in $CASES; do fail "$t" "cannot create $CG"; done; finish; }
if ! "$CTL" limit set "$CG" --max 1M --device "$card" >"$GM_TMP/set.out" 2>&1; then
	if grep -q "does not know this request" "$GM_TMP/set.out"; then
		for t in $CASES; do fail "$t" "the loaded gpumem module has no quota support"; done
	else
		for t in $CASES; do fail "$t" "limit set: $(cat "$GM_TMP/set.out")"; done
	fi
	finish
fi

ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)
# Whatever happened: gpumem loaded again, the limit gone.
ensure_loaded() {
	grep -q '^gpumem ' /proc/modules && return 0
	modprobe gpumem 2>/dev/null || { [ -n "$ko" ] && insmod "$ko"; }
	wait_until 10 test -r "$GM_DEBUGFS/stats"
}
trap 'ensure_loaded; "$CTL" limit clear "$CG" --device "$card" >/dev/null 2>&1; _gm_cleanup' EXIT

jget() {
	awk -v k="\"$1\":" '{
		i = index($0, k); if (!i) next
		v = substr($0, i + length(k))
		if (substr(v, 1, 1) == "\"") { v = substr(v, 2); sub(/".*/, "", v) }
		else sub(/[,}].*/, "", v)
		print v; exit
	}'
}

# trigger: 2 x 1 MiB of VRAM from a process in the cgroup (the second is
# over the limit; the helper may fail, that is fine), held for a second;
# the helper's pid in $GM_TMP/trigger.pid.
trigger() {
	sh -c 'echo $$ >"$3"; echo $$ >"$1/cgroup.procs" || exit 111; exec "$2" alloc -d qxl -k vram -n 2 -s 1M -c gm-watch -t 1' \
		sh "$CG" "$GM_ALLOC" "$GM_TMP/trigger.pid" >"$GM_TMP/trigger.out" 2>&1
	log "  trigger: $(_oneline "$(grep -v '^BO' "$GM_TMP/trigger.out")")"
}

# start_watch NAME ARGS...: gpumemctl watch ARGS in the background, output in
# $GM_TMP/NAME.out and NAME.err, its pid in ${NAME}_pid.
start_watch() {
	_n=$1
	shift
	"$CTL" watch "$@" >"$GM_TMP/$_n.out" 2>"$GM_TMP/$_n.err" 8>&- &
	eval "${_n}_pid=$!"
	GM_PIDS="$GM_PIDS $!"
	sleep 1	# subscribed by then (nothing to wait for on the outside)
}

events() { grep -c '"type":"quota-exceeded"' "$GM_TMP/$1.out" 2>/dev/null; }

tc_begin ctl-watch-json
start_watch j --json	# sets j_pid
# shellcheck disable=SC2154 # j_pid: set by start_watch through eval
if ! _alive "$j_pid"; then
	wait "$j_pid"
	tc_fail "watch --json exited with $? at once: $(cat "$GM_TMP/j.err")"
	tc_end
	finish
fi
trigger
if wait_until 10 test "$(events j)" -ge 1; then
	line=$(grep '"type":"quota-exceeded"' "$GM_TMP/j.out" | head -n 1)
	log "  event: $line"
	for kv in cgroup=/gm-watch comm=gm-watch device="$card" region=vram limit=1048576 \
		mode=enforce denied=true; do
		tc_eq "event ${kv%%=*}" "$(echo "$line" | jget "${kv%%=*}")" "${kv#*=}"
	done
	tc_num -ge "event seq" "$(echo "$line" | jget seq)" 1
	# the helper (the pid the trigger's shell exec'd into) asked for its
	# second 1 MiB buffer
	tc_eq "event pid" "$(echo "$line" | jget pid)" "$(cat "$GM_TMP/trigger.pid")"
	tc_eq "event requested" "$(echo "$line" | jget requested)" 1048576
	tc_eq "event cgroup_id" "$(echo "$line" | jget cgroup_id)" "$(stat -c %i "$CG")"
else
	tc_fail "no quota-exceeded event 10 s after the allocation: $(cat "$GM_TMP/j.out" "$GM_TMP/j.err")"
fi
tc_end

tc_begin ctl-watch-line
# quota-exceeded only: a process that exits may raise an orphaned event
"$CTL" watch --count 1 --timeout 20 --type quota-exceeded >"$GM_TMP/l.out" 2>"$GM_TMP/l.err" 8>&- &
l_pid=$!
sleep 1
trigger
wait "$l_pid"
tc_eq "watch -n 1: exit" "$?" 0
log "  line: $(cat "$GM_TMP/l.out")"
tc_eq "watch -n 1: lines" "$(wc -l <"$GM_TMP/l.out" | tr -d ' ')" 1
grep -Eq "^[0-9-]+ [0-9:]+ quota-exceeded cgroup /gm-watch pid [0-9]+ \(gm-watch\) $card vram: requested [0-9.]+ [KMG]?i?B, usage [0-9.]+ [KMG]?i?B, max 1\.0 MiB; denied \(enforce\)" \
	"$GM_TMP/l.out" || tc_fail "unexpected event line: '$(cat "$GM_TMP/l.out")'"
tc_end

tc_begin ctl-watch-reload
if ! grep -q '^gpumem ' /proc/modules; then
	tc_fail "gpumem is not a loaded module here"; tc_end
	finish
fi
before=$(events j)
if ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
else
	wait_until 5 grep -q "module was unloaded" "$GM_TMP/j.err" ||
		tc_fail "no note on stderr 5 s after rmmod: '$(_oneline "$(cat "$GM_TMP/j.err")")'"
	_alive "$j_pid" || tc_fail "watch exited when the module went away"
	# CPU time (utime + stime, in clock ticks of 10 ms) over 2 s of
	# waiting: a busy loop takes about 200; the watch looks for the family
	# twice a second (a dump of every genl family: up to ~10 ticks a look on
	# the KASAN kernel, 1-2 on Debian's)
	cpu() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$j_pid/stat" 2>/dev/null; }
	c1=$(cpu)
	sleep 2
	c2=$(cpu)
	tc_num -le "CPU ticks of watch in 2 s without the module" "$(($(num "$c2") - $(num "$c1")))" 60
	grep -q '^gpumem ' /proc/modules && tc_fail "gpumem came back by itself while watch waited"
	ensure_loaded || tc_fail "could not load gpumem again"
	wait_until 5 grep -q "gpumem is back" "$GM_TMP/j.err" ||
		tc_fail "no 'back' note 5 s after loading: '$(_oneline "$(cat "$GM_TMP/j.err")")'"
	# the module's limits went with it
	"$CTL" limit set "$CG" --max 1M --device "$card" >/dev/null 2>"$GM_TMP/set.err" ||
		tc_fail "limit set after the reload: $(cat "$GM_TMP/set.err")"
	trigger
	if wait_until 10 test "$(events j)" -gt "$before"; then
		line=$(grep '"type":"quota-exceeded"' "$GM_TMP/j.out" | tail -n 1)
		tc_eq "event after the reload: cgroup" "$(echo "$line" | jget cgroup)" /gm-watch
		tc_eq "event after the reload: missed (numbering starts again)" \
			"$(echo "$line" | jget missed)" 0
	else
		tc_fail "no event after the reload: $(tail -n 3 "$GM_TMP/j.out") $(cat "$GM_TMP/j.err")"
	fi
fi
kill -TERM "$j_pid" 2>/dev/null
wait "$j_pid"
tc_eq "watch after SIGTERM: exit" "$?" 0
GM_PIDS=$(echo "$GM_PIDS" | tr ' ' '\n' | grep -vx "$j_pid" | tr '\n' ' ')
tc_end

finish
