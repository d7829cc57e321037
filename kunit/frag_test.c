// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the fragmentation parser (kmod/frag.c) on the output of the
 * managers' own debug printers, as each supported kernel prints it: drm_mm
 * holes (TTM's range manager, 6.1/6.12/7.x alike) and drm_buddy free lists
 * (6.1 "pages:", 6.12 "blocks:", 7.x "free_blocks:"), fed in the pieces
 * the printers print them in; and the real allocator of the test kernel
 * (6.12's drm_buddy over the GPU buddy allocator, CONFIG_DRM_BUDDY in
 * scripts/testkernel.config) printed by its own drm_buddy_print().
 */
#include <kunit/test.h>
#include <linux/gpu_buddy.h>
#include <linux/sizes.h>
#include <drm/drm_buddy.h>
#include "../kmod/frag.c"

static void frag_feed_str(struct gpumem_frag_parser *p, const char *s)
{
	gpumem_frag_feed(p, s, strlen(s));
}

/* TTM's range manager (qxl, bochs) on every kernel, in pages */
static void frag_drm_mm(struct kunit *test)
{
	struct gpumem_frag_parser p;

	gpumem_frag_parser_init(&p, 4096);
	frag_feed_str(&p, "  use_type: 1\n  use_tt: 0\n  size: 16384\n  usage: 8192\n");
	frag_feed_str(&p, "0x0000000000000000-0x0000000000000010: 16: used\n");
	frag_feed_str(&p, "0x0000000000000010-0x0000000000000020: 16: free\n");
	frag_feed_str(&p, "0x0000000000000020-0x0000000000000120: 256: used\n");
	frag_feed_str(&p, "0x0000000000000120-0x0000000000000220: 256: free\n");
	frag_feed_str(&p, "0x0000000000000220-0x0000000000000221: 1: free\n");
	frag_feed_str(&p, "total: 16384, used 272 free 273\n");
	KUNIT_EXPECT_TRUE(test, p.frag.known);
	KUNIT_EXPECT_EQ(test, p.frag.free, 273ULL * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 256ULL * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 3ULL);
	/* 1 - 256/273 */
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&p.frag), 1000000U - 937728U);
}

/* An empty drm_mm: one hole, the whole manager; not fragmented */
static void frag_drm_mm_empty(struct kunit *test)
{
	struct gpumem_frag_parser p;

	gpumem_frag_parser_init(&p, 4096);
	frag_feed_str(&p, "0x0000000000000000-0x0000000000004000: 16384: free\n");
	frag_feed_str(&p, "total: 16384, used 0 free 16384\n");
	KUNIT_EXPECT_EQ(test, p.frag.free, 16384ULL * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 16384ULL * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 1ULL);
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&p.frag), 0U);
}

/* 6.1's drm_buddy_print(): "order-%d ", "free: %lluKiB", ", pages: %llu\n" */
static void frag_buddy_61(struct kunit *test)
{
	struct gpumem_frag_parser p;

	gpumem_frag_parser_init(&p, 1);
	frag_feed_str(&p, "  vis usage:0\n");
	frag_feed_str(&p, "chunk_size: 4KiB, total: 256MiB, free: 0MiB\n");
	frag_feed_str(&p, "order-3 ");
	frag_feed_str(&p, "free: 64KiB");
	frag_feed_str(&p, ", pages: 2\n");
	frag_feed_str(&p, "order-1 ");
	frag_feed_str(&p, "free: 0KiB");
	frag_feed_str(&p, ", pages: 0\n");
	frag_feed_str(&p, "order-0 ");
	frag_feed_str(&p, "free: 12KiB");
	frag_feed_str(&p, ", pages: 3\n");
	/* amdgpu's reserved ranges: drm_buddy_block_print(), no state */
	frag_feed_str(&p, "reserved:\n0x0000000000000000-0x0000000000100000: 1048576\n");
	KUNIT_EXPECT_TRUE(test, p.frag.known);
	KUNIT_EXPECT_EQ(test, p.frag.free, 2ULL * 32768 + 3 * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 32768ULL);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 5ULL);
}

/* 6.12: "order-%2d ", "free: %8llu KiB", ", blocks: %llu\n" */
static void frag_buddy_612(struct kunit *test)
{
	struct gpumem_frag_parser p;

	gpumem_frag_parser_init(&p, 1);
	frag_feed_str(&p, "chunk_size: 4KiB, total: 8192MiB, free: 4096MiB, clear_free: 0MiB\n");
	frag_feed_str(&p, "order-20 free:     4096 MiB, blocks: 1\n");
	frag_feed_str(&p, "order-10 free:        4 MiB, blocks: 1\n");
	frag_feed_str(&p, "order- 2 free:       48 KiB, blocks: 3\n");
	frag_feed_str(&p, "order- 0 free:        0 KiB, blocks: 0\n");
	KUNIT_EXPECT_EQ(test, p.frag.free, (4096ULL << 20) + (4ULL << 20) + 3 * 16384);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 4096ULL << 20);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 5ULL);
}

