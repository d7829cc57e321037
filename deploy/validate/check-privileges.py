#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-privileges.py FILE: the DaemonSet of FILE against the Pod Security
Standards and gpumem's least-privilege split (deploy/kubernetes).

- pss: the pod template's violations of the "baseline" level (host
  namespaces, host ports, privileged, capabilities beyond baseline's list,
  hostPath volumes) are listed; if there are any, the Namespace the
  DaemonSet runs in (a document of FILE) must enforce "privileged", or
  the pods are rejected at admission.
- least-privilege: no container both holds an added capability and can be
  reached over the network (a port, a hostPort, a --listen or
  --secure-listen-address that is not loopback); every reachable container
  runs as non-root with all capabilities dropped; gpumemd containers that
  add SYS_ADMIN run with --no-listen; the gpumemd metrics container listens
  on loopback only.
Prints "ok ..." or "FAIL ..." lines; exits 1 on a failure.
"""
import sys

import yaml

# Pod Security Standards, baseline: the capabilities a pod may add
BASELINE_CAPS = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
                 "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
LOOPBACK = ("127.0.0.1:", "[::1]:", "localhost:")


def baseline_violations(pod):
    v = [f"{k}: true" for k in ("hostNetwork", "hostPID", "hostIPC") if pod.get(k)]
    v += [f"volume {vol.get('name')}: hostPath" for vol in pod.get("volumes") or [] if "hostPath" in vol]
    for c in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        sc = c.get("securityContext") or {}
        if sc.get("privileged"):
            v.append(f"container {c['name']}: privileged")
        extra = set((sc.get("capabilities") or {}).get("add") or []) - BASELINE_CAPS
        if extra:
            v.append(f"container {c['name']}: capabilities {sorted(extra)}")
        v += [f"container {c['name']}: hostPort {p['hostPort']}" for p in c.get("ports") or []
              if p.get("hostPort")]
    return v


def listen_addrs(c):
    out = []
    for a in (c.get("args") or []) + (c.get("command") or []):
        for opt in ("--listen=", "--secure-listen-address="):
            if a.startswith(opt):
                out.append(a[len(opt):])
    return out


def main(path):
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    fails = []
    namespaces = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Namespace"}
    sets = [d for d in docs if d.get("kind") == "DaemonSet"]
    if not sets:
        fails.append(f"{path}: no DaemonSet")
    for ds in sets:
        pod = ds["spec"]["template"]["spec"]
        name = ds["metadata"]["name"]
        ns = ds["metadata"].get("namespace", "default")
        v = baseline_violations(pod)
        level = (namespaces.get(ns, {}).get("metadata", {}).get("labels") or {}).get(
            "pod-security.kubernetes.io/enforce")
        if v and level != "privileged":
            fails.append(f"pss: DaemonSet {name} needs the privileged level ({'; '.join(v)}), "
                         f"namespace {ns} enforces {level or 'nothing in this file'}")
        else:
            print(f"ok pss: {name} in {ns} (enforce={level}): {len(v)} baseline violations: "
                  f"{'; '.join(v)}")
        for c in pod.get("containers") or []:
            sc = c.get("securityContext") or {}
            caps = sc.get("capabilities") or {}
            added = caps.get("add") or []
            addrs = listen_addrs(c)
            exposed = bool(c.get("ports")) or any(not a.startswith(LOOPBACK) for a in addrs)
            cname = c["name"]
            if exposed and added:
                fails.append(f"least-privilege: container {cname} is reachable ({addrs or 'ports'}) "
                             f"and adds {added}")
            if exposed and ("ALL" not in (caps.get("drop") or []) or not sc.get("runAsNonRoot")):
                fails.append(f"least-privilege: container {cname} is reachable but does not drop "
                             "ALL capabilities and run as non-root")
            gpumemd = "gpumemd" in str(c.get("image", ""))
            if gpumemd and "SYS_ADMIN" in added and "--no-listen" not in (c.get("args") or []):
                fails.append(f"least-privilege: gpumemd container {cname} holds SYS_ADMIN without --no-listen")
            if gpumemd and "--no-listen" not in (c.get("args") or []) and \
                    not (addrs and all(a.startswith(LOOPBACK) for a in addrs)):
                fails.append(f"least-privilege: gpumemd container {cname} serves HTTP beyond loopback "
                             f"({addrs or 'its default'})")
            print(f"  container {cname}: adds {added or 'nothing'}, "
                  f"{'reachable' if exposed else 'not reachable'} {addrs}")
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
