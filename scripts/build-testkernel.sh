#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once, then cache) the KUnit/KASAN/lockdep test kernel from Debian's
# linux-source-6.12 and scripts/testkernel.config. Result:
#   $GPUMEM_CACHE/kernels/test/root/boot/vmlinuz-<kver>, .../lib/modules/<kver>
#   $GPUMEM_CACHE/kernels/test/{kver,build}
# The cache key is the source package version plus the config fragment's hash.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=$GPUMEM_TOP/scripts/testkernel.config
out=$GPUMEM_CACHE/kernels/test
ver=$(apt-cache madison linux-source-6.12 | awk '{ print $3 }' | sort -V | tail -n1)
[ -n "$ver" ] || die "linux-source-6.12 is not in apt's lists (run scripts/setup-host.sh)"
key="$ver $(sha256sum "$frag" | cut -c1-16)"
if done_stamp "$out" && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

src=$GPUMEM_CACHE/testkernel-src
mkdir -p "$GPUMEM_CACHE/debs/source"
if ! ls "$GPUMEM_CACHE/debs/source/linux-source-6.12_${ver//:/%3a}_all.deb" >/dev/null 2>&1; then
	log "downloading linux-source-6.12 $ver"
	rm -f "$GPUMEM_CACHE"/debs/source/linux-source-6.12_*.deb
	(cd "$GPUMEM_CACHE/debs/source" && apt-get download -q "linux-source-6.12=$ver" >/dev/null)
fi
if [ "$(cat "$src/.gpumem-source-version" 2>/dev/null)" != "$ver" ]; then
	log "unpacking linux-source-6.12 $ver"
	rm -rf "$src" "$src.tmp"; mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$GPUMEM_CACHE"/debs/source/linux-source-6.12_*.deb |
		tar -x -C "$src.tmp" --wildcards '*.tar.xz'
	tar -xJf "$(find "$src.tmp" -name 'linux-source-*.tar.xz' | head -n1)" -C "$src.tmp"
	mv "$src.tmp"/usr/src/linux-source-6.12 "$src" 2>/dev/null ||
		mv "$(find "$src.tmp" -maxdepth 3 -type d -name 'linux-source-6.12*' | head -n1)" "$src"
	rm -rf "$src.tmp"
	echo "$ver" > "$src/.gpumem-source-version"
fi

log "configuring and building the test kernel (about 16 minutes on 2 cores when cold)"
cd "$src"
make -s x86_64_defconfig
./scripts/kconfig/merge_config.sh -m .config "$frag" >/dev/null
make -s olddefconfig
# Fail when the fragment asked for something Kconfig silently dropped.
while IFS='=' read -r k v; do
	case $k in CONFIG_*) ;; *) continue ;; esac
	if [ "$v" = n ]; then
		! grep -q "^$k=" .config || die "test kernel config: $k should be off"
	else
		grep -q "^$k=$v\$" .config || die "test kernel config: $k=$v did not stick"
	fi
done < "$frag"
make -s -j"$(( $(nproc) + 1 ))" bzImage modules
kver=$(make -s kernelrelease)
rm -rf "$out"; mkdir -p "$out/root/boot"
cp arch/x86/boot/bzImage "$out/root/boot/vmlinuz-$kver"
make -s INSTALL_MOD_PATH="$out/root" modules_install
depmod -b "$out/root" "$kver"
echo "$kver" > "$out/kver"
echo "$src" > "$out/build"
echo "$key" > "$out/key"
mark_done "$out"
log "test kernel $kver ready"
