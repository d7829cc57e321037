// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - the node's VRAM policy file (libinih) and the decision it
 * makes for a container; see policy.h.
 */
#include "policy.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <ini.h>

#include "../../uapi/gpumem.h"
#include "parse.h"

#define ANN "gpumem.io/"
#define NS_SECTION "namespace:"

/* The runtimes' own namespace annotations: CRI-O and containerd's CRI. */
static const char *const ns_keys[] = {
	"io.kubernetes.pod.namespace",
	"io.kubernetes.cri.sandbox-namespace",
};

struct load_ctx {
	struct gm_policy *p;
	struct gm_policy_scope *cur;	/* NULL before the first section */
	char section[GM_POLICY_NS_LEN + 16];	/* cur's section name */
	bool seen_clamp;
	char *err;
	size_t errlen;
	bool failed;			/* err says why */
};

static void load_fail(struct load_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record why the first bad line is bad (libinih returns its number). */
static void load_fail(struct load_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;		/* keep the first */
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
}

/* A Kubernetes namespace name (RFC 1123 label): [a-z0-9-], 1..63. */
static bool ns_valid(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= GM_POLICY_NS_LEN || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

static struct gm_policy_scope *find_ns(const struct gm_policy *p, const char *ns)
{
	size_t i;

	for (i = 0; i < p->nns; i++)
		if (strcmp(p->ns[i].ns, ns) == 0)
			return &p->ns[i];
	return NULL;
}

/* value -> sz: a limit size, "none" when none_ok, "0" when zero_ok. */
static int size_value(const char *v, bool none_ok, bool zero_ok, struct gm_policy_size *sz,
		      char *err, size_t errlen)
{
	if (strcasecmp(v, "none") == 0) {
		if (!none_ok) {
			snprintf(err, errlen, "'none' is no ceiling here: leave the key out");
			return -1;
		}
		sz->none = true;
	} else if (strcmp(v, "0") == 0) {
		if (!zero_ok) {
			snprintf(err, errlen, "a ceiling of 0 would refuse every annotation: "
				 "set vram.max = 0 instead");
			return -1;
		}
		sz->bytes = 0;
	} else if (parse_limit_size(v, &sz->bytes, err, errlen) < 0) {
		return -1;
	}
	sz->set = true;
	return 0;
}

static int on_section(struct load_ctx *c, const char *section)
{
	struct gm_policy_scope *s;
	const char *ns;

	if (strcmp(section, "defaults") == 0) {
		c->cur = &c->p->defaults;
		return 0;
	}
	if (strncmp(section, NS_SECTION, strlen(NS_SECTION)) != 0) {
		load_fail(c, "unknown section [%s] (sections: [defaults], "
			  "[namespace:NAME])", section);
		return -1;
	}
	ns = section + strlen(NS_SECTION);
	if (!ns_valid(ns)) {
		load_fail(c, "[%s]: '%s' is not a Kubernetes namespace name", section, ns);
		return -1;
	}
	s = find_ns(c->p, ns);
	if (!s) {
		s = realloc(c->p->ns, (c->p->nns + 1) * sizeof(*s));
		if (!s) {
			load_fail(c, "out of memory");
			return -1;
		}
		c->p->ns = s;
		s = &c->p->ns[c->p->nns++];
		memset(s, 0, sizeof(*s));
		snprintf(s->ns, sizeof(s->ns), "%s", ns);
	}
	c->cur = s;
	return 0;
}

/* libinih's handler: one name = value of section; 0 stops at an error. */
static int on_value(void *user, const char *section, const char *name, const char *value)
{
	struct load_ctx *c = user;
	struct gm_policy_scope *s;
	struct gm_policy_size *sz = NULL;
	char why[GM_ERR_LEN];
	bool none_ok = true, zero_ok = true;

	if (c->failed)
		return 0;
	if (!c->cur || strcmp(c->section, section) != 0) {
		if (!*section) {
			load_fail(c, "'%s' outside a section ([defaults] or "
				  "[namespace:NAME])", name);
			return 0;
		}
		if (on_section(c, section) < 0)
			return 0;
		snprintf(c->section, sizeof(c->section), "%s", section);
	}
	s = c->cur;
	if (strcmp(name, "vram.max") == 0) {
		sz = &s->max;
	} else if (strcmp(name, "vram.ceiling") == 0) {
		sz = &s->ceiling;
		none_ok = zero_ok = false;
	} else if (strcmp(name, "pod-vram.max") == 0) {
		sz = &s->pod_max;
	} else if (strcmp(name, "pod-vram.ceiling") == 0) {
		sz = &s->pod_ceiling;
		none_ok = zero_ok = false;
	} else if (strcmp(name, "mode") == 0) {
		if (s->has_mode) {
			load_fail(c, "mode given twice in [%s]", section);
			return 0;
		}
		if (parse_mode(value, &s->mode, why, sizeof(why)) < 0) {
			load_fail(c, "mode: %s", why);
			return 0;
		}
		s->has_mode = true;
		return 1;
	} else if (strcmp(name, "over-ceiling") == 0) {
		if (s != &c->p->defaults) {
			load_fail(c, "over-ceiling belongs in [defaults]");
			return 0;
		}
		if (c->seen_clamp) {
			load_fail(c, "over-ceiling given twice");
			return 0;
		}
		if (strcmp(value, "clamp") == 0) {
			c->p->clamp = true;
		} else if (strcmp(value, "refuse") != 0) {
			load_fail(c, "over-ceiling: '%s' is neither refuse nor clamp", value);
			return 0;
		}
		c->seen_clamp = true;
		return 1;
	} else {
		load_fail(c, "unknown key '%s' (keys: vram.max, vram.ceiling, pod-vram.max, "
			  "pod-vram.ceiling, mode, over-ceiling)", name);
		return 0;
	}
	if (sz->set) {
		load_fail(c, "%s given twice in [%s]", name, section);
		return 0;
	}
	if (size_value(value, none_ok, zero_ok, sz, why, sizeof(why)) < 0) {
		load_fail(c, "%s: %s", name, why);
		return 0;
	}
	return 1;
}

/* A ceiling below the default of the same scope is a contradiction. */
static int check_scope(const struct gm_policy_scope *s, const struct gm_policy_scope *def,
		       char *err, size_t errlen)
{
	const struct gm_policy_size *max = s->max.set ? &s->max : &def->max;
	const struct gm_policy_size *ceil = s->ceiling.set ? &s->ceiling : &def->ceiling;
	const struct gm_policy_size *pmax = s->pod_max.set ? &s->pod_max : &def->pod_max;
	const struct gm_policy_size *pceil = s->pod_ceiling.set ? &s->pod_ceiling :
					     &def->pod_ceiling;
	const char *where = *s->ns ? s->ns : "defaults";

	if (ceil->set && max->set && (max->none || max->bytes > ceil->bytes)) {
		snprintf(err, errlen, "[%s%s]: vram.max is above vram.ceiling", *s->ns ?
			 NS_SECTION : "", where);
		return -1;
	}
	if (pceil->set && pmax->set && (pmax->none || pmax->bytes > pceil->bytes)) {
		snprintf(err, errlen, "[%s%s]: pod-vram.max is above pod-vram.ceiling", *s->ns ?
			 NS_SECTION : "", where);
		return -1;
	}
	return 0;
}

int gm_policy_load(const char *path, bool missing_ok, struct gm_policy *p,
		   char *err, size_t errlen)
{
	struct load_ctx c = { .p = p, .err = err, .errlen = errlen };
	char why[GM_ERR_LEN];
	struct stat st;
	size_t i;
	FILE *f;
	int rc;

	memset(p, 0, sizeof(*p));
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "policy %s: %s", path, strerror(errno));
		return -1;
	}
	/* the admin's file: a tenant must not be able to have written it */
	if (fstat(fileno(f), &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		snprintf(err, errlen, "policy %s: not a root-owned file writable by root only", path);
		fclose(f);
		return -1;
	}
	rc = ini_parse_file(f, on_value, &c);
	fclose(f);
	if (rc || c.failed) {
		if (c.failed && rc > 0) {
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "policy %s:%d: %s", path, rc, why);
		} else if (rc > 0) {
			snprintf(err, errlen, "policy %s:%d: not a name = value line or a [section]",
				 path, rc);
		} else {
			snprintf(err, errlen, "policy %s: cannot read it", path);
		}
		gm_policy_free(p);
		return -1;
	}
	rc = check_scope(&p->defaults, &p->defaults, why, sizeof(why));
	for (i = 0; !rc && i < p->nns; i++)
		rc = check_scope(&p->ns[i], &p->defaults, why, sizeof(why));
	if (rc) {
		snprintf(err, errlen, "policy %s: %s", path, why);
		gm_policy_free(p);
		return -1;
	}
	p->loaded = true;
	return 0;
}

