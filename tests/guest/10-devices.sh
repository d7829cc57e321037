#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devices / stats: the format, every DRM card listed with the right driver,
# unique name and TTM flag, the capacities the guest was configured with,
# used/free moving by exactly this test's own placement (bochs), the walk
# counter moving by exactly the reads this test makes, and pid 0's fbdev
# buffers (6.1) sized by fbdev itself.
. "$(dirname "$0")/lib.sh"
require_gpumem
orphan_events_off	# this script counts walks exactly

# Guest configuration the harness uses (scripts/): override if it changes.
QXL_RAM_MB=${GM_QXL_RAM_MB:-64}		# -device qxl-vga,ram_size_mb=64
QXL_VRAM_MB=${GM_QXL_VRAM_MB:-64}	# vram_size_mb=64 (vgamem_mb=16 lies inside BAR0)
BOCHS_VGAMEM=${GM_BOCHS_VGAMEM:-16777216}	# -device bochs-display (vgamem default 16 MiB)

# --- format: documented header, same number of fields on every row ----------
for f in devices processes buffers stats; do
	tc_begin "format-$f"
	snap "$f"
	eval "want=\$GM_HDR_$f"
	tc_eq "$f header" "$(head -n 1 "$GM_TMP/$f")" "$want"
	bad=$(awk 'NR == 1 { n = NF; next } NF != n { print "line " NR " has " NF " fields, header " n; exit }' "$GM_TMP/$f")
	tc_eq "$f field counts" "$bad" ""
	tc_end
done

# --- every card, and nothing else ------------------------------------------
"$GM_ALLOC" list >"$GM_TMP/cards" 2>/dev/null
ncards=$(wc -l <"$GM_TMP/cards" | tr -d ' ')
snap devices

tc_begin devices-cards
[ "$ncards" -gt 0 ] || tc_fail "no /dev/dri/card* could be opened in the guest"
while read -r card drv; do
	unique=$(basename "$(readlink "/sys/class/drm/$card/device")")
	tc_eq "$card driver" "$(tbl_get "$GM_TMP/devices" driver device="$card" | sort -u)" "$drv"
	tc_eq "$card unique" "$(tbl_get "$GM_TMP/devices" unique device="$card" | sort -u)" "$unique"
done <"$GM_TMP/cards"
extra=$(tbl_get "$GM_TMP/devices" device | sort -u | while read -r d; do
	grep -q "^$d " "$GM_TMP/cards" || echo "$d"
done | tr '\n' ' ')
tc_eq "devices not in /dev/dri" "$extra" ""
tc_eq "stats devices" "$(stat_value devices)" "$ncards"
tc_end

# --- TTM flag per driver ---------------------------------------------------
tc_begin devices-ttm-flag
bochs_ttm=$(bochs_expect_ttm)
while read -r card drv; do
	case $drv in
	qxl) want=yes ;;
	bochs*) want=$bochs_ttm ;;
	vgem | virtio_gpu) want=no ;;
	*) want="" ;;
	esac
	got=$(tbl_get "$GM_TMP/devices" ttm device="$card" | sort -u)
	if [ -n "$want" ]; then
		tc_eq "$card ($drv) ttm" "$got" "$want"
	else
		log "  $card ($drv): ttm=$got (no expectation for this driver/kernel)"
	fi
	if [ "$want" = no ]; then
		tc_eq "$card ($drv) rows" "$(tbl_get "$GM_TMP/devices" - device="$card" | cut -d' ' -f5-)" \
			"system - - -"
	fi
done <"$GM_TMP/cards"
tc_end

# --- used / free follow this test's own placement -----------------------------
# bochs' VRAM (drm_gem_vram_helper: 6.1 and 6.12) holds the
# fbdev console's buffer and nothing that comes and goes by itself: a pinned
# scanout buffer of S bytes (the size the dumb ioctl returned) moves used up
# by exactly S and free down by exactly S from a baseline read just before,
# and both come back once it is gone. (used + free = capacity on one line
# proves nothing: gpumem prints free as capacity - used.) qxl's used is no
# witness: its own release, image and console buffers come and go by MiB
# (tests 20 and 83 check qxl through the per-process views). On 7.x bochs is
# a GEM-shmem driver and there is no other TTM device in the guest.
tc_begin devices-used-free
bochs=$(card_of bochs)
# used_free CARD: "used free" of CARD's vram row, one read
used_free() { snap devices; tbl_get "$GM_TMP/devices" - device="$1" region=vram | cut -d' ' -f7,8; }
if [ -z "$bochs" ]; then
	tc_fail "no bochs card in this guest (run-guest.sh attaches bochs-display)"
	tc_end
elif [ "$bochs_ttm" != yes ]; then
	tc_skip "no bochs device with TTM VRAM on this kernel"
