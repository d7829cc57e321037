#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once, then cache) the KUnit/KASAN/lockdep test kernel from Debian's
# linux-source-7.3 (trixie-backports: a kernel with the dmem cgroup
# controller, CONFIG_CGROUP_DMEM=y, which Debian's own 7.3 image leaves out)
# and scripts/testkernel.config. Result:
#   $GPUMEM_CACHE/kernels/test/root/boot/vmlinuz-<kver>, .../lib/modules/<kver>
#   $GPUMEM_CACHE/kernels/test/{kver,build}
# The host's gcc builds it (and, in scripts/build.sh, gpumem for it): the
# kernel only needs a compiler newer than its minimum, unlike Debian's 7.3
# headers, which carry gcc-14's flags and build in the trixie tree.
# The source package comes through the trixie tree's apt (trixie-backports,
# scripts/fetch-kernels.sh: setup_trixie); its .deb is kept in
# $GPUMEM_CACHE/debs/source. The cache key is the source package version
# plus the hashes of the config fragment and of the patches.
# scripts/testkernel-patches/*.patch are fixes of bugs in the kernel's own
# drivers that the tests reach (each says which and why), applied in order;
# a changed set is taken back (patch -R of the set applied) and applied
# again, so only the files they touch are rebuilt.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# setup_trixie, in_trixie: the trixie tree whose apt knows trixie-backports.
. "$GPUMEM_TOP/scripts/fetch-kernels.sh"

tks=7.3		# the series of Debian's linux-source-<tks>
frag=$GPUMEM_TOP/scripts/testkernel.config
out=$GPUMEM_CACHE/kernels/test
setup_trixie
ver=$(in_trixie apt-cache madison "linux-source-$tks" | awk '{ print $3 }' | sort -V | tail -n1)
[ -n "$ver" ] || die "linux-source-$tks is not in the trixie tree's apt lists (trixie-backports)"
patches=("$GPUMEM_TOP"/scripts/testkernel-patches/*.patch)
key="$ver $(sha256sum "$frag" | cut -c1-16) $(cat "${patches[@]}" | sha256sum | cut -c1-16)"
if done_stamp "$out" && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

src=$GPUMEM_CACHE/testkernel-src
deb=$GPUMEM_CACHE/debs/source/linux-source-${tks}_${ver//:/%3a}_all.deb
mkdir -p "$GPUMEM_CACHE/debs/source"
if [ ! -s "$deb" ]; then
	log "downloading linux-source-$tks $ver (trixie-backports)"
	rm -rf "$TRIXIE/debs/source"; mkdir -p "$TRIXIE/debs/source"
	in_trixie sh -c "cd /debs/source && apt-get download -q 'linux-source-$tks=$ver'" >/dev/null
	rm -f "$GPUMEM_CACHE/debs/source/linux-source-${tks}"_*.deb
	mv "$TRIXIE/debs/source/linux-source-${tks}"_*.deb "$deb"
	rm -rf "$TRIXIE/debs/source"
fi
if [ "$(cat "$src/.gpumem-source-version" 2>/dev/null)" != "$ver" ]; then
	log "unpacking linux-source-$tks $ver"
	rm -rf "$src" "$src.tmp"; mkdir -p "$src.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$src.tmp" --wildcards '*.tar.xz'
	tar -xJf "$(find "$src.tmp" -name 'linux-source-*.tar.xz' | head -n1)" -C "$src.tmp"
	mv "$src.tmp/usr/src/linux-source-$tks" "$src" 2>/dev/null ||
		mv "$(find "$src.tmp" -maxdepth 3 -type d -name "linux-source-$tks*" | head -n1)" "$src"
	rm -rf "$src.tmp"
	echo "$ver" > "$src/.gpumem-source-version"
fi

applied=$src/.gpumem-patches
if ! cat "${patches[@]}" | cmp -s - "$applied"; then
	if [ -s "$applied" ]; then
		log "taking back the test kernel patches applied before"
		patch -d "$src" -p1 -R -s --no-backup-if-mismatch < "$applied" ||
			die "cannot take back $applied: remove $src to unpack it again"
		rm -f "$applied"
	fi
	for p in "${patches[@]}"; do
		log "applying $(basename "$p")"
		patch -d "$src" -p1 -s -N --no-backup-if-mismatch < "$p" || {
			rm -rf "$src"	# half patched: unpack it again next time
			die "$(basename "$p") does not apply to linux-source-$tks $ver"
		}
	done
	cat "${patches[@]}" > "$applied"
fi

log "configuring and building the test kernel (about 14 minutes on 2 cores when cold)"
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
