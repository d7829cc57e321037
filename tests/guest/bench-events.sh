# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): quota events under load, in one guest run.
# 1. Flood: one process makes N (100000) allocations over a 1-byte limit,
#    back to back, with the default rate limit (event_rate=100/s,
#    event_burst=200) and a listener (quota-listen, raw generic netlink)
#    subscribed; then one more denial after a pause carries the last
#    suppressed count. Prints the requests denied, the quotas `denied`
#    counter (generated), the events received and the sum of their
#    `suppressed`: received + suppressed == generated (== requests).
# 2. Rate limiter: 12 processes, each one denied request every 60 ms, for
#    10 s (more events than the rate allows): the same sums, and how many
#    were sent against burst + rate x duration.
# 3. Latency: event_rate/event_burst raised to 1000000; the time from just
#    before the ioctl (CLOCK_MONOTONIC in the allocating process) to the
#    listener reading the event (CLOCK_MONOTONIC in the listener), matched
#    in order per process: (a) the flood again (N back to back), (b) one
#    process, one denied request every 60 ms (an idle system), (c) 12 such
#    processes. Prints the medians (goal <= 100 us).
# Run from the host with scripts/bench-events. Kernel command line knobs:
# gpumembench.events=N gpumembench.latency=M (denied requests in part 3).
. "$(dirname "$0")/lib.sh"

