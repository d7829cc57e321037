// SPDX-License-Identifier: GPL-2.0
/*
 * fake_kernel.c - a simulated gpumem kernel side for host tests: it takes
 * the place of nl.c's transport (nl.c built with GM_NL_FAKE) and of libdrm
 * (drminfo.c), answers requests with netlink messages built the way the
 * kernel builds them (u64 after a pad attribute, multi-attr nests), and
 * applies the request's filters. Everything above it - query.c, the
 * commands, the printing - is the real code.
 *
 * GM_FAKE in the environment picks a failure or a scenario:
 *   nomodule    the family does not exist
 *   eperm       a caller without CAP_NET_ADMIN/CAP_SYS_ADMIN: exactly the
 *               commands the spec marks admin-perm are refused, and joining
 *               the events group (spec_perms.h, generated from
 *               uapi/gpumem.yaml by scripts/gen-perms.py, which also checks
 *               kmod/netlink.c against the same spec)
 *   dumpfail    PROC_GET fails half-way with an extack message
 *   dumpintr    the first dump is marked interrupted (NLM_F_DUMP_INTR), with
 *               every row twice: the client must ask again
 *   oldmodule   a module without quotas: LIMIT_*, CGROUP_GET are
 *               EOPNOTSUPP and there is no "events" group
 *   watch       the events group delivers a script (fake_watch below): events
 *               with a gap in seq, a receive buffer overflow, the family going
 *               away and coming back at the third look-up, one more event
 *   watch-idle  the events group never delivers anything
 *
 * Limits set in one run (LIMIT_SET) are kept for that process only, so that
 * `limit set` reads back what it set.
 *
 * For gpumem-oci-hook, which sets limits on cgroups of its own:
 *   GM_FAKE_CGROUPS=ID:PATH[,ID:PATH...]  more cgroups the kernel knows
 *   GM_FAKE_SETFAIL_DEV=N                 LIMIT_SET on device N fails
 *                                         (ENOSPC, "too many limits")
 *   GM_FAKE_STATE=FILE                    at exit, FILE gets one line per
 *                                         LIMIT_SET/LIMIT_DEL request
 *                                         ("set|del DEV ok|errno") and then
 *                                         one per limit on a GM_FAKE_CGROUPS
 *                                         cgroup ("limit ID DEV REGION max
 *                                         high mode", "-" for none)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "../drminfo.h"
#include "../libgpumem/nl.h"
#include "../libgpumem/parse.h"
#include "spec_perms.h"

#define FAKE_FAMILY 0x20

static const char *fake_mode(void)
{
	const char *m = getenv("GM_FAKE");

	return m ? m : "";
}

int gm_nl_open(struct gm_nl *nl)
{
	return gm_nl_open_family(nl, GPUMEM_FAMILY_NAME);
}

int gm_nl_open_family(struct gm_nl *nl, const char *family)
{
	memset(nl, 0, sizeof(*nl));
	nl->miss_type = -1;
	if (strcmp(fake_mode(), "nomodule") == 0 || strcmp(family, GPUMEM_FAMILY_NAME) != 0) {
		nl->error = ENOENT;
		nl->no_family = true;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	nl->family = FAKE_FAMILY;
	return 0;
}

void gm_nl_close(struct gm_nl *nl)
{
	nl->family = 0;
}

struct nl_msg *gm_nl_request(struct gm_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				dump ? NLM_F_DUMP : 0, cmd, GPUMEM_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	nl->cmd = cmd;
	return msg;
}

/* --- the simulated state ------------------------------------------------ */

struct fake_region { uint32_t region; int known; uint64_t capacity, used; };
static const struct fake_dev {
	uint32_t id;
	const char *name, *driver, *unique;
	uint8_t ttm;
	struct fake_region r;
	const char *desc;	/* drm_driver.desc; NULL: not sent */
} devs[] = {
	{ 0, "card0", "qxl", "0000:00:02.0", 1, { GPUMEM_REGION_VRAM, 1, 134209536, 73400320 },
	  "RH QXL" },
	{ 1, "card1", "bochs-drm", "0000:00:03.0", 1, { GPUMEM_REGION_VRAM, 1, 16777216, 0 }, NULL },
	{ 2, "card2", "vgem", "vgem", 0, { GPUMEM_REGION_SYSTEM, 0, 0, 0 }, "Virtual GEM provider" },
};

static const struct fake_proc {
	uint32_t pid;
	const char *comm;
	uint64_t cgroup_id;	/* 0 for kernel clients, as the kernel sends it */
	const char *cgroup;	/* NULL: not sent */
	uint32_t dev;
	uint64_t usage[4], shared, owned;
	uint32_t bos;
	uint32_t skipped;	/* held view: busy buffers in no figure */
} procs[] = {	/* not in pid order: the commands sort */
	{ 812, "gpumem-alloc", 4711, "/test/a", 0, { 4194304, 0, 0, 0 }, 0, 4194304, 1, 0 },
	{ 0, "[kernel]", 0, NULL, 0, { 1048576, 0, 0, 0 }, 0, 1048576, 1, 0 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 2, { 0, 0, 2097152, 0 }, 1048576, 1048576, 2, 0 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 0, { 1048576, 0, 0, 0 }, 1048576, 0, 1, 0 },
	{ 900, "big", 4713, "/test/a/big", 0, { 67108864, 4096, 0, 0 }, 0, 67108864, 4, 2 },
};

