#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host-side checks, run by scripts/test.sh before the guests boot. Prints one
# GPUMEM-RESULT line per check (series "host"):
#   checkpatch   checkpatch.pl --strict (.checkpatch.conf) on kmod/ and kunit/
#   sparse       make C=2 against Debian 6.12's headers (7.3's kbuild refuses
#                bookworm's sparse 0.6.4: it cannot parse __typeof_unqual__)
#   w1-<series>  a W=1 build against each Debian kernel's headers (6.1, 6.12,
#                and 7.3 inside the trixie tree with its gcc-14), no warning
#   uapi-spec    uapi/gpumem.h and kmod/netlink_gen.[ch] (the module's
#                policies, op table, group, family) are what scripts/gen-uapi.sh
#                generates from uapi/gpumem.yaml (w1-* build them everywhere)
#   spec-perms   the module's admin-only ops and CAP_SYS_ADMIN-only group
#                are the spec's admin-perm ones, and no kmod/ file but the
#                generated one declares ops, policies or groups
#   userspace-spec  userspace/libgpumem/nlspec.[ch] are what the spec generates
#   dkms-<series> dkms add + dkms build of the module against each Debian
#                kernel (7.3 inside the trixie tree), in a private DKMS tree
#   userspace    gpumemctl and gpumem-oci-hook (static: userspace-hook-static)
#   cdi-spec     gpumemctl cdi generate: valid against CDI's schema, exact
#                devices, nodes and hooks (scripts/check-cdi.sh)
#                build with -Werror (and with make CFLAGS=/CPPFLAGS=),
#                its unit tests pass, top behaves on a terminal (tmux)
#   gpumemd-metrics  gpumemd's scrape (simulated kernel) passes promtool
#                check metrics and holds every line of gpumemctl export
#   gpumemd-events, gpumemd-http  its event counters and JSON lines across
#                a simulated unload, its HTTP statuses
#   prometheus-rules  deploy/prometheus: promtool check rules + test rules;
#                grafana-promql: the dashboard's queries parse
#   driver-tables  kmod/classify.c's driver table against the DRM sources of
#                6.1, 6.12 and 7.3 (scripts/check-driver-tables.py); and its
#                self-test driver-tables-selftest (a changed row or unit fails)
#   check-log/*  the result checker's self-test (scripts/check-log-selftest.py)
#   guest-bg-fd  every background command of tests/guest closes fd 8, the
#                result descriptor (scripts/check-guest-bg.py), and its self-test
# The kernel tree comes from build-testkernel.sh (linux-source-7.3). Nothing
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
	# sparse against Debian 6.12's headers: the test kernel's 7.3 tree
	# refuses bookworm's sparse 0.6.4 (scripts/checker-valid.sh: no
	# __typeof_unqual__) and would skip the check with a warning
	check sparse make -s -C "$(cat "$GPUMEM_CACHE/kernels/6.12/build" 2>/dev/null)" \
		M="$tmp/src" C=2 W=1 modules
	check uapi-spec bash scripts/gen-uapi.sh --check
	# who may do what: the generated ops and group grant what the spec
	# says (the CLI's fake kernel is generated from the same spec)
	check spec-perms python3 scripts/gen-perms.py uapi/gpumem.yaml --check-kmod kmod
else
	for c in checkpatch sparse uapi-spec spec-perms; do
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

