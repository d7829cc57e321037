#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumem beside the kernel's dmem cgroup controller (kernel/cgroup/dmem.c).
#
# Debian's kernels (6.1, 6.12, 7.3) have no dmem: nothing of it shows
# (dmem-absent: no dmem files, no dmem_provider parameter, no dmem keys in
# gpumemctl's JSON, a gpumem max on the qxl device works as before).
#
# The test kernel (7.3 with CONFIG_CGROUP_DMEM=y): qxl registers no dmem
# region of its own, so by default nothing changes either (dmem-default-none).
# gpumem reloaded with dmem_provider=1 registers one per counted qxl manager
# (drm/<pci>/vram0 for VRAM, vram1 for the surface BAR) and then:
#   dmem-provider-regions  dmem.capacity lists them, their sizes add up to
#                          gpumem's qxl vram capacity; gpumemctl devices
#                          names them, registered by gpumem
#   dmem-current-exact     a cgroup's dmem.current is exactly its own
#                          placements (3 x 1 MiB), and gpumemctl cgroups
#                          shows it beside gpumem's usage (dmem_current)
#   dmem-max-denies        dmem.max 4 MiB: an 8 MiB allocation is denied,
#                          gpumem reports one quota-exceeded event with
#                          source dmem and the region's name; within the
#                          max, TTM evicts the cgroup's own buffers to make
#                          room (dmem.current = its buffers left in VRAM)
#   dmem-one-enforcer      a gpumem max on the qxl device is refused (the
#                          message names dmem.max and the region); an
#                          all-devices gpumem max is reported, never
#                          enforced, on the dmem region
#   dmem-unload-live       rmmod gpumem with charged buffers alive: the
#                          regions go, the buffers are freed afterwards
#                          without a report from the kernel (the harness
#                          checks the console), a reload registers again
#   dmem-unbind-live       unbind qxl with a charged buffer alive: the
#                          regions go with the device, the buffer is freed
#                          afterwards; once the old instance is released, a
#                          bind registers them again and a new placement is
#                          charged to them
#   dmem-unwatched         the calls of dmem_cgroup_try_charge() gpumem's
#                          probe missed are counted (statistic
#                          dmem_unwatched): none one at a time with the
#                          default slots; loaded with dmem_probe_slots=1, four
#                          allocating loops at once miss some, never more
#                          than the placements they made; 4097 slots are
#                          refused at load
# Unbinding qxl trips two driver bugs of 7.3 in code gpumem does not call
# (qxl never frees its interrupt: KASAN use-after-free in qxl_irq_handler;
# TTM's pool types never list_lru_destroy() their lists: 43 kmemleak
# reports when the last TTM device goes); the test kernel carries the fixes
# (scripts/testkernel-patches/0002, 0003).
# The module is loaded again without dmem_provider at the end.
. "$(dirname "$0")/lib.sh"
require_gpumem

case $(uname -r) in
*-gpumem-test) dmem_kernel=1
	CASES="dmem-default-none dmem-provider-regions dmem-current-exact dmem-max-denies
dmem-one-enforcer dmem-unload-live dmem-unbind-live dmem-unwatched" ;;
*) dmem_kernel=0
	CASES="dmem-absent" ;;
esac

. "$(dirname "$0")/quota-lib.sh"

# reload_gpumem [PARAM=VALUE]: the watch stopped, rmmod, load, watch again.
# The sync cgroup's events: a gpumem max of 1 byte, and (with gpumem's
# dmem regions, where a gpumem max never denies) a dmem.max of 0 on R0.
reload_gpumem() {
	kill -TERM "$w_pid" 2>/dev/null
	reap "$w_pid" 5
	rmmod gpumem 2>"$GM_TMP/rmmod.err" || { log "rmmod: $(cat "$GM_TMP/rmmod.err")"; return 1; }
	load_gpumem "$@" || { log "load: $(cat "$GM_TMP/modprobe.err")"; return 1; }
	"$CTL" limit set "$SYNC" --max 1 >/dev/null 2>&1 || return 1
	if grep -q "^$R0 " "$GM_CGROOT/dmem.capacity"; then
		echo "$R0 0" >"$SYNC/dmem.max" || { log "cannot write $SYNC/dmem.max"; return 1; }
	fi
	w_start
}
# the module as the other scripts expect it: without dmem_provider
restore_gpumem() {
	if [ "$(cat /sys/module/gpumem/parameters/dmem_provider 2>/dev/null)" = Y ] ||
	   ! grep -q '^gpumem ' /proc/modules; then
		rmmod gpumem 2>/dev/null
		load_gpumem || log "could not load gpumem again: $(cat "$GM_TMP/modprobe.err")"
	fi
}
trap 'restore_gpumem; _gm_cleanup' EXIT

