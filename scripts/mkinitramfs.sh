#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the guest's initramfs for one kernel series: busybox, /init
# (scripts/guest-init.sh), the emulated GPUs' drivers with their dependency
# closure (decompressed), gpumem.ko / gpumem_kunit.ko from scripts/build.sh
# in lib/modules/KVER/extra/, and the guest tests (tests/guest/*.sh and
# tests/guest/bin/*) under /tests.
#
# Usage: mkinitramfs.sh SERIES OUT.cpio.gz
# Env:   GPUMEM_GUEST_MODULES   extra module names to include
#        (a file tests/guest/modules, one name a line, adds more)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] || die "usage: mkinitramfs.sh SERIES OUT.cpio.gz"
series=$1 outfile=$2
kdir=$GPUMEM_CACHE/kernels/$series
[ -s "$kdir/kver" ] || die "kernel $series is not in the cache"
kver=$(cat "$kdir/kver")
kroot=$kdir/root
ours=$GPUMEM_CACHE/build/$series/out
guest=$GPUMEM_TOP/tests/guest

# The drivers of the devices scripts/run-guest.sh attaches. virtio_pci is
# built in from 6.12 on; bochs is called bochs on every kernel we use.
want=(virtio_pci qxl bochs vgem virtio-gpu)
want+=(${GPUMEM_GUEST_MODULES:-})
[ -r "$guest/modules" ] && want+=($(sed 's/#.*//' "$guest/modules"))
# Whatever our own modules depend on (drm, ttm, kunit, ...).
ourmods=()
for ko in "$ours"/*.ko; do
	[ -e "$ko" ] || continue
	ourmods+=("$(modinfo -F name "$ko")")
done
for ko in "$ours"/*.ko; do
	[ -e "$ko" ] || continue
	for d in $(modinfo -F depends "$ko" | tr ',' ' '); do
		[[ " ${ourmods[*]} " == *" $d "* ]] || want+=("$d")
	done
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpumem-initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"   # the guest's /: non-root users must reach /bin
mkdir -p "$tmp"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,tests/bin}
mkdir -p "$tmp/lib/modules/$kver/kernel" "$tmp/lib/modules/$kver/extra"

# busybox: every applet but the one named busybox (a symlink to itself
# would make /init fail with ELOOP).
bb=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static (install busybox-static)"
cp "$bb" "$tmp/bin/busybox"
while read -r applet; do
	[ "${applet##*/}" = busybox ] && continue
	mkdir -p "$tmp/$(dirname "$applet")"
	ln -sf /bin/busybox "$tmp/$applet"
done < <("$tmp/bin/busybox" --list-full)
mknod -m 600 "$tmp/dev/console" c 5 1 2>/dev/null || true

install -m 755 "$GPUMEM_TOP/scripts/guest-init.sh" "$tmp/init"
echo "$series" > "$tmp/etc/gpumem-series"

# Kernel modules: the dependency closure, resolved against the extracted
# image, decompressed on the way in.
declare -A seen=()
for m in "${want[@]}"; do
	if ! deps=$(modprobe -d "$kroot" -S "$kver" --show-depends "$m" 2>/dev/null); then
		log "mkinitramfs $series: no module '$m' in $kver (skipped)"
		continue
	fi
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		[ -z "${seen[$path]:-}" ] || continue
		seen[$path]=1
		rel=${path#*/lib/modules/"$kver"/}
		dst=$tmp/lib/modules/$kver/${rel%.xz}
		dst=${dst%.zst}; dst=${dst%.gz}
		mkdir -p "$(dirname "$dst")"
		case $path in
		*.ko.xz) xz -dc "$path" > "$dst" ;;
		*.ko.zst) zstd -qdc "$path" > "$dst" ;;
		*.ko.gz) gzip -dc "$path" > "$dst" ;;
		*) cp "$path" "$dst" ;;
		esac
	done <<< "$deps"
done
for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -e "$kroot/lib/modules/$kver/$f" ] && cp "$kroot/lib/modules/$kver/$f" "$tmp/lib/modules/$kver/"
done
for ko in "$ours"/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$tmp/lib/modules/$kver/extra/"
done
depmod -b "$tmp" "$kver"

# Guest tests. Static binaries are the rule; a dynamic one brings its
# libraries along.
if [ -d "$guest" ]; then
	for f in "$guest"/*.sh; do
		[ -e "$f" ] && install -m 755 "$f" "$tmp/tests/"
	done
	for f in "$guest"/bin/*; do
		[ -f "$f" ] || continue
		install -m 755 "$f" "$tmp/tests/bin/"
		if file -L "$f" | grep -q 'dynamically linked'; then
			for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
				mkdir -p "$tmp$(dirname "$lib")"
				cp -L "$lib" "$tmp$lib"
			done
		fi
	done
fi

mkdir -p "$(dirname "$outfile")"
(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet --reproducible -R 0:0) | gzip -1 > "$outfile.tmp"
mv "$outfile.tmp" "$outfile"
log "initramfs for $series ($kver): $outfile ($(du -h "$outfile" | cut -f1), ${#seen[@]} kernel modules)"
