// SPDX-License-Identifier: GPL-2.0
/*
 * annotations.c - a container's annotations from an OCI state, an OCI
 * config.json or a Kubernetes Pod; see annotations.h.
 */
#include "annotations.h"

#include <stdio.h>
#include <string.h>

#define KUBE_PREFIX "io.kubernetes."

static int add(struct gm_annotations *out, const char *key, const char *value,
	       char *err, size_t errlen)
{
	if (out->n == GM_ANNOTATIONS_MAX) {
		snprintf(err, errlen, "more than %d annotations", GM_ANNOTATIONS_MAX);
		return -1;
	}
	out->a[out->n].key = key;
	out->a[out->n].value = value;
	out->n++;
	return 0;
}

/* The string members of ann (an object or absent); skip_kube: a pod author's. */
static int add_object(struct json_object *ann, bool skip_kube, struct gm_annotations *out,
		      char *err, size_t errlen)
{
	if (!ann)
		return 0;
	if (!json_object_is_type(ann, json_type_object)) {
		snprintf(err, errlen, "annotations are not an object");
		return -1;
	}
	json_object_object_foreach(ann, key, val) {
		if (!json_object_is_type(val, json_type_string)) {
			snprintf(err, errlen, "annotation %s: not a string", key);
			return -1;
		}
		if (skip_kube && strncmp(key, KUBE_PREFIX, strlen(KUBE_PREFIX)) == 0)
			continue;
		if (add(out, key, json_object_get_string(val), err, errlen) < 0)
			return -1;
	}
	return 0;
}

int gm_annotations_read(struct json_object *doc, struct gm_annotations *out,
			char *err, size_t errlen)
{
	struct json_object *kind, *meta, *ann = NULL, *ns;

	memset(out, 0, sizeof(*out));
	if (!doc || !json_object_is_type(doc, json_type_object)) {
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	if (json_object_object_get_ex(doc, "kind", &kind) &&
	    json_object_is_type(kind, json_type_string) &&
	    strcmp(json_object_get_string(kind), "Pod") == 0) {
		out->pod = 1;
		if (!json_object_object_get_ex(doc, "metadata", &meta) ||
		    !json_object_is_type(meta, json_type_object)) {
			snprintf(err, errlen, "a Pod without metadata");
			return -1;
		}
		json_object_object_get_ex(meta, "annotations", &ann);
		if (add_object(ann, true, out, err, errlen) < 0)
			return -1;
		snprintf(out->ns_buf, sizeof(out->ns_buf), "default");
		if (json_object_object_get_ex(meta, "namespace", &ns)) {
			if (!json_object_is_type(ns, json_type_string) ||
			    strlen(json_object_get_string(ns)) >= sizeof(out->ns_buf)) {
				snprintf(err, errlen, "metadata.namespace is not a namespace name");
				return -1;
			}
			snprintf(out->ns_buf, sizeof(out->ns_buf), "%s", json_object_get_string(ns));
		}
		return add(out, "io.kubernetes.pod.namespace", out->ns_buf, err, errlen);
	}
	json_object_object_get_ex(doc, "annotations", &ann);
	return add_object(ann, false, out, err, errlen);
}
