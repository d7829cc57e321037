# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for gpumem's guest tests (busybox sh). Source it:
#     . "$(dirname "$0")/lib.sh"
#
# Results:   pass NAME | fail NAME WHY | skip NAME WHY, or a test case:
#            tc_begin NAME; tc_eq WHAT ACTUAL WANT ...; tc_end
# debugfs:   tbl_get FILE COLUMN [COL=VALUE ...]   (columns by header name)
#            proc_field PID DEVICE COLUMN, dev_field DEVICE REGION COLUMN
# Helpers:   spawn NAME gpumem-alloc-args...   (waits for READY, bounded)
#            stop NAME                          (SIGTERM, bounded reap)
# Everything started through spawn is killed when the script exits.

set -u

GM_DIR=${GM_DIR:-$(cd "$(dirname "$0")" && pwd)}
GM_BIN=${GM_BIN:-$GM_DIR/bin}
GM_ALLOC=${GM_ALLOC:-$GM_BIN/gpumem-alloc}
GM_DEBUGFS=${GM_DEBUGFS:-/sys/kernel/debug/gpumem}
GM_CGROOT=${GM_CGROOT:-/sys/fs/cgroup}
GM_SERIES=$(cat /etc/gpumem-series 2>/dev/null | tr -d ' \t\n')
GM_SERIES=${GM_SERIES:-unknown}
GM_READY_TIMEOUT=${GM_READY_TIMEOUT:-30}	# seconds for a helper to print READY
GM_HOLD=${GM_HOLD:-600}				# helpers free everything after this (longer than any script may run)
GM_TMP=$(mktemp -d /tmp/gpumem-test.XXXXXX) || { echo "mktemp failed" >&2; exit 1; }
GM_PIDS=""
GM_FAILS=0
GM_NAME=${GM_NAME:-$(basename "$0" .sh)}
GM_TC=""
GM_TC_WHY=""

MiB=1048576

# The documented headers (docs/debugfs.md).
GM_HDR_devices="device driver unique ttm region capacity used free"
GM_HDR_processes="pid comm cgroup_id cgroup device vram gtt system other shared owned bos"
GM_HDR_buffers="device owner handle size region mem_type shared holders"
GM_HDR_stats="name value"

# Fractional sleeps if this busybox has them.
GM_TICK=0.2
sleep "$GM_TICK" 2>/dev/null || GM_TICK=1

log() { echo "# $*"; }

# --- results ---------------------------------------------------------------

_oneline() { printf '%s' "$*" | tr '\n' ' '; }

# _result VERDICT NAME [WHY]: under the guest runner (GM_RESULT_FD=8) a line
# on fd 8, the runner's own file for this script: the only way a result
# reaches the host. The console copy is for people and counts for nothing.
# Run by hand, a script prints its results on stdout.
_result() {
	_line="$1 $2${3:+: $(_oneline "$3")}"
	if [ "${GM_RESULT_FD:-}" = 8 ]; then
		echo "$_line" >&8
		echo "# result: $_line"
	else
		echo "result: $_line"
	fi
}
pass() { _result PASS "$1"; }
fail() {
	_result FAIL "$1" "${2:-no reason given}"
	GM_FAILS=$((GM_FAILS + 1))
}
skip() { _result SKIP "$1" "${2:-no reason given}"; }

# A test case collects every failed check and reports once.
tc_begin() { GM_TC=$1; GM_TC_WHY=""; log "case $1 (uptime $(cut -d' ' -f1 /proc/uptime))"; }
tc_fail() {
	log "  FAILED: $*"
	if [ -z "$GM_TC_WHY" ]; then GM_TC_WHY=$*; else GM_TC_WHY="$GM_TC_WHY; $*"; fi
}
tc_end() {
	if [ -z "$GM_TC_WHY" ]; then pass "$GM_TC"; else fail "$GM_TC" "$GM_TC_WHY"; fi
	GM_TC=""
}
tc_skip() { skip "$GM_TC" "$1"; GM_TC=""; GM_TC_WHY=""; }

# tc_eq WHAT ACTUAL WANT: exact string comparison ("" = no such line).
tc_eq() {
	if [ "$2" = "$3" ]; then
		log "  ok: $1 = $3"
	else
		tc_fail "$1 is '$(_oneline "$2")', want '$3'"
	fi
}

