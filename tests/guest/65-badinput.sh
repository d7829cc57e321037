#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input, one documented outcome each: an unknown module parameter is
# ignored with the kernel's one-line "unknown parameter" warning and the
# module works; writes to the 0444 debugfs files fail with EINVAL (root
# bypasses the mode bits; the files have no write operation) and leave them
# readable; a debugfs file held open keeps exactly one module reference, so
# "rmmod gpumem" is refused with EWOULDBLOCK while it is open and the
# snapshot taken at open() is still read in full; after rmmod the files are
# gone (ENOENT). gpumem is loaded again at the end, whatever happened.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="badinput-write badinput-unknown-param badinput-open-across-rmmod badinput-after-rmmod"
if ! grep -q '^gpumem ' /proc/modules; then
	for t in $CASES; do fail "$t" "gpumem is not in /proc/modules (the guest's init loads it as a module)"; done
	finish
fi

# load_gpumem [ARGS...]: modprobe (insmod as a fallback), wait for debugfs.
# Whatever happened, leave gpumem loaded for the tests after this one (a
# failure counts against the current case).
ensure_loaded() {
	grep -q '^gpumem ' /proc/modules && return 0
	log "gpumem is not loaded: loading it again"
	load_gpumem || tc_fail "loading gpumem again: $(cat "$GM_TMP/modprobe.err")"
}
# refcnt: the module's reference count ("" when it is not loaded)
refcnt() { cat /sys/module/gpumem/refcnt 2>/dev/null; }

# mark NAME: a line in the kernel log; since NAME prints the log after it.
mark() { echo "gpumem-test: 65-badinput $1 $$" >/dev/kmsg; }
since() { dmesg | sed -n "/gpumem-test: 65-badinput $1 $$/,\$p" | sed 1d; }
# Kernel problem reports (scripts/check-log fails the run on them too; this
# names the step that caused one).
splats() { grep -E 'Call Trace|WARNING:|BUG:|Oops|KASAN|general protection|refcount_t|possible .*locking' ; }

# readable FILE: exit 0, documented header.
readable() {
	eval "_want=\$GM_HDR_$1"
	cat "$GM_DEBUGFS/$1" >"$GM_TMP/read.$1" 2>"$GM_TMP/read.$1.err" &&
		[ "$(head -n 1 "$GM_TMP/read.$1")" = "$_want" ]
}

# --- writes to the read-only files --------------------------------------------
tc_begin badinput-write
mark write
for f in devices processes buffers stats; do
	p=$GM_DEBUGFS/$f
	tc_eq "$f mode" "$(stat -c %a "$p")" 444
	# ">" opens O_WRONLY|O_TRUNC, ">>" O_APPEND; dd writes without truncating.
	# The open succeeds (root), the write(2) fails: EINVAL, no write op.
	if (echo garbage >"$p") 2>"$GM_TMP/w1.err"; then
		tc_fail "echo >$f succeeded"
	fi
	if (echo garbage >>"$p") 2>"$GM_TMP/w2.err"; then
		tc_fail "echo >>$f succeeded"
	fi
	if printf 'x' | dd of="$p" bs=1 conv=notrunc 2>"$GM_TMP/w3.err"; then
		tc_fail "dd of=$f succeeded"
	fi
	for w in 1 2 3; do
		grep -q 'Invalid argument' "$GM_TMP/w$w.err" ||
			tc_fail "$f write $w: not EINVAL: '$(_oneline "$(grep -v records "$GM_TMP/w$w.err")")'"
	done
	log "  $f: > says '$(_oneline "$(cat "$GM_TMP/w1.err")")'; >> says '$(_oneline "$(cat "$GM_TMP/w2.err")")'; dd says '$(_oneline "$(grep -v records "$GM_TMP/w3.err")")'"
	readable "$f" || tc_fail "$f unreadable after the writes: $(cat "$GM_TMP/read.$f.err")"
done
tc_eq "kernel reports after the writes" "$(since write | splats)" ""
tc_end

# --- unknown module parameter ----------------------------------------------------
tc_begin badinput-unknown-param
mark param
if ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	why="rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
	tc_fail "$why"
	tc_end
	# every later case starts from an rmmod
	for t in badinput-open-across-rmmod badinput-after-rmmod; do fail "$t" "badinput-unknown-param: $why"; done
	finish
fi
tc_eq "debugfs directory after rmmod" "$(ls -d "$GM_DEBUGFS" 2>/dev/null)" ""
if load_gpumem bogus=1; then
	tc_eq "module state" "$(cat /sys/module/gpumem/initstate 2>/dev/null)" live
	tc_eq "a parameter named bogus" "$(ls /sys/module/gpumem/parameters/bogus 2>/dev/null)" ""
	for f in devices processes buffers stats; do
		readable "$f" || tc_fail "$f not readable after loading with bogus=1: $(cat "$GM_TMP/read.$f.err")"
	done
else
	tc_fail "modprobe gpumem bogus=1 failed: $(cat "$GM_TMP/modprobe.err")"
