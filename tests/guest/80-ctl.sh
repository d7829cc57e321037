#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumemctl (userspace/, the netlink client) against the debugfs files: what
# `ps --json` and `devices --json` say equals processes and devices, the
# filters (--pid, --device by name and PCI address, --cgroup in three
# spellings), buffers, stats, tables with --bytes, top without a tty, and
# that no command opens a DRM device node (the driver's description comes
# from the kernel).
# The binary is /tests/bin/gpumemctl (userspace/gpumemctl/gpumemctl-static).
. "$(dirname "$0")/lib.sh"
require_gpumem
orphan_events_off	# this script counts walks exactly

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="ctl-ps-json ctl-ps-charged ctl-ps-filter-pid ctl-ps-filter-device ctl-ps-filter-cgroup ctl-devices-json
ctl-buffers-json ctl-stats ctl-tables ctl-top-notty ctl-no-device-open"
if [ ! -x "$CTL" ]; then
	for t in $CASES; do fail "$t" "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"; done
	finish
fi

# ctl_json2tbl KIND: on stdin the JSON of `gpumemctl KIND --json` (ps or
# devices; one object a line), on stdout the debugfs rows it stands for
# (no header; null as "-", strings escaped like gpumem's debugfs).
ctl_json2tbl() {
	awk -v kind="$1" '
	function hexval(h,   i, v) {
		v = 0; h = tolower(h)
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	# jstr(s, i): the JSON string starting at s[i] (a quote), decoded; JPOS after it
	function jstr(s, i,   out, c) {
		out = ""; i++
		while (i <= length(s)) {
			c = substr(s, i, 1)
			if (c == "\"") { JPOS = i + 1; return out }
			if (c == "\\") {
				i++; c = substr(s, i, 1)
				if (c == "n") out = out "\n"
				else if (c == "t") out = out "\t"
				else if (c == "r") out = out "\r"
				else if (c == "u") { out = out sprintf("%c", hexval(substr(s, i + 1, 4))); i += 4 }
				else out = out c
				i++; continue
			}
			out = out c; i++
		}
		JPOS = i; return out
	}
	# jobj(s): the members of the first object in s into J[]; nested values raw
	function jobj(s,   n, i, c, k, v, d, st) {
		split("", J); n = length(s); i = index(s, "{") + 1
		while (i <= n) {
			c = substr(s, i, 1)
			if (c == "}") break
			if (c == "," || c == " ") { i++; continue }
			k = jstr(s, i); i = JPOS + 1
			c = substr(s, i, 1)
			if (c == "\"") { v = jstr(s, i); i = JPOS }
			else if (c == "[" || c == "{") {
				st = i; d = 0
				while (i <= n) {
					c = substr(s, i, 1)
					if (c == "\"") { jstr(s, i); i = JPOS; continue }
					if (c == "[" || c == "{") d++
					else if (c == "]" || c == "}") { d--; if (d == 0) { i++; break } }
					i++
				}
				v = substr(s, st, i - st)
			} else {
				st = i
				while (i <= n && substr(s, i, 1) != "," && substr(s, i, 1) != "}") i++
				v = substr(s, st, i - st)
				if (v == "null") v = "-"
			}
			J[k] = v
		}
	}
	function esc(s) {
		gsub(/\\/, "\\134", s); gsub(/ /, "\\040", s); gsub(/\t/, "\\011", s); gsub(/\n/, "\\012", s)
		return s
	}
	/^\{/ {
		jobj($0)
		if (kind == "pscharged") {
			print J["pid"], esc(J["comm"]), J["cgroup_id"], esc(J["cgroup"]), J["device"], \
				J["vram"], J["gtt"], J["bos"]
			next
		}
		if (kind == "ps") {
			print J["pid"], esc(J["comm"]), J["cgroup_id"], esc(J["cgroup"]), J["device"], \
				J["vram"], J["gtt"], J["system"], J["other"], J["shared"], J["owned"], J["bos"]
			next
		}
		base = J["name"] " " esc(J["driver"]) " " esc(J["unique"]) " " (J["ttm"] == "true" ? "yes" : "no")
		regs = J["regions"]
		if (index(regs, "{") == 0)
			print base, "system - - -"	# no region: how debugfs shows it
		while ((p = index(regs, "{")) > 0) {
			q = index(regs, "}")
			jobj(substr(regs, p, q - p + 1))
			regs = substr(regs, q + 1)
			print base, J["region"], J["capacity"], J["used"], J["free"]
		}
	}'
}

# ctl NAME ARGS...: run gpumemctl, stdout in $GM_TMP/NAME.out, stderr in
# NAME.err, exit status in ctl_rc.
ctl() {
	_n=$1
	shift
	"$CTL" "$@" >"$GM_TMP/$_n.out" 2>"$GM_TMP/$_n.err"
	ctl_rc=$?
	[ "$ctl_rc" = 0 ] || log "  gpumemctl $* -> exit $ctl_rc: $(_oneline "$(cat "$GM_TMP/$_n.err")")"
}

# json_ok FILE: a JSON array with one object a line ("[", "{...}," ..., "]").
json_ok() {
	awk 'NR == 1 && $0 == "[]" { empty = 1; next }
		NR == 1 { if ($0 != "[") bad = 1; next }
		$0 == "]" { closed = 1; next }
		closed || !/^\{.*\},?$/ { bad = 1 }
		END { exit (bad || (!closed && !empty) || NR == 0) }' "$1"
}

# Rows of pids other than 0, and of pid 0 the key columns only (in-kernel
# clients come and go with the console); sorted.
stable_rows() { awk '$1 != 0 { print; next } { print $1, $2, $3, $4, $5 }' | sort; }

# --- workload: qxl VRAM and a second device ---------------------------------
qxl=$(card_of qxl)
other=""
for d in vgem virtio_gpu bochs; do
	[ -n "$(card_of "$d")" ] && { other=$d; break; }
done
pids=""
if [ -n "$qxl" ] && spawn a alloc -d qxl -k vram -n 2 -s 1M -c gm-ctl-a; then
	pids="$pids $a_pid"
fi
if [ -n "$other" ] && spawn b alloc -d "$other" -k dumb -n 1 -s 1M -c 'gm ctl b'; then
	pids="$pids $b_pid"
fi
if [ -z "$pids" ]; then
	for t in $CASES; do fail "$t" "no helper could allocate (qxl: ${qxl:-none}, other: ${other:-none})"; done
	finish
fi
first=${pids# }
first=${first%% *}
snap processes
first_card=$(tbl_get "$GM_TMP/processes" device pid="$first" | head -n 1)

# --- ps --held --json == processes ----------------------------------------------
tc_begin ctl-ps-json
snap processes
ctl ps ps --held --json
tc_eq "ps --held --json exit" "$ctl_rc" 0
json_ok "$GM_TMP/ps.out" || tc_fail "ps --json is not one JSON object a line: $(head -c 300 "$GM_TMP/ps.out")"
ctl_json2tbl ps <"$GM_TMP/ps.out" | stable_rows >"$GM_TMP/ps.rows"
tail -n +2 "$GM_TMP/processes" | stable_rows >"$GM_TMP/dbg.rows"
if ! cmp -s "$GM_TMP/ps.rows" "$GM_TMP/dbg.rows"; then
	log "netlink:"; sed 's/^/#   /' "$GM_TMP/ps.rows"
	log "debugfs:"; sed 's/^/#   /' "$GM_TMP/dbg.rows"
	tc_fail "ps --json differs from $GM_DEBUGFS/processes"
fi
for p in $pids; do
	# each helper holds buffers on the one device it opened: one row
	tc_eq "ps --json rows of helper $p" "$(awk -v p="$p" '$1 == p' "$GM_TMP/ps.rows" | wc -l | tr -d ' ')" 1
done
case " $pids " in
*" ${b_pid:-none} "*)
	tc_eq "comm with a blank, escaped back" \
		"$(awk -v p="$b_pid" '$1 == p { print $2; exit }' "$GM_TMP/ps.rows")" 'gm\040ctl\040b' ;;
esac
tc_end

# --- ps --json (the charged view) == charged, and == the walk for the qxl helper ---
tc_begin ctl-ps-charged
if [ -z "${a_pid:-}" ]; then
	tc_fail "no qxl helper"; tc_end
else
	snap charged
	ctl psc ps --json
	tc_eq "ps --json exit" "$ctl_rc" 0
	json_ok "$GM_TMP/psc.out" || tc_fail "ps --json is not one JSON object a line: $(head -c 300 "$GM_TMP/psc.out")"
	tc_eq "every row says view charged" "$(grep -c '^{' "$GM_TMP/psc.out")" \
		"$(grep -c '"view":"charged"' "$GM_TMP/psc.out")"
	# helper a's row on qxl (other rows may move by themselves: a driver's
	# console and release buffers are charged to the task that triggers them,
	# e.g. by closing a card, until the orphan sweep takes them 2 s later)
	ctl_json2tbl pscharged <"$GM_TMP/psc.out" >"$GM_TMP/psc.all"
	awk -v p="$a_pid" -v d="$qxl" '$1 == p && $5 == d' "$GM_TMP/psc.all" >"$GM_TMP/psc.rows"
	tail -n +2 "$GM_TMP/charged" | awk -v p="$a_pid" -v d="$qxl" '$1 == p && $5 == d' >"$GM_TMP/dbgc.rows"
	if ! cmp -s "$GM_TMP/psc.rows" "$GM_TMP/dbgc.rows"; then
		log "netlink:"; sed 's/^/#   /' "$GM_TMP/psc.rows"
		log "debugfs:"; sed 's/^/#   /' "$GM_TMP/dbgc.rows"
		tc_fail "ps --json differs from $GM_DEBUGFS/charged"
	fi
	# what helper a arranged: 2 x 1 MiB qxl VRAM placements, nothing else
	tc_eq "charged rows of helper a on $qxl" "$(wc -l <"$GM_TMP/psc.rows" | tr -d ' ')" 1
	tc_eq "charged vram gtt bos of helper a on $qxl" \
		"$(awk -v p="$a_pid" -v d="$qxl" '$1 == p && $5 == d { print $6, $7, $8 }' "$GM_TMP/psc.rows")" \
		"2097152 0 2"
	# the counters agree with the walk for buffers a process allocated and holds alone
	snap processes
	tc_eq "held (walk) vram bos of helper a" \
		"$(tbl_get "$GM_TMP/processes" vram pid="$a_pid" device="$qxl") $(tbl_get "$GM_TMP/processes" bos pid="$a_pid" device="$qxl")" \
		"2097152 2"
	case $other in
	vgem) tc_eq "charged rows of the vgem helper on vgem (not TTM: not counted)" \
		"$(awk -v p="${b_pid:-none}" -v d="$(card_of vgem)" '$1 == p && $5 == d' "$GM_TMP/psc.all" | wc -l | tr -d ' ')" 0 ;;
	esac
	# filters work on the charged view too
	ctl pscp ps --json --pid "$a_pid" --device "$qxl"
	tc_eq "ps --json --pid --device: the one row" \
		"$(ctl_json2tbl pscharged <"$GM_TMP/pscp.out" | awk '{ print $1, $5, $6 }')" "$a_pid $qxl 2097152"
fi
tc_end

# --- filters -------------------------------------------------------------------
tc_begin ctl-ps-filter-pid
ctl pspid ps --held --json --pid "$first"
tc_eq "exit" "$ctl_rc" 0
ctl_json2tbl ps <"$GM_TMP/pspid.out" >"$GM_TMP/pspid.rows"
tc_eq "rows of other pids" "$(awk -v p="$first" '$1 != p' "$GM_TMP/pspid.rows")" ""
tc_eq "rows of pid $first" "$(wc -l <"$GM_TMP/pspid.rows" | tr -d ' ')" "$(pid_rows "$first")"
ctl psnone ps --json --pid 4194304
tc_eq "a pid without GPU memory: exit" "$ctl_rc" 0
tc_eq "a pid without GPU memory: empty array" "$(cat "$GM_TMP/psnone.out")" "[]"
tc_end

tc_begin ctl-ps-filter-device
snap processes
snap devices
want=$(tbl_count "$GM_TMP/processes" device="$first_card")
unique=$(tbl_get "$GM_TMP/devices" unique device="$first_card" | head -n 1)
for spec in "$first_card" "${first_card#card}" "$unique"; do
	ctl psdev ps --held --json --device "$spec"
	tc_eq "--device $spec: exit" "$ctl_rc" 0
	ctl_json2tbl ps <"$GM_TMP/psdev.out" >"$GM_TMP/psdev.rows"
	tc_eq "--device $spec: rows on other devices" \
		"$(awk -v d="$first_card" '$5 != d' "$GM_TMP/psdev.rows")" ""
	tc_eq "--device $spec: rows (debugfs: $want)" "$(wc -l <"$GM_TMP/psdev.rows" | tr -d ' ')" "$want"
done
log "  ($want debugfs rows on $first_card)"
tc_end

tc_begin ctl-ps-filter-cgroup
CG=$GM_CGROOT/gpumem-ctl-test
rmdir "$CG/sub" "$CG" 2>/dev/null
if [ ! -r "$GM_CGROOT/cgroup.controllers" ]; then
	tc_fail "cgroup2 not mounted on $GM_CGROOT"; tc_end
elif ! mkcgroup "$CG" || ! mkcgroup "$CG/sub"; then
	tc_fail "cannot create $CG"; tc_end
elif ! spawn_in_cgroup "$CG/sub" c alloc -d "${other:-qxl}" -k "$([ -n "$other" ] && echo dumb || echo vram)" \
	-n 1 -s 1M -c gm-ctl-cg; then
	tc_fail "helper in $CG/sub failed: $(helper_why c)"
	tc_end
else
	for spec in "$CG" gpumem-ctl-test /gpumem-ctl-test; do
		ctl pscg ps --held --json --cgroup "$spec"
		tc_eq "--cgroup $spec: exit" "$ctl_rc" 0
		ctl_json2tbl ps <"$GM_TMP/pscg.out" >"$GM_TMP/pscg.rows"
		tc_eq "--cgroup $spec: pids (the helper in a child cgroup)" \
			"$(awk '{ print $1 }' "$GM_TMP/pscg.rows" | sort -u | tr '\n' ' ')" "$c_pid "
		tc_eq "--cgroup $spec: cgroup column" \
			"$(awk '{ print $4 }' "$GM_TMP/pscg.rows" | sort -u)" "/gpumem-ctl-test/sub"
	done
	ctl pscg ps --held --json --cgroup "$CG/sub"
	tc_eq "--cgroup of the child itself: cgroup_id = its inode" \
		"$(ctl_json2tbl ps <"$GM_TMP/pscg.out" | awk '{ print $3 }' | sort -u)" "$(stat -c %i "$CG/sub")"
	stop c
	tc_end
fi

# --- devices --json == devices ------------------------------------------------
tc_begin ctl-devices-json
snap devices
ctl dev devices --json
tc_eq "devices --json exit" "$ctl_rc" 0
json_ok "$GM_TMP/dev.out" || tc_fail "devices --json is not one JSON object a line"
# used/free move while qxl's console blinks: compare the rest
ctl_json2tbl devices <"$GM_TMP/dev.out" >"$GM_TMP/dev.rows"
cut -d' ' -f1-6 "$GM_TMP/dev.rows" | sort >"$GM_TMP/dev.cmp"
tail -n +2 "$GM_TMP/devices" | cut -d' ' -f1-6 | sort >"$GM_TMP/dbgdev.cmp"
if ! cmp -s "$GM_TMP/dev.cmp" "$GM_TMP/dbgdev.cmp"; then
	log "netlink:"; sed 's/^/#   /' "$GM_TMP/dev.cmp"
	log "debugfs:"; sed 's/^/#   /' "$GM_TMP/dbgdev.cmp"
	tc_fail "devices --json differs from $GM_DEBUGFS/devices"
fi
# the description is the driver's own (qxl_drv.c: DRIVER_DESC "RH QXL")
qxl_card=$(card_of qxl)
tc_eq "qxl's description" \
	"$(grep -F "\"name\":\"$qxl_card\"," "$GM_TMP/dev.out" | sed -n 's/.*"description":"\([^"]*\)".*/\1/p')" "RH QXL"
