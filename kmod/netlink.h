/* SPDX-License-Identifier: GPL-2.0 */
/* gpumem generic netlink family "gpumem" (uapi/gpumem.yaml). */
#ifndef GPUMEM_NETLINK_H
#define GPUMEM_NETLINK_H

int gpumem_netlink_init(void);
void gpumem_netlink_exit(void);

#endif /* GPUMEM_NETLINK_H */
