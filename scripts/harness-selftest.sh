#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The harness self-test, run by scripts/test.sh as the guest run "selftest":
# boots Debian 6.12 with gpumemtest.sabotage (scripts/guest-sabotage.sh
# breaks the suite on purpose) running 10-devices, 19-unlisted, 20-process-vram
# and 91-quota-enforce, and checks that scripts/check-log turned every break
# into a FAIL and none of it into a PASS. Prints one result per expectation,
# GPUMEM-RESULT: PASS|FAIL selftest <expectation>; exits 1 if one failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$(mktemp "${TMPDIR:-/tmp}/gpumem-selftest.XXXXXX")
trap 'rm -f "$out"' EXIT
GPUMEM_SABOTAGE=1 GPUMEM_LOG_BUF_LEN=kernel bash "$GPUMEM_TOP/scripts/run-guest.sh" 6.12 --label sabotaged \
	--only '10-*,19-*,20-*,91-quota-*' >"$out"
rc=$?
sed 's/^/    sabotaged run: /' "$out" >&2

failed=0
expect() {	# NAME WHY GREP-ARGS...: PASS when grep finds a match in the output
	local name=$1 why=$2; shift 2
	if grep -q "$@" "$out"; then
		echo "GPUMEM-RESULT: PASS selftest $name"
	else
		echo "GPUMEM-RESULT: FAIL selftest $name: $why"
		failed=1
	fi
}
refute() {	# NAME WHY GREP-ARGS...: PASS when grep finds no match
	local name=$1 why=$2; shift 2
	if grep -q "$@" "$out"; then
		echo "GPUMEM-RESULT: FAIL selftest $name: $why: $(grep "$@" "$out" | head -n 3 | tr '\n' ' ')"
		failed=1
	else
		echo "GPUMEM-RESULT: PASS selftest $name"
	fi
}

if [ $rc != 0 ]; then
	echo "GPUMEM-RESULT: PASS selftest sabotaged-run-is-red"
else
	echo "GPUMEM-RESULT: FAIL selftest sabotaged-run-is-red: run-guest.sh exited 0"
	failed=1
fi
expect guest-booted "the sabotaged guest did not run its tests" \
	-E '^GPUMEM-RESULT: PASS sabotaged init/module-load$'
# 1. limit set fails: every 91-quota-enforce case FAILs, none SKIPs or PASSes.
cases="quota-enforce-deny quota-enforce-no-eviction quota-enforce-event quota-deny-per-request
quota-set-below-usage quota-raise-clear quota-exact-zero quota-event-seq"
for c in $cases; do
	expect "limit-set-fails/$c" "no FAIL for 91-quota-enforce/$c" \
		-E "^GPUMEM-RESULT: FAIL sabotaged 91-quota-enforce/$c: setup: "
done
refute limit-set-fails/no-skip "a 91-quota-enforce case was a SKIP" \
	-E '^GPUMEM-RESULT: SKIP sabotaged 91-quota-enforce/'
# 2. the fake PASS lines of a helper count for nothing.
refute fake-pass-ignored "a helper's fake PASS counted" \
	-E '^GPUMEM-RESULT: PASS sabotaged (91-quota-enforce/)?quota-'
# 3. a deleted script is a FAIL.
expect deleted-script "10-devices.sh was deleted without a FAIL" \
	-E '^GPUMEM-RESULT: FAIL sabotaged 10-devices: never ran'
# 4. a script that exits 1 after its PASS lines is a FAIL.
expect exit-after-pass "20-process-vram exited 1 without a FAIL" \
	-E '^GPUMEM-RESULT: FAIL sabotaged 20-process-vram: exited 1'
expect exit-after-pass/cases-reported "20-process-vram's own cases did not come through" \
	-E '^GPUMEM-RESULT: PASS sabotaged 20-process-vram/'
# 5. a script the manifest does not know is a FAIL, and so is its PASS.
expect unlisted-script "19-unlisted ran without a FAIL" \
	-E '^GPUMEM-RESULT: FAIL sabotaged 19-unlisted: ran, but tests/manifest'
refute unlisted-case "19-unlisted's case counted as a PASS" \
	-E '^GPUMEM-RESULT: PASS sabotaged 19-unlisted/'
# 6. an early WARN wrapped out of a small log buffer: the console has it,
# and the dump that no longer starts at boot is a FAIL of its own.
expect early-warn/console "the early WARN (gone from the wrapped dump) was not found on the console" \
	-E '^GPUMEM-RESULT: FAIL sabotaged kernel-log: WARNING: CPU: 0 PID: 1 at scripts/guest-sabotage.sh:1 .*\[on the console'
expect early-warn/dump-wrapped "a kernel-log dump that does not start at boot passed" \
	-E '^GPUMEM-RESULT: FAIL sabotaged kernel-log/dump: the kernel-log dump does not start at boot'
# 7. KTAP forged through /dev/kmsg: a FAIL, and no KUnit PASS.
expect forged-ktap "KTAP forged through /dev/kmsg was not a FAIL" \
	-E '^GPUMEM-RESULT: FAIL sabotaged kernel-log/forged-ktap: the kernel log has "PASS kunit/gpumem_frag/frag_buddy_real"'
refute forged-ktap/no-pass "a forged KTAP result counted as a PASS" \
	-E '^GPUMEM-RESULT: PASS sabotaged kunit/'
exit $failed
