#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpumem's limits through Kubernetes' container runtime interface:
# containerd 1.7's CRI plugin (trixie's containerd, scripts/fetch-containerd.sh)
# with Debian's runc and the cgroupfs driver, driven the way kubelet drives
# it (RunPodSandbox, CreateContainer, StartContainer, ...) by a small CRI
# client (/opt/cri/cri.py: tests/guest/cri.proto, python3-grpcio). The
# GPU reaches the containers only through CDI (enable_cdi, the spec of
# gpumemctl cdi generate in cdi_spec_dirs): the CRI ContainerConfig's
# CDI_devices field or a cdi.k8s.io/ annotation, as device plugins and
# kubelet pass them; the spec's createRuntime hook runs gpumem-oci-hook with
# the node policy. Pods run in cgroups /kubepods/burstable/pod<uid> as
# kubelet names and makes them with cgroupfs (runc makes <id> below), with
# host networking (no CNI). The image is made here (an OCI layout of
# busybox and quota-alloc) and imported with ctr into the k8s.io
# namespace, as one sideloads images offline; it is also the sandbox_image.
# The runtime handler "runc" lets the pods' gpumem.io/* annotations through
# (pod_annotations); "runc-noann" is the same without them (the
# misconfiguration).
#
#   cri-pod-default     a pod in a namespace without a section asks for
#                       nothing: its container gets the policy's default on
#                       its own cgroup, on exactly the CDI device (CDI_devices),
#                       and is denied beyond it; the pod's cgroup gets the
#                       default pod limit
#   cri-pod-two         a second container of that pod (CDI by annotation):
#                       its own limit, and the pod's limit denies what the
#                       two together would hold beyond it
#   cri-pod-gone        the pod's limit goes with its cgroup
#   cri-annotation      pod_annotations: the pod's gpumem.io/vram.max (above
#                       its namespace's default, within the ceiling) reaches
#                       the hook and is its limit
#   cri-ceiling-refuse  an annotation above the namespace's ceiling:
#                       StartContainer fails with the hook's reason, the
#                       container never ran, no limit is left
#   cri-ceiling-clamp   the same with over-ceiling = clamp: lowered to the
#                       ceiling
#   cri-no-pod-annotations  the runtime without pod_annotations: the pod's
#                       annotation never reaches the OCI spec (ctr shows it),
#                       and the container gets its namespace's default, not
#                       nothing (not unlimited)
#   cri-no-policy       no node policy and no annotation reaching the hook
#                       (pod_annotations forgotten) on a Kubernetes container
#                       that got a GPU through CDI: StartContainer fails
#                       with the hook's reason, never unlimited
#   cri-no-cdi          containerd restarted without enable_cdi: the CDI
#                       request is ignored, the container has no GPU (no
#                       device node, no hook, no limit), not an unlimited one
. "$(dirname "$0")/lib.sh"
require_gpumem

CASES="cri-pod-default cri-pod-two cri-pod-gone cri-annotation cri-ceiling-refuse
cri-ceiling-clamp cri-no-pod-annotations cri-no-policy cri-no-cdi"

. "$(dirname "$0")/quota-lib.sh"

CONTAINERD=/usr/bin/containerd
CTR=/usr/bin/ctr
CRIPY=/opt/cri/cri.py
HOOK=$GM_BIN/gpumem-oci-hook
IMG=localhost/gpumem-test:1
for b in "$CONTAINERD" /usr/bin/containerd-shim-runc-v2 "$CTR" /usr/sbin/runc /usr/bin/python3; do
	[ -x "$b" ] || fail_all "no $b in the image (scripts/mkinitramfs.sh: scripts/fetch-containerd.sh, setup-host.sh)"
done
[ -r "$CRIPY" ] || fail_all "no $CRIPY in the image (scripts/mkinitramfs.sh, python3-grpcio)"
[ -x "$HOOK" ] || fail_all "no $HOOK (make -C userspace guest)"
quota_setup
KP=$GM_CGROOT/kubepods
for _d in "$KP"/burstable/* "$KP"/burstable "$KP"; do rmdir "$_d" 2>/dev/null; done
mkcgroup "$KP" && mkcgroup "$KP/burstable" || fail_all "cannot create cgroup $KP/burstable"
pci=$(readlink "/sys/class/drm/$qxl/device")
pci=${pci##*/}

