/* flat.h - console text with its wrapping undone, for tests that look for a sentence. */
#ifndef PS_TEST_FLAT_H
#define PS_TEST_FLAT_H

/* Each line break and the indent after it become one space, in place. */
static char *flat(char *text)
{
	char *w = text;

	for (const char *r = text; *r; r++) {
		if (*r == '\n') {
			while (r[1] == ' ')
				r++;
			*w++ = ' ';
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	return text;
}

#endif
