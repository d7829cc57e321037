/* SPDX-License-Identifier: GPL-2.0 */
/*
 * query.h - gpumem's netlink requests as C calls: every reply is checked
 * against a policy and turned into the structs below (uapi/gpumem.yaml).
 */
#ifndef GPUMEMCTL_QUERY_H
#define GPUMEMCTL_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmem.h"
#include "nl.h"

#include "../../uapi/gpumem.h"

/* vram, gtt, system, other: the values of enum gpumem_region (uapi) */
#define GM_NREGIONS (GPUMEM_REGION_MAX + 1)

/* "vram", "gtt", "system", "other"; NULL for a value the spec does not name */
const char *gm_region_name(uint32_t region);
/* the name, or the number for an unknown region ("7"); buf: 12 bytes */
const char *gm_region_label(uint32_t region, char *buf);

/*
 * The attributes of one reply message (or nest) as the kernel sent them,
 * checked against the spec's policy (nlspec.c): a field of a command's list
 * reads any of them by type (fields.h, gm_get_attr_*), so showing a new
 * attribute of a reply needs no member in the structs below and no line in
 * their parsers. The named members are for what gpumemctl computes with
 * (sorting, filtering, looking devices up, sums).
 */
struct gm_raw {
	void *data;	/* a copy of the attributes (NULL: none) */
	int len;
};

/* attribute TYPE of r, or NULL when it was not sent */
const struct nlattr *gm_raw_find(const struct gm_raw *r, int type);
/* an integer attribute (u8 to u64, by its length); false when not sent */
bool gm_raw_uint(const struct gm_raw *r, int type, uint64_t *v);
/* a string attribute (NUL-terminated: the policy checked); NULL when not sent */
const char *gm_raw_str(const struct gm_raw *r, int type);
/*
 * every u32 attribute TYPE of r (a multi-attr), in order: a malloc'ed array
 * in *out (NULL when there is none) and its length in *n; 0 or -ENOMEM
 */
int gm_raw_u32s(const struct gm_raw *r, int type, uint32_t **out, size_t *n);
void gm_raw_free(struct gm_raw *r);

/*
 * A dmem cgroup region of a device region's manager (dev-dmem), and the
 * root cgroup's dmem.current of it (gm_dmem_enrich(); unknown before).
 */
#define GM_DMEM_PER_REGION 2
struct gm_dev_dmem {
	char name[64];		/* "" when the kernel does not know it */
	uint32_t source;	/* enum gpumem_dmem_source */
	bool has_capacity;
	uint64_t capacity;
	bool has_current;
	uint64_t current;	/* root cgroup's dmem.current: all charged */
};

struct gm_dev_region {
	uint32_t region;
	bool has_capacity, has_used;
	uint64_t capacity, used;
	struct gm_dev_dmem dmem[GM_DMEM_PER_REGION];	/* dmem regions, kernel's order */
	size_t ndmem;
	struct gm_raw raw;	/* the dev-region nest */
};

struct gm_dev {
	uint32_t id;		/* N of /dev/dri/cardN */
	char *name, *driver, *unique;	/* never NULL ("" if not sent) */
	bool ttm;
	struct gm_dev_region *regions;	/* in the kernel's order */
	size_t nregions;
	char *desc;		/* the driver's description (kernel), or NULL */
	/* from libdrm's sysfs look-up (drminfo.c), never opening the device */
	bool has_pci;
	uint16_t pci_vendor, pci_device;
	struct gm_raw raw;	/* the dev message (the region nests among them) */
};

/*
 * A process row. Its strings are in raw's memory (the copy of its
 * attributes): a row of a gm_proc_list lives as long as the list, one from
 * gm_parse_proc() until gm_proc_free().
 */
struct gm_proc {
	uint32_t pid;
	char *comm;		/* never NULL ("" if not sent) */
	bool has_cgroup_id;
	uint64_t cgroup_id;
	char *cgroup;		/* NULL if the kernel did not know the path */
	uint32_t dev_id;
	uint64_t usage[GM_NREGIONS];	/* bytes per enum gpumem_region */
	uint64_t shared, owned;	/* held view only */
	uint32_t bos;
	uint32_t skipped;	/* held view: buffers busy, in no figure */
	bool held;		/* the held view (walk), else the charged view */
	struct gm_raw raw;
};

