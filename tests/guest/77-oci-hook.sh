#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumem-oci-hook with a real OCI runtime: Debian's crun, run directly with
# the hook in each bundle's config.json (hooks.createRuntime), the way
# Podman, CRI-O or containerd's NRI hook-injector put it there from
# deploy/oci/gpumem-oci-hook.json (Podman itself is too heavy for the
# initramfs guest). Each container runs quota-alloc (static) in a rootfs
# the test makes, with the DRM nodes, in its own cgroup
# /gpumem-oci/NAME (linux.cgroupsPath names it too, for the hook's
# cross-check). The test makes that cgroup and starts crun in it with
# --cgroup-manager=disabled: crun's own managers enable every controller
# on the way down (+memory: the first memory cgroup flips static keys in
# the slab code, and multi-threaded TCG has crashed the guest on that
# text patching), which gpumem's limits do not need.
#
#   oci-hook-limit       the annotated container's cgroup gets exactly the
#                        annotated limit (max, high, mode, device)
#   oci-hook-deny        its allocations beyond vram.max are denied, its
#                        usage (gpumemctl cgroups) is exactly what it holds
#   oci-hook-event       a quota-exceeded event names its cgroup
#   oci-hook-unlimited   a container without annotations: no limit, nothing
#                        denied
#   oci-hook-two         two containers with different limits at once
#   oci-hook-malformed   8X, -1, 2^70, an unknown device: crun refuses the
#                        start with the hook's reason, no limit is left, the
#                        container is not running
# With a node policy (the hook's --policy FILE, as hooks.d or a CDI spec
# would pass it; libgpumem/policy.h):
#   oci-hook-policy-default  a container that asks nothing gets the policy's
#                        default, exactly, and is denied beyond it
#   oci-hook-policy-ceiling  an annotation above its namespace's ceiling:
#                        crun refuses the start with the hook's reason
#   oci-hook-policy-pod  two containers of one pod (cgroups podNNN/ctr,
#                        the runtime's io.kubernetes.pod.namespace): each
#                        its own max, the pod's cgroup the namespace's
#                        pod-vram.max; together they are denied beyond it
#   oci-hook-cdi-device  the hook as a CDI spec runs it (--device PCI): the
#                        policy's max on exactly that device, whatever
#                        gpumem.io/devices names
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="oci-hook-limit oci-hook-deny oci-hook-event oci-hook-unlimited oci-hook-two
oci-hook-malformed oci-hook-policy-default oci-hook-policy-ceiling oci-hook-policy-pod
oci-hook-cdi-device"

. "$(dirname "$0")/quota-lib.sh"

