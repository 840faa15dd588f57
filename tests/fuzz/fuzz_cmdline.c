/* fuzz_cmdline.c - the kernel command line (/proc/cmdline) through ps_config_parse_cmdline. */
// fuzz-sources: core/config.c engines/net/spec.c lib/util.c lib/json.c core/scratch.c decode/md.c
// fuzz-sources: lib/store.c lib/redact.c collect/url.c collect/bootnet.c decode/wall.c
#include "fuzz.h"

#include "core/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_config cfg;
	struct ps_term_spec terms[PS_MAX_TERMS];
	json_object *warnings = json_object_new_array();
	char *cmdline = fuzz_cstr(data, size), why[256];

	ps_config_defaults(&cfg);
	/* As ps_config_load passes it: the file's text, a NUL inside ends it. */
	ps_config_parse_cmdline(&cfg, cmdline, warnings);
	FUZZ_CHECK(ps_console_spec_parse(cfg.console, terms, PS_MAX_TERMS, why, sizeof(why)) > 0);
	FUZZ_CHECK(ps_config_set(&cfg, "plan", cfg.plan, why, sizeof(why)) == 0);
	FUZZ_CHECK(ps_config_set(&cfg, "then", cfg.then, why, sizeof(why)) == 0);
	fuzz_check_strings(warnings);
	json_object_put(warnings);
	free(cmdline);
	return 0;
}