nflood=100000 nlat=200
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpumembench.events=*) nflood=${arg#*=} ;;
	gpumembench.latency=*) nlat=${arg#*=} ;;
	esac
done
CTL=$GM_BIN/gpumemctl
QA=$GM_BIN/quota-alloc
QL=$GM_BIN/quota-listen
PAR=/sys/module/gpumem/parameters
require_gpumem || exit 1
card=$(card_of qxl)
[ -n "$card" ] || { echo "bench-events: no qxl device"; exit 1; }
[ -x "$QL" ] || { echo "bench-events: no $QL"; exit 1; }
rate0=$(cat "$PAR/event_rate") burst0=$(cat "$PAR/event_burst")
# Every denial makes qxl log three errors: keep them off the console.
printk0=$(cut -f1 /proc/sys/kernel/printk)
echo 1 >/proc/sys/kernel/printk
trap 'echo "$printk0" >/proc/sys/kernel/printk; echo "$rate0" >"$PAR/event_rate"; echo "$burst0" >"$PAR/event_burst"; _gm_cleanup' EXIT

spawn_cmd anchor "$QA" anchor -d qxl -t 1800 || { echo "bench-events: anchor failed"; exit 1; }
E=$GM_CGROOT/gpumem-bench-e
rmdir "$E" 2>/dev/null
mkcgroup "$E" || exit 1
eid=$(stat -c %i "$E")
"$CTL" limit set "$E" --max 1 >/dev/null || { echo "bench-events: limit set failed"; exit 1; }
denied_ctr() { tbl_get "$GM_DEBUGFS/quotas" denied cgroup=/gpumem-bench-e device=all region=vram; }
in_e() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$E" "$@"; }
# (in the background: "$IN_E" "$E" CMD... &, so that $! is the command's pid)
IN_E='echo $$ >"$1/cgroup.procs" && shift && exec "$@"'
# listen NAME: start quota-listen (events to $GM_TMP/NAME.ev)
listen() { spawn_cmd "$1" "$QL" -t 1800 -o "$GM_TMP/$1.ev" || { echo "bench-events: listener failed"; exit 1; }; }
# unlisten NAME: stop it, print "received suppressed overflows missing reordered"
# for cgroup E
unlisten() {
	stop "$1" >&2
	grep '^LISTEN ' "$GM_TMP/$1.out" | sed 's/^/# /' >&2
	awk -v id="$eid" '$3 == id { n++; s += $6 } END { printf "%d %d", n, s }' "$GM_TMP/$1.ev"
	awk '$1 == "LISTEN" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf " %d %d %d\n", v["overflows"], v["missing"], v["reordered"] }' "$GM_TMP/$1.out"
}
# flush: after a pause (tokens refill), one denial in a fresh process sends
# an event that carries what was suppressed since the last one.
flush() { sleep 1; in_e "$QA" deny -n 1 -s 4K -c gm-bench-flush >/dev/null; sleep 1; }
field() { awk -v k="$2=" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1"; }
# report WHAT REQUESTS GEN "RECV SUP OVF MISSING REORDERED"
report() {
	set -- "$1" "$2" "$3" $4
	echo "bench-events: $1: requests denied $2, generated (denied counter) $3, received $4, suppressed $5, received + suppressed = $(($4 + $5))"
	echo "bench-events: $1:   received + suppressed == generated: $([ $(($4 + $5)) -eq "$3" ] && echo yes || echo NO); generated == requests denied: $([ "$3" -eq "$2" ] && echo yes || echo NO); socket overflows $6, seq numbers never received $7, events received out of seq order $8"
}

# --- 1. flood ------------------------------------------------------------------
echo 100 >"$PAR/event_rate"; echo 200 >"$PAR/event_burst"
log "part 1: $nflood denied requests back to back (event_rate 100, event_burst 200)"
listen l1
d0=$(denied_ctr)
t0=$(cut -d' ' -f1 /proc/uptime)
in_e "$QA" deny -n "$nflood" -s 4K -c gm-bench-flood >"$GM_TMP/flood.out" || { cat "$GM_TMP/flood.out"; exit 1; }
t1=$(cut -d' ' -f1 /proc/uptime)
sed 's/^/# /' "$GM_TMP/flood.out"
flush
d1=$(denied_ctr)
r1=$(unlisten l1)
report "flood ($t0 s .. $t1 s uptime)" $(($(field "$GM_TMP/flood.out" denied) + 1)) $((d1 - d0)) "$r1"
set -- $r1
awk -v s="$t0" -v e="$t1" -v sent="$1" 'BEGIN { d = e - s
	printf "bench-events: flood:   %d events sent in %.1f s; burst + rate x duration = 200 + 100 x %.1f = %d (+1 flush); refill %.1f/s\n",
		sent, d, d, 200 + 100 * d, (sent - 1 - 200) / d }'

# --- 2. rate limiter -----------------------------------------------------------
procs=12 per=160
log "part 2: $procs processes x $per denied requests, 60 ms apart (event_rate 100, event_burst 200)"
sleep 3	# full bucket
listen l2
d0=$(denied_ctr)
i=0 rl=""
while [ $i -lt $procs ]; do
	in_e "$QA" deny -n $per -p 60000 -s 4K -c "gm-bench-rl$i" >"$GM_TMP/rl$i.out" 2>&1 8>&- &
	rl="$rl $!"
	GM_PIDS="$GM_PIDS $!"
	i=$((i + 1))
done
start=$(cut -d' ' -f1 /proc/uptime)
for p in $rl; do wait "$p"; done
end=$(cut -d' ' -f1 /proc/uptime)
flush
d1=$(denied_ctr)
r2=$(unlisten l2)
req=$(cat "$GM_TMP"/rl*.out | awk '$1 == "DENY" { for (i = 2; i <= NF; i++) if ($i ~ /^denied=/) { sub("denied=", "", $i); s += $i } } END { print s + 1 }')
report "rate limiter" "$req" $((d1 - d0)) "$r2"
set -- $r2
awk -v s="$start" -v e="$end" -v sent="$1" 'BEGIN { d = e - s
	printf "bench-events: rate limiter:   %d events sent in %.1f s; burst + rate x duration = 200 + 100 x %.1f = %d (+1 flush); refill %.1f/s\n",
		sent, d, d, 200 + 100 * d, (sent - 1 - 200) / d }'