CRUN=$GM_BIN/crun
HOOK=$GM_BIN/gpumem-oci-hook
[ -x "$CRUN" ] || fail_all "no $CRUN in the image (scripts/mkinitramfs.sh copies /usr/bin/crun: apt-get install crun)"
[ -x "$HOOK" ] || fail_all "no $HOOK (make -C userspace guest)"
quota_setup
OCI=$GM_CGROOT/gpumem-oci
rmdir "$OCI"/* "$OCI" 2>/dev/null
mkcgroup "$OCI" || fail_all "cannot create cgroup $OCI"
CRUN_ROOT=$GM_TMP/crun
HOOK_ARGS=	# more JSON strings for the hook's args (the policy cases)
mkdir -p "$CRUN_ROOT"

# The container image: quota-alloc and nothing else; /dev/dri bound in.
ROOTFS=$GM_TMP/rootfs
mkdir -p "$ROOTFS/dev" "$ROOTFS/proc" "$ROOTFS/tmp"
cp "$QA" "$ROOTFS/qa" || fail_all "cannot copy quota-alloc into the rootfs"

# bundle NAME ANNOTATIONS(JSON members) ARGS(JSON strings): $GM_TMP/b-NAME;
# CAP_SYS_ADMIN: a DRM file is authenticated for qxl's allocations only as
# the master or with it (the first container would take the master);
# crun appends the hook's stderr to $GM_TMP/NAME.hookerr (run.oci.hooks.stderr)
bundle() {
	_b=$GM_TMP/b-$1
	mkdir -p "$_b"
	cat >"$_b/config.json" <<EOF
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": { "uid": 0, "gid": 0 },
    "capabilities": {
      "bounding": [ "CAP_SYS_ADMIN" ], "effective": [ "CAP_SYS_ADMIN" ], "permitted": [ "CAP_SYS_ADMIN" ]
    },
    "args": [ "/qa", $3 ],
    "env": [ "PATH=/" ],
    "cwd": "/"
  },
  "root": { "path": "$ROOTFS", "readonly": true },
  "hostname": "$1",
  "mounts": [
    { "destination": "/proc", "type": "proc", "source": "proc" },
    { "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "mode=755" ] },
    { "destination": "/dev/dri", "type": "bind", "source": "/dev/dri", "options": [ "rbind", "rw" ] },
    { "destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid" ] }
  ],
  "annotations": { "run.oci.hooks.stderr": "$GM_TMP/$1.hookerr", $2 },
  "hooks": {
    "createRuntime": [ { "path": "$HOOK", "args": [ "gpumem-oci-hook"$HOOK_ARGS ], "timeout": 60 } ]
  },
  "linux": {
    "cgroupsPath": "/gpumem-oci/${CGSUB:-$1}",
    "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ]
  }
}
EOF
}

# start NAME: crun runs the bundle in the background in cgroup
# /gpumem-oci/NAME (output in $GM_TMP/NAME.out); 0 once quota-alloc printed
# READY, 1 if crun exited first.
start() {
	: >"$GM_TMP/$1.out"
	_cg=$OCI/${CGSUB:-$1}
	[ -d "$_cg" ] || mkcgroup "$_cg" || return 1
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 111; shift; exec "$@"' sh "$_cg" \
		"$CRUN" --root "$CRUN_ROOT" --cgroup-manager=disabled run --no-pivot \
		--bundle "$GM_TMP/b-$1" "$1" >"$GM_TMP/$1.out" 2>"$GM_TMP/$1.err" 8>&- &
	eval "${1}_crun=$!"
	GM_PIDS="$GM_PIDS $!"
	_end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt "$_end" ]; do
		grep -q '^READY ' "$GM_TMP/$1.out" && return 0
		_alive "$(eval echo "\$${1}_crun")" || return 1
		sleep "$GM_TICK"
	done
	return 1
}
# stop_ctr NAME: kill the container and delete it
stop_ctr() {
	"$CRUN" --root "$CRUN_ROOT" kill "$1" KILL >/dev/null 2>&1
	reap "$(eval echo "\$${1}_crun")" 10
	"$CRUN" --root "$CRUN_ROOT" delete -f "$1" >/dev/null 2>&1
}
why() {
	printf '%s' "$(tail -n 3 "$GM_TMP/$1.err" "$GM_TMP/$1.hookerr" "$GM_TMP/$1.out" 2>/dev/null |
		tr '\n' ' ')"
}
lim() { "$CTL" limit list --json | grep "\"cgroup\":\"/gpumem-oci/$1\"" | sort; }

tc_begin oci-hook-limit
bundle ctra '"gpumem.io/vram.max": "4M", "gpumem.io/vram.high": "3M", "gpumem.io/mode": "enforce"' \
	'"hold", "-n", "6", "-s", "1M", "-t", "600", "-c", "gm-oci-a"'
m0=$(w_mark)
start ctra || tc_fail "container ctra did not start: $(why ctra)"
l=$(lim ctra)
tc_eq "limits of /gpumem-oci/ctra" "$(echo "$l" | grep -c .)" 1
ev_check "$l" cgroup_id="$(cgid /gpumem-oci/ctra)" device=all region=vram max=$((4 * MiB)) \
	high=$((3 * MiB)) mode=enforce
tc_end

tc_begin oci-hook-deny
tc_eq "ctra got/denied" "$(out_total ctra ok) $(out_total ctra denied)" "4 2"
tc_eq "ctra usage (gpumemctl cgroups)" "$(cg_usage /gpumem-oci/ctra all)" $((4 * MiB))
tc_eq "ctra usage on $qxl" "$(cg_usage /gpumem-oci/ctra "$qxl")" $((4 * MiB))
tc_eq "ctra denied counter" "$(q_get /gpumem-oci/ctra all denied)" 2
tc_end

tc_begin oci-hook-event
w_since "$m0"
tc_eq "quota-exceeded events of ctra" \
	"$(echo "$ev" | grep '"type":"quota-exceeded"' | grep -c '"cgroup":"/gpumem-oci/ctra"')" 2
tc_eq "high-crossed events of ctra" \
	"$(echo "$ev" | grep '"type":"high-crossed"' | grep -c '"cgroup":"/gpumem-oci/ctra"')" 1
ev_check "$(echo "$ev" | grep '"type":"quota-exceeded"' | grep '"cgroup":"/gpumem-oci/ctra"' | head -n 1)" \
	type=quota-exceeded \
	cgroup_id="$(cgid /gpumem-oci/ctra)" cgroup=/gpumem-oci/ctra comm=gm-oci-a device="$qxl" \
	region=vram requested="$MiB" usage=$((4 * MiB)) limit=$((4 * MiB)) mode=enforce denied=true
tc_end

tc_begin oci-hook-unlimited
bundle ctrc '"io.example/other": "x"' '"hold", "-n", "6", "-s", "1M", "-t", "600", "-c", "gm-oci-c"'
start ctrc || tc_fail "container ctrc did not start: $(why ctrc)"
tc_eq "ctrc got/denied" "$(out_total ctrc ok) $(out_total ctrc denied)" "6 0"
tc_eq "limits of /gpumem-oci/ctrc" "$(lim ctrc | grep -c .)" 0
tc_eq "ctrc usage" "$(cg_usage /gpumem-oci/ctrc all)" $((6 * MiB))
stop_ctr ctrc
tc_end

# ctra (4M on all devices) still runs; ctrb: 2M on the qxl card by PCI address
tc_begin oci-hook-two
pci=$(readlink "/sys/class/drm/$qxl/device")
pci=${pci##*/}
bundle ctrb "\"gpumem.io/vram.max\": \"2M\", \"gpumem.io/mode\": \"monitor\", \"gpumem.io/devices\": \"$pci\"" \
	'"hold", "-n", "3", "-s", "1M", "-t", "600", "-c", "gm-oci-b"'
