/* fuzz_config.c - probestick.cfg as any editor on any PC may leave it: ps_config_parse_text. */
// fuzz-sources: core/config.c engines/net/spec.c lib/util.c lib/json.c core/scratch.c decode/md.c
// fuzz-sources: lib/store.c lib/redact.c collect/url.c collect/bootnet.c decode/wall.c
#include "fuzz.h"

#include "core/config.h"

static const char *const plans[] = {"quick", "full", "menu", "serve"};
static const char *const thens[] = {"poweroff", "reboot", "menu", "shell"};

static bool one_of(const char *s, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_config cfg;
	struct ps_term_spec terms[PS_MAX_TERMS];
	json_object *warnings = json_object_new_array();
	char why[256];

	ps_config_defaults(&cfg);
	ps_config_parse_text(&cfg, (const char *)data, size, "/stick/probestick.cfg", warnings);
	/* A bad value is a warning that keeps the old one: what is kept is always valid. */
	FUZZ_CHECK(one_of(cfg.plan, plans, 4));
	FUZZ_CHECK(one_of(cfg.then, thens, 4));
	FUZZ_CHECK(ps_console_spec_parse(cfg.console, terms, PS_MAX_TERMS, why, sizeof(why)) > 0);
	/* The warnings go into the report as they are. */
	fuzz_check_strings(warnings);
	json_object_put(warnings);
	return 0;
}
