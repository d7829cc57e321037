#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad limit requests change nothing, each with one documented outcome.
# Through gpumemctl: sizes that overflow, 0, negative, fractions of a byte,
# high above max, unknown or non-cgroup2 paths, unknown devices, modes and
# regions exit 2 (bad usage, gpumemctl's own check); max 2^64 - 1 and
# limits that are not set exit 1 with the kernel's errno and extack
# message; through raw netlink (the YNL CLI, where the image has python):
# an unknown cgroup id, a cgroup id that names a file, an unknown device,
# high above max, max 0 and an unknown mode are refused by the kernel with
# one errno each (and its extack message where it has one). After every
# attempt the quotas file and `limit list` are byte for byte what they were.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="quota-bad-ctl quota-bad-ctl-kernel quota-bad-netlink"

. "$(dirname "$0")/quota-lib.sh"

G=$GM_CGROOT/gpumem-q-bad
quota_setup "$G"
# (outside a case a tc_fail would be lost: a setup failure fails every case)
ctl limit set "$G" --max 4M --high 2M
[ "$ctl_rc" = 0 ] || fail_all "gpumemctl limit set $G --max 4M --high 2M exited $ctl_rc: $(cat "$GM_TMP/ctl.out")"
ctl limit set "$G" --max 1M --device "$qxl" --mode monitor
[ "$ctl_rc" = 0 ] || fail_all "gpumemctl limit set $G --max 1M --device $qxl exited $ctl_rc: $(cat "$GM_TMP/ctl.out")"
hold_in "$G" g1 -n 1 -s 512K -c gm-q-g1 || fail_all "helper: $(helper_why g1)"

state() { cat "$GM_DEBUGFS/quotas"; "$CTL" limit list --json; }
state >"$GM_TMP/state.0"
log "state before:"; sed 's/^/#   /' "$GM_TMP/state.0"
# bad WANT WHAT ARGS...: gpumemctl ARGS exits WANT, says why on stderr, and
# changes nothing. said TEXT: the last bad's stderr has TEXT.
bad() {
	_want=$1 _what=$2
	shift 2
	"$CTL" "$@" >"$GM_TMP/bad.out" 2>"$GM_TMP/bad.err"
	_rc=$?
	if [ "$_rc" = "$_want" ]; then
		log "  ok: $_what: exit $_rc: $(head -n 1 "$GM_TMP/bad.err")"
	else
		tc_fail "$_what (gpumemctl $*): exit $_rc, want $_want: $(cat "$GM_TMP/bad.out" "$GM_TMP/bad.err")"
	fi
	[ -s "$GM_TMP/bad.err" ] || tc_fail "$_what: no message on stderr"
	state >"$GM_TMP/state.1"
	cmp -s "$GM_TMP/state.0" "$GM_TMP/state.1" ||
		tc_fail "$_what changed the limits: $(diff "$GM_TMP/state.0" "$GM_TMP/state.1" | tr '\n' ' ')"
}
said() {
	grep -q -F -- "$1" "$GM_TMP/bad.err" ||
		tc_fail "no '$1' in gpumemctl's message: $(_oneline "$(cat "$GM_TMP/bad.err")")"
}

