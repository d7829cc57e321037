# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): one gpumemd scrape (busybox wget of /metrics, the
# client's start included) against `gpumemctl export --prometheus` (process
# start included), side by side in one guest run, with 200 processes holding
# a 64 KiB qxl VRAM buffer each (rows of the charged view: 200 x 2 regions)
# and one process on each other device (bochs, vgem, virtio-gpu: the device
# families cover 4 devices; their dumb buffers are not charged).
# Prints the medians and the ratio export/scrape. Run from the host with
# scripts/bench-gpumemd. Env: GM_BENCH_PROCS (200), GM_BENCH_REPEAT (21).
. "$(dirname "$0")/lib.sh"

procs=${GM_BENCH_PROCS:-200}
repeat=${GM_BENCH_REPEAT:-21}
hold=900
port=9479
require_gpumem || exit 1
for b in gpumemctl gpumemd bench-scan; do
	[ -x "$GM_BIN/$b" ] || { echo "bench-gpumemd: no $b"; exit 1; }
done
drivers=""
for d in qxl bochs vgem virtio_gpu; do
	[ -n "$(card_of "$d")" ] && drivers="$drivers $d"
done
echo "bench-gpumemd: devices:$drivers"

set -- $drivers
case " $drivers " in *" qxl "*) ;; *) echo "bench-gpumemd: no qxl card"; exit 1 ;; esac
i=0
for d in $drivers; do
	[ "$d" = qxl ] && continue
	"$GM_ALLOC" alloc -d "$d" -k dumb -n 1 -s 64K -t $hold >"$GM_TMP/p$i.out" 2>&1 8>&- &
	echo $! >>"$GM_TMP/pids"
	i=$((i + 1))
done
n=0
while [ $n -lt "$procs" ]; do
	"$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 64K -t $hold >"$GM_TMP/p$i.out" 2>&1 8>&- &
	echo $! >>"$GM_TMP/pids"
	i=$((i + 1))
	n=$((n + 1))
done
total=$i
end=$(($(date +%s) + 600))
while [ "$(grep -l '^READY ' "$GM_TMP"/p*.out 2>/dev/null | wc -l)" -lt "$total" ]; do
	if [ "$(date +%s)" -ge "$end" ] || grep -q '^gpumem-alloc:' "$GM_TMP"/p*.out 2>/dev/null; then
		echo "bench-gpumemd: allocators not ready: $(grep -h '^gpumem-alloc:' "$GM_TMP"/p*.out | head -n 1)"
		exit 1
	fi
	sleep 1
done

# the guest's loopback interface is down until someone brings it up
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
"$GM_BIN/gpumemd" --listen "127.0.0.1:$port" --no-events >"$GM_TMP/gd.out" 2>&1 8>&- &
gd=$!
wait_until 10 wget -q -O "$GM_TMP/m" "http://127.0.0.1:$port/metrics" 2>/dev/null ||
	{ echo "bench-gpumemd: gpumemd does not answer: $(cat "$GM_TMP/gd.out")"; exit 1; }
"$GM_BIN/gpumemctl" export --prometheus >"$GM_TMP/e"
echo "bench-gpumemd: scrape $(grep -vc '^#' "$GM_TMP/m") samples ($(grep -c '^gpumem_process_bytes{' "$GM_TMP/m") process series), export $(grep -vc '^#' "$GM_TMP/e") samples"
# bench-scan spawns a path: busybox's wget applet through busybox itself
s=$("$GM_BIN/bench-scan" -r "$repeat" -x "/bin/busybox wget -q -O /dev/null http://127.0.0.1:$port/metrics") ||
	{ echo "bench-gpumemd: bench-scan (wget) failed"; exit 1; }
x=$("$GM_BIN/bench-scan" -r "$repeat" -x "$GM_BIN/gpumemctl export --prometheus") ||
	{ echo "bench-gpumemd: bench-scan (export) failed"; exit 1; }
echo "$s" | sed 's/^/# scrape: /'
echo "$x" | sed 's/^/# export: /'
sm=$(echo "$s" | awk '$1 == "cmd" { sub("median_ns=", "", $2); print $2 }')
xm=$(echo "$x" | awk '$1 == "cmd" { sub("median_ns=", "", $2); print $2 }')
echo "$sm $xm" | awk -v procs="$procs" -v devs="$#" '{
	printf "bench-gpumemd: %d qxl processes, %d devices: gpumemd scrape (wget) %.2f ms, gpumemctl export %.2f ms: ratio export/scrape %.2fx\n",
		procs, devs, $1 / 1e6, $2 / 1e6, $2 / $1 }'
kill "$gd"
reap "$gd" 5
kill $(cat "$GM_TMP/pids") 2>/dev/null
for p in $(cat "$GM_TMP/pids"); do reap "$p" 10; done