static const struct fake_buf {
	uint32_t dev, owner, handle;
	uint64_t size;
	uint32_t region;
	int has_mt;
	uint32_t mt;
	uint8_t shared;
	uint32_t holders[3];
} bufs[] = {
	{ 0, 812, 1, 4194304, GPUMEM_REGION_VRAM, 1, 2, 0, { 812 } },
	{ 0, 815, 1, 1048576, GPUMEM_REGION_VRAM, 1, 2, 1, { 815, 812 } },
	{ 2, 815, 1, 1048576, GPUMEM_REGION_SYSTEM, 0, 0, 1, { 815, 900 } },
	{ 2, 815, 2, 65536, GPUMEM_REGION_SYSTEM, 0, 0, 0, { 815 } },
};

/* The limits (LIMIT_GET dump) and the cgroup rows (CGROUP_GET). */
struct fake_limit {
	uint64_t cgroup_id;
	const char *path;
	int has_dev;
	uint32_t dev, region;
	int has_max, has_high;
	uint64_t max, high;
	uint32_t mode;
	uint64_t usage, denied;
	int has_limit;	/* cgroup rows: a limit is set on exactly this row */
};

#define MiB 1048576ULL
static struct fake_limit limits[16] = {
	{ 4711, "/test/a", 0, 0, GPUMEM_REGION_VRAM, 1, 1, 64 * MiB, 48 * MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 72 * MiB, 2, 1 },
	{ 4712, "/test/a b", 1, 2, GPUMEM_REGION_SYSTEM, 0, 1, 0, MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 2 * MiB, 0, 1 },
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_VRAM, 1, 0, 64 * MiB, 0,
	  GPUMEM_LIMIT_MODE_MONITOR, 64 * MiB, 3, 1 },
};
static size_t nlimits = 3;

/* every charge counts on its device and on "all devices" (kmod/quota.c) */
static const struct fake_limit cgroup_rows[] = {	/* not sorted: the tool sorts */
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_GTT, 0, 0, 0, 0, 0, 4096, 0, 0 },
	{ 4713, "/test/a/big", 0, 0, GPUMEM_REGION_GTT, 0, 0, 0, 0, 0, 4096, 0, 0 },
	{ 4713, "/test/a/big", 0, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, 64 * MiB, 0, 0 },
	{ 4712, "/test/a b", 0, 0, GPUMEM_REGION_SYSTEM, 0, 0, 0, 0, 0, 2 * MiB, 0, 0 },
	{ 4712, "/test/a b", 0, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, MiB, 0, 0 },
	{ 4711, "/test/a", 1, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, 72 * MiB, 0, 0 },
	{ 4711, "/test/a", 0, 0, GPUMEM_REGION_VRAM, 1, 1, 64 * MiB, 48 * MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 72 * MiB, 2, 1 },
	{ 4712, "/test/a b", 1, 0, GPUMEM_REGION_VRAM, 0, 0, 0, 0, 0, MiB, 0, 0 },
	{ 4712, "/test/a b", 1, 2, GPUMEM_REGION_SYSTEM, 0, 1, 0, MiB,
	  GPUMEM_LIMIT_MODE_ENFORCE, 2 * MiB, 0, 1 },
	{ 4713, "/test/a/big", 1, 0, GPUMEM_REGION_VRAM, 1, 0, 64 * MiB, 0,
	  GPUMEM_LIMIT_MODE_MONITOR, 64 * MiB, 3, 1 },
};

#define N(a) (sizeof(a) / sizeof(*(a)))

/* GM_FAKE_CGROUPS: the path of cgroup id, or NULL */
static const char *extra_cgroup(uint64_t id)
{
	static char path[256];
	const char *e = getenv("GM_FAKE_CGROUPS");
	unsigned long long v;
	int n;

	while (e && *e && sscanf(e, "%llu:%255[^,]%n", &v, path, &n) == 2) {
		if (v == id)
			return path;
		e += n;
		e += *e == ',';
	}
	return NULL;
}

/* The path of a cgroup id, as the kernel knows it; NULL: no such cgroup. */
static const char *cgroup_path(uint64_t id)
{
	char root[256];
	struct stat st;
	size_t i;

	if (extra_cgroup(id))
		return extra_cgroup(id);

	for (i = 0; i < N(procs); i++)
		if (procs[i].cgroup && procs[i].cgroup_id == id)
			return procs[i].cgroup;
	if (stat(cgroup2_root(root, sizeof(root)), &st) == 0 && st.st_ino == id)
		return "/";
	return NULL;
}

static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, FAKE_FAMILY, 0, NLM_F_MULTI, cmd, GPUMEM_FAMILY_VERSION);
	return m;
}