C=$GM_TMP/ctrd
SOCK=$C/containerd.sock
mkdir -p "$C/root" "$C/state" "$C/cdi" "$C/cni/bin" "$C/cni/conf" "$C/logs" "$C/cfg"
POLICY=$C/policy.conf
# policy [EXTRA-LINE...]: the node policy, with more [defaults] lines
policy() {
	{
		printf '%s\n' '[defaults]' 'vram.max = 2M' 'vram.ceiling = 3M' \
			'pod-vram.max = 3M' 'pod-vram.ceiling = 4M' "$@"
		printf '%s\n' '[namespace:team-a]' 'vram.max = 1M' 'vram.ceiling = 2M'
	} >"$POLICY"
	chmod 644 "$POLICY"
}
policy
"$CTL" cdi generate -o "$C/cdi/gpumem.json" --hook "$HOOK" ||
	fail_all "gpumemctl cdi generate failed"
# the spec's hook with the test's policy (the shipped one uses the default path)
sed -i "s|\"gpumem-oci-hook\",|\"gpumem-oci-hook\", \"--policy\", \"$POLICY\",|" "$C/cdi/gpumem.json"
grep -q -- '--policy' "$C/cdi/gpumem.json" || fail_all "CDI spec not rewritten: $(cat "$C/cdi/gpumem.json")"

# containerd: its own root, state and socket under $C; the CRI plugin with
# CDI, the native snapshotter (copies: no overlayfs needed), no AppArmor
# (the guest loads no profiles), runc with no pivot_root (the guest's / is
# the initramfs) and cgroupfs.
runtime() {	# NAME [POD-ANNOTATIONS-LINE]
	cat <<EOF
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.$1]
      runtime_type = "io.containerd.runc.v2"
      ${2:-}
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.$1.options]
        BinaryName = "/usr/sbin/runc"
        NoPivotRoot = true
        SystemdCgroup = false
EOF
}
{
	cat <<EOF
version = 2
root = "$C/root"
state = "$C/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.blockfile", "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMG"
  enable_cdi = true
  cdi_spec_dirs = ["$C/cdi"]
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$C/cni/bin"
    conf_dir = "$C/cni/conf"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
EOF
	runtime runc 'pod_annotations = ["gpumem.io/*"]'
	runtime runc-noann
} >"$C/config.toml"

# the CRI plugin copies the node's /etc/hosts and /etc/resolv.conf into host-network pods
made_etc=
for _f in /etc/hosts /etc/resolv.conf; do
	[ -e "$_f" ] && continue
	echo "127.0.0.1 localhost" >"$_f"
	made_etc="$made_etc $_f"
done

cri() { /usr/bin/python3 "$CRIPY" -s "$SOCK" "$@"; }
clog() { grep 'level=error' "$C/containerd.log" 2>/dev/null | tail -n 2 | tr '\n' ' '; }

# ctrd_start: containerd in the background (ctrd_pid), answering the CRI
ctrd_start() {
	"$CONTAINERD" --config "$C/config.toml" >>"$C/containerd.log" 2>&1 8>&- &
	ctrd_pid=$!
	GM_PIDS="$GM_PIDS $ctrd_pid"
	_end=$(($(date +%s) + 180))
	ver=
	while [ "$(date +%s)" -lt "$_end" ] && _alive "$ctrd_pid"; do
		[ -S "$SOCK" ] && ver=$(cri version 2>"$C/version.err") && return 0
		sleep 1
	done
	return 1
}
t0=$(date +%s)
ctrd_start || fail_all "containerd did not answer on $SOCK: $(cat "$C/version.err" 2>/dev/null) $(clog)"
log "CRI runtime: $ver (up in $(($(date +%s) - t0)) s)"
case $ver in
"containerd 1.7."*) ;;
*) fail_all "not containerd 1.7: '$ver'" ;;
esac

