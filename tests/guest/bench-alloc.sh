# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): the cost of gpumem's allocation hooks.
# 1. A BO create+destroy loop (qxl VRAM, 64 KiB BOs, N=2000) timed by
#    quota-alloc churn, gpumem not loaded vs loaded with a limit (never
#    reached) on the loop's cgroup, alternating, ROUNDS rounds; prints the
#    medians and their ratio (goal <= 1.05), and the median of each round's
#    loaded loop against the not-loaded one just before it (paired).
# 2. The latency of a denied allocation (64 KiB over a 1-byte limit) with
#    qxl VRAM full of another cgroup's buffers (TTM walks them looking for
#    something to evict, the eviction guard refuses each), against the same
#    with an empty device; prints the medians (goal <= 1 ms), and checks
#    that none of the other cgroup's buffers was evicted.
# 3. The loop of 1 in P = 1, 2 and 4 processes at once (4 vCPUs), gpumem not
#    loaded vs loaded with a limit, alternating: the median per-op time of
#    all loops and its ratio per P (goal at P = 4: <= 1.05).
# Run from the host with scripts/bench-alloc. Kernel command line knobs
# (the host script passes them): gpumembench.n=N gpumembench.rounds=R.
. "$(dirname "$0")/lib.sh"

n=2000 rounds=5
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpumembench.n=*) n=${arg#*=} ;;
	gpumembench.rounds=*) rounds=${arg#*=} ;;
	esac
done
CTL=$GM_BIN/gpumemctl
QA=$GM_BIN/quota-alloc
PAR=/sys/module/gpumem/parameters
require_gpumem || exit 1
card=$(card_of qxl)
[ -n "$card" ] || { echo "bench-alloc: no qxl device"; exit 1; }
grep -q '^gpumem ' /proc/modules || { echo "bench-alloc: gpumem is not a module here"; exit 1; }
ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)
load() { modprobe gpumem 2>/dev/null || insmod "$ko"; wait_until 10 test -r "$GM_DEBUGFS/quotas"; }
# The qxl release/console buffers come and go on the console: keep it quiet.
printk0=$(cut -f1 /proc/sys/kernel/printk)
echo 1 >/proc/sys/kernel/printk
trap 'echo "$printk0" >/proc/sys/kernel/printk; grep -q "^gpumem " /proc/modules || load; _gm_cleanup' EXIT

# The anchor keeps qxl open: no helper's exit is the last close.
spawn_cmd anchor "$QA" anchor -d qxl -t 1800 || { echo "bench-alloc: anchor failed"; exit 1; }
L=$GM_CGROOT/gpumem-bench-l
F=$GM_CGROOT/gpumem-bench-f
for cg in "$L" "$F"; do rmdir "$cg" 2>/dev/null; mkcgroup "$cg" || exit 1; done

# churn: one loop in L; prints "median_ns total_ns"
churn() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" churn -n "$3" -s 64K -c gm-bench' sh "$L" "$QA" "$n" \
		>"$GM_TMP/churn.out" 2>&1 || { cat "$GM_TMP/churn.out"; exit 1; }
	awk '$1 == "CHURN" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["median_ns"], v["total_ns"] }' "$GM_TMP/churn.out"
}
# median [FMT]: the median of the numbers on stdin; without FMT an integer
# (the mean of the middle two of an even count is cut), with it printed so
median() { sort -g | awk -v f="${1-}" '{ v[NR] = $1 } END {
	m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	if (f == "") print (NR % 2) ? m : int(m); else printf f "\n", m }'; }

log "part 1: $rounds rounds of $n x (create + destroy a 64 KiB qxl VRAM BO)"
churn >/dev/null	# warm up (page cache, slabs)
r=0
: >"$GM_TMP/off"; : >"$GM_TMP/on"
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	rmmod gpumem || { echo "bench-alloc: rmmod gpumem failed"; exit 1; }
	off=$(churn)
	load || { echo "bench-alloc: loading gpumem failed"; exit 1; }
	"$CTL" limit set "$L" --max 1G >/dev/null || { echo "bench-alloc: limit set failed"; exit 1; }
	on=$(churn)
	echo "$off" >>"$GM_TMP/off"
	echo "$on" >>"$GM_TMP/on"
	log "round $r: not loaded: median ${off% *} ns/op, total ${off#* } ns; loaded + limit: median ${on% *} ns/op, total ${on#* } ns"
