/*
 * fuzz_sampler.c - the per-step load accumulation over several samples of
 * /proc/stat and /proc/interrupts (ps_load_acc_*), then the load object
 * in a step of a report, rendered through the load's view.
 * Input: stat, interrupts, stat, interrupts, ... separated by FUZZ_SEP;
 * a part "!" is a file that could not be read.
 */
// fuzz-sources: record/sampler.c record/load_view.c decode/procstat.c decode/procinterrupts.c
// fuzz-sources: lib/store.c
// fuzz-sources: report/report.c report/render_text.c report/render_html.c report/chart.c
// fuzz-sources: report/ocp.c report/doc.c report/view.c report/text.c
// fuzz-sources: lib/json.c lib/util.c
#include "fuzz.h"

#include "record/sampler.h"
#include "report/report.h"

#include <errno.h>

#define MAX_SAMPLES 8

/* The load as report.txt shows it: one step holding it, the load's view alone. */
static void render(json_object *load)
{
	static const struct ps_view *const views[] = {&ps_load_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "load", load);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_load_acc *acc = ps_load_acc_new(1000);
	const uint8_t *stat, *intr;
	size_t pos = 0, stat_len, intr_len;
	json_object *load;

	FUZZ_CHECK(acc);
	for (int i = 0; i < MAX_SAMPLES && fuzz_part(data, size, &pos, &stat, &stat_len); i++) {
		bool stat_bad, intr_bad;

		if (!fuzz_part(data, size, &pos, &intr, &intr_len)) {
			intr = NULL;
			intr_len = 0;
		}
		stat_bad = stat_len == 1 && stat[0] == '!';
		intr_bad = !intr || (intr_len == 1 && intr[0] == '!');
		FUZZ_CHECK(ps_load_acc_add(acc, (double)i, stat_bad ? NULL : (const char *)stat,
					   stat_len, stat_bad ? -EIO : 0,
					   intr_bad ? NULL : (const char *)intr, intr_len,
					   intr_bad ? -ENOENT : 0) == 0);
	}
	load = ps_load_acc_finish(acc);
	FUZZ_CHECK(load);
	fuzz_dump(load);
	fuzz_check_strings(load);
	render(load);
	return 0;
}
