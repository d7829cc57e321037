#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumem's limits through a real container engine: Debian's podman with
# its own cgroupfs manager (each container in /gpumem-pm/libpod-ID, made by
# podman), the node policy, and gpumem-oci-hook injected the two ways a
# runtime does it: from hooks.d (deploy/oci/gpumem-oci-hook.json, when
# always) and from a CDI spec (gpumemctl cdi generate). The image is a
# rootfs directory (--rootfs DIR in place of an image: no registry), with
# quota-alloc.
#
#   podman-hooksd-crun     hooks.d, crun: a container that asks nothing gets
#                          the policy default on its own cgroup, exactly,
#                          and is denied beyond it
#   podman-hooksd-runc     the same on runc, with an annotation that lowers it
#   podman-ceiling         an annotation above the policy's ceiling: podman
#                          refuses the start with the hook's reason, no limit
#   podman-cdi             --device gpumem.io/gpu=<qxl's PCI address> (CDI,
#                          no hooks.d): the default on exactly that device
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="podman-hooksd-crun podman-hooksd-runc podman-ceiling podman-cdi"

. "$(dirname "$0")/quota-lib.sh"

PODMAN=/usr/bin/podman
HOOK=$GM_BIN/gpumem-oci-hook
[ -x "$PODMAN" ] && [ -x /usr/bin/conmon ] && [ -x /usr/sbin/runc ] ||
	fail_all "no podman, conmon or runc in the image (scripts/mkinitramfs.sh copies them: scripts/setup-host.sh installs them)"
