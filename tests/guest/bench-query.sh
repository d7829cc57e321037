# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): the latency of `gpumemctl ps --json` (a netlink
# dump, process start included) against an nvtop-style /proc/*/fdinfo scan,
# side by side, with 200 processes x 50 BOs and then 200 x 500 BOs (vgem
# dumb buffers: cheap to create in bulk). Run from the host with
# scripts/bench-query. Env: GM_BENCH_PROCS (200), GM_BENCH_REPEAT (11).
. "$(dirname "$0")/lib.sh"

procs=${GM_BENCH_PROCS:-200}
repeat=${GM_BENCH_REPEAT:-11}
hold=900
require_gpumem || exit 1
[ -x "$GM_BIN/gpumemctl" ] || { echo "bench-query: no gpumemctl"; exit 1; }

# run BOS: start the allocators, measure, stop them
run() {
	bos=$1
	i=0
	rm -f "$GM_TMP"/q*.out
	while [ $i -lt "$procs" ]; do
		"$GM_ALLOC" alloc -d vgem -k dumb -n "$bos" -s 4096 -t $hold \
			>"$GM_TMP/q$i.out" 2>&1 &
		echo $! >>"$GM_TMP/qpids"
		i=$((i + 1))
	done
	end=$(($(date +%s) + 300))
	while [ "$(grep -l '^READY ' "$GM_TMP"/q*.out 2>/dev/null | wc -l)" -lt "$procs" ]; do
		[ "$(date +%s)" -lt "$end" ] || { echo "bench-query: allocators not ready"; exit 1; }
		sleep 1
	done
	out=$("$GM_BIN/bench-scan" -r "$repeat" -x "$GM_BIN/gpumemctl ps --json") ||
		{ echo "bench-query: bench-scan failed"; exit 1; }
	echo "$out" | sed 's/^/# /'
	echo "$out" | awk -v procs="$procs" -v bos="$bos" '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "." kv[1]] = kv[2] } }
		END {
			printf "bench-query: %d processes x %d BOs: fdinfo scan %.2f ms, gpumemctl ps %.2f ms (kernel walk %.2f ms): ratio %.1fx (goal >= 50x)\n",
				procs, bos, v["fdinfo.median_ns"] / 1e6, v["cmd.median_ns"] / 1e6,
				v["walk.kernel_walk_ns"] / 1e6, v["fdinfo.median_ns"] / v["cmd.median_ns"]
		}'
	kill $(cat "$GM_TMP/qpids") 2>/dev/null
	for p in $(cat "$GM_TMP/qpids"); do reap "$p" 10; done
	rm -f "$GM_TMP/qpids"
}

run 50
run 500
