#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl limit set/get/clear/list and cgroups against the module's quota
# requests: bad sizes are usage errors (exit 2) before the kernel is asked;
# the three spellings of a cgroup path and a Kubernetes-style nested slice
# name the same cgroup id (the directory's inode); set replaces, get/list
# show what was set, clear removes; the usage of a cgroup is the bytes its
# processes allocated (cgroups, limit get, export --prometheus); as a user
# without privileges limit and watch exit 4 and cgroups works.
# Skipped when the loaded module has no quota support (EOPNOTSUPP).
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="ctl-limit-args ctl-limit-paths ctl-limit-roundtrip ctl-limit-usage ctl-limit-nonroot"
if [ ! -x "$CTL" ]; then
	for t in $CASES; do fail "$t" "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"; done
	finish
fi

# jget KEY: the value of "KEY": in the first JSON object on stdin (strings
# without their quotes; no escapes in this test's values).
jget() {
	awk -v k="\"$1\":" '{
		i = index($0, k); if (!i) next
		v = substr($0, i + length(k))
		if (substr(v, 1, 1) == "\"") { v = substr(v, 2); sub(/".*/, "", v) }
		else sub(/[,}].*/, "", v)
		print v; exit
	}'
}

# ctl ARGS...: gpumemctl, stdout in $GM_TMP/c.out, stderr in c.err, status in rc.
ctl() {
	"$CTL" "$@" >"$GM_TMP/c.out" 2>"$GM_TMP/c.err"
	rc=$?
}

# bad ARGS...: exit 2, a message, nothing on stdout.
bad() {
	ctl "$@"
	if [ "$rc" = 2 ] && [ -s "$GM_TMP/c.err" ] && [ ! -s "$GM_TMP/c.out" ]; then
		log "  ok: gpumemctl $* -> 2: $(head -n 1 "$GM_TMP/c.err")"
	else
		tc_fail "gpumemctl $* exited $rc (want 2), stderr '$(_oneline "$(cat "$GM_TMP/c.err")")'"
	fi
}

CG=$GM_CGROOT/gm-limit
POD=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f3c2b1a_4d5e_4789_abcd_ef0123456789.slice
mkcgroup "$CG" || { for t in $CASES; do fail "$t" "cannot create $CG"; done; finish; }

tc_begin ctl-limit-args
for s in 0 0K -1 -1G 1.5 0.1K 1.0000000001G 18446744073709551616 16777216T lots 1X '1 G' ''; do
	bad limit set "$CG" --max "$s"
done
grep -q "invalid size ''" "$GM_TMP/c.err" || grep -q "empty size" "$GM_TMP/c.err" ||
	tc_fail "no message for an empty size: '$(_oneline "$(cat "$GM_TMP/c.err")")'"
bad limit set "$CG" --max 1.5
grep -q "not a whole number of bytes" "$GM_TMP/c.err" || tc_fail "no 'not a whole number' message"
bad limit set "$CG" --max 0
grep -q "at least 1 byte" "$GM_TMP/c.err" || tc_fail "no 'at least 1 byte' message"
bad limit set "$CG"
bad limit set "$CG" --max 1G --high 2G
bad limit set "$CG" --max 1G --mode warn
bad limit set "$CG" --max 1G --region lmem
bad limit set "$CG" --max 1G --device card999
bad limit set /proc --max 1G
bad limit set /nonexistent-gpumem --max 1G
bad limit get
bad limit get "$CG" --max 1G
bad limit list "$CG"
bad limit bogus "$CG"
bad watch --count 0
bad cgroups --device card999
tc_end

ctl limit list
if [ "$rc" != 0 ] && grep -q "does not know this request" "$GM_TMP/c.err"; then
	for t in ctl-limit-paths ctl-limit-roundtrip ctl-limit-usage ctl-limit-nonroot; do
		fail "$t" "the loaded gpumem module has no quota support (EOPNOTSUPP)"
	done
	finish