# pick_vram_card: the card a holder test works on: qxl VRAM if the guest has
# it, else vgem's system memory. Sets drv, kind, region and card; with
# neither, every case in $CASES fails and the script ends.
pick_vram_card() {
	if [ -n "$(card_of qxl)" ]; then
		drv=qxl kind=vram region=vram
	elif [ -n "$(card_of vgem)" ]; then
		drv=vgem kind=dumb region=system
	else
		for _t in $CASES; do
			fail "$_t" "neither a qxl nor a vgem card in this guest (run-guest.sh attaches qxl-vga)"
		done
		finish
	fi
	card=$(card_of "$drv")
	log "using $drv ($card), region $region"
}

# bench_allocators WHO N CMD...: N copies of CMD in the background (output in
# $GM_TMP/b<i>.out, pid in $par<i>, all in GM_PIDS), then wait (at most 300 s)
# until each printed READY; otherwise say why (as WHO) and exit 1. For the
# benchmarks, which are not tests.
bench_allocators() {
	_bw=$1 _bn=$2
	shift 2
	_bi=0
	while [ $_bi -lt "$_bn" ]; do
		"$@" >"$GM_TMP/b$_bi.out" 2>&1 8>&- &
		eval "par$_bi=$!"
		GM_PIDS="$GM_PIDS $!"
		_bi=$((_bi + 1))
	done
	_bend=$(($(date +%s) + 300))
	while :; do
		_br=$(grep -l '^READY ' "$GM_TMP"/b*.out 2>/dev/null | wc -l)
		[ "$_br" -ge "$_bn" ] && return 0
		if [ "$(date +%s)" -ge "$_bend" ]; then
			echo "$_bw: only $_br of $_bn allocators got ready:"
			grep -h -v '^[A-Z]' "$GM_TMP"/b*.out | sort | uniq -c | head
			exit 1
		fi
		sleep 1
	done
}

# orphan_events_off: orphaned events off until the script ends (then back to
# their old threshold). Each such event's report is a walk, made by a work
# item a few seconds after a process exits leaving buffers (the card probes
# leave qxl's console buffers): a script that counts walks exactly turns
# them off first.
orphan_events_off() {
	GM_OEB0=$(cat "$GM_PARAMS/orphan_event_bytes") || return
	echo 0 >"$GM_PARAMS/orphan_event_bytes"
	sleep 1	# a report already under way ends
}

# param_refuses PARAM VALUE...: writing each VALUE (and the empty string) to
# gpumem's module parameter PARAM fails and leaves its value as it was.
# param_accepts PARAM VALUE...: each VALUE is taken and read back as written.
GM_PARAMS=/sys/module/gpumem/parameters
param_refuses() {
	_pp=$1
	shift
	_pv0=$(cat "$GM_PARAMS/$_pp")
	for _pv in "$@" ""; do
		if echo "$_pv" >"$GM_PARAMS/$_pp" 2>/dev/null; then
			tc_fail "$_pp: writing '$_pv' succeeded (now $(cat "$GM_PARAMS/$_pp"))"
			echo "$_pv0" >"$GM_PARAMS/$_pp"
		fi
		tc_eq "$_pp after writing '$_pv'" "$(cat "$GM_PARAMS/$_pp")" "$_pv0"
	done
}
param_accepts() {
	_pp=$1
	shift
	for _pv in "$@"; do
		echo "$_pv" >"$GM_PARAMS/$_pp" || tc_fail "$_pp: writing $_pv failed"
		tc_eq "$_pp after writing $_pv" "$(cat "$GM_PARAMS/$_pp")" "$_pv"
	done
}

# tc_num OP WHAT ACTUAL WANT: numeric comparison, OP one of -eq -le -ge -lt -gt.
tc_num() {
	case ${3#-} in
	'' | *[!0-9]*) tc_fail "$2 is '$(_oneline "$3")', not a number"; return ;;
	esac
	if [ "$3" "$1" "$4" ]; then
		log "  ok: $2 = $3 ($1 $4)"
	else
		tc_fail "$2 is $3, want $1 $4"
	fi
}

# num VALUE: VALUE if it is a decimal number, else 0 (safe in $((...)); the
# raw value is what tc_num/tc_eq check).
num() {
	case ${1:-} in
	'' | *[!0-9]*) echo 0 ;;
	*) echo "$1" ;;
	esac
}

# End of a test script: exit status 1 if anything failed.
finish() { [ "$GM_FAILS" -eq 0 ]; exit $?; }

# --- debugfs tables ----------------------------------------------------------

