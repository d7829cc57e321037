#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's generic YNL CLI (tools/net/ynl/cli.py, from the test kernel's
# source) talks to the family with nothing but uapi/gpumem.yaml:
#   cli.py --spec gpumem.yaml --no-schema --dump dev-get
#   cli.py --spec gpumem.yaml --no-schema --do dev-get --json '{"id": 0}'
# list the qxl device as card0, driver qxl, with a vram region whose
# capacity is the devices file's (the dump: every device and region as the
# devices file has them), and a device that does not exist comes back as
# the module's extack message. scripts/mkinitramfs.sh puts python3 and the
# CLI in /opt/ynl (GPUMEM_GUEST_PYTHON=0 leaves them out: SKIP).
# The CLI itself runs once (the dev-get dump); the other requests go through
# the same library from one python3 start ($YNL/batch.py), whose dump must
# print exactly what the CLI printed.
. "$(dirname "$0")/lib.sh"
require_gpumem

PY=${GM_PYTHON:-/usr/bin/python3}
YNL=${GM_YNL:-/opt/ynl}
CASES="ynl-dev-get-dump ynl-dev-get-do ynl-dev-get-error ynl-proc-get-view"
if [ ! -x "$PY" ] || [ ! -e "$YNL/cli.py" ] || [ ! -e "$YNL/batch.py" ] || [ ! -e "$YNL/gpumem.yaml" ]; then
	for t in $CASES; do
		fail "$t" "no python3 / YNL CLI in the initramfs ($PY, $YNL/cli.py; scripts/mkinitramfs.sh adds them unless GPUMEM_GUEST_PYTHON=0 or the test kernel's tools/net/ynl is missing)"
	done
	finish
fi

# The requests go through the kernel's YNL library from one python3 start
# (tests/guest/ynl-batch.py, installed as $YNL/batch.py: the same library
# calls and printing as cli.py; on the KASAN/lockdep test kernel each
# python3 start costs 10-25 s). ynl_batch FILE: run the requests of FILE
# ("NAME do|dump OP [JSON]" lines); ynl NAME: its stdout in $GM_TMP/NAME.out,
# errors in .err, exit status in ynl_rc.
ynl_batch() {
	_t=$(date +%s)
	"$PY" "$YNL/batch.py" "$YNL/gpumem.yaml" "$1" "$GM_TMP" 2>"$GM_TMP/batch.err"
	_rc=$?
	log "ynl batch of $(wc -l <"$1") requests: exit $_rc after $(($(date +%s) - _t)) s"
	sed 's/^/#   /' "$GM_TMP/batch.err" | head -n 20
}
ynl() {
	_n=$1
	ynl_rc=$(cat "$GM_TMP/$_n.rc" 2>/dev/null || echo "none")
	log "$(grep "^$_n " "$GM_TMP/requests"): exit $ynl_rc"
	sed 's/^/#   /' "$GM_TMP/$_n.out" "$GM_TMP/$_n.err" 2>/dev/null | head -n 40
}

# rows FILE: the CLI's printed reply (a dict or a list of dicts, Python
# syntax) as "name driver region capacity" lines, sorted; a device without
# regions as "name driver system -", like the devices file.
rows() {
	"$PY" -c '
import ast, sys
r = ast.literal_eval(open(sys.argv[1]).read())
for d in r if isinstance(r, list) else [r]:
    regs = d.get("region") or [{"region": "system"}]
    for g in regs:
        print(d.get("name"), d.get("driver"), g.get("region"), g.get("capacity", "-"))
' "$1" | sort
}

snap devices
qxl=$(tbl_get "$GM_TMP/devices" device driver=qxl | head -n 1)
cap=$(tbl_get "$GM_TMP/devices" capacity driver=qxl region=vram | head -n 1)
awk 'NR > 1 { print $1, $2, $5, $6 }' "$GM_TMP/devices" | sort >"$GM_TMP/dbg.rows"

# One helper with a known buffer for the proc-get requests, then every
# request in one batch; the cases below judge the replies.
spawn y alloc -d qxl -k vram -n 1 -s 1M -c gm-ynl || y_bad="helper: $(helper_why y)"
cat >"$GM_TMP/requests" <<EOR
dump dump dev-get
do do dev-get {"id": 0}
err do dev-get {"id": 4242}
ph dump proc-get {"view": 1}
pc dump proc-get {"pid": ${y_pid:-1}}
pbad dump proc-get {"view": 7}
EOR
ynl_batch "$GM_TMP/requests"