fi

# Whatever happens, no limit of this test is left behind.
cleanup_limits() {
	for _c in "$CG" "$POD"; do
		for _a in "" "-d $card -r gtt"; do
			# shellcheck disable=SC2086 # $_a: options, split on purpose
			"$CTL" limit clear "$_c" $_a >/dev/null 2>&1
		done
	done
}
card=$("$CTL" devices --json | awk -F'"name":"' 'NF > 1 { split($2, a, "\""); print a[1]; exit }')
trap 'cleanup_limits; _gm_cleanup' EXIT

tc_begin ctl-limit-paths
id=$(stat -c %i "$CG")
for p in "$CG" gm-limit /gm-limit; do
	ctl limit set "$p" --max 8M --json
	tc_eq "limit set $p: exit" "$rc" 0
	tc_eq "limit set $p: cgroup_id" "$(jget cgroup_id <"$GM_TMP/c.out")" "$id"
	tc_eq "limit set $p: cgroup" "$(jget cgroup <"$GM_TMP/c.out")" /gm-limit
done
_d=$GM_CGROOT
for part in $(echo "$POD" | tr / ' '); do
	_d=$_d/$part
	[ -d "$_d" ] || mkcgroup "$_d" || tc_fail "cannot create $_d"
done
ctl limit set "$GM_CGROOT/$POD" --max 2G --high 1536M
tc_eq "limit set (Kubernetes pod slice): exit" "$rc" 0
ctl limit get "/$POD" --json
tc_eq "limit get /$POD: exit" "$rc" 0
tc_eq "pod slice cgroup_id" "$(jget cgroup_id <"$GM_TMP/c.out")" "$(stat -c %i "$GM_CGROOT/$POD")"
tc_eq "pod slice cgroup path" "$(jget cgroup <"$GM_TMP/c.out")" "/$POD"
tc_eq "pod slice max" "$(jget max <"$GM_TMP/c.out")" 2147483648
tc_eq "pod slice high" "$(jget high <"$GM_TMP/c.out")" 1610612736
ctl limit clear "$POD"
tc_eq "limit clear $POD (relative): exit" "$rc" 0
tc_end

tc_begin ctl-limit-roundtrip
ctl limit set "$CG" --max 8M --high 4M --json
tc_eq "set: exit" "$rc" 0
ctl limit get "$CG" --json
tc_eq "get: exit" "$rc" 0
for kv in max=8388608 high=4194304 mode=enforce device=all region=vram; do
	tc_eq "get: ${kv%%=*}" "$(jget "${kv%%=*}" <"$GM_TMP/c.out")" "${kv#*=}"
done
# nothing in $CG ever asked for memory
tc_eq "get: denied" "$(jget denied <"$GM_TMP/c.out")" 0
# set changes only what it is given
ctl limit set "$CG" --max 16M --mode monitor
tc_eq "change max and mode: exit" "$rc" 0
ctl limit get "$CG" --json
tc_eq "changed: max" "$(jget max <"$GM_TMP/c.out")" 16777216
tc_eq "changed: high kept" "$(jget high <"$GM_TMP/c.out")" 4194304
tc_eq "changed: mode" "$(jget mode <"$GM_TMP/c.out")" monitor
ctl limit set "$CG" --high 2M
tc_eq "change high alone: exit" "$rc" 0
ctl limit get "$CG" --json
tc_eq "high alone: max kept, high, mode kept" \
	"$(jget max <"$GM_TMP/c.out") $(jget high <"$GM_TMP/c.out") $(jget mode <"$GM_TMP/c.out")" \
	"16777216 2097152 monitor"
ctl limit set "$CG" --high 32M
tc_eq "high above the kept max: exit" "$rc" 1
grep -q "high-bytes would be above max-bytes" "$GM_TMP/c.err" ||
	tc_fail "high above the kept max: no kernel message: $(cat "$GM_TMP/c.err")"