/* nla_put_u64_64bit(): a pad attribute first, as on a kernel that aligns */
static void put_u64(struct nl_msg *m, int type, uint64_t v, int pad)
{
	nla_put(m, pad, 0, NULL);
	nla_put_u64(m, type, v);
}

static int deliver(struct nl_msg *m, gm_nl_reply_fn fn, void *arg, int *cb_err)
{
	if (!*cb_err && fn)
		*cb_err = fn(m, arg);
	nlmsg_free(m);
	return *cb_err;
}

static int fail(struct gm_nl *nl, int err, const char *msg, int miss)
{
	nl->error = err;
	if (msg)
		snprintf(nl->msg, sizeof(nl->msg), "%s", msg);
	nl->miss_type = miss;
	return -err;
}

static int is_below(const char *path, const char *root)
{
	size_t n = strlen(root);

	return path && strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void put_limit(struct nl_msg *m, const struct fake_limit *l, int cgroup_row)
{
	put_u64(m, GPUMEM_A_LIMIT_CGROUP_ID, l->cgroup_id, GPUMEM_A_LIMIT_PAD);
	nla_put_string(m, GPUMEM_A_LIMIT_CGROUP_PATH, l->path);
	if (l->has_dev)
		nla_put_u32(m, GPUMEM_A_LIMIT_DEV_ID, l->dev);
	nla_put_u32(m, GPUMEM_A_LIMIT_REGION, l->region);
	put_u64(m, GPUMEM_A_LIMIT_USAGE, l->usage, GPUMEM_A_LIMIT_PAD);
	if (cgroup_row && !l->has_limit)
		return;
	if (l->has_max)
		put_u64(m, GPUMEM_A_LIMIT_MAX_BYTES, l->max, GPUMEM_A_LIMIT_PAD);
	if (l->has_high)
		put_u64(m, GPUMEM_A_LIMIT_HIGH_BYTES, l->high, GPUMEM_A_LIMIT_PAD);
	nla_put_u32(m, GPUMEM_A_LIMIT_MODE, l->mode);
	put_u64(m, GPUMEM_A_LIMIT_DENIED, l->denied, GPUMEM_A_LIMIT_PAD);
}

/* The limit the request names; -1 if there is none. */
static int find_limit(struct nlattr **tb)
{
	uint64_t id = nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID]);
	int has_dev = tb[GPUMEM_A_LIMIT_DEV_ID] != NULL;
	uint32_t dev = has_dev ? nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) : 0;
	uint32_t region = tb[GPUMEM_A_LIMIT_REGION] ? nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) :
			  GPUMEM_REGION_VRAM;
	size_t i;

	for (i = 0; i < nlimits; i++)
		if (limits[i].cgroup_id == id && limits[i].has_dev == has_dev &&
		    (!has_dev || limits[i].dev == dev) && limits[i].region == region)
			return (int)i;
	return -1;
}

/* GM_FAKE_STATE: the requests that changed limits, written at exit */
static char state_log[4096];

static void log_op(const char *op, struct nlattr **tb, int ret)
{
	size_t n = strlen(state_log);
	char dev[16] = "all";

	if (!getenv("GM_FAKE_STATE"))
		return;
	if (tb[GPUMEM_A_LIMIT_DEV_ID])
		snprintf(dev, sizeof(dev), "card%u", nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]));
	snprintf(state_log + n, sizeof(state_log) - n, "%s %s %s\n", op, dev,
		 ret ? strerror(-ret) : "ok");
}

static void write_state(void)
{
	FILE *f = fopen(getenv("GM_FAKE_STATE"), "w");
	size_t i;

	if (!f)
		return;
	fputs(state_log, f);
	for (i = 0; i < nlimits; i++) {
		const struct fake_limit *l = &limits[i];
		char dev[16] = "all", max[24] = "-", high[24] = "-";

		if (!extra_cgroup(l->cgroup_id))
			continue;
		if (l->has_dev)
			snprintf(dev, sizeof(dev), "card%u", l->dev);
		if (l->has_max)
			snprintf(max, sizeof(max), "%llu", (unsigned long long)l->max);
		if (l->has_high)
			snprintf(high, sizeof(high), "%llu", (unsigned long long)l->high);
		fprintf(f, "limit %llu %s %u %s %s %u\n", (unsigned long long)l->cgroup_id, dev,
			l->region, max, high, l->mode);
	}
	fclose(f);
}

static int limit_cmd_do(struct gm_nl *nl, struct nl_msg *req, uint8_t cmd, struct nlattr **tb,
			gm_nl_reply_fn fn, void *arg, int *cb_err);

