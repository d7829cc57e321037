// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: one hook per TTM device and per manager (kmod/hooks.c). Several
 * gpumem devices leading to one TTM device (two minors of one drm_device,
 * as amdgpu's partitions; two drm_devices) wrap its managers and its
 * eviction callback once, in every order they come and go: a call through
 * the hooked table reaches the driver's function exactly once (a second
 * wrapping would call itself for ever), the first device is charged and
 * the next one after it goes, and the driver's tables are back after the
 * last one went. A manager two TTM devices share is wrapped once too. A
 * table something else wrapped after gpumem stays, passing calls through.
 *
 * The TTM devices and managers are fakes (zeroed structures with a
 * driver's table of counting functions, as the hooks see them); the
 * devices are gpumem devices of amdgpu (TTM_PL_VRAM is VRAM, TTM_PL_TT is
 * GTT). The buffers have no GEM device: the wrappers pass them to the
 * driver uncharged (charging is charge.c's, tested elsewhere).
 */
#include <kunit/test.h>
#include "../kmod/evict_guard.c"
#include "../kmod/hooks.c"

/* calls that reached the driver's functions */
static unsigned int ht_allocs, ht_frees, ht_evicts;

static int ht_alloc(struct ttm_resource_manager *man,
		    struct ttm_buffer_object *bo, const struct ttm_place *place,
		    struct ttm_resource **res)
{
	ht_allocs++;
	*res = (struct ttm_resource *)man;	/* a key, never dereferenced */
	return 0;
}

static void ht_free(struct ttm_resource_manager *man, struct ttm_resource *res)
{
	ht_frees++;
}

static const struct ttm_resource_manager_func ht_man_funcs = {
	.alloc = ht_alloc,
	.free = ht_free,
};

static bool ht_eviction_valuable(struct ttm_buffer_object *bo,
				 const struct ttm_place *place)
{
	ht_evicts++;
	return true;
}

static const struct ttm_device_funcs ht_bdev_funcs = {
	.eviction_valuable = ht_eviction_valuable,
};

#define HT_MINOR	40	/* minors of the test's devices: 40, 41, ... */
#define HT_NDEV		3

/* Two TTM devices with a VRAM and a GTT manager each, and gpumem devices. */
struct ht_fixture {
	struct ttm_device bdev[2];
	struct ttm_resource_manager vram[2], gtt[2];
	char drm_tag[HT_NDEV];	/* their addresses: fake drm_devices */
	struct gpumem_device gdev[HT_NDEV];
	struct ttm_resource_manager_func other_man;
	struct ttm_device_funcs other_bdev;
};

static void ht_fixture_init(struct kunit *test, struct ht_fixture *f)
{
	const struct gpumem_driver_info *drv = gpumem_driver_lookup("amdgpu");
	int i;

	KUNIT_ASSERT_NOT_NULL(test, drv);
	for (i = 0; i < 2; i++) {
		f->vram[i].use_type = true;
		f->vram[i].size = SZ_64M >> PAGE_SHIFT;
		f->vram[i].func = &ht_man_funcs;
		f->gtt[i].use_type = true;
		f->gtt[i].use_tt = true;
		f->gtt[i].size = SZ_64M >> PAGE_SHIFT;
		f->gtt[i].func = &ht_man_funcs;
		f->bdev[i].funcs = &ht_bdev_funcs;
		f->bdev[i].man_drv[TTM_PL_VRAM] = &f->vram[i];
		f->bdev[i].man_drv[TTM_PL_TT] = &f->gtt[i];
	}
	for (i = 0; i < HT_NDEV; i++) {
		f->gdev[i].minor = HT_MINOR + i;
		f->gdev[i].drv = drv;
		f->gdev[i].bdev = &f->bdev[0];
		INIT_LIST_HEAD(&f->gdev[i].hook_node);
	}
}

static struct ht_fixture *ht_fixture(struct kunit *test)
{
	struct ht_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	ht_fixture_init(test, f);
	return f;
}

/* How many of gpumem's manager hooks wrap @man. */
static unsigned int ht_man_hooks(struct ttm_resource_manager *man)
{
	struct gpumem_man_hook *h;
	unsigned int n = 0;

	mutex_lock(&gpumem_hooks_lock);
	list_for_each_entry(h, &gpumem_man_hooks, node)
		if (h->man == man)
			n++;
	mutex_unlock(&gpumem_hooks_lock);
	return n;
}

/* How many of gpumem's TTM device hooks are @bdev's. */
static unsigned int ht_ttm_hooks(struct ttm_device *bdev)
{
	struct gpumem_ttm_hook *hk;
	unsigned int n = 0;

	mutex_lock(&gpumem_hooks_lock);
	list_for_each_entry(hk, &gpumem_ttm_hooks, node)
		if (hk->bdev == bdev)
			n++;
	mutex_unlock(&gpumem_hooks_lock);
	return n;
}

/*
 * @man is wrapped once: its table is a copy of gpumem's over the driver's
 * own; one allocation and one free through it reach the driver's once.
 */
static void ht_expect_wrapped_once(struct kunit *test,
				   struct ttm_resource_manager *man, u32 type)
{
	struct ttm_place place = { .mem_type = type };
	struct ttm_buffer_object *bo = kunit_kzalloc(test, sizeof(*bo),
						     GFP_KERNEL);
	const struct ttm_resource_manager_func *f = READ_ONCE(man->func);
	struct ttm_resource *res = NULL;

	KUNIT_EXPECT_EQ(test, ht_man_hooks(man), 1U);
	KUNIT_ASSERT_TRUE(test, f->alloc == gpumem_hook_alloc);
	KUNIT_EXPECT_PTR_EQ(test,
			    container_of(f, struct gpumem_man_hook, funcs)->orig,
			    &ht_man_funcs);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	ht_allocs = 0;
	ht_frees = 0;
	KUNIT_EXPECT_EQ(test, f->alloc(man, bo, &place, &res), 0);
	KUNIT_EXPECT_EQ(test, ht_allocs, 1U);
	KUNIT_EXPECT_PTR_EQ(test, res, (struct ttm_resource *)man);
	f->free(man, res);
	KUNIT_EXPECT_EQ(test, ht_frees, 1U);
}

/* Likewise @bdev's eviction callback; and which device it is charged to. */
static void ht_expect_hooked(struct kunit *test, struct ttm_device *bdev,
			     int minor)
{
	struct ttm_place place = { .mem_type = TTM_PL_VRAM };
	struct ttm_buffer_object *bo = kunit_kzalloc(test, sizeof(*bo),
						     GFP_KERNEL);
	const struct ttm_device_funcs *f = READ_ONCE(bdev->funcs);
	struct gpumem_ttm_hook *hk;

	KUNIT_ASSERT_NOT_NULL(test, bo);
	bo->bdev = bdev;

	KUNIT_EXPECT_EQ(test, ht_ttm_hooks(bdev), 1U);
	KUNIT_ASSERT_TRUE(test,
			  f->eviction_valuable == gpumem_hook_eviction_valuable);
	hk = container_of(f, struct gpumem_ttm_hook, funcs);
	KUNIT_EXPECT_PTR_EQ(test, hk->orig, &ht_bdev_funcs);
	KUNIT_EXPECT_EQ(test, READ_ONCE(hk->minor), minor);
	ht_evicts = 0;
	KUNIT_EXPECT_TRUE(test, f->eviction_valuable(bo, &place));
	KUNIT_EXPECT_EQ(test, ht_evicts, 1U);
	ht_expect_wrapped_once(test, bdev->man_drv[TTM_PL_VRAM], TTM_PL_VRAM);
	ht_expect_wrapped_once(test, bdev->man_drv[TTM_PL_TT], TTM_PL_TT);
}

/* @bdev and its managers have the driver's tables, and no hook is left. */
static void ht_expect_unhooked(struct kunit *test, struct ttm_device *bdev)
{
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(bdev->funcs), &ht_bdev_funcs);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(bdev->man_drv[TTM_PL_VRAM]->func),
			    &ht_man_funcs);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(bdev->man_drv[TTM_PL_TT]->func),
			    &ht_man_funcs);
	KUNIT_EXPECT_EQ(test, ht_ttm_hooks(bdev), 0U);
	KUNIT_EXPECT_EQ(test, ht_man_hooks(bdev->man_drv[TTM_PL_VRAM]), 0U);
	KUNIT_EXPECT_EQ(test, ht_man_hooks(bdev->man_drv[TTM_PL_TT]), 0U);
}

