#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate uapi/gpumem.h from uapi/gpumem.yaml with the kernel's own YNL
# generator (tools/net/ynl in Debian's linux-source-6.12, unpacked by
# build-testkernel.sh).
#   gen-uapi.sh          rewrite uapi/gpumem.h
#   gen-uapi.sh --check  exit 1 (and show the diff) when the header drifted
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=$(cat "$GPUMEM_CACHE/kernels/test/build" 2>/dev/null || true)
ynl=$src/tools/net/ynl
[ -e "$ynl/ynl-gen-c.py" ] || die "no YNL generator (run scripts/build-testkernel.sh first)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The generator finds the schema at <spec dir>/../genetlink.yaml and names the
# spec relative to the nearest directory with a MAINTAINERS file.
mkdir -p "$tmp/uapi"
touch "$tmp/MAINTAINERS"
cp "$src/Documentation/netlink/genetlink.yaml" "$tmp/"
cp "$GPUMEM_TOP/uapi/gpumem.yaml" "$tmp/uapi/"
(cd "$tmp" && timeout 60 python3 "$ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$tmp/uapi/gpumem.yaml" -o "$tmp/gpumem.h") >/dev/null
if [ "${1:-}" = --check ]; then
	diff -u "$GPUMEM_TOP/uapi/gpumem.h" "$tmp/gpumem.h"
else
	cp "$tmp/gpumem.h" "$GPUMEM_TOP/uapi/gpumem.h"
fi