# The image: an OCI layout of one layer (busybox, quota-alloc as /qa), its
# entrypoint a long sleep (the pods' sandbox), imported into k8s.io.
mkimage() {
	_i=$C/img
	mkdir -p "$_i/rootfs/bin" "$_i/rootfs/dev" "$_i/rootfs/proc" "$_i/rootfs/sys" \
		"$_i/rootfs/tmp" "$_i/rootfs/etc" "$_i/oci/blobs/sha256"
	cp /bin/busybox "$_i/rootfs/bin/busybox" && cp "$QA" "$_i/rootfs/qa" || return 1
	(cd "$_i/rootfs" && tar -cf "$_i/layer.tar" .) || return 1
	_ld=$(sha256sum "$_i/layer.tar" | cut -d' ' -f1)
	_ls=$(wc -c <"$_i/layer.tar")
	mv "$_i/layer.tar" "$_i/oci/blobs/sha256/$_ld"
	printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/bin/busybox","sleep","100000"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$_ld" >"$_i/cfg"
	_cd=$(sha256sum "$_i/cfg" | cut -d' ' -f1)
	_cs=$(wc -c <"$_i/cfg")
	mv "$_i/cfg" "$_i/oci/blobs/sha256/$_cd"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}' \
		"$_cd" "$_cs" "$_ld" "$_ls" >"$_i/man"
	_md=$(sha256sum "$_i/man" | cut -d' ' -f1)
	_ms=$(wc -c <"$_i/man")
	mv "$_i/man" "$_i/oci/blobs/sha256/$_md"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"1"}}]}' \
		"$_md" "$_ms" "$IMG" >"$_i/oci/index.json"
	echo '{"imageLayoutVersion":"1.0.0"}' >"$_i/oci/oci-layout"
	(cd "$_i/oci" && tar -cf "$_i/image.tar" oci-layout index.json blobs)
}
mkimage || fail_all "cannot make the image"
"$CTR" -a "$SOCK" -n k8s.io images import --snapshotter native "$C/img/image.tar" \
	>"$C/import.out" 2>&1 || fail_all "ctr images import failed: $(cat "$C/import.out")"
_end=$(($(date +%s) + 60))
until cri image "$IMG" >"$C/image.id" 2>"$C/image.err"; do
	[ "$(date +%s)" -ge "$_end" ] && fail_all "the CRI plugin does not know $IMG: $(cat "$C/image.err")"
	sleep 1
done
log "image $IMG: $(cat "$C/image.id"); set up in $(($(date +%s) - t0)) s"