# tbl_get FILE COLUMN [COL=VALUE ...]: print COLUMN of every row whose columns
# equal the given values, one per line. Columns are found by header name.
# Exit 2 (with a message) if a column is not in the header.
tbl_get() {
	_f=$1 _c=$2
	shift 2
	GM_KEYS="$*" awk -v col="$_c" '
	BEGIN { keys = ENVIRON["GM_KEYS"] }	# not -v: awk would expand \040 in values
	NR == 1 {
		for (i = 1; i <= NF; i++) h[$i] = i
		nk = split(keys, kv, " ")
		for (k = 1; k <= nk; k++) {
			eq = index(kv[k], "=")
			kc[k] = substr(kv[k], 1, eq - 1); kval[k] = substr(kv[k], eq + 1)
			if (!(kc[k] in h)) { missing = kc[k]; exit }
		}
		if (col != "-" && !(col in h)) { missing = col; exit }
		next
	}
	{
		for (k = 1; k <= nk; k++) if (($(h[kc[k]]) "") != (kval[k] "")) next
		if (col == "-") print; else print $(h[col])
	}
	END {
		if (missing != "") {
			print "gpumem-test: no column \"" missing "\" in " FILENAME > "/dev/stderr"
			exit 2
		}
	}' "$_f"
}

# tbl_count FILE [COL=VALUE ...]: number of matching rows.
tbl_count() { _f=$1; shift; tbl_get "$_f" - "$@" | wc -l | tr -d ' '; }

# snap NAME: copy one debugfs file (one consistent snapshot) to $GM_TMP/NAME.
snap() { cat "$GM_DEBUGFS/$1" >"$GM_TMP/$1" 2>"$GM_TMP/$1.err" || { cat "$GM_TMP/$1.err" >&2; : >"$GM_TMP/$1"; }; }

proc_field() { snap processes; tbl_get "$GM_TMP/processes" "$3" pid="$1" device="$2"; }
dev_field() { snap devices; tbl_get "$GM_TMP/devices" "$3" device="$1" region="$2"; }
stat_value() { snap stats; tbl_get "$GM_TMP/stats" value name="$1"; }

# proc_check PID DEVICE COL=VALUE ...: one consistent read, every column checked;
# also exactly one line for (pid, device).
proc_check() {
	_p=$1 _d=$2
	shift 2
	snap processes
	tc_eq "processes lines for pid $_p on $_d" \
		"$(tbl_count "$GM_TMP/processes" pid="$_p" device="$_d")" 1
	for _kv in "$@"; do
		tc_eq "pid $_p $_d ${_kv%%=*}" \
			"$(tbl_get "$GM_TMP/processes" "${_kv%%=*}" pid="$_p" device="$_d")" "${_kv#*=}"
	done
}

# pid_rows PID: number of processes rows of PID (all devices).
pid_rows() { snap processes; tbl_count "$GM_TMP/processes" pid="$1"; }

# No processes line and no buffers row mentions PID.
pid_gone() {
	snap processes
	snap buffers
	[ -s "$GM_TMP/processes" ] && [ -s "$GM_TMP/buffers" ] || return 1
	[ "$(tbl_count "$GM_TMP/processes" pid="$1")" = 0 ] || return 1
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ if ($(h["owner"]) == p) f = 1
		  n = split($(h["holders"]), a, ","); for (i = 1; i <= n; i++) if (a[i] == p) f = 1 }
		END { exit f }' "$GM_TMP/buffers"
}

# require_gpumem: the module's debugfs files exist, or FAIL and exit.
require_gpumem() {
	for _f in devices processes buffers stats; do
		if [ ! -r "$GM_DEBUGFS/$_f" ]; then
			fail "$GM_NAME" "$GM_DEBUGFS/$_f missing (gpumem not loaded or debugfs not mounted)"
			finish
		fi
	done
	if [ ! -x "$GM_ALLOC" ]; then
		fail "$GM_NAME" "$GM_ALLOC missing (make -C tests/guest)"
		finish
	fi
}

# --- devices -----------------------------------------------------------------

# card_of DRIVER: the first cardN whose DRM driver (drmGetVersion) matches;
# ground truth independent of gpumem. "bochs" matches bochs and bochs-drm.
card_of() {
	"$GM_ALLOC" list 2>/dev/null | awk -v d="$1" '
		$2 == d || (d ~ /^bochs/ && $2 ~ /^bochs/) { print $1; exit }'
}
driver_of() { "$GM_ALLOC" list 2>/dev/null | awk -v c="$1" '$1 == c { print $2; exit }'; }

