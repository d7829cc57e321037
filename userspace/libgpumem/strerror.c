// SPDX-License-Identifier: GPL-2.0
/*
 * strerror.c - a request's failure as one line, for callers that have no
 * policy of their own (gpumemctl has its own: report.c).
 */
#include "libgpumem.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *gm_nl_strerror(const struct gm_nl *nl, char *buf, size_t len)
{
	const char *name;
	size_t n;

	if (!len)
		return buf;
	if (nl->no_family) {
		snprintf(buf, len, "the gpumem kernel module is not loaded (generic netlink "
			 "family \"%s\" not found)", GPUMEM_FAMILY_NAME);
		return buf;
	}
	snprintf(buf, len, "%s", nl->lib_err && nl->error != EPERM && nl->error != EACCES ?
		 nl->lib_err : strerror(nl->error));
	n = strlen(buf);
	if (nl->msg[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, ": %s", nl->msg);
	if (nl->miss_type >= 0 && n < len) {
		name = gm_spec_attr_name(nl->cmd, nl->miss_type);
		if (name)
			snprintf(buf + n, len - n, " (missing attribute %s)", name);
		else
			snprintf(buf + n, len - n, " (missing attribute %d)", nl->miss_type);
	}
	return buf;
}
