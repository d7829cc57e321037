#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of gpumem's test guest (busybox sh; scripts/mkinitramfs.sh installs it).
# Loads the emulated GPUs' drivers and gpumem, runs /tests/[0-9]*.sh (or the
# demo), loads gpumem_kunit if present, dumps dmesg and powers off.
#
# Kernel command line knobs (gpumemtest.*, so that modprobe never hands them
# to a module; gpumem.<param>=... on the command line does reach gpumem):
#   gpumemtest.mode=demo       run /tests/demo.sh (or print debugfs) instead of the tests
#   gpumemtest.mode=NAME       run /tests/NAME.sh (a benchmark) instead of the tests
#   gpumemtest.nomodule        boot without gpumem.ko (harness self-test)
#   gpumemtest.only=GLOB[,GLOB] run only the tests whose file name matches a GLOB
#   gpumemtest.timeout=SECS    per-test timeout (default 120)
#
# Result lines: GPUMEM-RESULT: PASS|FAIL|SKIP <series> <name>[: <why>]
#
# No "set -e": if /init exits, the kernel panics and the dmesg dump and the
# poweroff below never happen. Every failure is reported as a result instead.
set -u
export PATH=/tests/bin:/sbin:/bin:/usr/sbin:/usr/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup
# Anything the tests start must not read the console.
exec </dev/null

SERIES=$(cat /etc/gpumem-series 2>/dev/null || echo unknown)
KVER=$(uname -r)
export GPUMEM_SERIES=$SERIES GPUMEM_KVER=$KVER
echo "GPUMEM-GUEST-START $SERIES $KVER"

mode=tests nomodule=0 only='*' timeout=120
set -f
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpumemtest.mode=*) mode=${arg#*=} ;;
	gpumemtest.nomodule|gpumemtest.nomodule=1) nomodule=1 ;;
	gpumemtest.only=*) only=${arg#*=} ;;
	gpumemtest.timeout=*) timeout=${arg#*=} ;;
	esac
done
set +f

result() { echo "GPUMEM-RESULT: $1 $SERIES $2"; }
# phase NAME: when the guest got there (seconds since boot).
phase() { echo "GPUMEM-GUEST: at $(cut -d' ' -f1 /proc/uptime)s: $1"; }

# Emulated GPUs. virtio_pci is a module only on 6.1.
modprobe virtio_pci 2>/dev/null
for m in qxl bochs vgem virtio-gpu; do
	modprobe "$m" || echo "GPUMEM-GUEST: modprobe $m failed"
done

# Wait until the set of DRM cards stops changing (max ~10 s).
prev=-1 stable=0 i=0
while [ $i -lt 50 ]; do
	n=$(ls -d /dev/dri/card* 2>/dev/null | wc -l)
	if [ "$n" = "$prev" ]; then
		stable=$((stable + 1))
		[ $stable -ge 3 ] && break
	else
		prev=$n stable=0
	fi
	sleep 0.2
	i=$((i + 1))
done

# One line per card: name, driver, device.
drivers=
for c in /sys/class/drm/card*; do
	case ${c##*/} in *-*) continue ;; esac
	[ -e "$c" ] || continue
	dev=$(readlink -f "$c/device")
	drv=
	[ -e "$c/device/driver" ] && drv=$(basename "$(readlink -f "$c/device/driver")")
	# virtio-gpu's card hangs off the PCI function; its virtio child has the driver.
	if [ "$drv" = virtio-pci ]; then
		for v in "$c"/device/virtio*/driver; do
			[ -e "$v" ] && drv=$(basename "$(readlink -f "$v")")
		done
	fi
	# vgem's device has no driver (6.x: platform device, 7.x: faux device).
	case ${dev##*/} in vgem) drv=vgem ;; esac
	echo "GPUMEM-GUEST: ${c##*/} driver=${drv:--} dev=${dev##*/} node=$(ls /dev/dri/${c##*/} 2>/dev/null || echo missing)"
	drivers="$drivers $drv"
done
missing=
for d in qxl bochs-drm vgem virtio_gpu; do
	case " $drivers " in
	*" $d "*) ;;
	*) [ "$d" = bochs-drm ] && case " $drivers " in *" bochs "*) continue ;; esac
	   missing="$missing $d" ;;
	esac
done
if [ -z "$missing" ]; then
	result PASS guest-gpus
else
	result FAIL "guest-gpus: no DRM card for:$missing"
fi

phase "GPUs ready"

# gpumem itself.
module_loaded=0
if [ $nomodule = 1 ]; then
	echo "GPUMEM-GUEST: gpumemtest.nomodule: not loading gpumem"