# pci_bar_size CARD INDEX: size in bytes of a PCI BAR of the card's device (0 if none).
pci_bar_size() {
	awk -v n="$(($2 + 1))" 'NR == n { print $1 " " $2 }' "/sys/class/drm/$1/device/resource" 2>/dev/null |
		{
			read -r _s _e || { echo 0; return; }
			if [ "$((_e))" -eq 0 ]; then echo 0; else echo $((_e - _s + 1)); fi
		}
}

# kernel_mm: major*100+minor of the running kernel (6.12 -> 612).
kernel_mm() {
	_r=$(uname -r)
	_maj=${_r%%.*}
	_min=${_r#*.}
	_min=${_min%%[!0-9]*}
	echo $((_maj * 100 + _min))
}

# bochs_expect_ttm: "yes" on kernels where bochs uses drm_gem_vram_helper (TTM),
# "no" where it is a GEM-shmem driver (7.x), "" when this suite does not know.
# load_gpumem [PARAM=VALUE...]: load the module (modprobe; insmod of the
# installed .ko where modprobe fails), errors in $GM_TMP/modprobe.err, and
# wait until its debugfs files are there. Status 1 when it did not load.
load_gpumem() {
	if ! modprobe gpumem "$@" 2>"$GM_TMP/modprobe.err"; then
		_ko=$(find "/lib/modules/$(uname -r)" -name 'gpumem.ko*' 2>/dev/null | head -n 1)
		[ -n "$_ko" ] && insmod "$_ko" "$@" 2>>"$GM_TMP/modprobe.err" || return 1
	fi
	wait_until 10 test -r "$GM_DEBUGFS/stats" -a -r "$GM_DEBUGFS/devices" -a -r "$GM_DEBUGFS/quotas"
}

# check_cap_error WHAT FILE: a netlink dump stopped by dump_max_bytes
# failed the way the kernel can say it: with the extack that names the cap
# from 6.2 (netlink dumps carry extack since 6.2), with EMSGSIZE before.
check_cap_error() {
	if [ "$(kernel_mm)" -ge 602 ]; then
		grep -q dump_max_bytes "$2" ||
			tc_fail "$1 did not report the cap: $(head -c 300 "$2")"
	else
		grep -q 'Message too long' "$2" ||
			tc_fail "$1 did not fail with EMSGSIZE: $(head -c 300 "$2")"
	fi
}

bochs_expect_ttm() {
	_k=$(kernel_mm)
	if [ "$_k" -le 612 ]; then echo yes; elif [ "$_k" -ge 700 ]; then echo no; fi
}

# --- helper processes ----------------------------------------------------------

# spawn_cmd NAME CMD...: start CMD in the background, output in $GM_TMP/NAME.out,
# its pid in ${NAME}_pid; wait (bounded) for its READY line.
spawn_cmd() {
	_n=$1
	shift
	# Empty the output file here, not only in the child: wait_ready must not
	# see the READY line of an earlier helper of the same NAME before the
	# child (slow to fork under KASAN) has truncated the file.
	: >"$GM_TMP/$_n.out"
	# 8>&-: a helper never holds the result descriptor.
	"$@" >"$GM_TMP/$_n.out" 2>&1 8>&- &
	_pid=$!
	GM_PIDS="$GM_PIDS $_pid"
	eval "${_n}_pid=$_pid"
	log "started $_n (pid $_pid): $*"
	wait_ready "$_n" "$_pid"
}

# spawn NAME gpumem-alloc-args...
spawn() {
	_n=$1
	shift
	spawn_cmd "$_n" "$GM_ALLOC" "$@" -t "$GM_HOLD"
}

# spawn_in_cgroup CGDIR NAME gpumem-alloc-args...: the helper starts inside CGDIR.
spawn_in_cgroup() {
	_cg=$1 _n=$2
	shift 2
	spawn_cmd "$_n" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$_cg" "$GM_ALLOC" "$@" -t "$GM_HOLD"
}

out_of() { echo "$GM_TMP/$1.out"; }

# wait_ready NAME PID: 0 once READY is printed; 1 (and the helper's output on
# stderr) if it exits first or GM_READY_TIMEOUT passes.
wait_ready() {
	_end=$(($(date +%s) + GM_READY_TIMEOUT))
	while :; do
		if grep -q '^READY ' "$GM_TMP/$1.out" 2>/dev/null; then
			_rp=$(awk '$1 == "READY" { print $2; exit }' "$GM_TMP/$1.out")
			[ "$_rp" = "$2" ] && return 0
			echo "helper $1: READY pid $_rp is not the started pid $2" >&2
			return 1
		fi
		if ! _alive "$2"; then
			echo "helper $1 (pid $2) exited before READY:" >&2
			sed 's/^/    /' "$GM_TMP/$1.out" >&2
			return 1
		fi
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "helper $1 (pid $2): no READY after ${GM_READY_TIMEOUT}s:" >&2
			sed 's/^/    /' "$GM_TMP/$1.out" >&2
			return 1
		fi
		sleep "$GM_TICK"
	done
}

# helper_why NAME: the helper's last error line, for a FAIL/SKIP reason.
helper_why() { grep -v '^[A-Z]' "$GM_TMP/$1.out" 2>/dev/null | tail -n 1; }

# A process that has not exited (zombies count as exited).
_alive() {
	[ -r "/proc/$1/stat" ] || return 1
	_st=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$_st" ] && [ "$_st" != Z ] && [ "$_st" != X ]
}

# reap PID [SECONDS]: wait for exit (bounded), SIGKILL after the timeout.
reap() {
	_end=$(($(date +%s) + ${2:-5}))
	while _alive "$1"; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			kill -KILL "$1" 2>/dev/null
			sleep "$GM_TICK"
			break
		fi
		sleep "$GM_TICK"
	done
	wait "$1" 2>/dev/null
	GM_PIDS=$(echo "$GM_PIDS" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# stop NAME: SIGTERM the helper, wait for it to exit (bounded).
stop() {
	eval "_p=\${${1}_pid:-}"
	[ -n "$_p" ] || return 0
	kill -TERM "$_p" 2>/dev/null
	reap "$_p" 10
	log "stopped $1 (pid $_p)"
}

# out_card NAME: the card the helper opened; out_val NAME TAG KEY: KEY=value
# from the first line starting with TAG; out_bo NAME INDEX KEY: from "BO INDEX".
out_card() { awk '$1 == "DEVICE" { print $2; exit }' "$GM_TMP/$1.out"; }
out_val() {
	awk -v t="$2" -v k="$3=" '$1 == t {
		for (i = 2; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); exit } }' \
		"$GM_TMP/$1.out"
}
out_bo() {
	awk -v n="$2" -v k="$3=" '$1 == "BO" && $2 == n {
		for (i = 3; i <= NF; i++) if (index($i, k) == 1) { print substr($i, length(k) + 1); exit } }' \
		"$GM_TMP/$1.out"
}
out_handles() { awk '$1 == "BO" { sub("handle=", "", $3); print $3 }' "$GM_TMP/$1.out" | sort -n | tr '\n' ' '; }

