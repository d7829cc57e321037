#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side checks, run by scripts/test.sh before the guests boot. Prints one
# GPUMEM-RESULT line per check (series "host"):
#   checkpatch   checkpatch.pl --strict (.checkpatch.conf) on kmod/ and kunit/
#   sparse       make C=2 against the test kernel's full tree
#   w1-<series>  a W=1 build against each Debian kernel's headers (6.1, 6.12,
#                and 7.3 inside the trixie tree with its gcc-14), no warning
#   uapi-spec    uapi/gpumem.h is what YNL generates from uapi/gpumem.yaml
#   spec-perms   kmod/netlink.c's admin-only ops are the spec's admin-perm ops
#   userspace    gpumemctl builds with -Werror (and with make CFLAGS=/CPPFLAGS=),
#                its unit tests pass, top behaves on a terminal (tmux)
#   check-log/*  the result checker's self-test (scripts/check-log-selftest.py)
# The kernel tree comes from build-testkernel.sh (linux-source-6.12). Nothing
# here is ever skipped: a missing tree or kernel is a FAIL (scripts/test.sh
# fetches and builds them first).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fetch-kernels.sh"	# TRIXIE, in_trixie
set +e	# (it sets -e): every check reports, whatever fails
cd "$GPUMEM_TOP"

pass() { echo "GPUMEM-RESULT: PASS host $1"; }
fail() { echo "GPUMEM-RESULT: FAIL host $1: $2"; }

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
	# who may do what: kmod/netlink.c's GENL_ADMIN_PERM ops = the spec's
	# admin-perm ops (the CLI's fake kernel is generated from the same spec)
	check spec-perms python3 scripts/gen-perms.py uapi/gpumem.yaml --check-kmod kmod/netlink.c
else
	for c in checkpatch sparse uapi-spec; do
		fail "$c" "no kernel source tree in '$src' (scripts/build-testkernel.sh failed?)"
	done
fi

# BTF generation needs the vmlinux the headers do not ship: not a warning.
w1_filter="grep -v -e 'Skipping BTF generation' -e '^\$'"
# w1_trixie KBUILD DIR: a W=1 build inside the trixie tree; its warnings.
w1_trixie() {
	local out rc
	out=$(in_trixie make -s -C "$1" M="$2" W=1 modules 2>&1); rc=$?
	printf '%s\n' "$out" | grep -v -e 'Skipping BTF generation' -e '^$'
	return $rc
}
for s in 6.1 6.12 7.3; do
	kb=$(cat "$GPUMEM_CACHE/kernels/$s/build" 2>/dev/null || true)
	if [ -z "$kb" ]; then
		fail "w1-$s" "kernel $s is not in $GPUMEM_CACHE/kernels (scripts/fetch-kernels.sh failed?)"
		continue
	fi
	if [ "$(cat "$GPUMEM_CACHE/kernels/$s/chroot" 2>/dev/null)" = trixie ]; then
		# 7.x headers want trixie's gcc-14: build inside that tree.
		rm -rf "$TRIXIE/build/w1-$s"; mkdir -p "$TRIXIE/build/w1-$s"
		rsync -a "$tmp/src/" "$TRIXIE/build/w1-$s/"
		check "w1-$s" w1_trixie "$kb" "/build/w1-$s"
		rm -rf "$TRIXIE/build/w1-$s"
		continue
	fi
	rm -rf "$tmp/w1"; rsync -a "$tmp/src/" "$tmp/w1/"
	check "w1-$s" sh -c "out=\$(make -s -C '$kb' M='$tmp/w1' W=1 modules 2>&1); rc=\$?
		printf '%s\n' \"\$out\" | $w1_filter; exit \$rc"
done

if [ -e userspace/Makefile ]; then
	# Only the exit status: static libnl links warn about NSS functions.
	if make -s -C "$tmp/src/userspace" >/dev/null 2>&1; then
		pass userspace-build
	else
		make -s -C "$tmp/src/userspace" 2>&1 | tail -n 40 >&2
		fail userspace-build "make -C userspace failed"
	fi
	# CFLAGS/CPPFLAGS on the command line add to what the build needs
	make -s -C "$tmp/src/userspace" clean >/dev/null 2>&1
	if out=$(make -C "$tmp/src/userspace" gpumemctl CFLAGS=-O1 CPPFLAGS=-DGM_HOST_CHECK 2>&1) &&
		grep -q -- '-O1' <<<"$out" && grep -q -- '-DGM_HOST_CHECK' <<<"$out" &&
		grep -q -- '-Werror' <<<"$out" && grep -q -- '-I/usr/include/libnl3' <<<"$out"; then
		pass userspace-make-flags
	else
		printf '%s\n' "$out" | tail -n 20 >&2
		fail userspace-make-flags "make CFLAGS=-O1 CPPFLAGS=... lost the build's own flags"
	fi
	out=$(make -s -C "$tmp/src/userspace" check 2>&1); rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc = 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "userspace-unit ($last)"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail userspace-unit "make -C userspace check: $last"
	fi
	# top on a real terminal (tmux): redraw on resize, Ctrl-Z and fg, q
	out=$(timeout 120 "$tmp/src/userspace/tests/top-tty.sh" "$tmp/src/userspace/tests/gpumemctl-fake" 2>&1)
	rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc = 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "userspace-top-tty ($last)"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail userspace-top-tty "tests/top-tty.sh: $last"
	fi
else
	fail userspace "no userspace/Makefile"
fi

# The result checker itself: made-up runs it must judge right.
python3 scripts/check-log-selftest.py || true
