#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl exits 3 when the gpumem module is not loaded (no generic netlink
# family "gpumem"): rmmod gpumem, run every command, load it again.
# Module auto-loading (a genl family alias makes the kernel modprobe the
# module when the family is asked for) is turned off meanwhile through
# /proc/sys/kernel/modprobe, so the family really is missing; a guest where
# it cannot be turned off (or a command that loads the module anyway) is a
# FAIL: nothing would be checked there.
# Runs before 90-reload; if loading fails again, that test reports it too.
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
if [ ! -x "$CTL" ]; then
	fail ctl-nomodule "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"
	finish
fi
if ! grep -q '^gpumem ' /proc/modules; then
	fail ctl-nomodule "gpumem is not a loaded module here"
	finish
fi
ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)

MP=/proc/sys/kernel/modprobe
old_mp=$(cat "$MP" 2>/dev/null)
mp_off=0
restore_mp() { [ "$mp_off" = 1 ] && echo "$old_mp" >"$MP"; mp_off=0; }
# load gpumem again, whatever happened
reload() {
	restore_mp
	grep -q '^gpumem ' /proc/modules && return 0
	modprobe gpumem 2>"$GM_TMP/modprobe.err" || { [ -n "$ko" ] && insmod "$ko"; } ||
		{ echo "could not load gpumem again: $(cat "$GM_TMP/modprobe.err")" >&2; return 1; }
	wait_until 10 test -r "$GM_DEBUGFS/devices"
}
trap 'reload; _gm_cleanup' EXIT

tc_begin ctl-nomodule
if [ -w "$MP" ] && echo /bin/false >"$MP" && [ "$(cat "$MP")" = /bin/false ]; then
	mp_off=1
else
	tc_fail "cannot turn off module auto-loading ($MP: '$(cat "$MP" 2>&1)')"
	tc_end
	finish
fi
if ! rmmod gpumem 2>"$GM_TMP/rmmod.err"; then
	tc_fail "rmmod gpumem: $(cat "$GM_TMP/rmmod.err")"
	tc_end
	finish
fi
for args in devices ps "ps --pid 1" "--json ps" stats "buffers --pid 1" "export --prometheus" \
	"top --iterations 1"; do
	# shellcheck disable=SC2086 # word splitting of args is intended
	"$CTL" $args >"$GM_TMP/nm.out" 2>"$GM_TMP/nm.err"
	rc=$?
	if grep -q '^gpumem ' /proc/modules; then
		tc_fail "gpumemctl $args loaded gpumem (auto-loading is off: $MP is '$(cat "$MP")')"
		rmmod gpumem 2>/dev/null
	fi
	tc_eq "gpumemctl $args without the module: exit" "$rc" 3
	grep -q 'not loaded' "$GM_TMP/nm.err" ||
		tc_fail "gpumemctl $args: no 'not loaded' message: '$(_oneline "$(cat "$GM_TMP/nm.err")")'"
	tc_eq "gpumemctl $args without the module: stdout" "$(cat "$GM_TMP/nm.out")" ""
done
# usage errors come first
"$CTL" ps --pid abc >/dev/null 2>&1
tc_eq "bad argument without the module: exit" "$?" 2
if reload; then
	"$CTL" stats >"$GM_TMP/nm.out" 2>"$GM_TMP/nm.err"
	tc_eq "gpumemctl stats after loading gpumem again: exit" "$?" 0
else
	tc_fail "could not load gpumem again"
fi
tc_end

finish