[ -x "$HOOK" ] || fail_all "no $HOOK (make -C userspace guest)"
quota_setup
PM=$GM_CGROOT/gpumem-pm
rmdir "$PM"/* "$PM" 2>/dev/null
mkcgroup "$PM" || fail_all "cannot create cgroup $PM"

# podman's own configuration, all under $GM_TMP: vfs storage, cgroupfs, no
# network, no events; the node policy; hooks.d with the shipped file
# pointing at the hook in the image. (Podman 4.3 reads CDI specs from
# /etc/cdi and /var/run/cdi only: the CDI case writes /var/run/cdi.)
P=$GM_TMP/podman
mkdir -p "$P/hooks.d" "$P/run" "$P/graph" "$P/tmp"
cat >"$P/storage.conf" <<EOF
[storage]
driver = "vfs"
runroot = "$P/run"
graphroot = "$P/graph"
EOF
cat >"$P/containers.conf" <<EOF
[containers]
netns = "none"
[engine]
# the guest's / is the initramfs (rootfs), which pivot_root refuses
no_pivot_root = true
cgroup_manager = "cgroupfs"
events_logger = "none"
tmp_dir = "$P/tmp"
EOF
export CONTAINERS_CONF="$P/containers.conf" CONTAINERS_STORAGE_CONF="$P/storage.conf"
POLICY=$P/policy.conf
printf '%s\n' '[defaults]' 'vram.max = 2M' 'vram.ceiling = 3M' >"$POLICY"
chmod 644 "$POLICY"
# the shipped hooks.d file, with this image's hook path and policy
sed -e "s|/usr/local/libexec/gpumem/gpumem-oci-hook|$HOOK|" \
	-e "s|\"path\": \"$HOOK\"|\"path\": \"$HOOK\", \"args\": [\"gpumem-oci-hook\", \"--policy\", \"$POLICY\"]|" \
	"$GM_BIN/gpumem-oci-hook.json" >"$P/hooks.d/gpumem-oci-hook.json" ||
	fail_all "no $GM_BIN/gpumem-oci-hook.json"
grep -q -- '--policy' "$P/hooks.d/gpumem-oci-hook.json" ||
	fail_all "hooks.d file not rewritten: $(cat "$P/hooks.d/gpumem-oci-hook.json")"
ROOTFS=$P/rootfs
mkdir -p "$ROOTFS/dev" "$ROOTFS/proc" "$ROOTFS/tmp" "$ROOTFS/sys"
cp "$QA" "$ROOTFS/qa" || fail_all "cannot copy quota-alloc into the rootfs"

# prun NAME RUNTIME PODMAN-RUN-ARGS...: podman run in the background (output
# in $GM_TMP/NAME.out, stderr NAME.err) of quota-alloc holding 3 x 1 MiB;
# 0 once it printed READY, 1 if podman exited first.
prun() {
	_n=$1 _rt=$2
	shift 2
	: >"$GM_TMP/$_n.out"
	"$PODMAN" --hooks-dir "$P/hooks.d" --runtime "$_rt" run --rm --name "$_n" \
		--cgroup-parent /gpumem-pm --cap-add SYS_ADMIN "$@" --rootfs "$ROOTFS" \
		/qa hold -n 3 -s 1M -t 600 -c "gm-$_n" >"$GM_TMP/$_n.out" 2>"$GM_TMP/$_n.err" 8>&- &
	eval "${_n}_pid=$!"
	GM_PIDS="$GM_PIDS $!"
	_end=$(($(date +%s) + 120))
	while [ "$(date +%s)" -lt "$_end" ]; do
		grep -q '^READY ' "$GM_TMP/$_n.out" && return 0
		_alive "$(eval echo "\$${_n}_pid")" || return 1
		sleep "$GM_TICK"
	done
	return 1
}
pstop() {
	"$PODMAN" kill "$1" >/dev/null 2>&1
	reap "$(eval echo "\$${1}_pid")" 30
	"$PODMAN" rm -f "$1" >/dev/null 2>&1
}
why() { tail -n 3 "$GM_TMP/$1.err" "$GM_TMP/$1.out" 2>/dev/null | tr '\n' ' '; }
# the container's cgroup (podman's, below /gpumem-pm) and its limits
ccg() { _c=$("$PODMAN" inspect --format '{{.State.Pid}}' "$1" 2>/dev/null) &&
	sed -n 's/^0:://p' "/proc/$_c/cgroup"; }
plim() { "$CTL" limit list --json | grep "\"cgroup\":\"$1\"" | sort; }

check_default() {	# NAME MAX GOT DENIED
	_cg=$(ccg "$1")
	case $_cg in
	/gpumem-pm/libpod-*) log "$1: podman's cgroup $_cg" ;;
	*) tc_fail "$1: not in a cgroup podman made below /gpumem-pm: '$_cg'" ;;
	esac
	ev_check "$(plim "$_cg")" cgroup_id="$(cgid "$_cg")" device=all max="$2" mode=enforce
	tc_eq "$1: limits of its cgroup" "$(plim "$_cg" | grep -c .)" 1
	tc_eq "$1: got/denied" "$(out_total "$1" ok) $(out_total "$1" denied)" "$3 $4"
	tc_eq "$1: usage of its cgroup" "$(cg_usage "$_cg" all)" $(($3 * MiB))
}

tc_begin podman-hooksd-crun
if prun pmc crun --device /dev/dri; then
	check_default pmc $((2 * MiB)) 2 1
else
	tc_fail "podman run (crun) did not start: $(why pmc)"
fi
pstop pmc
tc_end

tc_begin podman-hooksd-runc
if prun pmr runc --device /dev/dri --annotation gpumem.io/vram.max=1M; then
	check_default pmr "$MiB" 1 2
else
	tc_fail "podman run (runc) did not start: $(why pmr)"
fi
pstop pmr
tc_end

tc_begin podman-ceiling
# podman says only that the hook failed; crun puts its stderr where asked
: >"$GM_TMP/pmx.hookerr"
if prun pmx crun --device /dev/dri --annotation gpumem.io/vram.max=8M \
	--annotation "run.oci.hooks.stderr=$GM_TMP/pmx.hookerr"; then
	tc_fail "pmx: started above the policy's ceiling"
fi
reap "$pmx_pid" 30
grep -q "error executing hook .*gpumem-oci-hook" "$GM_TMP/pmx.err" ||
	tc_fail "pmx: podman did not refuse for the hook: $(why pmx)"
grep -q "gpumem-oci-hook: container [0-9a-f]*: annotation gpumem.io/vram.max (8388608 bytes) is above the vram.max ceiling of \[defaults\] (3145728 bytes)" \
	"$GM_TMP/pmx.hookerr" || tc_fail "pmx: not the hook's reason: $(cat "$GM_TMP/pmx.hookerr")"
grep -q '^READY' "$GM_TMP/pmx.out" && tc_fail "pmx: quota-alloc ran"
tc_eq "limits below /gpumem-pm after the refusal" "$("$CTL" limit list --json | grep -c '"cgroup":"/gpumem-pm/')" 0
"$PODMAN" rm -f pmx >/dev/null 2>&1
tc_end

tc_begin podman-cdi
pci=$(readlink "/sys/class/drm/$qxl/device")
pci=${pci##*/}
CDI=/var/run/cdi/gpumem.json
mkdir -p /var/run/cdi
"$CTL" cdi generate -o "$CDI" --hook "$HOOK" || tc_fail "gpumemctl cdi generate failed"
# the CDI spec's hook with the test's policy (the shipped one uses the default path)
sed -i "s|\"gpumem-oci-hook\",|\"gpumem-oci-hook\", \"--policy\", \"$POLICY\",|" "$CDI"
log "CDI spec: $(tr -d '\n' <"$CDI" | tr -s ' ')"
mkdir -p "$P/nohooks"
: >"$GM_TMP/pmd.out"
"$PODMAN" --hooks-dir "$P/nohooks" --runtime crun run --rm --name pmd \
	--cgroup-parent /gpumem-pm --cap-add SYS_ADMIN \
	--device "gpumem.io/gpu=$pci" --rootfs "$ROOTFS" /qa hold -n 3 -s 1M -t 600 -c gm-pmd \
	>"$GM_TMP/pmd.out" 2>"$GM_TMP/pmd.err" 8>&- &
pmd_pid=$!
GM_PIDS="$GM_PIDS $pmd_pid"
_end=$(($(date +%s) + 120))
while [ "$(date +%s)" -lt "$_end" ] && ! grep -q '^READY ' "$GM_TMP/pmd.out"; do
	_alive "$pmd_pid" || break
	sleep "$GM_TICK"
done
if grep -q '^READY ' "$GM_TMP/pmd.out"; then
	_cg=$(ccg pmd)
	ev_check "$(plim "$_cg")" cgroup_id="$(cgid "$_cg")" device="$qxl" max=$((2 * MiB)) mode=enforce
	tc_eq "pmd: limits of its cgroup (qxl only)" "$(plim "$_cg" | grep -c .)" 1
	tc_eq "pmd: got/denied" "$(out_total pmd ok) $(out_total pmd denied)" "2 1"
else
	tc_fail "podman run --device gpumem.io/gpu=$pci did not start: $(why pmd)"
fi
pstop pmd
tc_end

for c in pmc pmr pmx pmd; do
	"$PODMAN" rm -f "$c" >/dev/null 2>&1
done
rm -f /var/run/cdi/gpumem.json
rmdir "$PM"/* "$PM" 2>/dev/null
finish
