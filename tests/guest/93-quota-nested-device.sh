#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Quotas across the hierarchy and across devices: a child cgroup obeys its
# ancestor's limit (the event names the ancestor), a tighter child limit
# applies first; a limit on one device (--device) counts only that device,
# a limit on all devices sums them (qxl VRAM + a pinned bochs scanout where
# bochs is TTM); removing a cgroup drops its limits from `limit list` and
# the quotas file; a device that goes away (vgem unloaded) takes its limits
# with it, and the next device with its minor starts without them.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-nested-ancestor quota-nested-child-limit quota-device-limit quota-other-device-limit
quota-all-devices-sum quota-rmdir-drops-limit quota-device-gone-drops-limit"

. "$(dirname "$0")/quota-lib.sh"

P=$GM_CGROOT/gpumem-q-p
C=$P/child
D=$GM_CGROOT/gpumem-q-d
R=$GM_CGROOT/gpumem-q-r
quota_setup "$P" "$C" "$D" "$R"

tc_begin quota-nested-ancestor
ctl_ok limit set "$P" --max 4M
m0=$(w_mark)
hold_in "$C" c1 -n 5 -s 1M -c gm-q-c1 || tc_fail "helper: $(helper_why c1)"
tc_eq "child's process got/denied" "$(out_total c1 ok) $(out_total c1 denied)" "4 1"
tc_eq "child usage (cgroups)" "$(cg_usage /gpumem-q-p/child all)" $((4 * MiB))
tc_eq "parent usage (cgroups, includes the child)" "$(cg_usage /gpumem-q-p all)" $((4 * MiB))
tc_eq "parent's quotas row usage/denied" "$(q_get /gpumem-q-p all usage)/$(q_get /gpumem-q-p all denied)" \
	"$((4 * MiB))/1"
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded cgroup_id="$(cgid /gpumem-q-p)" cgroup=/gpumem-q-p pid="$c1_pid" \
	comm=gm-q-c1 requested="$MiB" usage=$((4 * MiB)) limit=$((4 * MiB)) denied=true
# A looser limit on the child does not lift the parent's.
ctl_ok limit set "$C" --max 8M
m0=$(w_mark)
run_in "$C" c2 "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s 64K -t 0 -c gm-q-c2
tc_eq "child under its own 8 MiB, parent full: exit status" "$c2_rc" 1
w_since "$m0"
ev_check "$ev" cgroup=/gpumem-q-p pid="$c2_pid" requested=65536 denied=true
stop c1
tc_eq "usage after the child's process exits" "$(cg_usage /gpumem-q-p all) $(cg_usage /gpumem-q-p/child all)" "0 0"
tc_end

tc_begin quota-nested-child-limit
ctl_ok limit set "$C" --max 2M
m0=$(w_mark)
hold_in "$C" c3 -n 3 -s 1M -c gm-q-c3 || tc_fail "helper: $(helper_why c3)"
tc_eq "got/denied under the child's 2 MiB" "$(out_total c3 ok) $(out_total c3 denied)" "2 1"
w_since "$m0"
tc_eq "events" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" cgroup_id="$(cgid /gpumem-q-p/child)" cgroup=/gpumem-q-p/child pid="$c3_pid" \
	usage=$((2 * MiB)) limit=$((2 * MiB)) denied=true
# A process in the parent itself shares the parent's 4 MiB with the child.
hold_in "$P" p1 -n 3 -s 1M -c gm-q-p1 || tc_fail "helper: $(helper_why p1)"
tc_eq "parent's own process got/denied" "$(out_total p1 ok) $(out_total p1 denied)" "2 1"
tc_eq "parent usage" "$(q_get /gpumem-q-p all usage)" $((4 * MiB))
tc_eq "child usage" "$(q_get /gpumem-q-p/child all usage)" $((2 * MiB))
stop c3
stop p1
tc_eq "usage at the end" "$(q_get /gpumem-q-p all usage) $(q_get /gpumem-q-p/child all usage)" "0 0"
tc_end