else
	uf=$(used_free "$bochs")
	used0=${uf%% *} free0=${uf#* }
	log "  $bochs before: used ${used0:-?} free ${free0:-?}"
	if spawn sc alloc -d bochs -k scanout -c gm-dev-scanout; then
		S=$(num "$(out_bo sc 0 size)")
		uf=$(used_free "$bochs")
		used1=${uf%% *} free1=${uf#* }
		tc_eq "$bochs used with the ${S}-byte scanout (before: $used0)" "$used1" "$(($(num "$used0") + S))"
		tc_eq "$bochs free with the ${S}-byte scanout (before: $free0)" "$free1" "$(($(num "$free0") - S))"
		stop sc
		back() { [ "$(used_free "$bochs")" = "$used0 $free0" ]; }
		wait_until 10 back ||
			tc_fail "$bochs used/free 10 s after the scanout was freed: '$(used_free "$bochs")', want '$used0 $free0'"
	else
		tc_fail "scanout helper failed: $(helper_why sc)"
	fi
	tc_end
fi

# --- qxl capacity ---------------------------------------------------------
# Where qxl's TTM managers come from (drivers/gpu/drm/qxl/qxl_kms.c, qxl_ttm.c;
# QEMU hw/display/qxl.c init_qxl_rom / qxl_init_ramsize / qxl_realize_common):
#  * BAR0 is the qxl "ram" (ram_size_mb=64): surface0 (vgamem_mb=16, the VGA /
#    primary area), the IO pages and, at its very end, the QXLRam header.
#    QEMU: rom->ram_header_offset = BAR0 size - ALIGN(sizeof(QXLRam), 4096);
#    sizeof(struct qxl_ram_header) = 5412 -> the header takes 8192 bytes.
#    qxl_ttm_init(): TTM_PL_VRAM = ram_header_offset / PAGE_SIZE pages
#      = (64 MiB - 8 KiB) = 16382 pages = 67100672 bytes (surface0 included).
#  * BAR1 is the 32-bit surface "vram" (vram_size_mb=64). BAR4 (64-bit) only
#    exists when vram64_size_mb > vram_size_mb, not here; qxl uses BAR4 if
#    present, else BAR1: TTM_PL_PRIV = 64 MiB = 16384 pages = 67108864 bytes.
#  * vgamem_mb=16 is not a manager of its own (it is the first part of BAR0).
#  Both managers are device memory (kernel-facts: qxl VRAM + PRIV), so the one
#  qxl "vram" row must report capacity = 67100672 + 67108864 = 134209536.
#  (The range manager's man->size is in pages: gpumem must report bytes.)
tc_begin qxl-capacity
qxl=$(card_of qxl)
if [ -z "$qxl" ]; then
	tc_fail "no qxl card in this guest (run-guest.sh attaches qxl-vga)"
	tc_end
else
	bar0=$(pci_bar_size "$qxl" 0)
	bar1=$(pci_bar_size "$qxl" 1)
	bar4=$(pci_bar_size "$qxl" 4)
	tc_eq "$qxl BAR0 (ram) bytes" "$bar0" $((QXL_RAM_MB * MiB))
	tc_eq "$qxl BAR1 (vram32) bytes" "$bar1" $((QXL_VRAM_MB * MiB))
	surf=$bar1
	[ "$bar4" -gt 0 ] && surf=$bar4
	vram_mgr=$((bar0 - 8192))
	want=$((vram_mgr + surf))
	tc_eq "$qxl vram rows" "$(tbl_count "$GM_TMP/devices" device="$qxl" region=vram)" 1
	got=$(tbl_get "$GM_TMP/devices" capacity device="$qxl" region=vram)
	tc_eq "$qxl vram capacity (TTM_PL_VRAM $vram_mgr + TTM_PL_PRIV $surf)" "$got" "$want"
	tc_end
fi

# --- bochs capacity --------------------------------------------------------
# bochs (drivers/gpu/drm/tiny/bochs.c): fb_size = min(BAR0 size, VBE video
# memory) = the bochs-display "vgamem" (16 MiB), handed whole to
# drmm_vram_helper_init() -> one TTM_PL_VRAM range manager of 4096 pages.
# On 7.x bochs is a GEM-shmem driver: no TTM, a single "system - - -" row.
tc_begin bochs-capacity
bochs=$(card_of bochs)
if [ -z "$bochs" ]; then
	tc_fail "no bochs card in this guest (run-guest.sh attaches bochs-display)"
	tc_end
elif [ "$(bochs_expect_ttm)" = no ]; then
	tc_eq "$bochs rows" "$(tbl_get "$GM_TMP/devices" - device="$bochs" | cut -d' ' -f4-)" \
		"no system - - -"
	tc_end
else
	bar0=$(pci_bar_size "$bochs" 0)
	tc_eq "$bochs BAR0 bytes" "$bar0" "$BOCHS_VGAMEM"
	tc_eq "$bochs vram capacity" "$(tbl_get "$GM_TMP/devices" capacity device="$bochs" region=vram)" \
		"$BOCHS_VGAMEM"
	tc_end
fi

# --- stats: every open of a table walks once -------------------------------------
# processes and buffers take one walk per open; devices (the device rows
# only), stats and charged (allocation-time counters, docs/debugfs.md) take
# none (devices took one before issue 22). Nothing else reads
# these files while this script runs: the counter moves by exactly what this
# case reads.
tc_begin stats-walks
snap stats
w0=$(tbl_get "$GM_TMP/stats" value name=walks)
f0=$(tbl_get "$GM_TMP/stats" value name=walks_failed)
tc_eq "walks after reading stats again" "$(stat_value walks)" "$w0"
for _i in 1 2 3; do cat "$GM_DEBUGFS/processes" >/dev/null; done
tc_eq "walks after 3 reads of processes" "$(stat_value walks)" "$(($(num "$w0") + 3))"
for _i in 1 2; do cat "$GM_DEBUGFS/buffers" >/dev/null; done
cat "$GM_DEBUGFS/devices" >/dev/null
tc_eq "walks after 2 reads of buffers and 1 of devices" "$(stat_value walks)" "$(($(num "$w0") + 5))"
for _i in 1 2; do cat "$GM_DEBUGFS/charged" >/dev/null; done
snap stats
tc_eq "walks after 2 reads of charged" "$(tbl_get "$GM_TMP/stats" value name=walks)" "$(($(num "$w0") + 5))"
tc_eq "walks_failed" "$(tbl_get "$GM_TMP/stats" value name=walks_failed)" "$f0"
tc_num -gt "last_walk_ns" "$(tbl_get "$GM_TMP/stats" value name=last_walk_ns)" 0
tc_end

# --- pid 0 collects in-kernel clients -------------------------------------------
# Before 6.12 the fbdev emulation's client keeps the GEM handle of its buffer
# in its internal file (drm_client_buffer_create() on 6.1): one "[kernel]"
# row per card with an fbdev, holding exactly that buffer. Its size comes
# from fbdev, not from gpumem: the dumb buffer of line_length x yres_virtual
# bytes rounded up to the page (qxl, virtio-gpu, drm_gem_vram dumb_create).
# On 6.12 and 7.x drm_client_framebuffer_create() destroys the handle once
# the framebuffer exists: no in-kernel client holds a buffer, pid 0 has no
# row (a SKIP with a fixed reason; a pid 0 row there is a FAIL).
tc_begin kernel-clients
snap processes
if [ "$(kernel_mm)" -ge 612 ]; then
	k0=$(tbl_get "$GM_TMP/processes" - pid=0)
	if [ -z "$k0" ]; then
		tc_skip "no in-kernel DRM client holds a buffer here (6.12+: the fbdev client drops its buffer's handle)"
	else
		tc_fail "pid 0 rows on $(uname -r), where no in-kernel client keeps a handle: $(_oneline "$k0")"
		tc_end
	fi
else
	want_cards=""
	for fb in /sys/class/graphics/fb[0-9]*; do
		[ -e "$fb/device" ] || continue
		fbdev=$(readlink -f "$fb/device")
		card=$(while read -r c _; do
			[ "$(readlink -f "/sys/class/drm/$c/device")" = "$fbdev" ] && echo "$c"
		done <"$GM_TMP/cards" | head -n 1)
		[ -n "$card" ] || continue
		stride=$(cat "$fb/stride") vsize=$(cat "$fb/virtual_size")
		bytes=$(( ($(num "$stride") * $(num "${vsize#*,}") + 4095) / 4096 * 4096 ))
		log "  ${fb##*/} on $card: stride $stride, virtual size $vsize: $bytes bytes"
		want_cards="$want_cards $card"
		row=$(tbl_get "$GM_TMP/processes" - pid=0 device="$card")
		# pid comm cgroup_id cgroup device vram gtt system other shared owned bos
		tc_eq "$card pid 0 row: comm cgroup_id cgroup" "$(echo "$row" | cut -d' ' -f2-4)" "[kernel] 0 -"
		tc_eq "$card pid 0 bytes (vram+gtt+system+other)" \
			"$(echo "$row" | awk '{ print $6 + $7 + $8 + $9 }')" "$bytes"
		tc_eq "$card pid 0 shared owned bos" "$(echo "$row" | cut -d' ' -f10-)" "0 $bytes 1"
	done
	[ -n "$want_cards" ] || tc_fail "no fbdev of a DRM card in /sys/class/graphics"
	tc_eq "cards with a pid 0 row" "$(tbl_get "$GM_TMP/processes" device pid=0 | sort | tr '\n' ' ')" \
		"$(echo "$want_cards" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')"
	tc_end
fi

finish
