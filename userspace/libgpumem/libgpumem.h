/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libgpumem.h - the client library of gpumem's generic netlink family
 * (libgpumem.a), shared by gpumemctl, gpumem-oci-hook and the node agent.
 *
 *   nl.h      the transport: open the family, send a request, read the
 *             replies and the kernel's error with its extended-ack message
 *   query.h   every request as a C call and its reply as structs
 *   nlspec.h  the wire model generated from uapi/gpumem.yaml
 *   parse.h   the parsers of sizes, regions, modes, device names and
 *             cgroup paths, the same rules everywhere
 *   fields.h  the field lists of the replies (dev_fields.c, proc_fields.c,
 *             stats_fields.c; quota.h: limits and events) and the printer
 *             that writes one list as a table, JSON or Prometheus samples
 *             (output.h: units, tables, the JSON writer)
 *   policy.h, annotations.h  the node policy and a container's annotations
 *             (gpumem-oci-hook, gpumemctl policy check)
 *   drm_cards.h  the DRM cards sysfs lists, by bus id (the hook, CDI)
 *   atomic_file.h  a file replaced whole (gpumemd's textfile, CDI specs)
 *
 * Nothing in the library exits, and nothing but the printers of fields.h,
 * output.h and quota.h prints (to the FILE they are given): a failed request returns a
 * negative errno and leaves the kernel's errno, its extended-ack message
 * and the missing attribute in struct gm_nl (gm_nl_strerror() puts them
 * in one line); a parser returns -1 with its message in the caller's
 * buffer. What to tell the user, and the exit code, are the caller's.
 */
#ifndef LIBGPUMEM_H
#define LIBGPUMEM_H

#include <stddef.h>

#include "nl.h"
#include "nlspec.h"
#include "parse.h"
#include "query.h"

/**
 * gm_nl_strerror() - the last failure of a request as one line
 * @nl: the connection the request failed on
 * @buf: where the line goes
 * @len: size of @buf
 *
 * "strerror(errno): extack message (missing attribute NAME)", the parts
 * the kernel did not send left out; "the gpumem kernel module is not
 * loaded" when the family does not exist. No newline, no program name.
 *
 * Return: @buf.
 */
const char *gm_nl_strerror(const struct gm_nl *nl, char *buf, size_t len);

/* gpumem's version (the file VERSION), the same for every program: version.c */
extern const char gm_version[];

#endif