/* owner, mem-type, shared: in raw only (`buffers` shows them, nothing else uses them) */
struct gm_buf {
	uint32_t dev_id, handle;
	uint64_t size;
	uint32_t region;
	uint32_t *holders;
	size_t nholders;
	struct gm_raw raw;
};

/* STATS_GET's reply: nothing is computed with it, `stats` shows its attributes */
struct gm_stats {
	struct gm_raw raw;
};

/*
 * A limit (LIMIT_GET) or a cgroup's usage on a device and region with the
 * limit set on exactly that (CGROUP_GET): the "limit" attribute set.
 */
struct gm_limit {
	uint64_t cgroup_id;
	char *cgroup;		/* path below the cgroup2 root; NULL if not sent */
	bool has_dev;		/* false: all devices */
	uint32_t dev_id;
	uint32_t region;	/* vram when not sent */
	bool has_max, has_high, has_mode, has_usage, has_denied;
	uint64_t max, high;
	uint32_t mode;		/* enum gpumem_limit_mode */
	uint64_t usage, denied;
	struct gm_raw raw;
	/*
	 * The dmem region of the row's device region ("" when none or an
	 * all-devices row) and the cgroup's dmem figures of it, from its
	 * cgroup files (gm_dmem_limits(); unknown before)
	 */
	char dmem_region[64];
	struct gm_dmem_val dmem[GM_DMEM_NFILES];
};

/* What names a limit: cgroup, device (or all) and region. */
struct gm_limit_key {
	uint64_t cgroup_id;
	bool has_dev;
	uint32_t dev_id;
	uint32_t region;
};

/* LIMIT_SET: at least one of max and high. */
struct gm_limit_req {
	struct gm_limit_key key;
	bool has_max, has_high, has_mode;
	bool replace;		/* replace the whole limit, else change what is given */
	uint64_t max, high;
	uint32_t mode;
};

/* A QUOTA_EVENT of the "events" multicast group; has_* for what was sent. */
struct gm_event {
	uint32_t type;		/* enum gpumem_event_type */
	bool has_type, has_seq, has_cgroup_id, has_pid, has_dev_id, has_region;
	bool has_requested, has_usage, has_limit, has_mode, has_denied, has_source;
	uint64_t seq, cgroup_id;
	char *cgroup, *comm;	/* NULL if not sent */
	uint32_t pid, dev_id, region, mode;
	uint32_t source;	/* enum gpumem_limit_source: who decided */
	uint64_t requested, usage, limit, suppressed;
	bool denied;
	struct gm_raw raw;
};

/* memory that a list's elements share, freed with the list (query.c) */
struct gm_mem;

struct gm_dev_list { struct gm_dev *v; size_t n, cap; };
struct gm_proc_list { struct gm_proc *v; size_t n, cap; struct gm_mem *mem; };
struct gm_buf_list { struct gm_buf *v; size_t n, cap; };
/* dmem: some row has a dmem region (gm_dmem_limits()): its fields are shown */
struct gm_limit_list { struct gm_limit *v; size_t n, cap; bool dmem; };

struct gm_proc_filter {
	bool has_pid, has_dev, has_cgroup;
	uint32_t pid, dev_id;
	uint64_t cgroup_id;
	bool held;	/* ask for the held view (a walk) instead of the counters */
};

/*
 * Requests: 0 or -errno, with the kernel's error and extack message in nl
 * (what to tell the user is the commands' business: gm_report()). Every
 * dump is asked again when the kernel marks it interrupted.
 */
int gm_get_devices(struct gm_nl *nl, struct gm_dev_list *out);
int gm_get_procs(struct gm_nl *nl, const struct gm_proc_filter *f, struct gm_proc_list *out);
int gm_get_bufs(struct gm_nl *nl, uint32_t owner, bool has_dev, uint32_t dev_id,
		struct gm_buf_list *out);
