#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Churn: background readers loop over processes, buffers, devices (and stats)
# while, round after round,
#   (a) processes allocating qxl VRAM / vgem dumb buffers are SIGKILLed, some
#       before they opened the device, some mid-allocation, some while holding,
#   (b) PRIME exporters and importers come and go (SIGKILL or SIGTERM, in
#       random order),
#   (c) bochs is unbound from and bound again to its PCI driver (in odd
#       rounds while a process holds a bochs buffer; its rows must vanish
#       with the device),
#   (d) vgem is rmmod'ed and modprobe'd again once no process holds a vgem fd.
# Expect: every read succeeds (exit 0, documented header, same field count on
# every row); afterwards devices lists exactly the DRM cards that exist, the
# rebound bochs with its capacity, the reloaded vgem; stats counted every walk
# and no failed one, to the walk; every holding churner was listed with its
# exact buffers before it was killed, and no processes/buffers row names a
# churned (dead) pid afterwards; bochs' VRAM is back to what it was; a final
# allocation on qxl, vgem and the rebound bochs is accounted to the byte.
# The harness checks the kernel log (oops, WARN, KASAN, lockdep, kmemleak).
. "$(dirname "$0")/lib.sh"
require_gpumem
orphan_events_off	# this script counts walks exactly

# --- scale ---------------------------------------------------------------------
# The KASAN/lockdep test kernel is ~10x slower: fewer, shorter rounds. The
# per-test timeout of the harness is 120 s; the churn stops starting new work
# at its deadline whatever the round count.
case "$(uname -r) $(cat /proc/cmdline 2>/dev/null)" in
*gpumem-test*) slow=1 ;;
*) slow=0 ;;
esac
if [ $slow = 1 ]; then
	ROUNDS=${GM_CHURN_ROUNDS:-2} KILLS=${GM_CHURN_KILLS:-4} PRIMES=${GM_CHURN_PRIMES:-2}
	BUDGET=${GM_CHURN_BUDGET:-30} READERS=2
else
	ROUNDS=${GM_CHURN_ROUNDS:-6} KILLS=${GM_CHURN_KILLS:-18} PRIMES=${GM_CHURN_PRIMES:-6}
	BUDGET=${GM_CHURN_BUDGET:-35} READERS=3
fi
T0=$(date +%s)
DEADLINE=$((T0 + BUDGET))
log "kernel $(uname -r), slow=$slow: $ROUNDS rounds, $KILLS kills, $PRIMES PRIME groups per round, budget ${BUDGET}s"

before_deadline() { [ "$(date +%s)" -lt "$DEADLINE" ]; }
# rsleep N: sleep 0..(N-1) hundredths of a second, at random.
rsleep() { _r=$((RANDOM % $1)); [ $_r -lt 10 ] && _r=0$_r; sleep "0.$_r" 2>/dev/null || :; }

# --- what is there to churn -------------------------------------------------------
qxl=$(card_of qxl)
vgem=$(card_of vgem)
bochs=$(card_of bochs)
vgem_mod=no
grep -q '^vgem ' /proc/modules && vgem_mod=yes
bochs_pci="" bochs_drv=""
if [ -n "$bochs" ]; then
	bochs_pci=$(basename "$(readlink -f "/sys/class/drm/$bochs/device")")
	bochs_drv=$(readlink -f "/sys/bus/pci/devices/$bochs_pci/driver" 2>/dev/null)
	[ -w "$bochs_drv/unbind" ] && [ -w "$bochs_drv/bind" ] || bochs_drv=""
fi
log "qxl=${qxl:--} vgem=${vgem:--} (module: $vgem_mod) bochs=${bochs:--} ($bochs_pci, driver dir ${bochs_drv:--})"
if [ -z "$qxl" ] && [ -z "$vgem" ]; then
	for t in churn-ops churn-readers churn-stats churn-devices churn-dead-pids churn-final-alloc; do
		fail "$t" "neither a qxl nor a vgem card in this guest (run-guest.sh attaches qxl-vga)"
	done
	finish
