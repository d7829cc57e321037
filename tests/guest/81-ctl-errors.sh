#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl's exit codes: 2 for every kind of bad argument (with a message,
# nothing on stdout, never a crash), and as a user without CAP_NET_ADMIN:
# 4 for `buffers` (admin-only in the kernel) while ps/devices/stats work;
# such users share 10 walks (the held view) per rate-limit window of one
# second, then EBUSY with a message, while the charged view and root are
# never limited.
# The unprivileged user comes from busybox su with a line this script adds
# to /etc/passwd (and removes again).
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
if [ ! -x "$CTL" ]; then
	for t in ctl-bad-args ctl-nonroot-eperm ctl-nonroot-read ctl-nonroot-walk-budget; do
		fail "$t" "$CTL missing (copy userspace/gpumemctl-static there)"
	done
	finish
fi

# bad ARGS...: exit 2, a message on stderr, nothing on stdout.
bad() {
	"$CTL" "$@" >"$GM_TMP/bad.out" 2>"$GM_TMP/bad.err"
	_rc=$?
	if [ "$_rc" = 2 ] && [ -s "$GM_TMP/bad.err" ] && [ ! -s "$GM_TMP/bad.out" ]; then
		log "  ok: gpumemctl $* -> 2: $(head -n 1 "$GM_TMP/bad.err")"
	else
		tc_fail "gpumemctl $* exited $_rc (want 2), stderr '$(_oneline "$(cat "$GM_TMP/bad.err")")', stdout $(wc -c <"$GM_TMP/bad.out") bytes"
	fi
}

tc_begin ctl-bad-args
bad
bad bogus
bad --bogus
bad ps --bogus
bad ps -x
bad ps extra
bad ps --pid
bad ps --pid abc
bad ps --pid 12abc
bad ps --pid ''
bad ps --pid -1
bad ps --pid 4194305
bad ps --pid 99999999999999999999999
bad ps --device card
bad ps --device 'a b'
bad ps --device card999
bad ps --device 999
bad ps --device 0000:ff:1f.7
bad ps --cgroup /proc
bad ps --cgroup /sys/kernel/debug
bad ps --cgroup /nonexistent-gpumem
bad ps --cgroup nonexistent-gpumem/x
bad ps --cgroup ''
bad buffers
bad buffers --pid x
bad buffers --pid 1 --device card999
bad buffers --pid 1 --min-size 1X
bad top --interval 0
bad top --interval abc
bad top --iterations 0
bad top --iterations -3
bad top --json
bad stats extra
bad export
bad export --prometheus --json
bad devices --pid 1
bad help bogus
# the message says which argument is wrong
"$CTL" ps --pid abc 2>&1 | grep -q "invalid pid 'abc'" || tc_fail "no 'invalid pid' message"
"$CTL" ps --device card999 2>&1 | grep -q "unknown device 'card999'" || tc_fail "no 'unknown device' message"
"$CTL" ps --cgroup /proc 2>&1 | grep -q "not a cgroup v2 directory" || tc_fail "no cgroup v2 message"
# pid 0 is no bad argument: it selects the in-kernel clients' rows
"$CTL" ps --held --json --pid 0 >"$GM_TMP/p0.out" 2>"$GM_TMP/p0.err"
tc_eq "ps --pid 0: exit" "$?" 0
tc_eq "ps --pid 0: rows of another pid" "$(grep '"pid":' "$GM_TMP/p0.out" | grep -vc '"pid":0,')" 0
tc_eq "ps --pid 0: its rows are the processes table's pid 0 rows" \
	"$(grep -c '"pid":0,' "$GM_TMP/p0.out")" "$(snap processes; tbl_count "$GM_TMP/processes" pid=0)"
tc_end

# --- as a user without CAP_NET_ADMIN ----------------------------------------------
CTL_USER=gmctl
CTL_UID=60123
CTL_USER2=gmctl2
CTL_UID2=60124
added_user=0
created_passwd=0
ctl_cleanup() {
	if [ "$added_user" = 1 ]; then
		if [ "$created_passwd" = 1 ]; then
			rm -f /etc/passwd
		else
			sed -i -e "/^$CTL_USER:/d" -e "/^$CTL_USER2:/d" /etc/passwd
		fi
	fi
}
trap 'ctl_cleanup; _gm_cleanup' EXIT

