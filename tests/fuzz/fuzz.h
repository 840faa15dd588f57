/*
 * fuzz.h - what the libFuzzer harnesses share: the entry point, the ways the
 * program turns file bytes into the text its parsers get, and the checks
 * that hold for whatever it writes into a report.
 */
#ifndef PS_FUZZ_H
#define PS_FUZZ_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the code under test: abort, so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/*
 * With FUZZ_DUMP set in the environment, a harness run on one input prints
 * the JSON it built, once (tests/fuzz/make-seeds.sh puts such objects into report
 * seeds).
 */
static inline void fuzz_dump(json_object *o)
{
	static bool done; /* libFuzzer may run the one input twice (leak check) */

	if (getenv("FUZZ_DUMP") && !done)
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	done = true;
}

/* A NUL-terminated copy of the bytes; a NUL inside ends the string as it does for a C reader. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * The bytes as ps_read_str() leaves a sysfs attribute in buf: at most
 * len - 1 of them, NUL-terminated, trailing white space removed.
 */
static inline size_t fuzz_attr(const uint8_t *data, size_t size, char *buf, size_t len)
{
	size_t n = size < len - 1 ? size : len - 1;

	memcpy(buf, data, n);
	buf[n] = '\0';
	n = strlen(buf);
	while (n > 0 && strchr(" \t\n\v\f\r", buf[n - 1]))
		buf[--n] = '\0';
	return n;
}

/*
 * Multi-part inputs (two samples of two files, three DMI strings) are the
 * parts separated by FUZZ_SEP, a line none of those files holds. Gives the
 * next part and moves *pos past it; false when there is none left.
 */
#define FUZZ_SEP "\n%%\n"
static inline bool fuzz_part(const uint8_t *data, size_t size, size_t *pos, const uint8_t **part,
			     size_t *len)
{
	const uint8_t *sep;

	if (*pos > size)
		return false;
	*part = data + *pos;
	sep = memmem(*part, size - *pos, FUZZ_SEP, sizeof(FUZZ_SEP) - 1);
	*len = sep ? (size_t)(sep - *part) : size - *pos;
	*pos += *len + (sep ? sizeof(FUZZ_SEP) - 1 : 1);
	return true;
}

/* RFC 3629 UTF-8, written apart from ps_text_clean() so that each checks the other. */
static inline bool fuzz_utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < n;) {
		unsigned int c = s[i], need, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			need = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			need = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (i + need >= n)
			return false;
		for (unsigned int k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

/*
 * The report's rule for every string in it (lib/json.h): valid UTF-8, no
 * control bytes but newline and tab. Checked over a whole JSON tree.
 */
static inline void fuzz_check_strings(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *s = json_object_get_string(o);
		size_t n = (size_t)json_object_get_string_len(o);

		FUZZ_CHECK(fuzz_utf8_valid(s, n));
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(!((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') &&
				   s[i] != 0x7f);
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			fuzz_check_strings(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, key, val)
		{
			FUZZ_CHECK(fuzz_utf8_valid(key, strlen(key)));
			fuzz_check_strings(val);
		}
		break;
	}
	default:
		break;
	}
}

#endif
