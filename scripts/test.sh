#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# gpumem's test suite, the one command CI runs (.ci/run):
#   host setup, kernel download (cached), test kernel build (cached),
#   scripts/host-checks.sh if present (series "host"),
#   then for every series: build, boot under QEMU, check the log.
# Prints every GPUMEM-RESULT line and ends with one line
#   N passed, N failed, N skipped
# Exit status 0 iff nothing failed and something passed.
#
# Env: GPUMEM_SERIES="6.1 6.12 7.3 test" (default: all four) narrows the run;
#      see scripts/run-guest.sh for the guest knobs.
set -euo pipefail
series=${GPUMEM_SERIES:-6.1 6.12 7.3 test}
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

debian=() want_test=0
for s in $series; do
	case $s in test) want_test=1 ;; *) debian+=("$s") ;; esac
done

log "test.sh: series: $series"
if record host setup-host "$scripts/setup-host.sh"; then
	fetched=()
	for s in "${debian[@]}"; do
		record "$s" fetch-kernel "$scripts/fetch-kernels.sh" "$s" && fetched+=("$s")
	done
	[ $want_test = 1 ] && record test build-testkernel "$scripts/build-testkernel.sh" && fetched+=(test)

	if [ -e "$scripts/host-checks.sh" ]; then
		log "test.sh: host checks"
		run_results host bash "$scripts/host-checks.sh"
	fi
	# Guests run $jobs at a time (each TCG guest keeps one core busy), the
	# slow test kernel first; each one's output is shown when it is done.
	jobs=${GPUMEM_JOBS:-$(nproc)}
	order=()
	for s in "${fetched[@]}"; do [ "$s" = test ] && order+=("$s"); done
	for s in "${fetched[@]}"; do [ "$s" != test ] && order+=("$s"); done
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/gpumem-series.XXXXXX")
	for s in "${order[@]}"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
		log "test.sh: series $s"
		( run_results "$s" bash "$scripts/run-guest.sh" "$s" >"$outdir/$s.out" 2>"$outdir/$s.err";
		  echo done >"$outdir/$s.done" ) &
		sleep 2	# let its build claim the shared locks first
	done
	wait
	for s in "${order[@]}"; do
		cat "$outdir/$s.err" >&2
		cat "$outdir/$s.out"
		[ -e "$outdir/$s.done" ] ||
			echo "GPUMEM-RESULT: FAIL $s harness: the series did not finish" | tee -a "$results"
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