tc_begin quota-bad-ctl
bad 2 "max overflows u64" limit set "$G" --max 18446744073709551616
bad 2 "max overflows with a suffix" limit set "$G" --max 17179869184G
bad 2 "max 20 digits" limit set "$G" --max 99999999999999999999
# 2^64 - 1 is the kernel's "no limit", which its policy refuses as a size:
# gpumemctl knows and says so before asking (a usage error)
bad 2 "max 2^64 - 1 (the kernel's 'no limit')" limit set "$G" --max 18446744073709551615
said "too large: at most 18446744073709551614 bytes"
bad 2 "max 0" limit set "$G" --max 0
bad 2 "max 0M" limit set "$G" --max 0M
bad 2 "max negative" limit set "$G" --max -1
bad 2 "max negative with suffix" limit set "$G" --max -4M
bad 2 "max not a number" limit set "$G" --max abc
bad 2 "max a fraction of a byte" limit set "$G" --max 1.5
bad 2 "max with an unknown suffix" limit set "$G" --max 4X
bad 2 "max empty" limit set "$G" --max ""
bad 2 "high 0" limit set "$G" --max 4M --high 0
bad 2 "high negative" limit set "$G" --high -1
bad 2 "high above max" limit set "$G" --max 4M --high 8M
bad 2 "neither max nor high" limit set "$G"
bad 2 "no cgroup" limit set --max 4M
bad 2 "unknown cgroup" limit set "$GM_CGROOT/gpumem-q-no-such" --max 4M
bad 2 "unknown relative cgroup" limit set gpumem-q-no-such --max 4M
bad 2 "non-cgroup2 path /proc" limit set /proc --max 4M
bad 2 "a file of a cgroup" limit set "$G/cgroup.procs" --max 4M
bad 2 "unknown mode" limit set "$G" --max 4M --mode deny
bad 2 "unknown region" limit set "$G" --max 4M --region hbm
bad 2 "region system (never charged)" limit set "$G" --max 4M --region system
bad 2 "region other (never charged)" limit set "$G" --max 4M --region other
bad 2 "bad device" limit set "$G" --max 4M --device notacard
# gpumemctl resolves --device against the dev-get dump before sending
bad 2 "unknown device card99" limit set "$G" --max 4M --device card99
said "unknown device 'card99'"
bad 2 "unknown device by PCI address" limit set "$G" --max 4M --device 0000:ff:1f.7
said "unknown device '0000:ff:1f.7'"
bad 2 "mode with get" limit get "$G" --mode monitor
bad 2 "unknown action" limit reset "$G"
bad 2 "list with a path" limit list "$G"
bad 2 "clear of an unknown cgroup" limit clear "$GM_CGROOT/gpumem-q-no-such"
tc_end

tc_begin quota-bad-ctl-kernel
# Well-formed requests the kernel refuses: exit 1 with its message.
# (ENOENT with the kernel's extack message)
bad 1 "clear a limit that is not set" limit clear "$G" --region gtt
said "No such file or directory: no limit on that cgroup, device and region"
bad 1 "get a limit that is not set" limit get "$G" --region gtt
said "No such file or directory: no limit on that cgroup, device and region"
bad 1 "clear on a device without a limit" limit clear "$SYNC" --device "$qxl"
said "No such file or directory: no limit on that cgroup, device and region"
tc_end

tc_begin quota-bad-netlink
ynl=/opt/ynl
if [ ! -e "$ynl/batch.py" ] || ! command -v python3 >/dev/null; then
	tc_skip "no python3 + YNL CLI in this image"
