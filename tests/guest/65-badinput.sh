#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad input: an unknown module parameter is ignored with the kernel's one-line
# "unknown parameter" warning and the module works; writes to the 0444
# debugfs files fail (root bypasses the mode bits; the files have no write
# operation) and leave them readable; a debugfs file held open across
# "rmmod gpumem" either keeps the module loaded (debugfs holds a module
# reference for open files) or fails cleanly; after rmmod the files are gone
# and reading them fails. gpumem is loaded again at the end, whatever happened.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="badinput-write badinput-unknown-param badinput-open-across-rmmod badinput-after-rmmod"
if ! grep -q '^gpumem ' /proc/modules; then
	for t in $CASES; do skip "$t" "gpumem is not a loaded module here"; done
	finish
fi
ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)

# load_gpumem [ARGS...]: modprobe (insmod as a fallback), wait for debugfs.
load_gpumem() {
	if ! modprobe gpumem "$@" 2>"$GM_TMP/modprobe.err"; then
		[ -n "$ko" ] && insmod "$ko" "$@" 2>>"$GM_TMP/modprobe.err" || return 1
	fi
	wait_until 10 test -r "$GM_DEBUGFS/stats"
}
# Whatever happened, leave gpumem loaded for the tests after this one.
ensure_loaded() {
	grep -q '^gpumem ' /proc/modules && return 0
	log "gpumem is not loaded: loading it again"
	load_gpumem || fail badinput-reload "modprobe gpumem: $(cat "$GM_TMP/modprobe.err")"
}

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
	if (echo garbage >"$p") 2>"$GM_TMP/w1.err"; then
		tc_fail "echo >$f succeeded"
	fi
	if (echo garbage >>"$p") 2>"$GM_TMP/w2.err"; then
		tc_fail "echo >>$f succeeded"
	fi
	if printf 'x' | dd of="$p" bs=1 conv=notrunc 2>"$GM_TMP/w3.err"; then
		tc_fail "dd of=$f succeeded"
	fi
	log "  $f: > says '$(_oneline "$(cat "$GM_TMP/w1.err")")'; >> says '$(_oneline "$(cat "$GM_TMP/w2.err")")'; dd says '$(_oneline "$(grep -v records "$GM_TMP/w3.err")")'"
	readable "$f" || tc_fail "$f unreadable after the writes: $(cat "$GM_TMP/read.$f.err")"
done
tc_eq "kernel reports after the writes" "$(since write | splats)" ""
tc_end

# --- unknown module parameter ----------------------------------------------------
tc_begin badinput-unknown-param
mark param
if ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
	tc_end
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
# debugfs takes a reference on the owner module of an open file's fops, so
# rmmod must refuse while the file is open; should it not, reading the open
# file must fail (debugfs: -EIO after removal), never reach freed module code.
tc_begin badinput-open-across-rmmod
mark open
# (A failed redirection of exec would end the script: try it in a subshell first.)
if (exec 3<"$GM_DEBUGFS/processes") 2>/dev/null && exec 3<"$GM_DEBUGFS/processes"; then
	IFS= read -r hdr <&3
	tc_eq "header read from the open file" "$hdr" "$GM_HDR_processes"
	if rmmod gpumem 2>"$GM_TMP/rmmod-open.err"; then
		log "  rmmod succeeded with the file open"
		if cat <&3 >"$GM_TMP/rest" 2>"$GM_TMP/rest.err"; then
			log "  reading the open file after rmmod: $(wc -l <"$GM_TMP/rest" | tr -d ' ') lines, no error"
		else
			log "  reading the open file after rmmod failed: $(cat "$GM_TMP/rest.err")"
		fi
		exec 3<&-
		tc_eq "debugfs directory after rmmod" "$(ls -d "$GM_DEBUGFS" 2>/dev/null)" ""
	else
		log "  rmmod refused while the file is open: $(_oneline "$(cat "$GM_TMP/rmmod-open.err")")"
		tc_eq "module state while refused" "$(cat /sys/module/gpumem/initstate 2>/dev/null)" live
		# The snapshot taken at open() is still printed in full.
		cat <&3 >"$GM_TMP/rest" 2>"$GM_TMP/rest.err" || tc_fail "reading the rest: $(cat "$GM_TMP/rest.err")"
		bad=$(awk 'NF != 12 { print "line " NR ": " $0; exit }' "$GM_TMP/rest")
		tc_eq "rows after the refused rmmod" "$bad" ""
		exec 3<&-
		rmmod gpumem 2>"$GM_TMP/rmmod-open.err" ||
			tc_fail "rmmod after closing the file: $(cat "$GM_TMP/rmmod-open.err")"
	fi
else
	tc_fail "cannot open $GM_DEBUGFS/processes"
fi
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
