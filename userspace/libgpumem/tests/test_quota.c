// SPDX-License-Identifier: GPL-2.0
/*
 * test_quota.c - limits, cgroup usage and quota events as tables, JSON and event
 * lines (quota.c).
 * (part of test_gpumemctl; see harness.h)
 */
#include "harness.h"

/* --- limits and events as text -------------------------------------------- */

/*
 * A leak-suspect event as the kernel sends it (growth, rate and windows are
 * attributes the CLI only shows: read through the event's raw attributes):
 * a process's, then a cgroup's (no pid, no comm).
 */
static void test_leak_event(const struct timespec *when)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct gm_event e;
	struct mem m;
	char *out;

	genlmsg_put(msg, 0, 0, 0x20, 0, 0, GPUMEM_CMD_QUOTA_EVENT, GPUMEM_FAMILY_VERSION);
	nla_put_u32(msg, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_LEAK_SUSPECT);
	nla_put_u64(msg, GPUMEM_A_EVENT_SEQ, 7);
	nla_put_u64(msg, GPUMEM_A_EVENT_CGROUP_ID, 4711);
	nla_put_string(msg, GPUMEM_A_EVENT_CGROUP_PATH, "/leaky");
	nla_put_u32(msg, GPUMEM_A_EVENT_PID, 321);
	nla_put_string(msg, GPUMEM_A_EVENT_COMM, "stair");
	nla_put_u32(msg, GPUMEM_A_EVENT_DEV_ID, 0);
	nla_put_u32(msg, GPUMEM_A_EVENT_REGION, GPUMEM_REGION_VRAM);
	nla_put_u64(msg, GPUMEM_A_EVENT_USAGE, 5 << 20);
	nla_put_u64(msg, GPUMEM_A_EVENT_SUPPRESSED, 0);
	nla_put_u64(msg, GPUMEM_A_EVENT_GROWTH, 3 << 20);
	nla_put_u64(msg, GPUMEM_A_EVENT_RATE, 1 << 20);
	nla_put_u32(msg, GPUMEM_A_EVENT_WINDOW_MS, 1000);
	nla_put_u32(msg, GPUMEM_A_EVENT_WINDOWS, 3);
	eq_u64("leak-suspect: parsed", (uint64_t)gm_parse_event(nlmsg_hdr(msg), &e), 0);
	gm_event_line(mem_open(&m), &e, when, false);
	out = mem_close(&m);
	eq_str("event line (leak-suspect)", out,
	       "2025-11-22 01:24:05 leak-suspect cgroup /leaky pid 321 (stair) card0 vram: "
	       "usage 5.0 MiB, growth 3.0 MiB, 1.0 MiB/s; over 3 windows of 1000 ms\n");
	free(out);
	gm_event_json(mem_open(&m), &e, when, 0);
	out = mem_close(&m);
	eq_str("event JSON (leak-suspect: growth, rate, windows; no requested, limit, denied)", out,
	       "{\"time\":\"2025-11-22T01:24:05.123Z\",\"seq\":7,\"type\":\"leak-suspect\","
	       "\"cgroup_id\":4711,\"cgroup\":\"/leaky\",\"pid\":321,\"comm\":\"stair\","
	       "\"device\":\"card0\",\"region\":\"vram\",\"requested\":null,\"usage\":5242880,"
	       "\"limit\":null,\"growth\":3145728,\"rate\":1048576,\"windows\":3,"
	       "\"window_ms\":1000,\"mode\":null,\"denied\":null,\"suppressed\":0,"
	       "\"missed\":0}\n");
	free(out);
	gm_event_free(&e);
	nlmsg_free(msg);
}

/*
 * An orphaned event as the kernel sends it: the bytes left (usage), the
 * buffers, holder pids (a multi-attr) and kinds; then one kept by a
 * mapping only (no holder).
 */
