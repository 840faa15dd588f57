/*
 * fuzz_text_clean.c - arbitrary bytes (a DMI string, a model name, an IRQ
 * action) through ps_text_clean, which every string of the report and the
 * console passes: valid UTF-8 out, no control bytes, never past the room.
 */
// fuzz-sources: lib/json.c lib/util.c
// fuzz-sources: lib/store.c
#include "fuzz.h"

#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t room = size ? data[0] % 64 + 1 : 1, n, n2;
	char *out = malloc(room), *again, *dup;
	json_object *o;

	FUZZ_CHECK(out);
	n = ps_text_clean((const char *)data, size, "\n", out, room);
	FUZZ_CHECK(n < room && out[n] == '\0' && strlen(out) == n);
	FUZZ_CHECK(fuzz_utf8_valid(out, n));
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(!((unsigned char)out[i] < 0x20 && out[i] != '\n') && out[i] != 0x7f);
	/* Clean text stays as it is. */
	again = malloc(room);
	FUZZ_CHECK(again);
	n2 = ps_text_clean(out, n, "\n", again, room);
	FUZZ_CHECK(n2 == n && memcmp(out, again, n) == 0);
	free(again);
	free(out);

	dup = ps_text_clean_dup((const char *)data, size, NULL);
	FUZZ_CHECK(dup && fuzz_utf8_valid(dup, strlen(dup)));
	free(dup);
	o = ps_json_new_strn((const char *)data, size);
	if (o)
		fuzz_check_strings(o);
	json_object_put(o);
	return 0;
}
