#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# containerd 1.7 for the guests (tests/guest/77-containerd.sh: the CRI
# plugin with CDI). Debian 12 ships containerd 1.6.20, whose CRI plugin has
# no CDI; trixie's 1.7.x is taken from the trixie tree of
# scripts/fetch-kernels.sh (the Go binaries need only libc >= 2.34:
# bookworm's 2.36 runs them) and unpacked:
#   $GPUMEM_CACHE/debs/containerd/containerd_*.deb   the package (cached)
#   $GPUMEM_CACHE/containerd/usr/bin/{containerd,containerd-shim-runc-v2,ctr}
#   $GPUMEM_CACHE/containerd/.version                the package version
# runc is bookworm's (setup-host.sh), as podman's.
# Usage: fetch-containerd.sh   (cached; safe to run in parallel)
set -euo pipefail
. "$(dirname "$0")/fetch-kernels.sh"	# setup_trixie, in_trixie, lib.sh

out=$GPUMEM_CACHE/containerd
debs=$GPUMEM_CACHE/debs/containerd
mkdir -p "$debs"
exec 7>"$GPUMEM_CACHE/.containerd.lock"
flock 7

# Once unpacked, the cache is used as it is (no look-up, no network): a
# newer trixie containerd comes with `rm -rf $out`.
done_stamp "$out" && exit 0
setup_trixie
ver=$(in_trixie apt-cache madison containerd | awk '{ print $3 }' | sort -V | tail -n1)
case $ver in
1.7.*) ;;
*) die "trixie's containerd is '$ver', not 1.7.x (the CRI plugin tested is 1.7's)" ;;
esac
deb=$debs/containerd_${ver//:/%3a}_amd64.deb
if [ ! -s "$deb" ]; then
	log "downloading containerd $ver (trixie)"
	mkdir -p "$TRIXIE/debs/containerd"
	in_trixie sh -c "cd /debs/containerd && apt-get download -q -o APT::Sandbox::User=root containerd=$ver" >/dev/null
	mv "$TRIXIE/debs/containerd/containerd_${ver//:/%3a}_amd64.deb" "$deb.tmp"
	mv "$deb.tmp" "$deb"
fi
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp"
dpkg-deb -x "$deb" "$out.tmp"
for b in containerd containerd-shim-runc-v2 ctr; do
	[ -x "$out.tmp/usr/bin/$b" ] || die "containerd $ver has no /usr/bin/$b"
done
# the host (bookworm) runs it: the guest's userland is the host's
"$out.tmp/usr/bin/containerd" --version >/dev/null ||
	die "containerd $ver from trixie does not run on this host"
echo "$ver" >"$out.tmp/.version"
mv "$out.tmp" "$out"
mark_done "$out"
log "containerd $ver in $out"