# runp NAME UID NAMESPACE HANDLER [ANNOTATION-JSON]: kubelet's part (the
# pod's cgroup) and RunPodSandbox; NAME_pod is the sandbox id, NAME_cg the
# pod's cgroup, $C/cfg/NAME.pod its configuration.
PODS=
runp() {
	_cgp=/kubepods/burstable/pod$2
	eval "$1_cg=$_cgp"
	mkcgroup "$GM_CGROOT$_cgp" || { tc_fail "cannot create $_cgp"; return 1; }
	mkdir -p "$C/logs/$1"
	printf '{"metadata":{"name":"%s","uid":"%s","namespace":"%s"},"logDirectory":"%s","annotations":{%s},"linux":{"cgroupParent":"%s","securityContext":{"namespaceOptions":{"network":"NODE"}}}}' \
		"$1" "$2" "$3" "$C/logs/$1" "${5:-}" "$_cgp" >"$C/cfg/$1.pod"
	_id=$(cri runp "$C/cfg/$1.pod" "$4" 2>"$C/$1.runp.err") ||
		{ tc_fail "RunPodSandbox $1: $(cat "$C/$1.runp.err") $(clog)"; return 1; }
	eval "$1_pod=$_id"
	PODS="$PODS $_id"
	log "pod $1 ($3, handler $4): sandbox $_id in $_cgp"
}
# crun POD NAME CDI-JSON [ANNOTATION-JSON]: CreateContainer and
# StartContainer of quota-alloc holding 3 x 1 MiB (NAME_id is the
# container's id), then wait for its READY in its CRI log (copied to
# $GM_TMP/NAME.out without the CRI log prefix); 1 if it was not created
# (tc_fail), its start was refused or it never got READY
# ($C/NAME.start.err says why).
crun() {
	printf '{"metadata":{"name":"%s"},"image":{"image":"%s"},"command":["/qa","hold","-n","3","-s","1M","-t","600","-c","gm-%s"],"logPath":"%s.log","annotations":{%s},%s"linux":{"securityContext":{"capabilities":{"addCapabilities":["SYS_ADMIN"]},"namespaceOptions":{"network":"NODE","pid":"CONTAINER"}}}}' \
		"$2" "$IMG" "$2" "$2" "${4:-}" "$3" >"$C/cfg/$2.ctr"
	eval "_pid=\$${1}_pod"
	_out=$(cri create "$_pid" "$C/cfg/$2.ctr" "$C/cfg/$1.pod" -- start @ 2>"$C/$2.start.err")
	_rc=$?
	_id=$(echo "$_out" | head -n 1)
	eval "$2_id=$_id"
	if [ -z "$_id" ]; then
		tc_fail "CreateContainer $2: $(cat "$C/$2.start.err") $(clog)"
		return 1
	fi
	log "container $2: $_id"
	[ "$_rc" = 0 ] || return 1
	_log=$C/logs/$1/$2.log
	_end=$(($(date +%s) + 120))
	_n=0
	while [ "$(date +%s)" -lt "$_end" ]; do
		[ -e "$_log" ] && sed 's/^[^ ]* [^ ]* [^ ]* //' "$_log" >"$GM_TMP/$2.out"
		grep -q '^READY ' "$GM_TMP/$2.out" 2>/dev/null && return 0
		_n=$((_n + 1))
		if [ $((_n % 10)) = 0 ]; then
			case $(cri status "$_id" 2>&1) in
			CONTAINER_EXITED*) echo "exited: $(cri status "$_id" 2>&1)" >"$C/$2.start.err"; return 1 ;;
			esac
		fi
		sleep "$GM_TICK"
	done
	echo "no READY in 120 s: $(cat "$GM_TMP/$2.out" 2>/dev/null)" >"$C/$2.start.err"
	return 1
}
# endp NAME: StopPodSandbox + RemovePodSandbox (its containers go with it),
# then kubelet's part: the pod's cgroup removed
endp() {
	eval "_id=\${${1}_pod:-}"
	[ -n "$_id" ] || return 0
	cri stopp "$_id" -- rmp "$_id" 2>"$C/$1.endp.err" ||
		tc_fail "StopPodSandbox/RemovePodSandbox $1: $(cat "$C/$1.endp.err")"
	PODS=$(echo "$PODS" | tr ' ' '\n' | grep -vx "$_id" | tr '\n' ' ')
	eval "_cg=\$${1}_cg"
	rmdir "$GM_CGROOT$_cg" || tc_fail "cannot remove $1's cgroup $_cg"
	# (gone: not the exit's to remove)
	grep -vxF "$GM_CGROOT$_cg" "$GM_TMP/cgroups" >"$GM_TMP/cgroups.new"
	mv "$GM_TMP/cgroups.new" "$GM_TMP/cgroups"
	eval "$1_pod="
}
plim() { "$CTL" limit list --json | grep "\"cgroup\":\"$1\"" | sort; }
# ccheck NAME CGROUP-OF-POD DEVICE MAX GOT DENIED: the container's cgroup
# (runc's, POD/ID), its one limit, what quota-alloc got
ccheck() {
	eval "_id=\$${1}_id"
	_cg=$2/$_id
	_pid=$(cri status "$_id" | sed -n 's/.* pid=\([0-9]*\) .*/\1/p')
	tc_eq "$1: its process's cgroup" "$(sed -n 's/^0:://p' "/proc/$_pid/cgroup" 2>/dev/null)" "$_cg"
	ev_check "$(plim "$_cg")" cgroup_id="$(cgid "$_cg")" device="$3" max="$4" mode=enforce
	tc_eq "$1: limits of its cgroup" "$(plim "$_cg" | grep -c .)" 1
	tc_eq "$1: got/denied" "$(out_total "$1" ok) $(out_total "$1" denied)" "$5 $6"
}
CDI_FIELD="\"CDI_devices\":[{\"name\":\"gpumem.io/gpu=$pci\"}],"

tc_begin cri-pod-default
if runp p1 0a1b2c3d-0000-4000-8000-000000000001 default runc &&
	crun p1 c1 "$CDI_FIELD"; then
	ccheck c1 "$p1_cg" "$qxl" $((2 * MiB)) 2 1
	ev_check "$(plim "$p1_cg")" cgroup_id="$(cgid "$p1_cg")" device=all max=$((3 * MiB)) mode=enforce
	tc_eq "p1: limits of the pod's cgroup" "$(plim "$p1_cg" | grep -c .)" 1
	tc_eq "p1: limits of the sandbox's cgroup (no GPU, no hook)" \
		"$(plim "$p1_cg/$p1_pod" | grep -c .)" 0