/*
 * Devices @a and @b of one TTM device come in the order a, b and go in the
 * order @first, @second (each of a, b): wrapped once all along, charged to
 * the first to come and then to the one left, unhooked after the last.
 */
static void ht_two_users(struct kunit *test, struct ht_fixture *f,
			 struct gpumem_device *a, struct gpumem_device *b,
			 struct gpumem_device *first,
			 struct gpumem_device *second)
{
	struct ttm_device *bdev = a->bdev;

	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(a), 0);
	ht_expect_hooked(test, bdev, a->minor);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(a->ttm_alias));
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(b), 0);
	ht_expect_hooked(test, bdev, a->minor);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(a->ttm_alias));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(b->ttm_alias));

	gpumem_hooks_detach(first);
	KUNIT_EXPECT_NULL(test, first->ttm_hook);
	ht_expect_hooked(test, bdev, second->minor);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(second->ttm_alias));
	gpumem_hooks_detach(second);
	ht_expect_unhooked(test, bdev);
}

/* Two minors of one drm_device (amdgpu's partitions): every order. */
static void ht_two_minors(struct kunit *test)
{
	struct ht_fixture *f = ht_fixture(test);
	struct gpumem_device *a = &f->gdev[0], *b = &f->gdev[1];

	a->drm = (struct drm_device *)&f->drm_tag[0];	/* the same one */
	b->drm = (struct drm_device *)&f->drm_tag[0];
	ht_two_users(test, f, a, b, a, b);
	ht_two_users(test, f, a, b, b, a);
	ht_two_users(test, f, b, a, a, b);
	ht_two_users(test, f, b, a, b, a);
}