/* LIMIT_SET/DEL logged for GM_FAKE_STATE; GM_FAKE_SETFAIL_DEV */
static int limit_cmd(struct gm_nl *nl, struct nl_msg *req, uint8_t cmd, struct nlattr **tb,
		     gm_nl_reply_fn fn, void *arg, int *cb_err)
{
	static bool at_exit;
	const char *fail_dev = getenv("GM_FAKE_SETFAIL_DEV");
	int ret;

	if (!at_exit && getenv("GM_FAKE_STATE")) {
		atexit(write_state);
		at_exit = true;
	}
	if (cmd == GPUMEM_CMD_LIMIT_SET && fail_dev && tb[GPUMEM_A_LIMIT_DEV_ID] &&
	    nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) == strtoul(fail_dev, NULL, 10))
		ret = fail(nl, ENOSPC, "too many limits", -1);
	else
		ret = limit_cmd_do(nl, req, cmd, tb, fn, arg, cb_err);
	if (cmd == GPUMEM_CMD_LIMIT_SET || cmd == GPUMEM_CMD_LIMIT_DEL)
		log_op(cmd == GPUMEM_CMD_LIMIT_SET ? "set" : "del", tb, ret);
	return ret;
}

/* LIMIT_SET/GET/DEL and CGROUP_GET, checked as kmod/netlink.c checks them. */
static int limit_cmd_do(struct gm_nl *nl, struct nl_msg *req, uint8_t cmd, struct nlattr **tb,
			gm_nl_reply_fn fn, void *arg, int *cb_err)
{
	int dump = (nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP, i;
	struct fake_limit *l;
	bool replace;
	size_t k;

	static int root_added;
	char root[256];
	struct stat st;

	if (strcmp(fake_mode(), "oldmodule") == 0)
		return fail(nl, EOPNOTSUPP, NULL, -1);
	/* a limit on the cgroup2 root of this host, so that the tests can name it */
	if (!root_added && stat(cgroup2_root(root, sizeof(root)), &st) == 0) {
		limits[nlimits++] = (struct fake_limit){
			st.st_ino, "/", 0, 0, GPUMEM_REGION_VRAM, 1, 0, 1024 * MiB, 0,
			GPUMEM_LIMIT_MODE_ENFORCE, 5 * MiB, 0, 1,
		};
	}
	root_added = 1;
	if (cmd == GPUMEM_CMD_CGROUP_GET) {
		for (k = 0; k < N(cgroup_rows); k++) {
			struct nl_msg *m = reply(cmd);

			put_limit(m, &cgroup_rows[k], 1);
			if (deliver(m, fn, arg, cb_err) < 0)
				return fail(nl, -*cb_err, NULL, -1);
		}
		return 0;
	}
	if (cmd == GPUMEM_CMD_LIMIT_GET && dump) {
		for (k = 0; k < nlimits; k++) {
			struct nl_msg *m = reply(cmd);

			put_limit(m, &limits[k], 0);
			if (deliver(m, fn, arg, cb_err) < 0)
				return fail(nl, -*cb_err, NULL, -1);
		}
		return 0;
	}
	if (!tb[GPUMEM_A_LIMIT_CGROUP_ID])
		return fail(nl, EINVAL, "cgroup-id is required", GPUMEM_A_LIMIT_CGROUP_ID);
	if (tb[GPUMEM_A_LIMIT_REGION] && nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) > GPUMEM_REGION_MAX)
		return fail(nl, EINVAL, "unknown region", -1);
	i = find_limit(tb);
	if (cmd == GPUMEM_CMD_LIMIT_GET || cmd == GPUMEM_CMD_LIMIT_DEL) {
		if (i < 0)
			return fail(nl, ENOENT, "no limit on this cgroup, device and region", -1);
		if (cmd == GPUMEM_CMD_LIMIT_DEL) {
			limits[i] = limits[--nlimits];
			return 0;
		}
		{
			struct nl_msg *m = reply(cmd);

			put_limit(m, &limits[i], 0);
			return deliver(m, fn, arg, cb_err) < 0 ? fail(nl, -*cb_err, NULL, -1) : 0;
		}
	}
	/* LIMIT_SET: changes what it is given, or replaces the whole limit */
	replace = tb[GPUMEM_A_LIMIT_REPLACE] != NULL;
	if (!tb[GPUMEM_A_LIMIT_MAX_BYTES] && !tb[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    (replace || !tb[GPUMEM_A_LIMIT_MODE]))
		return fail(nl, EINVAL, "max-bytes or high-bytes is required", -1);
	if ((tb[GPUMEM_A_LIMIT_MAX_BYTES] && !nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES])) ||
	    (tb[GPUMEM_A_LIMIT_HIGH_BYTES] && !nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES])))
		return fail(nl, EINVAL, "a limit is at least 1 byte", -1);
	if (tb[GPUMEM_A_LIMIT_MAX_BYTES] && tb[GPUMEM_A_LIMIT_HIGH_BYTES] &&
	    nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]) > nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]))
		return fail(nl, EINVAL, "high-bytes is more than max-bytes", -1);
	if (tb[GPUMEM_A_LIMIT_MODE] && nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]) > GPUMEM_LIMIT_MODE_MONITOR)
		return fail(nl, EINVAL, "unknown mode", -1);
	if (tb[GPUMEM_A_LIMIT_DEV_ID] && nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) >= N(devs))
		return fail(nl, ENODEV, "no such device", -1);
	if (!cgroup_path(nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID])))
		return fail(nl, ENOENT, "no such cgroup", -1);
	if (i < 0 && !tb[GPUMEM_A_LIMIT_MAX_BYTES] && !tb[GPUMEM_A_LIMIT_HIGH_BYTES])
		return fail(nl, ENODATA, "no such limit to change", -1);
	if (i >= 0 && !replace) {	/* keep what is not given */
		struct fake_limit m = limits[i];

		if (tb[GPUMEM_A_LIMIT_MAX_BYTES]) {
			m.has_max = 1;
			m.max = nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]);
		}
		if (tb[GPUMEM_A_LIMIT_HIGH_BYTES]) {
			m.has_high = 1;
			m.high = nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]);
		}
		if (tb[GPUMEM_A_LIMIT_MODE])
			m.mode = nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]);
		if (m.has_max && m.has_high && m.high > m.max)
			return fail(nl, EINVAL, "high-bytes would be above max-bytes", -1);
		limits[i] = m;
		return 0;
	}
	if (i < 0) {
		if (nlimits == N(limits))
			return fail(nl, ENOSPC, "too many limits", -1);
		i = (int)nlimits++;
		memset(&limits[i], 0, sizeof(limits[i]));
	}
	l = &limits[i];
	l->cgroup_id = nla_get_u64(tb[GPUMEM_A_LIMIT_CGROUP_ID]);
	l->path = cgroup_path(l->cgroup_id);
	l->has_dev = tb[GPUMEM_A_LIMIT_DEV_ID] != NULL;
	l->dev = l->has_dev ? nla_get_u32(tb[GPUMEM_A_LIMIT_DEV_ID]) : 0;
	l->region = tb[GPUMEM_A_LIMIT_REGION] ? nla_get_u32(tb[GPUMEM_A_LIMIT_REGION]) :
		    GPUMEM_REGION_VRAM;
	l->has_max = tb[GPUMEM_A_LIMIT_MAX_BYTES] != NULL;
	l->max = l->has_max ? nla_get_u64(tb[GPUMEM_A_LIMIT_MAX_BYTES]) : 0;
	l->has_high = tb[GPUMEM_A_LIMIT_HIGH_BYTES] != NULL;
	l->high = l->has_high ? nla_get_u64(tb[GPUMEM_A_LIMIT_HIGH_BYTES]) : 0;
	l->mode = tb[GPUMEM_A_LIMIT_MODE] ? nla_get_u32(tb[GPUMEM_A_LIMIT_MODE]) :
		  GPUMEM_LIMIT_MODE_ENFORCE;
	l->has_limit = 1;
	return 0;
}

