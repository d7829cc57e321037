// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem-oci-hook.c - an OCI runtime hook (createRuntime; prestart works
 * the same) that sets a container's gpumem VRAM limits, and its pod's, from
 * the node policy (libgpumem/policy.h: defaults and ceilings per
 * Kubernetes namespace, the namespace taken from the runtime's own
 * annotations) and the container's annotations, which may only lower it:
 *
 *   gpumem.io/vram.max      a size ("8G", "512MiB", "1073741824")
 *   gpumem.io/vram.high     a size, at most vram.max
 *   gpumem.io/pod-vram.max  a size: the pod's cgroup (the container's parent)
 *   gpumem.io/mode          enforce (default) | monitor
 *   gpumem.io/devices       cardN names or PCI addresses, comma or blank
 *                           separated; none: one limit on all devices
 *
 * Usage: gpumem-oci-hook [--fail-open] [--policy FILE] [--device PCI|all]... < STATE
 * (see gpumem-oci-hook(8))
 *
 * The OCI state (stdin, JSON) gives the container's host pid, its bundle
 * and its annotations. The cgroup is the pid's cgroup v2 path
 * (/proc/PID/cgroup "0::/path"); the bundle's config.json
 * linux.cgroupsPath, when present, must name that cgroup or one of its
 * ancestors (which is then the one limited). A device name is looked up
 * in sysfs (/sys/class/drm/cardN/device, never a DRM node opened) and in
 * gpumem's device list. Every limit is set through libgpumem; if one
 * cannot be set, those already set are deleted. Fail closed: any error
 * refuses the container (exit 1, one line on stderr) unless --fail-open
 * (or GPUMEM_HOOK_FAIL_OPEN=1) makes it a warning with exit 0; either way
 * no limit is left behind.
 *
 * For the host unit tests only: GPUMEM_SYSROOT=DIR reads DIR/proc,
 * DIR/sys/class/drm and DIR/sys/fs/cgroup (a plain directory tree: the
 * cgroup id is the inode of DIR/sys/fs/cgroup/PATH) and DIR/etc/gpumem/policy.conf
 * instead of the host's.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "annotations.h"
#include "drm_cards.h"
#include "libgpumem.h"
#include "policy.h"

#define PREFIX "gpumem.io/"
#define MAX_DEVS 64
#define STATE_MAX (1 << 20)	/* bytes of OCI state read at most */

static const char help[] =
	"Usage: gpumem-oci-hook [--fail-open] [--policy FILE] < OCI-STATE\n"
	"\n"
	"An OCI runtime hook (createRuntime or prestart): reads the container's\n"
	"state from standard input and sets gpumem VRAM limits on its cgroup, and on\n"
	"its pod's cgroup, from the node policy (" GM_POLICY_PATH ", if it\n"
	"exists: defaults and ceilings per Kubernetes namespace) and the annotations\n"
	"gpumem.io/vram.max, gpumem.io/vram.high, gpumem.io/pod-vram.max,\n"
	"gpumem.io/mode (enforce|monitor) and gpumem.io/devices (cardN or PCI\n"
	"addresses; none: all devices). An annotation may only lower what the\n"
	"policy allows. Without a policy, a container without gpumem.io/ annotations\n"
	"is left alone.\n"
	"\n"
	"  --policy FILE the node policy (it must exist; default " GM_POLICY_PATH ",\n"
	"                none if it does not exist)\n"
	"  --device PCI  (a CDI spec's) the container got that GPU: its limit goes on\n"
	"                the devices named so; --device all: on all devices together\n"
	"  --fail-open   an annotation or limit that fails is a warning (exit 0),\n"
	"                not a refused start (also GPUMEM_HOOK_FAIL_OPEN=1)\n"
	"  -h, --help    this text\n"
	"  --version     the version\n"
	"\n"
	"Exit status: 0 limits set (or nothing to do), 1 the container is refused\n"
	"(the reason on one line of stderr), 2 bad command line.\n";

/* --device arguments (a CDI spec's hook), comma-separated; "" if none */
static char cdi_devices[1024];
/* run by a CDI device (any --device, "all" too): the container got a GPU */
static bool cdi_run;

struct hook {
	const char *sysroot;	/* "" on a real host */
	char *id;		/* the container's id, for messages (malloc'ed) */
	char err[512];		/* why it failed */
};

