// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what gpumemctl tells the user when a request fails, and with
 * which exit code: the policy the transport (nl.c) leaves to the commands.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../uapi/gpumem.h"
#include "gpumemctl.h"
#include "nl.h"
#include "nlspec.h"

const char *gm_attr_name(uint8_t cmd, int type)
{
	/* the spec's name, and what it is to someone at the command line */
	if (cmd == GPUMEM_CMD_BUF_GET && type == GPUMEM_A_BUF_OWNER)
		return "owner (the pid)";
	return gm_spec_attr_name(cmd, type);
}

int gm_report(const struct gm_nl *nl, const char *what)
{
	const char *name = NULL;

	fflush(stdout);
	if (nl->no_family) {
		if (access("/sys/module/gpumem", F_OK) == 0)
			/* the family exists in the initial network namespace only */
			fprintf(stderr, "gpumemctl: the gpumem module is loaded, but its generic "
				"netlink family \"%s\" is not visible here: gpumem answers in the "
				"initial network namespace only (a container needs the host "
				"network)\n", GPUMEM_FAMILY_NAME);
		else
			fprintf(stderr, "gpumemctl: the gpumem kernel module is not loaded "
				"(generic netlink family \"%s\" not found)\n", GPUMEM_FAMILY_NAME);
		return GM_EXIT_NOMODULE;
	}
	fprintf(stderr, "gpumemctl: %s: %s", what,
		nl->lib_err && nl->error != EPERM && nl->error != EACCES ?
		nl->lib_err : strerror(nl->error));
	if (nl->msg[0])
		fprintf(stderr, ": %s", nl->msg);
	if (nl->miss_type >= 0) {
		name = gm_attr_name(nl->cmd, nl->miss_type);
		if (name)
			fprintf(stderr, " (missing attribute %s)", name);
		else
			fprintf(stderr, " (missing attribute %d)", nl->miss_type);
	}
	if (nl->error == EPERM || nl->error == EACCES)
		fputs(" (this needs CAP_NET_ADMIN, e.g. root)", stderr);
	else if (nl->error == EOPNOTSUPP && !nl->msg[0])
		fputs(" (the loaded gpumem module does not know this request: is it older than "
		      "gpumemctl?)", stderr);
	fputc('\n', stderr);
	return nl->error == EPERM || nl->error == EACCES ? GM_EXIT_PERM : GM_EXIT_ERROR;
}
