# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): one process allocates 4 x 64 KiB on qxl, forks H
# children that keep its card fd, and exits: H holders of one file. For
# each H, bench-scan -o times a held-view walk (a read of processes), a
# read of buffers and an orphans report side by side; then the children
# are killed and the next H starts. Prints time(2H)/time(H) for each.
# Run from the host with scripts/bench-holders. Env: GM_BENCH_HOLDERS
# ("250 500 1000 2000"), GM_BENCH_REPEAT (5).
. "$(dirname "$0")/lib.sh"

sizes=${GM_BENCH_HOLDERS:-250 500 1000 2000}
repeat=${GM_BENCH_REPEAT:-5}
require_gpumem || exit 1
card=$(card_of qxl)
[ -n "$card" ] || { echo "bench-holders: no qxl device"; exit 1; }
CG=$GM_CGROOT/gm-bench-holders
mkcgroup "$CG" || { echo "bench-holders: no cgroup $CG"; exit 1; }
trap '[ -w "$CG/cgroup.kill" ] && echo 1 >"$CG/cgroup.kill"; _gm_cleanup' EXIT

: >"$GM_TMP/res"
for h in $sizes; do
	if ! spawn_in_cgroup "$CG" f forkmany -d qxl -n 4 -s 64K -F "$h" -c gm-bench-par; then
		echo "bench-holders: forkmany -F $h failed: $(helper_why f)"
		exit 1
	fi
	stop f
	n=$(grep -c . "$CG/cgroup.procs")
	[ "$n" = "$h" ] || { echo "bench-holders: $n holders in $CG, want $h"; exit 1; }
	snap orphans
	[ "$(tbl_count "$GM_TMP/orphans" pid="$f_pid")" = 1 ] ||
		{ echo "bench-holders: no orphans row for $f_pid"; exit 1; }
	out=$("$GM_BIN/bench-scan" -o -r "$repeat") || { echo "bench-holders: bench-scan failed"; exit 1; }
	echo "$out" | sed "s/^/# H=$h /"
	echo "$out" | awk -v h="$h" '
		{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[$1 "." kv[1]] = kv[2] } }
		END { print h, v["walk.median_ns"], v["bufs.median_ns"], v["orphans.median_ns"], v["walk.kernel_walk_ns"] }' \
		>>"$GM_TMP/res"
	echo 1 >"$CG/cgroup.kill"
	gone() { [ -z "$(cat "$CG/cgroup.procs")" ]; }
	wait_until 120 gone || { echo "bench-holders: holders of H=$h still alive"; exit 1; }
	# their buffers go with the last holder
	sleep 2
done
awk '{ printf "bench-holders: H=%d walk %.2f ms, buffers %.2f ms, orphans %.2f ms (kernel walk %.2f ms)\n",
		$1, $2 / 1e6, $3 / 1e6, $4 / 1e6, $5 / 1e6 }' "$GM_TMP/res"
awk 'NR > 1 { printf "bench-holders: H %d -> %d: walk x%.2f, buffers x%.2f, orphans x%.2f, kernel walk x%.2f (goal <= 2.2)\n",
		h, $1, $2 / w, $3 / b, $4 / o, $5 / k }
	{ h = $1; w = $2; b = $3; o = $4; k = $5 }' "$GM_TMP/res"