static int fake_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg)
{
	struct nlattr *tb[16] = { 0 };
	uint8_t cmd = genlmsg_hdr(nlmsg_hdr(req))->cmd;
	int cb_err = 0, ret = 0;
	size_t i, h;

	nl->error = 0;
	nl->msg[0] = '\0';
	nl->miss_type = -1;
	nl->interrupted = false;
	genlmsg_parse(nlmsg_hdr(req), 0, tb, 15, NULL);

	/* GENL_ADMIN_PERM: the genetlink core refuses before any handler */
	if (strcmp(fake_mode(), "eperm") == 0 && cmd <= GPUMEM_CMD_MAX &&
	    gm_spec_admin_perm[cmd]) {
		nlmsg_free(req);
		return fail(nl, EPERM, NULL, -1);
	}

	switch (cmd) {
	case GPUMEM_CMD_DEV_GET:
		for (i = 0; i < N(devs); i++) {
			const struct fake_dev *d = &devs[i];
			struct nl_msg *m = reply(cmd);
			struct nlattr *n;

			if (tb[GPUMEM_A_DEV_ID] && nla_get_u32(tb[GPUMEM_A_DEV_ID]) != d->id) {
				nlmsg_free(m);
				continue;
			}
			nla_put_u32(m, GPUMEM_A_DEV_ID, d->id);
			nla_put_string(m, GPUMEM_A_DEV_NAME, d->name);
			nla_put_string(m, GPUMEM_A_DEV_DRIVER, d->driver);
			nla_put_string(m, GPUMEM_A_DEV_UNIQUE, d->unique);
			if (d->desc)
				nla_put_string(m, GPUMEM_A_DEV_DESC, d->desc);
			nla_put_u8(m, GPUMEM_A_DEV_TTM, d->ttm);
			/* a device without TTM has no region (kmod/netlink.c) */
			if (d->ttm) {
				n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
				nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, d->r.region);
				if (d->r.known)
					put_u64(m, GPUMEM_A_DEV_REGION_CAPACITY, d->r.capacity,
						GPUMEM_A_DEV_REGION_PAD);
				put_u64(m, GPUMEM_A_DEV_REGION_USED, d->r.used, GPUMEM_A_DEV_REGION_PAD);
				/* qxl's free space in five blocks, the largest 32 MiB */
				if (d->id == 0) {
					put_u64(m, GPUMEM_A_DEV_REGION_FREE_BLOCKS_BYTES,
						60809216, GPUMEM_A_DEV_REGION_PAD);
					put_u64(m, GPUMEM_A_DEV_REGION_LARGEST_FREE,
						33554432, GPUMEM_A_DEV_REGION_PAD);
					put_u64(m, GPUMEM_A_DEV_REGION_FREE_BLOCKS, 5,
						GPUMEM_A_DEV_REGION_PAD);
				}
				nla_nest_end(m, n);
			}
			ret = deliver(m, fn, arg, &cb_err);
		}
		break;
	case GPUMEM_CMD_PROC_GET:
		if (strcmp(fake_mode(), "dumpfail") == 0)
			break;
		for (i = 0; i < N(procs); i++) {
			const struct fake_proc *p = &procs[i];
			struct nl_msg *m;
			bool held;
			int r;

			if (tb[GPUMEM_A_PROC_PID] && nla_get_u32(tb[GPUMEM_A_PROC_PID]) != p->pid)
				continue;
			if (tb[GPUMEM_A_PROC_DEV_ID] && nla_get_u32(tb[GPUMEM_A_PROC_DEV_ID]) != p->dev)
				continue;
			if (tb[GPUMEM_A_PROC_CGROUP_ID]) {
				uint64_t want = nla_get_u64(tb[GPUMEM_A_PROC_CGROUP_ID]);
				const char *root = NULL;
				size_t k;

				for (k = 0; k < N(procs); k++)
					if (procs[k].cgroup_id == want)
						root = procs[k].cgroup;
				if (p->cgroup_id != want && !(root && is_below(p->cgroup, root)))
					continue;
			}
			held = tb[GPUMEM_A_PROC_VIEW] &&
			       nla_get_u32(tb[GPUMEM_A_PROC_VIEW]) == GPUMEM_PROC_VIEW_HELD;
			m = reply(cmd);
			nla_put_u32(m, GPUMEM_A_PROC_PID, p->pid);
			nla_put_string(m, GPUMEM_A_PROC_COMM, p->comm);
			put_u64(m, GPUMEM_A_PROC_CGROUP_ID, p->cgroup_id, GPUMEM_A_PROC_PAD);
			if (p->cgroup)
				nla_put_string(m, GPUMEM_A_PROC_CGROUP_PATH, p->cgroup);
			nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, p->dev);
			nla_put_u32(m, GPUMEM_A_PROC_VIEW,
				    held ? GPUMEM_PROC_VIEW_HELD : GPUMEM_PROC_VIEW_CHARGED);
			/* like kmod/netlink.c: the charged view has vram and gtt only */
			for (r = 0; r < (held ? 4 : 2); r++) {
				struct nlattr *n = nla_nest_start(m, GPUMEM_A_PROC_USAGE);

				nla_put_u32(m, GPUMEM_A_USAGE_REGION, (uint32_t)r);
				put_u64(m, GPUMEM_A_USAGE_BYTES, p->usage[r], GPUMEM_A_USAGE_PAD);
				nla_nest_end(m, n);
			}
			if (held) {
				put_u64(m, GPUMEM_A_PROC_SHARED, p->shared, GPUMEM_A_PROC_PAD);
				put_u64(m, GPUMEM_A_PROC_OWNED, p->owned, GPUMEM_A_PROC_PAD);
				nla_put_u32(m, GPUMEM_A_PROC_SKIPPED, p->skipped);
			}
			nla_put_u32(m, GPUMEM_A_PROC_BOS, p->bos);
			ret = deliver(m, fn, arg, &cb_err);
		}
		break;
	case GPUMEM_CMD_BUF_GET:
		if (!tb[GPUMEM_A_BUF_OWNER]) {
			nlmsg_free(req);
			return fail(nl, EINVAL, "owner (pid) is required", GPUMEM_A_BUF_OWNER);
		}
		for (i = 0; i < N(bufs); i++) {
			const struct fake_buf *b = &bufs[i];
			struct nl_msg *m;
			uint32_t want = nla_get_u32(tb[GPUMEM_A_BUF_OWNER]);	/* held by */

			for (h = 0; h < 3 && b->holders[h] != want; h++)
				;
			if (h == 3)
				continue;
			if (tb[GPUMEM_A_BUF_DEV_ID] && nla_get_u32(tb[GPUMEM_A_BUF_DEV_ID]) != b->dev)
				continue;
			m = reply(cmd);
			nla_put_u32(m, GPUMEM_A_BUF_DEV_ID, b->dev);
			nla_put_u32(m, GPUMEM_A_BUF_OWNER, b->owner);
			nla_put_u32(m, GPUMEM_A_BUF_HANDLE, b->handle);
			put_u64(m, GPUMEM_A_BUF_SIZE, b->size, GPUMEM_A_BUF_PAD);
			nla_put_u32(m, GPUMEM_A_BUF_REGION, b->region);
			if (b->has_mt)
				nla_put_u32(m, GPUMEM_A_BUF_MEM_TYPE, b->mt);
			nla_put_u8(m, GPUMEM_A_BUF_SHARED, b->shared);
			for (h = 0; h < 3 && b->holders[h]; h++)
				nla_put_u32(m, GPUMEM_A_BUF_HOLDER, b->holders[h]);
			ret = deliver(m, fn, arg, &cb_err);
		}
		break;
	case GPUMEM_CMD_STATS_GET: {
		struct nl_msg *m = reply(cmd);

		put_u64(m, GPUMEM_A_STATS_WALKS, 12, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_WALKS_FAILED, 0, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_NS, 1234567, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_CLIENTS, 4, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_BOS, 100, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LAST_WALK_SKIPPED, 2, GPUMEM_A_STATS_PAD);
		nla_put_u32(m, GPUMEM_A_STATS_DEVICES, 3);
		put_u64(m, GPUMEM_A_STATS_CHARGED, 501, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_UNCHARGED, 430, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_CHARGE_FAILED, 5, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_DENIED, 17, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_GUARD_REFUSED, 23, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_SENT, 29, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_SUPPRESSED, 6, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_EVENTS_LOST, 2, GPUMEM_A_STATS_PAD);
		put_u64(m, GPUMEM_A_STATS_LIVE_RECORDS, 71, GPUMEM_A_STATS_PAD);
		ret = deliver(m, fn, arg, &cb_err);
		break;
	}
	case GPUMEM_CMD_LIMIT_SET:
	case GPUMEM_CMD_LIMIT_GET:
	case GPUMEM_CMD_LIMIT_DEL:
	case GPUMEM_CMD_CGROUP_GET:
		ret = limit_cmd(nl, req, cmd, tb, fn, arg, &cb_err);
		nlmsg_free(req);
		return ret;
	default:
		nlmsg_free(req);
		return fail(nl, EOPNOTSUPP, NULL, -1);
	}
	nlmsg_free(req);
	if (cmd == GPUMEM_CMD_PROC_GET && strcmp(fake_mode(), "dumpfail") == 0)
		return fail(nl, ENOMEM, "snapshot: out of memory", -1);
	if (ret < 0) {
		nl->error = -ret;
		return ret;
	}
	return 0;
}

