#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build gpumem.ko (and, for the test kernel, gpumem_kunit.ko) for one kernel
# series, out of the repository: the sources are copied to
#   $GPUMEM_CACHE/build/<series>/src    (7.x: $GPUMEM_CACHE/trixie/build/<series>/src)
# and the modules land in
#   $GPUMEM_CACHE/build/<series>/out/{gpumem.ko,gpumem_kunit.ko}
# A build is skipped when the sources, the kernel and the options hash the
# same as last time. Also builds the guest test programs (tests/guest/bin/,
# static, kernel-independent) when tests/guest/Makefile exists.
#
# Usage: build.sh SERIES       (6.1, 6.12, 7.3, test)
# Env:   W=1|2|3               kbuild's extra warnings (part of the cache key)
#        GPUMEM_NO_MODULE=1    build no module (harness self-test); out/ is left empty
#        GPUMEM_FORCE_BUILD=1  ignore the cache
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# in_trixie: run a command inside the trixie tree (7.x builds).
. "$GPUMEM_TOP/scripts/fetch-kernels.sh"

[ $# -eq 1 ] || die "usage: build.sh SERIES"
series=$1
kdir=$GPUMEM_CACHE/kernels/$series
[ -s "$kdir/kver" ] && [ -s "$kdir/build" ] ||
	die "kernel $series is not in the cache (run scripts/fetch-kernels.sh / build-testkernel.sh)"
kver=$(cat "$kdir/kver")
kbuild=$(cat "$kdir/build")
chroot_name=$(cat "$kdir/chroot" 2>/dev/null || true)
top=$GPUMEM_TOP
bdir=$GPUMEM_CACHE/build/$series
out=$bdir/out
jobs=$(nproc)

build_guest_progs() {
	if [ -e "$top/tests/guest/Makefile" ]; then
		log "building guest test programs (tests/guest/bin)"
		mkdir -p "$GPUMEM_CACHE"
		# One build at a time: run-guest.sh may run for several series at once.
		flock "$GPUMEM_CACHE/.guest-progs.lock" make -s -C "$top/tests/guest" CC=gcc -j"$jobs"
		if [ -e "$top/userspace/Makefile" ]; then
			log "building gpumemctl for the guest (tests/guest/bin/gpumemctl)"
			# static libnl warns about NSS functions it links; harmless
			flock "$GPUMEM_CACHE/.guest-progs.lock" \
				make -s -C "$top/userspace" guest 2>&1 |
				grep -v -e 'statically linked applications' -e 'in function' >&2 || true
			[ -x "$top/tests/guest/bin/gpumemctl" ] ||
				die "userspace: make guest did not produce tests/guest/bin/gpumemctl"
		fi
	else
		log "no tests/guest/Makefile yet: no guest test programs to build"
	fi
}

# The files of the repository a module build can see: everything but VCS
# data, documentation, the guest tests, CI glue and build products.
src_files() {
	(cd "$top" && find . \( -name .git -o -path ./docs -o -path ./tests -o -path ./.ci \
			-o -path ./build \) -prune -o -type f \
		! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
		! -name '.*.cmd' ! -name '*.a' ! -name 'modules.order' ! -name 'Module.symvers' \
		-print | LC_ALL=C sort)
}

has_module_sources() {
	[ -e "$top/Kbuild" ] || { [ -e "$top/Makefile" ] && [ -d "$top/kmod" ]; }
}

build_guest_progs

if [ "${GPUMEM_NO_MODULE:-0}" = 1 ]; then
	log "GPUMEM_NO_MODULE=1: not building gpumem for $series"
	rm -rf "$out" "$bdir/key"; mkdir -p "$out"
	exit 0
fi
has_module_sources ||
	die "no module sources (top-level Kbuild/Makefile + kmod/) in $top; set GPUMEM_NO_MODULE=1 to boot without gpumem"

# One module build per series at a time: test.sh boots the test kernel in
# two guests at once, and both start here (held until this script exits).
mkdir -p "$bdir"
exec 9>"$bdir.lock"
flock 9

# The kernel image is in the key: a test kernel rebuilt with another
# config keeps its release and build path, and a module built for the old
# one (another HZ, other sanitizer calls) must not be reused.
key=$( { echo "series=$series kver=$kver build=$kbuild W=${W:-}";
	cat "$kdir/key" 2>/dev/null || true
	sha256sum "$kdir"/root/boot/vmlinuz-* 2>/dev/null || true
	sha256sum "$0";
	src_files | (cd "$top" && xargs -r -d '\n' sha256sum); } | sha256sum | cut -c1-32)
if [ "${GPUMEM_FORCE_BUILD:-0}" != 1 ] && [ -e "$out/gpumem.ko" ] &&
   [ "$(cat "$bdir/key" 2>/dev/null)" = "$key" ]; then
	log "gpumem for $series ($kver) is up to date"
	exit 0
fi

# A fresh copy for every changed tree: a clean build takes seconds and
# leaves no stale objects behind.
if [ -n "$chroot_name" ]; then
	[ "$chroot_name" = trixie ] || die "unknown build chroot '$chroot_name'"
	src=$TRIXIE/build/$series/src
	msrc=/build/$series/src          # the same directory, seen from inside
else
	src=$bdir/src
	msrc=$src
fi
rm -rf "$src" "$out" "$bdir/key"
mkdir -p "$src" "$out"
src_files | rsync -a --files-from=- "$top/" "$src/"

# kmake DIR [ARGS...]: make modules for DIR (a path as the compiler sees it).
kmake() {
	local m=$1; shift
	local cmd=(make -C "$kbuild" M="$m" -j"$jobs" ${W:+W="$W"} "$@" modules)
	log "building $series: ${cmd[*]}"
	if [ -n "$chroot_name" ]; then
		in_trixie "${cmd[@]}"
	else
		"${cmd[@]}"
	fi
}

if ! kmake "$msrc"; then
	die "gpumem build for $series ($kver) failed"
fi
if [ "$series" = test ]; then
	if [ -n "$(find "$src" -name gpumem_kunit.ko)" ]; then
		: # the top-level Kbuild builds kunit/ itself
	elif [ -e "$src/kunit/Kbuild" ] || [ -e "$src/kunit/Makefile" ]; then
		kmake "$msrc/kunit" KBUILD_EXTRA_SYMBOLS="$msrc/Module.symvers" ||
			die "gpumem_kunit build for $series failed"
	else
		log "no kunit/Kbuild yet: gpumem_kunit.ko not built"
	fi
fi

mapfile -t kos < <(find "$src" -name '*.ko')
[ ${#kos[@]} -gt 0 ] || die "the $series build produced no .ko"
cp "${kos[@]}" "$out/"
[ -e "$out/gpumem.ko" ] || die "the $series build produced no gpumem.ko (got: ${kos[*]##*/})"
vm=$(modinfo -F vermagic "$out/gpumem.ko" | awk '{ print $1 }')
[ "$vm" = "$kver" ] || die "gpumem.ko vermagic '$vm' does not match kernel $kver"
echo "$key" > "$bdir/key"
log "built $series: $(cd "$out" && echo *.ko)"
