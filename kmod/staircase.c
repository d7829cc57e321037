// SPDX-License-Identifier: GPL-2.0
/*
 * gpumem staircase: one window's end for one counter, and its suspect taken
 * out or described (staircase.h). Pure: the caller holds the counter's lock.
 *
 * A floor that rose by more than the slack over the previous window's
 * counts one more rising window, any other resets the count. At the
 * parameters' windows rising windows in a row the counter is a suspect
 * (pending until collected); it stays one, raising no second event, until
 * its floor falls back to where the rise began.
 */
#include <linux/jiffies.h>
#include <linux/limits.h>
#include "staircase.h"

/**
 * gpumem_leak_window_end() - end the window of one counter
 * @st: the counter's state (under the counter's lock)
 * @usage: the counter's value now (the next window's floor so far)
 * @p: the parameters
 *
 * Return: true when the counter just became a suspect (@st->pending is set
 *	too, for gpumem_leak_collect()).
 */
bool gpumem_leak_window_end(struct gpumem_leak_state *st, u64 usage,
			    const struct gpumem_leak_params *p)
{
	u64 floor = st->floor;

	st->floor = usage;
	if (p->reset) {
		st->prev = usage;
		st->base = usage;
		st->rises = 0;
		st->suspect = false;
		st->pending = false;
		st->span = 0;
		return false;
	}
	if (floor > st->prev && floor - st->prev > p->slack) {
		/* a suspect's base stays until it falls back there */
		if (!st->rises && !st->suspect) {
			st->base = st->prev;
			st->span = 0;
		}
		st->prev = floor;
		if (st->rises < U32_MAX)
			st->rises++;
		if (st->span < U32_MAX)
			st->span++;
		if (st->rises < p->windows || st->suspect)
			return false;
		st->suspect = true;
		st->pending = true;
		st->since = jiffies;
		return true;
	}
	st->rises = 0;
	st->prev = floor;
	/* fallen back to where the suspect rise began: a new episode may come */
	if (st->suspect && (floor <= st->base || floor - st->base <= p->slack))
		st->suspect = false;
	if (!st->suspect)
		st->span = 0;
	else if (st->span < U32_MAX)
		st->span++;
	return false;
}

/**
 * gpumem_leak_collect() - take a pending suspect out of a counter
 * @st: the counter's state (under the counter's lock)
 * @usage: the counter's value now
 * @hit: filled in with @usage, the growth and the windows (the caller fills
 *	in whose counter it is)
 *
 * Return: true when one was pending (it is not any more).
 */
bool gpumem_leak_collect(struct gpumem_leak_state *st, u64 usage,
			 struct gpumem_leak_hit *hit)
{
	if (!st->pending)
		return false;
	st->pending = false;
	hit->usage = usage;
	hit->growth = st->prev - st->base;
	hit->windows = st->rises;
	return true;
}

/**
 * gpumem_leak_describe() - a counter's figures while it is a suspect, for
 *	the listing (nothing changes)
 * @st: the counter's state (under the counter's lock)
 * @usage: the counter's value now
 * @hit: filled in with @usage, the growth of the floor since the rise began,
 *	the windows since then and the time since it became a suspect (the
 *	caller fills in whose counter it is)
 *
 * Return: true when the counter is a suspect now: its floor rose for
 *	leak_windows windows in a row and has not fallen back to where the
 *	rise began.
 */
bool gpumem_leak_describe(const struct gpumem_leak_state *st, u64 usage,
			  struct gpumem_leak_hit *hit)
{
	if (!st->suspect)
		return false;
	hit->usage = usage;
	hit->growth = st->prev > st->base ? st->prev - st->base : 0;
	hit->windows = st->span;
	hit->since_ms = jiffies_to_msecs(jiffies - st->since);
	return true;
}