fi

snap devices
cp "$GM_TMP/devices" "$GM_TMP/devices.before"
bochs_cap_before="" bochs_used_before=""
if [ -n "$bochs" ]; then
	bochs_cap_before=$(tbl_get "$GM_TMP/devices" capacity device="$bochs" region=vram)
	bochs_used_before=$(tbl_get "$GM_TMP/devices" used device="$bochs" region=vram)
fi
# From here on every walk is counted: the readers' reads of processes and
# buffers (devices is no walk), and this script's own reads (own_walks in this shell,
# a line in own-walks for each read a background churner makes).
snap stats
walks0=$(tbl_get "$GM_TMP/stats" value name=walks)
failed0=$(tbl_get "$GM_TMP/stats" value name=walks_failed)
own_walks=0
: >"$GM_TMP/own-walks"
: >"$GM_TMP/proofs"

# --- readers ---------------------------------------------------------------------
# reader ID MODE: until $GM_TMP/stop (or the hard deadline), read every file:
# MODE cat = one big read, dd = 61-byte reads (seq_file restarts mid-row).
# Writes "walk-reads stats-reads bad walk-opens" to r$ID.count (walk-opens:
# every open of processes or buffers, good or bad: one walk each);
# failures to reader-errors.
reader() {
	_id=$1 _mode=$2 _n=0 _ns=0 _bad=0 _a=0
	_o=$GM_TMP/r$_id.out _e=$GM_TMP/r$_id.err
	_hard=$((DEADLINE + 60))
	while [ ! -e "$GM_TMP/stop" ] && [ -d "$GM_TMP" ] && [ "$(date +%s)" -lt "$_hard" ]; do
		for _f in processes buffers devices stats; do
			case $_f in processes|buffers) _a=$((_a + 1)) ;; esac
			if [ "$_mode" = dd ]; then
				dd if="$GM_DEBUGFS/$_f" of="$_o" bs=61 2>"$_e"
			else
				cat "$GM_DEBUGFS/$_f" >"$_o" 2>"$_e"
			fi
			_rc=$?
			eval "_want=\$GM_HDR_$_f"
			# One awk (forks are slow under KASAN): header, then field counts.
			_why=$(GM_WANT=$_want awk '
				NR == 1 { n = NF; if ($0 != ENVIRON["GM_WANT"]) { print "header \047" $0 "\047"; exit } }
				NF != n { print "line " NR " has " NF " fields, header " n; exit }
				END { if (NR == 0) print "empty" }' "$_o")
			if [ $_rc -ne 0 ] || [ -n "$_why" ]; then
				_bad=$((_bad + 1))
				echo "reader $_id ($_mode) $_f: exit $_rc $_why $(grep -v records "$_e" | tr '\n' ' ')" \
					>>"$GM_TMP/reader-errors"
			elif [ "$_f" = stats ]; then
				_ns=$((_ns + 1))
			else
				_n=$((_n + 1))
			fi
		done
	done
	echo "$_n $_ns $_bad $_a" >"$GM_TMP/r$_id.count"
}

# bgrun NAME CMD...: run a shell function in the background (pid in bg_NAME),
# killed at exit; collect it with reap.
bgrun() {
	_bn=$1
	shift
	"$@" 8>&- &
	eval "bg_$_bn=$!"
	GM_PIDS="$GM_PIDS $!"
}

# --- churners ----------------------------------------------------------------------
# Every pid a churner starts goes to churn.pids: none of them may be listed
# once it is dead.
note_pid() { echo "$1" >>"$GM_TMP/churn.pids"; }