tc_begin quota-device-limit
ctl_ok limit set "$D" --device "$qxl" --max 2M --json
tc_eq "limit set reply device" "$(jget device <"$GM_TMP/ctl.out")" "$qxl"
tc_eq "quotas row device" "$(snap quotas; tbl_get "$GM_TMP/quotas" device cgroup=/gpumem-q-d)" "$qxl"
m0=$(w_mark)
hold_in "$D" d1 -n 3 -s 1M -c gm-q-d1 || tc_fail "helper: $(helper_why d1)"
tc_eq "got/denied under 2 MiB on $qxl" "$(out_total d1 ok) $(out_total d1 denied)" "2 1"
tc_eq "usage on $qxl (quotas)" "$(q_get /gpumem-q-d "$qxl" usage)" $((2 * MiB))
tc_eq "usage on all devices (cgroups)" "$(cg_usage /gpumem-q-d all)" $((2 * MiB))
w_since "$m0"
ev_check "$ev" cgroup=/gpumem-q-d pid="$d1_pid" device="$qxl" usage=$((2 * MiB)) \
	limit=$((2 * MiB)) denied=true
ctl_ok limit get "$D" --device "$qxl" --json
tc_eq "limit get usage/denied" "$(jget usage <"$GM_TMP/ctl.out")/$(jget denied <"$GM_TMP/ctl.out")" \
	"$((2 * MiB))/1"
ctl limit get "$D" --json
tc_eq "no all-devices limit on D: limit get exit status" "$ctl_rc" 1
stop d1
tc_end

# A limit on another device does not limit qxl.
tc_begin quota-other-device-limit
other=$(card_of vgem)
[ -n "$other" ] || other=$(card_of virtio_gpu)
if [ -z "$other" ]; then
	tc_fail "no second DRM device"; tc_end
else
	ctl_ok limit clear "$D" --device "$qxl"
	ctl_ok limit set "$D" --device "$other" --max 1M
	hold_in "$D" d2 -n 3 -s 1M -c gm-q-d2 || tc_fail "helper: $(helper_why d2)"
	tc_eq "got/denied on $qxl with a limit on $other" "$(out_total d2 ok) $(out_total d2 denied)" "3 0"
	tc_eq "usage of the $other limit" "$(q_get /gpumem-q-d "$other" usage)" 0
	stop d2
	ctl_ok limit clear "$D" --device "$other"
	tc_end
fi

# qxl VRAM + a bochs scanout (pinned in bochs' TTM VRAM on 6.x) against one
# all-devices limit.
tc_begin quota-all-devices-sum
bochs=$(card_of bochs)
if [ -z "$bochs" ] || [ "$(bochs_expect_ttm)" != yes ]; then
	tc_skip "no bochs device with TTM VRAM on this kernel"
elif ! spawn_cmd banchor "$QA" anchor -d bochs -t "$GM_HOLD"; then
	tc_fail "bochs anchor: $(helper_why banchor)"
	tc_end
else
	ctl_ok limit set "$D" --max 4M
	hold_in "$D" d3 -n 2 -s 1M -c gm-q-d3 || tc_fail "helper: $(helper_why d3)"
	m0=$(w_mark)
	run_in "$D" s1 "$GM_ALLOC" alloc -d bochs -k scanout -t 0 -c gm-q-s1
	tc_eq "scanout (>= 3 MiB) beyond 4 MiB on all devices with 2 MiB on qxl: exit status" "$s1_rc" 1
	log "scanout: $(tail -n 1 "$GM_TMP/s1.out")"
	w_since "$m0"
	tc_eq "events" "$(echo "$ev" | grep -c .)" 1
	ev_check "$ev" cgroup=/gpumem-q-d pid="$s1_pid" comm=gm-q-s1 device="$bochs" region=vram \
		usage=$((2 * MiB)) limit=$((4 * MiB)) denied=true
	ev1=$ev
	ctl_ok limit set "$D" --max 8M
	if spawn_cmd s2 sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$D" "$GM_ALLOC" alloc -d bochs -k scanout -t "$GM_HOLD" -c gm-q-s2; then
		ssize=$(out_bo s2 0 size)
		tc_eq "denied scanout's event: requested" "$(echo "$ev1" | jget requested)" "$ssize"
		tc_eq "usage on all devices" "$(q_get /gpumem-q-d all usage)" $((2 * MiB + $(num "$ssize")))
		tc_eq "usage on $bochs" "$(cg_usage /gpumem-q-d "$bochs")" "$ssize"
		tc_eq "usage on $qxl" "$(cg_usage /gpumem-q-d "$qxl")" $((2 * MiB))
		stop s2
	else
		tc_fail "scanout under 8 MiB failed: $(helper_why s2)"
	fi
	stop d3
	tc_eq "usage at the end" "$(q_get /gpumem-q-d all usage)" 0
	ctl_ok limit clear "$D"
	tc_end
