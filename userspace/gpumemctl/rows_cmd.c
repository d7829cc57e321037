// SPDX-License-Identifier: GPL-2.0
/*
 * rows_cmd.c - a command that dumps one operation of the family and prints
 * every reply as a row of its field list: options, the request, the
 * replies kept whole, the table or JSON, the errors and exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "nl.h"
#include "output.h"
#include "rows_cmd.h"

/* The largest maxattr of a rows command's reply (checked). */
#define GM_ROWS_MAXATTR 64

struct gm_rows {
	const struct gm_rows_cmd *c;
	struct gm_row *v;
	size_t n, cap;
	int error;
};

static void gm_row_free(struct gm_row *r)
{
	free(r->list);
	free(r->raw.data);
}

static int gm_rows_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct gm_rows *l = arg;
	const struct gm_rows_cmd *c = l->c;
	struct nlattr *tb[GM_ROWS_MAXATTR + 1];
	struct gm_row *r;
	size_t i;
	int len;

	if (c->maxattr > GM_ROWS_MAXATTR ||
	    genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, c->maxattr, c->policy) < 0) {
		l->error = -EPROTO;
		return NL_STOP;
	}
	for (i = 0; i < sizeof(c->required) / sizeof(*c->required); i++) {
		if (c->required[i] && !tb[c->required[i]]) {
			l->error = -EPROTO;
			return NL_STOP;
		}
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct gm_row *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		l->v = v;
		l->cap = cap;
	}
	r = &l->v[l->n];
	memset(r, 0, sizeof(*r));
	len = genlmsg_attrlen(nlmsg_data(nlh), 0);
	if (len > 0) {
		r->raw.data = malloc((size_t)len);
		if (!r->raw.data) {
			l->error = -ENOMEM;
			return NL_STOP;
		}
		memcpy(r->raw.data, genlmsg_attrdata(nlmsg_data(nlh), 0), (size_t)len);
		r->raw.len = len;
	}
	if (c->list_attr && gm_raw_u32s(&r->raw, c->list_attr, &r->list, &r->nlist) < 0) {
		gm_row_free(r);
		l->error = -ENOMEM;
		return NL_STOP;
	}
	l->n++;
	return NL_OK;
}

/**
 * gm_rows_command() - run a rows command
 * @c: what it dumps and prints
 * @argc: its arguments (the common options only)
 * @argv: (argv[0] is the command's name)
 * @o: the common options
 *
 * Return: the exit status.
 */
int gm_rows_command(const struct gm_rows_cmd *c, int argc, char **argv, struct gm_opts *o)
{
	static const struct option opts[] = {
		GM_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct gm_fields fs = { .v = c->fields, .n = c->nfields };
	struct gm_rows l = { .c = c };
	struct gm_nl nl = { 0 };
	struct nl_msg *req;
	size_t i;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, GM_COMMON_SHORTOPTS, opts, NULL)) != -1) {
		ret = gm_common_opt(opt, c->name, argv, o, c->help);
		if (ret != GM_OPT_NEXT)
			return ret;
	}
	ret = gm_no_operands(c->name, argc, argv);
	if (ret != GM_OPT_NEXT)
		return ret;
	ret = gm_connect(&nl);
	if (ret != GM_OPT_NEXT)
		return ret;
	req = gm_nl_request(&nl, c->cmd, true);
	if (!req) {
		gm_nl_close(&nl);
		return gm_error("out of memory");
	}
	if (gm_nl_run(&nl, req, gm_rows_cb, &l) < 0) {
		ret = gm_report(&nl, c->name);
		goto out;
	}
	if (l.error) {
		ret = gm_error("%s: %s", c->name, strerror(-l.error));
		goto out;
	}
	fs.exact = o->json || o->bytes;
	if (o->json) {
		gm_fields_json_array(stdout, &fs, l.v, l.n, sizeof(*l.v));
		ret = GM_EXIT_OK;
	} else if (gm_fields_table(stdout, &fs, l.v, l.n, sizeof(*l.v), 0) < 0) {
		ret = gm_error("out of memory");
	} else {
		printf("%zu %s%s\n", l.n, c->noun, l.n == 1 ? "" : "s");
		ret = GM_EXIT_OK;
	}
out:
	gm_nl_close(&nl);
	for (i = 0; i < l.n; i++)
		gm_row_free(&l.v[i]);
	free(l.v);
	return ret;
}

void gm_row_get_list(const struct gm_field *f, const void *obj, struct gm_val *v, char *buf)
{
	const struct gm_row *r = obj;

	(void)f;
	(void)buf;
	v->kind = GM_V_U32S;
	v->list = r->list;
	v->nlist = r->nlist;
}
