#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Non-TTM drivers (vgem, virtio-gpu): every object is "system", mem_type "-",
# and the device has one "system - - -" row with ttm=no.
. "$(dirname "$0")/lib.sh"
require_gpumem

for drv in vgem virtio_gpu; do
	tc_begin "nontm-$drv"
	card=$(card_of "$drv")
	if [ -z "$card" ]; then
		tc_fail "no $drv card in this guest (the guest modprobes vgem; run-guest.sh attaches virtio-gpu-pci)"
		tc_end
		continue
	fi
	if ! spawn "h_$drv" alloc -d "$drv" -k dumb -n 3 -s 1M -c "gm-$drv"; then
		tc_fail "helper failed: $(helper_why "h_$drv")"
		tc_end
		continue
	fi
	eval "pid=\$h_${drv}_pid"
	bytes=$(awk '$1 == "BO" { sub("size=", "", $4); s += $4 } END { print s + 0 }' "$(out_of "h_$drv")")
	tc_eq "3 dumb buffers of 1 MiB as printed" "$bytes" $((3 * MiB))
	proc_check "$pid" "$card" vram=0 gtt=0 system="$bytes" other=0 shared=0 owned="$bytes" bos=3
	snap devices
	tc_eq "$card device rows" "$(tbl_get "$GM_TMP/devices" - device="$card" | cut -d' ' -f4-)" \
		"no system - - -"
	snap buffers
	tc_eq "rows owned by $pid" "$(tbl_count "$GM_TMP/buffers" owner="$pid" device="$card")" 3
	tc_eq "regions" "$(tbl_get "$GM_TMP/buffers" region owner="$pid" | sort -u)" system
	tc_eq "mem_types" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$pid" | sort -u)" -
	tc_eq "sizes" "$(tbl_get "$GM_TMP/buffers" size owner="$pid" | sort -u)" "$MiB"
	tc_eq "handles" "$(tbl_get "$GM_TMP/buffers" handle owner="$pid" | sort -n | tr '\n' ' ')" \
		"$(out_handles "h_$drv")"
	stop "h_$drv"
	tc_end
done

finish