/* libdrm's sysfs view: card0 is a QXL on PCI, the others have no PCI ids. */
/*
 * GM_FAKE=dumpintr: the first dump of a run is answered twice over, every
 * row two times, and marked NLM_F_DUMP_INTR (the kernel's lists changed
 * while it was dumped); what follows is answered once. A client that does
 * not ask again shows every row twice.
 */
int gm_nl_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg)
{
	static bool interrupted_once;
	struct nl_msg *again;
	int ret;

	if (strcmp(fake_mode(), "dumpintr") != 0 || interrupted_once ||
	    !(nlmsg_hdr(req)->nlmsg_flags & NLM_F_DUMP))
		return fake_run(nl, req, fn, arg);
	interrupted_once = true;
	again = nlmsg_convert(nlmsg_hdr(req));
	if (!again) {
		nlmsg_free(req);
		return fail(nl, ENOMEM, NULL, -1);
	}
	ret = fake_run(nl, again, fn, arg);
	if (ret == 0)
		ret = fake_run(nl, req, fn, arg);
	else
		nlmsg_free(req);
	nl->interrupted = ret == 0;
	return ret;
}

void gm_drm_enrich(struct gm_dev *d)
{
	if (d->id == 0) {
		d->has_pci = true;
		d->pci_vendor = 0x1b36;
		d->pci_device = 0x0100;
	}
}

