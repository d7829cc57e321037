#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bochs: a dumb buffer shown on a CRTC is pinned. On 6.1/6.12 bochs uses
# drm_gem_vram_helper (TTM): the pinned buffer is in TTM_PL_VRAM, an unshown
# dumb buffer stays in TTM_PL_SYSTEM. On 7.x bochs is GEM-shmem: both are
# "system" with mem_type "-".
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="bochs-scanout bochs-dumb-unpinned bochs-scanout-exit"
bochs=$(card_of bochs)
if [ -z "$bochs" ]; then
	for t in $CASES; do fail "$t" "no bochs card in this guest (run-guest.sh attaches bochs-display)"; done
	finish
fi

# The expectation comes from the kernel version, never from gpumem's own
# devices file.
ttm=$(bochs_expect_ttm)
if [ -z "$ttm" ]; then
	for t in $CASES; do fail "$t" "kernel $(uname -r): bochs_expect_ttm (lib.sh) does not know whether bochs uses TTM here"; done
	finish
fi
if [ "$ttm" = yes ]; then
	pinned_region=vram pinned_type=2 unpinned_type=0
else
	pinned_region=system pinned_type=- unpinned_type=-
fi

# bochs' VRAM (TTM) holds the fbdev console's buffer and nothing that comes
# and goes by itself: its used moves by exactly what this script pins.
bochs_used() { dev_field "$bochs" vram used; }

tc_begin bochs-scanout
scanout_up=no
[ "$ttm" = yes ] && used0=$(bochs_used)
if spawn s alloc -d bochs -k scanout -c gm-scanout; then
	scanout_up=yes
	size=$(out_bo s 0 size)
	mode=$(out_val s SCANOUT mode)
	log "scanout: $(grep '^SCANOUT' "$(out_of s)") size=$size"
	# a dumb buffer of the mode at 32 bpp: width x 4 bytes a row (bochs
	# needs no pitch alignment), height rows, rounded up to the page
	w=${mode%%x*} h=${mode#*x}
	tc_eq "scanout buffer size for mode $mode" "$size" "$(( ($(num "$w") * 4 * $(num "$h") + 4095) / 4096 * 4096 ))"
	vram=0 system=0
	if [ "$pinned_region" = vram ]; then vram=$size; else system=$size; fi
	proc_check "$s_pid" "$bochs" vram="$vram" gtt=0 system="$system" other=0 \
		shared=0 owned="$size" bos=1
	snap buffers
	tc_eq "scanout buffer row" \
		"$(tbl_get "$GM_TMP/buffers" - owner="$s_pid" | cut -d' ' -f1,4-)" \
		"$bochs $size $pinned_region $pinned_type no $s_pid"
	if [ "$ttm" = yes ]; then
		tc_eq "$bochs vram used: $used0 before + the scanout" "$(bochs_used)" \
			"$(($(num "$used0") + $(num "$size")))"
	fi
else
	tc_fail "helper failed: $(helper_why s)"
fi
tc_end

# While the scanout is held: a plain dumb buffer is not pinned, and (TTM)
# the device's VRAM does not move.
tc_begin bochs-dumb-unpinned
[ "$ttm" = yes ] && uused0=$(bochs_used)
if spawn u alloc -d bochs -k dumb -n 1 -s 1M -c gm-unpinned; then
	usize=$(out_bo u 0 size)
	tc_eq "dumb size as printed" "$usize" "$MiB"
	proc_check "$u_pid" "$bochs" vram=0 gtt=0 system="$usize" other=0 owned="$usize" bos=1
	snap buffers
	tc_eq "unpinned mem_type" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$u_pid")" "$unpinned_type"
	[ "$ttm" = yes ] && tc_eq "$bochs vram used with the unpinned buffer" "$(bochs_used)" "$uused0"
else
	tc_fail "helper failed: $(helper_why u)"
fi
tc_end

# Dropping the scanout: the process and its buffer are gone, and (TTM) the
# device's VRAM is back to what it was before the scanout.
tc_begin bochs-scanout-exit
if [ "$scanout_up" = yes ]; then
	tc_eq "rows for pid $s_pid before its exit" "$(pid_rows "$s_pid")" 1
	snap buffers
	tc_eq "buffers rows of pid $s_pid before its exit" "$(tbl_count "$GM_TMP/buffers" owner="$s_pid")" 1
	stop s
	wait_until 5 pid_gone "$s_pid" || tc_fail "pid $s_pid still listed 5 s after exit"
	if [ "$ttm" = yes ]; then
		used_back() { [ "$(bochs_used)" = "$used0" ]; }
		wait_until 10 used_back ||
			tc_fail "$bochs vram used is $(bochs_used) 10 s after the scanout's exit, $used0 before it"
	fi
else
	tc_fail "the scanout helper of bochs-scanout did not start"
fi
tc_end

finish
