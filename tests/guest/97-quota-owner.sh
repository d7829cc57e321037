#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A buffer's later placements are charged to its owner (docs/limits.md, "Attribution
# rule"), and one a user task asks for is a request in the owner's name
# (docs/limits.md, "Who may place an owner's buffer"). On bochs (TTM VRAM on 6.x) a
# dumb buffer lives in system memory until it is shown: a tenant O allocates
# one the size of the mode and hands it over (a dma-buf; a flink name on
# 6.1, whose bochs has no PRIME export); a process N in another cgroup (a
# compositor) imports it and shows it on a CRTC, so bochs pins it into VRAM
# in N's task. O's max is 4 KiB, N's too, both enforced:
# - N's scanout of O's buffer is O's request beyond O's max: denied (the
#   modeset fails, nothing is charged, N pays nothing), counted for O, and
#   the event names O's process and N (before, it was "forced": charged to
#   O, three times its max with three such buffers);
# - with O's max raised to the buffer's size, the same scanout succeeds and
#   is charged to O, not N; the charge goes when the buffer is freed, not
#   when N lets go of it.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-owner-pin-by-other quota-owner-pin-event quota-owner-pin-within-max quota-owner-freed"

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
	run_in "$N" ni "$GM_ALLOC" import -d bochs -k scanout -S "$sock" -t 0 -c gm-q-nbr
	tc_num -ne "N's scanout of O's buffer beyond O's max: exit status" "$ni_rc" 0
	grep -q 'drmModeSetCrtc' "$GM_TMP/ni.out" ||
		tc_fail "N's scanout failed for another reason: $(helper_why ni)"
	tc_eq "imported size" "$(out_val ni IMPORTED size)" "$size"
	tc_eq "$bochs vram used (nothing pinned)" "$(dev_field "$bochs" vram used)" "$used0"
	tc_eq "O usage" "$(usage_of /gpumem-q-own)" 0
	tc_eq "N usage" "$(usage_of /gpumem-q-nbr)" 0
	tc_eq "O denied counter" "$(q_get /gpumem-q-own "$bochs" denied)" 1
	tc_eq "N denied counter" "$(q_get /gpumem-q-nbr "$bochs" denied)" 0
else
	tc_fail "exporter: $(helper_why ox)"
fi
tc_end

# The denial is reported against O (the owner), naming N as the one that
# asked; nothing against N.
tc_begin quota-owner-pin-event
if [ -n "$size" ]; then
	w_since "$m0"
	tc_eq "events against O" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-own"')" 1
	tc_eq "events against N" "$(echo "$ev" | grep -c '"cgroup":"/gpumem-q-nbr"')" 0
	ev_check "$(echo "$ev" | grep '"cgroup":"/gpumem-q-own"')" type=quota-exceeded \
		cgroup=/gpumem-q-own pid="$ox_pid" comm=gm-q-own req_pid="$ni_pid" req_comm=gm-q-nbr \
		device="$bochs" region=vram requested="$size" usage=0 limit=4096 mode=enforce denied=true
else
	tc_fail "no shared buffer (see quota-owner-pin-by-other)"
fi
tc_end

# Within O's max the same scanout succeeds, charged to O, not to N; N lets
# go (unpinned, the buffer stays in VRAM: nothing evicts it here) and it
# stays O's.
tc_begin quota-owner-pin-within-max
if [ -n "$size" ]; then
	ctl_ok limit set "$O" --max "$size" --device "$bochs"
	if spawn_in_cgroup "$N" ni import -d bochs -k scanout -S "$sock" -c gm-q-nbr; then
		tc_eq "$bochs vram used: $used0 + the shown buffer" "$(dev_field "$bochs" vram used)" \
			"$(($(num "$used0") + $(num "$size")))"
		tc_eq "O usage (owner, at its max)" "$(usage_of /gpumem-q-own)" "$size"
		tc_eq "N usage (the task that pinned it)" "$(usage_of /gpumem-q-nbr)" 0
		snap charged
		tc_eq "charged view: O's process" \
			"$(tbl_get "$GM_TMP/charged" vram pid="$ox_pid" device="$bochs")" "$size"
		tc_eq "charged view: N's process rows" "$(tbl_count "$GM_TMP/charged" pid="$ni_pid")" 0
		stop ni
		tc_eq "O usage after N exited" "$(usage_of /gpumem-q-own)" "$size"
		tc_eq "N usage after N exited" "$(usage_of /gpumem-q-nbr)" 0
	else
		tc_fail "importer: $(helper_why ni)"
	fi
	tc_eq "O denied counter (only the first scanout)" "$(q_get /gpumem-q-own "$bochs" denied)" 1
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
