/* fixture.h - a recorded file of tests/fixtures/, whole, for the decoders' unit tests. */
#ifndef PS_TEST_FIXTURE_H
#define PS_TEST_FIXTURE_H

#include "lib/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The file's bytes (free() them) and its length; a missing fixture ends the test. */
static inline uint8_t *load_fixture(const char *path, size_t *len)
{
	char *data = NULL;

	if (ps_read_all(path, &data, len) < 0) {
		fprintf(stderr, "cannot read fixture %s\n", path);
		exit(1);
	}
	return (uint8_t *)data;
}

#endif
