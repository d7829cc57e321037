#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# processes / buffers for private qxl buffers: VRAM (DRM_IOCTL_QXL_ALLOC),
# surfaces (TTM_PL_PRIV) and dumb buffers (TTM_PL_SYSTEM), per process.
. "$(dirname "$0")/lib.sh"
require_gpumem

qxl=$(card_of qxl)
if [ -z "$qxl" ]; then
	for t in qxl-vram-process qxl-vram-buffers qxl-vram-device-used qxl-two-processes \
		qxl-surface qxl-dumb-system comm-escaped; do
		skip "$t" "no qxl device in this guest"
	done
	finish
fi

# Sum of the sizes a helper printed for its BO lines.
printed_bytes() { awk '$1 == "BO" { sub("size=", "", $4); s += $4 } END { print s + 0 }' "$(out_of "$1")"; }

# --- one process, 3 x 1 MiB in the VRAM domain ------------------------------------
tc_begin qxl-vram-process
if ! spawn a alloc -d qxl -k vram -n 3 -s 1M -c gm-vram; then
	tc_fail "helper failed: $(helper_why a)"
	tc_end
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

# The device's usage covers every VRAM buffer userspace holds. (qxl's own
# release buffers and fbdev image come and go by hundreds of pages a second
# while the console blinks, so a before/after delta of "used" is not exact.)
tc_begin qxl-vram-device-used
snap devices
snap buffers
used=$(tbl_get "$GM_TMP/devices" used device="$qxl" region=vram)
held=$(tbl_get "$GM_TMP/buffers" size device="$qxl" region=vram | awk '{ s += $1 } END { print s + 0 }')
tc_num -ge "$qxl vram used" "$used" "$held"
tc_num -ge "$qxl vram held in buffers" "$held" "$bytes"
tc_end

# --- a second process is accounted separately ----------------------------------
tc_begin qxl-two-processes
if spawn b alloc -d qxl -k vram -n 2 -s 512K -c gm-vram-b; then
	bbytes=$(printed_bytes b)
	tc_eq "2 x 512 KiB as printed" "$bbytes" "$MiB"
	proc_check "$b_pid" "$qxl" comm=gm-vram-b vram="$bbytes" shared=0 owned="$bbytes" bos=2
	proc_check "$a_pid" "$qxl" vram="$bytes" owned="$bytes" bos=3
	tc_num -ge "stats last_walk_bos" "$(stat_value last_walk_bos)" 5
	tc_num -ge "stats last_walk_clients" "$(stat_value last_walk_clients)" 2
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
