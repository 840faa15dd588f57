/*
 * fuzz_aer.c - a PCIe function's AER counters as sysfs gives them
 * (aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal: "RxErr 0\n...
 * TOTAL_ERR_COR 2") at a step's start and end, through ps_aer_parse as
 * the aer recorder reads each file (record/aer.c: the whole file,
 * NUL-terminated), then ps_aer_compare with the aer probe's events and
 * the aer view; the events' status bits through ps_aer_status_names.
 * Input: parts separated by FUZZ_SEP: the three files at the start, the
 * three at the end (an empty part is a file that is not there), then the
 * probe's records, sizeof(struct probestick_kc_record) bytes each.
 */
// fuzz-sources: all
#include "fuzz.h"

#include "record/platform.h"
#include "report/report.h"

#include <errno.h>

#define MAX_RECORDS 16

static void check_counts(const struct ps_aer_counts *c)
{
	for (int sv = 0; sv < 3; sv++) {
		FUZZ_CHECK(c->n[sv] >= 0 && c->n[sv] <= PS_AER_NAMES);
		FUZZ_CHECK(c->total[sv] >= -1);
		for (int k = 0; k < c->n[sv]; k++)
			FUZZ_CHECK(memchr(c->name[sv][k], '\0', sizeof(c->name[sv][k])) &&
				   c->name[sv][k][0]);
	}
}

/* One reading: the three files as the recorder parses them; true when any counted. */
static bool reading(const uint8_t *data, size_t size, size_t *pos, struct ps_aer_counts *c)
{
	bool any = false;

	memset(c, 0, sizeof(*c));
	snprintf(c->address, sizeof(c->address), "0000:00:1c.0");
	for (int sv = 0; sv < 3; sv++) {
		const uint8_t *part;
		size_t len;
		char *text;
		int r;

		c->total[sv] = c->rootport[sv] = -1;
		if (!fuzz_part(data, size, pos, &part, &len) || !len)
			continue;
		text = fuzz_cstr(part, len);
		r = ps_aer_parse(text, sv, c);
		FUZZ_CHECK(r == 0 || r == -EINVAL);
		any |= r == 0;
		free(text);
	}
	check_counts(c);
	return any;
}

static void render(json_object *aer)
{
	static const struct ps_view *const views[] = {&ps_aer_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "aer", aer);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_aer_counts a, b;
	static struct probestick_kc_record ev[MAX_RECORDS];
	const size_t rs = sizeof(ev[0]);
	size_t pos = 0, na, nb;
	unsigned int n = 0;
	json_object *o;

	na = reading(data, size, &pos, &a) ? 1 : 0;
	nb = reading(data, size, &pos, &b) ? 1 : 0;
	memset(ev, 0, sizeof(ev));
	for (size_t off = pos; off < size && n < MAX_RECORDS; off += rs, n++)
		memcpy(&ev[n], data + off, size - off < rs ? size - off : rs);
	for (unsigned int i = 0; i < n; i++) {
		char bits[200];

		ps_aer_status_names(ev[i].dir, (uint32_t)ev[i].sum, bits, sizeof(bits));
		FUZZ_CHECK(memchr(bits, '\0', sizeof(bits)));
		FUZZ_CHECK((uint32_t)ev[i].sum == 0 || bits[0]);
	}
	o = ps_aer_compare(&a, na, &b, nb, ev, n, n > 0, "", NULL);
	FUZZ_CHECK(o);
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