if ! grep -q "^$CTL_USER:" /etc/passwd 2>/dev/null; then
	[ -e /etc/passwd ] || created_passwd=1
	if echo "$CTL_USER:x:$CTL_UID:$CTL_UID:gpumemctl test:/:/bin/sh" >>/etc/passwd &&
		echo "$CTL_USER2:x:$CTL_UID2:$CTL_UID2:gpumemctl test 2:/:/bin/sh" >>/etc/passwd; then
		added_user=1
	fi
fi

# as_user ARGS...: gpumemctl as $CTL_USER; status in user_rc.
as_user() {
	_cmd="$CTL"
	for _a in "$@"; do _cmd="$_cmd '$_a'"; done
	su -s /bin/sh "$CTL_USER" -c "$_cmd" >"$GM_TMP/user.out" 2>"$GM_TMP/user.err"
	user_rc=$?
}

if ! su -s /bin/sh "$CTL_USER" -c 'test "$(id -u)" != 0' 2>"$GM_TMP/su.err"; then
	for t in ctl-nonroot-eperm ctl-nonroot-read ctl-nonroot-walk-budget; do
		fail "$t" "cannot run a command as $CTL_USER with su: $(cat "$GM_TMP/su.err")"
	done
	finish
fi

tc_begin ctl-nonroot-eperm
as_user buffers --pid 1
tc_eq "buffers as uid $CTL_UID: exit" "$user_rc" 4
grep -q "Operation not permitted" "$GM_TMP/user.err" ||
	tc_fail "no EPERM message: '$(_oneline "$(cat "$GM_TMP/user.err")")'"
tc_eq "buffers as uid $CTL_UID: stdout" "$(cat "$GM_TMP/user.out")" ""
as_user buffers --json --pid 1
tc_eq "buffers --json as uid $CTL_UID: exit" "$user_rc" 4
tc_end

tc_begin ctl-nonroot-read
snap processes
as_user ps --held --json
tc_eq "ps --held --json as uid $CTL_UID: exit" "$user_rc" 0
tc_eq "ps --held --json rows as uid $CTL_UID" "$(grep -c '^{' "$GM_TMP/user.out")" "$(($(wc -l <"$GM_TMP/processes") - 1))"
as_user ps --json
tc_eq "ps --json (charged view) as uid $CTL_UID: exit" "$user_rc" 0
tc_eq "ps --json as uid $CTL_UID: rows not of the charged view" \
	"$(grep '^{' "$GM_TMP/user.out" | grep -vc '"view":"charged"')" 0
as_user devices --json
tc_eq "devices --json as uid $CTL_UID (libdrm without access): exit" "$user_rc" 0
tc_eq "devices as uid $CTL_UID" "$(grep -c '^{' "$GM_TMP/user.out")" \
	"$(tail -n +2 "$GM_DEBUGFS/devices" | awk '{ print $1 }' | sort -u | wc -l | tr -d ' ')"
as_user stats
tc_eq "stats as uid $CTL_UID: exit" "$user_rc" 0
tc_end

