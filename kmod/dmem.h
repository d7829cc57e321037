/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem and the kernel's dmem cgroup controller: which managers of a
 * device charge a dmem region (the driver's, or gpumem's own as the
 * optional provider), their names, and dmem's refusals as events.
 */
#ifndef GPUMEM_DMEM_H
#define GPUMEM_DMEM_H

#include <linux/types.h>
#include "classify.h"

struct gpumem_device;
struct netlink_ext_ack;

/* dmem regions reported per device region (one per manager, at most) */
#define GPUMEM_DMEM_PER_REGION	2

/**
 * struct gpumem_dmem_info - a dmem region of a device's manager
 * @name: its name as dmem prints it ("drm/<unique>/<name>"), "" if unknown
 * @source: enum gpumem_dmem_source (who registered it)
 * @capacity: bytes, 0 if unknown
 */
struct gpumem_dmem_info {
	char name[64];
	u8 source;
	u64 capacity;
};

extern const struct gpumem_device_listener gpumem_dmem_listener;

int gpumem_dmem_init(void);
void gpumem_dmem_exit(void);
u64 gpumem_dmem_unwatched(void);
unsigned int gpumem_dmem_regions(int minor, u8 region,
				 struct gpumem_dmem_info *info,
				 unsigned int max);
bool gpumem_dmem_enabled(void);
int gpumem_dmem_refuse_max(int minor, u8 region, struct netlink_ext_ack *extack);

#endif /* GPUMEM_DMEM_H */