# prove_held OUT PID: the holding churner PID (helper output OUT) is listed
# in processes with exactly the 16 buffers it printed (one walk, counted);
# "ok" or why not goes to proofs.
prove_held() {
	_pc=$(out_card "$1") _pb=$(out_val "$1" TOTAL bytes) _pn=$(out_val "$1" TOTAL bos)
	echo w >>"$GM_TMP/own-walks"
	cat "$GM_DEBUGFS/processes" >"$GM_TMP/$1.proc" 2>/dev/null
	# pid comm cgroup_id cgroup device vram gtt system other shared owned bos
	_pr=$(awk -v p="$2" -v d="$_pc" '$1 == p && $5 == d { print $6 + $7 + $8 + $9, $10, $11, $12 }' "$GM_TMP/$1.proc")
	if [ "$_pr" = "$_pb 0 $_pb $_pn" ]; then
		echo "$ROUND $2 ok" >>"$GM_TMP/proofs"
	else
		echo "$ROUND $2 bad: pid $2 on ${_pc:-?}: bytes shared owned bos '$_pr', printed $_pb bytes in $_pn BOs" >>"$GM_TMP/proofs"
	fi
}

# kill_churn TAG DRIVER KIND: KILLS allocators, SIGKILLed at varying points.
kill_churn() {
	_t=$1 _d=$2 _k=$3 _i=0
	while [ $_i -lt "$KILLS" ] && before_deadline; do
		_out=k-$_t-$ROUND-$_i
		"$GM_ALLOC" alloc -d "$_d" -k "$_k" -n 16 -s 64K -c gm-churn -t 60 >"$GM_TMP/$_out.out" 2>&1 8>&- &
		_p=$!
		note_pid $_p
		case $((_i % 3)) in
		0) ;;				# at once: before or while opening the device
		1) rsleep 10 ;;			# somewhere in open/allocate/hold
		2)				# holding 16 BOs: listed with them, then killed
			if wait_ready "$_out" $_p 2>/dev/null; then
				prove_held "$_out" $_p
			else
				echo "$ROUND $_p bad: holding churner $_p ($_d) never got READY: $(helper_why "$_out")" >>"$GM_TMP/proofs"
			fi
			rsleep 20 ;;
		esac
		kill -KILL $_p 2>/dev/null
		wait $_p 2>/dev/null
		_i=$((_i + 1))
	done
	echo "$_i" >"$GM_TMP/kills-$_t-$ROUND"
}

# prime_churn TAG DRIVER KIND: PRIMES groups of one exporter and two importers.
prime_churn() {
	_t=$1 _d=$2 _k=$3 _i=0
	while [ $_i -lt "$PRIMES" ] && before_deadline; do
		_s=$GM_TMP/p-$_t-$ROUND-$_i.sock _x=p-$_t-$ROUND-$_i-x
		"$GM_ALLOC" export -d "$_d" -k "$_k" -n 2 -s 256K -S "$_s" -c gm-pexp -t 60 >"$GM_TMP/$_x.out" 2>&1 8>&- &
		_px=$!
		note_pid $_px
		wait_ready "$_x" $_px 2>/dev/null
		"$GM_ALLOC" import -d "$_d" -S "$_s" -c gm-pimp -t 60 >/dev/null 2>&1 8>&- &
		_py=$!
		note_pid $_py
		"$GM_ALLOC" import -d "$_d" -S "$_s" -c gm-pimp -t 60 >/dev/null 2>&1 8>&- &
		_pz=$!
		note_pid $_pz
		rsleep 30
		case $((RANDOM % 3)) in
		0) kill -KILL $_px; rsleep 10; kill -KILL $_py $_pz ;;	# owner first
		1) kill -KILL $_py $_pz; rsleep 10; kill -KILL $_px ;;	# importers first
		2) kill -TERM $_pz $_px $_py ;;				# clean exits
		esac 2>/dev/null
		wait $_px $_py $_pz 2>/dev/null
		_i=$((_i + 1))
	done
	echo "$_i" >"$GM_TMP/primes-$_t-$ROUND"
}

