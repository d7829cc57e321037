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
#        GPUMEM_GUEST_PYTHON=0  no python3 + YNL CLI in /opt/ynl (default 1:
#        about +6 MB compressed and +2 s)
#        GPUMEM_GUEST_CONTAINERD=0|1  containerd 1.7 + the CRI client
#        (default 1, 0 for the test kernel: about +48 MB compressed, +5 s)
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
# The harness self-test's sabotage (used only with gpumemtest.sabotage).
install -m 644 "$GPUMEM_TOP/scripts/guest-sabotage.sh" "$tmp/sabotage.sh"
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

# python3 and the kernel's generic YNL CLI (tools/net/ynl of Debian's
# linux-source-6.12: scripts/fetch-ynl.sh takes it from the source
# package) in /opt/ynl with uapi/gpumem.yaml, for
# tests/guest/87-ynl.sh and 95-quota-badinput.sh. Only what the CLI loads
# goes in: Debian's python3.11 (not a pyenv one) runs it once with -v on the
# host (it fails to find the family there, after every import) and each
# file it loaded is copied to the same path, with the shared libraries it
# links.
# GPUMEM_GUEST_PYTHON=0 leaves it out.
# cp_same FILE...: copy files to the same path in the image (mtime kept, so
# the .pyc files stay valid), with the libraries ELF files need.
cp_same() {
	local f lib magic
	for f in "$@"; do
		[ -e "$tmp$f" ] && continue
		mkdir -p "$tmp${f%/*}"
		cp -pL "$f" "$tmp$f"
		LC_ALL=C read -r -N 4 magic <"$f" || true
		[ "$magic" = $'\x7fELF' ] || continue
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			cp_same "$lib"
		done
	done
}
add_ynl() {
	local py=/usr/bin/python3.11 src ynl vlog files t0=$SECONDS out kb0
	"$GPUMEM_TOP/scripts/fetch-ynl.sh" ||
		{ log "mkinitramfs $series: scripts/fetch-ynl.sh failed: no python"; return 0; }
	src=$GPUMEM_CACHE/ynl
	ynl=$src/tools/net/ynl
	if [ ! -e "$ynl/cli.py" ] || [ ! -e "$ynl/lib/ynl.py" ]; then
		log "mkinitramfs $series: no YNL CLI in '$ynl' (scripts/fetch-ynl.sh): no python"
		return 0
	fi
	if [ ! -x "$py" ] || ! env -i "$py" -c 'import yaml' 2>/dev/null; then
		log "mkinitramfs $series: no $py with PyYAML (python3-yaml): no python"
		return 0
	fi
	kb0=$(du -sk "$tmp" | cut -f1)
	vlog=$tmp.pyv
	(cd / && env -i PATH=/usr/bin:/bin "$py" -v "$ynl/cli.py" --spec "$GPUMEM_TOP/uapi/gpumem.yaml" \
		--no-schema --dump dev-get) >/dev/null 2>"$vlog" || true
	# "# X.pyc matches X.py", "# code object from 'X.pyc'", "# extension
	# module 'm' loaded from 'X.so'"; the CLI's own files are copied below.
	mapfile -t files < <(sed -n -e "s/^# \(\/.*\.pyc\) matches \(\/.*\.py\)$/\1\n\2/p" \
		-e "s/^# code object from '\(\/.*\)'$/\1/p" \
		-e "s/^# extension module '.*' loaded from '\(\/.*\)'$/\1/p" "$vlog" |
		grep -v "^$ynl/" | sort -u)
	rm -f "$vlog"
	[ ${#files[@]} -gt 20 ] || { log "mkinitramfs $series: $py -v listed no modules: no python"; return 0; }
	# os is frozen into the interpreter, but os.py is the landmark it finds
	# its prefix by.
	cp_same "$py" "${files[@]}" /usr/lib/python3.11/os.py
	ln -sf python3.11 "$tmp/usr/bin/python3"
	mkdir -p "$tmp/opt/ynl/lib"
	install -m 644 "$ynl/cli.py" "$tmp/opt/ynl/"
	install -m 644 "$ynl"/lib/*.py "$tmp/opt/ynl/lib/"
	install -m 644 "$GPUMEM_TOP/uapi/gpumem.yaml" "$tmp/opt/ynl/"
	# several requests from one python3 start (tests/guest/ynl-batch.py)
	install -m 644 "$GPUMEM_TOP/tests/guest/ynl-batch.py" "$tmp/opt/ynl/batch.py"
	env -i "$py" -m compileall -q -d /opt/ynl "$tmp/opt/ynl" >/dev/null
	# The image's python must get as far as the host's (nothing missing).
	if out=$(chroot "$tmp" /usr/bin/python3 /opt/ynl/cli.py --spec /opt/ynl/gpumem.yaml \
		--no-schema --list-ops 2>&1) ||
	   [[ $out == *"not supported by the kernel"* ]]; then
		:
	elif [ "$(id -u)" = 0 ]; then
		log "mkinitramfs $series: WARNING: python in the image fails: $(tail -n 1 <<<"$out")"
	fi
	log "mkinitramfs $series: python3 + YNL CLI in /opt/ynl" \
		"($(($(du -sk "$tmp" | cut -f1) - kb0)) kB before compression, $((SECONDS - t0)) s)"
}
if [ "${GPUMEM_GUEST_PYTHON:-1}" = 1 ]; then
	add_ynl
fi

# Debian's crun (setup-host.sh installs it) with its libraries, as
# /tests/bin/crun, for tests/guest/77-oci-hook.sh (a real OCI runtime
# running gpumem-oci-hook).
if [ -x /usr/bin/crun ]; then
	cp_same /usr/bin/crun
	ln -sf /usr/bin/crun "$tmp/tests/bin/crun"
else
	log "mkinitramfs $series: no /usr/bin/crun (apt-get install crun): 77-oci-hook will fail"
fi

# Debian's podman with conmon and runc (setup-host.sh installs them), for
# tests/guest/77-podman.sh: a real container engine with its own cgroup
# manager running gpumem-oci-hook from hooks.d and from a CDI spec, on crun
# and on runc (about +10 MB compressed).
for b in /usr/bin/podman /usr/bin/conmon /usr/sbin/runc; do
	if [ -x "$b" ]; then
		cp_same "$b"
	else
		log "mkinitramfs $series: no $b (scripts/setup-host.sh): 77-podman will fail"
	fi
done

# containerd 1.7 (trixie's: scripts/fetch-containerd.sh) with its runc shim
# and ctr, and a CRI client (tests/guest/cri.py, its messages compiled from
# tests/guest/cri.proto by protoc, python3-grpcio and python3-protobuf
# copied the way the YNL CLI's python is), for tests/guest/77-containerd.sh
# (about +48 MB compressed). runc is podman's, above.
add_containerd() {
	local c=$GPUMEM_CACHE/containerd py=/usr/bin/python3.11 vlog files t0=$SECONDS kb0 b
	kb0=$(du -sk "$tmp" | cut -f1)
	if "$GPUMEM_TOP/scripts/fetch-containerd.sh"; then
		for b in containerd containerd-shim-runc-v2 ctr; do
			install -m 755 "$c/usr/bin/$b" "$tmp/usr/bin/$b"
		done
	else
		log "mkinitramfs $series: scripts/fetch-containerd.sh failed: 77-containerd will fail"
	fi
	if ! command -v protoc >/dev/null || [ ! -x "$py" ] ||
	   ! env -i "$py" -c 'import grpc, google.protobuf' 2>/dev/null; then
		log "mkinitramfs $series: no protoc or $py with grpc (setup-host.sh): 77-containerd will fail"
		return 0
	fi
	mkdir -p "$tmp/opt/cri"
	protoc -I "$guest" --python_out="$tmp/opt/cri" "$guest/cri.proto"
	install -m 644 "$guest/cri.py" "$tmp/opt/cri/cri.py"
	vlog=$tmp.criv
	(cd / && env -i PATH=/usr/bin:/bin "$py" -v "$tmp/opt/cri/cri.py" check) >/dev/null 2>"$vlog" ||
		{ log "mkinitramfs $series: cri.py check failed on the host: $(tail -n 1 "$vlog")"; }
	mapfile -t files < <(sed -n -e "s/^# \(\/.*\.pyc\) matches \(\/.*\.py\)$/\1\n\2/p" \
		-e "s/^# code object from '\(\/.*\)'$/\1/p" \
		-e "s/^# extension module '.*' loaded from '\(\/.*\)'$/\1/p" "$vlog" |
		grep -v "^$tmp/" | sort -u)
	rm -f "$vlog"
	cp_same "$py" "${files[@]}" /usr/lib/python3.11/os.py
	ln -sf python3.11 "$tmp/usr/bin/python3"
	env -i "$py" -m compileall -q -d /opt/cri "$tmp/opt/cri" >/dev/null
	if [ "$(id -u)" = 0 ] && ! out=$(chroot "$tmp" /usr/bin/python3 /opt/cri/cri.py check 2>&1); then
		log "mkinitramfs $series: WARNING: cri.py in the image fails: $(tail -n 1 <<<"$out")"
	fi
	log "mkinitramfs $series: containerd $(cat "$c/.version" 2>/dev/null) + CRI client in /opt/cri" \
		"($(($(du -sk "$tmp" | cut -f1) - kb0)) kB before compression, $((SECONDS - t0)) s)"
}
# Not for the test kernel, which does not run 77-containerd (scripts/test.sh):
# its KASAN guests would unpack and hold the 120 MB for nothing.
# GPUMEM_GUEST_CONTAINERD=0/1 decides for any series.
if [ "${GPUMEM_GUEST_CONTAINERD:-$([ "$series" = test ] && echo 0 || echo 1)}" = 1 ]; then
	add_containerd
fi

mkdir -p "$(dirname "$outfile")"
(cd "$tmp" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --quiet --reproducible -R 0:0) | gzip -1 > "$outfile.tmp.$$"
mv "$outfile.tmp.$$" "$outfile"	# two guests of one series may build it at once
log "initramfs for $series ($kver): $outfile ($(du -h "$outfile" | cut -f1), ${#seen[@]} kernel modules)"