/* Two drm_devices of one TTM device: every order. */
static void ht_two_drm_devices(struct kunit *test)
{
	struct ht_fixture *f = ht_fixture(test);
	struct gpumem_device *a = &f->gdev[0], *b = &f->gdev[1];

	a->drm = (struct drm_device *)&f->drm_tag[0];
	b->drm = (struct drm_device *)&f->drm_tag[1];
	ht_two_users(test, f, a, b, a, b);
	ht_two_users(test, f, a, b, b, a);
	ht_two_users(test, f, b, a, a, b);
	ht_two_users(test, f, b, a, b, a);
}

/*
 * Three devices, the charged one going first and then the next: each
 * hand-over goes to the next in the order they came.
 */
static void ht_three_users(struct kunit *test)
{
	struct ht_fixture *f = ht_fixture(test);
	struct gpumem_device *g = f->gdev;
	struct ttm_device *bdev = &f->bdev[0];

	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(&g[1]), 0);
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(&g[2]), 0);
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(&g[0]), 0);
	ht_expect_hooked(test, bdev, g[1].minor);
	gpumem_hooks_detach(&g[0]);	/* not charged: nothing moves */
	ht_expect_hooked(test, bdev, g[1].minor);
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(&g[0]), 0);
	gpumem_hooks_detach(&g[1]);
	ht_expect_hooked(test, bdev, g[2].minor);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(g[0].ttm_alias));
	gpumem_hooks_detach(&g[2]);
	ht_expect_hooked(test, bdev, g[0].minor);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(g[0].ttm_alias));
	gpumem_hooks_detach(&g[0]);
	ht_expect_unhooked(test, bdev);
}

/*
 * Two TTM devices, each its own hook, one manager in both (a driver may
 * register a manager with two devices): the manager is wrapped once, by
 * the first; the other device's hook leaves it alone, and the tables are
 * the driver's after both went, in either order.
 */
static void ht_shared_manager(struct kunit *test)
{
	struct ht_fixture *f = ht_fixture(test);
	struct gpumem_device *a = &f->gdev[0], *b = &f->gdev[1];
	int order;

	f->bdev[1].man_drv[TTM_PL_VRAM] = &f->vram[0];
	b->bdev = &f->bdev[1];
	for (order = 0; order < 2; order++) {
		KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(a), 0);
		KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(b), 0);
		KUNIT_EXPECT_FALSE(test, READ_ONCE(b->ttm_alias));
		ht_expect_hooked(test, &f->bdev[0], a->minor);
		ht_expect_hooked(test, &f->bdev[1], b->minor);
		gpumem_hooks_detach(order ? b : a);
		gpumem_hooks_detach(order ? a : b);
		ht_expect_unhooked(test, &f->bdev[0]);
		ht_expect_unhooked(test, &f->bdev[1]);
	}
}

/* A device leaving its hook twice, or never hooked, changes nothing. */
static void ht_detach_unhooked(struct kunit *test)
{
	struct ht_fixture *f = ht_fixture(test);
	struct gpumem_device *a = &f->gdev[0], *b = &f->gdev[1];

	b->bdev = NULL;	/* its TTM device not found (yet) */
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(b), 0);
	KUNIT_EXPECT_NULL(test, b->ttm_hook);
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(a), 0);
	gpumem_hooks_detach(b);
	ht_expect_hooked(test, &f->bdev[0], a->minor);
	gpumem_hooks_detach(a);
	ht_expect_unhooked(test, &f->bdev[0]);
	gpumem_hooks_detach(a);
	ht_expect_unhooked(test, &f->bdev[0]);
}