# --- bochs unbind / bind, vgem unload / load (foreground) --------------------------------
bochs_cycles=0 vgem_reloads=0
bochs_card_now() { ls "/sys/bus/pci/devices/$bochs_pci/drm" 2>/dev/null | grep -m 1 '^card[0-9]*$'; }
bochs_cycle() {
	# Odd rounds (so the test kernel's single round too): a process holds a
	# bochs buffer across the unbind; its file outlives the device's
	# registration (and keeps the old minor).
	_holder=""
	if [ $((ROUND % 2)) = 1 ]; then
		"$GM_ALLOC" alloc -d bochs -k dumb -n 2 -s 256K -c gm-churn -t 120 >"$GM_TMP/bh-$ROUND.out" 2>&1 8>&- &
		_holder=$!
		note_pid $_holder
		wait_ready "bh-$ROUND" $_holder || tc_fail "round $ROUND: bochs holder failed: $(helper_why "bh-$ROUND")"
	fi
	bochs_unbind_bind
	_ret=$?
	if [ -n "$_holder" ]; then
		rsleep 30
		kill -KILL $_holder 2>/dev/null
		wait $_holder 2>/dev/null
	fi
	[ $_ret = 0 ] && bochs_cycles=$((bochs_cycles + 1))
	return $_ret
}
bochs_unbind_bind() {
	if ! echo "$bochs_pci" >"$bochs_drv/unbind"; then
		tc_fail "round $ROUND: unbind $bochs_pci from $bochs_drv failed"
		return 1
	fi
	[ -z "$(bochs_card_now)" ] || tc_fail "round $ROUND: $bochs_pci still has a DRM card after unbind"
	# The holder's file is on a device gpumem no longer tracks: no rows.
	if [ -n "$_holder" ]; then
		own_walks=$((own_walks + 1))
		_r=$(pid_rows "$_holder")
		[ "$_r" = 0 ] || tc_fail "round $ROUND: bochs holder $_holder has $_r processes rows after unbind"
	fi
	snap devices	# no walk (debugfs devices reads the registry alone)
	_r=$(tbl_count "$GM_TMP/devices" unique="$bochs_pci")
	[ "$_r" = 0 ] || tc_fail "round $ROUND: devices still lists $bochs_pci after unbind ($_r rows)"
	rsleep 50
	if ! echo "$bochs_pci" >"$bochs_drv/bind"; then
		tc_fail "round $ROUND: bind $bochs_pci to $bochs_drv failed"
		return 1
	fi
	if ! wait_until 20 test -n "$(bochs_card_now)"; then
		tc_fail "round $ROUND: no DRM card for $bochs_pci 20 s after bind"
		return 1
	fi
}
vgem_reload() {
	# A dma-buf of a killed process may be released a moment later.
	if ! wait_until 15 rmmod vgem 2>"$GM_TMP/rmmod-vgem.err"; then
		tc_fail "round $ROUND: rmmod vgem: $(cat "$GM_TMP/rmmod-vgem.err") (refcnt $(cat /sys/module/vgem/refcnt 2>/dev/null))"
		return 1
	fi
	if ! modprobe vgem 2>"$GM_TMP/modprobe-vgem.err"; then
		tc_fail "round $ROUND: modprobe vgem: $(cat "$GM_TMP/modprobe-vgem.err")"
		return 1
	fi
	if ! wait_until 20 test -n "$(card_of vgem)"; then
		tc_fail "round $ROUND: no vgem card 20 s after modprobe"
		return 1
	fi
	vgem_reloads=$((vgem_reloads + 1))
}

# --- the churn ------------------------------------------------------------------------
tc_begin churn-ops
: >"$GM_TMP/churn.pids"
i=1
while [ $i -le $READERS ]; do
	mode=cat
	[ $i = $READERS ] && [ $READERS -gt 1 ] && mode=dd
	bgrun "r$i" reader $i $mode
	i=$((i + 1))
done