# --- 3. latency ----------------------------------------------------------------
# latency TS... : pair the i-th denied request of each timestamp file (named
# TS.PID) with the i-th event of that pid; print the summary.
latency() {
	what=$1 evf=$2
	shift 2
	: >"$GM_TMP/lat"
	for ts in "$@"; do
		awk -v id="$eid" -v pid="${ts##*.}" -v w="$what" 'FILENAME == ARGV[1] { if ($3 == 12 || $3 == 28) { n++; b[n] = $1; a[n] = $2 }; next }
			$3 == id && $4 == pid { m++; if (m <= n) print $7 - b[m], $7 - a[m] }
			END { if (n != m) printf "# %s: pid %s: %d denied requests, %d events\n", w, pid, n, m > "/dev/stderr" }' \
			"$ts" "$evf" >>"$GM_TMP/lat"
	done
	sort -n -k1,1 "$GM_TMP/lat" | awk -v w="$what" '{ v[NR] = $1 } END {
		if (!NR) { printf "bench-events: latency, %s: no events matched\n", w; exit }
		printf "bench-events: latency, %s: %d events: request -> listener median %.1f us, p90 %.1f us, max %.1f us (goal: median <= 100 us): %s\n",
			w, NR, v[int((NR + 1) / 2)] / 1e3, v[int((NR - 1) * 0.9) + 1] / 1e3, v[NR] / 1e3,
			v[int((NR + 1) / 2)] <= 100000 ? "met" : "NOT met" }'
	sort -n -k2,2 "$GM_TMP/lat" | awk -v w="$what" '{ v[NR] = $2 } END { if (NR)
		printf "bench-events: latency, %s: ioctl returned -> listener median %.1f us\n", w, v[int((NR + 1) / 2)] / 1e3 }'
}
echo 1000000 >"$PAR/event_rate"; echo 1000000 >"$PAR/event_burst"
log "part 3a: $nflood denied requests back to back (event_rate/event_burst 1000000)"
listen l5
sh -c "$IN_E" sh "$E" "$QA" deny -n "$nflood" -s 4K -o "$GM_TMP/latf.ts" -c gm-bench-latf >"$GM_TMP/latf.out" 8>&- &
lp=$!
wait "$lp" || { cat "$GM_TMP/latf.out"; exit 1; }
mv "$GM_TMP/latf.ts" "$GM_TMP/latf.ts.$lp"
sed 's/^/# /' "$GM_TMP/latf.out"
sleep 2
r5=$(unlisten l5)
set -- $r5
echo "bench-events: latency, flood: $1 events, socket overflows $3, seq numbers never received $4"
latency "flood" "$GM_TMP/l5.ev" "$GM_TMP/latf.ts.$lp"
rm -f "$GM_TMP/latf.ts.$lp" "$GM_TMP/l5.ev"

log "part 3b: $nlat denied requests of one process, 60 ms apart (event_rate/event_burst 1000000)"
listen l3
sh -c "$IN_E" sh "$E" "$QA" deny -n "$nlat" -p 60000 -s 4K -o "$GM_TMP/lat1.ts" -c gm-bench-lat >"$GM_TMP/lat.out" 8>&- &
lp=$!
wait "$lp" || { cat "$GM_TMP/lat.out"; exit 1; }
mv "$GM_TMP/lat1.ts" "$GM_TMP/lat1.ts.$lp"
sed 's/^/# /' "$GM_TMP/lat.out"
sleep 1
r3=$(unlisten l3)
latency "one process" "$GM_TMP/l3.ev" "$GM_TMP/lat1.ts.$lp"

log "part 3c: 12 processes x $((nlat / 4)) denied requests, 60 ms apart"
listen l4
i=0 rl=""
while [ $i -lt 12 ]; do
	sh -c "$IN_E" sh "$E" "$QA" deny -n $((nlat / 4)) -p 60000 -s 4K -o "$GM_TMP/latm$i.ts" -c "gm-bench-lat$i" \
		>"$GM_TMP/latm$i.out" 2>&1 8>&- &
	rl="$rl $i.$!"
	GM_PIDS="$GM_PIDS $!"
	i=$((i + 1))
done
files=""
for x in $rl; do
	wait "${x#*.}"
	mv "$GM_TMP/latm${x%%.*}.ts" "$GM_TMP/latm.ts.${x#*.}"
	files="$files $GM_TMP/latm.ts.${x#*.}"
done
sleep 1
r4=$(unlisten l4)
set -- $r4
echo "bench-events: latency, 12 processes: $1 events, seq numbers never received $4, received out of seq order $5"
latency "12 processes" "$GM_TMP/l4.ev" $files
"$CTL" limit clear "$E" >/dev/null