done
usage=$(tbl_get "$GM_DEBUGFS/quotas" usage cgroup=/gpumem-bench-l device=all region=vram)
# the rounds' per-op medians, a line each (the paired figures read them too)
cut -d' ' -f1 "$GM_TMP/off" >"$GM_TMP/off1"; cut -d' ' -f1 "$GM_TMP/on" >"$GM_TMP/on1"
moff=$(median <"$GM_TMP/off1"); mon=$(median <"$GM_TMP/on1")
toff=$(cut -d' ' -f2 "$GM_TMP/off" | median); ton=$(cut -d' ' -f2 "$GM_TMP/on" | median)
echo "bench-alloc: create+destroy 64 KiB qxl VRAM BO, n=$n, $rounds rounds (median of rounds):"
echo "bench-alloc:   gpumem not loaded:         $moff ns/op median, loop $((toff / 1000000)) ms"
echo "bench-alloc:   loaded, limit 1 GiB set:   $mon ns/op median, loop $((ton / 1000000)) ms (usage after: $usage)"
awk -v a="$mon" -v b="$moff" -v c="$ton" -v d="$toff" 'BEGIN {
	printf "bench-alloc:   ratio loaded/not loaded = %.3f per op (median), %.3f per loop (goal <= 1.05)\n", a / b, c / d }'
# paired: each round's loaded loop against the not-loaded loop just before it
# (a drift of the host between rounds cancels out)
paired() { paste -d' ' "$1" "$2" | awk '{ print $2 / $1 }' | median %.3f; }
paired_cost() { paste -d' ' "$1" "$2" | awk '{ print $2 - $1 }' | median; }
echo "bench-alloc:   paired by round: ratio $(paired "$GM_TMP/off1" "$GM_TMP/on1") per op (median of the rounds' ratios), $(paired_cost "$GM_TMP/off1" "$GM_TMP/on1") ns more per op (median)"
"$CTL" limit clear "$L" >/dev/null

# --- part 3: parallel loops ---------------------------------------------------
# pchurn P: P loops in L at once (each its own file); prints the median of
# their per-op medians
pchurn() {
	_i=0 _pids=""
	rm -f "$GM_TMP"/pchurn.*
	while [ $_i -lt "$1" ]; do
		sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" churn -n "$3" -s 64K -c gm-bench' \
			sh "$L" "$QA" "$n" >"$GM_TMP/pchurn.$_i" 2>&1 8>&- &
		_pids="$_pids $!"
		_i=$((_i + 1))
	done
	for _p in $_pids; do wait "$_p" || { cat "$GM_TMP"/pchurn.*; exit 1; }; done
	cat "$GM_TMP"/pchurn.* | awk '$1 == "CHURN" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "median_ns") print kv[2] } }' |
		median
}
log "part 3: P = 1, 2, 4 loops at once, $rounds rounds each ($(grep -c ^processor /proc/cpuinfo) CPUs)"
echo "bench-alloc: parallel create+destroy loops (n=$n each), median ns/op of all loops, median of $rounds rounds:"
for P in 1 2 4; do
	: >"$GM_TMP/poff"; : >"$GM_TMP/pon"
	r=0
	while [ $r -lt "$rounds" ]; do
		r=$((r + 1))
		rmmod gpumem || { echo "bench-alloc: rmmod gpumem failed"; exit 1; }
		pchurn "$P" >>"$GM_TMP/poff"
		load || { echo "bench-alloc: loading gpumem failed"; exit 1; }
		"$CTL" limit set "$L" --max 1G >/dev/null || { echo "bench-alloc: limit set failed"; exit 1; }
		pchurn "$P" >>"$GM_TMP/pon"
		"$CTL" limit clear "$L" >/dev/null
		log "P=$P round $r: not loaded $(tail -n 1 "$GM_TMP/poff") ns/op, loaded $(tail -n 1 "$GM_TMP/pon") ns/op"
	done
	poff=$(median <"$GM_TMP/poff") pon=$(median <"$GM_TMP/pon")
	awk -v p="$P" -v a="$pon" -v b="$poff" 'BEGIN {
		printf "bench-alloc:   P=%d: not loaded %d ns/op, loaded + limit %d ns/op, ratio %.3f%s\n", p, b, a, a / b,
			p == 4 ? " (goal <= 1.05)" : "" }'
	echo "bench-alloc:   P=$P paired by round: ratio $(paired "$GM_TMP/poff" "$GM_TMP/pon") (median of the rounds' ratios)"
