#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devices / stats: the format, every DRM card listed with the right driver,
# unique name and TTM flag, and the capacities the guest was configured with.
. "$(dirname "$0")/lib.sh"
require_gpumem

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

# --- used + free = capacity on every TTM row -----------------------------------
tc_begin devices-used-free
rows=$(tbl_count "$GM_TMP/devices" ttm=yes)
ttm_cards=$(awk -v b="$bochs_ttm" '$2 == "qxl" || ($2 ~ /^bochs/ && b == "yes")' "$GM_TMP/cards" | wc -l | tr -d ' ')
if [ "$rows" -eq 0 ] && [ "$ttm_cards" -eq 0 ]; then
	tc_skip "no TTM device in this guest"
elif [ "$rows" -eq 0 ]; then
	tc_fail "$ttm_cards TTM card(s) in the guest, no ttm=yes row"
	tc_end
else
	tbl_get "$GM_TMP/devices" - ttm=yes >"$GM_TMP/ttmrows"
	while read -r d _ _ _ region cap used free; do
		case "$cap$used$free" in
		*[!0-9]*) tc_fail "$d $region: non-numeric capacity/used/free '$cap $used $free'"; continue ;;
		esac
		tc_eq "$d $region used+free" "$((used + free))" "$cap"
	done <"$GM_TMP/ttmrows"
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
	tc_skip "no qxl device in this guest"
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
	tc_skip "no bochs device in this guest"
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

# --- stats: every open of a file walks ----------------------------------------
tc_begin stats-walks
w1=$(stat_value walks)
cat "$GM_DEBUGFS/processes" >/dev/null
w2=$(stat_value walks)
tc_num -ge "walks before" "$w1" 0
tc_num -gt "walks after reading processes" "$w2" "$w1"
tc_num -ge "last_walk_ns" "$(stat_value last_walk_ns)" 0
tc_end

# --- pid 0 collects in-kernel clients -------------------------------------------
tc_begin kernel-clients
snap processes
comms=$(tbl_get "$GM_TMP/processes" comm pid=0 | sort -u)
if [ -z "$comms" ]; then
	tc_skip "no in-kernel DRM client holds a buffer here"
else
	tc_eq "comm of pid 0" "$comms" "[kernel]"
	tc_end
fi

finish