ctl limit get "$CG" --json
tc_eq "after the refused change: unchanged" \
	"$(jget max <"$GM_TMP/c.out") $(jget high <"$GM_TMP/c.out") $(jget mode <"$GM_TMP/c.out")" \
	"16777216 2097152 monitor"
# --replace replaces the whole limit
ctl limit set "$CG" --max 16M --replace
tc_eq "replace: exit" "$rc" 0
ctl limit get "$CG" --json
tc_eq "replaced: max" "$(jget max <"$GM_TMP/c.out")" 16777216
tc_eq "replaced: high gone" "$(jget high <"$GM_TMP/c.out")" null
tc_eq "replaced: mode back to enforce" "$(jget mode <"$GM_TMP/c.out")" enforce
if [ -n "$card" ]; then
	ctl limit set "$CG" -d "$card" -r gtt --high 1M --json
	tc_eq "set on $card gtt: exit" "$rc" 0
	tc_eq "set on $card gtt: device" "$(jget device <"$GM_TMP/c.out")" "$card"
	tc_eq "set on $card gtt: region" "$(jget region <"$GM_TMP/c.out")" gtt
	tc_eq "set on $card gtt: max" "$(jget max <"$GM_TMP/c.out")" null
fi
ctl limit list --json
tc_eq "list: exit" "$rc" 0
tc_eq "list: rows of gm-limit" "$(grep -c '"cgroup":"/gm-limit"' "$GM_TMP/c.out")" "$([ -n "$card" ] && echo 2 || echo 1)"
ctl limit list
tc_eq "list (table): exit" "$rc" 0
tc_eq "list (table): header" "$(head -n 1 "$GM_TMP/c.out" | tr -s ' ')" \
	"DEVICE REGION USAGE MAX HIGH USE% MODE DENIED CGROUP"
if [ -n "$card" ]; then
	ctl limit clear "$CG" --device "$card" --region gtt
	tc_eq "clear $card gtt: exit" "$rc" 0
	ctl limit get "$CG" --device "$card" --region gtt
	tc_eq "get after clear: exit" "$rc" 1
fi
ctl limit clear "$CG"
tc_eq "clear: exit" "$rc" 0
ctl limit get "$CG"
tc_eq "get of no limit: exit" "$rc" 1
[ -s "$GM_TMP/c.err" ] || tc_fail "get of no limit: no message"
ctl limit clear "$CG"
tc_eq "clear of no limit: exit" "$rc" 1
ctl limit list --json
tc_eq "list after clear: rows of gm-limit" "$(grep -c '"cgroup":"/gm-limit"' "$GM_TMP/c.out")" 0
ctl limit set "$CG" --max 1
tc_eq "set --max 1 (one byte): exit" "$rc" 0
ctl limit clear "$CG"
tc_end

tc_begin ctl-limit-usage
qcard=$(card_of qxl)
if [ -z "$qcard" ]; then
	tc_fail "no qxl device to allocate VRAM on"; tc_end
elif ! spawn_in_cgroup "$CG" u alloc -d qxl -k vram -n 2 -s 1M -c gm-limit-u; then
	tc_fail "helper failed: $(helper_why u)"
	tc_end
