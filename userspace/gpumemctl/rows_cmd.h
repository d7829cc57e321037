/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rows_cmd.h - a command that dumps one operation of the family and prints
 * every reply as a row of its field list (table or JSON): `gpumemctl
 * orphans`, `gpumemctl leaks`.
 */
#ifndef GPUMEMCTL_ROWS_CMD_H
#define GPUMEMCTL_ROWS_CMD_H

#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>

#include "fields.h"
#include "gpumemctl.h"
#include "query.h"

/* One reply, kept whole: fields read it through GM_ATTR(struct gm_row, raw, A). */
struct gm_row {
	struct gm_raw raw;
	uint32_t *list;		/* the values of gm_rows_cmd.list_attr, in order */
	size_t nlist;
};

/* What a rows command dumps and prints. */
struct gm_rows_cmd {
	const char *name;		/* the command, in messages */
	const char *help;
	uint8_t cmd;			/* GPUMEM_CMD_*, as a dump */
	const struct nla_policy *policy;	/* the reply's, from the spec */
	int maxattr;
	int required[2];		/* attributes every reply has (0: none) */
	int list_attr;			/* a multi-attr u32 collected into gm_row.list (0: none) */
	const struct gm_field *fields;
	size_t nfields;
	const char *noun;		/* what a row is, for the table's last line */
};

int gm_rows_command(const struct gm_rows_cmd *c, int argc, char **argv, struct gm_opts *o);

/* gm_row.list as a list of numbers (attributes: gm_get_attr_* of fields.h) */
void gm_row_get_list(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf);

#endif /* GPUMEMCTL_ROWS_CMD_H */