/* a wrapper something else puts over gpumem's tables, calling them */
static unsigned int ht_other_allocs, ht_other_evicts;
static const struct ttm_resource_manager_func *ht_below_man;
static const struct ttm_device_funcs *ht_below_bdev;

static int ht_other_alloc(struct ttm_resource_manager *man,
			  struct ttm_buffer_object *bo,
			  const struct ttm_place *place,
			  struct ttm_resource **res)
{
	ht_other_allocs++;
	return ht_below_man->alloc(man, bo, place, res);
}

static bool ht_other_eviction_valuable(struct ttm_buffer_object *bo,
				       const struct ttm_place *place)
{
	ht_other_evicts++;
	return ht_below_bdev->eviction_valuable(bo, place);
}

/*
 * Something wrapped the VRAM manager and the device after gpumem: when the
 * last user goes, those tables stay (theirs call gpumem's), and a call
 * through them reaches the driver's function exactly once; the GTT
 * manager, wrapped by gpumem alone, is the driver's again. The device is
 * never hooked again (a second gpumem hook in the chain would take calls
 * for the first's). Runs last: the stranded hooks stay for good, so does
 * their fixture (never freed), and gpumem_kunit pins itself as gpumem
 * would.
 */
static void ht_wrapped_after(struct kunit *test)
{
	struct ht_fixture *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct ttm_resource_manager *vram;
	struct ttm_buffer_object *bo;
	struct ttm_place place = { .mem_type = TTM_PL_VRAM };
	struct ttm_resource *res = NULL;

	KUNIT_ASSERT_NOT_NULL(test, f);
	ht_fixture_init(test, f);
	bo = kunit_kzalloc(test, sizeof(*bo), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bo);
	bo->bdev = &f->bdev[0];
	vram = &f->vram[0];
	KUNIT_ASSERT_EQ(test, gpumem_hooks_attach(&f->gdev[0]), 0);
	ht_below_man = vram->func;
	f->other_man = *vram->func;
	f->other_man.alloc = ht_other_alloc;
	WRITE_ONCE(vram->func, &f->other_man);
	ht_below_bdev = f->bdev[0].funcs;
	f->other_bdev = *f->bdev[0].funcs;
	f->other_bdev.eviction_valuable = ht_other_eviction_valuable;
	WRITE_ONCE(f->bdev[0].funcs, &f->other_bdev);

	gpumem_hooks_detach(&f->gdev[0]);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(vram->func),
			    (const struct ttm_resource_manager_func *)&f->other_man);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(f->bdev[0].funcs),
			    (const struct ttm_device_funcs *)&f->other_bdev);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(f->gtt[0].func), &ht_man_funcs);

	ht_allocs = 0;
	ht_frees = 0;
	ht_evicts = 0;
	ht_other_allocs = 0;
	ht_other_evicts = 0;
	KUNIT_EXPECT_EQ(test, vram->func->alloc(vram, bo, &place, &res), 0);
	KUNIT_EXPECT_EQ(test, ht_other_allocs, 1U);
	KUNIT_EXPECT_EQ(test, ht_allocs, 1U);
	vram->func->free(vram, res);	/* gpumem's, copied by the other */
	KUNIT_EXPECT_EQ(test, ht_frees, 1U);
	KUNIT_EXPECT_TRUE(test,
			  f->bdev[0].funcs->eviction_valuable(bo, &place));
	KUNIT_EXPECT_EQ(test, ht_other_evicts, 1U);
	KUNIT_EXPECT_EQ(test, ht_evicts, 1U);

	KUNIT_EXPECT_EQ(test, gpumem_hooks_attach(&f->gdev[1]), -EBUSY);
	KUNIT_EXPECT_NULL(test, f->gdev[1].ttm_hook);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(vram->func),
			    (const struct ttm_resource_manager_func *)&f->other_man);
	gpumem_hooks_detach(&f->gdev[1]);
}

static int ht_init(struct kunit *test)
{
	return gpumem_charge_init();	/* detaching walks the records */
}

static void ht_exit(struct kunit *test)
{
	gpumem_charge_exit();
}

static struct kunit_case gpumem_hooks_cases[] = {
	KUNIT_CASE(ht_two_minors),
	KUNIT_CASE(ht_two_drm_devices),
	KUNIT_CASE(ht_three_users),
	KUNIT_CASE(ht_shared_manager),
	KUNIT_CASE(ht_detach_unhooked),
	KUNIT_CASE(ht_wrapped_after),	/* last: see there */
	{}
};

static struct kunit_suite gpumem_hooks_suite = {
	.name = "gpumem_hooks",
	.init = ht_init,
	.exit = ht_exit,
	.test_cases = gpumem_hooks_cases,
};

kunit_test_suite(gpumem_hooks_suite);
