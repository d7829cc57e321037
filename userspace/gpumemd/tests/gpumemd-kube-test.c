// SPDX-License-Identifier: GPL-2.0
/*
 * gpumemd-kube-test.c - unit tests of gd_kube_ids() (gpumemd_kube.c): the
 * pod UID and container id of kubelet cgroup paths, cgroupfs and systemd
 * drivers, every runtime prefix, and paths that name no pod.
 *
 *   ./tests/test_gpumemd      (make check runs it; exit status 1 on a failure)
 */
#include <stdio.h>
#include <string.h>

#include "../gpumemd.h"

#define UID "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
#define UID_ "0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0"
#define CID "4c0ffee1d2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"

static int nfail, ntest;

static void check(const char *path, const char *pod, const char *cid)
{
	char p[GD_POD_UID_LEN], c[GD_CONTAINER_ID_LEN];
	bool found = gd_kube_ids(path, p, c);

	ntest++;
	if (strcmp(p, pod) != 0 || strcmp(c, cid) != 0 || found != (pod[0] != '\0')) {
		nfail++;
		printf("FAIL %s\n  got pod \"%s\" container \"%s\" (found %d), want \"%s\" \"%s\"\n",
		       path ? path : "(null)", p, c, found, pod, cid);
	}
}

int main(void)
{
	/* cgroupfs driver */
	check("/kubepods/burstable/pod" UID "/" CID, UID, CID);
	check("/kubepods/besteffort/pod" UID "/" CID, UID, CID);
	check("/kubepods/pod" UID "/" CID, UID, CID);	/* guaranteed: no QoS level */
	check("/kubepods/burstable/pod" UID, UID, "");	/* the pod's own cgroup */
	/* systemd driver, every runtime */
	check("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	      ".slice/cri-containerd-" CID ".scope", UID, CID);
	check("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	      ".slice/crio-" CID ".scope", UID, CID);
	check("/kubepods.slice/kubepods-pod" UID_ ".slice/docker-" CID ".scope", UID, CID);
	check("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-o-" CID ".scope", UID, CID);
	check("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
	      UID, "");
	/* the kubelet's own sandbox scope (crio-conmon-...) is no container */
	check("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" CID ".scope", UID, "");
	/* seen from a cgroup namespace below the root (proc-get in a pod) */
	check("/../../kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope",
	      UID, CID);
	/* a container's own child cgroup: still that container */
	check("/kubepods/burstable/pod" UID "/" CID "/init", UID, CID);
	/* no pod */
	check("/", "", "");
	check("", "", "");
	check(NULL, "", "");
	check("/system.slice/docker-" CID ".scope", "", "");
	check("/kubepods.slice/kubepods-burstable.slice", "", "");
	check("/kubepods/burstable", "", "");
	check("/user.slice/pod" UID, "", "");	/* "pod<uid>" outside kubepods */
	check("/kubepods/burstable/podnot-a-uid/" CID, "", "");
	check("/kubepods/burstable/pod" UID "/not-hex", UID, "");
	check("/kubepodsx/pod" UID "/" CID, "", "");
	check("/kubepods.slice/kubepods-burstable-pod.slice", "", "");
	printf("gd_kube_ids: %d tests, %d failed\n", ntest, nfail);
	return nfail ? 1 : 0;
}
