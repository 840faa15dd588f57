/* proc_fixture.h - read a recorded /proc text from tests/fixtures/proc/ for the
 * sampler's unit tests; a missing fixture stops the test (exit 2). */
#ifndef PS_PROC_FIXTURE_H
#define PS_PROC_FIXTURE_H

#include "lib/util.h"

#include <stdio.h>
#include <stdlib.h>

static inline char *fixture(const char *rel, size_t *len)
{
	char path[512];
	char *data = NULL;

	snprintf(path, sizeof(path), "%s/proc/%s", FIXTURES, rel);
	if (ps_read_all(path, &data, len) < 0) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(2);
	}
	return data;
}

#endif