static void test_orphaned_event(const struct timespec *when)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct gm_event e;
	struct mem m;
	char *out;

	genlmsg_put(msg, 0, 0, 0x20, 0, 0, GPUMEM_CMD_QUOTA_EVENT, GPUMEM_FAMILY_VERSION);
	nla_put_u32(msg, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_ORPHANED);
	nla_put_u64(msg, GPUMEM_A_EVENT_SEQ, 9);
	nla_put_u64(msg, GPUMEM_A_EVENT_CGROUP_ID, 4711);
	nla_put_string(msg, GPUMEM_A_EVENT_CGROUP_PATH, "/tenant");
	nla_put_u32(msg, GPUMEM_A_EVENT_PID, 321);
	nla_put_string(msg, GPUMEM_A_EVENT_COMM, "parent");
	nla_put_u32(msg, GPUMEM_A_EVENT_DEV_ID, 0);
	nla_put_u32(msg, GPUMEM_A_EVENT_REGION, GPUMEM_REGION_VRAM);
	nla_put_u64(msg, GPUMEM_A_EVENT_USAGE, 2 << 20);
	nla_put_u64(msg, GPUMEM_A_EVENT_SUPPRESSED, 0);
	nla_put_u32(msg, GPUMEM_A_EVENT_BUFFERS, 2);
	nla_put_u32(msg, GPUMEM_A_EVENT_KINDS, GPUMEM_ORPHAN_KIND_DMA_BUF);
	nla_put_u32(msg, GPUMEM_A_EVENT_HOLDER, 322);
	nla_put_u32(msg, GPUMEM_A_EVENT_HOLDER, 4000);
	eq_u64("orphaned: parsed", (uint64_t)gm_parse_event(nlmsg_hdr(msg), &e), 0);
	gm_event_line(mem_open(&m), &e, when, false);
	out = mem_close(&m);
	eq_str("event line (orphaned)", out,
	       "2025-11-22 01:24:05 orphaned cgroup /tenant pid 321 (parent) card0 vram: "
	       "resident 2.0 MiB, buffers 2; held by 322,4000,dma-buf\n");
	free(out);
	gm_event_json(mem_open(&m), &e, when, 0);
	out = mem_close(&m);
	eq_str("event JSON (orphaned: buffers, holders, kinds)", out,
	       "{\"time\":\"2025-11-22T01:24:05.123Z\",\"seq\":9,\"type\":\"orphaned\","
	       "\"cgroup_id\":4711,\"cgroup\":\"/tenant\",\"pid\":321,\"comm\":\"parent\","
	       "\"device\":\"card0\",\"region\":\"vram\",\"requested\":null,\"usage\":2097152,"
	       "\"limit\":null,\"buffers\":2,\"holders\":[322,4000],\"kinds\":\"dma-buf\","
	       "\"mode\":null,\"denied\":null,\"suppressed\":0,\"missed\":0}\n");
	free(out);
	gm_event_free(&e);
	nlmsg_free(msg);

	msg = nlmsg_alloc();
	genlmsg_put(msg, 0, 0, 0x20, 0, 0, GPUMEM_CMD_QUOTA_EVENT, GPUMEM_FAMILY_VERSION);
	nla_put_u32(msg, GPUMEM_A_EVENT_TYPE, GPUMEM_EVENT_TYPE_ORPHANED);
	nla_put_u64(msg, GPUMEM_A_EVENT_SEQ, 10);
	nla_put_u32(msg, GPUMEM_A_EVENT_PID, 77);
	nla_put_string(msg, GPUMEM_A_EVENT_COMM, "mapper");
	nla_put_u32(msg, GPUMEM_A_EVENT_DEV_ID, 1);
	nla_put_u32(msg, GPUMEM_A_EVENT_REGION, GPUMEM_REGION_GTT);
	nla_put_u64(msg, GPUMEM_A_EVENT_USAGE, 3 << 20);
	nla_put_u32(msg, GPUMEM_A_EVENT_BUFFERS, 1);
	nla_put_u32(msg, GPUMEM_A_EVENT_KINDS, GPUMEM_ORPHAN_KIND_MAPPING);
	eq_u64("orphaned (mapping): parsed", (uint64_t)gm_parse_event(nlmsg_hdr(msg), &e), 0);
	gm_event_line(mem_open(&m), &e, when, true);
	out = mem_close(&m);
	eq_str("event line (orphaned, mapping only, exact)", out,
	       "2025-11-22 01:24:05 orphaned pid 77 (mapper) card1 gtt: "
	       "resident 3145728, buffers 1; held by mapping\n");
	free(out);
	gm_event_json(mem_open(&m), &e, when, 0);
	out = mem_close(&m);
	eq_str("event JSON (orphaned, no holder: an empty list)", out,
	       "{\"time\":\"2025-11-22T01:24:05.123Z\",\"seq\":10,\"type\":\"orphaned\","
	       "\"cgroup_id\":null,\"cgroup\":null,\"pid\":77,\"comm\":\"mapper\","
	       "\"device\":\"card1\",\"region\":\"gtt\",\"requested\":null,\"usage\":3145728,"
	       "\"limit\":null,\"buffers\":1,\"holders\":[],\"kinds\":\"mapping\","
	       "\"mode\":null,\"denied\":null,\"suppressed\":0,\"missed\":0}\n");
	free(out);
	gm_event_free(&e);
	nlmsg_free(msg);
}

