/*
 * fuzz_mce.c - the machine checks of a step as the mce probe records them
 * (struct probestick_kc_record from PROBESTICK_IOC_KC_SNAPSHOT: CPU in dir,
 * bank in key, MCi_STATUS in sum, MCi_ADDR in max, times in extra[0]):
 * each status through ps_mce_decode (kmod/mce_decode.h, shared with the
 * module), all through ps_mce_json (record/mce.c) and the mce view.
 * Input: one flag byte (bit 0: the probe ran), then the records as the
 * ioctl copies them out, sizeof(struct probestick_kc_record) bytes each
 * (a short last one is zero-filled).
 */
// fuzz-sources: all
#include "fuzz.h"

#include "../../kmod/mce_decode.h"
#include "record/platform.h"
#include "report/report.h"

#define MAX_RECORDS 64

static void check_decode(uint64_t status)
{
	struct ps_mce_status st;

	memset(&st, 0x5a, sizeof(st));
	ps_mce_decode(status, &st);
	FUZZ_CHECK(memchr(st.what, '\0', sizeof(st.what)) && st.what[0]);
	FUZZ_CHECK(st.class >= PS_MCE_NONE && st.class <= PS_MCE_OTHER);
	FUZZ_CHECK(st.channel >= -1 && st.channel <= 14);
	FUZZ_CHECK(st.code == (status & 0xffff));
	FUZZ_CHECK(st.uncorrected == !!(status & PS_MCI_UC));
	FUZZ_CHECK(strcmp(ps_mce_class_name(st.class), "") != 0);
}

static void render(json_object *mce)
{
	static const struct ps_view *const views[] = {&ps_mce_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "mce", mce);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probestick_kc_record ev[MAX_RECORDS];
	const size_t rs = sizeof(ev[0]);
	unsigned int n = 0;
	json_object *o, *events;
	bool captured;

	if (!size)
		return 0;
	captured = data[0] & 1;
	memset(ev, 0, sizeof(ev));
	for (size_t off = 1; off < size && n < MAX_RECORDS; off += rs, n++)
		memcpy(&ev[n], data + off, size - off < rs ? size - off : rs);
	for (unsigned int i = 0; i < n; i++)
		check_decode(ev[i].sum);
	o = ps_mce_json(ev, n, captured, captured ? "" : "the mce probe did not attach");
	FUZZ_CHECK(o);
	events = ps_json_arr(o, "events");
	FUZZ_CHECK(events && ps_json_len(events) == n);
	FUZZ_CHECK(ps_json_len(ps_json_arr(o, "findings")) == n);
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