D=$GM_CGROOT/gpumem-dm-d
E=$GM_CGROOT/gpumem-dm-e
F=$GM_CGROOT/gpumem-dm-f
U=$GM_CGROOT/gpumem-dm-u
quota_setup "$D" "$E" "$F" "$U"
qpci=$(basename "$(readlink -f "/sys/class/drm/$qxl/device")")
log "qxl: $qxl at $qpci"
R0=drm/$qpci/vram0
R1=drm/$qpci/vram1

# dmem_val FILE REGION: REGION's value in a dmem file ("" without a line)
dmem_val() { awk -v r="$2" '$1 == r { print $2; exit }' "$1" 2>/dev/null; }
# dev_json KEY: KEY of the qxl device's vram region in gpumemctl devices --json
dev_json() {
	"$CTL" devices --json >"$GM_TMP/dev.json" 2>&1
	tr -d '\n' <"$GM_TMP/dev.json" | sed 's/},{"id"/}\n{"id"/g' |
		grep -F "\"name\":\"$qxl\"" | sed 's/.*"regions":\[//' | jget "$1"
}
# cg_json CGPATH KEY: KEY of the cgroup's qxl vram row in gpumemctl cgroups --json
cg_json() {
	"$CTL" cgroups --json >"$GM_TMP/cg.json" 2>&1
	grep -F "\"cgroup\":\"$1\"," "$GM_TMP/cg.json" | grep -F "\"device\":\"$qxl\"," |
		grep -F '"region":"vram"' | jget "$2"
}

if [ $dmem_kernel = 0 ]; then
	tc_begin dmem-absent
	[ -e "$GM_CGROOT/dmem.capacity" ] && tc_fail "this kernel has dmem.capacity: $(cat "$GM_CGROOT/dmem.capacity")"
	[ -e /sys/module/gpumem/parameters/dmem_provider ] &&
		tc_fail "gpumem has a dmem_provider parameter on a kernel without dmem"
	[ -e /sys/module/gpumem/parameters/dmem_probe_slots ] &&
		tc_fail "gpumem has a dmem_probe_slots parameter on a kernel without dmem"
	tc_eq "statistic dmem_unwatched on a kernel without dmem" "$(stat_value dmem_unwatched)" 0
	"$CTL" devices --json >"$GM_TMP/dev.json" 2>&1 || tc_fail "gpumemctl devices: $(cat "$GM_TMP/dev.json")"
	grep -q dmem "$GM_TMP/dev.json" && tc_fail "dmem keys in gpumemctl devices --json"
	"$CTL" devices >"$GM_TMP/dev.txt" 2>&1
	grep -q DMEM "$GM_TMP/dev.txt" && tc_fail "a DMEM column in gpumemctl devices"
	ctl_ok limit set "$D" --device "$qxl" --max 2M
	hold_in "$D" d0 -n 3 -s 1M -c gm-dm-d0 || tc_fail "helper: $(helper_why d0)"
	tc_eq "gpumem's max on the qxl device still enforces: got/denied" \
		"$(out_total d0 ok) $(out_total d0 denied)" "2 1"
	"$CTL" cgroups --json >"$GM_TMP/cg.json" 2>&1
	grep -q dmem "$GM_TMP/cg.json" && tc_fail "dmem keys in gpumemctl cgroups --json"
	stop d0
	ctl_ok limit clear "$D" --device "$qxl"
	tc_end
	finish
fi

[ -r "$GM_CGROOT/dmem.capacity" ] || fail_all "the test kernel has no dmem controller ($GM_CGROOT/dmem.capacity)"
grep -qw dmem "$GM_CGROOT/cgroup.subtree_control" || echo +dmem >"$GM_CGROOT/cgroup.subtree_control" ||
	fail_all "cannot enable the dmem controller for the children of $GM_CGROOT"

tc_begin dmem-default-none
tc_eq "dmem_provider by default" "$(cat /sys/module/gpumem/parameters/dmem_provider)" N
tc_eq "dmem regions of qxl (dmem.capacity)" "$(grep -c "^drm/$qpci/" "$GM_CGROOT/dmem.capacity")" 0
"$CTL" devices --json >"$GM_TMP/dev.json" 2>&1
grep -q dmem "$GM_TMP/dev.json" && tc_fail "dmem keys in gpumemctl devices --json: $(cat "$GM_TMP/dev.json")"
tc_end

