#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Download and unpack the Debian kernels gpumem is tested on into the cache:
#   $GPUMEM_CACHE/kernels/<series>/root     image + modules + headers (dpkg -x)
#   $GPUMEM_CACHE/kernels/<series>/kver     the kernel release string
#   $GPUMEM_CACHE/kernels/<series>/build    path of the headers tree to build against
#   $GPUMEM_CACHE/trixie                    a trixie tree with gcc-14 (7.3 builds run there)
# Usage: fetch-kernels.sh [series...]   (default: all of $GPUMEM_SERIES)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEBS=$GPUMEM_CACHE/debs
mkdir -p "$DEBS"

# newest_meta SERIES -> the linux-image-<abi>-amd64 package the newest
# linux-image-amd64 of that series depends on, and its version.
newest_meta() {
	local series=$1 ver dep
	ver=$(apt-cache madison linux-image-amd64 | awk -v s="$series" '
		{ v=$3; split(v, a, "[.-]"); if (a[1] "." a[2] == s) print v }' |
		sort -V | tail -n1)
	[ -n "$ver" ] || die "no linux-image-amd64 of series $series in apt's lists"
	dep=$(apt-cache show "linux-image-amd64=$ver" |
		sed -n 's/^Depends: \(linux-image-[^ ]*\).*/\1/p' | head -n1)
	echo "$dep $ver"
}

# fetch_debs DIR PKG=VER... : apt-get download into the cache, keep the names.
fetch_debs() {
	local dir=$1; shift
	(cd "$dir" && apt-get download -q "$@" >/dev/null)
}

