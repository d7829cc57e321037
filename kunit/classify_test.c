// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the per-driver classification table and manager-size units, for
 * every driver row and every TTM_NUM_MEM_TYPES we support (8 on 6.x, 9 on 7.x).
 */
#include <kunit/test.h>
#include "../kmod/classify.c"

#define VRAM	GPUMEM_REGION_VRAM
#define GTT	GPUMEM_REGION_GTT
#define SYS	GPUMEM_REGION_SYSTEM
#define OTHER	GPUMEM_REGION_OTHER

struct classify_case {
	const char *driver;
	u32 mem_type;
	u32 num_types;
	bool use_tt;
	enum gpumem_region want;
};

static const struct classify_case classify_cases[] = {
	/* amdgpu: PRIV+0..5 = GDS, GWS, OA, PREEMPT, DOORBELL, MMIO_REMAP */
	{ "amdgpu", 0, 8, true, SYS },
	{ "amdgpu", 1, 8, true, GTT },
	{ "amdgpu", 2, 8, false, VRAM },
	{ "amdgpu", 3, 8, false, OTHER },
	{ "amdgpu", 4, 8, false, OTHER },
	{ "amdgpu", 5, 8, false, OTHER },
	{ "amdgpu", 6, 8, true, GTT },
	{ "amdgpu", 7, 8, false, OTHER },
	{ "amdgpu", 8, 9, false, OTHER },
	/* xe: VRAM1 = PRIV, STOLEN = TTM_NUM_MEM_TYPES - 1 */
	{ "xe", 0, 8, true, SYS },
	{ "xe", 1, 8, true, GTT },
	{ "xe", 2, 8, false, VRAM },
	{ "xe", 3, 8, false, VRAM },
	{ "xe", 7, 8, false, OTHER },
	{ "xe", 8, 9, false, OTHER },
	{ "xe", 3, 9, false, VRAM },
	/* i915 (discrete): LMEMn = PRIV+n, stolen = TTM_PL_VRAM */
	{ "i915", 0, 8, true, SYS },
	{ "i915", 2, 8, false, OTHER },
	{ "i915", 3, 8, false, VRAM },
	{ "i915", 4, 8, false, VRAM },
	/* vmwgfx: GMR/MOB/SYSTEM = PRIV+0/1/2 */
	{ "vmwgfx", 0, 8, true, SYS },
	{ "vmwgfx", 2, 8, false, VRAM },
	{ "vmwgfx", 3, 8, false, GTT },
	{ "vmwgfx", 4, 8, false, GTT },
	{ "vmwgfx", 5, 8, true, SYS },
	/* qxl: VRAM BAR and surface BAR are both device memory */
	{ "qxl", 0, 8, true, SYS },
	{ "qxl", 2, 8, false, VRAM },
	{ "qxl", 3, 8, false, VRAM },
	{ "qxl", 3, 9, false, VRAM },
	{ "nouveau", 0, 8, true, SYS },
	{ "nouveau", 1, 8, true, GTT },
	{ "nouveau", 2, 8, false, VRAM },
	{ "radeon", 0, 8, true, SYS },
	{ "radeon", 1, 8, true, GTT },
	{ "radeon", 2, 8, false, VRAM },
	{ "loongson", 1, 8, true, GTT },
	{ "loongson", 2, 8, false, VRAM },
	/* drm_gem_vram_helper drivers */
	{ "bochs-drm", 0, 8, true, SYS },
	{ "bochs-drm", 2, 8, false, VRAM },
	{ "ast", 2, 8, false, VRAM },
	{ "hibmc", 2, 8, false, VRAM },
	{ "vboxvideo", 2, 9, false, VRAM },
	/* unlisted memory types of listed drivers: the generic rule */
	{ "nouveau", 3, 8, true, GTT },
	{ "nouveau", 4, 8, false, OTHER },
	/* drivers gpumem does not classify: generic rule only */
	{ "virtio_gpu", 0, 8, true, SYS },
	{ "vgem", 1, 8, true, GTT },
	{ "unknown", 2, 8, false, VRAM },
	{ "unknown", 5, 8, false, OTHER },
};

static void classify_case_desc(const struct classify_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s type %u of %u%s",
		 c->driver, c->mem_type, c->num_types, c->use_tt ? " tt" : "");
}

KUNIT_ARRAY_PARAM(classify, classify_cases, classify_case_desc);

static void gpumem_classify_table(struct kunit *test)
{
	const struct classify_case *c = test->param_value;
	const struct gpumem_driver_info *drv = gpumem_driver_lookup(c->driver);

	KUNIT_EXPECT_EQ(test, gpumem_classify(drv, c->mem_type, c->num_types,
					      c->use_tt), c->want);
}