tc_begin dmem-provider-regions
reload_gpumem dmem_provider=1 || tc_fail "reload with dmem_provider=1 (or its sync event) failed"
tc_eq "the sync cgroup's dmem.max" "$(dmem_val "$SYNC/dmem.max" "$R0")" 0
log "dmem.capacity: $(tr '\n' ';' <"$GM_CGROOT/dmem.capacity")"
c0=$(dmem_val "$GM_CGROOT/dmem.capacity" "$R0")
c1=$(dmem_val "$GM_CGROOT/dmem.capacity" "$R1")
[ -n "$c0" ] && [ -n "$c1" ] || tc_fail "dmem.capacity lacks $R0 or $R1"
cap=$(dev_json capacity)
tc_eq "$R0 + $R1 sizes = gpumem's qxl vram capacity" "$((${c0:-0} + ${c1:-0}))" "$cap"
tc_eq "gpumemctl devices: dmem_region" "$(dev_json dmem_region)" "$R0,$R1"
tc_eq "gpumemctl devices: dmem_registered_by" "$(dev_json dmem_registered_by)" "gpumem,gpumem"
tc_end

tc_begin dmem-current-exact
hold_in "$D" d1 -n 3 -s 1M -c gm-dm-d1 || tc_fail "helper: $(helper_why d1)"
tc_eq "d1 got/denied" "$(out_total d1 ok) $(out_total d1 denied)" "3 0"
tc_eq "D's dmem.current of $R0" "$(dmem_val "$D/dmem.current" "$R0")" $((3 * MiB))
tc_eq "D's dmem.current of $R1" "$(dmem_val "$D/dmem.current" "$R1")" 0
tc_eq "gpumemctl cgroups: D's usage, dmem_current, dmem_max" \
	"$(cg_json /gpumem-dm-d usage) $(cg_json /gpumem-dm-d dmem_current) $(cg_json /gpumem-dm-d dmem_max)" \
	"$((3 * MiB)) $((3 * MiB)) max"
tc_eq "gpumemctl cgroups: D's dmem_region" "$(cg_json /gpumem-dm-d dmem_region)" "$R0"
# what an admin sees (for the log)
"$CTL" devices 2>&1 | sed 's/^/#   /'
"$CTL" cgroups 2>&1 | sed 's/^/#   /'
tc_end

tc_begin dmem-max-denies
echo "$R0 4194304" >"$E/dmem.max" || tc_fail "cannot write $E/dmem.max"
tc_eq "E's dmem.max read back" "$(dmem_val "$E/dmem.max" "$R0")" 4194304
m0=$(w_mark)
run_in "$E" e1 "$QA" deny -n 1 -s 8M -c gm-dm-e1
tc_eq "8 MiB beyond E's dmem.max: denied" "$(out_val e1 DENY denied) $(out_val e1 DENY ok)" "1 0"
tc_eq "E's dmem.current after the denial" "$(dmem_val "$E/dmem.current" "$R0")" 0
w_since "$m0"
tc_eq "events of the denial" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded source=dmem dmem_region="$R0" cgroup=/gpumem-dm-e \
	cgroup_id="$(cgid /gpumem-dm-e)" pid="$e1_pid" comm=gm-dm-e1 device="$qxl" region=vram \
	requested=$((8 * MiB)) denied=true
# Within the max: 2 x 1 MiB, then 3 MiB more evicts E's own buffers (TTM's
# eviction within the cgroup) until it fits.
hold_in "$E" e2 -n 2 -s 1M -c gm-dm-e2 || tc_fail "helper: $(helper_why e2)"
tc_eq "e2 got/denied" "$(out_total e2 ok) $(out_total e2 denied)" "2 0"
tc_eq "E's dmem.current" "$(dmem_val "$E/dmem.current" "$R0")" $((2 * MiB))
hold_in "$E" e3 -n 1 -s 3M -c gm-dm-e3 || tc_fail "helper: $(helper_why e3)"
tc_eq "e3 (3 MiB) got/denied" "$(out_total e3 ok) $(out_total e3 denied)" "1 0"
in_vram=$(buf_regions "$e2_pid" | tr ' ' '\n' | grep -c '^vram/2$')
e3_vram=$(buf_regions "$e3_pid" | tr ' ' '\n' | grep -c '^vram/2$')
log "E's buffers in VRAM: e2 $in_vram, e3 $e3_vram"
tc_eq "E's dmem.current = its buffers in VRAM" "$(dmem_val "$E/dmem.current" "$R0")" \
	$((in_vram * MiB + e3_vram * 3 * MiB))
