/* SPDX-License-Identifier: GPL-2.0 */
/* gpumem debugfs files: a thin face over snapshots. */
#ifndef GPUMEM_DEBUGFS_H
#define GPUMEM_DEBUGFS_H

void gpumem_debugfs_init(void);
void gpumem_debugfs_exit(void);

#endif /* GPUMEM_DEBUGFS_H */