# dkms-<series>: the module as DKMS builds it for an admin (docs/node.md, "DKMS"):
# `make dkms-source` copies the sources, then `dkms add` and `dkms build -k
# <kver> --kernelsourcedir <headers>` against each Debian kernel, 7.3 with
# trixie's dkms inside the trixie tree. Everything lives in a private DKMS
# tree (--dkmstree/--sourcetree/--installtree): the host's /var/lib/dkms,
# /usr/src and /lib/modules are not touched (this host's kernel has no
# modules at all). dkms signs what it builds when it finds a sign-file
# (/usr/lib/linux-kbuild-<x.y>/scripts, or <install tree>/<kver>/build/scripts)
# and then makes a MOK key in /var/lib/dkms: sign_file, read from the
# environment by bookworm's and trixie's dkms alike, points nowhere, and the
# key paths point into the private tree should a dkms sign anyway. PASS when
# the .ko exists, is unsigned and has the vermagic of the kernel's drm.ko.
dkms_version=$(cat VERSION 2>/dev/null)
# dkms_check SERIES DIR: DIR is where the private tree lives inside the
# build root; $run is empty on the host, in_trixie for a trixie kernel.
dkms_check() {
	local s=$1 d=$2 kver kb root want ko got f rc
	kver=$(cat "$GPUMEM_CACHE/kernels/$s/kver")
	kb=$(cat "$GPUMEM_CACHE/kernels/$s/build")
	root=$GPUMEM_CACHE/kernels/$s/root
	$run sh -c 'command -v dkms' >/dev/null ||
		{ echo "no dkms in the build root (setup-host.sh / fetch-kernels.sh 7.3)"; return 1; }
	rm -rf "$top$d"; mkdir -p "$top$d/tree" "$top$d/install"
	make -s -C "$tmp/src" dkms-source DKMS_SRC="$top$d/src/gpumem-$dkms_version" || return 1
	local opts=(--dkmstree "$d/tree" --sourcetree "$d/src" --installtree "$d/install")
	$run dkms add -m gpumem -v "$dkms_version" "${opts[@]}" >"$top$d/log" 2>&1 &&
	$run env sign_file="$d/no-sign-file" mok_signing_key="$d/mok.key" \
		mok_certificate="$d/mok.pub" \
		dkms build -m gpumem -v "$dkms_version" -k "$kver" \
		--kernelsourcedir "$kb" "${opts[@]}" >>"$top$d/log" 2>&1
	rc=$?
	ko=$(find "$top$d/tree/gpumem/$dkms_version/$kver" -path '*/module/gpumem.ko*' 2>/dev/null | head -n1)
	if [ $rc != 0 ] || [ -z "$ko" ]; then
		cat "$top$d/log"
		f=$(find "$top$d/tree" -name make.log | head -n1)
		[ -n "$f" ] && tail -n 30 "$f"
		echo "dkms exited $rc$([ -n "$ko" ] || echo ', no gpumem.ko')"
		return 1
	fi
	f=$(find -L "$root/lib/modules/$kver/kernel/drivers/gpu/drm" -maxdepth 1 -name 'drm.ko*' | head -n1)
	want=$(modinfo -F vermagic "$f" 2>/dev/null)
	got=$(modinfo -F vermagic "$ko")
	[ -n "$want" ] || { echo "no drm.ko of $kver in $root"; return 1; }
	[ "$got" = "$want" ] || { echo "vermagic '$got', kernel's '$want'"; return 1; }
	[ -z "$(modinfo -F signer "$ko")" ] || { echo "dkms signed the module"; return 1; }
	rm -rf "$top$d"
}
for s in 6.1 6.12 7.3; do
	if [ ! -s "$GPUMEM_CACHE/kernels/$s/build" ] || [ -z "$dkms_version" ]; then
		fail "dkms-$s" "kernel $s is not in $GPUMEM_CACHE/kernels or no VERSION file"
		continue
	fi
	if [ "$(cat "$GPUMEM_CACHE/kernels/$s/chroot" 2>/dev/null)" = trixie ]; then
		run=in_trixie top=$TRIXIE d=/build/dkms-$s
	else
		run='' top='' d=$tmp/dkms-$s
	fi
	if out=$(dkms_check "$s" "$d" 2>&1); then
		pass "dkms-$s"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail "dkms-$s" "$(printf '%s\n' "$out" | tail -n 1)"
		rm -rf "$top$d"
	fi
done

