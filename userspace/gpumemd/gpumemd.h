/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumemd.h - what the parts of gpumemd, gpumem's node agent, share: the
 * Kubernetes ids of a cgroup path (gpumemd_kube.c), the event counters the
 * event thread keeps and a scrape reads, and the scrape itself
 * (gpumemd_metrics.c: the Prometheus text of one fresh look at the kernel).
 */
#ifndef GPUMEMD_H
#define GPUMEMD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "0f1e2d3c-..." (36) and a container id (64 hex digits) with room to spare */
#define GD_POD_UID_LEN 48
#define GD_CONTAINER_ID_LEN 80

/**
 * gd_kube_ids() - the pod UID and container id a kubelet cgroup path names
 * @path: a cgroup v2 path (host's, or relative with "/.." parts)
 * @pod: where the pod UID goes, with dashes ("" if none)
 * @cid: where the container id goes ("" if none)
 *
 * Knows the cgroupfs driver's ".../kubepods[/burstable|/besteffort]/pod<uid>/<cid>"
 * and the systemd driver's ".../kubepods[-burstable|-besteffort]-pod<uid_with_
 * underscores>.slice/<runtime>-<cid>.scope" with the runtime prefixes
 * cri-containerd, crio, docker and cri-o; a path without a pod (a system
 * service, the root) gives "" for both, a pod slice without a container
 * (the limit on a whole pod) the pod alone.
 *
 * Return: true if a pod UID was found.
 */
bool gd_kube_ids(const char *path, char pod[GD_POD_UID_LEN], char cid[GD_CONTAINER_ID_LEN]);

/* The event thread's counters, read by every scrape (under lock). */
struct gd_events {
	pthread_mutex_t lock;
	uint64_t *by_type;	/* per enum gpumem_event_type value, ntypes of them */
	size_t ntypes;
	uint64_t unknown;	/* events of a type the spec does not name */
	uint64_t dmem;		/* of them, refusals the dmem controller made (source dmem) */
	uint64_t lost;		/* sequence gaps (events the socket dropped) */
	uint64_t overflows;	/* receive buffer overflows (ENOBUFS) */
	uint64_t suppressed;	/* events the module rate-limited (their "suppressed") */
	uint64_t reconnects;	/* subscriptions made after the first */
	bool subscribed;	/* in the events group now */
	bool enabled;		/* an event thread runs */
};

/**
 * gd_events_init() - counters at zero for every event type of the spec
 * @ev: the counters
 *
 * Return: 0 or -ENOMEM.
 */
int gd_events_init(struct gd_events *ev);

/* Which per-process series a scrape writes (--process-metrics). */
enum gd_process_metrics {
	GD_PROCS_AUTO,	/* while the node has at most GD_PROCS_AUTO_MAX process rows */
	GD_PROCS_ON,
	GD_PROCS_OFF,	/* none: the per-cgroup (pod, container) series only */
};

#define GD_PROCS_AUTO_MAX 500	/* also in gpumem_process_metrics' HELP */

/* How a scrape is made. */
struct gd_scrape_opts {
	enum gd_process_metrics procs;
};

/**
 * gd_scrape() - look at the kernel afresh and write the Prometheus text
 * @f: where the text goes
 * @ev: the event counters (NULL: none are written)
 * @opts: what to write (NULL: the defaults)
 *
 * A new netlink connection per call. gpumem_up is 1 when the family answered
 * a device dump, 0 when it is not registered (the module is not loaded) or
 * did not answer; with 0 nothing else comes from the kernel. The family is
 * looked for by a dump of nlctrl's families first, which, unlike a look-up
 * by name, never loads the module.
 *
 * Return: 1 if gpumem was up, 0 if not.
 */
int gd_scrape(FILE *f, struct gd_events *ev, const struct gd_scrape_opts *opts);

#endif
