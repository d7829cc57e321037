#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bochs: a dumb buffer shown on a CRTC is pinned. On 6.1/6.12 bochs uses
# drm_gem_vram_helper (TTM): the pinned buffer is in TTM_PL_VRAM, an unshown
# dumb buffer stays in TTM_PL_SYSTEM. On 7.x bochs is GEM-shmem: both are
# "system" with mem_type "-".
. "$(dirname "$0")/lib.sh"
require_gpumem

bochs=$(card_of bochs)
if [ -z "$bochs" ]; then
	skip bochs-scanout "no bochs device in this guest"
	skip bochs-dumb-unpinned "no bochs device in this guest"
	finish
fi

ttm=$(bochs_expect_ttm)
if [ -z "$ttm" ]; then
	# A kernel this suite has no table for: follow the devices file, say so.
	ttm=$(dev_field "$bochs" vram ttm)
	[ "$ttm" = yes ] || ttm=no
	log "kernel $(uname -r): no bochs expectation, devices file says ttm=$ttm"
fi
if [ "$ttm" = yes ]; then
	pinned_region=vram pinned_type=2 unpinned_type=0
else
	pinned_region=system pinned_type=- unpinned_type=-
fi

tc_begin bochs-scanout
scanout_up=no
if spawn s alloc -d bochs -k scanout -c gm-scanout; then
	scanout_up=yes
	size=$(out_bo s 0 size)
	log "scanout: $(grep '^SCANOUT' "$(out_of s)") size=$size"
	tc_num -ge "scanout buffer size" "$(num "$size")" 4096
	vram=0 system=0
	if [ "$pinned_region" = vram ]; then vram=$size; else system=$size; fi
	proc_check "$s_pid" "$bochs" vram="$vram" gtt=0 system="$system" other=0 \
		shared=0 owned="$size" bos=1
	snap buffers
	tc_eq "scanout buffer row" \
		"$(tbl_get "$GM_TMP/buffers" - owner="$s_pid" | cut -d' ' -f1,4-)" \
		"$bochs $size $pinned_region $pinned_type no $s_pid"
	if [ "$ttm" = yes ]; then
		tc_num -ge "$bochs vram used" "$(dev_field "$bochs" vram used)" "$(num "$size")"
	fi
else
	tc_fail "helper failed: $(helper_why s)"
fi
tc_end

# While the scanout is held: a plain dumb buffer is not pinned.
tc_begin bochs-dumb-unpinned
if spawn u alloc -d bochs -k dumb -n 1 -s 1M -c gm-unpinned; then
	usize=$(out_bo u 0 size)
	tc_eq "dumb size as printed" "$usize" "$MiB"
	proc_check "$u_pid" "$bochs" vram=0 gtt=0 system="$usize" other=0 owned="$usize" bos=1
	snap buffers
	tc_eq "unpinned mem_type" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$u_pid")" "$unpinned_type"
else
	tc_fail "helper failed: $(helper_why u)"
fi
tc_end

# Dropping the scanout: the process and its buffer are gone.
tc_begin bochs-scanout-exit
if [ "$scanout_up" = yes ]; then
	tc_eq "rows for pid $s_pid before its exit" "$(pid_rows "$s_pid")" 1
	stop s
	wait_until 5 pid_gone "$s_pid" || tc_fail "pid $s_pid still listed 5 s after exit"
	tc_end
else
	tc_skip "scanout helper did not start"
fi

finish
