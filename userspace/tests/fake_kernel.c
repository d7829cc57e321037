// SPDX-License-Identifier: GPL-2.0
/*
 * fake_kernel.c - a simulated gpumem kernel side for host tests: it takes
 * the place of nl.c's transport (nl.c built with GM_NL_FAKE) and of libdrm
 * (drminfo.c), answers requests with netlink messages built the way the
 * kernel builds them (u64 after a pad attribute, multi-attr nests), and
 * applies the request's filters. Everything above it - query.c, the
 * commands, the printing - is the real code.
 *
 * GM_FAKE in the environment picks a failure:
 *   nomodule  the family does not exist
 *   eperm     BUF_GET is refused (a caller without CAP_NET_ADMIN)
 *   dumpfail  PROC_GET fails half-way with an extack message
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "../../uapi/gpumem.h"
#include "../drminfo.h"
#include "../nl.h"

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
	const char *(*attr_name)(uint8_t, int) = nl->attr_name;

	memset(nl, 0, sizeof(*nl));
	nl->attr_name = attr_name;
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
} devs[] = {
	{ 0, "card0", "qxl", "0000:00:02.0", 1, { GPUMEM_REGION_VRAM, 1, 134209536, 73400320 } },
	{ 1, "card1", "bochs-drm", "0000:00:03.0", 1, { GPUMEM_REGION_VRAM, 1, 16777216, 0 } },
	{ 2, "card2", "vgem", "vgem", 0, { GPUMEM_REGION_SYSTEM, 0, 0, 0 } },
};

static const struct fake_proc {
	uint32_t pid;
	const char *comm;
	uint64_t cgroup_id;	/* 0 for kernel clients, as the kernel sends it */
	const char *cgroup;	/* NULL: not sent */
	uint32_t dev;
	uint64_t usage[4], shared, owned;
	uint32_t bos;
} procs[] = {	/* not in pid order: the commands sort */
	{ 812, "gpumem-alloc", 4711, "/test/a", 0, { 4194304, 0, 0, 0 }, 0, 4194304, 1 },
	{ 0, "[kernel]", 0, NULL, 0, { 1048576, 0, 0, 0 }, 0, 1048576, 1 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 2, { 0, 0, 2097152, 0 }, 1048576, 1048576, 2 },
	{ 815, "gm sp\tace \"q\" \\", 4712, "/test/a b", 0, { 1048576, 0, 0, 0 }, 1048576, 0, 1 },
	{ 900, "big", 4713, "/test/a/big", 0, { 67108864, 4096, 0, 0 }, 0, 67108864, 4 },
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

#define N(a) (sizeof(a) / sizeof(*(a)))

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

int gm_nl_run(struct gm_nl *nl, struct nl_msg *req, gm_nl_reply_fn fn, void *arg)
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
			nla_put_u8(m, GPUMEM_A_DEV_TTM, d->ttm);
			/* a device without TTM has no region (kmod/netlink.c) */
			if (d->ttm) {
				n = nla_nest_start(m, GPUMEM_A_DEV_REGION);
				nla_put_u32(m, GPUMEM_A_DEV_REGION_REGION, d->r.region);
				if (d->r.known)
					put_u64(m, GPUMEM_A_DEV_REGION_CAPACITY, d->r.capacity,
						GPUMEM_A_DEV_REGION_PAD);
				put_u64(m, GPUMEM_A_DEV_REGION_USED, d->r.used, GPUMEM_A_DEV_REGION_PAD);
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
			m = reply(cmd);
			nla_put_u32(m, GPUMEM_A_PROC_PID, p->pid);
			nla_put_string(m, GPUMEM_A_PROC_COMM, p->comm);
			put_u64(m, GPUMEM_A_PROC_CGROUP_ID, p->cgroup_id, GPUMEM_A_PROC_PAD);
			if (p->cgroup)
				nla_put_string(m, GPUMEM_A_PROC_CGROUP_PATH, p->cgroup);
			nla_put_u32(m, GPUMEM_A_PROC_DEV_ID, p->dev);
			for (r = 0; r < 4; r++) {
				struct nlattr *n = nla_nest_start(m, GPUMEM_A_PROC_USAGE);

				nla_put_u32(m, GPUMEM_A_USAGE_REGION, (uint32_t)r);
				put_u64(m, GPUMEM_A_USAGE_BYTES, p->usage[r], GPUMEM_A_USAGE_PAD);
				nla_nest_end(m, n);
			}
			put_u64(m, GPUMEM_A_PROC_SHARED, p->shared, GPUMEM_A_PROC_PAD);
			put_u64(m, GPUMEM_A_PROC_OWNED, p->owned, GPUMEM_A_PROC_PAD);
			nla_put_u32(m, GPUMEM_A_PROC_BOS, p->bos);
			ret = deliver(m, fn, arg, &cb_err);
		}
		break;
	case GPUMEM_CMD_BUF_GET:
		if (strcmp(fake_mode(), "eperm") == 0) {
			nlmsg_free(req);
			return fail(nl, EPERM, NULL, -1);
		}
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
		nla_put_u32(m, GPUMEM_A_STATS_DEVICES, 3);
		ret = deliver(m, fn, arg, &cb_err);
		break;
	}
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

/* libdrm's view: card0 is a QXL on PCI, card2 (vgem) has no PCI ids. */
void gm_drm_enrich(struct gm_dev *d)
{
	if (d->id == 0) {
		d->has_pci = true;
		d->pci_vendor = 0x1b36;
		d->pci_device = 0x0100;
		d->desc = strdup("RH QXL");
	} else if (d->id == 2) {
		d->desc = strdup("Virtual GEM provider");
	}
}
