/*
 * fuzz_kmsg.c - the kernel log of a step as /dev/kmsg gives it: every line
 * through ps_kmsg_parse and ps_kmsg_decode, the whole stream through the
 * summary (ps_kmsg_acc_feed in two reads, then finish), with or without the
 * typed inventory of the QEMU fixture tree, and the "kmsg" object in a step
 * of a report, rendered through its view (record/kmsg_view.c).
 * Input: one flag byte (bit 0: with the inventory, bit 1: the step's end is
 * known; the rest: where the stream is cut between the two reads), then the
 * records, one a line ("PRI,SEQ,USEC,FLAGS;TEXT", dictionary lines after).
 */
// fuzz-sources: all
#include "fuzz.h"

#include "record/kmsg.h"
#include "report/report.h"

#include <errno.h>

#define FIXTURE_ROOT "tests/fixtures/sysroot-qemu"

static const struct ps_inventory *inventory(void)
{
	static struct ps_inventory inv;
	static int state; /* 0 not read, 1 read, -1 failed */

	if (!state) {
		struct ps_inventory_opts o = {.root = FIXTURE_ROOT, .module_fd = -1};

		state = ps_inventory_take(&inv, &o) == 0 && inv.n_drives > 0 ? 1 : -1;
		if (state < 0)
			fprintf(stderr, "fuzz_kmsg: no inventory from %s: fuzzing without\n",
				FIXTURE_ROOT);
	}
	return state > 0 ? &inv : NULL;
}

/* A field the decoder fills ends within its room. */
#define TERMINATED(field) FUZZ_CHECK(memchr(field, '\0', sizeof(field)) != NULL)

static void one_record(const char *line, size_t len)
{
	struct ps_kmsg_record r;
	struct ps_kmsg_hit hit;
	int ret = ps_kmsg_parse(line, len, &r);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (ret)
		return;
	FUZZ_CHECK(r.len < sizeof(r.text) && r.text[r.len] == '\0');
	FUZZ_CHECK(r.level >= 0 && r.level <= 7 && ps_kmsg_level_name(r.level));
	FUZZ_CHECK(r.facility >= 0 && r.facility <= 255);
	memset(&hit, 0x5a, sizeof(hit));
	if (!ps_kmsg_decode(r.text, &hit))
		return;
	FUZZ_CHECK(hit.rule && *hit.rule);
	FUZZ_CHECK(hit.severity >= PS_KMSG_INFO && hit.severity <= PS_KMSG_FAIL);
	FUZZ_CHECK(hit.ns >= PS_KNS_NONE && hit.ns <= PS_KNS_OTHER);
	TERMINATED(hit.name);
	TERMINATED(hit.scsi);
	TERMINATED(hit.what);
	TERMINATED(hit.note);
	FUZZ_CHECK(hit.lba_first >= -1 && hit.lba_last >= -1);
	FUZZ_CHECK(hit.lba_first >= 0 || hit.lba_last == -1);
	FUZZ_CHECK(hit.lba_unit == PS_KLBA_DEVICE || hit.lba_unit == PS_KLBA_512);
}

/* The kernel log as report.txt shows it: one step holding it, the kmsg view alone. */
static void render(json_object *kmsg)
{
	static const struct ps_view *const views[] = {&ps_kmsg_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "kmsg", kmsg);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	struct ps_kmsg_acc *acc;
	json_object *k;
	size_t n, cut;
	uint8_t flags;

	if (!size)
		return 0;
	flags = data[0];
	n = size - 1;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (s + i)) : n - i;

		one_record(s + i, len);
		i += len + 1;
	}
	acc = ps_kmsg_acc_new();
	FUZZ_CHECK(acc);
	cut = n ? (size_t)(flags >> 2) * n / 63 : 0;
	ps_kmsg_acc_feed(acc, s, cut);
	ps_kmsg_acc_feed(acc, s + cut, n - cut);
	if (flags & 2)
		ps_kmsg_acc_end(acc, 600000000); /* 10 minutes after boot */
	k = ps_kmsg_acc_finish(acc, flags & 1 ? inventory() : NULL);
	FUZZ_CHECK(k);
	fuzz_dump(k);
	fuzz_check_strings(k);
	render(k);
	return 0;
}
