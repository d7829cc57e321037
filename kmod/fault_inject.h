/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem fault injection: failure points for gpumem's own allocations, so
 * tests can prove that a failure inside gpumem never fails a user's
 * allocation and never loses an event silently.
 *
 * With CONFIG_FAULT_INJECTION_DEBUG_FS the attributes appear as
 * /sys/kernel/debug/gpumem/fail_charge, fail_event, fail_resv,
 * fail_orphans_claim and fail_orphans_report (the kernel's
 * fault-injection knobs: probability, interval, times, task-filter, ...;
 * Documentation/fault-injection/fault-injection.rst). Without
 * CONFIG_FAULT_INJECTION nothing here costs anything.
 */
#ifndef GPUMEM_FAULT_INJECT_H
#define GPUMEM_FAULT_INJECT_H

#include <linux/types.h>

struct dentry;

#ifdef CONFIG_FAULT_INJECTION
bool gpumem_fail_charge(void);
bool gpumem_fail_event(void);
bool gpumem_fail_resv(void);
bool gpumem_fail_orphans_claim(void);
bool gpumem_fail_orphans_report(void);
void gpumem_fault_debugfs_init(struct dentry *dir);
#else
static inline bool gpumem_fail_charge(void) { return false; }
static inline bool gpumem_fail_event(void) { return false; }
static inline bool gpumem_fail_resv(void) { return false; }
static inline bool gpumem_fail_orphans_claim(void) { return false; }
static inline bool gpumem_fail_orphans_report(void) { return false; }
static inline void gpumem_fault_debugfs_init(struct dentry *dir) { }
#endif

#endif /* GPUMEM_FAULT_INJECT_H */
