#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl's exit codes: 2 for every kind of bad argument (with a message,
# nothing on stdout, never a crash), and as a user without CAP_NET_ADMIN:
# 4 for `buffers` (admin-only in the kernel) while ps/devices/stats work;
# such a user's walks (the held view) are paid from a work budget of its
# own (unpriv_walk_work units a second): once used up, EBUSY with a
# message, while another user keeps its budget and the charged view and
# root are never limited.
# The unprivileged user comes from busybox su with a line this script adds
# to /etc/passwd (and removes again).
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
if [ ! -x "$CTL" ]; then
	for t in ctl-bad-args ctl-nonroot-eperm ctl-nonroot-read ctl-nonroot-walk-budget; do
		fail "$t" "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"
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
ww0=$(cat "$GM_PARAMS/unpriv_walk_work" 2>/dev/null)
ctl_cleanup() {
	[ -n "$ww0" ] && echo "$ww0" >"$GM_PARAMS/unpriv_walk_work"
	if [ "$added_user" = 1 ]; then
		if [ "$created_passwd" = 1 ]; then
			rm -f /etc/passwd
		else
			sed -i "/^$CTL_USER:/d; /^$CTL_USER2:/d" /etc/passwd
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

# A walk (the held view) costs work in proportion to the node: callers
# without CAP_NET_ADMIN pay for it from a budget of their own user
# (kmod/budget.c, unpriv_walk_work units a second, burst the same). With
# the budget set to 1 unit, a user's first walk is let in (its bucket is
# above zero) and puts it in debt for what the walk cost: 60 held dumps
# back to back as the user are exactly 1 answered and 59 EBUSY with the
# kernel's message (6.1 drops a dump's start message), counted in
# walks_busy; a second user still gets its walk; the charged view and root
# are not limited.
tc_begin ctl-nonroot-walk-budget
FUZZ=$GM_BIN/nl-fuzz
# flood WHO VIEW [N]: N (60) dumps as WHO (root, user, user2); fl = the FLOOD line
flood() {
	case $1 in
	root) "$FUZZ" flood -n "${3:-60}" -V "$2" >"$GM_TMP/flood.out" 2>&1 ;;
	user) su -s /bin/sh "$CTL_USER" -c "'$FUZZ' flood -n ${3:-60} -V $2" >"$GM_TMP/flood.out" 2>&1 ;;
	user2) su -s /bin/sh "$CTL_USER2" -c "'$FUZZ' flood -n ${3:-60} -V $2" >"$GM_TMP/flood.out" 2>&1 ;;
	esac
	fl_rc=$?
	fl=$(grep '^FLOOD ' "$GM_TMP/flood.out")
	log "  $1 $2: $fl"
	[ "$fl_rc" = 0 ] && [ -n "$fl" ] || tc_fail "nl-fuzz flood as $1 ($2) exited $fl_rc: $(_oneline "$(cat "$GM_TMP/flood.out")")"
}
fl_get() { echo "$fl" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
if [ -z "$ww0" ]; then
	tc_fail "no $GM_PARAMS/unpriv_walk_work"
else
	tc_eq "unpriv_walk_work default" "$ww0" 1000000
	echo 1 >"$GM_PARAMS/unpriv_walk_work"
	busy0=$(stat_value walks_busy)
	flood user held
	tc_eq "user held: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "1 59 0"
	tc_eq "walks_busy after the flood" "$(stat_value walks_busy)" "$(($(num "$busy0") + 59))"
	msg=$(sed -n 's/^BUSYMSG //p' "$GM_TMP/flood.out")
	case $(uname -r) in
	6.1.*) tc_eq "user held: EBUSY message (6.1: none for a dump's start)" "$msg" - ;;
	*) tc_eq "user held: EBUSY message" "$msg" "busy: this user's walk budget (held view) is used up; retry later or use the charged view" ;;
	esac
	# another user keeps its budget
	flood user2 held 1
	tc_eq "second user held: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "1 0 0"
	# gpumemctl passes the refusal on
	su -s /bin/sh "$CTL_USER" -c "'$CTL' ps --held" >"$GM_TMP/user.out" 2>"$GM_TMP/user.err"
	user_rc=$?
	[ "$user_rc" = 1 ] && grep -qi busy "$GM_TMP/user.err" && [ ! -s "$GM_TMP/user.out" ] ||
		tc_fail "ps --held as uid $CTL_UID with its budget used up: exit $user_rc, stderr '$(_oneline "$(cat "$GM_TMP/user.err")")'"
	log "  ps --held with the budget used up: exit $user_rc: $(_oneline "$(cat "$GM_TMP/user.err")")"
	flood user charged
	tc_eq "user charged: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "60 0 0"
	flood root held
	tc_eq "root held: answered busy other" "$(fl_get ok) $(fl_get busy) $(fl_get other)" "60 0 0"
	echo "$ww0" >"$GM_PARAMS/unpriv_walk_work"
	sleep 1	# the debts are paid in a moment at the default rate
	flood user held 1
	tc_eq "user held after the budget's restore: answered" "$(fl_get ok) $(fl_get busy)" "1 0"
fi
tc_end

finish