static int failf(struct hook *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record why the hook fails; returns -1. */
static int failf(struct hook *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A path into buf; -1 if it does not fit. */
static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* The message on one line: control characters become '?'. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			*s = '?';
}

/* All of stdin (at most STATE_MAX bytes), NUL-terminated; NULL on failure. */
static char *read_all(FILE *f, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *p;

	while (buf) {
		size_t got;

		if (n + 1 == cap) {
			if (cap > max)
				break;
			p = realloc(buf, cap * 2);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		got = fread(buf + n, 1, cap - 1 - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				break;
			buf[n] = '\0';
			*len = n;
			return buf;
		}
	}
	free(buf);
	return NULL;
}

/* The value of a string member of obj; NULL if absent or not a string. */
static const char *get_str(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The cgroup v2 path of process pid ("/a/b"); -1 with h->err. */
static int pid_cgroup(struct hook *h, long pid, char *out, size_t len)
{
	char path[PATH_MAX], line[PATH_MAX + 64];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%ld/cgroup", h->sysroot, pid);
	f = fopen(path, "re");
	if (!f)
		return failf(h, "cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		line[n] = '\0';
		if (strncmp(line, "0::/", 4) == 0) {
			found = pathf(out, len, "%s", line + 3) == 0;
			break;
		}
	}
	fclose(f);
	if (!found)
		return failf(h, "process %ld is in no cgroup v2 hierarchy, or its path is too long "
			     "(%s has no usable 0::/ line)", pid, path);
	return 0;
}

/*
 * The cgroup that linux.cgroupsPath of the bundle's config.json names, as
 * a prefix of the process's cgroup path cg (cut there in place): a path
 * ("/machine/ctr", "ctr") must be a whole-component part of cg that cg
 * ends with or continues below; systemd's "slice:prefix:name" names the
 * scope "prefix-name.scope". No config.json or no cgroupsPath: cg stays.
 * -1 with h->err when they do not match.
 */
static int cross_check(struct hook *h, const char *bundle, char *cg)
{
	struct json_object *cfg, *linux_o, *cp;
	char path[PATH_MAX], want[PATH_MAX];
	const char *s, *c1, *c2, *hit;
	size_t wl;

	if (!bundle || !*bundle)
		return 0;
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	if (access(path, F_OK) < 0)
		return 0;
	cfg = json_object_from_file(path);
	if (!cfg)
		return failf(h, "cannot parse %s: %s", path, json_util_get_last_err());
	if (!json_object_object_get_ex(cfg, "linux", &linux_o) ||
	    !json_object_object_get_ex(linux_o, "cgroupsPath", &cp) ||
	    !json_object_is_type(cp, json_type_string) || !*json_object_get_string(cp)) {
		json_object_put(cfg);
		return 0;
	}
	s = json_object_get_string(cp);
	c1 = strchr(s, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c1 && c2 && !strchr(c2 + 1, ':')) {
		/* systemd: slice:prefix:name, the unit named as runc and crun name it */
		size_t nl = strlen(c2 + 1);

		if (nl > 6 && strcmp(c2 + 1 + nl - 6, ".slice") == 0)
			snprintf(want, sizeof(want), "%s", c2 + 1);
		else if (c2 > c1 + 1)
			snprintf(want, sizeof(want), "%.*s-%s.scope", (int)(c2 - c1 - 1), c1 + 1, c2 + 1);
		else
			snprintf(want, sizeof(want), "%s.scope", c2 + 1);
	} else {
		while (*s == '/')
			s++;
		snprintf(want, sizeof(want), "%s", s);
		wl = strlen(want);
		while (wl && want[wl - 1] == '/')
			want[--wl] = '\0';
	}
	wl = strlen(want);
	for (hit = cg; wl && (hit = strstr(hit, want)); hit++)
		if (hit > cg && hit[-1] == '/' && (hit[wl] == '\0' || hit[wl] == '/'))
			break;
	if (!wl || !hit) {
		failf(h, "the container's cgroup %s does not match linux.cgroupsPath '%s' of %s",
		      cg, json_object_get_string(cp), path);
		json_object_put(cfg);
		return -1;
	}
	cg[hit - cg + wl] = '\0';
	json_object_put(cfg);
	return 0;
}

/* The cgroup id of path (below the cgroup2 root); -1 with h->err. */
static int cgroup_id(struct hook *h, const char *cg, uint64_t *id)
{
	char root[PATH_MAX], err[GM_ERR_LEN];
	struct stat st;

	if (!*h->sysroot) {
		if (resolve_cgroup(cg, cgroup2_root(root, sizeof(root)), id, err, sizeof(err)) < 0)
			return failf(h, "%s", err);
		return 0;
	}
	if (pathf(root, sizeof(root), "%s/sys/fs/cgroup%s", h->sysroot, cg) < 0 ||
	    stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		return failf(h, "no such cgroup '%s'", cg);
	*id = st.st_ino;
	return 0;
}

/* The N of the DRM card whose PCI device is pci (normalized); -1 if none. */
static long card_of_pci(struct hook *h, const char *pci)
{
	struct gm_drm_card cards[MAX_DEVS * 4];
	size_t n, i;

	if (gm_drm_cards(h->sysroot, cards, MAX_DEVS * 4, &n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (strcasecmp(cards[i].bus, pci) == 0)
			return cards[i].card;
	return -1;
}

/*
 * gpumem.io/devices -> gpumem device ids (ids[*n]); -1 with h->err for a
 * name that is not a card or PCI address, a device sysfs or gpumem does
 * not know, or one named twice.
 */
static int resolve_devices(struct hook *h, const char *what, const char *list,
			   const struct gm_dev_list *devs, uint32_t *ids, size_t *n)
{
	char buf[1024], err[GM_ERR_LEN], path[PATH_MAX];
	char *tok, *save = NULL;
	size_t i;

	*n = 0;
	if (strlen(list) >= sizeof(buf))
		return failf(h, "%s: too long", what);
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
		struct dev_spec spec;
		long card;

		if (parse_device(tok, &spec, err, sizeof(err)) < 0)
			return failf(h, "%s: %s", what, err);
		if (spec.by_id && strncmp(tok, "card", 4) != 0)
			return failf(h, "%s: '%s': name a card as cardN or by its PCI "
				     "address", what, tok);
		if (spec.by_id) {
			card = spec.id;
			snprintf(path, sizeof(path), "%s/sys/class/drm/card%ld", h->sysroot, card);
			if (access(path, F_OK) < 0)
				return failf(h, "%s: no device %s (%s)", what,
					     tok, path);
		} else {
			if (!strchr(spec.name, ':') || !strchr(spec.name, '.'))
				return failf(h, "%s: '%s' is not cardN or a PCI address",
					     what, tok);
			card = card_of_pci(h, spec.name);
			if (card < 0)
				return failf(h, "%s: no DRM card at PCI address %s",
					     what, spec.name);
		}
		if (!gm_dev_find(devs, (uint32_t)card))
			return failf(h, "%s: card%ld (%s) is not a device gpumem "
				     "accounts", what, card, tok);
		for (i = 0; i < *n; i++)
			if (ids[i] == (uint32_t)card)
				return failf(h, "%s: card%ld named twice", what,
					     card);
		if (*n == MAX_DEVS)
			return failf(h, "%s: more than %d devices", what,
				     MAX_DEVS);
		ids[(*n)++] = (uint32_t)card;
	}
	if (!*n)
		return failf(h, "%s: empty", what);
	return 0;
}

/* Delete the limits set so far (keys[0..n)); best effort. */
static void roll_back(struct gm_nl *nl, const struct gm_limit_key *keys, size_t n)
{
	while (n--)
		gm_limit_del(nl, &keys[n]);
}

/*
 * The pod's cgroup: the parent of the container's cg, if its name is a
 * pod's as kubelet (cgroupfs "pod<uid>", systemd "kubepods-...-pod<uid>.slice")
 * or podman ("machine-libpod_pod_<id>.slice") names it; -1 with h->err.
 */
static int pod_cgroup(struct hook *h, const char *cg, char *out, size_t len)
{
	const char *base, *p;
	char *slash;

	if (pathf(out, len, "%s", cg) < 0)
		return failf(h, "cgroup path too long");
	slash = strrchr(out, '/');
	if (!slash || slash == out)
		return failf(h, "the container's cgroup %s has no pod cgroup above it", cg);
	*slash = '\0';
	base = strrchr(out, '/') + 1;
	if ((strncmp(base, "pod", 3) == 0 && isxdigit((unsigned char)base[3])) ||
	    strstr(base, "libpod_pod_"))
		return 0;
	for (p = base; (p = strstr(p, "-pod")); p++)
		if (isxdigit((unsigned char)p[4]))
			return 0;
	return failf(h, "the parent of the container's cgroup, %s, is not a pod's cgroup: "
		     "a pod limit has nowhere to go", out);
}

/* Set one limit; on failure h->err says what could not be set. */
static int set_one(struct hook *h, struct gm_nl *nl, const struct gm_policy_limit *l,
		   const char *cg, uint64_t id, bool has_dev, uint32_t dev, struct gm_limit_key *key)
{
	struct gm_limit_req req = {
		.key = { .cgroup_id = id, .has_dev = has_dev, .dev_id = dev,
			 .region = GPUMEM_REGION_VRAM },
		.has_max = l->has_max, .max = l->max,
		.has_high = l->has_high, .high = l->high,
		.has_mode = true, .mode = l->mode,
		.replace = true,
	};
	char why[512], name[16];

	if (gm_limit_set(nl, &req) == 0) {
		*key = req.key;
		return 0;
	}
	snprintf(name, sizeof(name), "card%u", dev);
	return failf(h, "cannot set the VRAM limit of cgroup %s on %s: %s", cg,
		     has_dev ? name : "all devices", gm_nl_strerror(nl, why, sizeof(why)));
}

/*
 * Set what d decides: the container's limits on cgroup id (cg), all or
 * none, then the pod's on pod_id (pod_cg). The pod's limit is never
 * deleted (other containers of the pod share it); -1 with h->err.
 */
static int apply(struct hook *h, const struct gm_policy_decision *d, const char *cg,
		 uint64_t id, const char *pod_cg, uint64_t pod_id)
{
	struct gm_limit_key keys[MAX_DEVS + 1], pod_key;
	uint32_t ids[MAX_DEVS];
	struct gm_dev_list devs = { 0 };
	struct gm_nl nl;
	char why[512];
	size_t n = 0, i, set = 0;
	int ret = -1;

	if (gm_nl_open(&nl) < 0)
		return failf(h, "cannot reach gpumem: %s", gm_nl_strerror(&nl, why, sizeof(why)));
	if (d->ctr.set && d->devices) {
		if (gm_get_devices(&nl, &devs) < 0) {
			failf(h, "cannot list gpumem's devices: %s",
			      gm_nl_strerror(&nl, why, sizeof(why)));
			goto out;
		}
		if (resolve_devices(h, d->devices == cdi_devices ? "--device" :
				    "annotation gpumem.io/devices", d->devices, &devs, ids, &n) < 0)
			goto out;
	}
	if (d->ctr.set) {
		for (i = 0; i < (d->devices ? n : 1); i++, set++)
			if (set_one(h, &nl, &d->ctr, cg, id, d->devices != NULL,
				    d->devices ? ids[i] : 0, &keys[set]) < 0)
				goto undo;
	}
	if (d->ctr_all.set) {
		if (set_one(h, &nl, &d->ctr_all, cg, id, false, 0, &keys[set]) < 0)
			goto undo;
		set++;
	}
	if (d->pod.set && set_one(h, &nl, &d->pod, pod_cg, pod_id, false, 0, &pod_key) < 0)
		goto undo;
	ret = 0;
	goto out;
undo:
	roll_back(&nl, keys, set);
out:
	gm_dev_list_free(&devs);
	gm_nl_close(&nl);
	return ret;
}

/* Print the decision's notes that say an annotation was lowered. */
static void warn_clamped(const struct hook *h, const struct gm_policy_decision *d)
{
	char copy[sizeof(d->note)], *line, *save = NULL;

	if (!d->clamped)
		return;
	snprintf(copy, sizeof(copy), "%s", d->note);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strstr(line, "lowered") || strstr(line, "raised"))
			fprintf(stderr, "gpumem-oci-hook: container %s: policy: %s\n",
				h->id ? h->id : "?", line);
}

static int run(struct hook *h, const char *policy_path, bool policy_given)
{
	struct json_object *state, *pidv;
	struct gm_annotations *ann = NULL;
	struct gm_policy_decision d;
	struct gm_policy pol;
	char cg[PATH_MAX], pod_cg[PATH_MAX], err[GM_ERR_LEN * 2];
	uint64_t id, pod_id = 0;
	size_t len;
	int64_t pid;
	char *text;
	int ret = -1;

	text = read_all(stdin, STATE_MAX, &len);
	if (!text)
		return failf(h, "cannot read the OCI state from standard input (at most %d bytes)",
			     STATE_MAX);
	state = json_tokener_parse(text);
	free(text);
	if (!state || !json_object_is_type(state, json_type_object)) {
		json_object_put(state);
		return failf(h, "the OCI state on standard input is not a JSON object");
	}
	if (get_str(state, "id"))
		h->id = strdup(get_str(state, "id"));
	if (gm_policy_load(policy_path, !policy_given, &pol, err, sizeof(err)) < 0) {
		json_object_put(state);
		return failf(h, "%s", err);
	}
	ann = malloc(sizeof(*ann));
	if (!ann) {
		failf(h, "out of memory");
		goto out;
	}
	if (gm_annotations_read(state, ann, err, sizeof(err)) < 0) {
		failf(h, "OCI state: %s", err);
		goto out;
	}
	if (gm_policy_decide(&pol, ann->a, ann->n, &d, err, sizeof(err)) < 0) {
		failf(h, "%s", err);
		goto out;
	}
	/* the devices the runtime gave (CDI) are limited, whatever an annotation names */
	if (*cdi_devices && d.ctr.set) {
		d.devices = cdi_devices;
		d.ctr_all.set = false;
	}
	/*
	 * A Kubernetes container that got a GPU through CDI, with no node
	 * policy and no gpumem.io/ annotation: its pod's may have been dropped
	 * on the way (containerd passes them only with pod_annotations). It is
	 * refused rather than run unlimited; a policy (vram.max = none, if
	 * unlimited is meant) decides instead.
	 */
	if (cdi_run && d.kubernetes && !pol.loaded && !d.ctr.set && !d.pod.set) {
		failf(h, "a Kubernetes container with a GPU through CDI, no node policy (%s) and "
		      "no gpumem.io/ annotation: refused rather than unlimited (write a node policy; "
		      "containerd passes a pod's annotations only with "
		      "pod_annotations = [\"gpumem.io/*\"])", policy_path);
		goto out;
	}
	if (!d.ctr.set && !d.pod.set) {
		ret = 0;	/* nothing to limit */
		goto out;
	}
	if (!json_object_object_get_ex(state, "pid", &pidv) ||
	    !json_object_is_type(pidv, json_type_int) ||
	    (pid = json_object_get_int64(pidv)) <= 0 || pid > GM_PID_MAX) {
		failf(h, "the OCI state has no pid of the container's process (called at "
		      "createRuntime or prestart?)");
		goto out;
	}
	if (pid_cgroup(h, (long)pid, cg, sizeof(cg)) < 0 ||
	    cross_check(h, get_str(state, "bundle"), cg) < 0)
		goto out;
	/* a limit there would hold the whole host */
	if (strcmp(cg, "/") == 0) {
		failf(h, "process %ld is in the root cgroup: the container has no cgroup of its own "
		      "to limit", (long)pid);
		goto out;
	}
	if (cgroup_id(h, cg, &id) < 0)
		goto out;
	if (d.pod.set && (pod_cgroup(h, cg, pod_cg, sizeof(pod_cg)) < 0 ||
			  cgroup_id(h, pod_cg, &pod_id) < 0))
		goto out;
	ret = apply(h, &d, cg, id, pod_cg, pod_id);
	if (ret == 0)
		warn_clamped(h, &d);
out:
	free(ann);
	json_object_put(state);
	gm_policy_free(&pol);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fail-open", no_argument, NULL, 'F' },
		{ "policy", required_argument, NULL, 'P' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("GPUMEM_HOOK_FAIL_OPEN");
	bool fail_open = env && (strcmp(env, "1") == 0 || strcasecmp(env, "yes") == 0 ||
				 strcasecmp(env, "true") == 0);
	struct hook h = { .sysroot = getenv("GPUMEM_SYSROOT") };
	const char *policy = GM_POLICY_PATH;
	bool policy_given = false;
	size_t dl;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			fail_open = true;
			break;
		case 'P':
			policy = optarg;
			policy_given = true;
			break;
		case 'D':
			cdi_run = true;
			if (strcmp(optarg, "all") == 0)
				break;	/* all devices together */
			dl = strlen(cdi_devices);
			if (dl + strlen(optarg) + 2 > sizeof(cdi_devices)) {
				fprintf(stderr, "gpumem-oci-hook: too many --device\n");
				return 2;
			}
			snprintf(cdi_devices + dl, sizeof(cdi_devices) - dl, "%s%s", dl ? "," : "",
				 optarg);
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'V':
			printf("gpumem-oci-hook %s\n", gm_version);
			return 0;
		case ':':
			fprintf(stderr, "gpumem-oci-hook: option '%s' needs an argument (--help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "gpumem-oci-hook: unknown option '%s' (--help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gpumem-oci-hook: unexpected argument '%s' (--help)\n", argv[optind]);
		return 2;
	}
	if (!h.sysroot)
		h.sysroot = "";
	if (!policy_given && *h.sysroot) {
		static char in_root[PATH_MAX];

		if (pathf(in_root, sizeof(in_root), "%s%s", h.sysroot, GM_POLICY_PATH) == 0)
			policy = in_root;
	}
	if (run(&h, policy, policy_given) == 0) {
		free(h.id);
		return 0;
	}
	one_line(h.err);
	if (h.id)
		one_line(h.id);
	fprintf(stderr, "gpumem-oci-hook: container %s: %s%s\n", h.id ? h.id : "?", h.err,
		fail_open ? " (fail-open: started without a gpumem limit)" : "");
	free(h.id);
	return fail_open ? 0 : 1;
}
