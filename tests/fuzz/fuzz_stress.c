/*
 * fuzz_stress.c - what the burnin step reads as text: stress-ng's log (its
 * own build or the PATH's, of any version) through ps_stress_parse_log and
 * ps_stress_dispatched on every prefix a growing log shows, and
 * /proc/interrupts' MCE line through ps_proc_mce_count.
 */
// fuzz-sources: engines/stress/burn.c
#include "fuzz.h"

#include "engines/stress/burn.h"

#include <errno.h>
#include <math.h>

static void check_run(const struct ps_stress_run *r)
{
	FUZZ_CHECK(r->n <= PS_STRESS_MAX);
	FUZZ_CHECK(r->n_fail_lines <= PS_STRESS_FAIL_KEEP);
	FUZZ_CHECK(r->n_fail_lines <= r->fails);
	FUZZ_CHECK(r->completed >= -1 && r->completed <= 1);
	FUZZ_CHECK(memchr(r->version, '\0', sizeof(r->version)));
	for (size_t i = 0; i < r->n_fail_lines; i++)
		FUZZ_CHECK(memchr(r->fail_lines[i], '\0', sizeof(r->fail_lines[i])));
	for (size_t i = 0; i < r->n; i++) {
		const struct ps_stressor_result *s = &r->s[i];

		FUZZ_CHECK(memchr(s->name, '\0', sizeof(s->name)) && s->name[0]);
		FUZZ_CHECK(s->bogo_ops >= -1);
		FUZZ_CHECK(s->bogo_ops >= 0 ? s->real_s >= 0 && isfinite(s->real_s) &&
						  s->ops_per_s >= 0 && isfinite(s->ops_per_s)
					    : isnan(s->real_s));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ps_stress_run r, again;
	int ret;
	bool whole;

	FUZZ_CHECK(text);
	memset(&r, 0x5a, sizeof(r));
	ret = ps_stress_parse_log(text, &r);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret == 0) {
		check_run(&r);
		memset(&again, 0, sizeof(again));
		FUZZ_CHECK(ps_stress_parse_log(text, &again) == 0);
		FUZZ_CHECK(again.n == r.n && again.fails == r.fails &&
			   again.completed == r.completed);
	}
	/* the log as it grows: once the line is there, it stays */
	whole = ps_stress_dispatched((const char *)data, size);
	for (size_t n = 0, seen = 0; n <= size; n++) {
		bool d = ps_stress_dispatched((const char *)data, n);

		FUZZ_CHECK(!seen || d);
		seen |= d;
		if (n == size)
			FUZZ_CHECK(d == whole);
	}
	FUZZ_CHECK(ps_proc_mce_count(text) >= -1);
	free(text);
	return 0;
}