/* 7.x: free and used per order; only free_blocks counts */
static void frag_buddy_7x(struct kunit *test)
{
	struct gpumem_frag_parser p;

	gpumem_frag_parser_init(&p, 1);
	frag_feed_str(&p, "chunk_size: 4KiB, total: 16MiB, free: 8MiB, clear_free: 0MiB\n");
	frag_feed_str(&p, "order-12 ");
	frag_feed_str(&p, "free:        0 MiB, used:       16 MiB");
	frag_feed_str(&p, ", free_blocks: 0, used_blocks: 1\n");
	frag_feed_str(&p, "order- 8 free:        2 MiB, used:        1 MiB");
	frag_feed_str(&p, ", free_blocks: 2, used_blocks: 1\n");
	frag_feed_str(&p, "order- 0 free:        4 KiB, used:      400 KiB");
	frag_feed_str(&p, ", free_blocks: 1, used_blocks: 100\n");
	KUNIT_EXPECT_EQ(test, p.frag.free, 2ULL * (1 << 20) + 4096);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 1ULL << 20);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 3ULL);
}

/* A printer with neither format: unknown, not "unfragmented" */
static void frag_unknown(struct kunit *test)
{
	struct gpumem_frag_parser p;
	struct gpumem_frag sum = {};

	gpumem_frag_parser_init(&p, 4096);
	frag_feed_str(&p, "  use_type: 1\n  use_tt: 1\n  size: 262144\n  usage: 0\n");
	/* order lines before any buddy header are not buddy lines */
	frag_feed_str(&p, "order-3 free: 64KiB, pages: 2\n");
	KUNIT_EXPECT_FALSE(test, p.frag.known);
	KUNIT_EXPECT_EQ(test, p.frag.free, 0ULL);
	gpumem_frag_add(&sum, &p.frag);
	KUNIT_EXPECT_FALSE(test, sum.known);
}

/* Lines in pieces, several lines in one piece, an overlong line dropped */
static void frag_pieces(struct kunit *test)
{
	const char *s = "0x0000000000000010-0x0000000000000020: 16: free\n"
			"0x0000000000000020-0x0000000000000028: 8: free\n";
	struct gpumem_frag_parser p;
	char longline[400];
	size_t i;

	gpumem_frag_parser_init(&p, 4096);
	for (i = 0; i < strlen(s); i++)
		gpumem_frag_feed(&p, s + i, 1);
	memset(longline, 'x', sizeof(longline) - 2);
	memcpy(longline + sizeof(longline) - 40, ": 999: free", 11);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';
	frag_feed_str(&p, longline);
	frag_feed_str(&p, "0x0000000000000100-0x0000000000000101: 1: fr");
	frag_feed_str(&p, "ee\n");
	KUNIT_EXPECT_EQ(test, p.frag.free, 25ULL * 4096);
	KUNIT_EXPECT_EQ(test, p.frag.blocks, 3ULL);
	KUNIT_EXPECT_EQ(test, p.frag.largest, 16ULL * 4096);
}

/*
 * Through a drm_printer, as drm_mm_print() prints (the same formats on
 * 6.1, 6.12 and 7.x): a node in use is skipped unformatted, a hole read;
 * a "used" format in the middle of a line (after a piece without its
 * newline) is not skipped.
 */
static void frag_printer_skips_used(struct kunit *test)
{
	struct gpumem_frag_parser fp;
	struct drm_printer p = { .printfn = gpumem_frag_printfn, .arg = &fp };

	gpumem_frag_parser_init(&fp, 4096);
	drm_printf(&p, "%#018llx-%#018llx: %llu: used\n", 0ULL, 16ULL, 16ULL);
	KUNIT_EXPECT_FALSE(test, fp.frag.known);
	drm_printf(&p, "%#018llx-%#018llx: %llu: free\n", 16ULL, 48ULL, 32ULL);
	drm_printf(&p, "%#018llx-%#018llx: %llu: used\n", 48ULL, 64ULL, 16ULL);
	drm_printf(&p, "%#018llx-", 64ULL);
	drm_printf(&p, "%#018llx: %llu: used\n", 72ULL, 8ULL);
	drm_printf(&p, "%#018llx-%#018llx: %llu: free\n", 72ULL, 76ULL, 4ULL);
	KUNIT_EXPECT_TRUE(test, fp.frag.known);
	KUNIT_EXPECT_EQ(test, fp.frag.free, 36ULL * 4096);
	KUNIT_EXPECT_EQ(test, fp.frag.blocks, 2ULL);
	KUNIT_EXPECT_EQ(test, fp.frag.largest, 32ULL * 4096);
	KUNIT_EXPECT_EQ(test, fp.len, 0U);
}

