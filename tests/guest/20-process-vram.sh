#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# processes / buffers for private qxl buffers: VRAM (DRM_IOCTL_QXL_ALLOC),
# surfaces (TTM_PL_PRIV) and dumb buffers (TTM_PL_SYSTEM), per process.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="qxl-vram-process qxl-vram-buffers qxl-vram-device-used qxl-two-processes
qxl-surface qxl-dumb-system comm-escaped"
qxl=$(card_of qxl)
if [ -z "$qxl" ]; then
	for t in $CASES; do fail "$t" "no qxl card in this guest (run-guest.sh attaches qxl-vga)"; done
	finish
fi

# Sum of the sizes a helper printed for its BO lines.
printed_bytes() { awk '$1 == "BO" { sub("size=", "", $4); s += $4 } END { print s + 0 }' "$(out_of "$1")"; }

# --- one process, 3 x 1 MiB in the VRAM domain ------------------------------------
tc_begin qxl-vram-process
if ! spawn a alloc -d qxl -k vram -n 3 -s 1M -c gm-vram; then
	# every later case looks at this helper's buffers
	why=$(helper_why a)
	tc_fail "helper failed: $why"
	tc_end
	for t in $CASES; do
		[ "$t" = qxl-vram-process ] || fail "$t" "helper a of qxl-vram-process failed: $why"
	done
	finish
fi
bytes=$(printed_bytes a)
tc_eq "helper's own total" "$(out_val a TOTAL bytes)" "$bytes"
tc_eq "3 x 1 MiB as printed" "$bytes" $((3 * MiB))
proc_check "$a_pid" "$qxl" comm=gm-vram vram="$bytes" gtt=0 system=0 other=0 \
	shared=0 owned="$bytes" bos=3
tc_eq "rows for pid $a_pid on other devices" \
	"$(tbl_get "$GM_TMP/processes" device pid="$a_pid" | grep -vx "$qxl")" ""
tc_end

tc_begin qxl-vram-buffers
snap buffers
tc_eq "buffers rows owned by $a_pid" "$(tbl_count "$GM_TMP/buffers" owner="$a_pid")" 3
tc_eq "handles" "$(tbl_get "$GM_TMP/buffers" handle owner="$a_pid" | sort -n | tr '\n' ' ')" \
	"$(out_handles a)"
tbl_get "$GM_TMP/buffers" - owner="$a_pid" >"$GM_TMP/a.rows"
while read -r dev owner handle size region mtype shared holders; do
	tc_eq "handle $handle device" "$dev" "$qxl"
	tc_eq "handle $handle size" "$size" "$MiB"
	tc_eq "handle $handle region" "$region" vram
	tc_eq "handle $handle mem_type (TTM_PL_VRAM)" "$mtype" 2
	tc_eq "handle $handle shared" "$shared" no
	tc_eq "handle $handle holders" "$holders" "$a_pid"
done <"$GM_TMP/a.rows"
tc_end

# The device's VRAM as the processes see it is exactly what this test placed:
# every userspace VRAM buffer on qxl is one of a's three (nothing else holds
# qxl VRAM now; pid 0's fbdev buffer on 6.1 is counted apart), in processes
# and in buffers alike; and the device's used covers them all. That last one
# is a bound, not an equation: qxl's own release, image and console buffers
# come and go by MiB in "used" (last close, the blinking console, TTM's
# delayed deletes), so "used" moves by our 3 MiB only give or take those
# (bochs, in 10-devices and 25-bochs-scanout, checks "used" to the byte).
tc_begin qxl-vram-device-used
snap processes
snap buffers
snap devices
user_vram=$(awk 'NR > 1 && $1 != 0 && $5 == d { s += $6 } END { print s + 0 }' d="$qxl" "$GM_TMP/processes")
kernel_vram=$(awk 'NR > 1 && $1 == 0 && $5 == d { s += $6 } END { print s + 0 }' d="$qxl" "$GM_TMP/processes")
tc_eq "$qxl vram of all processes but pid 0 (processes)" "$user_vram" "$bytes"
tc_eq "$qxl vram buffers of processes but pid 0 (buffers)" \
	"$(awk 'NR > 1 && $1 == d && $2 != 0 && $5 == "vram" { n++; s += $4 } END { print n + 0, s + 0 }' d="$qxl" "$GM_TMP/buffers")" \
	"3 $bytes"