static void gpumem_lookup_known_and_unknown(struct kunit *test)
{
	static const char * const ttm[] = {
		"amdgpu", "xe", "i915", "vmwgfx", "qxl", "nouveau", "radeon",
		"loongson", "bochs-drm", "ast", "hibmc", "vboxvideo",
	};
	static const char * const shmem[] = {
		"virtio_gpu", "vgem", "vkms", "bochs", "simpledrm", "", "AMDGPU",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ttm); i++) {
		const struct gpumem_driver_info *drv = gpumem_driver_lookup(ttm[i]);

		KUNIT_ASSERT_NOT_NULL_MSG(test, drv, "%s", ttm[i]);
		KUNIT_EXPECT_STREQ(test, drv->name, ttm[i]);
	}
	for (i = 0; i < ARRAY_SIZE(shmem); i++)
		KUNIT_EXPECT_NULL_MSG(test, gpumem_driver_lookup(shmem[i]),
				      "%s", shmem[i]);
	KUNIT_EXPECT_NULL(test, gpumem_driver_lookup(NULL));
}

/* Out-of-table memory types must not index past the table. */
static void gpumem_classify_out_of_range(struct kunit *test)
{
	const struct gpumem_driver_info *drv = gpumem_driver_lookup("amdgpu");

	KUNIT_EXPECT_EQ(test, gpumem_classify(drv, GPUMEM_MAX_MEM_TYPES, 9,
					      false), OTHER);
	KUNIT_EXPECT_EQ(test, gpumem_classify(drv, U32_MAX, 9, true), GTT);
	KUNIT_EXPECT_EQ(test, gpumem_classify(gpumem_driver_lookup("xe"), 0, 0,
					      false), SYS);
}

struct capacity_case {
	const char *driver;
	u32 mem_type;
	u64 size;
	unsigned int page_shift;
	bool known;
	u64 bytes;
};

static const struct capacity_case capacity_cases[] = {
	{ "amdgpu", 2, 8ULL << 30, 12, true, 8ULL << 30 },	/* bytes */
	{ "amdgpu", 1, 4ULL << 30, 12, true, 4ULL << 30 },	/* bytes */
	{ "amdgpu", 6, 1 << 30, 12, false, 0 },		/* nominal */
	{ "xe", 2, 16ULL << 30, 12, true, 16ULL << 30 },	/* bytes */
	{ "xe", 3, 16ULL << 30, 12, true, 16ULL << 30 },	/* bytes */
	{ "xe", 1, 1 << 20, 12, true, 4ULL << 30 },		/* pages */
	{ "i915", 3, 1 << 20, 12, true, 4ULL << 30 },		/* pages */
	{ "nouveau", 2, 1 << 18, 12, true, 1ULL << 30 },
	{ "nouveau", 2, 1 << 16, 14, true, 1ULL << 30 },	/* 16K pages */
	{ "radeon", 1, 1 << 16, 12, true, 256ULL << 20 },
	{ "qxl", 2, 16384, 12, true, 64ULL << 20 },
	{ "qxl", 3, 16384, 12, true, 64ULL << 20 },
	{ "bochs-drm", 2, 4096, 12, true, 16ULL << 20 },
	{ "vmwgfx", 3, 0, 12, false, 0 },			/* sized 0 */
	{ "qxl", 2, U64_MAX >> 4, 12, false, 0 },		/* overflow */
	{ "unknown", 2, 100, 12, true, 409600 },
};

static void capacity_case_desc(const struct capacity_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s type %u size %llu",
		 c->driver, c->mem_type, c->size);
}

KUNIT_ARRAY_PARAM(capacity, capacity_cases, capacity_case_desc);

static void gpumem_capacity_units(struct kunit *test)
{
	const struct capacity_case *c = test->param_value;
	u64 bytes = 0;
	bool known;

	known = gpumem_manager_capacity(gpumem_driver_lookup(c->driver),
					c->mem_type, c->size, c->page_shift,
					&bytes);
	KUNIT_EXPECT_EQ(test, known, c->known);
	if (c->known)
		KUNIT_EXPECT_EQ(test, bytes, c->bytes);
}

static void gpumem_region_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(VRAM), "vram");
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(GTT), "gtt");
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(SYS), "system");
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(OTHER), "other");
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(GPUMEM_REGION_COUNT), "?");
	KUNIT_EXPECT_STREQ(test, gpumem_region_name(-1), "?");
}

static struct kunit_case gpumem_classify_cases[] = {
	KUNIT_CASE_PARAM(gpumem_classify_table, classify_gen_params),
	KUNIT_CASE(gpumem_lookup_known_and_unknown),
	KUNIT_CASE(gpumem_classify_out_of_range),
	KUNIT_CASE_PARAM(gpumem_capacity_units, capacity_gen_params),
	KUNIT_CASE(gpumem_region_names),
	{}
};

static struct kunit_suite gpumem_classify_suite = {
	.name = "gpumem_classify",
	.test_cases = gpumem_classify_cases,
};

kunit_test_suite(gpumem_classify_suite);

MODULE_DESCRIPTION("KUnit tests for gpumem");
MODULE_LICENSE("GPL");
