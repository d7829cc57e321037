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
#   gpumemtest.nokunit         do not load gpumem_kunit (the other guest of a
#                              split run of the test kernel reports KUnit)
#
#   gpumemtest.sabotage        harness self-test: break things on purpose
#                              (scripts/guest-sabotage.sh); the host expects FAILs
#
# Results travel on the second serial port (/dev/ttyS1), which only this
# runner writes: it opens the port as fd 7 and removes the device node before
# any test starts, so nothing a test or helper prints can pass for a result.
# Records on that channel (scripts/check-log reads them):
#   START <series> <kver>
#   RESULT PASS|FAIL|SKIP <script>/<case>[: <why>]
#   BEGIN <script> | END <script> rc=<exit status> secs=<n> timeout=<0|1>
#   RAN <n>, DMESG-BEGIN..DMESG-END, KMEMLEAK-BEGIN..KMEMLEAK-END, DONE
#   KTAP-BEGIN..KTAP-END: KUnit's own results (debugfs kunit/<suite>/results),
#     the only KTAP that counts (the kernel log's can be forged via /dev/kmsg)
#   ARTIFACT-BEGIN <script>/<file> .. ARTIFACT-END
# A test script reports its cases on fd 8 (tests/guest/lib.sh: pass/fail/skip),
# a file of its own, unlinked before the script starts (no path reaches it),
# that the runner reads back through its own descriptor and forwards once
# the script ended. A process other than the runner that still holds it
# then (a background helper started without 8>&-) is a FAIL.
# Files it leaves in $GM_ARTDIR (a directory of its own) go to the channel
# after its results, for checks only the host can make: scripts/check-log
# runs `promtool check metrics` on a <case>.prom file and reports the result
# as <script>/<case> (e.g. a real gpumemd scrape).
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
# The memory controller on, and a memory cgroup made, now, while nothing
# else runs: the first one flips static keys in the page and slab
# allocators, and that text patching has crashed multi-threaded TCG guests
# (an int3 left in __alloc_frozen_pages, 7.3) when a container engine
# (77-podman: podman's cgroupfs manager enables every controller) or a test
# (86-nl-unread) did it in the middle of the tests.
if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p /sys/fs/cgroup/gpumem-init
fi
# Anything the tests start must not read the console.
exec </dev/null

SERIES=$(cat /etc/gpumem-series 2>/dev/null || echo unknown)
KVER=$(uname -r)
export GPUMEM_SERIES=$SERIES GPUMEM_KVER=$KVER

# The result channel: fd 7, the only handle on ttyS1 once its node is gone.
if [ -c /dev/ttyS1 ] && exec 7>/dev/ttyS1; then
	stty -F /dev/ttyS1 raw -echo 2>/dev/null
	rm -f /dev/ttyS1
else
	echo "GPUMEM-GUEST: no /dev/ttyS1: results cannot reach the host"
	exec 7>/dev/null
fi
chan() { echo "$*" >&7; }
RESDIR=/run/gpumem-results
mkdir -p "$RESDIR" && chmod 700 "$RESDIR"
echo "GPUMEM-GUEST-START $SERIES $KVER"
chan "START $SERIES $KVER"

mode=tests nomodule=0 only='*' timeout=120 sabotage=0 kunit=1
set -f
for arg in $(cat /proc/cmdline); do
	case $arg in
	gpumemtest.mode=*) mode=${arg#*=} ;;
	gpumemtest.nomodule|gpumemtest.nomodule=1) nomodule=1 ;;
	gpumemtest.only=*) only=${arg#*=} ;;
	gpumemtest.timeout=*) timeout=${arg#*=} ;;
	gpumemtest.sabotage|gpumemtest.sabotage=1) sabotage=1 ;;
	gpumemtest.nokunit|gpumemtest.nokunit=1) kunit=0 ;;
	esac
done
set +f

# result VERDICT NAME[: WHY]: a result of the runner itself (init/NAME).
result() { echo "# runner: $1 init/$2"; chan "RESULT $1 init/$2"; }
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

