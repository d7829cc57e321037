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
 *
 * Nothing in the library prints or exits: a failed request returns a
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

#endif