void gm_policy_free(struct gm_policy *p)
{
	free(p->ns);
	memset(p, 0, sizeof(*p));
}

static void note(struct gm_policy_decision *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Add a line to d->note (cut when full). */
static void note(struct gm_policy_decision *d, const char *fmt, ...)
{
	size_t used = strlen(d->note);
	va_list ap;

	if (used + 2 >= sizeof(d->note))
		return;
	va_start(ap, fmt);
	vsnprintf(d->note + used, sizeof(d->note) - used - 1, fmt, ap);
	va_end(ap);
	strcat(d->note, "\n");
}

/* What the container's annotations ask for. */
struct ask {
	bool any;
	bool has_max, has_high, has_mode, has_pod_max;
	uint64_t max, high, pod_max;
	uint32_t mode;
	const char *devices;
};

static int read_annotations(const struct gm_annotation *ann, size_t n, struct ask *a,
			    char *ns, char *err, size_t errlen)
{
	const char *ns_from = NULL;
	char why[GM_ERR_LEN];
	size_t i, k;

	memset(a, 0, sizeof(*a));
	*ns = '\0';
	for (i = 0; i < n; i++) {
		const char *key = ann[i].key, *v = ann[i].value;

		for (k = 0; k < sizeof(ns_keys) / sizeof(ns_keys[0]); k++) {
			if (strcmp(key, ns_keys[k]) != 0)
				continue;
			if (!ns_valid(v)) {
				snprintf(err, errlen, "annotation %s: '%s' is not a namespace name",
					 key, v);
				return -1;
			}
			if (ns_from && strcmp(ns, v) != 0) {
				snprintf(err, errlen, "annotations %s (%s) and %s (%s) disagree on "
					 "the pod's namespace", ns_from, ns, key, v);
				return -1;
			}
			ns_from = key;
			snprintf(ns, GM_POLICY_NS_LEN, "%s", v);
		}
		if (strncmp(key, ANN, strlen(ANN)) != 0)
			continue;
		a->any = true;
		if (strcmp(key, ANN "vram.max") == 0) {
			if (parse_limit_size(v, &a->max, why, sizeof(why)) < 0)
				goto bad;
			a->has_max = true;
		} else if (strcmp(key, ANN "vram.high") == 0) {
			if (parse_limit_size(v, &a->high, why, sizeof(why)) < 0)
				goto bad;
			a->has_high = true;
		} else if (strcmp(key, ANN "pod-vram.max") == 0) {
			if (parse_limit_size(v, &a->pod_max, why, sizeof(why)) < 0)
				goto bad;
			a->has_pod_max = true;
		} else if (strcmp(key, ANN "mode") == 0) {
			if (parse_mode(v, &a->mode, why, sizeof(why)) < 0)
				goto bad;
			a->has_mode = true;
		} else if (strcmp(key, ANN "devices") == 0) {
			a->devices = v;
		} else {
			snprintf(err, errlen, "unknown annotation %s (gpumem.io/ knows vram.max, "
				 "vram.high, pod-vram.max, mode, devices)", key);
			return -1;
		}
		continue;
bad:
		snprintf(err, errlen, "annotation %s: %s", key, why);
		return -1;
	}
	return 0;
}

static const char *mode_name(uint32_t mode)
{
	return mode == GPUMEM_LIMIT_MODE_MONITOR ? "monitor" : "enforce";
}

/* The value of one size key: the namespace's, else the defaults'. */
static const struct gm_policy_size *pick(const struct gm_policy_size *ns_v,
					 const struct gm_policy_size *def_v, const char **from,
					 const char *ns_name)
{
	if (ns_v && ns_v->set) {
		*from = ns_name;
		return ns_v;
	}
	*from = "defaults";
	return def_v;
}

/*
 * One max: the annotation's (has_ask, ask) within ceil, else the policy's
 * default dflt, else the ceiling. -1 with err when refused.
 */
static int decide_max(const struct gm_policy *p, struct gm_policy_decision *d, const char *what,
		      bool has_ask, uint64_t ask, const struct gm_policy_size *dflt,
		      const char *dflt_from, const struct gm_policy_size *ceil,
		      const char *ceil_from, struct gm_policy_limit *out, char *err,
		      size_t errlen)
{
	if (has_ask) {
		if (ceil->set && ask > ceil->bytes) {
			if (!p->clamp) {
				snprintf(err, errlen, "annotation gpumem.io/%s (%" PRIu64 " bytes) is "
					 "above the %s ceiling of [%s] (%" PRIu64 " bytes)", what,
					 ask, what, ceil_from, ceil->bytes);
				return -1;
			}
			note(d, "%s: the annotation's %" PRIu64 " bytes lowered to the ceiling of "
			     "[%s], %" PRIu64 " bytes", what, ask, ceil_from, ceil->bytes);
			ask = ceil->bytes;
			d->clamped = true;
		} else {
			note(d, "%s: %" PRIu64 " bytes, from the annotation", what, ask);
		}
		out->set = out->has_max = true;
		out->max = ask;
	} else if (dflt->set && !dflt->none) {
		note(d, "%s: %" PRIu64 " bytes, the default of [%s]", what, dflt->bytes, dflt_from);
		out->set = out->has_max = true;
		out->max = dflt->bytes;
	} else if (ceil->set) {
		note(d, "%s: %" PRIu64 " bytes, the ceiling of [%s] (no default)", what,
		     ceil->bytes, ceil_from);
		out->set = out->has_max = true;
		out->max = ceil->bytes;
	} else if (dflt->set) {
		note(d, "%s: none, the default of [%s]", what, dflt_from);
	}
	return 0;
}

int gm_policy_decide(const struct gm_policy *p, const struct gm_annotation *ann, size_t n,
		     struct gm_policy_decision *d, char *err, size_t errlen)
{
	static const struct gm_policy_scope none_scope;
	const struct gm_policy_scope *def = &p->defaults, *nsc = NULL;
	const struct gm_policy_size *dflt, *ceil;
	const char *dfrom, *cfrom, *scope_name;
	uint32_t mode = GPUMEM_LIMIT_MODE_ENFORCE;
	struct ask a;

	memset(d, 0, sizeof(*d));
	if (read_annotations(ann, n, &a, d->ns, err, errlen) < 0)
		return -1;
	d->kubernetes = *d->ns != '\0';
	if (a.any && !a.has_max && !a.has_high && !a.has_pod_max && !p->loaded) {
		snprintf(err, errlen, "gpumem.io/ annotations without gpumem.io/vram.max, "
			 "gpumem.io/vram.high or gpumem.io/pod-vram.max, and no node policy: no limit "
			 "to set");
		return -1;
	}
	d->devices = a.devices;
	if (d->kubernetes && p->loaded) {
		nsc = find_ns(p, d->ns);
		note(d, "namespace %s: %s", d->ns, nsc ? "its own section, then [defaults]" :
		     "no section of its own, [defaults]");
	} else if (d->kubernetes) {
		note(d, "namespace %s, no node policy", d->ns);
	} else {
		note(d, p->loaded ? "no Kubernetes namespace: [defaults]" :
		     "no Kubernetes namespace, no node policy");
	}
	if (!nsc)
		nsc = &none_scope;
	scope_name = nsc->ns[0] ? nsc->ns : "defaults";

	/* the mode: the policy's; an annotation may only make it stricter */
	if (nsc->has_mode)
		mode = nsc->mode;
	else if (def->has_mode)
		mode = def->mode;
	if (a.has_mode && a.mode != mode) {
		if (p->loaded && a.mode == GPUMEM_LIMIT_MODE_MONITOR) {
			if (!p->clamp) {
				snprintf(err, errlen, "annotation gpumem.io/mode=monitor is weaker "
					 "than the policy's mode enforce");
				return -1;
			}
			note(d, "mode: the annotation's monitor raised to the policy's enforce");
			d->clamped = true;
		} else {
			mode = a.mode;
		}
	}
	note(d, "mode: %s", mode_name(mode));

	/* the container */
	dflt = pick(&nsc->max, &def->max, &dfrom, scope_name);
	ceil = pick(&nsc->ceiling, &def->ceiling, &cfrom, scope_name);
	if (decide_max(p, d, "vram.max", a.has_max, a.max, dflt, dfrom, ceil, cfrom, &d->ctr,
		       err, errlen) < 0)
		return -1;
	if (a.has_high) {
		if (d->ctr.has_max && a.high > d->ctr.max) {
			if (!p->clamp) {
				snprintf(err, errlen, "annotation gpumem.io/vram.high (%" PRIu64
					 " bytes) is above the container's max (%" PRIu64 " bytes)",
					 a.high, d->ctr.max);
				return -1;
			}
			note(d, "vram.high: lowered to the max with it");
			a.high = d->ctr.max;
		}
		d->ctr.set = d->ctr.has_high = true;
		d->ctr.high = a.high;
		note(d, "vram.high: %" PRIu64 " bytes, from the annotation", a.high);
	}
	d->ctr.mode = mode;
	/* named devices: the policy's own value still caps all of them together */
	if (a.devices && p->loaded) {
		const struct gm_policy_size *cap = dflt->set && !dflt->none ? dflt : ceil;

		if (cap->set && !cap->none) {
			d->ctr_all.set = d->ctr_all.has_max = true;
			d->ctr_all.max = cap->bytes;
			d->ctr_all.mode = mode;
			note(d, "all devices together: %" PRIu64 " bytes, the policy's", cap->bytes);
		}
	}
	if (a.devices)
		note(d, "devices: %s", a.devices);

	/* the pod: Kubernetes containers, or an annotation that asks */
	if (d->kubernetes || a.has_pod_max) {
		dflt = pick(&nsc->pod_max, &def->pod_max, &dfrom, scope_name);
		ceil = pick(&nsc->pod_ceiling, &def->pod_ceiling, &cfrom, scope_name);
		if (decide_max(p, d, "pod-vram.max", a.has_pod_max, a.pod_max, dflt, dfrom, ceil,
			       cfrom, &d->pod, err, errlen) < 0)
			return -1;
		d->pod.mode = mode;
		if (d->pod.set && d->ctr.has_max && d->ctr.max > d->pod.max)
			note(d, "the container's max is above its pod's: the pod's holds");
	}
	if (!d->ctr.set && !d->pod.set)
		note(d, "no limit");
	return 0;
}
