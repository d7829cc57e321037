#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian 12 (bookworm, minbase) root file system as an OCI base image
# tarball, for building deploy/Containerfile where no registry is reachable:
# $GPUMEM_CACHE/oci/bookworm-minbase.tar (debootstrap, once; ~40 MB).
# Prints the tarball's path.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$GPUMEM_CACHE/oci
tar=$dir/bookworm-minbase.tar
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -s "$tar" ]; then
	root=$(mktemp -d "$dir/rootfs.XXXXXX")
	trap 'rm -rf "$root"' EXIT
	log "debootstrapping bookworm minbase for the OCI base image (once)"
	debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >&2
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
	tar -C "$root" --numeric-owner -cf "$tar.tmp" .
	mv "$tar.tmp" "$tar"
fi
echo "$tar"
