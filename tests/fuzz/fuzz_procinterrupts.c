/* fuzz_procinterrupts.c - /proc/interrupts text through ps_irq_parse, twice into one table. */
// fuzz-sources: decode/procinterrupts.c
#include "fuzz.h"

#include "decode/proc.h"

#include <errno.h>

static void check(const uint8_t *data, size_t size, const struct ps_irq_table *t, int ret)
{
	const char *text = (const char *)data;

	FUZZ_CHECK(ret == 0 || ret == -ENODATA);
	if (ret)
		return;
	FUZZ_CHECK(t->ncols > 0 && t->ncols <= t->cols_cap);
	FUZZ_CHECK(t->nlines <= t->lines_cap && t->ncounts <= t->counts_cap);
	for (unsigned int k = 0; k < t->ncols; k++)
		FUZZ_CHECK(t->cpu_ids[k] >= 0 && t->cpu_ids[k] <= PS_PROC_CPU_MAX);
	for (size_t i = 0; i < t->nlines; i++) {
		const struct ps_irq_line *l = &t->lines[i];

		FUZZ_CHECK(l->key[sizeof(l->key) - 1] == '\0' && l->key[0]);
		FUZZ_CHECK(l->ncounts >= 1 && l->ncounts <= t->ncols);
		FUZZ_CHECK(l->counts + l->ncounts <= t->ncounts);
		FUZZ_CHECK(l->global == (l->ncounts < t->ncols));
		/* Spans point into the text. */
		FUZZ_CHECK(!l->chip || (l->chip >= text && l->chip + l->chip_len <= text + size));
		FUZZ_CHECK(!l->hwirq ||
			   (l->hwirq >= text && l->hwirq + l->hwirq_len <= text + size));
		FUZZ_CHECK(!l->name || (l->name >= text && l->name + l->name_len <= text + size));
		FUZZ_CHECK(ps_irq_find(t, l->key, i) >= 0);
	}
	FUZZ_CHECK(ps_irq_find(t, "no key", t->nlines + 7) == -1); /* keys have no blank */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_irq_table t;
	int ret;

	memset(&t, 0, sizeof(t));
	ret = ps_irq_parse((const char *)data, size, &t);
	check(data, size, &t, ret);
	ret = ps_irq_parse((const char *)data, size / 2, &t);
	check(data, size / 2, &t, ret);
	ps_irq_free(&t);
	return 0;
}
