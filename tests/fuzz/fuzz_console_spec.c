/* fuzz_console_spec.c - a console= value ("tty0,ttyS0,115200") through ps_console_spec_parse. */
// fuzz-sources: core/config.c engines/net/spec.c lib/util.c lib/json.c core/scratch.c decode/md.c
// fuzz-sources: lib/store.c lib/redact.c collect/url.c collect/bootnet.c decode/wall.c
#include "fuzz.h"

#include "core/config.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_term_spec terms[PS_MAX_TERMS + 1];
	char *spec = fuzz_cstr(data, size), why[128];
	int n;

	memset(terms, 0x5a, sizeof(terms));
	why[0] = '\0';
	n = ps_console_spec_parse(spec, terms, PS_MAX_TERMS, why, sizeof(why));
	if (n < 0) {
		FUZZ_CHECK(n == -EINVAL && why[0]);
	} else {
		FUZZ_CHECK(n >= 1 && n <= PS_MAX_TERMS);
		/* Never written past max; every name a NUL-terminated terminal name. */
		FUZZ_CHECK(terms[PS_MAX_TERMS].name[0] == 0x5a);
		for (int i = 0; i < n; i++) {
			size_t len = strnlen(terms[i].name, sizeof(terms[i].name));

			FUZZ_CHECK(len > 0 && len < sizeof(terms[i].name));
		}
	}
	free(spec);
	return 0;
}