# A walk (the held view) holds each DRM device's client list while it
# collects handles: callers without CAP_NET_ADMIN share 10 walks per
# rate-limit window (kmod/netlink.c: a window is one second from the first
# call after the last one ended). Two users flood 60 held dumps each at
# once, after a second without any: the first call (sent at S) starts a
# window, so every call answered before S + k s was decided in one of the
# first k windows: at most 10k of those answered, for each k. Some are
# answered, the rest EBUSY with the kernel's message (6.1 drops a dump's
# start message); the charged view and root are not limited.
BUDGET=10
tc_begin ctl-nonroot-walk-budget
FUZZ=$GM_BIN/nl-fuzz
# flood WHO VIEW: 60 dumps as WHO (root or user); fl = the FLOOD line
flood() {
	if [ "$1" = root ]; then
		"$FUZZ" flood -n 60 -V "$2" >"$GM_TMP/flood.out" 2>&1
	else
		su -s /bin/sh "$CTL_USER" -c "'$FUZZ' flood -n 60 -V $2" >"$GM_TMP/flood.out" 2>&1
	fi
	fl_rc=$?
	fl=$(grep '^FLOOD ' "$GM_TMP/flood.out")
	log "  $1 $2: $fl"
	[ "$fl_rc" = 0 ] && [ -n "$fl" ] || tc_fail "nl-fuzz flood as $1 ($2) exited $fl_rc: $(_oneline "$(cat "$GM_TMP/flood.out")")"
}
fl_get() { echo "$fl" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
sleep 1.5 2>/dev/null || sleep 2	# a fresh window
su -s /bin/sh "$CTL_USER2" -c "'$FUZZ' flood -n 60 -V held" >"$GM_TMP/flood2.out" 2>&1 8>&- &
fl2_pid=$!
flood user held
wait "$fl2_pid"
fl2_rc=$?
fl2=$(grep '^FLOOD ' "$GM_TMP/flood2.out")
log "  user2 held: $fl2"
[ "$fl2_rc" = 0 ] && [ -n "$fl2" ] || tc_fail "nl-fuzz flood as $CTL_USER2 exited $fl2_rc: $(_oneline "$(cat "$GM_TMP/flood2.out")")"
ok=$(num "$(fl_get ok)") busy=$(num "$(fl_get busy)")
ok2=$(echo "$fl2" | tr ' ' '\n' | sed -n 's/^ok=//p') busy2=$(echo "$fl2" | tr ' ' '\n' | sed -n 's/^busy=//p')
ok2=$(num "$ok2") busy2=$(num "$busy2")
tc_eq "user held: answered + busy, other" "$((ok + busy)) $(fl_get other)" "60 0"
tc_eq "user2 held: answered + busy" "$((ok2 + busy2))" 60
tc_num -ge "both users: answered" "$((ok + ok2))" 1
tc_num -ge "both users: EBUSY" "$((busy + busy2))" 1
# Per window, both users' calls together (one budget)
cat "$GM_TMP/flood.out" "$GM_TMP/flood2.out" | awk -v budget="$BUDGET" '
	$1 == "CALL" { n++; s[n] = $2; e[n] = $3; v[n] = $4
		if (n == 1 || $2 < s0) s0 = $2; if ($3 > emax) emax = $3 }
	END {
		kmax = int((emax - s0) / 1000) + 1
		for (k = 1; k <= kmax; k++) {
			c = 0
			for (i = 1; i <= n; i++) if (v[i] == "ok" && e[i] < s0 + 1000 * k) c++
			printf "%d %d %d\n", k, c, budget * k
		}
	}' >"$GM_TMP/windows"
tc_num -ge "calls timed (CALL lines of both floods)" "$(cat "$GM_TMP/flood.out" "$GM_TMP/flood2.out" | grep -c '^CALL ')" 120
while read -r k c max; do
	log "  answered before S + ${k} s: $c (at most $max)"
	tc_num -le "answered in the first $k window(s)" "$c" "$max"
done <"$GM_TMP/windows"
tc_num -le "answered in all (windows spanned: $(wc -l <"$GM_TMP/windows"))" "$((ok + ok2))" \
	"$((BUDGET * $(wc -l <"$GM_TMP/windows")))"
msg=$(sed -n 's/^BUSYMSG //p' "$GM_TMP/flood.out")
case $(uname -r) in
6.1.*) tc_eq "user held: EBUSY message (6.1: none for a dump's start)" "$msg" - ;;
*) tc_eq "user held: EBUSY message" "$msg" "busy: unprivileged callers get 10 walks (held view, buffers) per second on this node; retry later or use the charged view" ;;
esac
# gpumemctl passes the refusal on: a budget used up by a flood, then
# `ps --held` in the same shell (one su: its start costs a window on the
# test kernel); tried 3 times, as a slow start may still reach a new window.
i=0
while [ $i -lt 3 ]; do
	su -s /bin/sh "$CTL_USER" -c "'$FUZZ' flood -n 30 -V held >/dev/null; '$CTL' ps --held" \
		>"$GM_TMP/user.out" 2>"$GM_TMP/user.err"
	user_rc=$?
	[ "$user_rc" != 0 ] && break
	i=$((i + 1))
done
[ "$user_rc" = 1 ] && grep -qi busy "$GM_TMP/user.err" && [ ! -s "$GM_TMP/user.out" ] ||
	tc_fail "ps --held as uid $CTL_UID right after a flood: exit $user_rc, stderr '$(_oneline "$(cat "$GM_TMP/user.err")")'"
log "  ps --held after a flood: exit $user_rc: $(_oneline "$(cat "$GM_TMP/user.err")")"
flood user charged
tc_eq "user charged: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "60 0 0"
flood root held
tc_eq "root held: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "60 0 0"
sleep 1	# the next tests get a fresh budget
tc_end

finish