else
	gid=$(cgid /gpumem-q-bad)
	fid=$(stat -c %i "$G/cgroup.procs")
	# Every limit-set below goes through the kernel's YNL library from one
	# python3 start (tests/guest/ynl-batch.py: on the KASAN/lockdep test
	# kernel each start costs 10-25 s). nlreq NAME WHAT ERRNO MESSAGE JSON:
	# limit-set JSON must be refused (exit != 0) with ERRNO (its strerror,
	# as the CLI prints "Netlink error: ...") and, unless "", the extack
	# MESSAGE.
	: >"$GM_TMP/nl.req"
	: >"$GM_TMP/nl.want"
	nlreq() {
		echo "$1 do limit-set $5" >>"$GM_TMP/nl.req"
		printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$GM_TMP/nl.want"
	}
	# (policy range checks: ERANGE; lookups: ENOENT / ENODEV; the
	# module's own checks: EINVAL / EOPNOTSUPP)
	ENOENT="No such file or directory" ENODEV="No such device"
	ERANGE="Numerical result out of range" EINVAL="Invalid argument" EOPNOTSUPP="Operation not supported"
	nlreq n1 "unknown cgroup id" "$ENOENT" "no such cgroup" '{"cgroup-id": 999999999, "max-bytes": 1048576}'
	nlreq n2 "cgroup id of a file" "$ENOENT" "no such cgroup" "{\"cgroup-id\": $fid, \"max-bytes\": 1048576}"
	nlreq n3 "cgroup id 0" "$ERANGE" "" '{"cgroup-id": 0, "max-bytes": 1048576}'
	nlreq n4 "unknown device" "$ENODEV" "no such DRM device" "{\"cgroup-id\": $gid, \"dev-id\": 99, \"max-bytes\": 1048576}"
	nlreq n5 "high above max" "$EINVAL" "high-bytes is above max-bytes" \
		"{\"cgroup-id\": $gid, \"max-bytes\": 1048576, \"high-bytes\": 2097152}"
	nlreq n6 "max 0" "$ERANGE" "" "{\"cgroup-id\": $gid, \"max-bytes\": 0}"
	nlreq n7 "max 2^64 - 1" "$ERANGE" "" "{\"cgroup-id\": $gid, \"max-bytes\": 18446744073709551615}"
	nlreq n8 "no max, no high" "$EINVAL" "needs max-bytes" "{\"cgroup-id\": $gid}"
	nlreq n9 "unknown mode" "$ERANGE" "" "{\"cgroup-id\": $gid, \"max-bytes\": 1048576, \"mode\": 7}"
	nlreq n10 "unknown region" "$ERANGE" "" "{\"cgroup-id\": $gid, \"max-bytes\": 1048576, \"region\": 9}"
	nlreq n11 "region system (never charged)" "$EOPNOTSUPP" "vram and gtt regions only" \
		"{\"cgroup-id\": $gid, \"max-bytes\": 1048576, \"region\": 2}"
	nlreq n12 "region other (never charged)" "$EOPNOTSUPP" "vram and gtt regions only" \
		"{\"cgroup-id\": $gid, \"max-bytes\": 1048576, \"region\": 3}"
	t0=$(date +%s)
	python3 "$ynl/batch.py" "$ynl/gpumem.yaml" "$GM_TMP/nl.req" "$GM_TMP" >"$GM_TMP/nl.batch" 2>&1
	_rc=$?
	log "ynl batch of $(wc -l <"$GM_TMP/nl.req") limit-set requests: exit $_rc after $(($(date +%s) - t0)) s"
	[ "$_rc" = 0 ] || tc_fail "the batch runner failed: $(tail -n 3 "$GM_TMP/nl.batch" | tr '\n' ' ')"
	while IFS="$(printf '\t')" read -r n what errno msg; do
		out=$GM_TMP/$n.out
		if [ ! -e "$GM_TMP/$n.rc" ]; then
			tc_fail "$what: no result"
		elif [ "$(cat "$GM_TMP/$n.rc")" = 0 ]; then
			tc_fail "$what: limit-set succeeded: $(cat "$out")"
		elif ! grep -q -F "Netlink error: $errno" "$out"; then
			tc_fail "$what: not '$errno': $(cat "$out" "$GM_TMP/$n.err" | tail -n 3 | tr '\n' ' ')"
		elif [ -n "$msg" ] && ! grep -q -F "$msg" "$out"; then
			tc_fail "$what: no '$msg' in: $(tail -n 3 "$out" | tr '\n' ' ')"
		else
			log "  ok: $what refused: $(grep -i -m 1 -E 'error|msg' "$out")"
		fi
	done <"$GM_TMP/nl.want"
	state >"$GM_TMP/state.1"
	cmp -s "$GM_TMP/state.0" "$GM_TMP/state.1" ||
		tc_fail "the refused limit-sets changed the limits: $(diff "$GM_TMP/state.0" "$GM_TMP/state.1" | tr '\n' ' ')"
	tc_end
fi

stop g1
for d in "" "--device $qxl"; do "$CTL" limit clear "$G" $d >/dev/null 2>&1; done
"$CTL" limit clear "$SYNC" >/dev/null 2>&1
finish