ROUND=1 rounds=0
while [ $ROUND -le "$ROUNDS" ] && { [ $ROUND = 1 ] || before_deadline; }; do
	log "round $ROUND at $(($(date +%s) - T0))s"
	vgem_jobs="" qxl_jobs=""
	# vgem may have a new card number after a reload: find it again.
	vgem=$(card_of vgem)
	if [ -n "$qxl" ]; then
		bgrun kq kill_churn qxl qxl vram
		bgrun pq prime_churn qxl qxl vram
		qxl_jobs="$bg_kq $bg_pq"
	fi
	if [ -n "$vgem" ]; then
		bgrun kv kill_churn vgem vgem dumb
		bgrun pv prime_churn vgem vgem dumb
		vgem_jobs="$bg_kv $bg_pv"
	fi
	rsleep 50
	[ -n "$bochs_drv" ] && bochs_cycle
	# No vgem user left: unload and load vgem while readers (and qxl churn) run.
	for p in $vgem_jobs; do reap "$p" 120; done
	if [ -n "$vgem" ] && [ $vgem_mod = yes ]; then
		vgem_reload
	fi
	for p in $qxl_jobs; do reap "$p" 120; done
	rounds=$ROUND
	ROUND=$((ROUND + 1))
done
log "churn done after $(($(date +%s) - T0))s: $rounds rounds, $bochs_cycles bochs cycles, $vgem_reloads vgem reloads, $(sort -u "$GM_TMP/churn.pids" | wc -l) churned pids"
touch "$GM_TMP/stop"
i=1
while [ $i -le $READERS ]; do
	eval "reap \$bg_r$i 90"
	i=$((i + 1))
done
log "readers stopped after $(($(date +%s) - T0))s"

# The guest's bochs and vgem are modules (scripts/testkernel.config, Debian):
# both are churned in every round.
if [ -n "$bochs" ]; then
	[ -n "$bochs_drv" ] || tc_fail "bochs $bochs_pci: no writable bind/unbind in its driver directory"
	tc_num -eq "bochs unbind/bind cycles" "$bochs_cycles" "$rounds"
fi
if [ -n "$vgem" ]; then
	[ $vgem_mod = yes ] || tc_fail "vgem is not a loaded module: it cannot be reloaded"
	tc_num -eq "vgem reloads" "$vgem_reloads" "$rounds"