fetch_bookworm() {
	local series=$1 out=$GPUMEM_CACHE/kernels/$1
	done_stamp "$out" && return 0
	local img ver abi kver common kbuild
	read -r img ver < <(newest_meta "$series")
	abi=${img#linux-image-}; kver=$abi
	log "fetching $series: $img ($ver)"
	local deps
	deps=$(apt-cache show "linux-headers-$abi=$ver" | sed -n 's/^Depends: //p' | head -n1 |
		tr ',|' '\n\n' | awk '{ print $1 }')
	common=$(echo "$deps" | grep -E '^linux-headers-.*-common$' | head -n1)
	kbuild=$(echo "$deps" | grep -E '^linux-kbuild-' | head -n1)
	common=$common=$ver; kbuild=$kbuild=$ver
	[ -n "$common" ] && [ -n "$kbuild" ] || die "cannot resolve headers deps of $abi"
	local d=$DEBS/$series
	mkdir -p "$d"
	fetch_debs "$d" "$img=$ver" "linux-headers-$abi=$ver" "$common" "$kbuild"
	rm -rf "$out"; mkdir -p "$out/root"
	for f in "$d"/*.deb; do dpkg -x "$f" "$out/root"; done
	local hdr=$out/root/usr/src/linux-headers-$kver
	# The arch headers include the -common tree by absolute path: repoint it.
	sed -i "s|/usr/src/|$out/root/usr/src/|g" "$hdr/Makefile"
	# scripts/ and tools/ are symlinks into linux-kbuild-*, absolute too.
	local l
	for l in "$hdr"/scripts "$hdr"/tools; do
		case $(readlink "$l" 2>/dev/null) in
		/*) ln -sfn "$out/root$(readlink "$l")" "$l" ;;
		esac
	done
	echo "$kver" > "$out/kver"
	echo "$hdr" > "$out/build"
	depmod -b "$out/root" "$kver"
	mark_done "$out"
}

# 7.3 comes from trixie-backports and its headers need trixie's gcc-14:
# everything for it happens inside a debootstrapped trixie tree.
TRIXIE=$GPUMEM_CACHE/trixie
# (dkms: the host check dkms-7.3 builds the module with trixie's dkms)
TRIXIE_PKGS=gcc-14,make,libelf-dev,bc,dwarves,kmod,libc6-dev,xz-utils,libdrm-dev,libnl-3-dev,libnl-genl-3-dev,pkg-config,dkms
setup_trixie() {
	if ! done_stamp "$TRIXIE"; then
		log "debootstrapping trixie build tree (once)"
		rm -rf "$TRIXIE"
		debootstrap --variant=minbase --include="$TRIXIE_PKGS" \
			trixie "$TRIXIE" "$DEBIAN_MIRROR" >/dev/null
		echo "deb $DEBIAN_MIRROR trixie-backports main" > "$TRIXIE/etc/apt/sources.list.d/backports.list"
		in_trixie apt-get update -qq
		mark_done "$TRIXIE"
	fi
	# A tree made before a package joined TRIXIE_PKGS gets it now.
	local have p missing=
	have=$(in_trixie dpkg-query -W -f='${Package} ${db:Status-Status}\n' \
		${TRIXIE_PKGS//,/ } 2>/dev/null | awk '$2 == "installed" { print $1 }' || true)
	for p in ${TRIXIE_PKGS//,/ }; do
		grep -qx -- "$p" <<<"$have" || missing+=" $p"
	done
	[ -z "$missing" ] && return 0
	log "installing into the trixie tree: $(echo $missing)"
	in_trixie apt-get update -qq
	in_trixie env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# in_trixie CMD... : run a command inside the trixie tree, in an environment
# of its own: the caller's (TMPDIR, PATH, MAKEFLAGS, ...) names places and
# tools of the host that the tree does not have (a host TMPDIR made
# mktemp and make fail in there).
in_trixie() {
	local m
	for m in proc dev; do
		mountpoint -q "$TRIXIE/$m" || mount --bind "/$m" "$TRIXIE/$m"
	done
	chroot "$TRIXIE" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TMPDIR=/tmp \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
	local rc=$?
	umount "$TRIXIE/dev" "$TRIXIE/proc" 2>/dev/null || true
	return $rc
}

fetch_trixie() {
	local series=$1 out=$GPUMEM_CACHE/kernels/$1
	setup_trixie	# (also when $out is done: it tops up TRIXIE_PKGS)
	done_stamp "$out" && return 0
	local ver kver
	ver=$(in_trixie apt-cache madison linux-image-amd64 | awk -v s="$series" '
		{ v=$3; split(v, a, "[.-]"); if (a[1] "." a[2] == s) print v }' | sort -V | tail -n1)
	[ -n "$ver" ] || die "no linux-image-amd64 of series $series in trixie-backports"
	log "fetching $series: linux-image-amd64 $ver (trixie-backports)"
	# The image is a meta package over linux-binary + linux-modules (+ a
	# linux-base-<abi>); the headers need -common and kbuild. Resolve by name.
	local abi pkgs
	abi=$(in_trixie apt-cache show "linux-image-amd64=$ver" | sed -n 's/^Depends: //p' | tr ',' '\n' | sed -n 's/^ *linux-image-\([^ ]*\).*/\1/p' | head -n1)
	pkgs=$( { in_trixie apt-cache show "linux-image-$abi=$ver"; in_trixie apt-cache show "linux-headers-$abi=$ver"; } |
		sed -n 's/^Depends: //p' | tr ',|' '\n\n' | awk '{ print $1 }' |
		grep -E '^linux-(binary|modules|base|headers|kbuild)-' | sort -u)
	[ -n "$abi" ] && [ -n "$pkgs" ] || die "cannot resolve the $series package set"
	pkgs="linux-headers-$abi $pkgs"
	pkgs=$(for p in $pkgs; do echo "$p=$ver"; done)
	mkdir -p "$TRIXIE/debs/$series"
	in_trixie sh -c "cd /debs/$series && apt-get download -q $(echo $pkgs)" >/dev/null
	rm -rf "$out"; mkdir -p "$out/root"
	local f
	for f in "$TRIXIE/debs/$series"/*.deb; do
		dpkg -x "$f" "$out/root"
		# headers and kbuild also go into the trixie tree, where their
		# absolute paths resolve as they are.
		case $(basename "$f") in linux-headers-*|linux-kbuild-*) dpkg -x "$f" "$TRIXIE";; esac
	done
	kver=$(ls "$out/root/usr/lib/modules" | head -n1)
	# usr-merged layout: give the harness the classic paths too.
	mkdir -p "$out/root/boot" "$out/root/lib"
	[ -e "$out/root/boot/vmlinuz-$kver" ] ||
		ln -sf "../usr/lib/modules/$kver/vmlinuz" "$out/root/boot/vmlinuz-$kver"
	[ -e "$out/root/lib/modules" ] || ln -s ../usr/lib/modules "$out/root/lib/modules"
	echo "$kver" > "$out/kver"
	echo "/usr/src/linux-headers-$kver" > "$out/build"   # a path inside $TRIXIE
	echo trixie > "$out/chroot"
	depmod -b "$out/root" "$kver"
	mark_done "$out"
}

fetch_series() {
	case $1 in
	6.1|6.12) fetch_bookworm "$1" ;;
	7.*) fetch_trixie "$1" ;;
	*) die "unknown kernel series '$1' (known: $GPUMEM_SERIES)" ;;
	esac
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
for s in ${@:-$GPUMEM_SERIES}; do fetch_series "$s"; done
