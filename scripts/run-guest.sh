#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build gpumem for one kernel series, pack the initramfs, boot it under QEMU
# with qxl, bochs and virtio-gpu devices attached (vgem is a module), save
# the serial console to $GPUMEM_CACHE/logs/<label>-<time>.log and the result
# channel (the second serial port, written only by the guest's runner) next
# to it as .chan, and check both with scripts/check-log against
# tests/manifest. Prints GPUMEM-RESULT lines; exits non-zero when any of
# them is a FAIL.
#
# Usage: run-guest.sh SERIES [--demo] [--only GLOBS] [--label L] [--append ARGS] [-v]
#   --demo         run the demo instead of the tests, print its output
#   --script NAME  run tests/guest/NAME.sh (a benchmark) instead, print its output
#   --only GLOBS   run only these test scripts (comma-separated globs, e.g. 10-*,9*)
#   --label L      name of this run in results and logs (default: SERIES)
#   --append ARGS  more kernel command line (e.g. gpumem.<param>=...)
#   --no-kunit     do not load gpumem_kunit (the other guest of a split run
#                  of the test kernel reports KUnit: once per CI)
#   -v             copy the guest console to stderr while it runs
# Env: GPUMEM_ACCEL=tcg-mt (default: multi-threaded TCG) | tcg | icount | kvm
#      GPUMEM_SMP=N (vCPUs, default 4: races need real parallelism)
#      GPUMEM_SABOTAGE=1 (harness self-test: scripts/guest-sabotage.sh)
#      GPUMEM_BOOT_TIMEOUT=SECS (default 1800; 2700 for the test kernel)
#      GPUMEM_NO_MODULE=1 (boot without gpumem; harness self-test)
#      GPUMEM_LOG_BUF_LEN (default 4M; "kernel": the kernel's own default,
#      for the harness self-test's wrapped log)
#      GPUMEM_VERBOSE=1 (same as -v), GPUMEM_APPEND (same as --append)
#      GPUMEM_GUEST_MEM_MB (default 1024), GPUMEM_QXL_RAM_MB (qxl RAM BAR,
#      a power of 2, default 64; scripts/bench-query uses 512)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() { die "usage: run-guest.sh SERIES [--demo | --script NAME] [--only GLOBS] [--label L] [--append ARGS] [--no-kunit] [-v]"; }
[ $# -ge 1 ] || usage
series=$1; shift
demo=0 script=demo verbose=${GPUMEM_VERBOSE:-0} append=${GPUMEM_APPEND:-} only='*' label= kunit=1
while [ $# -gt 0 ]; do
	case $1 in
	--demo) demo=1 script=demo ;;
	--script) [ $# -ge 2 ] || usage; demo=1 script=$2; shift ;;
	--append) [ $# -ge 2 ] || usage; append="$append $2"; shift ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift ;;
	--label) [ $# -ge 2 ] || usage; label=$2; shift ;;
	--no-kunit) kunit=0 ;;
	--append=*) append="$append ${1#*=}" ;;
	-v|--verbose) verbose=1 ;;
	*) usage ;;
	esac
	shift
done

label=${label:-$series}
case $only in *[!][A-Za-z0-9*?.,_-]*) die "--only: globs of test script names only" ;; esac
# Each glob must name a script (file names: '94-quota-race*', not
# '94-quota-race'): one that matches nothing would make a run of no tests
# look clean. (The sabotage self-test names a script it adds in the guest.)
if [ "${GPUMEM_SABOTAGE:-0}" != 1 ]; then
	IFS=, read -ra _globs <<<"$only"
	for _g in "${_globs[@]}"; do
		_hit=no
		for _t in "$GPUMEM_TOP"/tests/guest/[0-9]*.sh; do
			# shellcheck disable=SC2254 # $_g is a glob on purpose
			case ${_t##*/} in $_g) _hit=yes; break ;; esac
		done
		[ $_hit = yes ] || die "--only: '$_g' matches no tests/guest script (globs match file names, e.g. '94-quota-race*')"
	done
fi
fail() { echo "GPUMEM-RESULT: FAIL $label $*"; exit 1; }

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
# console as they happen, and scripts/check-log scans them there too; the
# dmesg dump at the end must still hold the whole boot (check-log FAILs a
# dump that does not start at boot): 4 MiB, the debug kernel's run of half
# the suite logs well under that.
log_buf_len=${GPUMEM_LOG_BUF_LEN:-4M}
cmdline="console=ttyS0 panic=-1 loglevel=7"
[ "$log_buf_len" != kernel ] && cmdline="$cmdline log_buf_len=$log_buf_len"
[ $kunit = 0 ] && cmdline="$cmdline gpumemtest.nokunit"
[ "${GPUMEM_NO_MODULE:-0}" = 1 ] && cmdline="$cmdline gpumemtest.nomodule"
[ $demo = 1 ] && cmdline="$cmdline gpumemtest.mode=$script loglevel=4"
[ "$only" != '*' ] && cmdline="$cmdline gpumemtest.only=$only"
[ "${GPUMEM_SABOTAGE:-0}" = 1 ] && cmdline="$cmdline gpumemtest.sabotage"
# Per-script timeouts, for the worst pairing on two cores (this guest beside
# a test-kernel guest, which keeps its 4 vCPUs busy): Debian's kernels 4
# minutes (a script takes up to ~1 minute beside another Debian guest);
# the KASAN/lockdep test kernel, 10-20x slower, 8 (95-quota-badinput took
# 311 s with the other half running beside it).
if [ "$series" = test ]; then
	cmdline="$cmdline gpumemtest.timeout=480"
else
	cmdline="$cmdline gpumemtest.timeout=240"
fi
cmdline="$cmdline$append"

case ${GPUMEM_ACCEL:-tcg-mt} in
# Multi-threaded TCG: the vCPUs really run at the same time (race tests).
# QEMU 7.2's MTTCG occasionally hangs early in boot: retried once below.
tcg) accel=(-accel tcg,thread=single) cpu=max,la57=off ;;
tcg-mt) accel=(-accel tcg,thread=multi) cpu=max,la57=off ;;
kvm) accel=(-accel kvm) cpu=host ;;
# Benchmarks: the guest's clock counts its instructions (1 ns each), so a
# time measured inside is an instruction count, whatever load the host has
# (one host thread runs every vCPU in turn: no real parallelism).
icount) accel=(-accel tcg,thread=single -icount shift=0,align=off,sleep=off) cpu=max,la57=off ;;
*) die "GPUMEM_ACCEL must be tcg, tcg-mt, icount or kvm" ;;
esac
# (two guests share two cores, each with 4 vCPUs: Debian's kernels take
# 2-5 minutes, each half of the test kernel 25-30 on this session's machine).
# Sized for the worst pairing: a Debian guest beside a test-kernel guest
# gets about half the CPU it has beside another Debian guest (a cold run's
# 6.1 guest was killed at 600 s in the middle of 97-quota-owner that way);
# scripts/test.sh no longer pairs them, but a run-guest.sh started beside
# anything else must not be cut short: 30 minutes.
default_timeout=1800
[ "$series" = test ] && default_timeout=2700
boot_timeout=${GPUMEM_BOOT_TIMEOUT:-$default_timeout}
# seconds until the guest's /init starts (the test kernel boots slower)
start_timeout=120
[ "$series" = test ] && start_timeout=300