fi
kills=$(cat "$GM_TMP"/kills-* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
primes=$(cat "$GM_TMP"/primes-* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
tc_num -ge "processes SIGKILLed" "$kills" 1
tc_num -ge "PRIME groups" "$primes" 1
tc_end

# --- every read succeeded ----------------------------------------------------------------
tc_begin churn-readers
reads=0 opens=0 counted=0
i=1
while [ $i -le $READERS ]; do
	if read -r n ns bad a <"$GM_TMP/r$i.count" 2>/dev/null; then
		log "  reader $i: $n walk reads, $ns stats reads, $bad bad, $a opens of walking files"
		tc_num -gt "reader $i walk reads" "$n" 0
		tc_num -gt "reader $i stats reads" "$ns" 0
		reads=$((reads + n)) opens=$((opens + $(num "$a"))) counted=$((counted + 1))
	else
		tc_fail "reader $i left no count (killed?)"
	fi
	i=$((i + 1))
done
if [ -s "$GM_TMP/reader-errors" ]; then
	sed 's/^/#   /' "$GM_TMP/reader-errors" | head -n 20
	tc_fail "$(wc -l <"$GM_TMP/reader-errors" | tr -d ' ') failed reads, first: $(head -n 1 "$GM_TMP/reader-errors")"
fi
tc_end

# --- stats: every open was one walk, none failed ----------------------------------------------
# Exactly: each reader open of processes, buffers or devices, plus this
# script's own reads (bochs cycles, the holding churners' proofs); stats
# itself walks nothing.
tc_begin churn-stats
snap stats
walks1=$(tbl_get "$GM_TMP/stats" value name=walks)
failed1=$(tbl_get "$GM_TMP/stats" value name=walks_failed)
own=$((own_walks + $(wc -l <"$GM_TMP/own-walks")))
[ "$counted" = "$READERS" ] || tc_fail "only $counted of $READERS readers left their counts"
tc_eq "walks + failed walks during the churn ($opens reader opens + $own own reads)" \
	"$(($(num "$walks1") - $(num "$walks0") + $(num "$failed1") - $(num "$failed0")))" "$((opens + own))"
tc_eq "walks_failed during the churn" "$(($(num "$failed1") - $(num "$failed0")))" 0
tc_end

# --- devices: exactly the cards that exist, bochs and vgem back ------------------------------
tc_begin churn-devices
"$GM_ALLOC" list >"$GM_TMP/cards" 2>/dev/null
snap devices
tc_eq "devices listed" "$(tbl_get "$GM_TMP/devices" device | sort -u | tr '\n' ' ')" \
	"$(awk '{ print $1 }' "$GM_TMP/cards" | sort -u | tr '\n' ' ')"
tc_eq "stats devices" "$(stat_value devices)" "$(wc -l <"$GM_TMP/cards" | tr -d ' ')"
if [ -n "$bochs" ]; then
	bochs=$(card_of bochs)
	tc_eq "bochs card's PCI device" "$(basename "$(readlink -f "/sys/class/drm/$bochs/device")")" "$bochs_pci"
	tc_eq "$bochs driver" "$(tbl_get "$GM_TMP/devices" driver device="$bochs" | sort -u)" "$(driver_of "$bochs")"
	tc_eq "$bochs unique" "$(tbl_get "$GM_TMP/devices" unique device="$bochs" | sort -u)" "$bochs_pci"
	if [ "$(bochs_expect_ttm)" = no ]; then
		tc_eq "$bochs rows (shmem bochs)" "$(tbl_get "$GM_TMP/devices" - device="$bochs" | cut -d' ' -f4-)" \
			"no system - - -"
	else
		tc_eq "$bochs vram rows" "$(tbl_count "$GM_TMP/devices" device="$bochs" region=vram ttm=yes)" 1
		cap=$(tbl_get "$GM_TMP/devices" capacity device="$bochs" region=vram)
		tc_eq "$bochs vram capacity (BAR0)" "$cap" "$(pci_bar_size "$bochs" 0)"
		tc_eq "$bochs vram capacity as before the churn" "$cap" "$bochs_cap_before"
		# The rebound bochs holds its fbdev buffer in VRAM as before the
		# churn, and nothing of the killed holders (their dumb buffers
		# were never in VRAM, and their device is gone).
		bused() { [ "$(dev_field "$bochs" vram used)" = "$bochs_used_before" ]; }
		wait_until 10 bused ||
			tc_fail "$bochs vram used is $(dev_field "$bochs" vram used), $bochs_used_before before the churn"
	fi
fi
if [ -n "$vgem" ]; then
	vgem=$(card_of vgem)
	tc_eq "vgem rows" "$(tbl_get "$GM_TMP/devices" - device="$vgem" | cut -d' ' -f2,4-)" "vgem no system - - -"
fi
tc_end

# --- listed while holding, no row once dead ----------------------------------------------------
# Every third allocator of a kill churn (i % 3 == 2) was checked right before
# its SIGKILL: listed with exactly its 16 buffers. All of them, and every
# other churned pid, must be gone now.
tc_begin churn-dead-pids
holders=$(cat "$GM_TMP"/kills-* 2>/dev/null | awk '{ s += int($1 / 3) } END { print s + 0 }')
bad=$(grep -c ' bad: ' "$GM_TMP/proofs")
[ "$bad" = 0 ] || tc_fail "$bad holding churners not listed with their buffers: $(grep ' bad: ' "$GM_TMP/proofs" | head -n 3 | cut -d' ' -f3- | tr '\n' ';')"
tc_eq "holding churners listed with their 16 buffers before the kill" "$(grep -c ' ok$' "$GM_TMP/proofs")" "$holders"
tc_num -gt "holding churners" "$holders" 0
snap processes
snap buffers
# A pid reused by a live process (nothing of ours is left) is not checked.
sort -u "$GM_TMP/churn.pids" | while read -r p; do
	[ -d "/proc/$p" ] && { echo "# pid $p is alive again (reused), not checked" >&2; continue; }
	echo "$p"
done >"$GM_TMP/dead.pids"
log "  $(wc -l <"$GM_TMP/dead.pids" | tr -d ' ') dead churned pids"
left=$(awk 'FILENAME == ARGV[1] { dead[$1] = 1; next }
	FNR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	FILENAME == ARGV[2] { if ($(h["pid"]) in dead) print "processes: " $0; next }
	{
		if ($(h["owner"]) in dead) { print "buffers: " $0; next }
		n = split($(h["holders"]), a, ",")
		for (i = 1; i <= n; i++) if (a[i] in dead) { print "buffers: " $0; next }
	}' "$GM_TMP/dead.pids" "$GM_TMP/processes" "$GM_TMP/buffers")
tc_eq "rows naming dead churned pids" "$left" ""
tc_eq "processes rows of churn helpers" \
	"$(awk 'NR > 1 && ($2 == "gm-churn" || $2 == "gm-pexp" || $2 == "gm-pimp")' "$GM_TMP/processes")" ""
tc_end

# --- a final allocation is accounted exactly ---------------------------------------------------
tc_begin churn-final-alloc
if [ -n "$qxl" ]; then
	if spawn fq alloc -d qxl -k vram -n 3 -s 1M -c gm-final-qxl; then
		proc_check "$fq_pid" "$qxl" vram=$((3 * MiB)) gtt=0 system=0 other=0 shared=0 \
			owned=$((3 * MiB)) bos=3
		snap buffers
		tc_eq "qxl buffers rows" "$(tbl_get "$GM_TMP/buffers" size owner="$fq_pid" device="$qxl" region=vram | sort -u)" "$MiB"
		tc_eq "qxl handles" "$(tbl_get "$GM_TMP/buffers" handle owner="$fq_pid" | sort -n | tr '\n' ' ')" \
			"$(out_handles fq)"
	else
		tc_fail "qxl helper failed: $(helper_why fq)"
	fi
fi
if [ -n "$vgem" ]; then
	if spawn fv alloc -d vgem -k dumb -n 2 -s 1M -c gm-final-vgem; then
		tc_eq "vgem helper's card" "$(out_card fv)" "$vgem"
		proc_check "$fv_pid" "$vgem" vram=0 gtt=0 system=$((2 * MiB)) other=0 shared=0 \
			owned=$((2 * MiB)) bos=2
	else
		tc_fail "vgem helper failed: $(helper_why fv)"
	fi
fi
if [ -n "$bochs" ]; then
	# A dumb buffer that is not scanned out: TTM_PL_SYSTEM (0) on the VRAM
	# helper, "-" on shmem bochs; either way "system".
	if spawn fb alloc -d bochs -k dumb -n 1 -s 1M -c gm-final-bochs; then
		bsize=$(out_bo fb 0 size)
		tc_eq "bochs helper's card" "$(out_card fb)" "$bochs"
		proc_check "$fb_pid" "$bochs" vram=0 gtt=0 system="$bsize" other=0 shared=0 \
			owned="$bsize" bos=1
		want_type=0
		[ "$(bochs_expect_ttm)" = no ] && want_type=-
		snap buffers
		tc_eq "bochs buffer mem_type" "$(tbl_get "$GM_TMP/buffers" mem_type owner="$fb_pid")" "$want_type"
	else
		tc_fail "bochs helper failed: $(helper_why fb)"
	fi
fi
stop fq; stop fv; stop fb
tc_end
log "done after $(($(date +%s) - T0))s"

finish
