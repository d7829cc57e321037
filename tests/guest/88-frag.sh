#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Fragmentation (debugfs `fragmentation`): the free space of qxl's VRAM
# region (its VRAM and surface managers: TTM range managers, drm_mm in pages)
# against the driver's own dumps of the same managers
# (/sys/kernel/debug/dri/<minor>/qxl_mem_mm and qxl_surf_mm), read at the
# same moment, with and without holes made by the test: eight 1 MiB buffers
# in eight processes, every other process killed.
. "$(dirname "$0")/lib.sh"
require_gpumem
. "$(dirname "$0")/quota-lib.sh"	# the event watcher

CASES="frag-matches-driver frag-holes frag-denial-event frag-holes-close"
qxl=$(card_of qxl)
if [ -z "$qxl" ]; then
	for t in $CASES; do fail "$t" "no qxl card in this guest (run-guest.sh attaches qxl)"; done
	finish
fi
dri=/sys/kernel/debug/dri/${qxl#card}
# The console's blinking cursor makes qxl draw, and allocate release buffers
# for it, several times a second: off while this script compares the
# managers' free space as gpumem and the driver print it.
blink=/sys/class/graphics/fbcon/cursor_blink
blink0=$(cat "$blink" 2>/dev/null)
[ -n "$blink0" ] && echo 0 >"$blink"
trap '[ -n "$blink0" ] && echo "$blink0" >"$blink"; _gm_cleanup' EXIT

# frag_sum: "free largest blocks" in bytes of drm_mm dump lines on stdin
# ("<start>-<end>: <pages>: free"; qxl's managers count in pages).
frag_sum() {
	awk '/: free$/ { n = split($0, p, ": "); s = p[n - 1] * 4096
		free += s; blocks++; if (s > largest) largest = s }
		END { printf "%d %d %d\n", free, largest, blocks }'
}

