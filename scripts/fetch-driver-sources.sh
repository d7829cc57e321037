#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Download (once) Debian's linux-source-<series> package of every supported
# kernel and unpack only the DRM driver sources scripts/check-driver-tables.py
# reads:
#   $GPUMEM_CACHE/debs/source/linux-source-<series>_<version>_all.deb
#   $GPUMEM_CACHE/driver-src/<series>/{drivers/gpu/drm,include/drm,include/uapi/drm}
#   $GPUMEM_CACHE/driver-src/<series>/.version   the source package version
# 6.1 and 6.12 come from the host's apt lists (bookworm, -security), 7.3 from
# trixie-backports inside the trixie tree of fetch-kernels.sh. The newest
# version of each series is used (the one the kernels and the test kernel are
# fetched at); a newer one in apt's lists replaces the cached tree.
# Usage: fetch-driver-sources.sh [series...]   (default: 6.1 6.12 7.3)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fetch-kernels.sh"	# TRIXIE, setup_trixie, in_trixie

SRCDEBS=$GPUMEM_CACHE/debs/source
# What the check reads (paths inside the linux-source-<series> tarball).
PARTS=(drivers/gpu/drm include/drm include/uapi/drm)

# newest_source SERIES -> the newest version of linux-source-SERIES.
newest_source() {
	local madison
	case $1 in
	7.*) setup_trixie; madison=$(in_trixie apt-cache madison "linux-source-$1") ;;
	*) madison=$(apt-cache madison "linux-source-$1") ;;
	esac
	awk '{ print $3 }' <<<"$madison" | sort -V | tail -n1
}

fetch_source() {
	local series=$1 out=$GPUMEM_CACHE/driver-src/$1 ver deb
	ver=$(newest_source "$series")
	[ -n "$ver" ] || die "linux-source-$series is not in apt's lists"
	if done_stamp "$out" && [ "$(cat "$out/.version" 2>/dev/null)" = "$ver" ]; then
		return 0
	fi
	mkdir -p "$SRCDEBS"
	# apt-get download names the file with the epoch's ':' as %3a.
	deb=$SRCDEBS/linux-source-${series}_${ver//:/%3a}_all.deb
	if [ ! -s "$deb" ]; then
		log "downloading linux-source-$series $ver"
		rm -f "$SRCDEBS/linux-source-${series}_"*.deb
		case $series in
		7.*)
			mkdir -p "$TRIXIE/debs/source"
			in_trixie sh -c "cd /debs/source && apt-get download -q -o APT::Sandbox::User=root linux-source-$series=$ver" >/dev/null
			mv "$TRIXIE/debs/source/$(basename "$deb")" "$deb.tmp"
			;;
		*)
			(cd "$SRCDEBS" && apt-get download -q -o APT::Sandbox::User=root "linux-source-$series=$ver" >/dev/null)
			mv "$deb" "$deb.tmp"
			;;
		esac
		mv "$deb.tmp" "$deb"
	fi
	log "unpacking the DRM sources of linux-source-$series $ver"
	rm -rf "$out" "$out.tmp"; mkdir -p "$out.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out.tmp" --wildcards '*/linux-source-*.tar.*'
	local tarball top p
	tarball=$(find "$out.tmp" -name "linux-source-$series.tar.*" | head -n1)
	[ -n "$tarball" ] || die "no linux-source-$series.tar.* in $deb"
	top=linux-source-$series
	local want=()
	for p in "${PARTS[@]}"; do want+=("$top/$p"); done
	tar -xaf "$tarball" -C "$out.tmp" "${want[@]}"
	mv "$out.tmp/$top" "$out"
	rm -rf "$out.tmp"
	for p in "${PARTS[@]}"; do
		[ -d "$out/$p" ] || die "linux-source-$series $ver has no $p"
	done
	echo "$ver" > "$out/.version"
	mark_done "$out"
}

for s in ${@:-6.1 6.12 7.3}; do fetch_source "$s"; done