tc_num -ge "$qxl vram used (a's $bytes + pid 0's $kernel_vram)" \
	"$(tbl_get "$GM_TMP/devices" used device="$qxl" region=vram)" "$((bytes + kernel_vram))"
tc_end

# --- a second process is accounted separately ----------------------------------
# The last walk's client and BO counts move by exactly b's one open file and
# two BOs (no other process opens or closes a DRM file meanwhile; the
# in-kernel clients and their buffers stay as they are).
tc_begin qxl-two-processes
snap processes
snap stats
clients0=$(tbl_get "$GM_TMP/stats" value name=last_walk_clients)
bos0=$(tbl_get "$GM_TMP/stats" value name=last_walk_bos)
if spawn b alloc -d qxl -k vram -n 2 -s 512K -c gm-vram-b; then
	bbytes=$(printed_bytes b)
	tc_eq "2 x 512 KiB as printed" "$bbytes" "$MiB"
	proc_check "$b_pid" "$qxl" comm=gm-vram-b vram="$bbytes" shared=0 owned="$bbytes" bos=2
	proc_check "$a_pid" "$qxl" vram="$bytes" owned="$bytes" bos=3
	snap stats
	tc_eq "stats last_walk_clients (before b: $clients0)" \
		"$(tbl_get "$GM_TMP/stats" value name=last_walk_clients)" "$(($(num "$clients0") + 1))"
	tc_eq "stats last_walk_bos (before b: $bos0)" \
		"$(tbl_get "$GM_TMP/stats" value name=last_walk_bos)" "$(($(num "$bos0") + 2))"
else
	tc_fail "helper failed: $(helper_why b)"
fi
tc_end

# --- surface domain: TTM_PL_PRIV, device memory ----------------------------------
tc_begin qxl-surface
if spawn s alloc -d qxl -k surface -n 1 -s 1M -c gm-surface; then
	sbytes=$(printed_bytes s)
	tc_eq "surface size as printed" "$sbytes" "$MiB"
	proc_check "$s_pid" "$qxl" vram="$sbytes" gtt=0 system=0 other=0 owned="$sbytes" bos=1
	snap buffers
	tc_eq "surface region" "$(tbl_get "$GM_TMP/buffers" region owner="$s_pid")" vram
	tc_eq "surface mem_type (TTM_PL_PRIV)" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$s_pid")" 3
	stop s
else
	tc_fail "helper failed: $(helper_why s)"
fi
tc_end

# --- qxl dumb buffers are created in TTM_PL_SYSTEM ----------------------------------
tc_begin qxl-dumb-system
if spawn d alloc -d qxl -k dumb -n 2 -s 1M -c gm-dumb; then
	dbytes=$(printed_bytes d)
	tc_eq "dumb sizes as printed" "$dbytes" $((2 * MiB))
	proc_check "$d_pid" "$qxl" vram=0 gtt=0 system="$dbytes" other=0 owned="$dbytes" bos=2
	snap buffers
	tc_eq "dumb regions" "$(tbl_get "$GM_TMP/buffers" region owner="$d_pid" | sort -u)" system
	tc_eq "dumb mem_types (TTM_PL_SYSTEM)" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$d_pid" | sort -u)" 0
	stop d
else
	tc_fail "helper failed: $(helper_why d)"
fi
tc_end

# --- comm with blanks is escaped like /proc/mounts -----------------------------------
tc_begin comm-escaped
if spawn e alloc -d qxl -k vram -n 1 -s 64K -c 'gm sp	ace'; then
	proc_check "$e_pid" "$qxl" comm="$(gm_escape 'gm sp	ace')" vram=65536 bos=1
	stop e
else
	tc_fail "helper failed: $(helper_why e)"
fi
tc_end

finish
