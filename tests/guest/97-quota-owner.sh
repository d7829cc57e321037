#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A buffer's later placements are charged to its owner (README, "Attribution
# rule"), whoever makes them. On bochs (TTM VRAM on 6.x) a dumb buffer lives
# in system memory until it is shown: a tenant O allocates one the size of
# the mode and hands it over (a dma-buf; a flink name on 6.1, whose bochs
# has no PRIME export); a process N in another cgroup
# (a compositor) imports it and shows it on a CRTC, so bochs pins it into
# VRAM in N's task. Both cgroups have a 4 KiB max in enforce mode:
# - the VRAM placement is charged to O (N's cgroup pays nothing), and never
#   denied: it is not O's request, O is reported over its max (monitor-like
#   event, denied=false, in O's name);
# - O's own next request is denied (it is over its max);
# - the charge goes when the buffer is freed, not when N lets go of it.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-owner-pin-by-other quota-owner-over-max quota-owner-freed"

. "$(dirname "$0")/quota-lib.sh"

bochs=$(card_of bochs)
if [ -z "$bochs" ] || [ "$(bochs_expect_ttm)" != yes ]; then
	for t in $CASES; do skip "$t" "no bochs device with TTM VRAM on this kernel"; done
	finish
fi

O=$GM_CGROOT/gpumem-q-own
N=$GM_CGROOT/gpumem-q-nbr
quota_setup "$O" "$N"
# holds bochs open: no close here is bochs' last (which restores the console)
spawn_cmd banchor "$QA" anchor -d bochs -t "$GM_HOLD" || fail_all "bochs anchor: $(helper_why banchor)"
ctl limit set "$O" --max 4K --device "$bochs"
[ "$ctl_rc" = 0 ] || fail_all "limit on $O: $(cat "$GM_TMP/ctl.out")"
ctl limit set "$N" --max 4K --device "$bochs"
[ "$ctl_rc" = 0 ] || fail_all "limit on $N: $(cat "$GM_TMP/ctl.out")"
usage_of() { _u=$(q_get "$1" "$bochs" usage); echo "${_u:-0}"; }
sock=$GM_TMP/own.sock

tc_begin quota-owner-pin-by-other
m0=$(w_mark)
used0=$(dev_field "$bochs" vram used)
size=""
if spawn_in_cgroup "$O" ox export -d bochs -k mode -S "$sock" -c gm-q-own; then
	size=$(out_bo ox 0 size)
	tc_eq "O usage while the buffer is in system memory" "$(usage_of /gpumem-q-own)" 0
	if spawn_in_cgroup "$N" ni import -d bochs -k scanout -S "$sock" -c gm-q-nbr; then
		tc_eq "imported size" "$(out_val ni IMPORTED size)" "$size"
		tc_eq "$bochs vram used: $used0 + the shown buffer" "$(dev_field "$bochs" vram used)" \
			"$(($(num "$used0") + $(num "$size")))"
		tc_eq "O usage (owner, over its 4 KiB max)" "$(usage_of /gpumem-q-own)" "$size"
		tc_eq "N usage (the task that pinned it)" "$(usage_of /gpumem-q-nbr)" 0
		tc_eq "N denied counter" "$(q_get /gpumem-q-nbr "$bochs" denied)" 0
		snap charged
		tc_eq "charged view: O's process" \
			"$(tbl_get "$GM_TMP/charged" vram pid="$ox_pid" device="$bochs")" "$size"
		tc_eq "charged view: N's process rows" "$(tbl_count "$GM_TMP/charged" pid="$ni_pid")" 0
	else
		tc_fail "importer: $(helper_why ni)"
	fi
else
	tc_fail "exporter: $(helper_why ox)"
fi
tc_end

# The forced placement is reported in O's name, not denied; N lets go
# (unpinned, the buffer stays in VRAM: nothing evicts it here) and it stays
# O's; O's own next request is denied, since O is over its max.
tc_begin quota-owner-over-max
if [ -n "$size" ]; then
	w_since "$m0"
	tc_eq "events against O" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-own"')" 1
	tc_eq "events against N" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-nbr"')" 0
	ev_check "$(echo "$ev" | grep '"cgroup":"/gpumem-q-own"')" type=quota-exceeded \
		cgroup=/gpumem-q-own pid="$ox_pid" comm=gm-q-own device="$bochs" region=vram \
		requested="$size" usage=0 limit=4096 mode=enforce denied=false
	stop ni
	tc_eq "O usage after N exited" "$(usage_of /gpumem-q-own)" "$size"
	tc_eq "N usage after N exited" "$(usage_of /gpumem-q-nbr)" 0
	run_in "$O" o2 "$GM_ALLOC" alloc -d bochs -k scanout -t 0 -c gm-q-own2
	tc_num -ne "O's own scanout while over its max: exit status" "$o2_rc" 0
	grep -q 'drmModeSetCrtc' "$GM_TMP/o2.out" ||
		tc_fail "O's own scanout failed for another reason: $(helper_why o2)"
	tc_eq "O usage after its own request" "$(usage_of /gpumem-q-own)" "$size"
	tc_eq "O denied counter (the forced placement, then its own)" \
		"$(q_get /gpumem-q-own "$bochs" denied)" 2
else
	tc_fail "no shared buffer (see quota-owner-pin-by-other)"
fi
tc_end

# Freed with O's exit, the buffer leaves O's usage.
tc_begin quota-owner-freed
if [ -n "$size" ]; then
	stop ox
	tc_eq "O usage after the buffer is freed" "$(usage_of /gpumem-q-own)" 0
	tc_eq "$bochs vram used back at $used0" "$(dev_field "$bochs" vram used)" "$used0"
else
	tc_fail "no shared buffer (see quota-owner-pin-by-other)"
fi
tc_end

"$CTL" limit clear "$O" >/dev/null 2>&1
"$CTL" limit clear "$N" >/dev/null 2>&1
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
