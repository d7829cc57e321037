// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem-oci-hook.c - an OCI runtime hook (createRuntime; prestart works
 * the same) that sets a container's gpumem VRAM limits from its
 * annotations:
 *
 *   gpumem.io/vram.max    a size ("8G", "512MiB", "1073741824")
 *   gpumem.io/vram.high   a size, at most vram.max
 *   gpumem.io/mode        enforce (default) | monitor
 *   gpumem.io/devices     cardN names or PCI addresses, comma or blank
 *                         separated; none: one limit on all devices
 *
 * Usage: gpumem-oci-hook [--fail-open] < STATE   (see gpumem-oci-hook(8))
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
 * cgroup id is the inode of DIR/sys/fs/cgroup/PATH) instead of the host's.
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

#include "libgpumem.h"

#define PREFIX "gpumem.io/"
#define MAX_DEVS 64
#define STATE_MAX (1 << 20)	/* bytes of OCI state read at most */

static const char help[] =
	"Usage: gpumem-oci-hook [--fail-open] < OCI-STATE\n"
	"\n"
	"An OCI runtime hook (createRuntime or prestart): reads the container's\n"
	"state from standard input and sets gpumem VRAM limits on its cgroup from\n"
	"the annotations gpumem.io/vram.max, gpumem.io/vram.high, gpumem.io/mode\n"
	"(enforce|monitor) and gpumem.io/devices (cardN or PCI addresses; none:\n"
	"all devices). A container without gpumem.io/ annotations is left alone.\n"
	"\n"
	"  --fail-open   an annotation or limit that fails is a warning (exit 0),\n"
	"                not a refused start (also GPUMEM_HOOK_FAIL_OPEN=1)\n"
	"  -h, --help    this text\n"
	"  --version     the version\n"
	"\n"
	"Exit status: 0 limits set (or nothing to do), 1 the container is refused\n"
	"(the reason on one line of stderr), 2 bad command line.\n";

/* What the annotations ask for. */
struct want {
	bool any;		/* some gpumem.io/ annotation */
	bool has_max, has_high, has_mode;
	uint64_t max, high;
	uint32_t mode;
	const char *devices;	/* gpumem.io/devices, NULL: all devices */
};

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

/* gpumem.io/ annotations -> want; -1 with h->err on a bad one. */
static int parse_annotations(struct hook *h, struct json_object *ann, struct want *w)
{
	char err[GM_ERR_LEN];

	memset(w, 0, sizeof(*w));
	if (!ann)
		return 0;
	if (!json_object_is_type(ann, json_type_object))
		return failf(h, "annotations of the OCI state are not an object");
	json_object_object_foreach(ann, key, val) {
		const char *v;

		if (strncmp(key, PREFIX, strlen(PREFIX)) != 0)
			continue;
		w->any = true;
		if (!json_object_is_type(val, json_type_string))
			return failf(h, "annotation %s: not a string", key);
		v = json_object_get_string(val);
		if (strcmp(key, PREFIX "vram.max") == 0) {
			if (parse_limit_size(v, &w->max, err, sizeof(err)) < 0)
				return failf(h, "annotation %s: %s", key, err);
			w->has_max = true;
		} else if (strcmp(key, PREFIX "vram.high") == 0) {
			if (parse_limit_size(v, &w->high, err, sizeof(err)) < 0)
				return failf(h, "annotation %s: %s", key, err);
			w->has_high = true;
		} else if (strcmp(key, PREFIX "mode") == 0) {
			if (parse_mode(v, &w->mode, err, sizeof(err)) < 0)
				return failf(h, "annotation %s: %s", key, err);
			w->has_mode = true;
		} else if (strcmp(key, PREFIX "devices") == 0) {
			w->devices = v;
		} else {
			return failf(h, "unknown annotation %s (gpumem.io/ knows vram.max, vram.high, "
				     "mode, devices)", key);
		}
	}
	if (w->any && !w->has_max && !w->has_high)
		return failf(h, "gpumem.io/ annotations without gpumem.io/vram.max or "
			     "gpumem.io/vram.high: no limit to set");
	if (w->has_max && w->has_high && w->high > w->max)
		return failf(h, "annotation gpumem.io/vram.high (%" PRIu64 " bytes) is above "
			     "gpumem.io/vram.max (%" PRIu64 " bytes)", w->high, w->max);
	return 0;
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
	char dir[PATH_MAX], link[PATH_MAX + 16], target[PATH_MAX];
	struct dirent *e;
	long found = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/class/drm", h->sysroot);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		const char *base;
		char *end;
		long n;
		ssize_t len;

		if (strncmp(e->d_name, "card", 4) != 0 || !isdigit((unsigned char)e->d_name[4]))
			continue;
		n = strtol(e->d_name + 4, &end, 10);
		if (*end)	/* card0-VGA-1: a connector */
			continue;
		if (pathf(link, sizeof(link), "%s/%s/device", dir, e->d_name) < 0)
			continue;
		len = readlink(link, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (strcasecmp(base, pci) == 0) {
			found = n;
			break;
		}
	}
	closedir(d);
	return found;
}

/*
 * gpumem.io/devices -> gpumem device ids (ids[*n]); -1 with h->err for a
 * name that is not a card or PCI address, a device sysfs or gpumem does
 * not know, or one named twice.
 */
