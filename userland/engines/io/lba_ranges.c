/* lba_ranges.c - merge failing sector ranges across passes (lba_ranges.h). */
#include "engines/io/lba_ranges.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ps_lba_ranges_add(struct ps_lba_ranges *s, uint64_t first, uint64_t last)
{
	size_t lo = 0, hi;
	uint64_t before, after;
	unsigned int hits = 1;

	if (last < first)
		return -EINVAL;
	before = ps_lba_ranges_sectors(s);
	/* the first range that ends at or after first - 1 (touching counts) */
	while (lo < s->n && s->r[lo].last + 1 < first)
		lo++;
	hi = lo;
	while (hi < s->n && s->r[hi].first <= last + 1) {
		if (s->r[hi].first < first)
			first = s->r[hi].first;
		if (s->r[hi].last > last)
			last = s->r[hi].last;
		hits += s->r[hi].hits;
		hi++;
	}
	if (hi == lo) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 16;
			struct ps_lba_range *r = realloc(s->r, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			s->r = r;
			s->cap = cap;
		}
		memmove(&s->r[lo + 1], &s->r[lo], (s->n - lo) * sizeof(*s->r));
		s->n++;
	} else if (hi - lo > 1) {
		memmove(&s->r[lo + 1], &s->r[hi], (s->n - hi) * sizeof(*s->r));
		s->n -= hi - lo - 1;
	}
	s->r[lo] = (struct ps_lba_range){first, last, hits};
	after = ps_lba_ranges_sectors(s);
	return after > before ? 1 : 0;
}

uint64_t ps_lba_ranges_sectors(const struct ps_lba_ranges *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->r[i].last - s->r[i].first + 1;
	return n;
}

void ps_lba_ranges_free(struct ps_lba_ranges *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

/* hits came to surface's rows with the kit: its older reports lack it. */
static const struct ps_field row_f[] = {
    PS_FIELD(struct ps_lba_range_row, first, "lba_first"),
    PS_FIELD(struct ps_lba_range_row, last, "lba_last"),
    PS_FIELD(struct ps_lba_range_row, sectors, "sectors"),
    PS_FIELD(struct ps_lba_range_row, hits, "hits", .help = "failing reads that touched it",
	     .flags = PS_FLD_NEWER),
};
const struct ps_fields ps_lba_range_row_fields = PS_FIELDS(struct ps_lba_range_row, row_f);

struct ps_lba_range_row *ps_lba_range_rows(const struct ps_lba_ranges *s, size_t *n)
{
	struct ps_lba_range_row *rows = s->n ? ps_fields_new(&ps_lba_range_row_fields, s->n) : NULL;

	*n = rows ? s->n : 0;
	for (size_t i = 0; i < *n; i++) {
		rows[i].first = s->r[i].first;
		rows[i].last = s->r[i].last;
		rows[i].sectors = s->r[i].last - s->r[i].first + 1;
		rows[i].hits = s->r[i].hits;
	}
	return rows;
}
