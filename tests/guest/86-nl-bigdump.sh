#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Netlink dumps with thousands of entries are complete: ~1000 processes
# holding one vgem buffer each (300 on the KASAN/lockdep test kernel; as
# many as start within 60 s, 35 s there) plus 8 holding 250 each. `gpumemctl ps --held --json` (a proc-get dump over many netlink
# messages) must list exactly the (pid, device, bytes, bos) rows of the
# debugfs processes file, and `gpumemctl buffers --pid P --json` must return
# the 250 buffers (handles and sizes) each big holder allocated.
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="bigdump-ps bigdump-buffers"
vgem=$(card_of vgem)
if [ ! -x "$CTL" ]; then
	for t in $CASES; do fail "$t" "$CTL missing"; done
	finish
fi
if [ -z "$vgem" ]; then
	for t in $CASES; do fail "$t" "no vgem card"; done
	finish
fi

# Helpers are started until there are $small of them or $budget seconds
# have passed (the test kernel forks slowly); the checks use what started.
small=1000 big=8 nbig=250 budget=60 ready_wait=40 check_big=8
case $(uname -r) in
*gpumem-test*) small=300 budget=30 ready_wait=25 check_big=2 ;;	# KASAN + lockdep: ~10x slower
esac

# Every helper watches its stdin, a FIFO this shell keeps open for writing
# on fd 3: closing fd 3 makes all of them free their buffers and exit at
# once. The helpers must not inherit fd 3 themselves (3>&-).
D=$GM_TMP/big
mkdir -p "$D"
mkfifo "$D/hold"
exec 3<>"$D/hold"
: >"$D/pids"

big_cleanup() {
	exec 3>&-
	_t=$(date +%s)
	_end=$((_t + 20))
	while :; do
		_left=""
		while read -r _p; do
			{ read -r _l <"/proc/$_p/stat"; } 2>/dev/null || continue
			_st=${_l##*) }
			case ${_st%% *} in Z | X) ;; *) _left="$_left $_p" ;; esac
		done <"$D/pids"
		[ -z "$_left" ] && break
		if [ "$(date +%s)" -ge "$_end" ]; then
			log "helpers still alive after 20 s, SIGKILL:$_left"
			kill -KILL $_left 2>/dev/null
			sleep 1
			break
		fi
		sleep 0.5 2>/dev/null || sleep 1
	done
	wait 2>/dev/null
	[ -s "$D/pids" ] && log "helpers gone after $(($(date +%s) - _t)) s"
	: >"$D/pids"
}
trap 'big_cleanup; _gm_cleanup' EXIT

# start NAME COUNT_OF_BOS: one helper in the background, pid appended to pids.
start() {
	"$GM_ALLOC" alloc -d vgem -k dumb -n "$2" -s 4096 -t 600 -w -c "gm-big$2" \
		<"$D/hold" >"$D/$1.out" 2>&1 3>&- 8>&- &
	echo $! >>"$D/pids"
}

log "starting $big helpers with $nbig vgem BOs and up to $small with 1"
t0=$(date +%s)
i=1
while [ $i -le $big ]; do
	start "b$i" "$nbig"
	i=$((i + 1))
done
i=1
while [ $i -le $small ]; do
	start "s$i" 1
	if [ $((i % 25)) = 0 ] && [ $(($(date +%s) - t0)) -ge $budget ]; then
		log "stopped starting helpers after ${budget}s"
		break
	fi
	i=$((i + 1))