# drv_frag [FILE...]: frag_sum of the driver's dumps of its VRAM-region
# managers; default: both of them.
drv_frag() {
	[ $# -gt 0 ] || set -- "$dri/qxl_mem_mm" "$dri/qxl_surf_mm"
	for f in "$@"; do
		[ -r "$f" ] || { echo "no $f" >&2; return 1; }
	done
	cat "$@" | frag_sum
}

# frag_now: FRAG_GM = "free largest blocks ratio age_ms" of the qxl vram row
# of debugfs `fragmentation`, FRAG_DRV = the driver's dumps, read by one
# `cat` back to back (qxl makes and frees release buffers for its console
# all the time: between two processes the dumps may differ), at least a
# second after the previous reading (the module reads the managers at most
# once a second). Up to 3 tries until both agree.
frag_now() {
	_i=0
	while [ $_i -lt 3 ]; do
		sleep 1.1
		cat "$GM_DEBUGFS/fragmentation" "$dri/qxl_mem_mm" "$dri/qxl_surf_mm" >"$GM_TMP/frag.all" 2>&1
		sed -n '1,/^[^0-9a-z]/p' "$GM_TMP/frag.all" | grep -v '^ ' >"$GM_TMP/fragmentation"
		FRAG_GM=$(tbl_get "$GM_TMP/fragmentation" - device="$qxl" region=vram | cut -d' ' -f3-)
		FRAG_DRV=$(frag_sum <"$GM_TMP/frag.all")
		[ "$(echo "$FRAG_GM" | cut -d' ' -f1-3)" = "$FRAG_DRV" ] && return 0
		log "gpumem '$FRAG_GM' vs driver '$FRAG_DRV': reading again"
		_i=$((_i + 1))
	done
	return 1
}

# ratio_of FREE LARGEST: 1 - largest / free as the module prints it.
ratio_of() {
	if [ "$1" -eq 0 ] || [ "$2" -ge "$1" ]; then echo 0.000000; return; fi
	_ppm=$((1000000 - $2 * 1000000 / $1))
	printf '%d.%06d\n' $((_ppm / 1000000)) $((_ppm % 1000000))
}

# dbg_frag: "free largest blocks" of the qxl vram row of debugfs.
dbg_frag() {
	snap fragmentation
	tbl_get "$GM_TMP/fragmentation" - device="$qxl" region=vram | cut -d' ' -f3-5
}

# ctl_frag: "free largest blocks" of the qxl vram region from netlink
# (gpumemctl devices --json) between two debugfs reads: one reading of the
# managers serves every request within its second, so netlink's figures are
# those of the debugfs read before it (gpumemctl asked within that second)
# or of the one after it (gpumemctl, slow to start on the debug kernel,
# made the next reading, which the read after it gets).
ctl_frag() {
	sleep 1.1
	DBG_FRAG=$(dbg_frag)
	CTL_FRAG=$("$CTL" devices --json 2>&1 | grep -F "\"name\":\"$qxl\"" |
		sed -n 's/.*"region":"vram"[^}]*"largest_free":\([0-9]*\),"free_blocks":\([0-9]*\),"free_blocks_bytes":\([0-9]*\).*/\3 \1 \2/p')
	[ -n "$CTL_FRAG" ] || return 1
	[ "$CTL_FRAG" = "$DBG_FRAG" ] && return 0
	DBG_FRAG=$(dbg_frag)
	[ "$CTL_FRAG" = "$DBG_FRAG" ]
}

tc_begin frag-matches-driver
if frag_now; then
	set -- $FRAG_GM
	tc_eq "free largest blocks = the driver's dumps" "$1 $2 $3" "$FRAG_DRV"
	tc_eq "ratio" "$4" "$(ratio_of "$(num "$1")" "$(num "$2")")"
	tc_num -le "age_ms right after a fresh reading" "$5" 500
	tc_num -gt "largest (qxl's VRAM is not full)" "$2" 0
else
	tc_fail "gpumem '$FRAG_GM' and the driver's dumps '$FRAG_DRV' differ three times in a row"
fi
_i=0
until ctl_frag || [ $_i -ge 4 ]; do _i=$((_i + 1)); done
tc_eq "netlink (gpumemctl devices --json) free_blocks_bytes largest_free free_blocks = debugfs" \
	"$CTL_FRAG" "$DBG_FRAG"
tc_end

# Eight 1 MiB buffers, one per process; then every other process goes.
# qxl allocates buffers for itself at any time (17-page release buffers,
# 1-page cursor and command buffers, 769-page console images), so where the
# eight land, and what else changes meanwhile, is the driver's business:
# the driver's dump shows the 1 MiB (256-page) buffers go and come, and
# gpumem's figures must equal the driver's at that same moment.

# used_1m: how many 1 MiB nodes qxl's VRAM manager holds (qxl makes none).
used_1m() { grep -c ': 256: used$' "$dri/qxl_mem_mm"; }

tc_begin frag-holes
n0=$(used_1m)
ok=yes
for i in 0 1 2 3 4 5 6 7; do
	spawn "h$i" alloc -d qxl -k vram -n 1 -s 1M -c "gm-frag$i" || { ok=no; break; }
done
if [ $ok = no ]; then
	tc_fail "helper failed: $(helper_why "h$i")"
else
	n8=$(used_1m)
	tc_eq "1 MiB nodes in qxl_mem_mm with the eight buffers" "$n8" "$((n0 + 8))"
	if frag_now; then
		with8=$FRAG_GM
		for i in 0 2 4 6; do stop "h$i"; done
		tc_eq "1 MiB nodes in qxl_mem_mm after four of them went" "$(used_1m)" "$((n0 + 4))"
		if frag_now; then
			set -- $FRAG_GM
			tc_eq "free largest blocks = the driver's dumps with the holes" "$1 $2 $3" "$FRAG_DRV"
			tc_eq "ratio" "$4" "$(ratio_of "$(num "$1")" "$(num "$2")")"
			set -- $with8
			w8_free=$(num "$1")
			set -- $FRAG_GM
			tc_num -gt "free grew with the four holes (from $w8_free)" "$1" "$w8_free"
		else
			tc_fail "with four holes: gpumem '$FRAG_GM' and the driver '$FRAG_DRV' differ"
		fi
	else
		tc_fail "with eight buffers: gpumem '$FRAG_GM' and the driver '$FRAG_DRV' differ"
	fi
fi
tc_end

# With the holes: a buffer one page larger than the VRAM manager's largest
# hole but not larger than its free bytes finds no block although the
# manager has the room: exactly that request is reported as a
# fragmented-denial event (TTM then evicts to make room, or fails: either
# is fine here).
tc_begin frag-denial-event
quota_setup
set -- $(drv_frag "$dri/qxl_mem_mm")
vfree=$(num "$1") vlargest=$(num "$2")
vcap=$(($(awk '$1 == "size:" { print $2; exit }' "$dri/qxl_mem_mm") * 4096))
want=$((vlargest + 4096))
if [ "$vfree" -lt "$want" ]; then
	tc_fail "precondition: qxl's VRAM manager has $vfree bytes free, its largest hole $vlargest: no room for the test"
else
	m=$(w_mark)
	spawn_cmd big "$GM_ALLOC" alloc -d qxl -k vram -n 1 -s "$want" -c gm-frag-big -t "$GM_HOLD" ||
		log "the $want-byte buffer was not made ($(helper_why big)): fine, the event is what counts"
	w_since "$m"
	line=$(echo "$ev" | grep '"type":"fragmented-denial"' | grep "\"requested\":$want[,}]")
	# TTM asks the manager again after evicting: still one event
	tc_eq "fragmented-denial events for the request" "$(echo "$line" | grep -c .)" 1
	line=$(echo "$line" | head -n 1)
	if [ -z "$line" ]; then
		tc_fail "no fragmented-denial event for $want bytes (free $vfree, largest $vlargest)"
	else
		ev_check "$line" device="$qxl" region=vram requested="$want" limit="$vcap" \
			pid="$big_pid" comm=gm-frag-big denied=false
	fi
	stop big
fi
tc_end

# The other four go.
tc_begin frag-holes-close
for i in 1 3 5 7; do stop "h$i"; done
if [ -z "${n0:-}" ]; then
	tc_fail "frag-holes did not set up its buffers"
else
	tc_eq "1 MiB nodes in qxl_mem_mm once all eight went" "$(used_1m)" "$n0"
	if frag_now; then
		set -- $FRAG_GM
		tc_eq "free largest blocks = the driver's dumps" "$1 $2 $3" "$FRAG_DRV"
	else
		tc_fail "after: gpumem '$FRAG_GM' and the driver '$FRAG_DRV' differ"
	fi
fi
tc_end

finish