# each device's render node is the kernel's: N of the renderDN its sysfs
# device lists, absent when it has none (qxl, bochs); vgem has one
with_render=0
for c in $(sed -n 's/.*"name":"\(card[0-9]*\)".*/\1/p' "$GM_TMP/dev.out"); do
	want=$(ls "/sys/class/drm/$c/device/drm" 2>/dev/null | sed -n 's/^renderD//p')
	tc_eq "$c's render node" \
		"$(grep -F "\"name\":\"$c\"," "$GM_TMP/dev.out" | sed -n 's/.*"render_id":\([0-9]*\).*/\1/p')" "$want"
	[ -n "$want" ] && with_render=$((with_render + 1))
done
tc_num -ge "devices with a render node (vgem's)" "$with_render" 1
tc_eq "rows where used + free != capacity" \
	"$(awk '$6 != "-" && $7 + $8 != $6' "$GM_TMP/dev.rows")" ""
tc_eq "ids that are not the N of cardN" \
	"$(sed 's/.*"id":\([0-9]*\),"name":"\([^"]*\)".*/\1 \2/' "$GM_TMP/dev.out" | awk 'NF == 2 && "card" $1 != $2')" ""
tc_end

# --- buffers --json == the buffers rows the pid holds ---------------------------------
# held_rows FILE PID: "device owner handle size" of the debugfs buffers rows
# whose holders include PID, sorted.
held_rows() {
	awk -v p="$2" 'NR > 1 { n = split($8, h, ","); for (i = 1; i <= n; i++) if (h[i] == p) { print $1, $2, $3, $4; break } }' "$1" | sort
}
tc_begin ctl-buffers-json
snap buffers
ctl buf buffers --json --pid "$first"
tc_eq "buffers --json exit (as root)" "$ctl_rc" 0
json_ok "$GM_TMP/buf.out" || tc_fail "buffers --json is not one JSON object a line"
sed -n 's/^{"device":"\([^"]*\)","owner":\([0-9]*\),"handle":\([0-9]*\),"size":\([0-9]*\),.*/\1 \2 \3 \4/p' \
	"$GM_TMP/buf.out" | sort >"$GM_TMP/buf.rows"
tc_eq "buffers held by $first (device owner handle size)" "$(cat "$GM_TMP/buf.rows")" \
	"$(held_rows "$GM_TMP/buffers" "$first")"
tc_num -ge "buffers held by $first" "$(wc -l <"$GM_TMP/buf.rows" | tr -d ' ')" 1
ctl bufnone buffers --json --pid $$
tc_eq "a live pid without buffers (this shell): exit" "$ctl_rc" 0
tc_eq "a live pid without buffers: empty array" "$(cat "$GM_TMP/bufnone.out")" "[]"
ctl bufgone buffers --json --pid 4194304
tc_eq "a pid that does not exist: exit" "$ctl_rc" 1
tc_eq "a pid that does not exist: message" "$(cat "$GM_TMP/bufgone.err")" \
	"gpumemctl: buffers: no process 4194304"
tc_end

# --- stats -------------------------------------------------------------------
tc_begin ctl-stats
snap stats
ctl st stats --json
tc_eq "stats --json exit" "$ctl_rc" 0
tc_eq "devices" "$(sed -n 's/.*"devices":\([0-9]*\).*/\1/p' "$GM_TMP/st.out")" "$(tbl_get "$GM_TMP/stats" value name=devices)"
# neither read walks: the counter is the same in both
tc_eq "walks (as debugfs read just before)" "$(sed -n 's/.*"walks":\([0-9]*\).*/\1/p' "$GM_TMP/st.out")" \
	"$(tbl_get "$GM_TMP/stats" value name=walks)"
for k in walks walks_failed last_walk_ns last_walk_clients last_walk_bos devices; do
	grep -q "\"$k\":[0-9]" "$GM_TMP/st.out" || tc_fail "stats --json has no numeric $k"
done
ctl stt stats
tc_eq "stats table exit" "$ctl_rc" 0
tc_eq "stats table header" "$(head -n 1 "$GM_TMP/stt.out" | tr -s ' ')" "NAME VALUE"
tc_end

# --- tables ---------------------------------------------------------------------
tc_begin ctl-tables
snap processes
ctl tbc ps --bytes --pid "$first"
tc_eq "ps --bytes exit" "$ctl_rc" 0
tc_eq "ps header (charged view)" "$(head -n 1 "$GM_TMP/tbc.out" | tr -s ' ' | sed 's/^ //')" \
	"PID COMM DEVICE VRAM GTT BOS CGROUP"
ctl tb ps --held --bytes --pid "$first"
tc_eq "ps --held --bytes exit" "$ctl_rc" 0
tc_eq "ps header (held view)" "$(head -n 1 "$GM_TMP/tb.out" | tr -s ' ' | sed 's/^ //')" \
	"PID COMM DEVICE VRAM GTT SYSTEM OTHER SHARED OWNED BOS CGROUP"
vram=$(tbl_get "$GM_TMP/processes" vram pid="$first" device="$first_card")
# the column after DEVICE (COMM may contain blanks)
tc_eq "exact VRAM of $first on $first_card" \
	"$(awk -v p="$first" -v d="$first_card" '$1 == p { for (i = 2; i < NF; i++) if ($i == d) { print $(i + 1); exit } }' "$GM_TMP/tb.out")" "$vram"
ctl th ps --held --pid "$first"
tc_eq "ps exit" "$ctl_rc" 0
grep -q ' MiB ' "$GM_TMP/th.out" || tc_fail "no MiB in the human-readable table: $(cat "$GM_TMP/th.out")"
ctl dt devices
tc_eq "devices table exit" "$ctl_rc" 0
tc_eq "devices table rows" "$(($(wc -l <"$GM_TMP/dt.out") - 1))" "$(($(wc -l <"$GM_DEBUGFS/devices") - 1))"
tc_end

# --- top without a terminal ----------------------------------------------------------
tc_begin ctl-top-notty
ctl top top --iterations 2 --interval 0.2
tc_eq "top exit" "$ctl_rc" 0
tc_eq "frames" "$(grep -c '^gpumemctl top - ' "$GM_TMP/top.out")" 2
tc_eq "escape sequences" "$(grep -c "$(printf '\033')" "$GM_TMP/top.out")" 0
# one line per frame: the helper holds buffers on one device
tc_eq "lines with helper $first" "$(awk -v p="$first" '$1 == p' "$GM_TMP/top.out" | wc -l | tr -d ' ')" 2
tc_end

# --- a monitoring tool never opens a DRM node --------------------------------------
# (opening and closing a qxl card can make qxl allocate console buffers,
# charged to whoever closed it). inotify on /dev/dri sees every open.
tc_begin ctl-no-device-open
if spawn_cmd wo "$GM_ALLOC" watch-opens -t 300; then
	# an open the watcher must see: the check itself works
	exec 7<"/dev/dri/$qxl_card"
	exec 7<&-
	for args in "devices" "devices --json" "ps" "ps --held --json" "buffers -p $first" "stats" \
		"cgroups" "export --prometheus" "top --iterations 1 --interval 0.1"; do
		# shellcheck disable=SC2086
		"$CTL" $args >/dev/null 2>&1 || tc_fail "gpumemctl $args failed"
	done
	sleep 1
	stop wo
	tc_eq "opens seen: the test's own, then none by gpumemctl" \
		"$(grep '^OPEN ' "$GM_TMP/wo.out" | tr '\n' ' ')" "OPEN $qxl_card "
else
	tc_fail "watcher: $(helper_why wo)"
fi
tc_end

finish