# gpumemctl's wire model (policies, attribute and enum names) is what
# scripts/gen-nlspec.py generates from the spec (no kernel tree needed)
check userspace-spec python3 scripts/gen-nlspec.py uapi/gpumem.yaml --check \
	userspace/libgpumem/nlspec.c userspace/libgpumem/nlspec.h
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
	if out=$(make -C "$tmp/src/userspace" gpumemctl/gpumemctl CFLAGS=-O1 CPPFLAGS=-DGM_HOST_CHECK 2>&1) &&
		grep -q -- '-O1' <<<"$out" && grep -q -- '-DGM_HOST_CHECK' <<<"$out" &&
		grep -q -- '-Werror' <<<"$out" && grep -q -- '-I/usr/include/libnl3' <<<"$out"; then
		pass userspace-make-flags
	else
		printf '%s\n' "$out" | tail -n 20 >&2
		fail userspace-make-flags "make CFLAGS=-O1 CPPFLAGS=... lost the build's own flags"
	fi
	# gpumem-oci-hook: static (a runtime runs it from any root), json-c's
	# include path kept with the user's flags
	if out=$(make -C "$tmp/src/userspace" oci-hook/gpumem-oci-hook CFLAGS=-O1 CPPFLAGS=-DGM_HOST_CHECK 2>&1) &&
		grep -q -- '-DGM_HOST_CHECK' <<<"$out" && grep -q -- '-I/usr/include/json-c' <<<"$out" &&
		file "$tmp/src/userspace/oci-hook/gpumem-oci-hook" | grep -q 'statically linked'; then
		pass userspace-hook-static
	else
		printf '%s\n' "$out" | tail -n 20 >&2
		fail userspace-hook-static "gpumem-oci-hook: not built static, or lost json-c's flags"
	fi
	out=$(make -s -C "$tmp/src/userspace" check 2>&1); rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc = 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "userspace-unit ($last)"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail userspace-unit "make -C userspace check: $last"
	fi
	# cdi-spec: gpumemctl cdi generate against the CDI project's schema
	bash scripts/check-cdi.sh "$tmp/src/userspace/gpumemctl/gpumemctl"
	# top on a real terminal (tmux): redraw on resize, Ctrl-Z and fg, q
	out=$(timeout 120 "$tmp/src/userspace/gpumemctl/tests/top-tty.sh" "$tmp/src/userspace/tests/gpumemctl-fake" 2>&1)
	rc=$?
	last=$(printf '%s\n' "$out" | tail -n 1)
	if [ $rc = 0 ] && [[ $last =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		pass "userspace-top-tty ($last)"
	else
		printf '%s\n' "$out" | tail -n 40 >&2
		fail userspace-top-tty "gpumemctl/tests/top-tty.sh: $last"
	fi
	# gpumemd against the simulated kernel: gpumemd-metrics, -events, -http
	bash userspace/gpumemd/tests/gpumemd-checks.sh "$tmp/src/userspace"
else
	fail userspace "no userspace/Makefile"
fi
# deploy/: prometheus-rules (check + unit tests), grafana-promql
bash deploy/check.sh

# driver-tables: kmod/classify.c's table against each kernel's own DRM driver
# sources (scripts/fetch-driver-sources.sh); its per-driver summary goes to
# the log. driver-tables-selftest: the checker fails, naming the driver, on a
# copy of classify.c with one region row and, separately, one unit changed.
out=$(python3 scripts/check-driver-tables.py 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/  driver-tables: /' >&2
if [ $rc = 0 ] && ! grep -q '^FAIL' <<<"$out"; then
	pass driver-tables
else
	fail driver-tables "scripts/check-driver-tables.py: $(grep -c '^FAIL' <<<"$out") mismatch(es): $(grep -m1 '^FAIL' <<<"$out" | cut -c1-300)"
fi
# dt_sabotage NAME DRIVER SED-EXPR WANT-REGEX: the checker on a changed copy
# (6.12 only) must print a new FAIL line for DRIVER matching WANT-REGEX.
dt_base=$(python3 scripts/check-driver-tables.py --quiet --readme '' --series 6.12 2>&1)
dt_sabotage() {
	local copy=$tmp/classify-$1.c new
	sed "$3" kmod/classify.c > "$copy"
	if cmp -s kmod/classify.c "$copy"; then
		echo "$1: the sabotage '$3' changed nothing in kmod/classify.c"
		return
	fi
	new=$(python3 scripts/check-driver-tables.py --quiet --readme '' --series 6.12 \
		--classify "$copy" 2>&1 | grep '^FAIL' | grep -vxF -f <(printf '%s\n' "$dt_base"))
	grep -q "^FAIL: $2 6.12: .*$4" <<<"$new" ||
		echo "$1: no new 'FAIL: $2 6.12: ...$4' (new lines: ${new:-none})"
}
dt_out=$(dt_sabotage row qxl '/surface BAR/s/R(VRAM)/R(OTHER)/' \
		'TTM_PL_PRIV = 3 .* means vram but the table.s \[3\] says other'
	dt_sabotage unit amdgpu 's/\.bytes_mask = BIT(PL_TT) | BIT(PL_VRAM)/.bytes_mask = BIT(PL_TT)/' \
		'VRAM manager (type 2) is sized in bytes but .* says pages')
if [ -z "$dt_out" ]; then
	pass driver-tables-selftest
else
	printf '%s\n' "$dt_out" >&2
	fail driver-tables-selftest "$(head -n1 <<<"$dt_out" | cut -c1-300)"
fi

# The result checker itself: made-up runs it must judge right.
python3 scripts/check-log-selftest.py || true

# Every background command of the guest scripts closes the result
# descriptor (fd 8); and the lint catches one that does not.
check guest-bg-fd python3 scripts/check-guest-bg.py tests/guest
bgt=$(mktemp -d)
printf '. ./lib.sh\nsleep 1 >/dev/null 2>&1 &\n' >"$bgt/10-x.sh"
if python3 scripts/check-guest-bg.py "$bgt" >/dev/null; then
	fail guest-bg-fd-selftest "a background command without 8>&- passed the lint"
else
	pass guest-bg-fd-selftest
fi
rm -rf "$bgt"
