// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem fragmentation: what a TTM resource manager's own debug printer
 * (ttm_resource_manager_debug()) says about its free space, parsed line by
 * line. Two allocators back TTM managers, each with its own printer:
 *
 *  - drm_mm (TTM's range manager: qxl, bochs and the VRAM helpers, radeon,
 *    vmwgfx): every hole is a line
 *	"0x...-0x...: <size>: free"		(6.1, 6.12, 7.x)
 *    in the manager's unit (pages or bytes, as its size);
 *  - drm_buddy (amdgpu, xe, i915): a header
 *	"chunk_size: <n>KiB, total: ..."	(6.1, 6.12, 7.x)
 *    and one line per order with the number of free blocks of that order:
 *	"order-<o> free: <n>KiB, pages: <count>"		(6.1)
 *	"order-<o> free: <n> KiB, blocks: <count>"		(6.12)
 *	"order-<o> free: ..., used: ..., free_blocks: <count>, ..." (7.x)
 *
 * Lines other than these (TTM's own "size:"/"usage:", amdgpu's reserved
 * ranges, i915's visible_avail) are ignored. A manager whose printer prints
 * none of these formats is reported as unknown, never as unfragmented.
 * kunit/frag_test.c feeds the printers' output of every supported kernel.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_resource.h>
#include "frag.h"

/**
 * gpumem_frag_parser_init() - start a parse
 * @p: the parser
 * @unit: bytes per drm_mm unit (PAGE_SIZE for a manager sized in pages)
 */
void gpumem_frag_parser_init(struct gpumem_frag_parser *p, u64 unit)
{
	memset(p, 0, sizeof(*p));
	p->unit = unit;
}

static void gpumem_frag_block(struct gpumem_frag *f, u64 bytes, u64 count)
{
	if (!count || !bytes)
		return;
	f->free += bytes * count;
	f->blocks += count;
	f->largest = max(f->largest, bytes);
}

/* The number after @key in @line, if @key is there. */
static bool gpumem_frag_count(const char *line, const char *key, u64 *count)
{
	const char *s = strstr(line, key);

	return s && sscanf(s + strlen(key), "%llu", count) == 1;
}

/**
 * gpumem_frag_parse_line() - take one complete line of printer output
 * @p: the parser
 * @line: the line, without its newline
 */
void gpumem_frag_parse_line(struct gpumem_frag_parser *p, const char *line)
{
	unsigned long long start, end, size, kib, count;
	char state[8];
	int order;

	line = skip_spaces(line);
	if (sscanf(line, "%llx-%llx: %llu: %7s", &start, &end, &size,
		   state) == 4) {
		/* a drm_mm node; a hole says "free" */
		if (!strcmp(state, "free")) {
			p->frag.known = true;
			if (size <= div64_u64(U64_MAX, max(p->unit, 1ULL)))
				gpumem_frag_block(&p->frag, size * p->unit, 1);
		}
		return;
	}
	if (sscanf(line, "chunk_size: %lluKiB", &kib) == 1) {
		p->chunk = kib << 10;
		p->frag.known = true;
		return;
	}
	if (!p->chunk || sscanf(line, "order-%d", &order) != 1 ||
	    order < 0 || order >= 64 - 1 || (p->chunk << order) >> order != p->chunk)
		return;
	if (gpumem_frag_count(line, "free_blocks: ", &count) ||
	    gpumem_frag_count(line, ", blocks: ", &count) ||
	    gpumem_frag_count(line, ", pages: ", &count))
		gpumem_frag_block(&p->frag, p->chunk << order, count);
}

/**
 * gpumem_frag_feed() - take a piece of printer output
 * @p: the parser
 * @s: the piece (a line may come in several pieces, a piece may hold lines)
 * @n: its length
 *
 * Context: any (no allocation, no sleeping): printers run under the
 * manager's spinlock.
 */
void gpumem_frag_feed(struct gpumem_frag_parser *p, const char *s, size_t n)
{
	for (; n; s++, n--) {
		if (*s == '\n') {
			p->line[p->len] = '\0';
			if (!p->overflow)
				gpumem_frag_parse_line(p, p->line);
			p->len = 0;
			p->overflow = false;
		} else if (p->len < sizeof(p->line) - 1) {
			p->line[p->len++] = *s;
		} else {
			p->overflow = true;
		}
	}
}

/**
 * gpumem_frag_add() - add a manager's free space to its region's
 * @sum: the region's
 * @f: the manager's (not counted when unknown)
 */
void gpumem_frag_add(struct gpumem_frag *sum, const struct gpumem_frag *f)
{
	if (!f->known)
		return;
	sum->known = true;
	sum->free += f->free;
	sum->blocks += f->blocks;
	sum->largest = max(sum->largest, f->largest);
}

/**
 * gpumem_frag_ratio_ppm() - the fragmentation ratio, 1 - largest / free
 * @f: the free space
 *
 * Return: the ratio in millionths: 0 when all free space is one block (or
 * there is none), close to 1000000 when it is spread over many small ones.
 */
u32 gpumem_frag_ratio_ppm(const struct gpumem_frag *f)
{
	u64 part;

	if (!f->free || f->largest >= f->free)
		return 0;
	if (f->free <= U64_MAX / 1000000)
		part = div64_u64(f->largest * 1000000, f->free);
	else	/* beyond 16 TiB: precise enough */
		part = div64_u64(f->largest, div64_u64(f->free, 1000000));
	return 1000000 - (u32)min_t(u64, part, 1000000);
}

/*
 * A whole line about a drm_mm node in use ("...: used", printed by
 * drm_mm_print() once per node, 6.1 to 7.x) says nothing about free space:
 * it is not formatted at all. A range manager full of small buffers prints
 * thousands of them under its lock; only its holes are read.
 */
static bool gpumem_frag_fmt_used(const struct gpumem_frag_parser *p,
				 const char *fmt)
{
	static const char used[] = ": used\n";
	size_t n = strlen(fmt);

	return !p->len && n >= sizeof(used) - 1 &&
	       !strcmp(fmt + n - (sizeof(used) - 1), used);
}

static void gpumem_frag_printfn(struct drm_printer *p, struct va_format *vaf)
{
	char buf[160];
	int n;

	if (gpumem_frag_fmt_used(p->arg, vaf->fmt))
		return;
	n = scnprintf(buf, sizeof(buf), "%pV", vaf);
	gpumem_frag_feed(p->arg, buf, n);
}

/**
 * gpumem_frag_read() - the free space of one manager
 * @man: the manager (its device may not go away meanwhile)
 * @unit: bytes per unit of the manager's size (PAGE_SIZE or 1)
 * @out: the result
 *
 * Runs the manager's debug printer: its cost is the driver's (a range
 * manager prints every node under its lock, though the lines of nodes in
 * use are not formatted here), so callers rate-limit it.
 *
 * Context: process context; may sleep (some drivers' printers take a
 * mutex).
 */
void gpumem_frag_read(struct ttm_resource_manager *man, u64 unit,
		      struct gpumem_frag *out)
{
	struct gpumem_frag_parser p;	/* ~200 bytes: one line at a time */
	struct drm_printer printer = {
		.printfn = gpumem_frag_printfn,
		.arg = &p,
	};

	gpumem_frag_parser_init(&p, unit);
	ttm_resource_manager_debug(man, &printer);
	gpumem_frag_feed(&p, "\n", 1);	/* an unterminated last line */
	*out = p.frag;
}
