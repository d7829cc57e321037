#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpumem's test suite, the one command CI runs (.ci/run):
#   host setup, kernel download (cached), test kernel build (cached),
#   scripts/host-checks.sh (series "host": checkpatch, sparse, W=1, uapi,
#   gpumemctl's unit tests, check-log's self-test),
#   then every guest run: build, boot under QEMU, check the result channel
#   against tests/manifest (scripts/check-log). The KASAN/lockdep test kernel
#   runs every test script that exercises the module (not the gpumemctl-only
#   ones), split over two guests ("test#1", "test#2");
#   "selftest" boots 6.12 with sabotage and expects the harness to catch it
#   (scripts/harness-selftest.sh).
# Prints every GPUMEM-RESULT line and ends with one line
#   N passed, N failed, N skipped
# Exit status 0 iff nothing failed and something passed.
#
# Env: GPUMEM_SERIES="6.1 6.12 7.3 test selftest" (default: all) narrows the run;
#      see scripts/run-guest.sh for the guest knobs.
set -euo pipefail
series=${GPUMEM_SERIES:-6.1 6.12 7.3 test selftest}
. "$(dirname "$0")/lib.sh"
scripts=$GPUMEM_TOP/scripts
cd "$GPUMEM_TOP"

results=$(mktemp "${TMPDIR:-/tmp}/gpumem-results.XXXXXX")
trap 'rm -f "$results"' EXIT
start=$(date +%s)

# record SERIES STAGE CMD...: run a preparation step; a failure becomes a
# FAIL result instead of ending the run.
record() {
	local s=$1 stage=$2 rc=0; shift 2
	"$@" >&2 || rc=$?
	if [ $rc != 0 ]; then
		echo "GPUMEM-RESULT: FAIL $s $stage: '$*' exited $rc" | tee -a "$results"
	fi
	return $rc
}

# run_results SERIES CMD...: run a step that prints GPUMEM-RESULT lines;
# keep them, and turn a failure that printed no FAIL into one.
run_results() {
	local s=$1 rc=0 out; shift
	out=$(mktemp "${TMPDIR:-/tmp}/gpumem-out.XXXXXX")
	set +e
	"$@" | tee "$out"
	rc=${PIPESTATUS[0]}
	set -e
	grep '^GPUMEM-RESULT: ' "$out" >> "$results" || true
	if [ $rc != 0 ] && ! grep -q '^GPUMEM-RESULT: FAIL ' "$out"; then
		echo "GPUMEM-RESULT: FAIL $s ${1##*/}: exited $rc without a FAIL result" | tee -a "$results"
	fi
	rm -f "$out"
}

debian=() want_test=0 want_selftest=0
for s in $series; do
	case $s in
	test) want_test=1 ;;
	selftest) want_selftest=1 ;;
	6.1|6.12|7.3) debian+=("$s") ;;
	*) die "unknown series '$s' (6.1 6.12 7.3 test selftest)" ;;
	esac
done
[ $want_selftest = 1 ] && [[ " ${debian[*]} " != *" 6.12 "* ]] && debian+=(6.12)

