// SPDX-License-Identifier: GPL-2.0
/*
 * gpumemd_kube.c - the pod UID and container id in a kubelet cgroup path,
 * for the pod_uid and container_id labels a dashboard joins with
 * kube-state-metrics (docs/metrics.md).
 */
#include <ctype.h>
#include <string.h>

#include "gpumemd.h"

/* The runtimes' prefixes of a container's systemd scope (<prefix>-<id>.scope). */
static const char *const scope_prefixes[] = { "cri-containerd-", "crio-", "cri-o-", "docker-" };

/* a pod UID: hex digits and dashes (or underscores, systemd), 32 digits */
static bool copy_uid(const char *s, size_t len, char pod[GD_POD_UID_LEN])
{
	size_t i, digits = 0;

	if (len >= GD_POD_UID_LEN)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '_' || c == '-') {
			pod[i] = '-';
			continue;
		}
		if (!isxdigit((unsigned char)c))
			return false;
		pod[i] = (char)tolower((unsigned char)c);
		digits++;
	}
	pod[len] = '\0';
	return digits == 32;
}

/* a container id: 64 hex digits (docker, containerd and CRI-O all use them) */
static bool copy_cid(const char *s, size_t len, char cid[GD_CONTAINER_ID_LEN])
{
	size_t i;

	if (len == 0 || len >= GD_CONTAINER_ID_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	memcpy(cid, s, len);
	cid[len] = '\0';
	return true;
}

/* component [s, s + len) as a pod: "pod<uid>" or "kubepods[-qos]-pod<uid>.slice" */
static bool pod_component(const char *s, size_t len, char pod[GD_POD_UID_LEN])
{
	const char *p;

	if (len > 6 && strncmp(s + len - 6, ".slice", 6) == 0) {
		if (strncmp(s, "kubepods-", 9) != 0)
			return false;
		for (p = s + len - 6; p - 4 > s; p--)
			if (strncmp(p - 4, "-pod", 4) == 0)
				break;
		if (p - 4 <= s)
			return false;
		return copy_uid(p, (size_t)(s + len - 6 - p), pod);
	}
	return len > 3 && strncmp(s, "pod", 3) == 0 && copy_uid(s + 3, len - 3, pod);
}

/* component [s, s + len) as a container: "<prefix>-<id>.scope" or "<id>" */
static bool container_component(const char *s, size_t len, char cid[GD_CONTAINER_ID_LEN])
{
	size_t i;

	if (len > 6 && strncmp(s + len - 6, ".scope", 6) == 0) {
		for (i = 0; i < sizeof(scope_prefixes) / sizeof(*scope_prefixes); i++) {
			size_t pl = strlen(scope_prefixes[i]);

			if (len > pl + 6 && strncmp(s, scope_prefixes[i], pl) == 0)
				return copy_cid(s + pl, len - pl - 6, cid);
		}
		return false;
	}
	return copy_cid(s, len, cid);
}

bool gd_kube_ids(const char *path, char pod[GD_POD_UID_LEN], char cid[GD_CONTAINER_ID_LEN])
{
	const char *s = path, *e;
	bool in_kubepods = false, found = false;

	pod[0] = cid[0] = '\0';
	if (!path)
		return false;
	while (*s) {
		size_t len;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		e = strchr(s, '/');
		len = e ? (size_t)(e - s) : strlen(s);
		if (!in_kubepods) {
			/* cgroupfs "kubepods", systemd "kubepods.slice" and its children */
			in_kubepods = (len == 8 && strncmp(s, "kubepods", 8) == 0) ||
				      (len == 14 && strncmp(s, "kubepods.slice", 14) == 0) ||
				      (len > 9 && strncmp(s, "kubepods-", 9) == 0);
			if (in_kubepods && pod_component(s, len, pod))
				found = true;
		} else if (!found) {
			found = pod_component(s, len, pod);
		} else {
			/* the component right below the pod is the container */
			if (!container_component(s, len, cid))
				cid[0] = '\0';
			break;
		}
		s += len;
	}
	if (!found)
		pod[0] = cid[0] = '\0';
	return found;
}
