#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The gpumem generic netlink family against malformed requests
# (/tests/bin/nl-fuzz, tests/guest/nl-fuzz.c): thousands of them (3000;
# 500 on the KASAN/lockdep test kernel), in categories: unknown commands,
# truncated and reserved headers, wrong attribute types and lengths,
# unknown, unsupported and deeply nested attributes, out-of-range pids,
# missing required attributes, devices and cgroups that do not exist,
# 64 KiB attributes and seeded random attribute streams (the seed is
# printed; `nl-fuzz fuzz -s SEED` replays it). Every request must get an error, never
# an ACK, a dump or silence; every policy or handler rejection must carry
# an extended-ack message. Afterwards the family still answers a dev-get
# dump that matches the devices file, no valid reply carries a kernel
# pointer, and refused dumps leak no memory.
. "$(dirname "$0")/lib.sh"
require_gpumem

FUZZ=$GM_BIN/nl-fuzz
# The categories this script reports (tests/manifest); nl-fuzz must list
# exactly these.
CATS="unknown-cmd op-mode truncated-hdr reserved-hdr bad-nlflags wrong-len
empty-payload string-for-int unknown-attr unsupported-attr nested
out-of-range missing-attr no-device no-cgroup oversize garbage"
CASES="$(for c in $CATS; do printf 'nl-robust-%s ' "$c"; done)nl-robust-after nl-robust-no-pointers nl-robust-leak"
if [ ! -x "$FUZZ" ]; then
	for t in $CASES; do fail "$t" "$FUZZ missing (make -C tests/guest)"; done
	finish
fi
listed=$("$FUZZ" list 2>/dev/null | awk 'c { print $1 } /^categories:/ { c = 1 }' | sort | tr '\n' ' ')

count=3000 tmo=10 leakn=1000
case $(uname -r) in
*gpumem-test*) count=500 tmo=60 leakn=300 ;;	# KASAN + lockdep: ~10x slower
esac
seed=${GM_NL_SEED:-$(($(date +%s) % 1000000007))}

# Something for the proc and buf dumps to list: vgem and qxl VRAM buffers.
vgem=$(card_of vgem)
qxl=$(card_of qxl)
helpers_bad=""
[ -n "$vgem" ] || helpers_bad="no vgem card;"
[ -n "$qxl" ] || helpers_bad="$helpers_bad no qxl card;"
if [ -n "$vgem" ] && ! spawn v alloc -d vgem -k dumb -n 4 -s 64K -c gm-nl-vgem; then
	helpers_bad="$helpers_bad vgem helper: $(helper_why v);"
fi
if [ -n "$qxl" ] && ! spawn q alloc -d qxl -k vram -n 2 -s 1M -c gm-nl-qxl; then
	helpers_bad="$helpers_bad qxl helper: $(helper_why q);"
fi