/*
 * The real allocator, printed by the real drm_buddy_print() into the
 * parser's printer (gpumem_frag_read() hands the managers' debug printers
 * the same one). A fresh 1 MiB manager of 4 KiB chunks is one free block
 * of order 8; taking one chunk splits it down to order 0 and leaves one
 * free block of each order 0..7: 1020 KiB free in 8 blocks, the largest
 * 512 KiB. A second chunk takes the order-0 buddy: 7 blocks, 1016 KiB.
 */
static void frag_buddy_real(struct kunit *test)
{
	struct gpumem_frag_parser fp;
	struct drm_printer p = { .printfn = gpumem_frag_printfn, .arg = &fp };
	struct gpu_buddy mm;
	LIST_HEAD(a);
	LIST_HEAD(b);

	KUNIT_ASSERT_EQ(test, gpu_buddy_init(&mm, SZ_1M, SZ_4K), 0);

	gpumem_frag_parser_init(&fp, 1);
	drm_buddy_print(&mm, &p);
	KUNIT_EXPECT_TRUE(test, fp.frag.known);
	KUNIT_EXPECT_EQ(test, fp.frag.free, (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, fp.frag.largest, (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, fp.frag.blocks, 1ULL);
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&fp.frag), 0U);
	KUNIT_EXPECT_EQ(test, fp.len, 0U);

	KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(&mm, 0, SZ_1M, SZ_4K, SZ_4K, &a, 0), 0);
	gpumem_frag_parser_init(&fp, 1);
	drm_buddy_print(&mm, &p);
	KUNIT_EXPECT_EQ(test, fp.frag.free, (u64)SZ_1M - SZ_4K);
	KUNIT_EXPECT_EQ(test, fp.frag.free, mm.avail);
	KUNIT_EXPECT_EQ(test, fp.frag.largest, (u64)SZ_512K);
	KUNIT_EXPECT_EQ(test, fp.frag.blocks, 8ULL);
	/* 1 - 512/1020 = 1 - 0.501960... */
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&fp.frag), 1000000U - 501960U);

	KUNIT_ASSERT_EQ(test, gpu_buddy_alloc_blocks(&mm, 0, SZ_1M, SZ_4K, SZ_4K, &b, 0), 0);
	gpumem_frag_parser_init(&fp, 1);
	drm_buddy_print(&mm, &p);
	KUNIT_EXPECT_EQ(test, fp.frag.free, (u64)SZ_1M - SZ_8K);
	KUNIT_EXPECT_EQ(test, fp.frag.free, mm.avail);
	KUNIT_EXPECT_EQ(test, fp.frag.largest, (u64)SZ_512K);
	KUNIT_EXPECT_EQ(test, fp.frag.blocks, 7ULL);

	/* Both back: the buddies merge into the one block again. */
	gpu_buddy_free_list(&mm, &a, 0);
	gpu_buddy_free_list(&mm, &b, 0);
	gpumem_frag_parser_init(&fp, 1);
	drm_buddy_print(&mm, &p);
	KUNIT_EXPECT_EQ(test, fp.frag.free, (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, fp.frag.blocks, 1ULL);
	gpu_buddy_fini(&mm);
}

/* Two managers of one region (xe VRAM0 and VRAM1), and the ratio's edges */
static void frag_sum_ratio(struct kunit *test)
{
	struct gpumem_frag a = { .free = 100, .largest = 25, .blocks = 4, .known = true };
	struct gpumem_frag b = { .free = 300, .largest = 200, .blocks = 2, .known = true };
	struct gpumem_frag sum = {};
	struct gpumem_frag big = { .free = U64_MAX, .largest = U64_MAX / 2, .known = true };

	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&a), 750000U);
	gpumem_frag_add(&sum, &a);
	gpumem_frag_add(&sum, &b);
	KUNIT_EXPECT_TRUE(test, sum.known);
	KUNIT_EXPECT_EQ(test, sum.free, 400ULL);
	KUNIT_EXPECT_EQ(test, sum.largest, 200ULL);
	KUNIT_EXPECT_EQ(test, sum.blocks, 6ULL);
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&sum), 500000U);
	sum = (struct gpumem_frag){};
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&sum), 0U);
	KUNIT_EXPECT_EQ(test, gpumem_frag_ratio_ppm(&big), 500000U);
}

static struct kunit_case gpumem_frag_cases[] = {
	KUNIT_CASE(frag_drm_mm),
	KUNIT_CASE(frag_drm_mm_empty),
	KUNIT_CASE(frag_buddy_61),
	KUNIT_CASE(frag_buddy_612),
	KUNIT_CASE(frag_buddy_7x),
	KUNIT_CASE(frag_unknown),
	KUNIT_CASE(frag_pieces),
	KUNIT_CASE(frag_printer_skips_used),
	KUNIT_CASE(frag_buddy_real),
	KUNIT_CASE(frag_sum_ratio),
	{}
};

static struct kunit_suite gpumem_frag_suite = {
	.name = "gpumem_frag",
	.test_cases = gpumem_frag_cases,
};

kunit_test_suite(gpumem_frag_suite);
