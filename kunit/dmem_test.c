// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: gpumem beside the dmem cgroup controller (kmod/dmem.c): the names
 * drivers give their dmem regions, the lookup of a device region's dmem
 * regions, and the refusal of a gpumem max where dmem limits (its extack
 * names the region and the file to write). The regions are entries made by
 * hand in gpumem's list (no device, no dmem region registered); the
 * driver names need a kernel with dmem (the test kernel).
 */
#include <kunit/test.h>
#include "../kmod/dmem.c"

#define DM_MINOR	41
#define DM_NAME0	"drm/0000:03:00.0/vram0"
#define DM_NAME1	"drm/0000:03:00.0/vram1"

/* An entry of gpumem_dmem_mans for @minor's @region named @name. */
static void dm_add(struct kunit *test, int minor, u8 region, const char *name)
{
	struct gpumem_dmem_man *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, d);
	d->minor = minor;
	d->region = region;
	d->info.source = GPUMEM_DMEM_SOURCE_GPUMEM;
	d->info.capacity = 64ULL << 20;
	strscpy(d->info.name, name, sizeof(d->info.name));
	mutex_lock(&gpumem_dmem_lock);
	list_add_tail_rcu(&d->node, &gpumem_dmem_mans);
	mutex_unlock(&gpumem_dmem_lock);
}

static void dm_exit(struct kunit *test)
{
	struct gpumem_dmem_man *d, *n;

	/* the entries are kunit_kzalloc'ed: freed with the test */
	mutex_lock(&gpumem_dmem_lock);
	list_for_each_entry_safe(d, n, &gpumem_dmem_mans, node)
		list_del_rcu(&d->node);
	mutex_unlock(&gpumem_dmem_lock);
	synchronize_rcu();
}

/* A device region's dmem regions, in the order found, at most @max. */
static void dm_regions(struct kunit *test)
{
	struct gpumem_dmem_info info[4];

	dm_add(test, DM_MINOR, GPUMEM_REGION_VRAM, DM_NAME0);
	dm_add(test, DM_MINOR + 1, GPUMEM_REGION_VRAM, "drm/0000:04:00.0/vram0");
	dm_add(test, DM_MINOR, GPUMEM_REGION_VRAM, DM_NAME1);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_regions(DM_MINOR, GPUMEM_REGION_VRAM,
						  info, 4), 2U);
	KUNIT_EXPECT_STREQ(test, info[0].name, DM_NAME0);
	KUNIT_EXPECT_STREQ(test, info[1].name, DM_NAME1);
	KUNIT_EXPECT_EQ(test, info[1].capacity, 64ULL << 20);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_regions(DM_MINOR, GPUMEM_REGION_VRAM,
						  info, 1), 1U);
	KUNIT_EXPECT_STREQ(test, info[0].name, DM_NAME0);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_regions(DM_MINOR, GPUMEM_REGION_GTT,
						  info, 4), 0U);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_regions(DM_MINOR + 2,
						  GPUMEM_REGION_VRAM, info, 4),
			0U);
}

#if GPUMEM_HAVE_DMEM
/* The names amdgpu, xe and nouveau give their regions; none for others. */
static void dm_driver_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, gpumem_dmem_driver_name("amdgpu", TTM_PL_VRAM),
			   "vram");
	KUNIT_EXPECT_STREQ(test, gpumem_dmem_driver_name("xe", TTM_PL_VRAM),
			   "vram0");
	KUNIT_EXPECT_STREQ(test, gpumem_dmem_driver_name("xe", TTM_PL_VRAM + 1),
			   "vram1");
	KUNIT_EXPECT_STREQ(test, gpumem_dmem_driver_name("nouveau", TTM_PL_VRAM),
			   "vram");
	KUNIT_EXPECT_NULL(test, gpumem_dmem_driver_name("amdgpu", TTM_PL_TT));
	KUNIT_EXPECT_NULL(test, gpumem_dmem_driver_name("qxl", TTM_PL_VRAM));
	KUNIT_EXPECT_NULL(test, gpumem_dmem_driver_name("xe", TTM_PL_VRAM + 2));
}

/* A gpumem max where dmem limits: refused, and the message says where. */
static void dm_refuse_max(struct kunit *test)
{
	struct netlink_ext_ack extack = {};

	KUNIT_EXPECT_EQ(test, gpumem_dmem_refuse_max(DM_MINOR,
						     GPUMEM_REGION_VRAM,
						     &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	dm_add(test, DM_MINOR, GPUMEM_REGION_VRAM, DM_NAME0);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_refuse_max(DM_MINOR,
						     GPUMEM_REGION_VRAM,
						     &extack), -EOPNOTSUPP);
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_STREQ(test, extack._msg,
			   "dmem limits it: write '" DM_NAME0 " <bytes>' to dmem.max");
	/* the device's other regions, and other devices, are gpumem's */
	memset(&extack, 0, sizeof(extack));
	KUNIT_EXPECT_EQ(test, gpumem_dmem_refuse_max(DM_MINOR,
						     GPUMEM_REGION_GTT,
						     &extack), 0);
	KUNIT_EXPECT_EQ(test, gpumem_dmem_refuse_max(DM_MINOR + 1,
						     GPUMEM_REGION_VRAM,
						     &extack), 0);
	KUNIT_EXPECT_NULL(test, extack._msg);
	/* a region whose name gpumem does not know: the file, without it */
	dm_add(test, DM_MINOR + 1, GPUMEM_REGION_VRAM, "");
	KUNIT_EXPECT_EQ(test, gpumem_dmem_refuse_max(DM_MINOR + 1,
						     GPUMEM_REGION_VRAM,
						     &extack), -EOPNOTSUPP);
	KUNIT_ASSERT_NOT_NULL(test, extack._msg);
	KUNIT_EXPECT_STREQ(test, extack._msg,
			   "the dmem controller limits this region: write the cgroup's dmem.max");
}
#else
static void dm_driver_names(struct kunit *test)
{
	kunit_skip(test, "this kernel has no dmem controller");
}

static void dm_refuse_max(struct kunit *test)
{
	kunit_skip(test, "this kernel has no dmem controller");
}
#endif

static struct kunit_case gpumem_dmem_cases[] = {
	KUNIT_CASE(dm_regions),
	KUNIT_CASE(dm_driver_names),
	KUNIT_CASE(dm_refuse_max),
	{}
};

static struct kunit_suite gpumem_dmem_suite = {
	.name = "gpumem_dmem",
	.exit = dm_exit,
	.test_cases = gpumem_dmem_cases,
};

kunit_test_suite(gpumem_dmem_suite);