# --- every malformed request is refused -----------------------------------------
# Before 6.2 the netlink core drops the extack of a dump's .start (struct
# netlink_dump_control has no extack): there the module's own rejections
# of dump filters need no message (-k).
kopt=""
[ "$(kernel_mm)" -lt 602 ] && kopt=-k
log "nl-fuzz fuzz -n $count -s $seed -t $tmo $kopt"
start=$(date +%s)
"$FUZZ" fuzz -n "$count" -s "$seed" -t "$tmo" $kopt >"$GM_TMP/fuzz.out" 2>"$GM_TMP/fuzz.err"
rc=$?
log "nl-fuzz: exit $rc after $(($(date +%s) - start)) s (seed $seed)"
sed 's/^/#   /' "$GM_TMP/fuzz.out" "$GM_TMP/fuzz.err"
finished=yes
grep -q '^RESULT ' "$GM_TMP/fuzz.out" || finished="nl-fuzz did not finish (exit $rc, seed $seed): $(tail -n 2 "$GM_TMP/fuzz.err" | tr '\n' ' ')"
# The verdict is recomputed here from the counts, not taken from nl-fuzz:
# at least one request sent, every one refused with an error (never an ACK,
# a dump, silence or a receive error), and where the category needs an
# extended-ack message, none without one.
for c in $CATS; do
	tc_begin "nl-robust-$c"
	line=$(grep "^CAT $c " "$GM_TMP/fuzz.out")
	if [ -z "$line" ]; then
		tc_fail "no result (seed $seed)${finished#yes}"
		tc_end
		continue
	fi
	counts=$(echo "$line" | cut -d' ' -f4-13)
	# cval KEY: KEY=value of the CAT line
	cval() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	sent=$(cval sent)
	tc_num -gt "requests sent" "$sent" 0
	tc_eq "requests refused with an error" "$(cval errors)" "$sent"
	tc_eq "ACKs, successful dumps, timeouts, receive errors, data replies" \
		"$(cval ok) $(cval timeout) $(cval io) $(cval data)" "0 0 0 0"
	[ "$(cval need)" = none ] || tc_eq "refusals without an extended-ack message" "$(cval nomsg)" 0
	tc_eq "nl-fuzz's own verdict" "$(cval verdict)" pass
	if grep -q "^BAD $c " "$GM_TMP/fuzz.out"; then
		tc_fail "first refusals nl-fuzz found wrong (seed $seed): $(grep "^BAD $c " "$GM_TMP/fuzz.out" | head -n 3 | cut -d' ' -f4- | tr '\n' ';')"
	fi
	case $line in
	*need=none*nomsg=0\ *) ;;
	*need=none*) log "  $c: the kernel gave no extack message ($counts)" ;;
	esac
	case $line in
	*startnomsg=0\ *) ;;
	*) log "  $c: dumps refused by .start without a message (kernel $(uname -r) drops it): $counts" ;;
	esac
	tc_end
done

# --- the family still answers, and right ----------------------------------------
tc_begin nl-robust-after
snap devices
"$FUZZ" devices -t "$tmo" >"$GM_TMP/dev.out" 2>&1
tc_eq "nl-fuzz devices exit" "$?" 0
awk '$1 == "DEV" { print $3, $4 }' "$GM_TMP/dev.out" | sort >"$GM_TMP/dev.nl"
awk 'NR > 1 { print $1, $2 }' "$GM_TMP/devices" | sort -u >"$GM_TMP/dev.dbg"
tc_eq "devices in the dump" "$(wc -l <"$GM_TMP/dev.nl" | tr -d ' ')" "$(wc -l <"$GM_TMP/dev.dbg" | tr -d ' ')"
tc_eq "devices (name driver)" "$(tr '\n' ' ' <"$GM_TMP/dev.nl")" "$(tr '\n' ' ' <"$GM_TMP/dev.dbg")"
tc_eq "ids that are not the N of cardN" "$(awk '$1 == "DEV" && "card" $2 != $3' "$GM_TMP/dev.out")" ""
tc_eq "categories nl-fuzz lists" "$listed" "$(echo "$CATS" | tr ' ' '\n' | grep . | sort | tr '\n' ' ')"
tc_end

# --- no kernel pointers in valid replies ----------------------------------------
tc_begin nl-robust-no-pointers
"$FUZZ" scan -t "$tmo" >"$GM_TMP/scan.out" 2>&1
rc=$?
grep -v '^DEV \|^PROC \|^CPROC ' "$GM_TMP/scan.out" | sed 's/^/#   /'
tc_eq "nl-fuzz scan exit" "$rc" 0
tc_eq "values that look like kernel addresses" "$(grep '^PTR ' "$GM_TMP/scan.out" | head -n 5)" ""
tc_eq "valid requests that failed" "$(grep '^ERROR ' "$GM_TMP/scan.out" | head -n 5)" ""
[ -z "$helpers_bad" ] || tc_fail "helpers:$helpers_bad"
# Each helper holds buffers on its own card only: one held-view row each,
# on that card.
tc_eq "proc-get rows (held view) of the vgem helper ${v_pid:-?}: devices" \
	"$(awk -v p="${v_pid:-x}" '$1 == "PROC" && $2 == p { print $3 }' "$GM_TMP/scan.out" | tr '\n' ' ')" "${vgem#card} "