else
	tc_fail "c1 did not start: $(cat "$C/c1.start.err" 2>/dev/null) $(clog)"
fi
tc_end

tc_begin cri-pod-two
# CDI by annotation, as older kubelets and device plugins pass it
if [ -n "${p1_pod:-}" ] && crun p1 c2 "" "\"cdi.k8s.io/gpumem\":\"gpumem.io/gpu=$pci\""; then
	# c1 holds 2 MiB of the pod's 3: c2 gets 1 of its 2
	ccheck c2 "$p1_cg" "$qxl" $((2 * MiB)) 1 2
	tc_eq "p1: usage of the pod's cgroup" "$(cg_usage "$p1_cg" all)" $((3 * MiB))
	tc_eq "p1: denied by the pod's limit" "$(q_get "$p1_cg" all denied)" 2
else
	tc_fail "c2 did not start: $(cat "$C/c2.start.err" 2>/dev/null) $(clog)"
fi
tc_end

tc_begin cri-pod-gone
endp p1
[ -d "$GM_CGROOT$p1_cg" ] && tc_fail "p1's cgroup is still there"
tc_eq "limits of p1's cgroups after the pod and its cgroup went" \
	"$("$CTL" limit list --json | grep -c "\"cgroup\":\"$p1_cg")" 0
tc_end

tc_begin cri-annotation
if runp p2 0a1b2c3d-0000-4000-8000-000000000002 team-a runc '"gpumem.io/vram.max":"2M"' &&
	crun p2 c3 "$CDI_FIELD"; then
	ccheck c3 "$p2_cg" "$qxl" $((2 * MiB)) 2 1
else
	tc_fail "c3 did not start: $(cat "$C/c3.start.err" 2>/dev/null) $(clog)"
fi
endp p2
tc_end

tc_begin cri-ceiling-refuse
c4_id=
if runp p3 0a1b2c3d-0000-4000-8000-000000000003 team-a runc '"gpumem.io/vram.max":"8M"' &&
	{ ! crun p3 c4 "$CDI_FIELD" || tc_fail "c4 started above its namespace's ceiling"; } &&
	[ -n "$c4_id" ]; then
	log "c4: $(cat "$C/c4.start.err")"
	grep -q "gpumem-oci-hook: container $c4_id: annotation gpumem.io/vram.max (8388608 bytes) is above the vram.max ceiling of \[team-a\] (2097152 bytes)" \
		"$C/c4.start.err" || tc_fail "c4: StartContainer did not fail with the hook's reason: $(cat "$C/c4.start.err")"
	case $(cri status "$c4_id" 2>&1) in
	CONTAINER_RUNNING*) tc_fail "c4 is running" ;;
	esac
	grep -q '^READY' "$GM_TMP/c4.out" 2>/dev/null && tc_fail "c4: quota-alloc ran"
	tc_eq "limits below p3's cgroup" "$("$CTL" limit list --json | grep -c "\"cgroup\":\"$p3_cg")" 0
fi
endp p3
tc_end

tc_begin cri-ceiling-clamp
policy 'over-ceiling = clamp'
if runp p4 0a1b2c3d-0000-4000-8000-000000000004 team-a runc '"gpumem.io/vram.max":"8M"' &&
	crun p4 c5 "$CDI_FIELD"; then
	ccheck c5 "$p4_cg" "$qxl" $((2 * MiB)) 2 1
else
	tc_fail "c5 did not start: $(cat "$C/c5.start.err" 2>/dev/null) $(clog)"
fi
endp p4
policy
tc_end

tc_begin cri-no-pod-annotations
# the pod asks for 2M: were it passed, that would be the limit
if runp p5 0a1b2c3d-0000-4000-8000-000000000005 team-a runc-noann '"gpumem.io/vram.max":"2M"' &&
	crun p5 c6 "$CDI_FIELD"; then
	"$CTR" -a "$SOCK" -n k8s.io containers info "$c6_id" >"$C/c6.info" 2>&1
	grep -q '"io.kubernetes.cri.sandbox-namespace": "team-a"' "$C/c6.info" ||
		tc_fail "c6: no sandbox-namespace annotation in its spec: $(head -c 300 "$C/c6.info")"
	tc_eq "c6: gpumem.io/ annotations in its OCI spec" "$(grep -c '"gpumem.io/' "$C/c6.info")" 0
	# team-a's default, 1 MiB
	ccheck c6 "$p5_cg" "$qxl" "$MiB" 1 2
