#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod gpumem + modprobe gpumem while buffers are held: gpumem keeps no state
# of its own that the numbers depend on, so they come back identical.
# Runs last: if the reload fails, no later test depends on the module.
. "$(dirname "$0")/lib.sh"
require_gpumem

if ! grep -q '^gpumem ' /proc/modules; then
	fail reload "gpumem is not a loaded module here"
	finish
fi
# Where to load it from if modprobe cannot (e.g. no depmod in this initramfs).
ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)

started=""
for d in qxl vgem virtio_gpu; do
	[ -n "$(card_of "$d")" ] || continue
	kind=dumb
	[ "$d" = qxl ] && kind=vram
	if spawn "p_$d" alloc -d "$d" -k "$kind" -n 2 -s 1M -c gm-reload &&
		spawn "x_$d" export -d "$d" -k "$kind" -n 1 -s 1M -S "$GM_TMP/$d.sock" -c gm-reload-x &&
		spawn "y_$d" import -d "$d" -S "$GM_TMP/$d.sock" -c gm-reload-y; then
		started="$started $d"
	else
		fail reload "helpers on $d failed: $(helper_why "p_$d") $(helper_why "x_$d") $(helper_why "y_$d")"
		finish
	fi
done
if [ -z "$started" ]; then
	fail reload "no qxl, vgem or virtio-gpu device to hold buffers on"
	finish
fi
pids=$(for d in $started; do eval "echo \$p_${d}_pid \$x_${d}_pid \$y_${d}_pid"; done | tr ' ' '\n' | grep . | tr '\n' ' ')

# our_rows FILE: the rows that mention our helpers, sorted (column order kept).
our_rows() {
	awk -v pids=" $pids " '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; print; next }
		{
			keep = 0
			if ("pid" in h && index(pids, " " $(h["pid"]) " ")) keep = 1
			if ("holders" in h) {
				n = split($(h["holders"]), a, ",")
				for (i = 1; i <= n; i++) if (index(pids, " " a[i] " ")) keep = 1
			}
			if (keep) print
		}' "$1" | sort
}
# Device rows without the usage columns (other clients may allocate meanwhile).
dev_rows() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "used" || $i == "free") drop[i] = 1 }
		{ s = ""; for (i = 1; i <= NF; i++) if (!(i in drop)) s = s " " $i; print s }' "$1" | sort
}

snap processes; snap buffers; snap devices
our_rows "$GM_TMP/processes" >"$GM_TMP/p.before"
our_rows "$GM_TMP/buffers" >"$GM_TMP/b.before"
dev_rows "$GM_TMP/devices" >"$GM_TMP/d.before"

tc_begin reload
if [ "$(wc -l <"$GM_TMP/p.before")" -le 1 ]; then
	tc_fail "no processes rows for the helpers ($pids) before the reload"
fi
if rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	[ -e "$GM_DEBUGFS" ] && tc_fail "$GM_DEBUGFS still exists after rmmod"
	if ! modprobe gpumem 2>"$GM_TMP/modprobe.err"; then
		if [ -n "$ko" ] && insmod "$ko" 2>>"$GM_TMP/modprobe.err"; then
			log "modprobe failed ($(cat "$GM_TMP/modprobe.err")), insmod $ko worked"
		else
			tc_fail "reload failed: $(cat "$GM_TMP/modprobe.err")"
		fi
	fi
	wait_until 10 test -r "$GM_DEBUGFS/buffers" || tc_fail "$GM_DEBUGFS/buffers not back 10 s after loading"
	snap processes; snap buffers; snap devices
	our_rows "$GM_TMP/processes" >"$GM_TMP/p.after"
	our_rows "$GM_TMP/buffers" >"$GM_TMP/b.after"
	dev_rows "$GM_TMP/devices" >"$GM_TMP/d.after"
	for f in p b d; do
		if ! cmp -s "$GM_TMP/$f.before" "$GM_TMP/$f.after"; then
			log "$f before:"; sed 's/^/#   /' "$GM_TMP/$f.before"
			log "$f after:"; sed 's/^/#   /' "$GM_TMP/$f.after"
			tc_fail "$(case $f in p) echo processes ;; b) echo buffers ;; d) echo devices ;; esac) rows differ after the reload"
		fi
	done
else
	tc_fail "rmmod gpumem with buffers held: $(cat "$GM_TMP/rmmod.err")"
fi
tc_end

finish