/* The orphan kinds' names come from the spec, in flag order, appended. */
static void test_orphan_kinds_label(void)
{
	char buf[32];
	size_t n;

	n = gm_orphan_kinds_label(buf, sizeof(buf), 0, 0);
	eq_u64("kinds label: none is empty", n, 0);
	eq_str("kinds label: none", buf, "");
	n = gm_orphan_kinds_label(buf, sizeof(buf), 0,
				  GPUMEM_ORPHAN_KIND_MAPPING | GPUMEM_ORPHAN_KIND_KERNEL |
				  (1u << 20));
	eq_str("kinds label: flag order, an unknown flag left out", buf, "kernel,mapping");
	eq_u64("kinds label: its length", n, 14);
	snprintf(buf, sizeof(buf), "812");
	n = gm_orphan_kinds_label(buf, sizeof(buf), 3, GPUMEM_ORPHAN_KIND_DMA_BUF);
	eq_str("kinds label: appended after a comma", buf, "812,dma-buf");
	n = gm_orphan_kinds_label(buf, 8, 0, GPUMEM_ORPHAN_KIND_KERNEL | GPUMEM_ORPHAN_KIND_BUSY);
	eq_str("kinds label: cut at the buffer's end", buf, "kernel,");
	eq_u64("kinds label: cut length", n, 7);
}