done

# --- part 2: denied allocations -----------------------------------------------
"$CTL" limit set "$L" --max 1 >/dev/null || { echo "bench-alloc: limit set failed"; exit 1; }
# deny ARGS: quota-alloc deny in L; prints "median_ns p90_ns"
deny() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$L" "$QA" deny -s 64K -c gm-bench-deny "$@" \
		>"$GM_TMP/deny.out" 2>&1 || { cat "$GM_TMP/deny.out"; exit 1; }
	grep '^DENY ' "$GM_TMP/deny.out" | sed 's/^/# /' >&2
	awk '$1 == "DENY" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["median_ns"], v["p90_ns"], v["denied"], v["n"] }' "$GM_TMP/deny.out"
}
vram_bos() { snap buffers; tbl_count "$GM_TMP/buffers" owner="$1" region=vram mem_type=2; }
empty_tight=$(deny -n 500)
empty_paced=$(deny -n 30 -p 60000)
# the same pacing without a limit (allowed, then freed): what 60 ms of idling costs here
"$CTL" limit clear "$L" >/dev/null
allowed_paced=$(deny -n 30 -p 60000)
"$CTL" limit set "$L" --max 1 >/dev/null
log "filling $card VRAM from $F"
spawn_cmd fill sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$F" "$QA" hold -n 80 -s 1M -t 1800 -c gm-bench-fill ||
	{ echo "bench-alloc: fill failed: $(helper_why fill)"; exit 1; }
before=$(vram_bos "$fill_pid")
snap devices
log "$card: $(tbl_get "$GM_TMP/devices" - device="$card" region=vram); the filler holds $before of its 80 x 1 MiB in VRAM"
full_tight=$(deny -n 500)
full_paced=$(deny -n 30 -p 60000)
after=$(vram_bos "$fill_pid")
denied=$(tbl_get "$GM_DEBUGFS/quotas" denied cgroup=/gpumem-bench-l device=all region=vram)
set -- $empty_tight; et=$1 et90=$2 etd=$3
set -- $empty_paced; ep=$1 ep90=$2 epd=$3
set -- $allowed_paced; ap=$1 ap90=$2
set -- $full_tight; ft=$1 ft90=$2 ftd=$3 ftn=$4
set -- $full_paced; fp=$1 fp90=$2 fpd=$3 fpn=$4
echo "bench-alloc: denied 64 KiB allocation (limit 1 byte), median / p90:"
echo "bench-alloc:   empty device, back to back:     $et / $et90 ns"
echo "bench-alloc:   empty device, 60 ms apart:      $ep / $ep90 ns"
echo "bench-alloc:   (allowed 64 KiB, no limit, 60 ms apart: $ap / $ap90 ns)"
echo "bench-alloc:   VRAM full ($before BOs), back to back: $ft / $ft90 ns ($ftd of $ftn denied)"
echo "bench-alloc:   VRAM full, 60 ms apart:         $fp / $fp90 ns ($fpd of $fpn denied)"
awk -v a="$ft" -v b="$fp" 'BEGIN { m = a > b ? a : b
	printf "bench-alloc:   worst median with a full device = %.3f ms (goal <= 1 ms): %s\n", m / 1e6, m <= 1e6 ? "met" : "NOT met" }'
echo "bench-alloc:   filler's BOs in VRAM before/after the denials: $before/$after ($([ "$before" = "$after" ] && echo "nothing evicted" || echo "EVICTED"))"
echo "bench-alloc:   quotas denied counter of the limited cgroup: $denied (requests denied since its limit was set again: $((ftd + fpd)))"
stop fill
"$CTL" limit clear "$L" >/dev/null