/* --- the events group ------------------------------------------------------ */

enum step_kind { EV, LOST, GONE };
static const struct fake_step {
	enum step_kind kind;
	uint32_t type;
	uint64_t seq, cgroup_id;
	const char *cgroup, *comm;
	uint32_t pid, dev, region;
	uint64_t requested, usage, limit;
	int mode, denied;	/* -1: not sent */
	uint64_t suppressed;
} script[] = {
	/* first connection */
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 1, 4711, "/test/a", "gpumem-alloc", 812, 0,
	  GPUMEM_REGION_VRAM, 4 * MiB, 62 * MiB, 64 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 1, 0 },
	{ EV, GPUMEM_EVENT_TYPE_HIGH_CROSSED, 2, 4713, "/test/a/big", "big", 900, 0,
	  GPUMEM_REGION_VRAM, MiB, 48 * MiB, 48 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 0, 0 },
	{ EV, GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD, 5, 0, NULL, NULL, 0, 0,
	  GPUMEM_REGION_VRAM, MiB, 120 * MiB, 120795955, -1, 0, 0 },
	{ LOST, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 6, 4712, "/test/a b", "gm sp\tace", 815, 2,
	  GPUMEM_REGION_SYSTEM, 65536, 2 * MiB, 2 * MiB, GPUMEM_LIMIT_MODE_MONITOR, 0, 3 },
	{ GONE, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	/* after the module came back: numbering starts again */
	{ EV, GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, 1, 4711, "/test/a", "gpumem-alloc", 812, 0,
	  GPUMEM_REGION_VRAM, 4 * MiB, 62 * MiB, 64 * MiB, GPUMEM_LIMIT_MODE_ENFORCE, 1, 0 },
};

