#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side checks, run by scripts/test.sh before the guests boot. Prints one
# GPUMEM-RESULT line per check (series "host"):
#   checkpatch   checkpatch.pl --strict (.checkpatch.conf) on kmod/ and kunit/
#   sparse       make C=2 against the test kernel's full tree
#   w1-<series>  a W=1 build against each Debian kernel's headers, no warning
#   uapi-spec    uapi/gpumem.h is what YNL generates from uapi/gpumem.yaml
#   userspace    gpumemctl builds with -Werror and its unit tests pass
# The kernel tree comes from build-testkernel.sh (linux-source-6.12).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$GPUMEM_TOP"

pass() { echo "GPUMEM-RESULT: PASS host $1"; }
fail() { echo "GPUMEM-RESULT: FAIL host $1: $2"; }
skip() { echo "GPUMEM-RESULT: SKIP host $1: $2"; }

# check NAME CMD...: PASS when CMD exits 0 and prints nothing.
check() {
	local name=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc = 0 ] && [ -z "$out" ]; then
		pass "$name"
	else
		printf '%s\n' "$out" | head -n 40 >&2
		fail "$name" "'$*' exited $rc with $(printf '%s\n' "$out" | grep -c .) line(s) of output"
	fi
}

src=$(cat "$GPUMEM_CACHE/kernels/test/build" 2>/dev/null || true)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Build in a copy: the checks never leave objects in the clone.
rsync -a --exclude .git --exclude build ./ "$tmp/src/"

if [ -x "$src/scripts/checkpatch.pl" ]; then
	check checkpatch sh -c "'$src/scripts/checkpatch.pl' --terse -f \
		kmod/*.c kmod/*.h kunit/*_test.c |
		grep -v '^total: 0 errors, 0 warnings, 0 checks' || true"
	check sparse make -s -C "$src" M="$tmp/src" C=2 W=1 modules
	check uapi-spec bash scripts/gen-uapi.sh --check
else
	for c in checkpatch sparse uapi-spec; do
		skip "$c" "no kernel source tree (scripts/build-testkernel.sh not run)"
	done
fi

for s in 6.1 6.12; do
	kb=$(cat "$GPUMEM_CACHE/kernels/$s/build" 2>/dev/null || true)
	if [ -z "$kb" ]; then
		skip "w1-$s" "kernel $s not fetched"
		continue
	fi
	rm -rf "$tmp/w1"; rsync -a "$tmp/src/" "$tmp/w1/"
	# BTF generation needs the vmlinux the headers do not ship: not a warning.
	check "w1-$s" sh -c "out=\$(make -s -C '$kb' M='$tmp/w1' W=1 modules 2>&1); rc=\$?
		printf '%s\n' \"\$out\" | grep -v -e 'Skipping BTF generation' -e '^\$'; exit \$rc"
done

if [ -e userspace/Makefile ]; then
	# Only the exit status: static libnl links warn about NSS functions.
	if make -s -C "$tmp/src/userspace" >/dev/null 2>&1; then
		pass userspace-build
	else
		make -s -C "$tmp/src/userspace" 2>&1 | tail -n 40 >&2
		fail userspace-build "make -C userspace failed"
	fi
	out=$(make -s -C "$tmp/src/userspace" check 2>&1); rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc = 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "userspace-unit ($last)"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail userspace-unit "make -C userspace check: $last"
	fi
else
	skip userspace "no userspace/ yet"
fi
