/* fuzz_procstat.c - /proc/stat text through ps_stat_parse, twice into one struct as the sampler
 * does. */
// fuzz-sources: decode/procstat.c
#include "fuzz.h"

#include "decode/proc.h"

#include <errno.h>

static void check(const struct ps_stat *st, int ret)
{
	FUZZ_CHECK(ret == 0 || ret == -ENODATA);
	FUZZ_CHECK(ret == 0 || (!st->has_all && !st->ncpus));
	FUZZ_CHECK(st->ncpus <= st->cpus_cap);
	FUZZ_CHECK(!st->bad_lines == !st->first_bad_line);
	for (size_t i = 0; i < st->ncpus; i++) {
		FUZZ_CHECK(st->cpus[i].cpu >= 0 && st->cpus[i].cpu <= PS_PROC_CPU_MAX);
		FUZZ_CHECK(st->cpus[i].nfields >= 4 && st->cpus[i].nfields <= PS_ST_NFIELDS);
		(void)ps_stat_cpu_total(&st->cpus[i]);
	}
	if (st->has_all)
		FUZZ_CHECK(st->all.cpu == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_stat st;
	int ret;

	memset(&st, 0, sizeof(st));
	/* The text is not NUL-terminated: the parser must stay within size. */
	ret = ps_stat_parse((const char *)data, size, &st);
	check(&st, ret);
	/* Reused arrays: a second parse of a prefix must not see the first one's lines. */
	ret = ps_stat_parse((const char *)data, size / 2, &st);
	check(&st, ret);
	ps_stat_free(&st);
	return 0;
}
