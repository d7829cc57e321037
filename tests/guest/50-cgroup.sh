#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cgroup columns: path relative to the cgroup2 root (escaped) and cgroup_id
# (= the inode number of the cgroup directory), read at snapshot time.
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="cgroup-start-in cgroup-moved cgroup-nested-escaped cgroup-unmoved"
if [ ! -r "$GM_CGROOT/cgroup.controllers" ]; then
	for t in $CASES; do fail "$t" "cgroup2 not mounted on $GM_CGROOT (the guest's init mounts it)"; done
	finish
fi
drv=""
for d in qxl vgem virtio_gpu bochs; do
	[ -n "$(card_of "$d")" ] && { drv=$d; break; }
done
if [ -z "$drv" ]; then
	for t in $CASES; do fail "$t" "no DRM card to allocate on in this guest"; done
	finish
fi
card=$(card_of "$drv")
kind=dumb
[ "$drv" = qxl ] && kind=vram

A=$GM_CGROOT/gpumem-test-a
B=$GM_CGROOT/gpumem-test-b
N="$A/nested dir"
rmdir "$N" "$A" "$B" 2>/dev/null	# leftovers of an aborted run
if ! mkcgroup "$A" || ! mkcgroup "$B"; then
	for t in $CASES; do fail "$t" "cannot create cgroups under $GM_CGROOT"; done
	finish
fi

# cg_expect PID PATH: cgroup == PATH escaped, cgroup_id == inode of the directory.
cg_expect() {
	proc_check "$1" "$card" cgroup="$(gm_escape "$2")" cgroup_id="$(stat -c %i "$GM_CGROOT$2")"
}

tc_begin cgroup-start-in
if spawn_in_cgroup "$A" a alloc -d "$drv" -k "$kind" -n 1 -s 1M -c gm-cgroup; then
	tc_eq "kernel's view (/proc/$a_pid/cgroup)" "$(cat "/proc/$a_pid/cgroup")" "0::/gpumem-test-a"
	cg_expect "$a_pid" /gpumem-test-a
else
	tc_fail "helper failed: $(helper_why a)"
fi
tc_end

tc_begin cgroup-moved
if [ -n "$(out_card a)" ] && echo "$a_pid" >"$B/cgroup.procs"; then
	cg_expect "$a_pid" /gpumem-test-b
else
	tc_fail "could not move pid ${a_pid:-?} to $B"
fi
tc_end

tc_begin cgroup-nested-escaped
if ! mkcgroup "$N"; then
	tc_fail "cannot create '$N'"
	tc_end
elif echo "$a_pid" >"$N/cgroup.procs"; then
	cg_expect "$a_pid" "/gpumem-test-a/nested dir"
	tc_eq "escaped path" "$(proc_field "$a_pid" "$card" cgroup)" '/gpumem-test-a/nested\040dir'
	tc_end
else
	tc_fail "could not move pid $a_pid to '$N'"
	tc_end
fi

# A helper left where the test shell is: same cgroup as the shell.
tc_begin cgroup-unmoved
if spawn r alloc -d "$drv" -k "$kind" -n 1 -s 1M -c gm-cgroup-r; then
	mine=$(sed -n 's/^0:://p' /proc/self/cgroup)	# "/" in the root cgroup
	tc_eq "kernel's view (/proc/$r_pid/cgroup)" "$(cat "/proc/$r_pid/cgroup")" "0::$mine"
	cg_expect "$r_pid" "$mine"
else
	tc_fail "helper failed: $(helper_why r)"
fi
tc_end

stop a
stop r
finish