tc_eq "proc-get rows (held view) of the qxl helper ${q_pid:-?}: devices" \
	"$(awk -v p="${q_pid:-x}" '$1 == "PROC" && $2 == p { print $3 }' "$GM_TMP/scan.out" | tr '\n' ' ')" "${qxl#card} "
# the charged view counts hooked (TTM VRAM/GTT) placements: qxl, not vgem
# (a helper that looked at the qxl card may carry qxl's last-close buffers
# for 2 s: only rows on the helper's own device count here)
tc_eq "proc-get rows (charged view) of the qxl helper on qxl" \
	"$(awk -v p="${q_pid:-x}" -v d="${qxl#card}" '$1 == "CPROC" && $2 == p && $3 == d' "$GM_TMP/scan.out" | wc -l | tr -d ' ')" 1
tc_eq "proc-get rows (charged view) of the vgem helper on vgem" \
	"$(awk -v p="${v_pid:-x}" -v d="${vgem#card}" '$1 == "CPROC" && $2 == p && $3 == d' "$GM_TMP/scan.out" | wc -l | tr -d ' ')" 0
tc_num -ge "8-byte windows scanned" "$(sed -n 's/^SCAN .*windows=\([0-9]*\).*/\1/p' "$GM_TMP/scan.out")" 10
tc_end

# --- refused dumps free what their start took ------------------------------------
# $leakn dumps refused by the module's .start (no such device / cgroup),
# which runs after the policy: no .done follows a failed .start.
# With kmemleak (the test kernel): no object allocated in gpumem's netlink
# code may be reported (kmemleak reports an object only once it is 5 s old
# and unchanged over two scans). Without: unreclaimable slab plus vmalloc
# (kB) must not grow more than over as many requests the policy refuses.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmem() { awk '/^(SUnreclaim|VmallocUsed):/ { s += $2 } END { print s + 0 }' /proc/meminfo; }
tc_begin nl-robust-leak
if [ -w "$KMEMLEAK" ]; then
	"$FUZZ" fuzz -n "$leakn" -s "$seed" -C no-device,no-cgroup -t "$tmo" >"$GM_TMP/leak1.out" 2>&1
	tc_eq "refused dump starts: result" "$(sed -n 's/^RESULT //p' "$GM_TMP/leak1.out")" pass
	sleep 6
	t=$(date +%s)
	echo scan >"$KMEMLEAK" && echo scan >"$KMEMLEAK"
	cat "$KMEMLEAK" >"$GM_TMP/kmemleak"
	log "  two kmemleak scans: $(($(date +%s) - t)) s"
	# the reports whose backtrace is in gpumem's netlink code (the first one shown)
	awk 'function flush() { if (r ~ /gpumem_nl_/ && n++ == 0) print r > "/dev/stderr"; r = "" }
		/^unreferenced object/ { flush() } { r = r $0 "\n" } END { flush(); print n + 0 }' \
		"$GM_TMP/kmemleak" 2>"$GM_TMP/kmemleak.first" >"$GM_TMP/kmemleak.n"
	sed 's/^/#   /' "$GM_TMP/kmemleak.first" | head -n 30
	tc_eq "kmemleak reports from gpumem's netlink code" "$(cat "$GM_TMP/kmemleak.n")" 0
else
	"$FUZZ" fuzz -n 100 -s 1 -C no-device,no-cgroup,unknown-attr -t "$tmo" >/dev/null 2>&1	# warm caches
	k0=$(kmem)
	"$FUZZ" fuzz -n "$leakn" -s "$seed" -C unknown-attr -t "$tmo" >"$GM_TMP/leak0.out" 2>&1
	k1=$(kmem)
	"$FUZZ" fuzz -n "$leakn" -s "$seed" -C no-device,no-cgroup -t "$tmo" >"$GM_TMP/leak1.out" 2>&1
	k2=$(kmem)
	ctrl=$((k1 - k0)) refused=$((k2 - k1))
	log "  kernel memory: ${ctrl} kB more after $leakn policy rejections, ${refused} kB more after $leakn refused dump starts"
	tc_num -le "bytes of kernel memory kept per refused dump start" "$(((refused - ctrl) * 1024 / leakn))" 256
fi
tc_end

finish
