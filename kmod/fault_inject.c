// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem fault injection (built only with CONFIG_FAULT_INJECTION).
 *
 * fail_charge: the allocation of a charge record (charge.c), i.e. gpumem
 *	running out of memory inside a TTM allocation: the placement must
 *	go through uncharged.
 * fail_event: an event where it happens (netlink.c, gpumem_event_emit()):
 *	the event is lost, and its sequence number with it (a gap).
 * fail_resv: a walker's trylock of a buffer's reservation (walk.c), i.e. a
 *	buffer a driver keeps reserved: the held view skips and counts it.
 * fail_orphans_claim: the orphaned events' claim (orphans.c) as out of
 *	memory: the work tries again a second later (it stays pending).
 * fail_orphans_report: the report of the claimed orphans' holders
 *	(orphans.c) as out of memory: each of their events is lost (a gap).
 *
 * All start disabled (probability 0); the attributes do their own locking.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include "fault_inject.h"

static DECLARE_FAULT_ATTR(gpumem_fail_charge_attr);
static DECLARE_FAULT_ATTR(gpumem_fail_event_attr);
static DECLARE_FAULT_ATTR(gpumem_fail_resv_attr);
static DECLARE_FAULT_ATTR(gpumem_fail_orphans_claim_attr);
static DECLARE_FAULT_ATTR(gpumem_fail_orphans_report_attr);

/**
 * gpumem_fail_charge() - should this charge record allocation fail?
 *
 * Return: true to act as if the allocation failed.
 */
bool gpumem_fail_charge(void)
{
	return should_fail(&gpumem_fail_charge_attr, 1);
}

/**
 * gpumem_fail_event() - should this event message allocation fail?
 *
 * Return: true to act as if the allocation failed.
 */
bool gpumem_fail_event(void)
{
	return should_fail(&gpumem_fail_event_attr, 1);
}

/**
 * gpumem_fail_resv() - should this reservation trylock find it busy?
 *
 * Context: any (the walker calls it under a spinlock).
 * Return: true to act as if the reservation were held by someone else.
 */
bool gpumem_fail_resv(void)
{
	return should_fail(&gpumem_fail_resv_attr, 1);
}

/**
 * gpumem_fail_orphans_claim() - should the orphaned events' claim fail?
 *
 * Return: true to make the work's claim of unreported orphans fail as out
 *	of memory (the work then tries again later: it stays pending).
 */
bool gpumem_fail_orphans_claim(void)
{
	return should_fail(&gpumem_fail_orphans_claim_attr, 1);
}

/**
 * gpumem_fail_orphans_report() - should the orphaned events' report fail?
 *
 * Return: true to make the report of the claimed orphans' holders fail as
 *	out of memory (each of their events is then lost: a gap).
 */
bool gpumem_fail_orphans_report(void)
{
	return should_fail(&gpumem_fail_orphans_report_attr, 1);
}

/**
 * gpumem_fault_debugfs_init() - the attributes' debugfs directories
 * @dir: gpumem's debugfs directory; removed with it
 *
 * Without CONFIG_FAULT_INJECTION_DEBUG_FS (or debugfs) the attributes stay
 * disabled: nothing to report.
 */
void gpumem_fault_debugfs_init(struct dentry *dir)
{
	fault_create_debugfs_attr("fail_charge", dir, &gpumem_fail_charge_attr);
	fault_create_debugfs_attr("fail_event", dir, &gpumem_fail_event_attr);
	fault_create_debugfs_attr("fail_resv", dir, &gpumem_fail_resv_attr);
	fault_create_debugfs_attr("fail_orphans_claim", dir,
				  &gpumem_fail_orphans_claim_attr);
	fault_create_debugfs_attr("fail_orphans_report", dir,
				  &gpumem_fail_orphans_report_attr);
}
