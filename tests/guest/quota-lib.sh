# SPDX-License-Identifier: GPL-2.0
# quota-lib.sh - helpers shared by the 9x quota tests; source it after lib.sh:
#     . "$(dirname "$0")/quota-lib.sh"
CTL=$GM_BIN/gpumemctl
QA=$GM_BIN/quota-alloc
GM_HDR_quotas="cgroup_id cgroup device region max high mode usage denied"
SYNC=$GM_CGROOT/gpumem-q-sync

# tc_begin as in lib.sh, with the time (the test kernel is slow: where does it go?)
tc_begin() { GM_TC=$1; GM_TC_WHY=""; log "case $1 (uptime $(cut -d' ' -f1 /proc/uptime))"; }
# fail_all WHY: the common setup failed: every case of the script fails.
fail_all() { for _t in $CASES; do fail "$_t" "setup: $1"; done; finish; }

# jget KEY: KEY's value in the one-line JSON object on stdin (strings unquoted).
jget() {
	awk -v k="\"$1\":" '{ i = index($0, k); if (!i) next; s = substr($0, i + length(k))
		if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s) } else sub(/[,}].*/, "", s)
		print s; exit }'
}
# cg_usage CGPATH DEVICE: the cgroup's vram usage (cardN or all) from
# `gpumemctl cgroups --json`; 0 without a row (nothing charged, no limit).
cg_usage() {
	"$CTL" cgroups --json >"$GM_TMP/cg.json" 2>"$GM_TMP/cg.err" || { echo "error"; return; }
	_u=$(grep -F "\"cgroup\":\"$1\"," "$GM_TMP/cg.json" | grep -F "\"device\":\"$2\"," |
		grep -F '"region":"vram"' | jget usage)
	echo "${_u:-0}"
}
# q_get CGPATH DEVICE COLUMN: a column of the quotas file ("" without a row).
q_get() { snap quotas; tbl_get "$GM_TMP/quotas" "$3" cgroup="$1" device="$2" region=vram; }
cgid() { stat -c %i "$GM_CGROOT$1"; }

# ctl ARGS...: gpumemctl, output in $GM_TMP/ctl.out, exit status in $ctl_rc.
ctl() { "$CTL" "$@" >"$GM_TMP/ctl.out" 2>&1; ctl_rc=$?; }
ctl_ok() { ctl "$@"; [ "$ctl_rc" = 0 ] || tc_fail "gpumemctl $* exited $ctl_rc: $(cat "$GM_TMP/ctl.out")"; }

# hold_in CGDIR NAME ARGS...: quota-alloc hold in CGDIR, buffers held; waits for READY.
hold_in() {
	_cg=$1 _n=$2
	shift 2
	spawn_cmd "$_n" sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' \
		sh "$_cg" "$QA" hold "$@" -t "$GM_HOLD"
}
out_total() { out_val "$1" TOTAL "$2"; }

# run_in CGDIR NAME CMD...: run CMD in CGDIR to its end (bounded, 60 s);
# sets NAME_pid and NAME_rc, output in $GM_TMP/NAME.out.
run_in() {
	_cg=$1 _n=$2
	shift 2
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$_cg" "$@" \
		>"$GM_TMP/$_n.out" 2>&1 8>&- &
	_p=$!
	eval "${_n}_pid=$_p"
	GM_PIDS="$GM_PIDS $_p"
	_end=$(($(date +%s) + 60))
	while _alive "$_p" && [ "$(date +%s)" -lt "$_end" ]; do sleep "$GM_TICK"; done
	_alive "$_p" && kill -KILL "$_p" 2>/dev/null
	wait "$_p"
	eval "${_n}_rc=$?"
	GM_PIDS=$(echo "$GM_PIDS" | tr ' ' '\n' | grep -vx "$_p" | tr '\n' ' ')
}