fi

tc_begin quota-rmdir-drops-limit
ctl_ok limit set "$R" --max 1M
ctl_ok limit set "$R" --max 2M --device "$qxl"
ctl_ok limit list --json
tc_eq "limit list rows for R" "$(grep -c '"cgroup":"/gpumem-q-r"' "$GM_TMP/ctl.out")" 2
hold_in "$R" r1 -n 1 -s 512K -c gm-q-r1 || tc_fail "helper: $(helper_why r1)"
stop r1
rid=$(cgid /gpumem-q-r)
if rmdir "$R"; then
	ctl_ok limit list --json
	tc_eq "limit list rows for R after rmdir" "$(grep -c "\"cgroup_id\":$rid," "$GM_TMP/ctl.out")" 0
	snap quotas
	tc_eq "quotas rows for R after rmdir" "$(tbl_count "$GM_TMP/quotas" cgroup_id="$rid")" 0
	"$CTL" cgroups --json >"$GM_TMP/cg.json"
	tc_eq "cgroups rows for R after rmdir" "$(grep -c "\"cgroup_id\":$rid," "$GM_TMP/cg.json")" 0
	# A new cgroup of the same name starts without a limit.
	mkdir "$R" || tc_fail "mkdir $R again"
	ctl limit get "$R"
	tc_eq "limit get on the new cgroup: exit status" "$ctl_rc" 1
	rmdir "$R"
else
	tc_fail "rmdir $R failed"
fi
tc_end

tc_begin quota-device-gone-drops-limit
vg=$(card_of vgem)
if [ -z "$vg" ] || ! grep -q '^vgem ' /proc/modules; then
	tc_fail "no vgem module with a card in this guest (scripts/mkinitramfs.sh adds it)"; tc_end
else
	V=$GM_CGROOT/gpumem-q-v
	mkcgroup "$V" || tc_fail "cannot create $V"
	ctl_ok limit set "$V" --max 1M --device "$vg"
	ctl_ok limit list --json
	tc_eq "limit rows on $vg before" "$(grep '"cgroup":"/gpumem-q-v"' "$GM_TMP/ctl.out" | grep -c "\"device\":\"$vg\"")" 1
	wait_until 15 rmmod vgem 2>"$GM_TMP/rmmod.err" || tc_fail "rmmod vgem: $(cat "$GM_TMP/rmmod.err")"
	ctl_ok limit list --json
	tc_eq "limit rows of $V with vgem gone" "$(grep -c '"cgroup":"/gpumem-q-v"' "$GM_TMP/ctl.out")" 0
	snap quotas
	tc_eq "quotas rows of $V with vgem gone" "$(tbl_count "$GM_TMP/quotas" cgroup=/gpumem-q-v)" 0
	modprobe vgem 2>"$GM_TMP/modprobe.err" || tc_fail "modprobe vgem: $(cat "$GM_TMP/modprobe.err")"
	wait_until 20 test -n "$(card_of vgem)" || tc_fail "no vgem card 20 s after modprobe"
	vg2=$(card_of vgem)
	log "  vgem was $vg, is ${vg2:-none} now"
	ctl_ok limit list --json
	tc_eq "limit rows of $V on the new vgem ($vg2)" "$(grep -c '"cgroup":"/gpumem-q-v"' "$GM_TMP/ctl.out")" 0
	ctl_ok limit set "$V" --max 1M --device "$vg2"
	ctl_ok limit clear "$V" --device "$vg2"
fi
tc_end

"$CTL" limit clear "$SYNC" >/dev/null 2>&1
for cg in "$C" "$P"; do "$CTL" limit clear "$cg" >/dev/null 2>&1; done
finish
