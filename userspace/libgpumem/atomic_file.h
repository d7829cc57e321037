/* SPDX-License-Identifier: GPL-2.0 */
/*
 * atomic_file.h - replace a file whole: write a temporary file in its
 * directory, sync it and rename it over the old one, so that a reader (a
 * textfile collector, a container runtime reading a CDI spec) never sees
 * half of it. For gpumemd's textfile and `gpumemctl cdi generate`.
 */
#ifndef GPUMEM_ATOMIC_FILE_H
#define GPUMEM_ATOMIC_FILE_H

#include <stddef.h>

/* Write body[0..len) to path (mode 0644) atomically: 0 or -errno. */
int gm_write_file_atomic(const char *path, const char *body, size_t len);

#endif /* GPUMEM_ATOMIC_FILE_H */
