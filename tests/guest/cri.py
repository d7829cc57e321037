# SPDX-License-Identifier: GPL-2.0
"""cri.py - a small CRI client (what kubelet asks of a container runtime),
for tests/guest/77-containerd.sh: Debian has no crictl. The messages are
those of tests/guest/cri.proto (k8s.io/cri-api runtime.v1, only the fields
used), compiled by scripts/mkinitramfs.sh into cri_pb2.py next to this file.
Configurations are JSON files in protobuf's JSON mapping of PodSandboxConfig
and ContainerConfig.

Usage: cri.py -s SOCKET COMMAND ARGS...
  version                        runtime name and version
  image NAME                     the image's id (exit 1 if unknown)
  runp POD.json [HANDLER]        RunPodSandbox: prints the sandbox id
  create POD-ID CTR.json POD.json  CreateContainer: prints the container id
  start ID | stop ID | rm ID     StartContainer, StopContainer (0 s), RemoveContainer
  status ID                      "STATE pid=PID exit=N reason=R"
  stopp ID | rmp ID              StopPodSandbox, RemovePodSandbox
  check                          loads what a run loads (the image builder's probe)
Several commands in one run (python and grpc start slowly in the guest):
COMMAND ARGS... -- COMMAND ARGS... ; an argument "@" is the id the command
before printed (create P C.json POD.json -- start @).
A refused request: "cri.py: METHOD: CODE: DETAILS" on stderr, exit 1 (the
commands after it are not run).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402

import cri_pb2 as pb  # noqa: E402

TIMEOUT = 300	# seconds per request: the debug kernel is slow


class Client:
    def __init__(self, sock):
        self.ch = grpc.insecure_channel("unix://" + sock)

    def call(self, service, method, req, resp_type):
        fn = self.ch.unary_unary("/runtime.v1.%s/%s" % (service, method),
                                 request_serializer=lambda m: m.SerializeToString(),
                                 response_deserializer=resp_type.FromString)
        try:
            return fn(req, timeout=TIMEOUT)
        except grpc.RpcError as e:
            msg = " ".join(str(e.details()).split())
            sys.stderr.write("cri.py: %s: %s: %s\n" % (method, e.code().name, msg))
            sys.exit(1)

    def rt(self, method, req, resp_type):
        return self.call("RuntimeService", method, req, resp_type)


def load(path, msg):
    with open(path) as f:
        return json_format.Parse(f.read(), msg)


def main(argv):
    if len(argv) >= 2 and argv[0] == "-s":
        sock, argv = argv[1], argv[2:]
    else:
        sock = os.environ.get("CRI_SOCK", "/run/containerd/containerd.sock")
    if not argv:
        sys.exit(__doc__)
    if argv[0] == "check":
        # everything a real run loads: JSON parsing, a channel, a failed call
        json_format.Parse('{"metadata":{"name":"x"},"linux":{"securityContext":'
                          '{"namespaceOptions":{"network":"NODE"}}}}', pb.PodSandboxConfig())
        fn = grpc.insecure_channel("unix:///nonexistent/cri.sock").unary_unary(
            "/runtime.v1.RuntimeService/Version",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=pb.VersionResponse.FromString)
        try:
            fn(pb.VersionRequest(), timeout=1)
        except grpc.RpcError as e:
            print("ok", e.code().name, json.dumps({}))
            return
        sys.exit("cri.py: a call to no socket did not fail")
    c = Client(sock)
    last = ""
    while argv:
        n = argv.index("--") if "--" in argv else len(argv)
        cmd, args = argv[0], [last if a == "@" else a for a in argv[1:n]]
        argv = argv[n + 1:]
        last = run(c, cmd, args) or last


def run(c, cmd, args):
    """One command; the id it printed, if any."""
    out = None
    if cmd == "version":
        r = c.rt("Version", pb.VersionRequest(version="v1"), pb.VersionResponse)
        print(r.runtime_name, r.runtime_version, r.runtime_api_version)
    elif cmd == "image":
        r = c.call("ImageService", "ImageStatus",
                   pb.ImageStatusRequest(image=pb.ImageSpec(image=args[0])),
                   pb.ImageStatusResponse)
        if not r.image.id:
            sys.stderr.write("cri.py: no image %s\n" % args[0])
            sys.exit(1)
        out = r.image.id
    elif cmd == "runp":
        req = pb.RunPodSandboxRequest(config=load(args[0], pb.PodSandboxConfig()),
                                      runtime_handler=args[1] if len(args) > 1 else "")
        out = c.rt("RunPodSandbox", req, pb.RunPodSandboxResponse).pod_sandbox_id
    elif cmd == "create":
        req = pb.CreateContainerRequest(pod_sandbox_id=args[0],
                                        config=load(args[1], pb.ContainerConfig()),
                                        sandbox_config=load(args[2], pb.PodSandboxConfig()))
        out = c.rt("CreateContainer", req, pb.CreateContainerResponse).container_id
    elif cmd == "start":
        c.rt("StartContainer", pb.StartContainerRequest(container_id=args[0]),
             pb.StartContainerResponse)
    elif cmd == "stop":
        c.rt("StopContainer", pb.StopContainerRequest(container_id=args[0], timeout=0),
             pb.StopContainerResponse)
    elif cmd == "rm":
        c.rt("RemoveContainer", pb.RemoveContainerRequest(container_id=args[0]),
             pb.RemoveContainerResponse)
    elif cmd == "status":
        r = c.rt("ContainerStatus", pb.ContainerStatusRequest(container_id=args[0], verbose=True),
                 pb.ContainerStatusResponse)
        pid = json.loads(r.info["info"]).get("pid", 0) if "info" in r.info else 0
        print("%s pid=%d exit=%d reason=%s" % (pb.ContainerState.Name(r.status.state), pid,
                                               r.status.exit_code, r.status.reason or "-"))
    elif cmd == "stopp":
        c.rt("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=args[0]),
             pb.StopPodSandboxResponse)
    elif cmd == "rmp":
        c.rt("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=args[0]),
             pb.RemovePodSandboxResponse)
    else:
        sys.exit("cri.py: unknown command %s\n%s" % (cmd, __doc__))
    if out is not None:
        print(out)
        sys.stdout.flush()
    return out

if __name__ == "__main__":
    main(sys.argv[1:])