# The event watch: `gpumemctl watch --json` in the background. w_sync makes
# a denied allocation in $SYNC (limit 1 byte) and waits for its event: every
# event sent before it has then been printed too.
w_start() {
	: >"$GM_TMP/w.out"
	"$CTL" watch --json -t 900 >"$GM_TMP/w.out" 2>"$GM_TMP/w.err" 8>&- &
	w_pid=$!
	GM_PIDS="$GM_PIDS $w_pid"
	w_sync
}
w_sync() {
	_before=$(grep -c '"cgroup":"/gpumem-q-sync"' "$GM_TMP/w.out")
	_end=$(($(date +%s) + 60))
	while :; do
		W_SYNC_RUNS=$((${W_SYNC_RUNS:-0} + 1))
		run_in "$SYNC" sync "$QA" deny -n 1 -s 4K -c gm-q-sync
		_w=$(($(date +%s) + 3))
		while [ "$(date +%s)" -lt "$_w" ]; do
			[ "$(grep -c '"cgroup":"/gpumem-q-sync"' "$GM_TMP/w.out")" -gt "$_before" ] && return 0
			sleep "$GM_TICK"
		done
		if [ "$(date +%s)" -ge "$_end" ] || ! _alive "$w_pid"; then
			log "watch output:"; sed 's/^/#   /' "$GM_TMP/w.out" "$GM_TMP/w.err"
			return 1
		fi
	done
}
# w_mark: the number of event lines so far; w_since MARK: $ev = the events
# after MARK (sync events left out, and orphaned ones: any helper or card
# probe that exits may raise one, 46-orphans tests them), after a w_sync.
w_mark() { wc -l <"$GM_TMP/w.out" | tr -d ' '; }
w_since() {
	w_sync || tc_fail "the sync event did not arrive"
	ev=$(sed -n "$(($1 + 1)),\$p" "$GM_TMP/w.out" |
		grep -v -e '"cgroup":"/gpumem-q-sync"' -e '"type":"orphaned"')
	log "events: $(echo "$ev" | grep -c .)"
	echo "$ev" | sed 's/^/#   /'
}
# ev_check LINE KEY=VALUE...: the event's fields (one awk for all of them:
# a process start costs much on the test kernel).
ev_check() {
	_l=$1
	shift
	printf '%s\n' "$_l" | awk -v want="$*" '
	function val(k,   i, s) {
		i = index($0, "\"" k "\":"); if (!i) return ""
		s = substr($0, i + length(k) + 3)
		if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s) } else sub(/[,}].*/, "", s)
		return s
	}
	NR == 1 { n = split(want, w, " ")
		for (j = 1; j <= n; j++) {
			k = w[j]; sub(/=.*/, "", k); v = substr(w[j], length(k) + 2); g = val(k)
			print (g == v ? "ok" : "bad") "|" k "|" g "|" v
		} }' >"$GM_TMP/evc"
	[ -s "$GM_TMP/evc" ] || { tc_fail "no event to check"; return; }
	while IFS='|' read -r _r _k _g _v; do
		if [ "$_r" = ok ]; then log "  ok: event $_k = $_v"; else tc_fail "event $_k is '$_g', want '$_v'"; fi
	done <"$GM_TMP/evc"
}
# seq_check: every event the watch printed has seq = previous + 1, missed 0.
seq_check() {
	awk '{ s = $0; sub(/.*"seq":/, "", s); sub(/,.*/, "", s)
		m = $0; sub(/.*"missed":/, "", m); sub(/[,}].*/, "", m)
		if (NR > 1 && s != prev + 1) { printf "seq %s after %s\n", s, prev; bad = 1 }
		if (m != 0) { printf "missed %s at seq %s\n", m, s; bad = 1 }
		prev = s } END { exit bad }' "$GM_TMP/w.out"
}
# buf_regions PID: "region/mem_type" of every buffer PID owns, sorted, one line.
buf_regions() { snap buffers; tbl_get "$GM_TMP/buffers" - owner="$1" | awk '{ print $5 "/" $6 }' | sort | tr '\n' ' '; }
repeat() { _i=0; while [ $_i -lt "$1" ]; do printf '%s ' "$2"; _i=$((_i + 1)); done; }

# Common setup: qxl, cgroup2, gpumemctl with limits, the anchor, $SYNC.
quota_setup() {
	[ -r "$GM_CGROOT/cgroup.controllers" ] || fail_all "cgroup2 not mounted on $GM_CGROOT"
	[ -x "$CTL" ] && [ -x "$QA" ] || fail_all "gpumemctl or quota-alloc missing in $GM_BIN"
	"$CTL" help limit >/dev/null 2>&1 || fail_all "this gpumemctl has no 'limit' command"
	[ -r "$GM_DEBUGFS/quotas" ] || fail_all "no $GM_DEBUGFS/quotas (gpumem without quotas)"
	qxl=$(card_of qxl)
	[ -n "$qxl" ] || fail_all "no qxl device in this guest"
	spawn_cmd anchor "$QA" anchor -d qxl -t "$GM_HOLD" || fail_all "anchor failed: $(helper_why anchor)"
	for _cg in "$@" "$SYNC"; do
		rmdir "$_cg" 2>/dev/null
		mkcgroup "$_cg" || fail_all "cannot create cgroup $_cg"
	done
	"$CTL" limit set "$SYNC" --max 1 >/dev/null 2>&1 || fail_all "cannot set a limit on $SYNC"
	w_start || fail_all "gpumemctl watch --json got no event from the sync cgroup"
}

# fault_on DIR PROBABILITY TIMES TASK-FILTER / fault_off DIR: a fault
# attribute of gpumem's debugfs (kmod/fault_inject.c, test kernel only)
fault_on() {
	echo 0 >"$1/verbose" && echo "$4" >"$1/task-filter" && echo 1 >"$1/interval" &&
		echo "$3" >"$1/times" && echo "$2" >"$1/probability"
}
fault_off() { echo 0 >"$1/probability"; }
