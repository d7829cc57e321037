/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem work budget: how much walking unprivileged callers may make gpumem
 * do, counted in work (entries a walk visits), per user.
 */
#ifndef GPUMEM_BUDGET_H
#define GPUMEM_BUDGET_H

#include <linux/types.h>
#include <linux/uidgid.h>

bool gpumem_budget_allow(kuid_t uid, u64 estimate);
void gpumem_budget_charge(kuid_t uid, u64 work, u64 estimate);
u64 gpumem_budget_refused(void);
u64 gpumem_budget_rate(void);
void gpumem_budget_exit(void);

#endif /* GPUMEM_BUDGET_H */