else
	# the helper is the only process in $CG and still holds its buffers:
	# the charges are exactly its two placements
	total=$(out_val u TOTAL bytes)
	ctl limit set "$CG" --max 64M
	tc_eq "set: exit" "$rc" 0
	ctl limit get "$CG" --json
	tc_eq "limit get: usage (all devices)" "$(jget usage <"$GM_TMP/c.out")" "$total"
	ctl cgroups --json --device "$qcard"
	tc_eq "cgroups: exit" "$rc" 0
	row=$(grep '"cgroup":"/gm-limit","device":"'"$qcard"'","region":"vram"' "$GM_TMP/c.out")
	tc_eq "cgroups: usage of gm-limit on $qcard vram" "$(echo "$row" | jget usage)" "$total"
	ctl cgroups --json
	row=$(grep '"cgroup":"/gm-limit","device":"all","region":"vram"' "$GM_TMP/c.out")
	tc_eq "cgroups: the all-devices row has the limit" "$(echo "$row" | jget max)" 67108864
	ctl export --prometheus
	tc_eq "export: exit" "$rc" 0
	tc_eq "export: gpumem_cgroup_usage_bytes" \
		"$(grep "^gpumem_cgroup_usage_bytes{cgroup=\"/gm-limit\",device=\"$qcard\",region=\"vram\"} " "$GM_TMP/c.out" | awk '{ print $2 }')" \
		"$total"
	tc_eq "export: gpumem_cgroup_limit_bytes max" \
		"$(grep "^gpumem_cgroup_limit_bytes{cgroup=\"/gm-limit\",device=\"all\",region=\"vram\",kind=\"max\"} " "$GM_TMP/c.out" | awk '{ print $2 }')" \
		67108864
	tc_eq "export: no stderr" "$(cat "$GM_TMP/c.err")" ""
	stop u
	ctl limit clear "$CG"
	tc_end
fi

# --- as a user without privileges ----------------------------------------------
CTL_USER=gmctl
CTL_UID=60124
added_user=0
if ! grep -q "^$CTL_USER:" /etc/passwd 2>/dev/null; then
	echo "$CTL_USER:x:$CTL_UID:$CTL_UID:gpumemctl test:/:/bin/sh" >>/etc/passwd && added_user=1
fi
trap 'cleanup_limits; [ "$added_user" = 1 ] && sed -i "/^$CTL_USER:/d" /etc/passwd; _gm_cleanup' EXIT
as_user() {
	_cmd="$CTL"
	for _a in "$@"; do _cmd="$_cmd '$_a'"; done
	su -s /bin/sh "$CTL_USER" -c "$_cmd" >"$GM_TMP/u.out" 2>"$GM_TMP/u.err"
	rc=$?
}

tc_begin ctl-limit-nonroot
if ! su -s /bin/sh "$CTL_USER" -c 'test "$(id -u)" != 0' 2>"$GM_TMP/su.err"; then
	tc_fail "cannot run a command as $CTL_USER with su: $(cat "$GM_TMP/su.err")"; tc_end
else
	# limits are readable by everyone (docs/netlink.md: who may do what)
	as_user limit list
	tc_eq "limit list as uid $CTL_UID: exit" "$rc" 0
	as_user limit set "$CG" --max 1G
	tc_eq "limit set as uid $CTL_UID: exit" "$rc" 4
	grep -q "Operation not permitted" "$GM_TMP/u.err" ||
		tc_fail "limit set: no EPERM message: '$(_oneline "$(cat "$GM_TMP/u.err")")'"
	# the same scenarios as the CLI's unit tests against the fake kernel,
	# whose permissions come from the spec (scripts/gen-perms.py)
	ctl limit set "$CG" --max 8M
	as_user limit get "$CG"
	tc_eq "limit get as uid $CTL_UID: exit" "$rc" 0
	as_user limit clear "$CG"
	tc_eq "limit clear as uid $CTL_UID: exit" "$rc" 4
	ctl limit get "$CG" --json
	tc_eq "the limit after the refused clear" "$(jget max <"$GM_TMP/c.out")" $((8 * MiB))
	ctl limit clear "$CG"
	as_user cgroups --json
	tc_eq "cgroups as uid $CTL_UID: exit" "$rc" 0
	as_user watch --timeout 2
	tc_eq "watch as uid $CTL_UID: exit (the events group is admin-only)" "$rc" 4
	grep -q "CAP_SYS_ADMIN" "$GM_TMP/u.err" ||
		tc_fail "watch: no message about the privilege: '$(_oneline "$(cat "$GM_TMP/u.err")")'"
	tc_end
fi

finish