int gm_get_stats(struct gm_nl *nl, struct gm_stats *out);
int gm_limit_set(struct gm_nl *nl, const struct gm_limit_req *req);
int gm_limit_get(struct gm_nl *nl, const struct gm_limit_key *key, struct gm_limit *out);
int gm_limit_del(struct gm_nl *nl, const struct gm_limit_key *key);
/* every limit (LIMIT_GET dump), sorted (gm_limits_sort) */
int gm_get_limits(struct gm_nl *nl, struct gm_limit_list *out);
/* usage per cgroup, device and region (CGROUP_GET dump), sorted */
int gm_get_cgroups(struct gm_nl *nl, struct gm_limit_list *out);

/*
 * Reply parsers (exposed for the unit tests): 0, -EPROTO or -ENOMEM. A
 * process row from gm_parse_proc() is freed with gm_proc_free().
 */
int gm_parse_dev(const struct nlmsghdr *nlh, struct gm_dev *d);
int gm_parse_proc(const struct nlmsghdr *nlh, struct gm_proc *p);
int gm_parse_buf(const struct nlmsghdr *nlh, struct gm_buf *b);
int gm_parse_stats(const struct nlmsghdr *nlh, struct gm_stats *s);
int gm_parse_limit(const struct nlmsghdr *nlh, struct gm_limit *l);
int gm_parse_event(const struct nlmsghdr *nlh, struct gm_event *e);

/*
 * The names of enum values, from the spec (nlspec.c, generated): NULL for a
 * value the spec does not name (a newer module's).
 */
/* "enforce", "monitor" */
const char *gm_mode_name(uint32_t mode);
/* "quota-exceeded", "high-crossed", "device-threshold" */
const char *gm_event_type_name(uint32_t type);
/* "driver", "gpumem" (enum gpumem_dmem_source); NULL if unknown */
const char *gm_dmem_source_name(uint32_t source);
/* "gpumem", "dmem" (enum gpumem_limit_source); NULL if unknown */
const char *gm_limit_source_name(uint32_t source);
/* "charged", "held" */
const char *gm_view_name(uint32_t view);
/*
 * gm_orphan_kinds_label: the names of the orphan-kind flags set in kinds
 * ("dma-buf,mapping"), appended to buf at offset at (after a comma when at
 * is not 0); flags the spec does not name are left out. Returns the new
 * length (at most len - 1).
 */
size_t gm_orphan_kinds_label(char *buf, size_t len, size_t at, uint32_t kinds);

/* sort by cgroup path (then id), all devices before each device, region */
void gm_limits_sort(struct gm_limit_list *l);

/* sort by pid, then device */
void gm_procs_sort(struct gm_proc_list *l);

const struct gm_dev *gm_dev_find(const struct gm_dev_list *l, uint32_t id);

void gm_dev_free(struct gm_dev *d);
void gm_dev_list_free(struct gm_dev_list *l);
void gm_proc_free(struct gm_proc *p);
void gm_proc_list_free(struct gm_proc_list *l);
void gm_buf_free(struct gm_buf *b);
void gm_buf_list_free(struct gm_buf_list *l);
void gm_stats_free(struct gm_stats *s);
void gm_limit_free(struct gm_limit *l);
void gm_limit_list_free(struct gm_limit_list *l);
void gm_event_free(struct gm_event *e);

/* --- events as they arrive --------------------------------------------- */

/*
 * Sequence numbers: gm_seq_next() returns how many events were missed
 * before e (0 when e follows the last one, when it is the first, or when
 * the numbers went back: a reloaded module starts again) and sets *first to
 * the first missing number.
 */
struct gm_seq {
	bool valid;
	uint64_t last;
};
uint64_t gm_seq_next(struct gm_seq *s, const struct gm_event *e, uint64_t *first);

/*
 * gm_receive_event: a message read from the event group. 1: it is an event,
 * *e holds it (free it with gm_event_free()) and missed and first say which
 * events were missed before it (gm_seq_next() on s); 0: another command, not
 * an event (ignore it); -EPROTO: a malformed event (dropped; its number is
 * unknown, so the gap shows at the next one).
 */
int gm_receive_event(const struct nlmsghdr *nlh, struct gm_seq *s, struct gm_event *e,
		     uint64_t *missed, uint64_t *first);

#endif
