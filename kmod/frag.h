/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpumem fragmentation: the free space of a TTM resource manager as its own
 * debug printer describes it (drm_mm holes of range managers, drm_buddy
 * free lists of buddy managers), never read from private struct layouts.
 */
#ifndef GPUMEM_FRAG_H
#define GPUMEM_FRAG_H

#include <linux/types.h>

struct ttm_resource_manager;

/**
 * struct gpumem_frag - the free space of one manager (or a region's managers)
 * @free: bytes in free blocks
 * @largest: bytes in the largest free block: the largest placement that
 *	fits without eviction
 * @blocks: number of free blocks
 * @known: the manager's printer described its free space (false: the
 *	driver prints no drm_mm or drm_buddy state, the fields are 0)
 */
struct gpumem_frag {
	u64 free;
	u64 largest;
	u64 blocks;
	bool known;
};

/**
 * struct gpumem_frag_parser - state of a parse of printer output
 * @frag: the result so far
 * @unit: bytes per drm_mm unit (range managers count in the manager's size
 *	unit: pages or bytes)
 * @chunk: drm_buddy chunk size in bytes, 0 before the buddy header
 * @len: bytes in @line
 * @line: the line being assembled (the printers print lines in pieces)
 * @overflow: @line overflowed: the rest of the line is dropped
 */
struct gpumem_frag_parser {
	struct gpumem_frag frag;
	u64 unit;
	u64 chunk;
	unsigned int len;
	char line[160];
	bool overflow;
};

void gpumem_frag_parser_init(struct gpumem_frag_parser *p, u64 unit);
void gpumem_frag_parse_line(struct gpumem_frag_parser *p, const char *line);
void gpumem_frag_feed(struct gpumem_frag_parser *p, const char *s, size_t n);
void gpumem_frag_add(struct gpumem_frag *sum, const struct gpumem_frag *f);
u32 gpumem_frag_ratio_ppm(const struct gpumem_frag *f);
void gpumem_frag_read(struct ttm_resource_manager *man, u64 unit,
		      struct gpumem_frag *out);

#endif /* GPUMEM_FRAG_H */