start ctrb || tc_fail "container ctrb did not start: $(why ctrb)"
ev_check "$(lim ctrb)" device="$qxl" max=$((2 * MiB)) high=null mode=monitor
ev_check "$(lim ctra)" device=all max=$((4 * MiB)) high=$((3 * MiB)) mode=enforce
tc_eq "ctrb got/denied (monitor)" "$(out_total ctrb ok) $(out_total ctrb denied)" "3 0"
tc_eq "ctrb usage on $qxl" "$(cg_usage /gpumem-oci/ctrb "$qxl")" $((3 * MiB))
tc_eq "ctra usage unchanged" "$(cg_usage /gpumem-oci/ctra all)" $((4 * MiB))
stop_ctr ctrb
tc_end

tc_begin oci-hook-malformed
for bad in 'vram.max|8X|invalid size' 'vram.max|-1|negative' 'vram.max|2^70|invalid size' \
	'devices|card9|no device card9'; do
	key=${bad%%|*} rest=${bad#*|} val=${rest%%|*} want=${bad##*|}
	ann="\"gpumem.io/$key\": \"$val\""
	[ "$key" = devices ] && ann="$ann, \"gpumem.io/vram.max\": \"1M\""
	bundle ctrbad "$ann" '"hold", "-n", "1", "-s", "1M", "-t", "600", "-c", "gm-oci-bad"'
	: >"$GM_TMP/ctrbad.hookerr"
	if start ctrbad; then
		tc_fail "$key=$val: the container started"
	fi
	reap "$ctrbad_crun" 10
	grep -q "gpumem-oci-hook: container ctrbad: .*$want" "$GM_TMP/ctrbad.hookerr" ||
		tc_fail "$key=$val: not the hook's reason: $(why ctrbad)"
	log "$key=$val: $(cat "$GM_TMP/ctrbad.hookerr")"
	tc_eq "$key=$val: the hook's stderr is one line" "$(grep -c . "$GM_TMP/ctrbad.hookerr")" 1
	grep -q '^READY' "$GM_TMP/ctrbad.out" && tc_fail "$key=$val: quota-alloc ran"
	tc_eq "$key=$val: limits of /gpumem-oci/ctrbad" "$(lim ctrbad | grep -c .)" 0
	"$CRUN" --root "$CRUN_ROOT" delete -f ctrbad >/dev/null 2>&1
done
tc_end

# the node policy, as the admin writes it (root's, 0644)
POLICY=$GM_TMP/policy.conf
printf '%s\n' '[defaults]' 'vram.max = 2M' 'vram.ceiling = 16M' '' '[namespace:ml-team]' \
	'vram.ceiling = 3M' 'pod-vram.max = 3M' >"$POLICY"
chmod 644 "$POLICY"
HOOK_ARGS=", \"--policy\", \"$POLICY\""

tc_begin oci-hook-policy-default
bundle ctrd '"io.example/other": "x"' '"hold", "-n", "4", "-s", "1M", "-t", "600", "-c", "gm-oci-d"'
start ctrd || tc_fail "container ctrd did not start: $(why ctrd)"
ev_check "$(lim ctrd)" device=all max=$((2 * MiB)) high=null mode=enforce
tc_eq "limits of /gpumem-oci/ctrd" "$(lim ctrd | grep -c .)" 1
tc_eq "ctrd got/denied" "$(out_total ctrd ok) $(out_total ctrd denied)" "2 2"
tc_eq "ctrd usage" "$(cg_usage /gpumem-oci/ctrd all)" $((2 * MiB))
stop_ctr ctrd
tc_end

tc_begin oci-hook-policy-ceiling
bundle ctre '"io.kubernetes.pod.namespace": "ml-team", "gpumem.io/vram.max": "8M"' \
	'"hold", "-n", "1", "-s", "1M", "-t", "600", "-c", "gm-oci-e"'
: >"$GM_TMP/ctre.hookerr"
start ctre && tc_fail "ctre: the container started above its namespace's ceiling"
reap "$ctre_crun" 10
grep -q "gpumem-oci-hook: container ctre: annotation gpumem.io/vram.max (8388608 bytes) is above the vram.max ceiling of \[ml-team\] (3145728 bytes)" \
	"$GM_TMP/ctre.hookerr" || tc_fail "ctre: not the hook's reason: $(why ctre)"
grep -q '^READY' "$GM_TMP/ctre.out" && tc_fail "ctre: quota-alloc ran"
tc_eq "limits of /gpumem-oci/ctre" "$(lim ctre | grep -c .)" 0
"$CRUN" --root "$CRUN_ROOT" delete -f ctre >/dev/null 2>&1
tc_end

tc_begin oci-hook-policy-pod
POD=pod0a1b2c
mkcgroup "$OCI/$POD" || tc_fail "cannot create $OCI/$POD"
CGSUB=$POD/ctrf bundle ctrf '"io.kubernetes.pod.namespace": "ml-team", "gpumem.io/vram.max": "2M"' \
	'"hold", "-n", "2", "-s", "1M", "-t", "600", "-c", "gm-oci-f"'
CGSUB=$POD/ctrg bundle ctrg '"io.kubernetes.pod.namespace": "ml-team"' \
	'"hold", "-n", "3", "-s", "1M", "-t", "600", "-c", "gm-oci-g"'
CGSUB=$POD/ctrf start ctrf || tc_fail "container ctrf did not start: $(why ctrf)"
CGSUB=$POD/ctrg start ctrg || tc_fail "container ctrg did not start: $(why ctrg)"
plim() { "$CTL" limit list --json | grep "\"cgroup\":\"/gpumem-oci/$1\"" | sort; }
ev_check "$(plim "$POD")" cgroup_id="$(cgid "/gpumem-oci/$POD")" device=all max=$((3 * MiB)) \
	mode=enforce
ev_check "$(plim "$POD/ctrf")" max=$((2 * MiB))
ev_check "$(plim "$POD/ctrg")" max=$((2 * MiB))
tc_eq "ctrf got/denied" "$(out_total ctrf ok) $(out_total ctrf denied)" "2 0"
tc_eq "ctrg got/denied (the pod's 3M: 1M left)" "$(out_total ctrg ok) $(out_total ctrg denied)" "1 2"
tc_eq "the pod's usage" "$(cg_usage "/gpumem-oci/$POD" all)" $((3 * MiB))
stop_ctr ctrf
stop_ctr ctrg
tc_end
# what a CDI runtime runs for gpumem.io/gpu=<qxl's PCI address>: the hook
# with --device (gpumemctl cdi generate's spec, its host check cdi-spec)
tc_begin oci-hook-cdi-device
HOOK_ARGS=", \"--policy\", \"$POLICY\", \"--device\", \"$pci\""
bundle ctrh '"gpumem.io/devices": "card9"' '"hold", "-n", "3", "-s", "1M", "-t", "600", "-c", "gm-oci-h"'
start ctrh || tc_fail "container ctrh did not start: $(why ctrh)"
ev_check "$(lim ctrh)" device="$qxl" max=$((2 * MiB)) mode=enforce
tc_eq "limits of /gpumem-oci/ctrh (qxl only)" "$(lim ctrh | grep -c .)" 1
tc_eq "ctrh got/denied" "$(out_total ctrh ok) $(out_total ctrh denied)" "2 1"
stop_ctr ctrh
tc_end
HOOK_ARGS=

# every container gone (crun delete -f kills what is left and removes its cgroup)
for c in ctra ctrb ctrc ctrbad ctrd ctre ctrf ctrg ctrh; do

	"$CRUN" --root "$CRUN_ROOT" delete -f "$c" >/dev/null 2>&1
done
rmdir "$OCI/$POD" 2>/dev/null
finish