else
	tc_fail "c6 did not start: $(cat "$C/c6.start.err" 2>/dev/null) $(clog)"
fi
endp p5
tc_end

tc_begin cri-no-policy
# the CDI spec as shipped: the hook with the default policy path, which this node lacks
[ -e /etc/gpumem/policy.conf ] && tc_fail "the guest has an /etc/gpumem/policy.conf"
cp "$C/cdi/gpumem.json" "$C/gpumem.json.policy"
"$CTL" cdi generate -o "$C/cdi/gpumem.json" --hook "$HOOK" || tc_fail "gpumemctl cdi generate failed"
c7_id=
if runp p6 0a1b2c3d-0000-4000-8000-000000000006 team-a runc-noann '"gpumem.io/vram.max":"2M"' &&
	{ ! crun p6 c7 "$CDI_FIELD" || tc_fail "c7 started with no policy and no annotation reaching the hook"; } &&
	[ -n "$c7_id" ]; then
	log "c7: $(cat "$C/c7.start.err")"
	grep -q "gpumem-oci-hook: container $c7_id: .*no node policy" "$C/c7.start.err" ||
		tc_fail "c7: StartContainer did not fail with the hook's reason: $(cat "$C/c7.start.err")"
	tc_eq "limits below p6's cgroup" "$("$CTL" limit list --json | grep -c "\"cgroup\":\"$p6_cg")" 0
fi
endp p6
cp "$C/gpumem.json.policy" "$C/cdi/gpumem.json"
tc_end

tc_begin cri-no-cdi
kill -TERM "$ctrd_pid" 2>/dev/null
reap "$ctrd_pid" 30
sed -i 's/^  enable_cdi = true$/  enable_cdi = false/' "$C/config.toml"
grep -q '^  enable_cdi = false$' "$C/config.toml" || tc_fail "enable_cdi not turned off"
if ! ctrd_start; then
	tc_fail "containerd did not come back: $(cat "$C/version.err" 2>/dev/null) $(clog)"
elif c8_id= && runp p7 0a1b2c3d-0000-4000-8000-000000000007 default runc &&
	{ ! crun p7 c8 "$CDI_FIELD" || tc_fail "c8 got a GPU without CDI"; } && [ -n "$c8_id" ]; then
	wait_until 20 grep -q 'no qxl device' "$(ls "$C"/logs/p7/c8.log)" ||
		tc_fail "c8: not quota-alloc's 'no qxl device': $(cat "$C/c8.start.err") $(cat "$C"/logs/p7/c8.log)"
	"$CTR" -a "$SOCK" -n k8s.io containers info "$c8_id" >"$C/c8.info" 2>&1
	grep -q '"io.kubernetes.cri.sandbox-namespace": "default"' "$C/c8.info" ||
		tc_fail "c8: no sandbox-namespace annotation in its spec: $(head -c 300 "$C/c8.info")"
	tc_eq "c8: gpumem-oci-hook in its OCI spec" "$(grep -c 'gpumem-oci-hook' "$C/c8.info")" 0
	tc_eq "c8: /dev/dri in its OCI spec" "$(grep -c '/dev/dri' "$C/c8.info")" 0
	tc_eq "limits below p7's cgroup" "$("$CTL" limit list --json | grep -c "\"cgroup\":\"$p7_cg")" 0
fi
endp p7
tc_end

# everything the CRI made goes, then containerd
for _id in $PODS; do
	cri stopp "$_id" -- rmp "$_id" 2>/dev/null
done
kill -TERM "$ctrd_pid" 2>/dev/null
reap "$ctrd_pid" 30
grep " $C/" /proc/mounts | awk '{ print $2 }' | sort -r | while read -r _m; do umount "$_m"; done
for _f in $made_etc; do rm -f "$_f"; done
log "containerd's last lines: $(clog)"
finish
