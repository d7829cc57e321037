# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): N fork pairs x M qxl VRAM buffers whose allocating
# parents have exited (each child keeps the card fd: N orphan groups of M
# placements), then the cost of one orphans report (a read of the orphans
# file: the charge records and one walk) against one held-view walk (a read
# of processes), measured side by side by bench-scan; and the cost of one
# fragmentation report (a read of fragmentation once its once-a-second
# cache has expired: each manager's own printer) with the same buffers.
# Run from the host with scripts/bench-orphans. Env: GM_BENCH_PROCS (200),
# GM_BENCH_BOS (50), GM_BENCH_REPEAT (15).
. "$(dirname "$0")/lib.sh"

procs=${GM_BENCH_PROCS:-200}
bos=${GM_BENCH_BOS:-50}
repeat=${GM_BENCH_REPEAT:-15}
hold=900

require_gpumem || exit 1
card=$(card_of qxl)
[ -n "$card" ] || { echo "bench-orphans: no qxl device"; exit 1; }

log "starting $procs fork pairs x $bos buffers of 4 KiB on $card"
bench_allocators bench-orphans "$procs" "$GM_ALLOC" forkhold -d qxl -k vram -n "$bos" -s 4096 -t $hold
# the children outlive their parents: collect them for the cleanup, stop the parents
i=0
while [ $i -lt "$procs" ]; do
	GM_PIDS="$GM_PIDS $(out_val "b$i" CHILD pid)"
	eval "kill -TERM \$par$i"
	i=$((i + 1))
done
i=0
while [ $i -lt "$procs" ]; do
	eval "reap \$par$i 10"
	i=$((i + 1))
done

snap orphans
rows=$(tbl_count "$GM_TMP/orphans" device="$card" buffers="$bos")
log "$rows orphan groups of $bos buffers on $card"
[ "$rows" -ge "$procs" ] || { echo "bench-orphans: expected $procs orphan rows, got $rows"; exit 1; }

out=$("$GM_BIN/bench-scan" -o -f -r "$repeat") || { echo "bench-orphans: bench-scan failed"; exit 1; }
echo "$out" | sed 's/^/# /'
echo "$out" | awk -v procs="$procs" -v bos="$bos" '
	$1 == "orphans" { for (i = 2; i <= NF; i++) { split($i, kv, "="); o[kv[1]] = kv[2] } }
	$1 == "walk" { for (i = 2; i <= NF; i++) { split($i, kv, "="); w[kv[1]] = kv[2] } }
	$1 == "bufs" { for (i = 2; i <= NF; i++) { split($i, kv, "="); b[kv[1]] = kv[2] } }
	$1 == "frag" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	END {
		printf "bench-orphans: %d orphan groups x %d BOs (kernel walked %d handles)\n",
			procs, bos, w["bos"]
		printf "bench-orphans: orphans report %.2f ms (%d rows), held-view walk %.2f ms (%d rows)\n",
			o["median_ns"] / 1e6, o["rows"], w["median_ns"] / 1e6, w["rows"]
		printf "bench-orphans: ratio report/walk = %.2f\n", o["median_ns"] / w["median_ns"]
		printf "bench-orphans: of which a walk listing every buffer (a read of buffers): %.2f ms (%d rows)\n",
			b["median_ns"] / 1e6, b["rows"]
		printf "bench-orphans: fragmentation report %.2f ms fresh (%d rows), %.3f ms cached\n",
			f["median_ns"] / 1e6, f["rows"], f["cached_ns"] / 1e6
		printf "bench-orphans: ratio fragmentation report/walk = %.2f (cached: %.3f)\n",
			f["median_ns"] / w["median_ns"], f["cached_ns"] / w["median_ns"]
	}'
