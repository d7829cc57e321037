#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's generic YNL CLI (tools/net/ynl, with Documentation/netlink's
# schemas) of Debian's linux-source-6.12, for the guests' python3 + YNL CLI
# (scripts/mkinitramfs.sh) and for scripts/gen-uapi.sh's generator: taken
# from an unpacked 6.12 tree in testkernel-src when there is one (the test
# kernel's source before it moved to 7.3), else extracted from the source
# package alone (cached in debs/source), so that a run of one Debian series
# needs no test kernel. (7.3's tree moved the CLI to tools/net/ynl/pyynl.)
#   $GPUMEM_CACHE/ynl/tools/net/ynl/{cli.py,lib/*.py}
#   $GPUMEM_CACHE/ynl/.version   the source package version
# Usage: fetch-ynl.sh   (prints nothing; cached; safe to run in parallel)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$GPUMEM_CACHE/ynl
parts=(tools/net/ynl Documentation/netlink)
mkdir -p "$GPUMEM_CACHE"
exec 8>"$GPUMEM_CACHE/.ynl.lock"
flock 8

ver=$(apt-cache madison linux-source-6.12 | awk '{ print $3 }' | sort -V | tail -n1)
[ -n "$ver" ] || die "linux-source-6.12 is not in apt's lists (run scripts/setup-host.sh)"
if done_stamp "$out" && [ "$(cat "$out/.version" 2>/dev/null)" = "$ver" ]; then
	exit 0
fi
rm -rf "$out" "$out.tmp"; mkdir -p "$out.tmp"
tk=$GPUMEM_CACHE/testkernel-src
if [ "$(cat "$tk/.gpumem-source-version" 2>/dev/null)" = "$ver" ] && [ -e "$tk/tools/net/ynl/cli.py" ]; then
	log "YNL CLI: from the test kernel's tree ($ver)"
	for p in "${parts[@]}"; do
		mkdir -p "$out.tmp/$(dirname "$p")"
		cp -a "$tk/$p" "$out.tmp/$p"
	done
else
	deb=$GPUMEM_CACHE/debs/source/linux-source-6.12_${ver//:/%3a}_all.deb
	if [ ! -s "$deb" ]; then
		log "downloading linux-source-6.12 $ver (for its YNL CLI)"
		mkdir -p "$(dirname "$deb")"
		(cd "$out.tmp" && apt-get download -q -o APT::Sandbox::User=root "linux-source-6.12=$ver" >/dev/null)
		rm -f "$GPUMEM_CACHE"/debs/source/linux-source-6.12_*.deb
		mv "$out.tmp"/linux-source-6.12_*.deb "$deb"
	fi
	log "YNL CLI: extracting ${parts[*]} from linux-source-6.12 $ver"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$out.tmp" --wildcards '*/linux-source-6.12.tar.*'
	tarball=$(find "$out.tmp" -name 'linux-source-6.12.tar.*' | head -n1)
	[ -n "$tarball" ] || die "no linux-source-6.12.tar.* in $deb"
	want=()
	for p in "${parts[@]}"; do want+=("linux-source-6.12/$p"); done
	tar -xaf "$tarball" -C "$out.tmp" "${want[@]}"
	rm -rf "$out.tmp/usr"
	mv "$out.tmp/linux-source-6.12"/* "$out.tmp/"
	rmdir "$out.tmp/linux-source-6.12"
fi
for f in tools/net/ynl/cli.py tools/net/ynl/lib/ynl.py; do
	[ -e "$out.tmp/$f" ] || die "linux-source-6.12 $ver has no $f"
done
echo "$ver" >"$out.tmp/.version"
mv "$out.tmp" "$out"
mark_done "$out"
