// SPDX-License-Identifier: GPL-2.0
/*
 * version.c - gpumem's one version (the file VERSION at the top of the
 * tree, given by the Makefile as GM_VERSION), for every program's --version.
 */
#include "libgpumem.h"

#ifndef GM_VERSION
#define GM_VERSION "0.1"
#endif

const char gm_version[] = GM_VERSION;
