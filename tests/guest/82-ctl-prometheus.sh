#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `gpumemctl export --prometheus`: the output parses as the text exposition
# format 0.0.4 (checked by prom_check below: HELP/TYPE before the samples of
# a metric, families contiguous, names, label syntax and escapes, values, no
# duplicate series), and its numbers are the debugfs ones; -o FILE too.
. "$(dirname "$0")/lib.sh"
require_gpumem

CTL=${GM_CTL:-$GM_BIN/gpumemctl}
CASES="ctl-prom-format ctl-prom-values ctl-prom-escaping ctl-prom-file"
if [ ! -x "$CTL" ]; then
	for t in $CASES; do fail "$t" "$CTL missing (copy userspace/gpumemctl/gpumemctl-static there)"; done
	finish
fi

# prom_check FILE: exit 0 if FILE is valid text format 0.0.4, else print
# what is wrong (one line each) and exit 1.
prom_check() {
	awk '
	function err(m) { print "line " NR ": " m ": " $0; bad++ }
	function name_ok(n) { return n ~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ }
	/^# HELP / {
		if (!name_ok($3)) err("bad metric name in HELP")
		if ($3 in help) err("second HELP for " $3)
		if ($3 in sampled) err("HELP after the samples of " $3)
		help[$3] = 1
		next
	}
	/^# TYPE / {
		if (NF != 4 || $4 !~ /^(counter|gauge|histogram|summary|untyped)$/) err("bad TYPE line")
		if (!name_ok($3)) err("bad metric name in TYPE")
		if ($3 in type) err("second TYPE for " $3)
		if ($3 in sampled) err("TYPE after the samples of " $3)
		type[$3] = $4
		next
	}
	/^#/ || /^[ \t]*$/ { next }
	{
		line = $0
		if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { err("no metric name"); next }
		name = substr(line, 1, RLENGTH)
		rest = substr(line, RLENGTH + 1)
		lbl = ""; names = " "
		if (substr(rest, 1, 1) == "{") {
			i = 2; n = length(rest)
			for (;;) {
				if (substr(rest, i, 1) == "}") { i++; break }
				if (!match(substr(rest, i), /^[a-zA-Z_][a-zA-Z0-9_]*="/)) { err("bad label name"); next }
				ln = substr(rest, i, RLENGTH - 2)
				if (index(names, " " ln " ")) { err("label " ln " twice"); next }
				names = names ln " "
				i += RLENGTH
				v = ""
				while (i <= n) {
					c = substr(rest, i, 1)
					if (c == "\\") {
						d = substr(rest, i + 1, 1)
						if (d != "\\" && d != "\"" && d != "n") { err("bad escape \\" d); next }
						v = v c d; i += 2; continue
					}
					if (c == "\"") break
					v = v c; i++
				}
				if (i > n) { err("unterminated label value"); next }
				i++
				lbl = lbl ln "=" v "\001"
				c = substr(rest, i, 1)
				if (c == ",") { i++; continue }
				if (c != "}") { err("expected , or } after a label"); next }
			}
			rest = substr(rest, i)
		}
		if (rest !~ /^ [-+]?([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|NaN|Inf)( -?[0-9]+)?$/) { err("bad value"); next }
		if (!(name in type)) err("sample of " name " without a TYPE line")
		if (name != last && (name in sampled)) err("samples of " name " not together")
		last = name; sampled[name] = 1
		if ((name "{" lbl) in series) err("duplicate series")
		series[name "{" lbl] = 1
		samples++
	}
	END {
		if (!samples) { print "no samples"; bad++ }
		exit bad ? 1 : 0
	}' "$1"
}

# sample FILE METRIC LABELS...: the value of the one sample of METRIC with
# all the given label="value" pairs (as written in the file).
sample() {
	_f=$1 _m=$2
	shift 2
	grep "^$_m{" "$_f" | {
		while IFS= read -r _l; do
			_ok=1
			for _kv in "$@"; do
				case $_l in *"$_kv"*) ;; *) _ok=0 ;; esac
			done
			[ "$_ok" = 1 ] && echo "${_l##* }"
		done
	}
}

drv=""
for d in qxl vgem virtio_gpu bochs; do
	[ -n "$(card_of "$d")" ] && { drv=$d; break; }
done
kind=dumb
[ "$drv" = qxl ] && kind=vram
if [ -z "$drv" ] || ! spawn a alloc -d "$drv" -k "$kind" -n 2 -s 1M -c gm-prom; then
	for t in $CASES; do fail "$t" "no helper could allocate (driver: ${drv:-none})"; done
	finish
fi
card=$(out_card a)

tc_begin ctl-prom-format
snap processes
snap charged
snap devices
"$CTL" export --prometheus --held >"$GM_TMP/m.prom" 2>"$GM_TMP/m.err"
"$CTL" export --prometheus >"$GM_TMP/c.prom" 2>"$GM_TMP/c.err"
tc_eq "export (charged view) exit" "$?" 0
if ! prom_check "$GM_TMP/c.prom" >"$GM_TMP/checkc.out"; then
	tc_fail "charged view: not valid text format 0.0.4: $(head -n 5 "$GM_TMP/checkc.out")"
fi
tc_eq "export exit" "$?" 0
tc_eq "stderr" "$(cat "$GM_TMP/m.err")" ""
if ! prom_check "$GM_TMP/m.prom" >"$GM_TMP/check.out"; then
	tc_fail "not valid text format 0.0.4: $(head -n 5 "$GM_TMP/check.out")"
