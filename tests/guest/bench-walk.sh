# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): N processes x M qxl VRAM buffers, then the cost of
# one full in-kernel walk (a read of the processes file) against an
# nvtop-style /proc/*/fdinfo scan, measured side by side by bench-scan.
# Run from the host with scripts/bench-walk. Env: GM_BENCH_PROCS (200),
# GM_BENCH_BOS (50), GM_BENCH_REPEAT (15).
. "$(dirname "$0")/lib.sh"

procs=${GM_BENCH_PROCS:-200}
bos=${GM_BENCH_BOS:-50}
repeat=${GM_BENCH_REPEAT:-15}
hold=900

require_gpumem || exit 1
card=$(card_of qxl)
[ -n "$card" ] || { echo "bench-walk: no qxl device"; exit 1; }

log "starting $procs processes x $bos buffers of 4 KiB on $card"
bench_allocators bench-walk "$procs" "$GM_ALLOC" alloc -d qxl -k vram -n "$bos" -s 4096 -t $hold

snap processes
rows=$(tbl_count "$GM_TMP/processes" device="$card" bos="$bos")
log "$rows processes hold $bos buffers each on $card"
[ "$rows" -ge "$procs" ] || { echo "bench-walk: expected $procs rows, got $rows"; exit 1; }

out=$("$GM_BIN/bench-scan" -r "$repeat") || { echo "bench-walk: bench-scan failed"; exit 1; }
echo "$out" | sed 's/^/# /'
echo "$out" | awk -v procs="$procs" -v bos="$bos" '
	$1 == "fdinfo" { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	$1 == "walk" { for (i = 2; i <= NF; i++) { split($i, kv, "="); w[kv[1]] = kv[2] } }
	END {
		printf "bench-walk: %d processes x %d BOs = %d BOs walked (kernel saw %d handles)\n",
			procs, bos, procs * bos, w["bos"]
		printf "bench-walk: fdinfo scan %.2f ms (%d DRM fds), gpumem walk %.2f ms read / %.2f ms in kernel (%.0f ns per BO)\n",
			f["median_ns"] / 1e6, f["fds"], w["median_ns"] / 1e6,
			w["kernel_walk_ns"] / 1e6, w["kernel_walk_ns"] / (w["bos"] ? w["bos"] : 1)
		printf "bench-walk: ratio fdinfo/walk = %.1fx (goal >= 3x)\n", f["median_ns"] / w["median_ns"]
	}'