log "test.sh: series: $series"
if record host setup-host "$scripts/setup-host.sh"; then
	fetched=()
	for s in "${debian[@]}"; do
		record "$s" fetch-kernel "$scripts/fetch-kernels.sh" "$s" && fetched+=("$s")
	done
	if [ $want_test = 1 ]; then
		record test build-testkernel "$scripts/build-testkernel.sh" && fetched+=(test)
	fi

	# The DRM driver sources the driver-tables host check reads (cached).
	record host fetch-driver-sources "$scripts/fetch-driver-sources.sh" 6.1 6.12 7.3 || true
	# containerd 1.7 for the Debian guests' 77-containerd (cached; here, so
	# that the guests' image builds only copy it)
	[ ${#debian[@]} -gt 0 ] && { record host fetch-containerd "$scripts/fetch-containerd.sh" || true; }
	log "test.sh: host checks"
	run_results host bash "$scripts/host-checks.sh"

	# Guest runs: "label series script-globs vCPUs". Every script runs on
	# every Debian kernel. The test kernel (KASAN, lockdep, kmemleak: 10-20x
	# slower per script) runs every script that exercises the module, each
	# in exactly one of two runs that take about as long as each other; the
	# gpumemctl-only scripts (80-ctl, 81-ctl-errors, 82-ctl-prometheus,
	# 89-ctl-nomodule, 91-ctl-limits, 92-ctl-watch: option parsing, output
	# formats, exit codes; ~400 s there) run on the Debian kernels only:
	# the kernel paths they reach (every request and dump, the events
	# group, reloads) are the ones 83-88 and the quota scripts run there.
	# So do 77-podman and 77-containerd (a container engine's start-up,
	# minutes under KASAN; the test kernel's image has no containerd):
	# what they ask of the module is 77-oci-hook's.
	# Measured on this 2-core host: alone, the test kernel runs a pair of
	# scripts in 40 s on 2 vCPUs, 57 s on 4; but side by side with the
	# other half, a split into three guests (two on 2 vCPUs, the race
	# scripts on 4) took 2514 s in all against 2443 s for two guests on 4
	# vCPUs: the cores are busy either way, and a third guest adds a boot
	# and kmemleak scans.
	# KUnit runs once per CI, in test#1 (test#2: --no-kunit).
	#
	# Schedule: two phases, so that a Debian guest never shares the two
	# cores with a test-kernel guest (a 6.1 guest beside one was killed by
	# its boot timeout in a cold run): first the short Debian runs and the
	# self-test (two at a time), then, once all of them ended, the two
	# halves of the test kernel side by side. Each guest's timeouts are
	# still sized for the worst pairing (scripts/run-guest.sh), for runs of
	# run-guest.sh beside anything else.
	# 77-containerd (a CRI runtime's start-up and image pulls from the
	# local store: 125 s on 6.1 and 6.12, 81 s on 7.3) runs on 7.3 only:
	# containerd and the hook are the same binaries on every Debian
	# kernel, and what the hook asks of the module is what 77-oci-hook and
	# 77-podman ask on every kernel.
	deb_but_cri='[1-6]*,7[0-6]-*,77-oci-*,77-podman*,7[89]-*,[89]*'
	runs=()
	for s in "${fetched[@]}"; do
		case $s in
		test) ;;
		7.3) runs+=("$s $s * 4") ;;
		*) runs+=("$s $s $deb_but_cri 4") ;;
		esac
	done
	if [ $want_selftest = 1 ] && [[ " ${fetched[*]} " == *" 6.12 "* ]]; then
		runs+=("selftest 6.12 - 4")
	fi
	for s in "${fetched[@]}"; do
		[ "$s" = test ] && runs+=(
			"barrier"
			"test#1 test [1-6]*,70-*,76-*,77-oci-*,78-*,79-*,83-*,84-*,85-*,86-*,87-*,88-*,91-quota-* 4"
			"test#2 test 90-*,92-quota-*,9[3-9]-* 4 --no-kunit")
	done
	# Guests run $jobs at a time; each one's output is shown when it is done.
	jobs=${GPUMEM_JOBS:-$(nproc)}
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/gpumem-series.XXXXXX")
	n=0
	for r in "${runs[@]}"; do
		if [ "$r" = barrier ]; then
			log "test.sh: waiting for the Debian runs before the test kernel's"
			wait
			continue
		fi
		read -r label s only smp flags <<<"$r"
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		log "test.sh: guest run $label ($smp vCPUs)"
		if [ "$label" = selftest ]; then
			cmd=(env GPUMEM_SMP="$smp" bash "$scripts/harness-selftest.sh")
		else
			# shellcheck disable=SC2206 # flags: words on purpose
			cmd=(env GPUMEM_SMP="$smp" bash "$scripts/run-guest.sh" "$s" --label "$label"
			     --only "$only" $flags)
		fi
		( run_results "$label" "${cmd[@]}" >"$outdir/$n.out" 2>"$outdir/$n.err";
		  echo done >"$outdir/$n.done" ) &
		n=$((n + 1))
		sleep 2	# let its build claim the shared locks first
	done
	wait
	n=0
	for r in "${runs[@]}"; do
		[ "$r" = barrier ] && continue
		read -r label _ <<<"$r"
		cat "$outdir/$n.err" >&2
		cat "$outdir/$n.out"
		[ -e "$outdir/$n.done" ] ||
			echo "GPUMEM-RESULT: FAIL $label harness: the guest run did not finish" | tee -a "$results"
		n=$((n + 1))
	done
	rm -rf "$outdir"
fi

pass=$(grep -c '^GPUMEM-RESULT: PASS ' "$results" || true)
fail=$(grep -c '^GPUMEM-RESULT: FAIL ' "$results" || true)
skip=$(grep -c '^GPUMEM-RESULT: SKIP ' "$results" || true)
if [ "$fail" != 0 ]; then
	echo
	echo "failures:"
	grep '^GPUMEM-RESULT: FAIL ' "$results" | sed 's/^/  /'
fi
log "test.sh: done in $(( $(date +%s) - start ))s; guest logs in $GPUMEM_CACHE/logs"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
