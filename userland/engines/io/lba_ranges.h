/* lba_ranges.h - a set of bad sector ranges: the same sectors failing in
 * several passes count once, and neighbours merge into one range. Pure. */
#ifndef PS_IO_LBA_RANGES_H
#define PS_IO_LBA_RANGES_H

#include "lib/fields.h"
#include "report/view.h"

#include <stddef.h>
#include <stdint.h>

struct ps_lba_range {
	uint64_t first, last; /* inclusive */
	unsigned int hits;    /* failing reads that touched it */
};

struct ps_lba_ranges {
	struct ps_lba_range *r; /* sorted by first, disjoint, not adjacent */
	size_t n, cap;
};

/* Add [first, last]: 1 when it brought new sectors, 0 when all were known, -ENOMEM/-EINVAL. */
int ps_lba_ranges_add(struct ps_lba_ranges *s, uint64_t first, uint64_t last);
/* Distinct sectors in the set. */
uint64_t ps_lba_ranges_sectors(const struct ps_lba_ranges *s);
void ps_lba_ranges_free(struct ps_lba_ranges *s);

/*
 * The ranges as a report's rows (lba_first, lba_last, sectors, hits): the
 * one form of a list of unreadable sectors, shared by the steps that find
 * them. ps_lba_range_rows returns a malloc'd array of s->n rows (NULL when
 * there are none or memory ran out; *n says how many).
 */
struct ps_lba_range_row {
	uint64_t first, last, sectors;
	unsigned int hits;
};
extern const struct ps_fields ps_lba_range_row_fields;
struct ps_lba_range_row *ps_lba_range_rows(const struct ps_lba_ranges *s, size_t *n);

/* Their view columns, nested in a drive's row (its name the key). */
#define PS_LBA_RANGE_COLS                                                                          \
	{.path = "^/name", .title = "drive", .flags = PS_COL_KEY},                                 \
	    {.path = "/lba_first", .title = "first LBA", .flags = PS_COL_KEY},                     \
	    {.path = "/lba_last", .title = "last LBA"},                                            \
	    {.path = "/sectors", .title = "sectors", .better = PS_BETTER_LOWER},                   \
	{                                                                                          \
		.path = "/hits", .title = "failed reads", .flags = PS_COL_OPTIONAL                 \
	}

#endif