# fd_holders FILE: "pid(comm)" of each process but the runner with FILE
# open (run in $(...): that subshell drops its own copy of fd 9 first).
fd_holders() {
	exec 9<&-
	for _fd in /proc/[0-9]*/fd/*; do
		[ "$(readlink "$_fd" 2>/dev/null)" = "$1" ] || continue
		_p=${_fd#/proc/}; _p=${_p%%/*}
		[ "$_p" = $$ ] && continue
		printf ' %s(%s)' "$_p" "$(cat "/proc/$_p/comm" 2>/dev/null)"
	done
}

# run_test FILE: run one test script with a timeout; its results (fd 8, one
# file per script) go to the channel when it has ended, then its exit status.
# Nothing it prints on stdout/stderr counts.
run_test() {
	t=$1 name=$(basename "$1" .sh)
	res=$RESDIR/$name
	: >"$res"
	# The runner's write (6) and read (9) ends; then no path leads to it.
	exec 6>>"$res" 9<"$res"
	rm -f "$res"
	art=$RESDIR/art.$name
	rm -rf "$art"
	mkdir -p "$art"
	echo "GPUMEM-TEST-BEGIN $name"
	chan "BEGIN $name"
	start=$(date +%s)
	rm -f /tmp/rc.$$
	( cd /tests && GM_RESULT_FD=8 GM_ARTDIR=$art timeout -k 5 "$timeout" sh "$t" 8>&6 6>&- 9<&- 7>&- 2>&1
	  echo $? > /tmp/rc.$$ ) 9<&- 7>&- | tee "/tmp/out.$name" 6>&- 9<&- 7>&-
	exec 6>&-
	# Before reading: nobody else may hold the results file any more. (The
	# watcher busybox timeout forks holds it until it sees the script gone,
	# within a second.)
	i=0
	while held=$(fd_holders "$res (deleted)") && [ -n "$held" ] && [ $i -lt 5 ]; do
		sleep 1
		i=$((i + 1))
	done
	rc=$(cat /tmp/rc.$$ 2>/dev/null || echo 255)
	secs=$(( $(date +%s) - start ))
	# busybox timeout gives no exit code of its own: judge by the clock.
	to=0
	[ "$rc" != 0 ] && [ "$secs" -ge "$timeout" ] && to=1
	echo "GPUMEM-TEST-END $name rc=$rc ${secs}s"
	# Forward well-formed lines only; anything else is reported as such.
	while IFS= read -r line; do
		case $line in
		PASS\ ?* | FAIL\ ?* | SKIP\ ?*)
			verdict=${line%% *} rest=${line#* }
			case ${rest%%[: ]*} in
			*[!A-Za-z0-9._@+-]*) chan "RESULT FAIL $name/bad-result-name: $(echo "$line" | cut -c1-200)" ;;
			*) chan "RESULT $verdict $name/$rest" ;;
			esac ;;
		*) chan "RESULT FAIL $name/bad-result-line: $(echo "$line" | cut -c1-200)" ;;
		esac
	done <&9
	exec 9<&-
	[ -n "$held" ] &&
		chan "RESULT FAIL $name/result-fd-held: the result descriptor outlived the script by 5 s in:$held (a background command without 8>&-)"
	# A file name the host could misread is a failure, not an artifact.
	for f in "$art"/*; do
		[ -f "$f" ] || continue
		case ${f##*/} in
		*[!A-Za-z0-9._-]* | .*) chan "RESULT FAIL $name/bad-artifact-name: ${f##*/}"; continue ;;
		esac
		chan "ARTIFACT-BEGIN $name/${f##*/}"
		# every line whole (a last line without newline too), none an end marker
		tr -d '\r' <"$f" | grep -v -x -e 'ARTIFACT-END' >&7
		chan "ARTIFACT-END"
	done
	chan "END $name rc=$rc secs=$secs timeout=$to"
}

if [ "$mode" != tests ]; then
	# demo, or a benchmark: /tests/<mode>.sh, its output between markers.
	echo "GPUMEM-DEMO-BEGIN"
	if [ -e "/tests/$mode.sh" ]; then
		(cd /tests && timeout -k 5 "$timeout" sh "/tests/$mode.sh" 2>&1 7>&-)
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
	# Harness self-test (scripts/harness-selftest.sh): break things on purpose.
	if [ $sabotage = 1 ]; then
		if [ -r /sabotage.sh ]; then
			. /sabotage.sh
		else
			result FAIL "sabotage: no /sabotage.sh in the initramfs"
		fi
	fi
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
	chan "RAN $ntests"

	if [ -e "/lib/modules/$KVER/extra/gpumem_kunit.ko" ] && [ $nomodule = 0 ] && [ $kunit = 1 ]; then
		echo "GPUMEM-KUNIT-BEGIN"
		# KUnit runs the suites while the module loads; the results that
		# count are KUnit's own record of each suite in debugfs (while the
		# module is loaded), not the KTAP it printed to the kernel log.
		if ! out=$(modprobe gpumem_kunit 2>&1); then
			result FAIL "kunit-load: modprobe gpumem_kunit: $(echo "$out" | tr '\n' ' ')"
		fi
		chan "KTAP-BEGIN"
		for r in /sys/kernel/debug/kunit/*/results; do
			[ -r "$r" ] && tr -d '\r' <"$r" | grep -v -x -e 'KTAP-END' >&7
		done
		chan "KTAP-END"
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
	chan "KMEMLEAK-BEGIN"
	cat /sys/kernel/debug/kmemleak >&7
	chan "KMEMLEAK-END"
	phase "kmemleak scan done"
fi

# The kernel log (KUnit's KTAP, problem reports) goes to the channel too;
# the console had it live (loglevel=7) for a guest that dies before this.
chan "DMESG-BEGIN"
dmesg >&7
chan "DMESG-END"
echo "GPUMEM-GUEST-DONE"
chan "DONE"
sync
poweroff -f