tc_begin ynl-dev-get-dump
ynl dump
tc_eq "exit" "$ynl_rc" 0
_t=$(date +%s)
"$PY" "$YNL/cli.py" --spec "$YNL/gpumem.yaml" --no-schema --dump dev-get >"$GM_TMP/cli.out" 2>"$GM_TMP/cli.err"
_rc=$?
log "cli.py --spec $YNL/gpumem.yaml --no-schema --dump dev-get: exit $_rc after $(($(date +%s) - _t)) s"
tc_eq "cli.py: exit" "$_rc" 0
# (usage figures move: qxl allocates console buffers; the devices and
# capacities do not)
rows "$GM_TMP/cli.out" >"$GM_TMP/cli.rows" 2>&1
rows "$GM_TMP/dump.out" >"$GM_TMP/dump.rows" 2>&1
cmp -s "$GM_TMP/cli.rows" "$GM_TMP/dump.rows" ||
	tc_fail "cli.py's devices differ from the batch's: $(diff "$GM_TMP/cli.rows" "$GM_TMP/dump.rows" | head -n 5 | tr '\n' ' ')"
rows "$GM_TMP/dump.out" >"$GM_TMP/dump.rows" 2>"$GM_TMP/rows.err" ||
	tc_fail "the output is no Python literal: $(tail -n 1 "$GM_TMP/rows.err")"
tc_eq "qxl's device in the devices file" "$qxl" card0
tc_eq "card0 in the dump (name driver region capacity)" \
	"$(awk '$1 == "card0" && $3 == "vram"' "$GM_TMP/dump.rows")" "card0 qxl vram $cap"
if ! cmp -s "$GM_TMP/dump.rows" "$GM_TMP/dbg.rows"; then
	diff "$GM_TMP/dbg.rows" "$GM_TMP/dump.rows" | sed 's/^/#   /'
	tc_fail "devices and regions differ from the devices file (- debugfs, + ynl)"
fi
tc_end

tc_begin ynl-dev-get-do
ynl do
tc_eq "exit" "$ynl_rc" 0
rows "$GM_TMP/do.out" >"$GM_TMP/do.rows" 2>"$GM_TMP/rows.err" ||
	tc_fail "the output is no Python literal: $(tail -n 1 "$GM_TMP/rows.err")"
tc_eq "card0 (name driver region capacity)" "$(awk '$3 == "vram"' "$GM_TMP/do.rows")" "card0 qxl vram $cap"
tc_eq "devices in the reply" "$(awk '{ print $1 }' "$GM_TMP/do.rows" | sort -u)" card0
tc_eq "the reply's regions" "$(cat "$GM_TMP/do.rows")" "$(awk '$1 == "card0"' "$GM_TMP/dbg.rows")"
tc_end

tc_begin ynl-dev-get-error
ynl err
tc_num -ne "exit" "$ynl_rc" 0
grep -q 'no such DRM device' "$GM_TMP/err.out" "$GM_TMP/err.err" ||
	tc_fail "no 'no such DRM device' extack message in the CLI's output"
tc_end

# proc-get's view attribute (an enum in the spec): both views, and a bad one
tc_begin ynl-proc-get-view
[ -z "${y_bad:-}" ] || tc_fail "$y_bad"
ynl ph
tc_eq "held view: exit" "$ynl_rc" 0
grep -Eq "'view': ('held'|1)" "$GM_TMP/ph.out" || tc_fail "held view: no view held in the reply"
ynl pc
tc_eq "charged view (default): exit" "$ynl_rc" 0
grep -Eq "'view': ('charged'|0)" "$GM_TMP/pc.out" || tc_fail "charged view: no view charged in the reply"
grep -q "'pid': ${y_pid:-none}," "$GM_TMP/pc.out" || tc_fail "charged view: no row of the helper"
ynl pbad
tc_num -ne "view 7: exit" "$ynl_rc" 0
grep -qi 'range' "$GM_TMP/pbad.out" "$GM_TMP/pbad.err" ||
	tc_fail "view 7: no out-of-range extack message in the CLI's output"
stop y
tc_end

finish
