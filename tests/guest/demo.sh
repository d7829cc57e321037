#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo.sh - show what gpumem reports for a small workload:
#   two processes with qxl VRAM, one qxl buffer shared through PRIME,
#   a bochs dumb buffer pinned by a scanout, a vgem buffer;
# then print each debugfs file and gpumemctl's views under a heading; then
# put the render process's container under a VRAM limit and show a denied
# allocation and the event it produced; clean up.
# Not a test (no GPUMEM-RESULT lines); run it by hand in the guest:
#     sh /tests/demo.sh            (GM_HOLD=SECONDS to keep it up longer)
. "$(dirname "$0")/lib.sh"

if [ ! -r "$GM_DEBUGFS/processes" ]; then
	echo "demo: $GM_DEBUGFS not there: load gpumem and mount debugfs first" >&2
	exit 1
fi

start() {
	spawn "$@" || echo "demo: could not start '$*': $(helper_why "$1")" >&2
}

if [ -n "$(card_of qxl)" ]; then
	start render alloc -d qxl -k vram -n 3 -s 1M -c demo-render
	start compute alloc -d qxl -k vram -n 2 -s 4M -c demo-compute
	start producer export -d qxl -k vram -n 1 -s 2M -S "$GM_TMP/demo.sock" -c demo-producer &&
		start consumer import -d qxl -S "$GM_TMP/demo.sock" -c demo-consumer
else
	echo "demo: no qxl device, skipping the VRAM workload" >&2
fi
if [ -n "$(card_of bochs)" ]; then
	start display alloc -d bochs -k scanout -c demo-display
fi
if [ -n "$(card_of vgem)" ]; then
	start sw alloc -d vgem -k dumb -n 1 -s 8M -c demo-vgem
fi

echo
echo "== workload ======================================================="
for f in "$GM_TMP"/*.out; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .out)
	printf '%-9s pid %-6s %s\n' "$n" "$(awk '$1 == "READY" { print $2 }' "$f")" \
		"$(grep -E '^(BO|EXPORTED|IMPORTED|SCANOUT)' "$f" | tr '\n' ';')"
done
for f in devices processes charged buffers stats; do
	echo
	echo "== $GM_DEBUGFS/$f =="
	cat "$GM_DEBUGFS/$f"
done
CTL=$GM_BIN/gpumemctl
if [ -x "$CTL" ]; then
	producer=$(awk '$1 == "READY" { print $2 }' "$GM_TMP/producer.out" 2>/dev/null)
	for c in "devices" "ps" "ps --held" "ps --json" "buffers --pid ${producer:-1}" \
		"stats" "export --prometheus"; do
		echo
		echo "== gpumemctl $c =="
		$CTL $c
	done

	if [ -n "$(card_of qxl)" ]; then
		echo
		echo "== a container limited to 4 MiB of VRAM ========================"
		cg=$GM_CGROOT/demo-tenant
		mkcgroup "$cg"
		$CTL watch --json --count 2 --timeout 20 >"$GM_TMP/events" 2>&1 8>&- &
		watcher=$!
		sleep 1
		echo "\$ gpumemctl limit set $cg --max 4M --high 3M"
		$CTL limit set "$cg" --max 4M --high 3M
		spawn_in_cgroup "$cg" tenant alloc -d qxl -k vram -n 3 -s 1M -c demo-tenant ||
			echo "demo: tenant could not start: $(helper_why tenant)" >&2
		echo "\$ (in the container) allocate 2 x 1 MiB more"
		sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$cg" \
			"$GM_ALLOC" alloc -d qxl -k vram -n 2 -s 1M -t 1 2>&1 | grep -v '^[A-Z]' || true
		wait "$watcher" 2>/dev/null
		echo "\$ gpumemctl watch --json   (what the operator saw)"
		cat "$GM_TMP/events"
		echo "\$ gpumemctl cgroups"
		$CTL cgroups
		echo "\$ gpumemctl limit list"
		$CTL limit list
		echo "== $GM_DEBUGFS/quotas =="
		cat "$GM_DEBUGFS/quotas"
	fi
fi

echo
echo "== cleaning up ====================================================="
# the EXIT trap stops every helper