static struct {
	int pipe[2];		/* readable while the script has steps for this connection */
	size_t next;		/* the next step */
	int gone, lookups;	/* the family is away; look-ups since */
	int subscribed;
} w = { { -1, -1 }, 0, 0, 0, 0 };

static int watching(void)
{
	return strcmp(fake_mode(), "watch") == 0;
}

static void arm(void)
{
	char c = 1, buf[16];

	while (read(w.pipe[0], buf, sizeof(buf)) > 0)	/* non-blocking: drain */
		;
	if (watching() && w.subscribed && !w.gone && w.next < N(script) &&
	    write(w.pipe[1], &c, 1) != 1)
		abort();
}

int gm_nl_subscribe(struct gm_nl *nl, const char *family, const char *group)
{
	const char *mode = fake_mode();

	(void)group;
	memset(nl, 0, sizeof(*nl));
	nl->miss_type = -1;
	snprintf(nl->family_name, sizeof(nl->family_name), "%s", family);
	if (strcmp(mode, "nomodule") == 0 || w.gone) {
		nl->error = ENOENT;
		nl->no_family = true;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	if (strcmp(mode, "eperm") == 0 && GM_SPEC_EVENTS_ADMIN) {
		nl->error = EPERM;
		return -EPERM;
	}
	if (strcmp(mode, "oldmodule") == 0) {
		nl->error = ENOENT;
		nl->lib_err = "Object not found";
		return -ENOENT;
	}
	if (w.pipe[0] < 0 && pipe(w.pipe) < 0)
		abort();
	fcntl(w.pipe[0], F_SETFL, O_NONBLOCK);
	w.gone = 0;
	w.subscribed = 1;
	nl->family = FAKE_FAMILY;
	arm();
	return 0;
}

/* After the script's GONE: absent for two looks, back at the third. */
int gm_nl_family_present(const char *family)
{
	if (strcmp(family, GPUMEM_FAMILY_NAME) != 0 || strcmp(fake_mode(), "nomodule") == 0)
		return 0;
	if (w.gone && ++w.lookups < 3)
		return 0;
	w.gone = 0;
	return 1;
}

int gm_nl_event_fd(const struct gm_nl *nl)
{
	(void)nl;
	return w.pipe[0];
}

static struct nl_msg *event_msg(const struct fake_step *s)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, 0, 0, FAKE_FAMILY, 0, 0, GPUMEM_CMD_QUOTA_EVENT, GPUMEM_FAMILY_VERSION);
	nla_put_u32(m, GPUMEM_A_EVENT_TYPE, s->type);
	put_u64(m, GPUMEM_A_EVENT_SEQ, s->seq, GPUMEM_A_EVENT_PAD);
	if (s->cgroup) {
		put_u64(m, GPUMEM_A_EVENT_CGROUP_ID, s->cgroup_id, GPUMEM_A_EVENT_PAD);
		nla_put_string(m, GPUMEM_A_EVENT_CGROUP_PATH, s->cgroup);
		nla_put_u32(m, GPUMEM_A_EVENT_PID, s->pid);
		nla_put_string(m, GPUMEM_A_EVENT_COMM, s->comm);
	}
	nla_put_u32(m, GPUMEM_A_EVENT_DEV_ID, s->dev);
	nla_put_u32(m, GPUMEM_A_EVENT_REGION, s->region);
	put_u64(m, GPUMEM_A_EVENT_REQUESTED, s->requested, GPUMEM_A_EVENT_PAD);
	put_u64(m, GPUMEM_A_EVENT_USAGE, s->usage, GPUMEM_A_EVENT_PAD);
	put_u64(m, GPUMEM_A_EVENT_LIMIT, s->limit, GPUMEM_A_EVENT_PAD);
	if (s->mode >= 0)
		nla_put_u32(m, GPUMEM_A_EVENT_MODE, (uint32_t)s->mode);
	if (s->denied >= 0)
		nla_put_u8(m, GPUMEM_A_EVENT_DENIED, (uint8_t)s->denied);
	if (s->suppressed)
		put_u64(m, GPUMEM_A_EVENT_SUPPRESSED, s->suppressed, GPUMEM_A_EVENT_PAD);
	return m;
}

int gm_nl_read_events(struct gm_nl *nl, gm_nl_reply_fn fn, void *arg)
{
	int ret = 0;

	while (watching() && !w.gone && w.next < N(script)) {
		const struct fake_step *s = &script[w.next++];
		struct nl_msg *m;

		if (s->kind == LOST) {
			ret = -ENOBUFS;
			break;
		}
		if (s->kind == GONE) {
			w.gone = 1;
			w.lookups = 0;
			w.subscribed = 0;
			ret = -ENODEV;
			break;
		}
		m = event_msg(s);
		ret = fn(m, arg);
		nlmsg_free(m);
		if (ret < 0)
			break;
	}
	arm();
	if (ret < 0)
		nl->error = -ret;
	return ret;
}
