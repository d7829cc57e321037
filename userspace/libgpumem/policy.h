/* SPDX-License-Identifier: GPL-2.0 */
/*
 * policy.h - the node's VRAM policy (an INI file the admin owns,
 * /etc/gpumem/policy.conf, parsed by libinih) and the decision it makes for
 * one container from the annotations its runtime passes: the limit of the
 * container's cgroup and of its pod's cgroup. Used by gpumem-oci-hook (to
 * set them) and `gpumemctl policy check` (to explain them). No I/O but the
 * policy file; no netlink.
 *
 * The file (docs/oci-hook.md, "Node policy"):
 *
 *   [defaults]
 *   vram.max = 8G          ; a container that asks for nothing gets this
 *   vram.ceiling = 16G     ; the most a container's annotation may ask
 *   pod-vram.max = 24G     ; a Kubernetes pod (all its containers) ...
 *   pod-vram.ceiling = 32G
 *   mode = enforce         ; enforce | monitor: an annotation may not weaken it
 *   over-ceiling = refuse  ; refuse | clamp an annotation above the ceiling
 *
 *   [namespace:ml-team]    ; a Kubernetes namespace's own values (each key
 *   vram.max = 4G          ; missing here is taken from [defaults])
 *
 * A size is what parse_limit_size() takes, or "none" (no limit) for the
 * defaults, or 0 for vram.max and pod-vram.max (no VRAM at all: every
 * allocation denied).
 */
#ifndef GPUMEM_POLICY_H
#define GPUMEM_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GM_POLICY_PATH "/etc/gpumem/policy.conf"
#define GM_POLICY_NS_LEN 64	/* a Kubernetes namespace: at most 63 bytes */
#define GM_POLICY_NOTE_LEN 1024

/* One optional size of a policy section; "none" is set with no limit. */
struct gm_policy_size {
	bool set;		/* the key was given */
	bool none;		/* ... as "none" */
	uint64_t bytes;
};

/* One section: [defaults] or [namespace:NAME]. */
struct gm_policy_scope {
	char ns[GM_POLICY_NS_LEN];	/* "" for [defaults] */
	struct gm_policy_size max, ceiling, pod_max, pod_ceiling;
	bool has_mode;
	uint32_t mode;			/* enum gpumem_limit_mode */
};

/* A parsed policy file; zeroed: no policy (annotations alone decide). */
struct gm_policy {
	bool loaded;
	bool clamp;			/* over-ceiling = clamp */
	struct gm_policy_scope defaults;
	struct gm_policy_scope *ns;	/* the [namespace:...] sections */
	size_t nns;
};

/*
 * gm_policy_load: parse path into p. A file that does not exist is no
 * policy (0, p->loaded false) when missing_ok; any other failure (a
 * syntax error, an unknown section or key, a bad size, a duplicate, a file
 * not owned by root or writable by others than its owner) is -1 with the
 * file, line and reason in err. Free with gm_policy_free().
 */
int gm_policy_load(const char *path, bool missing_ok, struct gm_policy *p,
		   char *err, size_t errlen);
void gm_policy_free(struct gm_policy *p);

/* An annotation of the container (OCI state or config, or a pod's metadata). */
struct gm_annotation {
	const char *key;
	const char *value;
};

/* One limit to set: max and/or high, and the mode. */
struct gm_policy_limit {
	bool set;
	bool has_max, has_high;
	uint64_t max, high;
	uint32_t mode;
};

/*
 * What a container gets. ctr goes on the container's cgroup (on every
 * device, or on each of devices when the gpumem.io/devices annotation
 * names some; then ctr_all, when set, caps all devices together as the
 * policy's own value), pod on its parent, the pod's cgroup (Kubernetes
 * containers only, or with gpumem.io/pod-vram.max). note explains it, a
 * line per fact, for `gpumemctl policy check` and the hook's warnings.
 */
struct gm_policy_decision {
	char ns[GM_POLICY_NS_LEN];	/* the runtime's namespace, "" if none */
	bool kubernetes;		/* the runtime said which namespace */
	struct gm_policy_limit ctr, ctr_all, pod;
	const char *devices;		/* gpumem.io/devices, or NULL */
	bool clamped;			/* an annotation was lowered */
	char note[GM_POLICY_NOTE_LEN];
};

/*
 * gm_policy_decide: the decision for a container with annotations ann[n]
 * under policy p (zeroed: no policy). -1 with err when the container must
 * be refused: a bad gpumem.io/ annotation, an annotation above a ceiling
 * under over-ceiling = refuse, a weaker mode than the policy's, the
 * runtime's namespace annotations disagreeing. The decision keeps pointers
 * into ann's values (devices).
 */
int gm_policy_decide(const struct gm_policy *p, const struct gm_annotation *ann, size_t n,
		     struct gm_policy_decision *d, char *err, size_t errlen);

#endif /* GPUMEM_POLICY_H */