# wait_until SECONDS CMD...: retry CMD until it succeeds; 1 on timeout.
wait_until() {
	_end=$(($(date +%s) + $1))
	shift
	until "$@"; do
		[ "$(date +%s)" -ge "$_end" ] && return 1
		sleep "$GM_TICK"
	done
}

# mkcgroup DIR: create a cgroup, removed again at exit.
mkcgroup() {
	mkdir "$1" || return 1
	# newest first, so children are removed before parents; paths may have blanks
	{ echo "$1"; cat "$GM_TMP/cgroups" 2>/dev/null || :; } >"$GM_TMP/cgroups.new" &&
		mv "$GM_TMP/cgroups.new" "$GM_TMP/cgroups"
}

# escape like gpumem: space, tab, newline, backslash -> \040 \011 \012 \134
gm_escape() {
	printf '%s' "$1" | awk 'BEGIN { RS = "\001" } {
		gsub(/\\/, "\\134"); gsub(/ /, "\\040"); gsub(/\t/, "\\011"); gsub(/\n/, "\\012"); printf "%s", $0 }'
}

_gm_cleanup() {
	[ -n "${GM_OEB0:-}" ] && echo "$GM_OEB0" >"$GM_PARAMS/orphan_event_bytes"
	for _p in $GM_PIDS; do kill -TERM "$_p" 2>/dev/null; done
	for _p in $GM_PIDS; do reap "$_p" 5; done
	if [ -r "$GM_TMP/cgroups" ]; then
		while IFS= read -r _cg; do
			# move stragglers out before removing the group
			for _p in $(cat "$_cg/cgroup.procs" 2>/dev/null); do
				echo "$_p" >"$GM_CGROOT/cgroup.procs" 2>/dev/null
			done
			rmdir "$_cg" 2>/dev/null || echo "# could not remove cgroup $_cg" >&2
		done <"$GM_TMP/cgroups"
	fi
	rm -rf "$GM_TMP"
}
trap _gm_cleanup EXIT
trap 'exit 130' INT TERM HUP