[ "$in_vram" -lt 2 ] || tc_fail "none of E's own buffers was evicted for e3"
tc_end

tc_begin dmem-one-enforcer
ctl limit set "$F" --device "$qxl" --max 1M
[ "$ctl_rc" != 0 ] || tc_fail "a gpumem max on the qxl device was accepted"
grep -qF "write '$R0 <bytes>' to dmem.max" "$GM_TMP/ctl.out" ||
	tc_fail "the refusal does not name dmem.max and $R0: $(cat "$GM_TMP/ctl.out")"
# dmem's name of the region names the device and region in a limit request
ctl limit set "$F" --region "$R0" --max 1M
[ "$ctl_rc" != 0 ] || tc_fail "a gpumem max on $R0 was accepted"
ctl_ok limit set "$F" --region "$R0" --high 1M --json
tc_eq "a high on $R0: its device and region" \
	"$(jget device <"$GM_TMP/ctl.out") $(jget region <"$GM_TMP/ctl.out") $(jget high <"$GM_TMP/ctl.out")" \
	"$qxl vram $MiB"
ctl_ok limit clear "$F" --region "$R0"
ctl_ok limit set "$F" --max 1M
m0=$(w_mark)
hold_in "$F" f1 -n 2 -s 1M -c gm-dm-f1 || tc_fail "helper: $(helper_why f1)"
tc_eq "2 MiB under an all-devices gpumem max of 1 MiB: got/denied" \
	"$(out_total f1 ok) $(out_total f1 denied)" "2 0"
tc_eq "F's gpumem usage, dmem.current" \
	"$(cg_usage /gpumem-dm-f all) $(dmem_val "$F/dmem.current" "$R0")" "$((2 * MiB)) $((2 * MiB))"
w_since "$m0"
tc_eq "events: the placement over gpumem's max, reported" "$(echo "$ev" | grep -c .)" 1
ev_check "$ev" type=quota-exceeded cgroup=/gpumem-dm-f pid="$f1_pid" device="$qxl" \
	requested="$MiB" limit="$MiB" denied=false
echo "$ev" | grep -q '"source"' && tc_fail "a gpumem limit's event has a source: $ev"
tc_end

tc_begin dmem-unload-live
kill -TERM "$w_pid" 2>/dev/null
reap "$w_pid" 5
if rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_eq "qxl's regions after rmmod (dmem.capacity)" "$(grep -c "^drm/$qpci/" "$GM_CGROOT/dmem.capacity")" 0
else
	tc_fail "rmmod gpumem with dmem regions and charged buffers: $(cat "$GM_TMP/rmmod.err")"
fi
# the buffers charged to the gone regions' pools are freed now
stop d1
stop e2
stop e3
stop f1
tc_eq "D's dmem.current lists no gone region" "$(grep -c "^drm/$qpci/" "$D/dmem.current")" 0
load_gpumem dmem_provider=1 || tc_fail "modprobe gpumem dmem_provider=1: $(cat "$GM_TMP/modprobe.err")"
tc_eq "regions again after the reload" "$(grep -c "^drm/$qpci/vram[01] " "$GM_CGROOT/dmem.capacity")" 2
hold_in "$D" d2 -n 1 -s 1M -c gm-dm-d2 || tc_fail "helper: $(helper_why d2)"
tc_eq "D's dmem.current of the new region" "$(dmem_val "$D/dmem.current" "$R0")" "$MiB"
tc_end

# wait_for CMD...: up to 10 s for CMD to succeed
wait_for() {
	_n=0
	until "$@"; do
		_n=$((_n + 1))
		[ $_n -ge 20 ] && return 1
		sleep 0.5
	done
}
regions_are() { [ "$(grep -c "^drm/$qpci/vram[01] " "$GM_CGROOT/dmem.capacity")" = "$1" ]; }
qxl_card() { qxl=$(card_of qxl); [ -n "$qxl" ]; }
# qxl instances released so far (qxl_ttm_fini() logs each)
qxl_finis() { dmesg | grep -c 'qxl: ttm finalized'; }
qxl_gone() { [ "$(qxl_finis)" -gt "$1" ]; }