static int resolve_devices(struct hook *h, const char *list, const struct gm_dev_list *devs,
			   uint32_t *ids, size_t *n)
{
	char buf[1024], err[GM_ERR_LEN], path[PATH_MAX];
	char *tok, *save = NULL;
	size_t i;

	*n = 0;
	if (strlen(list) >= sizeof(buf))
		return failf(h, "annotation gpumem.io/devices: too long");
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ", \t\n", &save); tok; tok = strtok_r(NULL, ", \t\n", &save)) {
		struct dev_spec spec;
		long card;

		if (parse_device(tok, &spec, err, sizeof(err)) < 0)
			return failf(h, "annotation gpumem.io/devices: %s", err);
		if (spec.by_id && strncmp(tok, "card", 4) != 0)
			return failf(h, "annotation gpumem.io/devices: '%s': name a card as cardN or "
				     "by its PCI address", tok);
		if (spec.by_id) {
			card = spec.id;
			snprintf(path, sizeof(path), "%s/sys/class/drm/card%ld", h->sysroot, card);
			if (access(path, F_OK) < 0)
				return failf(h, "annotation gpumem.io/devices: no device %s (%s)",
					     tok, path);
		} else {
			if (!strchr(spec.name, ':') || !strchr(spec.name, '.'))
				return failf(h, "annotation gpumem.io/devices: '%s' is not cardN or a "
					     "PCI address", tok);
			card = card_of_pci(h, spec.name);
			if (card < 0)
				return failf(h, "annotation gpumem.io/devices: no DRM card at PCI "
					     "address %s", spec.name);
		}
		if (!gm_dev_find(devs, (uint32_t)card))
			return failf(h, "annotation gpumem.io/devices: card%ld (%s) is not a device "
				     "gpumem accounts", card, tok);
		for (i = 0; i < *n; i++)
			if (ids[i] == (uint32_t)card)
				return failf(h, "annotation gpumem.io/devices: card%ld named twice",
					     card);
		if (*n == MAX_DEVS)
			return failf(h, "annotation gpumem.io/devices: more than %d devices",
				     MAX_DEVS);
		ids[(*n)++] = (uint32_t)card;
	}
	if (!*n)
		return failf(h, "annotation gpumem.io/devices: empty");
	return 0;
}

/* Delete the limits set so far (keys[0..n)); best effort. */
static void roll_back(struct gm_nl *nl, const struct gm_limit_key *keys, size_t n)
{
	while (n--)
		gm_limit_del(nl, &keys[n]);
}

/* Set every limit w asks for on cgroup id, all or none; -1 with h->err. */
static int apply(struct hook *h, const struct want *w, const char *cg, uint64_t id)
{
	struct gm_limit_key keys[MAX_DEVS];
	uint32_t ids[MAX_DEVS];
	struct gm_dev_list devs = { 0 };
	struct gm_nl nl;
	char why[512];
	size_t n = 0, i;
	int ret = -1;

	if (gm_nl_open(&nl) < 0)
		return failf(h, "cannot reach gpumem: %s", gm_nl_strerror(&nl, why, sizeof(why)));
	if (w->devices) {
		if (gm_get_devices(&nl, &devs) < 0) {
			failf(h, "cannot list gpumem's devices: %s",
			      gm_nl_strerror(&nl, why, sizeof(why)));
			goto out;
		}
		if (resolve_devices(h, w->devices, &devs, ids, &n) < 0)
			goto out;
	}
	for (i = 0; i < (w->devices ? n : 1); i++) {
		struct gm_limit_req req = {
			.key = { .cgroup_id = id, .has_dev = w->devices != NULL,
				 .dev_id = w->devices ? ids[i] : 0, .region = GPUMEM_REGION_VRAM },
			.has_max = w->has_max, .max = w->max,
			.has_high = w->has_high, .high = w->high,
			.has_mode = true,
			.mode = w->has_mode ? w->mode : GPUMEM_LIMIT_MODE_ENFORCE,
			.replace = true,
		};

		if (gm_limit_set(&nl, &req) < 0) {
			char dev[16];

			if (req.key.has_dev)
				snprintf(dev, sizeof(dev), "card%u", req.key.dev_id);
			failf(h, "cannot set the VRAM limit of cgroup %s on %s: %s", cg,
			      req.key.has_dev ? dev : "all devices",
			      gm_nl_strerror(&nl, why, sizeof(why)));
			roll_back(&nl, keys, i);
			goto out;
		}
		keys[i] = req.key;
	}
	ret = 0;
out:
	gm_dev_list_free(&devs);
	gm_nl_close(&nl);
	return ret;
}

static int run(struct hook *h)
{
	struct json_object *state, *ann = NULL, *pidv;
	char cg[PATH_MAX];
	struct want w;
	size_t len;
	uint64_t id;
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
	json_object_object_get_ex(state, "annotations", &ann);
	if (parse_annotations(h, ann, &w) < 0)
		goto out;
	if (!w.any) {
		ret = 0;	/* not ours */
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
	ret = apply(h, &w, cg, id);
out:
	json_object_put(state);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fail-open", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("GPUMEM_HOOK_FAIL_OPEN");
	bool fail_open = env && (strcmp(env, "1") == 0 || strcasecmp(env, "yes") == 0 ||
				 strcasecmp(env, "true") == 0);
	struct hook h = { .sysroot = getenv("GPUMEM_SYSROOT") };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			fail_open = true;
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'V':
			printf("gpumem-oci-hook %s\n", GPUMEMCTL_VERSION);
			return 0;
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
	if (run(&h) == 0) {
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