qemu=(qemu-system-x86_64 -machine q35 -cpu "$cpu" "${accel[@]}"
	-m "${GPUMEM_GUEST_MEM_MB:-1024}" -smp "${GPUMEM_SMP:-4}" -display none -monitor none -nodefaults -no-reboot
	-serial stdio
	-kernel "$vmlinuz" -initrd "$initrd" -append "$cmdline"
	-device "qxl-vga,ram_size_mb=${GPUMEM_QXL_RAM_MB:-64},vram_size_mb=64,vgamem_mb=16"
	-device bochs-display,vgamem=16M
	-device virtio-gpu-pci)

mkdir -p "$GPUMEM_CACHE/logs"
# boot LOG: one guest run, console to LOG (and stderr with -v), the result
# channel to LOG's .chan.
boot() {
	local log=$1 start rc=0
	local chan=${log%.log}.chan
	rm -f "$chan"
	local qemu=("${qemu[@]}" -serial "file:$chan")
	start=$(date +%s)
	log "booting $label ($kver), console: $log"
	: >"$log"
	timeout -k 10 "$boot_timeout" "${qemu[@]}" </dev/null >"$log" 2>&1 &
	local qpid=$! tail_pid=
	if [ "$verbose" = 1 ]; then
		tail -f "$log" >&2 &
		tail_pid=$!
	fi
	# An early-boot hang (multi-threaded TCG) shows as no /init within
	# $start_timeout: stop waiting for it then, not at the boot timeout.
	while kill -0 "$qpid" 2>/dev/null; do
		grep -q 'GPUMEM-GUEST-START' "$log" && break
		if [ $(( $(date +%s) - start )) -ge "$start_timeout" ]; then
			log "$label: no /init after ${start_timeout}s: stopping this guest"
			pkill -KILL -P "$qpid" 2>/dev/null
			kill -KILL "$qpid" 2>/dev/null
			break
		fi
		sleep 1
	done
	wait "$qpid" || rc=$?
	[ -n "$tail_pid" ] && kill "$tail_pid" 2>/dev/null
	boot_secs=$(( $(date +%s) - start ))
	[ $rc = 124 ] && log "$label: guest killed after ${boot_timeout}s"
	log "$label: guest finished in ${boot_secs}s (qemu exit $rc)"
}

stamp=$(date +%Y%m%d-%H%M%S)
llabel=${label//[^A-Za-z0-9._-]/_}
log=$GPUMEM_CACHE/logs/$llabel-$stamp.log
boot "$log"
# A guest that never reached /init (an early-boot hang of multi-threaded
# TCG) gets one retry; a guest that reached it is judged as it is.
if ! grep -q 'GPUMEM-GUEST-START' "$log"; then
	log "$label: the guest never reached /init; retrying once"
	log=$GPUMEM_CACHE/logs/$llabel-$stamp-retry.log
	boot "$log"
fi
ln -sfn "$(basename "$log")" "$GPUMEM_CACHE/logs/$llabel-latest.log"
echo "guest log ($label, ${boot_secs}s): $log"

if [ $demo = 1 ]; then
	sed -n '/GPUMEM-DEMO-BEGIN/,/GPUMEM-DEMO-END/p' "$log" | tr -d '\r' |
		grep -v 'GPUMEM-DEMO-'
fi
checks=(--series "$series" --only "$only")
[ $kunit = 0 ] && checks+=(--no-kunit)
[ $demo = 1 ] && checks+=(--demo)
exec python3 "$GPUMEM_TOP/scripts/check-log" "$log" "${log%.log}.chan" "$label" "${checks[@]}"