tc_begin dmem-unbind-live
qdrv=/sys/bus/pci/drivers/qxl
old_qxl=$qxl
if echo "$qpci" >"$qdrv/unbind"; then
	tc_eq "qxl's regions after the unbind (dmem.capacity)" \
		"$(grep -c "^drm/$qpci/" "$GM_CGROOT/dmem.capacity")" 0
	tc_eq "D's dmem.current lists no gone region" "$(grep -c "^drm/$qpci/" "$D/dmem.current")" 0
	tc_eq "the qxl card after the unbind" "$(card_of qxl)" ""
else
	tc_fail "unbind $qpci from qxl failed"
fi
# the buffer charged to a gone region's pool is freed now; with the
# anchor's file closed too, the unplugged instance goes (qxl's release talks
# to the device: it must be done before the device is bound again)
fini0=$(qxl_finis)
stop d2
stop anchor
wait_for qxl_gone "$fini0" || tc_fail "the unbound qxl instance was not released within 10 s"
if echo "$qpci" >"$qdrv/bind"; then
	wait_for qxl_card || tc_fail "no qxl card 10 s after the bind"
	log "qxl bound again: $qxl (was $old_qxl)"
	wait_for regions_are 2 ||
		tc_fail "qxl's regions after the bind: $(grep "^drm/$qpci/" "$GM_CGROOT/dmem.capacity" | tr '\n' ' ')"
	tc_eq "vram0's capacity after the bind" "$(dmem_val "$GM_CGROOT/dmem.capacity" "$R0")" "$c0"
	hold_in "$D" d3 -n 1 -s 1M -c gm-dm-d3 || tc_fail "helper: $(helper_why d3)"
	tc_eq "D's dmem.current of the region registered again" "$(dmem_val "$D/dmem.current" "$R0")" "$MiB"
	stop d3
else
	tc_fail "bind $qpci to qxl again failed"
fi
tc_end

tc_begin dmem-unwatched
# since the load of dmem-unload-live: one placement at a time
tc_eq "calls unwatched, one at a time, default slots" "$(stat_value dmem_unwatched)" 0
rmmod gpumem 2>"$GM_TMP/rmmod.err" || tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
if load_gpumem dmem_provider=1 dmem_probe_slots=4097; then
	tc_fail "gpumem loaded with dmem_probe_slots=4097"
	rmmod gpumem
fi
dmesg | tail -n 20 | grep -qF "invalid for parameter \`dmem_probe_slots'" ||
	tc_fail "no message for dmem_probe_slots=4097: $(dmesg | tail -n 3 | tr '\n' ' ')"
load_gpumem dmem_provider=1 dmem_probe_slots=1 ||
	tc_fail "modprobe gpumem dmem_provider=1 dmem_probe_slots=1: $(cat "$GM_TMP/modprobe.err")"
tc_eq "dmem_probe_slots" "$(cat /sys/module/gpumem/parameters/dmem_probe_slots)" 1
wait_for regions_are 2 || tc_fail "qxl's regions after the reload: $(grep "^drm/$qpci/" "$GM_CGROOT/dmem.capacity" | tr '\n' ' ')"
un=300 upids=
for i in 1 2 3 4; do
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" churn -n "$3" -s 64K -c gm-dm-u' sh "$U" "$QA" "$un" \
		>"$GM_TMP/u.$i" 2>&1 8>&- &
	upids="$upids $!"
done
for p in $upids; do
	wait "$p" || tc_fail "churn loop $p failed: $(cat "$GM_TMP"/u.*)"
done
made=$(cat "$GM_TMP"/u.* | awk '$1 == "CHURN" { n++ } END { print n + 0 }')
tc_eq "churn loops that finished" "$made" 4
u=$(stat_value dmem_unwatched)
log "4 loops x $un placements at once, 1 slot: $u calls unwatched"
[ "${u:-0}" -gt 0 ] || tc_fail "4 loops at once with one slot: no call went unwatched ($u)"
# each create is one VRAM placement (qxl's bounce is in system memory)
[ "${u:-0}" -le $((4 * un)) ] || tc_fail "more calls unwatched ($u) than the loops' placements ($((4 * un)))"
tc_eq "U's gpumem usage after the loops" "$(cg_usage /gpumem-dm-u all)" 0
# (dmem may still count qxl's own buffers made in the loops' context, which
# gpumem has as unattributed: for the log)
log "after the loops: U's dmem.current $(dmem_val "$U/dmem.current" "$R0"), unattributed qxl vram $(stat_value "unattributed_${qxl}_vram")"
tc_end

finish