fi
for m in gpumem_process_bytes gpumem_process_shared_bytes gpumem_process_buffers \
	gpumem_device_capacity_bytes gpumem_device_used_bytes gpumem_device_free_bytes; do
	grep -q "^# TYPE $m gauge\$" "$GM_TMP/m.prom" || tc_fail "no TYPE line for $m"
done
# the checker itself rejects what it must
printf '# TYPE x gauge\nx{a="b\\q"} 1\n' >"$GM_TMP/bad1.prom"
printf 'y 1\n' >"$GM_TMP/bad2.prom"
printf '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n' >"$GM_TMP/bad3.prom"
printf '# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a="2"} 1\n' >"$GM_TMP/bad4.prom"
for b in 1 2 3 4; do
	prom_check "$GM_TMP/bad$b.prom" >/dev/null && tc_fail "prom_check accepts bad$b.prom"
done
tc_end

tc_begin ctl-prom-values
vram=$(tbl_get "$GM_TMP/processes" vram pid="$a_pid" device="$card")
system=$(tbl_get "$GM_TMP/processes" system pid="$a_pid" device="$card")
tc_eq "process vram bytes" \
	"$(sample "$GM_TMP/m.prom" gpumem_process_bytes "pid=\"$a_pid\"" "device=\"$card\"" 'region="vram"')" "$vram"
tc_eq "process system bytes" \
	"$(sample "$GM_TMP/m.prom" gpumem_process_bytes "pid=\"$a_pid\"" "device=\"$card\"" 'region="system"')" "$system"
tc_eq "process buffers" \
	"$(sample "$GM_TMP/m.prom" gpumem_process_buffers "pid=\"$a_pid\"" "device=\"$card\"")" \
	"$(tbl_get "$GM_TMP/processes" bos pid="$a_pid" device="$card")"
tc_eq "process comm label" \
	"$(grep "^gpumem_process_buffers{pid=\"$a_pid\"," "$GM_TMP/m.prom" | sed 's/.*comm="\([^"]*\)".*/\1/')" gm-prom
tc_eq "process samples, 4 regions + 3 per process and device" \
	"$(grep -c "^gpumem_process_[a-z_]*{pid=\"$a_pid\"," "$GM_TMP/m.prom")" 7
# the default (charged) view: vram and gtt from the allocation-time counters
if [ "$drv" = qxl ]; then
	tc_eq "charged view: process vram bytes = debugfs charged (2 x 1 MiB)" \
		"$(sample "$GM_TMP/c.prom" gpumem_process_bytes "pid=\"$a_pid\"" "device=\"$card\"" 'region="vram"') $(tbl_get "$GM_TMP/charged" vram pid="$a_pid" device="$card")" \
		"2097152 2097152"
	tc_eq "charged view: process samples, 2 regions + buffers" \
		"$(grep "^gpumem_process_[a-z_]*{pid=\"$a_pid\"," "$GM_TMP/c.prom" | grep -c "device=\"$card\"")" 3
fi
tail -n +2 "$GM_TMP/devices" >"$GM_TMP/devrows"
while read -r d drvname unique _ttm region cap _used _free; do
	got=$(sample "$GM_TMP/m.prom" gpumem_device_capacity_bytes "device=\"$d\"" "region=\"$region\"")
	if [ "$cap" = - ]; then
		tc_eq "$d $region capacity (unknown: no sample)" "$got" ""
	else
		tc_eq "$d $region capacity" "$got" "$cap"
		tc_eq "$d $region driver/pci labels" \
			"$(grep -c "^gpumem_device_capacity_bytes{device=\"$d\",driver=\"$drvname\",pci=\"$unique\",region=\"$region\"}" "$GM_TMP/m.prom")" 1
	fi
done <"$GM_TMP/devrows"
tc_end

tc_begin ctl-prom-escaping
# a comm with a double quote and a backslash (<= 15 bytes)
if spawn e alloc -d "$drv" -k "$kind" -n 1 -s 64K -c 'gm"q\ x'; then
	"$CTL" export --prometheus >"$GM_TMP/e.prom"
	tc_eq "export exit" "$?" 0
	prom_check "$GM_TMP/e.prom" >"$GM_TMP/check.out" ||
		tc_fail "not valid with an odd comm: $(head -n 3 "$GM_TMP/check.out")"
	tc_eq "escaped comm label" \
		"$(grep -c "^gpumem_process_buffers{pid=\"$e_pid\",comm=\"gm\\\\\"q\\\\\\\\ x\"," "$GM_TMP/e.prom")" 1
	stop e
else
	tc_fail "helper failed: $(helper_why e)"
fi
tc_end

tc_begin ctl-prom-file
mkdir -p "$GM_TMP/textfile"
"$CTL" export --prometheus -o "$GM_TMP/textfile/gpumem.prom" >"$GM_TMP/o.out" 2>&1
tc_eq "export -o exit" "$?" 0
tc_eq "export -o stdout" "$(cat "$GM_TMP/o.out")" ""
tc_eq "files in the directory (no temporary left)" "$(ls "$GM_TMP/textfile" | tr '\n' ' ')" "gpumem.prom "
prom_check "$GM_TMP/textfile/gpumem.prom" >"$GM_TMP/check.out" ||
	tc_fail "the file is not valid: $(head -n 3 "$GM_TMP/check.out")"
"$CTL" export --prometheus -o /nonexistent-gpumem/x.prom 2>/dev/null
tc_eq "export -o into a missing directory: exit" "$?" 1
tc_end

finish