fi
since param >"$GM_TMP/param.log"
sed 's/^/#   dmesg: /' "$GM_TMP/param.log"
tc_eq "unknown-parameter lines" \
	"$(grep -c "gpumem: unknown parameter 'bogus' ignored" "$GM_TMP/param.log")" 1
tc_eq "kernel reports while loading" "$(splats <"$GM_TMP/param.log")" ""
ensure_loaded
tc_end

# --- a file held open across rmmod ------------------------------------------------------
# debugfs takes a reference on the owner module of an open file's fops
# (full_proxy_open -> fops_get): refcnt is one higher while the file is
# open, and rmmod (busybox: O_NONBLOCK) is refused with EWOULDBLOCK; the
# snapshot taken at open() is still read in full (a helper's row with its
# exact buffers, although the helper exited after the open); once the file
# is closed the reference is gone and rmmod succeeds.
tc_begin badinput-open-across-rmmod
h_pid=""
spawn h alloc -d vgem -k dumb -n 2 -s 1M -c gm-bad-hold || tc_fail "helper: $(helper_why h)"
mark open
r0=$(refcnt)
# (A failed redirection of exec would end the script: try it in a subshell first.)
if (exec 3<"$GM_DEBUGFS/processes") 2>/dev/null && exec 3<"$GM_DEBUGFS/processes"; then
	IFS= read -r hdr <&3
	tc_eq "header read from the open file" "$hdr" "$GM_HDR_processes"
	tc_eq "module refcnt with the file open (before: $r0)" "$(refcnt)" "$(($(num "$r0") + 1))"
	if rmmod gpumem 2>"$GM_TMP/rmmod-open.err"; then
		tc_fail "rmmod succeeded with a debugfs file open"
		cat <&3 >/dev/null 2>&1
		exec 3<&-
	else
		log "  rmmod refused while the file is open: $(_oneline "$(cat "$GM_TMP/rmmod-open.err")")"
		grep -q 'Resource temporarily unavailable' "$GM_TMP/rmmod-open.err" ||
			tc_fail "rmmod refused, but not with EWOULDBLOCK: $(cat "$GM_TMP/rmmod-open.err")"
		tc_eq "module state while refused" "$(cat /sys/module/gpumem/initstate 2>/dev/null)" live
		# The snapshot taken at open() is still printed in full, with
		# the helper that has exited since.
		stop h
		cat <&3 >"$GM_TMP/rest" 2>"$GM_TMP/rest.err" || tc_fail "reading the rest: $(cat "$GM_TMP/rest.err")"
		bad=$(awk 'NF != 12 { print "line " NR ": " $0; exit }' "$GM_TMP/rest")
		tc_eq "rows after the refused rmmod" "$bad" ""
		# vram gtt system other shared owned bos
		tc_eq "the exited helper's row in the snapshot" \
			"$(awk -v p="${h_pid:-x}" '$1 == p { print $2, $6, $7, $8, $9, $10, $11, $12 }' "$GM_TMP/rest")" \
			"gm-bad-hold 0 0 $((2 * MiB)) 0 0 $((2 * MiB)) 2"
		exec 3<&-
		tc_eq "module refcnt once the file is closed" "$(refcnt)" "$r0"
		rmmod gpumem 2>"$GM_TMP/rmmod-open.err" ||
			tc_fail "rmmod after closing the file: $(cat "$GM_TMP/rmmod-open.err")"
	fi
	tc_eq "debugfs directory after rmmod" "$(ls -d "$GM_DEBUGFS" 2>/dev/null)" ""
else
	tc_fail "cannot open $GM_DEBUGFS/processes"
fi
[ -n "$h_pid" ] && _alive "$h_pid" && stop h
tc_eq "kernel reports" "$(since open | splats)" ""
tc_end

# --- reading after rmmod -----------------------------------------------------------------
tc_begin badinput-after-rmmod
mark after
if grep -q '^gpumem ' /proc/modules && ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
fi
tc_eq "/sys/module/gpumem after rmmod" "$(ls -d /sys/module/gpumem 2>/dev/null)" ""
for f in devices processes buffers stats; do
	if cat "$GM_DEBUGFS/$f" >"$GM_TMP/gone" 2>"$GM_TMP/gone.err"; then
		tc_fail "reading $f after rmmod succeeded ($(wc -c <"$GM_TMP/gone" | tr -d ' ') bytes)"
	else
		log "  $f after rmmod: $(_oneline "$(cat "$GM_TMP/gone.err")")"
		grep -q 'No such file or directory' "$GM_TMP/gone.err" ||
			tc_fail "reading $f after rmmod: not ENOENT: $(_oneline "$(cat "$GM_TMP/gone.err")")"
		tc_eq "$f output after rmmod" "$(wc -c <"$GM_TMP/gone" | tr -d ' ')" 0
	fi
done
# ... and loading it again brings everything back.
if load_gpumem; then
	for f in devices processes buffers stats; do
		readable "$f" || tc_fail "$f not readable after reloading: $(cat "$GM_TMP/read.$f.err")"
	done
else
	tc_fail "modprobe gpumem: $(cat "$GM_TMP/modprobe.err")"
fi
tc_eq "kernel reports" "$(since after | splats)" ""
ensure_loaded
tc_end

finish