void test_quota_output(void)
{
	struct gm_limit v[3] = {
		{ .cgroup_id = 4711, .cgroup = "/test/a", .region = GPUMEM_REGION_VRAM,
		  .has_max = true, .max = 64 << 20, .has_high = true, .high = 48 << 20,
		  .has_mode = true, .mode = GPUMEM_LIMIT_MODE_ENFORCE, .has_usage = true,
		  .usage = 16 << 20, .has_denied = true, .denied = 2 },
		{ .cgroup_id = 4712, .cgroup = "/x\ty", .has_dev = true, .dev_id = 2,
		  .region = 7, .has_usage = true, .usage = 1000 },
		{ .cgroup_id = 99, .has_dev = true, .dev_id = 0, .region = GPUMEM_REGION_GTT,
		  .has_high = true, .high = 1, .has_mode = true, .mode = 5 },
	};
	struct gm_limit_list l = { .v = v, .n = 3, .cap = 3 };
	struct timespec when = { .tv_sec = 1763774645, .tv_nsec = 123456789 };
	struct gm_event e = {
		.has_type = true, .type = GPUMEM_EVENT_TYPE_QUOTA_EXCEEDED, .has_seq = true,
		.seq = 42, .has_cgroup_id = true, .cgroup_id = 4711, .cgroup = "/kubepods.slice/pod1",
		.has_pid = true, .pid = 812, .comm = "py\033[2J", .has_dev_id = true, .dev_id = 1,
		.has_region = true, .region = GPUMEM_REGION_VRAM, .has_requested = true,
		.requested = 4 << 20, .has_usage = true, .usage = 62 << 20, .has_limit = true,
		.limit = 64 << 20, .has_mode = true, .mode = GPUMEM_LIMIT_MODE_ENFORCE,
		.has_denied = true, .denied = true, .suppressed = 3,
	};
	struct gm_event t = {
		.has_type = true, .type = GPUMEM_EVENT_TYPE_DEVICE_THRESHOLD, .has_seq = true,
		.seq = 43, .has_dev_id = true, .dev_id = 0, .has_region = true,
		.region = GPUMEM_REGION_VRAM, .has_usage = true, .usage = 1536,
		.has_limit = true, .limit = 1024,
	};
	struct gm_event bare = { .has_type = true, .type = 12 };
	struct gm_seq seq = { 0 };
	uint64_t first = 0;
	struct mem m;
	char *out;

	setenv("TZ", "UTC", 1);
	tzset();

	gm_limits_table(mem_open(&m), &l, false);
	out = mem_close(&m);
	eq_str("limits table: device all, '-' for what is not set, escaped path, id without path", out,
	       "DEVICE  REGION     USAGE       MAX      HIGH   USE%  MODE     DENIED  CGROUP\n"
	       "all     vram    16.0 MiB  64.0 MiB  48.0 MiB  25.0%  enforce       2  /test/a\n"
	       "card2   7         1000 B         -         -      -  -             -  /x\\011y\n"
	       "card0   gtt            -         -       1 B      -  5             -  (id 99)\n");
	free(out);
	gm_limits_table(mem_open(&m), &l, true);
	out = mem_close(&m);
	result(strstr(out, "all     vram    16777216  67108864  50331648  25.0%") != NULL,
	       "limits table --bytes");
	free(out);

	gm_limits_json(mem_open(&m), &l);
	out = mem_close(&m);
	eq_str("limits JSON", out,
	       "[\n"
	       "{\"cgroup_id\":4711,\"cgroup\":\"/test/a\",\"device\":\"all\",\"region\":\"vram\",\"usage\":16777216,\"max\":67108864,\"high\":50331648,\"mode\":\"enforce\",\"denied\":2},\n"
	       "{\"cgroup_id\":4712,\"cgroup\":\"/x\\ty\",\"device\":\"card2\",\"region\":\"7\",\"usage\":1000,\"max\":null,\"high\":null,\"mode\":null,\"denied\":null},\n"
	       "{\"cgroup_id\":99,\"cgroup\":null,\"device\":\"card0\",\"region\":\"gtt\",\"usage\":null,\"max\":null,\"high\":1,\"mode\":\"5\",\"denied\":null}\n"
	       "]\n");
	free(out);
	l.n = 0;
	gm_limits_json(mem_open(&m), &l);
	out = mem_close(&m);
	eq_str("no limits: []", out, "[]\n");
	free(out);

	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	eq_str("event line (quota-exceeded, escaped comm)", out,
	       "2025-11-22 01:24:05 quota-exceeded cgroup /kubepods.slice/pod1 pid 812 (py\\033[2J) "
	       "card1 vram: requested 4.0 MiB, usage 62.0 MiB, max 64.0 MiB; denied (enforce); "
	       "3 suppressed\n");
	free(out);
	gm_event_line(mem_open(&m), &e, &when, true);
	out = mem_close(&m);
	result(strstr(out, "requested 4194304, usage 65011712, max 67108864;") != NULL,
	       "event line --bytes");
	free(out);
	e.type = GPUMEM_EVENT_TYPE_HIGH_CROSSED;
	e.denied = false;
	e.suppressed = 0;
	e.mode = GPUMEM_LIMIT_MODE_MONITOR;
	e.cgroup = NULL;
	e.comm = NULL;
	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	eq_str("event line (high-crossed, no path, no comm)", out,
	       "2025-11-22 01:24:05 high-crossed cgroup (id 4711) pid 812 card1 vram: requested "
	       "4.0 MiB, usage 62.0 MiB, high 64.0 MiB; allowed (monitor)\n");
	free(out);
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	eq_str("event line (device-threshold)", out,
	       "2025-11-22 01:24:05 device-threshold card0 vram: usage 1.5 KiB, threshold 1.0 KiB\n");
	free(out);
	t.denied = true;
	t.has_denied = true;
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	result(strstr(out, "threshold 1.0 KiB; denied\n") != NULL,
	       "event line: another event type says denied when it was");
	free(out);
	t.denied = false;
	gm_event_line(mem_open(&m), &t, &when, false);
	out = mem_close(&m);
	result(strstr(out, "threshold 1.0 KiB\n") != NULL, "... and nothing when it was allowed");
	free(out);
	t.has_denied = false;
	e.dev_id = UINT32_MAX;	/* set below the usage, on all devices */
	gm_event_line(mem_open(&m), &e, &when, false);
	out = mem_close(&m);
	result(strstr(out, " all-devices vram: ") != NULL, "event line: dev-id (u32)-1 is all devices");
	free(out);
	gm_event_json(mem_open(&m), &e, &when, 0);
	out = mem_close(&m);
	result(strstr(out, "\"device\":\"all\",") != NULL, "event JSON: dev-id (u32)-1 is \"all\"");
	free(out);
	e.dev_id = 1;
	gm_event_line(mem_open(&m), &bare, &when, false);
	out = mem_close(&m);
	eq_str("event line (an unknown type, nothing else)", out, "2025-11-22 01:24:05 event-12\n");
	free(out);

	gm_event_json(mem_open(&m), &t, &when, 2);
	out = mem_close(&m);
	eq_str("event JSON (device-threshold: nulls, missed)", out,
	       "{\"time\":\"2025-11-22T01:24:05.123Z\",\"seq\":43,\"type\":\"device-threshold\","
	       "\"cgroup_id\":null,\"cgroup\":null,\"pid\":null,\"comm\":null,\"device\":\"card0\","
	       "\"region\":\"vram\",\"requested\":null,\"usage\":1536,\"limit\":1024,\"mode\":null,"
	       "\"denied\":null,\"suppressed\":0,\"missed\":2}\n");
	free(out);
	e.comm = "a\"b";
	e.usage = UINT64_MAX;
	gm_event_json(mem_open(&m), &e, &when, 0);
	out = mem_close(&m);
	result(strstr(out, "\"comm\":\"a\\\"b\"") && strstr(out, "\"usage\":18446744073709551615,") &&
	       strstr(out, "\"denied\":false,\"suppressed\":0,\"missed\":0}\n"),
	       "event JSON: escaped comm, exact u64, denied false");
	free(out);

	gm_missed_line(mem_open(&m), &when, 1, 7);
	out = mem_close(&m);
	eq_str("missed line, one event", out,
	       "2025-11-22 01:24:05 warning: 1 event missed (seq 7 not received)\n");
	free(out);
	gm_missed_line(mem_open(&m), &when, 3, 7);
	out = mem_close(&m);
	eq_str("missed line, three", out,
	       "2025-11-22 01:24:05 warning: 3 events missed (seq 7 to 9 not received)\n");
	free(out);

	e.seq = 10;
	eq_u64("seq: the first event misses nothing", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 11;
	eq_u64("seq: +1 misses nothing", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 15;
	eq_u64("seq: a gap of 3", gm_seq_next(&seq, &e, &first), 3);
	eq_u64("seq: first missing", first, 12);
	e.seq = 1;
	eq_u64("seq: going back (a reloaded module) is no gap", gm_seq_next(&seq, &e, &first), 0);
	e.seq = 2;
	eq_u64("seq: counting from there", gm_seq_next(&seq, &e, &first), 0);
	e.has_seq = false;
	eq_u64("seq: an event without seq", gm_seq_next(&seq, &e, &first), 0);
	e.has_seq = true;
	e.seq = 3;
	eq_u64("seq: ... leaves the count alone", gm_seq_next(&seq, &e, &first), 0);
	test_leak_event(&when);
	test_orphaned_event(&when);
	test_orphan_kinds_label();
	unsetenv("TZ");
	tzset();
}

/* An nlctrl notification as the kernel sends it (CTRL_CMD_NEWFAMILY/DELFAMILY). */