elif [ ! -e "/lib/modules/$KVER/extra/gpumem.ko" ]; then
	result FAIL "module-load: gpumem.ko is not in the initramfs"
elif out=$(modprobe gpumem 2>&1); then
	module_loaded=1
	result PASS module-load
else
	result FAIL "module-load: modprobe gpumem: $(echo "$out" | tr '\n' ' ')"
fi

# run_test FILE: run one test script with a timeout; report it when it
# timed out, or failed without printing a single result line.
run_test() {
	t=$1 name=$(basename "$1" .sh)
	echo "GPUMEM-TEST-BEGIN $name"
	start=$(date +%s)
	rm -f /tmp/rc.$$
	( cd /tests && timeout -k 5 "$timeout" sh "$t" 2>&1; echo $? > /tmp/rc.$$ ) |
		tee "/tmp/out.$name"
	rc=$(cat /tmp/rc.$$ 2>/dev/null || echo 255)
	secs=$(( $(date +%s) - start ))
	echo "GPUMEM-TEST-END $name rc=$rc ${secs}s"
	nres=$(grep -c 'GPUMEM-RESULT:' "/tmp/out.$name")
	# busybox timeout gives no exit code of its own: judge by the clock.
	if [ "$rc" != 0 ] && [ "$secs" -ge "$timeout" ]; then
		result FAIL "$name: timed out after ${timeout}s (exit $rc)"
	elif [ "$rc" != 0 ] && [ "$nres" = 0 ]; then
		result FAIL "$name: exit $rc without a result"
	elif [ "$nres" = 0 ]; then
		result FAIL "$name: printed no GPUMEM-RESULT line"
	fi
}

if [ "$mode" != tests ]; then
	# demo, or a benchmark: /tests/<mode>.sh, its output between markers.
	echo "GPUMEM-DEMO-BEGIN"
	if [ -e "/tests/$mode.sh" ]; then
		(cd /tests && timeout -k 5 "$timeout" sh "/tests/$mode.sh" 2>&1)
	elif [ -d /sys/kernel/debug/gpumem ]; then
		for f in /sys/kernel/debug/gpumem/*; do
			echo "== $f"
			cat "$f"
		done
	else
		echo "no /sys/kernel/debug/gpumem (gpumem not loaded)"
	fi
	echo "GPUMEM-DEMO-END"
else
	ntests=0
	for t in /tests/[0-9]*.sh; do
		[ -e "$t" ] || continue
		selected=no
		# split the list on commas, without expanding the globs as paths
		set -f
		old_ifs=$IFS IFS=,
		for glob in $only; do
			case ${t##*/} in $glob) selected=yes ;; esac
		done
		IFS=$old_ifs
		set +f
		[ $selected = yes ] || continue
		ntests=$((ntests + 1))
		run_test "$t"
	done
	echo "GPUMEM-GUEST: ran $ntests test script(s)"
	[ "$ntests" -gt 0 ] || result FAIL "tests: no test script matched '$only'"

	if [ -e "/lib/modules/$KVER/extra/gpumem_kunit.ko" ] && [ $nomodule = 0 ]; then
		echo "GPUMEM-KUNIT-BEGIN"
		# KUnit prints KTAP to the kernel log while the module loads.
		if ! out=$(modprobe gpumem_kunit 2>&1); then
			result FAIL "kunit-load: modprobe gpumem_kunit: $(echo "$out" | tr '\n' ' ')"
		fi
		echo "GPUMEM-KUNIT-END"
		rmmod gpumem_kunit 2>/dev/null
	fi
fi

phase "tests done"

# Unloading exercises gpumem's exit path; kmemleak then sees what it left.
if [ $module_loaded = 1 ] && [ -d /sys/module/gpumem ]; then
	if out=$(rmmod gpumem 2>&1); then
		result PASS module-unload
	else
		result FAIL "module-unload: $(echo "$out" | tr '\n' ' ')"
	fi
fi
if [ -e /sys/kernel/debug/kmemleak ] && [ "$mode" = tests ]; then
	# kmemleak reports objects at least 5 s old, and only from the second
	# scan that finds them unreferenced.
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	sleep 1
	echo scan > /sys/kernel/debug/kmemleak
	echo "GPUMEM-KMEMLEAK-BEGIN"
	cat /sys/kernel/debug/kmemleak
	echo "GPUMEM-KMEMLEAK-END"
	phase "kmemleak scan done"
fi

echo "GPUMEM-DMESG-BEGIN"
dmesg
echo "GPUMEM-DMESG-END"
echo "GPUMEM-GUEST-DONE"
sync
poweroff -f
