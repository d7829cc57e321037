#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate from uapi/gpumem.yaml, with the kernel's own YNL generator
# (tools/net/ynl of Debian's linux-source-6.12, kept in the cache by
# scripts/fetch-ynl.sh: the generator the files were made with; the test
# kernel's 7.3 tree has a later one, tools/net/ynl/pyynl, whose output
# differs):
#   uapi/gpumem.h         ynl-gen-c.py --mode uapi --header
#   kmod/netlink_gen.c/h  the module's policies, op table (genl_ops, which
#                         6.1 has too), multicast group and family:
#                         scripts/gen-kernel-nl.py, which renders them with
#                         ynl-gen-c's kernel mode where that fits 6.1
# Usage:
#   gen-uapi.sh          rewrite the three files
#   gen-uapi.sh --check  exit 1 (and show the diff) when any of them drifted
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$GPUMEM_TOP/scripts/fetch-ynl.sh"
src=$GPUMEM_CACHE/ynl
ynl=$src/tools/net/ynl
[ -e "$ynl/ynl-gen-c.py" ] || die "no YNL generator in $ynl (scripts/fetch-ynl.sh)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The generator finds the schema at <spec dir>/../genetlink.yaml and names the
# spec relative to the nearest directory with a MAINTAINERS file.
mkdir -p "$tmp/uapi" "$tmp/kmod"
touch "$tmp/MAINTAINERS"
cp "$src/Documentation/netlink/genetlink.yaml" "$tmp/"
cp "$GPUMEM_TOP/uapi/gpumem.yaml" "$tmp/uapi/"
(cd "$tmp" && timeout 60 python3 "$ynl/ynl-gen-c.py" --mode uapi --header \
	--spec "$tmp/uapi/gpumem.yaml" -o "$tmp/uapi/gpumem.h") >/dev/null
for f in --source:netlink_gen.c --header:netlink_gen.h; do
	(cd "$tmp" && timeout 60 python3 "$GPUMEM_TOP/scripts/gen-kernel-nl.py" \
		"$ynl/ynl-gen-c.py" "$tmp/uapi/gpumem.yaml" "${f%%:*}" \
		-o "$tmp/kmod/${f#*:}") >/dev/null
done
rc=0
for f in uapi/gpumem.h kmod/netlink_gen.c kmod/netlink_gen.h; do
	if [ "${1:-}" = --check ]; then
		diff -u "$GPUMEM_TOP/$f" "$tmp/$f" || rc=1
	else
		cp "$tmp/$f" "$GPUMEM_TOP/$f"
	fi
done
exit $rc