done
started=$(($(wc -l <"$D/pids")))
want=$started
log "started $started helpers in $(($(date +%s) - t0)) s"
end=$(($(date +%s) + ready_wait))
while :; do
	nready=$(cat "$D"/*.out 2>/dev/null | grep -c '^READY ')
	[ "$nready" -ge "$want" ] && break
	if [ "$(date +%s)" -ge "$end" ]; then
		log "only $nready of $want helpers ready ${ready_wait}s after the last start; failures:"
		grep -L '^READY ' "$D"/*.out 2>/dev/null | head -n 3 | while read -r f; do
			log "  $f: $(tail -n 1 "$f")"
		done
		break
	fi
	sleep 1
done
log "$nready of $want helpers ready after $(($(date +%s) - t0)) s; $(awk '/^MemAvailable:/ { print $2 " kB available" }' /proc/meminfo)"

if [ "$nready" -lt "$want" ]; then
	for t in $CASES; do fail "$t" "only $nready of $want helpers got ready (vgem, 4 KiB dumb buffers)"; done
	finish
fi

# --- ps --json == debugfs processes ------------------------------------------
# rows of pids other than 0 as "pid device vram gtt system other shared owned bos";
# pid 0 (in-kernel clients, e.g. the qxl console) as "pid device" only.
json_rows() {
	awk '
	function num(k) {
		if (match($0, "\"" k "\":-?[0-9]+")) return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
		return "null"
	}
	function str(k) {
		if (match($0, "\"" k "\":\"[^\"]*\"")) return substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5)
		return "null"
	}
	/^\{/ {
		if (num("pid") == 0) { print 0, str("device"); next }
		print num("pid"), str("device"), num("vram"), num("gtt"), num("system"), num("other"),
			num("shared"), num("owned"), num("bos")
	}' "$1" | sort
}
dbg_rows() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$(h["pid"]) == 0 { print 0, $(h["device"]); next }
	{ print $(h["pid"]), $(h["device"]), $(h["vram"]), $(h["gtt"]), $(h["system"]), $(h["other"]),
		$(h["shared"]), $(h["owned"]), $(h["bos"]) }' "$1" | sort
}

tc_begin bigdump-ps
snap processes
"$CTL" ps --held --json >"$GM_TMP/ps.json" 2>"$GM_TMP/ps.err"
tc_eq "gpumemctl ps --held --json exit" "$?" 0
json_rows "$GM_TMP/ps.json" >"$GM_TMP/ps.rows"
dbg_rows "$GM_TMP/processes" >"$GM_TMP/dbg.rows"
n_nl=$(wc -l <"$GM_TMP/ps.rows" | tr -d ' ')
n_dbg=$(wc -l <"$GM_TMP/dbg.rows" | tr -d ' ')
log "  rows: netlink $n_nl, debugfs $n_dbg; ps --json is $(wc -c <"$GM_TMP/ps.json" | tr -d ' ') bytes"
tc_eq "rows" "$n_nl" "$n_dbg"
tc_num -ge "rows (all helpers)" "$n_nl" "$want"
if ! cmp -s "$GM_TMP/ps.rows" "$GM_TMP/dbg.rows"; then
	diff "$GM_TMP/dbg.rows" "$GM_TMP/ps.rows" | head -n 20 | sed 's/^/#   /'
	tc_fail "ps --json differs from $GM_DEBUGFS/processes (diff above: - debugfs, + netlink)"
fi
# every helper is there, with what it allocated
awk '$1 == "READY" { print $2 }' "$D"/s*.out | sort >"$GM_TMP/small.pids"
tc_eq "1-BO helpers missing from ps --json" \
	"$(awk -v d="$vgem" 'NR == FNR { p[$1] = 1; next } $2 == d && $5 == 4096 && $9 == 1 { delete p[$1] }
		END { for (k in p) print k }' "$GM_TMP/small.pids" "$GM_TMP/ps.rows" | head -n 5)" ""
tc_eq "250-BO helpers with other totals" \
	"$(for f in "$D"/b*.out; do
		p=$(awk '$1 == "READY" { print $2 }' "$f")
		awk -v p="$p" -v d="$vgem" -v n="$nbig" '$1 == p && $2 == d && !($5 == n * 4096 && $9 == n) { print }' "$GM_TMP/ps.rows"
	done)" ""
tc_end

# --- buffers --pid P --json for the 250-BO helpers (2 of them on the test kernel) ---
tc_begin bigdump-buffers
i=1
while [ $i -le $check_big ]; do
	f=$D/b$i.out
	i=$((i + 1))
	p=$(awk '$1 == "READY" { print $2 }' "$f")
	"$CTL" buffers --pid "$p" --json >"$GM_TMP/buf.json" 2>"$GM_TMP/buf.err"
	rc=$?
	[ "$rc" = 0 ] || tc_fail "buffers --pid $p: exit $rc: $(head -c 200 "$GM_TMP/buf.err")"
	awk '/^\{/ {
		h = s = "?"
		if (match($0, /"handle":[0-9]+/)) h = substr($0, RSTART + 9, RLENGTH - 9)
		if (match($0, /"size":[0-9]+/)) s = substr($0, RSTART + 7, RLENGTH - 7)
		print h, s
	}' "$GM_TMP/buf.json" | sort -n >"$GM_TMP/buf.got"
	awk '$1 == "BO" { h = $3; s = $4; sub("handle=", "", h); sub("size=", "", s); print h, s }' "$f" |
		sort -n >"$GM_TMP/buf.want"
	n=$(wc -l <"$GM_TMP/buf.got" | tr -d ' ')
	[ "$n" = "$nbig" ] || tc_fail "buffers --pid $p: $n buffers, want $nbig"
	cmp -s "$GM_TMP/buf.got" "$GM_TMP/buf.want" ||
		tc_fail "buffers --pid $p: (handle, size) differ from what it allocated: $(diff "$GM_TMP/buf.want" "$GM_TMP/buf.got" | grep '^[-+][0-9]' | head -n 3 | tr '\n' ' ')"
	log "  pid $p: $n buffers, $(awk '{ s += $2 } END { print s }' "$GM_TMP/buf.got") bytes"
done
tc_end

finish
