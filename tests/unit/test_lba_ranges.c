/* test_lba_ranges.c - failing sectors across passes: repeats count once,
 * overlapping and touching ranges merge, distinct sectors are counted. */
#include "check.h"
#include "engines/io/lba_ranges.h"

#include <errno.h>

int main(void)
{
	struct ps_lba_ranges s = {0};

	CHECK_INT(ps_lba_ranges_add(&s, 100, 107), 1);
	CHECK_INT(ps_lba_ranges_add(&s, 100, 107), 0); /* the same piece in the next pass */
	CHECK_INT(ps_lba_ranges_sectors(&s), 8);
	CHECK_INT(s.r[0].hits, 2);
	CHECK_INT(ps_lba_ranges_add(&s, 104, 111), 1); /* overlap: 4 new sectors */
	CHECK_INT(s.n, 1);
	CHECK_INT(ps_lba_ranges_sectors(&s), 12);
	CHECK_INT(ps_lba_ranges_add(&s, 112, 119), 1); /* touching: one range */
	CHECK_INT(s.n, 1);
	CHECK_INT(s.r[0].last, 119);
	CHECK_INT(ps_lba_ranges_add(&s, 0, 7), 1); /* before: a second range, kept sorted */
	CHECK_INT(ps_lba_ranges_add(&s, 1000, 1000), 1);
	CHECK_INT(s.n, 3);
	CHECK_INT(s.r[0].first, 0);
	CHECK_INT(s.r[2].first, 1000);
	CHECK_INT(ps_lba_ranges_add(&s, 5, 999), 1); /* bridges all three */
	CHECK_INT(s.n, 1);
	CHECK_INT(s.r[0].first, 0);
	CHECK_INT(s.r[0].last, 1000);
	CHECK_INT(ps_lba_ranges_sectors(&s), 1001);
	CHECK_INT(ps_lba_ranges_add(&s, 9, 3), -EINVAL);
	for (uint64_t i = 0; i < 100; i++) /* many apart: the array grows */
		CHECK_INT(ps_lba_ranges_add(&s, 10000 + i * 10, 10000 + i * 10 + 1), 1);
	CHECK_INT(s.n, 101);
	CHECK_INT(ps_lba_ranges_sectors(&s), 1001 + 200);
	ps_lba_ranges_free(&s);
	CHECK_INT(s.n, 0);
	return check_done("test_lba_ranges");
}
