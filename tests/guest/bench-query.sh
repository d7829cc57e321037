# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): "who holds GPU memory" answered three ways, side by
# side, with 200 processes x 50 qxl VRAM BOs and then 200 x 500:
#   fdinfo  an nvtop-style /proc/*/fdinfo scan (userspace),
#   dump    one proc-get netlink dump on an open socket, in the charged view
#           (allocation-time counters) and in the held view (a walk),
#           received as libgpumem receives (a datagram per nl_recv(), its
#           messages walked in place) and each row read (pid, usage),
#   cmd     `gpumemctl ps --json` (process start included, charged view),
#   start   `gpumemctl --version`: the same binary's start and exit alone,
#           what no change to the request can save,
#   cmd1    `gpumemctl ps --json --pid 1`: start, connection, family
#           resolution and a dump of no rows (cmd - cmd1: the rows' cost
#           in the dump and in gpumemctl's sorting and printing).
# Prints the ratios fdinfo/dump and fdinfo/cmd, and where a charged dump's
# time goes: the fixed cost (the dump filtered to pid 1, no rows) and the
# cost per row. Run from the host with
# scripts/bench-query (which gives qxl enough VRAM for 100,000 4 KiB BOs).
# Env: GM_BENCH_PROCS (200), GM_BENCH_REPEAT (11).
. "$(dirname "$0")/lib.sh"

procs=${GM_BENCH_PROCS:-200}
repeat=${GM_BENCH_REPEAT:-11}
hold=900
require_gpumem || exit 1
[ -x "$GM_BIN/gpumemctl" ] || { echo "bench-query: no gpumemctl"; exit 1; }
[ -n "$(card_of qxl)" ] || { echo "bench-query: no qxl card"; exit 1; }

# run BOS: start the allocators, measure, stop them
run() {
	bos=$1
	i=0
	rm -f "$GM_TMP"/q*.out
	while [ $i -lt "$procs" ]; do
		"$GM_ALLOC" alloc -d qxl -k vram -n "$bos" -s 4096 -t $hold \
			>"$GM_TMP/q$i.out" 2>&1 8>&- &
		echo $! >>"$GM_TMP/qpids"
		i=$((i + 1))
	done
	end=$(($(date +%s) + 600))
	while [ "$(grep -l '^READY ' "$GM_TMP"/q*.out 2>/dev/null | wc -l)" -lt "$procs" ]; do
		if [ "$(date +%s)" -ge "$end" ] || grep -q '^gpumem-alloc:' "$GM_TMP"/q*.out 2>/dev/null; then
			echo "bench-query: allocators not ready: $(grep -h '^gpumem-alloc:' "$GM_TMP"/q*.out | head -n 1)"
			exit 1
		fi
		sleep 1
	done
	out=$("$GM_BIN/bench-scan" -n -r "$repeat" -x "$GM_BIN/gpumemctl ps --json") ||
		{ echo "bench-query: bench-scan failed"; exit 1; }
	start=$("$GM_BIN/bench-scan" -r "$repeat" -x "$GM_BIN/gpumemctl --version") ||
		{ echo "bench-query: bench-scan (start) failed"; exit 1; }
	one=$("$GM_BIN/bench-scan" -r "$repeat" -x "$GM_BIN/gpumemctl ps --json --pid 1") ||
		{ echo "bench-query: bench-scan (pid 1) failed"; exit 1; }
	out="$out
$(echo "$start" | sed -n 's/^cmd /start /p')
$(echo "$one" | sed -n 's/^cmd /cmd1 /p')"
	echo "$out" | sed 's/^/# /'
	echo "$out" | awk -v procs="$procs" -v bos="$bos" '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "." kv[1]] = kv[2] } }
		END {
			want = procs * bos * 4096
			if (v["charged.bytes"] < want || v["held.bytes"] < want)
				printf "bench-query: WARNING: the dumps miss BOs: charged %d, held %d bytes, allocated %d\n",
					v["charged.bytes"], v["held.bytes"], want
			printf "bench-query: %d processes x %d BOs: fdinfo scan %.2f ms; proc-get dump: charged %.3f ms (%d rows), held %.2f ms (walk); gpumemctl ps %.2f ms\n",
				procs, bos, v["fdinfo.median_ns"] / 1e6, v["charged.median_ns"] / 1e6,
				v["charged.rows"], v["held.median_ns"] / 1e6, v["cmd.median_ns"] / 1e6
			printf "bench-query: %d x %d: ratio fdinfo/dump %.1fx (charged; goal >= 20x), %.1fx (held); fdinfo/gpumemctl %.1fx (process start included; goal >= 5x); filtered/full charged dump %.1f%% (pid 1, no rows; goal <= 10%%)\n",
				procs, bos, v["fdinfo.median_ns"] / v["charged.median_ns"],
				v["fdinfo.median_ns"] / v["held.median_ns"], v["fdinfo.median_ns"] / v["cmd.median_ns"],
				100 * v["charged1.median_ns"] / v["charged.median_ns"]
			printf "bench-query: %d x %d: charged dump = fixed %.3f ms + %.1f us per row; gpumemctl ps = start %.2f ms (gpumemctl --version) + connection and an empty dump %.2f ms (ps --pid 1) + %d rows %.2f ms\n",
				procs, bos, v["charged1.median_ns"] / 1e6,
				(v["charged.median_ns"] - v["charged1.median_ns"]) / v["charged.rows"] / 1e3,
				v["start.median_ns"] / 1e6, (v["cmd1.median_ns"] - v["start.median_ns"]) / 1e6,
				v["charged.rows"], (v["cmd.median_ns"] - v["cmd1.median_ns"]) / 1e6
		}'
	kill $(cat "$GM_TMP/qpids") 2>/dev/null
	for p in $(cat "$GM_TMP/qpids"); do reap "$p" 10; done
	rm -f "$GM_TMP/qpids"
}

run 50
run 500
