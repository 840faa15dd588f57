/*
 * fuzz_smart.c - smartctl's JSON as the smart step reads it: the step
 * itself (steps/smart.c, included as tests/unit/test_smart.c includes it)
 * over one drive, with a fake smartctl whose `-x --json=c` output is the
 * input (exit status as the output states it), so every answer goes
 * through ps_smart_parse (decode/smart_json.c), the verdict rules, the figures,
 * the identity check and the step's view; in the full plan the short
 * self-test too, on a fake clock: ATA through smartctl -t and -c (JSON
 * again), NVMe through the Device Self-test log page.
 * Input: one byte (bits 0-2 modulo 5: the drive's transport, SATA, NVMe,
 * SCSI, USB, virtio, a USB drive asking each bridge type in turn and each
 * getting the same answer; bit 3: the full plan; bit 4: the NVMe drive
 * announces Device Self-test), then parts separated by FUZZ_SEP: what
 * smartctl -x printed, what -t short printed, what each -c -l selftest
 * poll printed, the Device Self-test log page each read returns.
 */
// fuzz-sources: all
#include "fuzz.h"

#include "../unit/step_harness.h"
#include "report/report.h"

#include "../../userland/steps/smart.c"

enum { PART_X, PART_T, PART_C, PART_LOG, PARTS };
static const uint8_t *part[PARTS];
static size_t part_len[PARTS];
static bool dst_supported;
static double fake_clock;
static unsigned int calls; /* of smartctl and the ioctls: the step must end */

static int fuzz_smartctl(void *arg, const char *const *argv, double t, struct ps_smartctl_out *out)
{
	struct ps_smart s;
	char why[128];
	int k;

	memset(out, 0, sizeof(*out));
	FUZZ_CHECK(++calls < 100000);
	FUZZ_CHECK(argv[1]);
	k = strcmp(argv[1], "-x") == 0	 ? PART_X
	    : strcmp(argv[1], "-t") == 0 ? PART_T
	    : strcmp(argv[1], "-c") == 0 ? PART_C
					 : -1;
	if (k < 0) { /* -X: abort the self-test */
		out->text = strdup("{\"smartctl\":{\"exit_status\":0}}");
		FUZZ_CHECK(out->text);
		out->len = strlen(out->text);
		return 0;
	}
	out->text = malloc(part_len[k] + 1);
	FUZZ_CHECK(out->text);
	memcpy(out->text, part[k], part_len[k]);
	out->text[part_len[k]] = '\0';
	out->len = part_len[k];
	out->exit_status = ps_smart_parse(out->text, out->len, &s, NULL, why, sizeof(why)) == 0 &&
				   s.exit_status >= 0
			       ? s.exit_status & 0xff
			       : 0;
	return 0;
}

static int fuzz_open(void *arg, const char *path)
{
	return 100;
}
static void fuzz_close(void *arg, int fd)
{
	FUZZ_CHECK(fd == 100);
}
static int fuzz_identify(void *arg, int fd, uint8_t *b, size_t l)
{
	memset(b, 0, l);
	if (l > 256)
		b[256] = dst_supported ? 0x16 : 0x06; /* OACS bit 4: Device Self-test */
	return 0;
}
static int fuzz_dst(void *arg, int fd, int code)
{
	FUZZ_CHECK(++calls < 100000);
	FUZZ_CHECK(code == 1 || code == 0xf);
	return 0;
}
static int fuzz_log(void *arg, int fd, uint8_t *b, size_t l)
{
	FUZZ_CHECK(++calls < 100000);
	memset(b, 0, l);
	memcpy(b, part[PART_LOG], part_len[PART_LOG] < l ? part_len[PART_LOG] : l);
	return part_len[PART_LOG] ? 0 : -EIO;
}
static void fuzz_sleep(void *arg, double s)
{
	FUZZ_CHECK(s >= 0);
	fake_clock += s;
}
static double fuzz_now(void *arg)
{
	return fake_clock;
}

static const struct smart_backend fuzz_backend = {fuzz_smartctl, fuzz_open, fuzz_close,
						  fuzz_identify, fuzz_dst,  fuzz_log,
						  fuzz_sleep,	 fuzz_now,  NULL};

/* The step's data as report.txt shows it: one step holding it, the smart view alone. */
static void render(json_object *step_data)
{
	static const struct ps_view *const views[] = {&view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("smart"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "data", json_object_get(step_data));
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum ps_transport transports[] = {PS_TR_SATA, PS_TR_NVME, PS_TR_SCSI,
						       PS_TR_USB, PS_TR_VIRTIO};
	struct harness h;
	struct ps_drive d = {.size_bytes = 1LL << 30, .removable = 0};
	size_t pos = 1;

	if (!size)
		return 0;
	smart_backend = &fuzz_backend;
	for (int k = 0; k < PARTS; k++)
		if (!fuzz_part(data, size, &pos, &part[k], &part_len[k]))
			part[k] = data, part_len[k] = 0;
	dst_supported = data[0] & 0x10;
	fake_clock = 0;
	calls = 0;
	d.transport = transports[(data[0] & 7) % PS_ARRAY_SIZE(transports)];
	snprintf(d.name, sizeof(d.name), "%s", d.transport == PS_TR_NVME ? "nvme0n1" : "sda");
	snprintf(d.id, sizeof(d.id), "drive:fuzz:%s", d.name);
	snprintf(d.model, sizeof(d.model), "FUZZ DRIVE 1000");
	snprintf(d.serial, sizeof(d.serial), "FZ0001");
	snprintf(d.firmware, sizeof(d.firmware), "1.0");
	snprintf(d.identity_source, sizeof(d.identity_source), "ata");

	harness_init(&h, &smart_ops, "", data[0] & 8 ? PS_PLAN_FULL : PS_PLAN_QUICK);
	h.inv.drives = calloc(1, sizeof(d));
	FUZZ_CHECK(h.inv.drives);
	memcpy(h.inv.drives, &d, sizeof(d));
	h.inv.n_drives = 1;
	h.inv.taken = true;
	harness_run(&h);
	FUZZ_CHECK(h.status >= 0);
	FUZZ_CHECK(fake_clock < 7 * 24 * 3600.0); /* a self-test is waited for hours at most */
	/* the inventory's identity, corrected from smartctl's, stays within its room */
	FUZZ_CHECK(memchr(h.inv.drives[0].model, '\0', sizeof(h.inv.drives[0].model)));
	FUZZ_CHECK(memchr(h.inv.drives[0].serial, '\0', sizeof(h.inv.drives[0].serial)));
	FUZZ_CHECK(memchr(h.inv.drives[0].firmware, '\0', sizeof(h.inv.drives[0].firmware)));
	fuzz_dump(h.step);
	fuzz_check_strings(h.step);
	fuzz_check_strings(h.verdicts);
	render(h.data);
	harness_done(&h);
	return 0;
}
