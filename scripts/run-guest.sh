#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build gpumem for one kernel series, pack the initramfs, boot it under QEMU
# with qxl, bochs and virtio-gpu devices attached (vgem is a module), save
# the serial console to $GPUMEM_CACHE/logs/<series>-<time>.log and check it
# with scripts/check-log. Prints GPUMEM-RESULT lines; exits non-zero when
# any of them is a FAIL.
#
# Usage: run-guest.sh SERIES [--demo] [--append ARGS] [-v]
#   --demo         run the demo instead of the tests, print its output
#   --script NAME  run tests/guest/NAME.sh (a benchmark) instead, print its output
#   --append ARGS  more kernel command line (e.g. gpumemtest.only=10-* or gpumem.<param>=...)
#   -v             copy the guest console to stderr while it runs
# Env: GPUMEM_ACCEL=tcg (default: single-threaded TCG) | tcg-mt | kvm
#      GPUMEM_BOOT_TIMEOUT=SECS (default 300; 600 for the test kernel)
#      GPUMEM_NO_MODULE=1 (boot without gpumem; harness self-test)
#      GPUMEM_VERBOSE=1 (same as -v), GPUMEM_APPEND (same as --append)
#      GPUMEM_GUEST_MEM_MB (default 1024), GPUMEM_QXL_RAM_MB (qxl RAM BAR,
#      a power of 2, default 64; scripts/bench-query uses 512)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { die "usage: run-guest.sh SERIES [--demo | --script NAME] [--append ARGS] [-v]"; }
[ $# -ge 1 ] || usage
series=$1; shift
demo=0 script=demo verbose=${GPUMEM_VERBOSE:-0} append=${GPUMEM_APPEND:-}
while [ $# -gt 0 ]; do
	case $1 in
	--demo) demo=1 script=demo ;;
	--script) [ $# -ge 2 ] || usage; demo=1 script=$2; shift ;;
	--append) [ $# -ge 2 ] || usage; append="$append $2"; shift ;;
	--append=*) append="$append ${1#*=}" ;;
	-v|--verbose) verbose=1 ;;
	*) usage ;;
	esac
	shift
done

fail() { echo "GPUMEM-RESULT: FAIL $series $*"; exit 1; }

kdir=$GPUMEM_CACHE/kernels/$series
[ -s "$kdir/kver" ] || fail "kernel: $series is not in $GPUMEM_CACHE/kernels (fetch-kernels.sh / build-testkernel.sh)"
kver=$(cat "$kdir/kver")
vmlinuz=$kdir/root/boot/vmlinuz-$kver
[ -e "$vmlinuz" ] || fail "kernel: no $vmlinuz"

"$GPUMEM_TOP/scripts/build.sh" "$series" >&2 || fail "build: scripts/build.sh $series failed"
initrd=$GPUMEM_CACHE/initramfs/$series.cpio.gz
"$GPUMEM_TOP/scripts/mkinitramfs.sh" "$series" "$initrd" >&2 ||
	fail "initramfs: scripts/mkinitramfs.sh $series failed"

# loglevel=7: WARNINGs (level 4) and KUnit's KTAP (level 6) reach the
# console as they happen; the dmesg dump at the end has everything anyway.
cmdline="console=ttyS0 panic=-1 loglevel=7 log_buf_len=4M"
[ "${GPUMEM_NO_MODULE:-0}" = 1 ] && cmdline="$cmdline gpumemtest.nomodule"
[ $demo = 1 ] && cmdline="$cmdline gpumemtest.mode=$script loglevel=4"
# The KASAN/lockdep test kernel runs 10-20x slower than Debian's: it runs
# KUnit and one test per code path (walk, sharing, exit, unbind/churn, bad
# input, the netlink family and gpumemctl (80-87), reload, enforcement,
# races, rmmod with charges);
# the Debian kernels run every test. GPUMEM_TEST_ALL=1 runs all of them.
if [ "$series" = test ] && [ "${GPUMEM_TEST_ALL:-0}" != 1 ] &&
   [[ "$append" != *gpumemtest.only=* ]]; then
	cmdline="$cmdline gpumemtest.only=10-*,20-*,30-*,40-*,60-*,65-*,8[0-7]-*,90-*,91-quota-*,94-*,98-*"
fi
# and each of its test scripts gets 5 minutes instead of 2
[ "$series" = test ] && cmdline="$cmdline gpumemtest.timeout=300"
cmdline="$cmdline$append"

case ${GPUMEM_ACCEL:-tcg} in
# QEMU 7.2's multi-threaded TCG occasionally dies early booting 7.3.
tcg) accel=(-accel tcg,thread=single) cpu=max,la57=off ;;
tcg-mt) accel=(-accel tcg,thread=multi) cpu=max,la57=off ;;
kvm) accel=(-accel kvm) cpu=host ;;
*) die "GPUMEM_ACCEL must be tcg, tcg-mt or kvm" ;;
esac
default_timeout=300
[ "$series" = test ] && default_timeout=1200
boot_timeout=${GPUMEM_BOOT_TIMEOUT:-$default_timeout}

qemu=(qemu-system-x86_64 -machine q35 -cpu "$cpu" "${accel[@]}"
	-m "${GPUMEM_GUEST_MEM_MB:-1024}" -smp 2 -display none -serial stdio -monitor none -nodefaults -no-reboot
	-kernel "$vmlinuz" -initrd "$initrd" -append "$cmdline"
	-device "qxl-vga,ram_size_mb=${GPUMEM_QXL_RAM_MB:-64},vram_size_mb=64,vgamem_mb=16"
	-device bochs-display,vgamem=16M
	-device virtio-gpu-pci)

mkdir -p "$GPUMEM_CACHE/logs"
# boot LOG: one guest run, console to LOG (and stderr with -v).
boot() {
	local log=$1 start rc=0
	start=$(date +%s)
	log "booting $series ($kver), console: $log"
	if [ "$verbose" = 1 ]; then
		timeout -k 10 "$boot_timeout" "${qemu[@]}" </dev/null 2>&1 | tee "$log" >&2 ||
			rc=${PIPESTATUS[0]}
	else
		timeout -k 10 "$boot_timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 || rc=$?
	fi
	boot_secs=$(( $(date +%s) - start ))
	[ $rc = 124 ] && log "$series: guest killed after ${boot_timeout}s"
	log "$series: guest finished in ${boot_secs}s (qemu exit $rc)"
}

stamp=$(date +%Y%m%d-%H%M%S)
log=$GPUMEM_CACHE/logs/$series-$stamp.log
boot "$log"
# A guest that never reached /init (e.g. an early TCG hiccup) gets one retry.
if ! grep -q 'GPUMEM-GUEST-START' "$log"; then
	log "$series: the guest never reached /init; retrying once"
	log=$GPUMEM_CACHE/logs/$series-$stamp-retry.log
	boot "$log"
fi
ln -sfn "$(basename "$log")" "$GPUMEM_CACHE/logs/$series-latest.log"
echo "guest log ($series, ${boot_secs}s): $log"

if [ $demo = 1 ]; then
	sed -n '/GPUMEM-DEMO-BEGIN/,/GPUMEM-DEMO-END/p' "$log" | tr -d '\r' |
		grep -v 'GPUMEM-DEMO-'
fi
exec python3 "$GPUMEM_TOP/scripts/check-log" "$log" "$series"
