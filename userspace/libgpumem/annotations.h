/* SPDX-License-Identifier: GPL-2.0 */
/*
 * annotations.h - the annotations of a container, read with json-c from
 * the documents that carry them: an OCI state (what a hook reads on
 * stdin), an OCI config.json, or a Kubernetes Pod (kubectl get pod -o json).
 * For gpumem-oci-hook and `gpumemctl policy check`.
 */
#ifndef GPUMEM_ANNOTATIONS_H
#define GPUMEM_ANNOTATIONS_H

#include <stddef.h>

#include <json.h>

#include "policy.h"

/* At most this many annotations are read (a document with more is refused). */
#define GM_ANNOTATIONS_MAX 256

/* A document's annotations; the strings point into the JSON document. */
struct gm_annotations {
	struct gm_annotation a[GM_ANNOTATIONS_MAX];
	size_t n;
	char ns_buf[GM_POLICY_NS_LEN];	/* a Pod's metadata.namespace */
	int pod;			/* the document is a Kubernetes Pod */
};

/*
 * gm_annotations_read: the annotations of doc. An OCI state or config: its
 * "annotations" object (absent: none). A Pod (kind "Pod"):
 * metadata.annotations without the io.kubernetes. ones (a pod author's,
 * which a runtime would not pass as its own), and the namespace the
 * runtime would pass, metadata.namespace ("default" when absent), as
 * io.kubernetes.pod.namespace. -1 with err: not an object, an annotation
 * that is not a string, too many.
 */
int gm_annotations_read(struct json_object *doc, struct gm_annotations *out,
			char *err, size_t errlen);

#endif /* GPUMEM_ANNOTATIONS_H */
