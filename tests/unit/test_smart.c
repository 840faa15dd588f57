/*
 * test_smart.c - the smart step on recorded smartctl JSON through a fake
 * smartctl and fake NVMe ioctls: the verdict rules (healthy, saturated and
 * small reallocation, pending, CRC only, NVMe critical warning, NVMe worn
 * out, SAS grown defects, a USB bridge without pass-through, truncated and
 * malformed output), the bridge types tried in turn, identity through a
 * bridge, the full plan's self-tests (pass, fail, timeout, abort) and a
 * missing smartctl; real drives of the replay corpus (tests/realworld/smart/)
 * for the rules it brought: NVMe media errors, no health status, no identity,
 * power-on hours from attribute 9, smartctl's exit bits, a raw value out of
 * range, a vendor's reused attribute id, the USB bridge named only as the
 * cause.
 */
#include "check.h"
#include "hw/drive_identity.h"
#include "step_harness.h"

#include "../../userland/steps/smart.c"

#include <math.h>
#include <stdlib.h>

#define FX     FIXTURES "/smartctl/"
#define CORPUS "../../realworld/smart/corpus/json/"

/* What the fake smartctl answers for one drive. NULL: no output, exit 2. */
struct fake {
	const char *name;
	const char *x[5];     /* -x by type: auto, sat, sntjmicron, sntrealtek, sntasmedia */
	const char *start;    /* -t short */
	const char *polls[4]; /* -c -l selftest, in turn (the last repeats) */
	/* NVMe self-test */
	bool nvme_dst;	  /* OACS bit 4 */
	int nvme_result;  /* result when done; -1 never finishes */
	int64_t nvme_lba; /* failing LBA, or -1 */
	/* what the step did */
	int x_calls, i_calls, polls_done, aborts, dst_starts, dst_aborts, log_reads;
	const char *types_seen[8];
};

static struct fake *fakes;
static size_t n_fakes;
static double fake_clock;
static bool missing_smartctl;
static volatile sig_atomic_t *abort_at_poll; /* set abort when a poll happens */

static struct fake *fake_of(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; i < n_fakes; i++)
		if (strcmp(fakes[i].name, base) == 0)
			return &fakes[i];
	return NULL;
}

static int answer(const char *what, struct ps_smartctl_out *out)
{
	memset(out, 0, sizeof(*out));
	if (!what) {
		out->text = strdup("");
		out->exit_status = 2;
		return 0;
	}
	if (what[0] == '{' || what[0] == '!') {
		out->text = strdup(what[0] == '!' ? what + 1 : what);
		out->len = strlen(out->text);
	} else {
		char p[512];

		snprintf(p, sizeof(p), FX "%s", what);
		if (ps_read_all(p, &out->text, &out->len) < 0) {
			fprintf(stderr, "fixture %s missing\n", p);
			CHECK(0);
			out->text = strdup("");
			out->len = 0;
		}
	}
	{
		struct ps_smart s;
		char why[128];

		out->exit_status =
		    ps_smart_parse(out->text, out->len, &s, NULL, why, sizeof(why)) == 0 &&
			    s.exit_status >= 0
			? s.exit_status
			: 0;
	}
	return 0;
}

static int fake_smartctl(void *arg, const char *const *argv, double t, struct ps_smartctl_out *out)
{
	const char *type = NULL, *path = NULL, *cmd = argv[1];
	static const char *const types[] = {NULL, "sat", "sntjmicron", "sntrealtek", "sntasmedia"};
	struct fake *f;

	if (missing_smartctl)
		return -ENOENT;
	for (size_t i = 1; argv[i]; i++) {
		if (strcmp(argv[i], "-d") == 0 && argv[i + 1])
			type = argv[++i];
		else
			path = argv[i];
	}
	f = path ? fake_of(path) : NULL;
	if (!f)
		fprintf(stderr, "fake smartctl: no drive %s (%s)\n", path ? path : "?", cmd);
	CHECK(f != NULL);
	if (!f)
		return -EIO;
	if (strcmp(cmd, "-i") ==
	    0) { /* the inventory's identity correction (hw/drive_identity.c) */
		for (size_t i = 0; i < 5; i++)
			if ((!type && !types[i]) || (type && types[i] && !strcmp(type, types[i]))) {
				f->i_calls++;
				return answer(f->x[i], out);
			}
		CHECK(0);
		return -EINVAL;
	}
	if (strcmp(cmd, "-x") == 0) {
		for (size_t i = 0; i < 5; i++)
			if ((!type && !types[i]) || (type && types[i] && !strcmp(type, types[i]))) {
				if (f->x_calls < 8)
					f->types_seen[f->x_calls] = type ? type : "auto";
				f->x_calls++;
				return answer(f->x[i], out);
			}
		CHECK(0);
		return -EINVAL;
	}
	if (strcmp(cmd, "-t") == 0)
		return answer(f->start, out);
	if (strcmp(cmd, "-c") == 0) {
		int i = f->polls_done < 4 ? f->polls_done : 3;

		while (i > 0 && !f->polls[i])
			i--;
		f->polls_done++;
		if (abort_at_poll)
			*abort_at_poll = 1;
		return answer(f->polls[i], out);
	}
	if (strcmp(cmd, "-X") == 0) {
		f->aborts++;
		return answer("{\"smartctl\":{\"exit_status\":0}}", out);
	}
	CHECK(0);
	return -EINVAL;
}

static int fake_open(void *arg, const char *path)
{
	struct fake *f = fake_of(path);

	return f ? (int)(f - fakes) + 100 : -ENOENT;
}
static void fake_close(void *arg, int fd)
{
}
static int fake_identify(void *arg, int fd, uint8_t *b, size_t l)
{
	memset(b, 0, l);
	b[256] = fakes[fd - 100].nvme_dst ? 0x16 : 0x06;
	return 0;
}
static int fake_dst(void *arg, int fd, int code)
{
	struct fake *f = &fakes[fd - 100];

	if (code == 1)
		f->dst_starts++;
	else if (code == 0xf)
		f->dst_aborts++;
	return 0;
}
static int fake_log(void *arg, int fd, uint8_t *b, size_t l)
{
	struct fake *f = &fakes[fd - 100];

	memset(b, 0, l);
	for (int i = 0; i < 20; i++)
		b[4 + 28 * i] = 0xff;
	f->log_reads++;
	if (abort_at_poll)
		*abort_at_poll = 1;
	if (f->nvme_result < 0 || f->log_reads < 2) {
		b[0] = 1;
		b[1] = (uint8_t)(f->log_reads * 10 > 90 ? 90 : f->log_reads * 10);
		return 0;
	}
	b[4] = (uint8_t)(0x10 | f->nvme_result);
	if (f->nvme_lba >= 0) {
		b[6] = 2;
		for (int i = 0; i < 8; i++)
			b[20 + i] = (uint8_t)(f->nvme_lba >> (8 * i));
	}
	return 0;
}
static void fake_sleep(void *arg, double s)
{
	fake_clock += s;
}
static double fake_now(void *arg)
{
	return fake_clock;
}

static const struct smart_backend fake_backend = {fake_smartctl, fake_open, fake_close,
						  fake_identify, fake_dst,  fake_log,
						  fake_sleep,	 fake_now,  NULL};

static struct ps_drive mk(const char *name, enum ps_transport tr, const char *model,
			  const char *serial)
{
	struct ps_drive d = {.transport = tr, .size_bytes = 1LL << 30, .removable = 0};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.id, sizeof(d.id), "drive:test:%s", name);
	snprintf(d.model, sizeof(d.model), "%s", model);
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.identity_source, sizeof(d.identity_source), "ata");
	return d;
}

static void run_step(struct harness *h, unsigned int level, const struct ps_drive *drives, size_t n)
{
	harness_init(h, &smart_ops, "", level);
	h->inv.drives = calloc(n, sizeof(*drives));
	memcpy(h->inv.drives, drives, n * sizeof(*drives));
	h->inv.n_drives = n;
	h->inv.taken = true;
	harness_run(h);
}

static json_object *drive_data(struct harness *h, const char *name)
{
	json_object *ds = ps_json_arr(h->data, "drives");

	for (size_t i = 0; i < ps_json_len(ds); i++)
		if (strcmp(ps_json_str_or(ps_json_at(ds, i), "name", ""), name) == 0)
			return ps_json_at(ds, i);
	return NULL;
}

/* The finding of rule about subject name, or NULL. */
static json_object *finding(struct harness *h, const char *rule, const char *name)
{
	for (size_t i = 0; i < ps_json_len(h->run.findings); i++) {
		json_object *f = ps_json_at(h->run.findings, i);

		if (strcmp(ps_json_str_or(f, "rule", ""), rule) == 0 &&
		    (!name || strcmp(ps_json_str_or(f, "subject", ""), name) == 0))
			return f;
	}
	return NULL;
}

static const char *verdict_of(struct harness *h, const char *name)
{
	for (size_t i = 0; i < ps_json_len(h->verdicts); i++) {
		json_object *v = ps_json_at(h->verdicts, i);

		if (strcmp(ps_json_str_or(v, "subject", ""), name) == 0)
			return ps_json_str(v, "status");
	}
	return "none";
}

static void check_figure(json_object *f, const char *sev, double value, double limit,
			 const char *unit)
{
	double v = -1, l = -1;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_STR(ps_json_str(f, "severity"), sev);
	CHECK(ps_json_num(f, "value", &v) && v == value);
	if (isnan(limit))
		CHECK(!ps_json_num(f, "limit", &l));
	else
		CHECK(ps_json_num(f, "limit", &l) && l == limit);
	if (unit)
		CHECK_STR(ps_json_str(f, "unit"), unit);
}

static void test_rules(void)
{
	struct fake f[] = {
	    {.name = "sda", .x = {"smart-ata.json"}},
	    {.name = "sdb", .x = {"ata-realloc-saturated.json"}},
	    {.name = "sdc", .x = {"ata-realloc-20.json"}},
	    {.name = "sdd", .x = {"ata-pending.json"}},
	    {.name = "sde", .x = {"ata-crc-only.json"}},
	    {.name = "nvme0n1", .x = {"qemu-nvme-critical.json"}},
	    {.name = "nvme1n1", .x = {"nvme-worn-out.json"}},
	    {.name = "sdf", .x = {"scsi-grown-defects.json"}},
	    {.name = "sdg",
	     .x = {"qemu-usb-auto.json", "qemu-usb-sat.json", "qemu-usb-sntjmicron.json",
		   "qemu-usb-sntrealtek.json", "qemu-usb-sntasmedia.json"}},
	    {.name = "vda", .x = {"qemu-virtio.json"}},
	    {.name = "sdh", .x = {"truncated.json"}},
	    {.name = "sdi", .x = {"malformed.json"}},
	    {.name = "sdj", .x = {"qemu-ahci.json"}},
	    {.name = "sdk", .x = {"smart-scsi.json"}},
	    {.name = "stick"},
	};
	struct ps_drive d[] = {
	    mk("sda", PS_TR_SATA, "WDC WD140EDFZ-11A0VA0", "9RK1XXXX"),
	    mk("sdb", PS_TR_SATA, "WDC WD140EDFZ-11A0VA0", "9RK1XXXX"),
	    mk("sdc", PS_TR_SATA, "WDC WD140EDFZ-11A0VA0", "9RK1XXXX"),
	    mk("sdd", PS_TR_SATA, "WDC WD140EDFZ-11A0VA0", "9RK1XXXX"),
	    mk("sde", PS_TR_SATA, "WDC WD140EDFZ-11A0VA0", "9RK1XXXX"),
	    mk("nvme0n1", PS_TR_NVME, "QEMU NVMe Ctrl", "PSNVME0001"),
	    mk("nvme1n1", PS_TR_NVME, "INTEL SSDPEKNW010T8", "BTNH93710FS91P0B"),
	    mk("sdf", PS_TR_SCSI, "ST4000NM0043", "Z1Z5DWJK0000XXXXXXXX"),
	    mk("sdg", PS_TR_USB, "QEMU HARDDISK", "PSUSB00001"),
	    mk("vda", PS_TR_VIRTIO, "", "PSVIRT0001"),
	    mk("sdh", PS_TR_SATA, "QEMU HARDDISK", "X"),
	    mk("sdi", PS_TR_SATA, "QEMU HARDDISK", "X"),
	    mk("sdj", PS_TR_SATA, "QEMU HARDDISK", "PS-SATA-0001"),
	    mk("sdk", PS_TR_SCSI, "ST4000NM0043", "Z1Z5DWJK0000XXXXXXXX"),
	    mk("stick", PS_TR_USB, "QEMU HARDDISK", "1-0000:00:10.0:00.0-1"),
	};
	struct harness h;
	json_object *x, *att;

	d[14].boot_device = true;
	snprintf(d[0].firmware, sizeof(d[0].firmware), "81.00A81");
	snprintf(d[12].firmware, sizeof(d[12].firmware), "2.5+");
	fakes = f;
	n_fakes = PS_ARRAY_SIZE(f);
	run_step(&h, PS_PLAN_QUICK, d, PS_ARRAY_SIZE(d));
	CHECK_INT(h.status, PS_PASS);
	CHECK_STR(ps_json_str(h.data, "smartctl_version"), "7.0");

	/* healthy: examined, pass, its figures; power-on hours never judged */
	CHECK_STR(verdict_of(&h, "sda"), "pass");
	x = drive_data(&h, "sda");
	CHECK_STR(ps_json_str(x, "verdict"), "pass");
	CHECK_STR(ps_json_str(x, "protocol"), "ata");
	CHECK_INT(json_object_get_int(ps_json_ptr(x, "/power_on_hours")), 1730);
	CHECK_INT(json_object_get_int(ps_json_ptr(x, "/ata/reallocated")), 0);
	CHECK_INT(json_object_get_int(ps_json_ptr(x, "/ata/temperature")), 32);
	CHECK(ps_json_ptr(x, "/ata/reported_uncorrect") == NULL);
	CHECK(json_object_is_type(ps_json_get(x, "smartctl"), json_type_object));
	CHECK_STR(ps_json_ptr(x, "/smartctl/model_name")
		      ? json_object_get_string(ps_json_ptr(x, "/smartctl/model_name"))
		      : NULL,
		  "WDC WD140EDFZ-11A0VA0");
	CHECK_STR(ps_json_ptr(x, "/identity/used")
		      ? json_object_get_string(ps_json_ptr(x, "/identity/used"))
		      : NULL,
		  "inventory");
	/* QEMU's disk: 1 power-on hour, a fresh spare: pass */
	CHECK_STR(verdict_of(&h, "sdj"), "pass");

	/* seed 002: 2015 reallocated sectors, saturated: fail; its twin with 20: warn */
	check_figure(finding(&h, "smart.reallocated", "sdb"), "fail", 2015, PS_SMART_REALLOC_FAIL,
		     "sectors");
	CHECK(finding(&h, "smart.overall_failed", "sdb") != NULL);
	CHECK(finding(&h, "smart.attribute_failing", "sdb") != NULL);
	CHECK_STR(verdict_of(&h, "sdb"), "fail");
	check_figure(finding(&h, "smart.reallocated", "sdc"), "warn", 20, 0, "sectors");
	CHECK_STR(verdict_of(&h, "sdc"), "warn");
	CHECK_STR(ps_json_str(drive_data(&h, "sdc"), "verdict_rule"), "reallocated");
	/* pending and offline-uncorrectable: fail */
	check_figure(finding(&h, "smart.pending", "sdd"), "fail", 8, 0, "sectors");
	check_figure(finding(&h, "smart.offline_uncorrectable", "sdd"), "fail", 8, 0, "sectors");
	CHECK_STR(verdict_of(&h, "sdd"), "fail");
	/* CRC only: warn, and the message points at the cable */
	check_figure(finding(&h, "smart.crc_errors", "sde"), "warn", 43, 0, "errors");
	CHECK(strstr(ps_json_str(finding(&h, "smart.crc_errors", "sde"), "message"), "cable") !=
	      NULL);
	CHECK_STR(verdict_of(&h, "sde"), "warn");
	/* NVMe critical warning (QEMU smart_critical_warning=4): fail, bits named */
	check_figure(finding(&h, "smart.nvme_critical_warning", "nvme0n1"), "fail", 4, 0, NULL);
	CHECK(strstr(ps_json_str(finding(&h, "smart.nvme_critical_warning", "nvme0n1"), "message"),
		     "reliability degraded") != NULL);
	CHECK(finding(&h, "smart.overall_failed", "nvme0n1") == NULL);
	CHECK_STR(verdict_of(&h, "nvme0n1"), "fail");
	/* NVMe worn out: percentage used >= 100 and spare below threshold */
	check_figure(finding(&h, "smart.nvme_worn_out", "nvme1n1"), "warn", 104, 100, "%");
	check_figure(finding(&h, "smart.nvme_spare", "nvme1n1"), "fail", 3, 10, "%");
	CHECK_INT(json_object_get_int(ps_json_ptr(drive_data(&h, "nvme1n1"), "/nvme/media_errors")),
		  12);
	/* SAS: 150 grown defects fail, uncorrected reads warn; the healthy one's 56 warn */
	check_figure(finding(&h, "smart.grown_defects", "sdf"), "fail", 150, PS_SMART_REALLOC_FAIL,
		     "sectors");
	check_figure(finding(&h, "smart.uncorrected_errors", "sdf"), "warn", 3, 0, "errors");
	check_figure(finding(&h, "smart.grown_defects", "sdk"), "warn", 56, 0, "sectors");
	CHECK_INT(json_object_get_int(ps_json_ptr(drive_data(&h, "sdk"), "/scsi/grown_defects")),
		  56);

	/* a USB bridge without pass-through: every type tried in turn, no SMART, why */
	x = drive_data(&h, "sdg");
	att = ps_json_arr(x, "attempts");
	CHECK_INT(ps_json_len(att), 5);
	CHECK_INT(f[8].x_calls, 5);
	CHECK_STR(f[8].types_seen[0], "auto");
	CHECK_STR(f[8].types_seen[1], "sat");
	CHECK_STR(f[8].types_seen[4], "sntasmedia");
	CHECK_STR(ps_json_str(ps_json_at(att, 0), "message"),
		  "/dev/sdb: Unknown USB bridge [0x46f4:0x0001 (0x000)]");
	CHECK(strstr(ps_json_str(x, "no_smart_reason"), "USB bridge passes no SMART") != NULL);
	CHECK(strstr(ps_json_str(x, "no_smart_reason"), "sntjmicron: Read NVMe Identify") != NULL);
	CHECK_STR(ps_json_str(finding(&h, "smart.no_smart", "sdg"), "severity"), "info");
	CHECK_STR(verdict_of(&h, "sdg"), "untested");
	CHECK_STR(verdict_of(&h, "vda"), "untested");
	CHECK(strstr(ps_json_str(drive_data(&h, "vda"), "no_smart_reason"), "virtio") != NULL);

	/* truncated and malformed output: a finding about the step, the text kept */
	CHECK_INT(harness_count(&h, "smart.smartctl_output", "warn"), 2);
	x = finding(&h, "smart.smartctl_output", NULL);
	CHECK(x && ps_json_get(x, "kind") == NULL);
	CHECK(strstr(ps_json_str(drive_data(&h, "sdh"), "no_smart_reason"), "truncated") != NULL);
	CHECK(ps_json_str(drive_data(&h, "sdi"), "smartctl_text") != NULL);
	CHECK_STR(verdict_of(&h, "sdh"), "untested");

	/* the boot stick is never a target */
	CHECK_STR(ps_json_str(drive_data(&h, "stick"), "skipped_reason"),
		  "the boot stick: never a target");
	CHECK_INT(f[14].x_calls, 0);
	/* the quick plan starts no self-test */
	CHECK(ps_json_get(drive_data(&h, "sda"), "self_test") == NULL);
	harness_done(&h);
}

/*
 * Behind a USB bridge, sat answers with the drive's own identity: the
 * inventory takes it before it is frozen (hw/drive_identity.c), and the smart
 * step's identity table shows both, smartctl's used.
 */
static void test_bridge_identity(void)
{
	struct fake f[] = {{.name = "sdb", .x = {"qemu-usb-auto.json", "smart-ata.json"}}};
	struct ps_drive d[] = {mk("sdb", PS_TR_USB, "Generic Bridge", "")};
	struct harness h;
	json_object *x;

	snprintf(d[0].identity_source, sizeof(d[0].identity_source), "scsi");
	snprintf(d[0].firmware, sizeof(d[0].firmware), "0100");
	fakes = f;
	n_fakes = 1;
	/* the inventory phase: -i through each bridge type until one answers */
	CHECK_INT(ps_drive_smartctl_identity(&d[0], "", fake_smartctl, NULL), 1);
	CHECK_INT(f[0].i_calls, 2);
	/* the inventory now carries the drive's identity; its stable id is unchanged */
	CHECK_STR(d[0].model, "WDC WD140EDFZ-11A0VA0");
	CHECK_STR(d[0].firmware, "81.00A81");
	CHECK_STR(d[0].serial, "9RK1XXXX");
	CHECK_STR(d[0].identity_source, "smartctl");
	CHECK_STR(d[0].serial_source, "smartctl");
	CHECK_STR(d[0].sysfs_model, "Generic Bridge");
	CHECK_STR(d[0].id, "drive:test:sdb");
	run_step(&h, PS_PLAN_QUICK, d, 1);
	CHECK_INT(f[0].x_calls, 2);
	x = drive_data(&h, "sdb");
	CHECK_STR(ps_json_str(x, "answered_by"), "sat");
	CHECK_STR(json_object_get_string(ps_json_ptr(x, "/identity/used")), "smartctl");
	CHECK_STR(json_object_get_string(ps_json_ptr(x, "/identity/inventory_model")),
		  "Generic Bridge");
	CHECK_STR(json_object_get_string(ps_json_ptr(x, "/identity/inventory_source")), "scsi");
	CHECK(finding(&h, "smart.identity_differs", NULL) == NULL);
	CHECK_STR(verdict_of(&h, "sdb"), "pass");
	harness_done(&h);

	/* on a SATA port a difference is noted, and smartctl still wins */
	d[0] = mk("sda", PS_TR_SATA, "WDC WD140EDFZ-11A0V", "9RK1XXXX");
	f[0] = (struct fake){.name = "sda", .x = {"smart-ata.json"}};
	CHECK_INT(ps_drive_smartctl_identity(&d[0], "", fake_smartctl, NULL), 1);
	CHECK_STR(d[0].model, "WDC WD140EDFZ-11A0VA0");
	run_step(&h, PS_PLAN_QUICK, d, 1);
	CHECK(finding(&h, "smart.identity_differs", "sda") != NULL);
	harness_done(&h);

	/* no smartctl: nothing corrected, and the caller hears it */
	d[0] = mk("sda", PS_TR_SATA, "WDC WD140EDFZ-11A0V", "9RK1XXXX");
	missing_smartctl = true;
	CHECK_INT(ps_drive_smartctl_identity(&d[0], "", fake_smartctl, NULL), -ENOENT);
	missing_smartctl = false;
	CHECK_STR(d[0].model, "WDC WD140EDFZ-11A0V");
}

/* One ATA attribute row of smartctl's JSON. */
#define ATTR(id, name, val, thr, when, pre, raw, rawstr)                                           \
	"{\"id\":" #id ",\"name\":\"" name "\",\"value\":" #val ",\"worst\":" #val                 \
	",\"thresh\":" #thr ",\"when_failed\":\"" when "\",\"flags\":{\"prefailure\":" pre "},"    \
	"\"raw\":{\"value\":" raw ",\"string\":\"" rawstr "\"}}"
#define ATA_DOC(exit, status, attrs, rest)                                                         \
	"{\"smartctl\":{\"version\":[7,3],\"exit_status\":" #exit "},\"device\":{\"protocol\":"    \
	"\"ATA\",\"type\":\"sat\"},\"model_name\":\"X\",\"serial_number\":\"S\"" status            \
	",\"ata_smart_attributes\":{\"table\":[" attrs "]}" rest "}"

static void test_realworld(void)
{
	struct fake f[] = {
	    {.name = "nvme0n1", .x = {CORPUS "scrutiny-smart-nvme-failed.json"}},
	    {.name = "sda", .x = {CORPUS "scrutiny-smart-sat.json"}},
	    {.name = "sdb", .x = {CORPUS "scrutiny-smart-fail2.json"}},
	    /* a 30-digit raw with no string: unknown, never 2^63-1 */
	    {.name = "sdc",
	     .x = {"!" ATA_DOC(0, ",\"smart_status\":{\"passed\":true}",
			       ATTR(5, "Reallocated_Sector_Ct", 100, 10, "", "true",
				    "123456789012345678901234567890", ""),
			       "")}},
	    /* exit bit 3 (DISK FAILING) without a smart_status; a Crucial MX500's 197 */
	    {.name = "sdd",
	     .x = {"!" ATA_DOC(
		 8, "", ATTR(197, "Bogus_Current_Pend_Sect", 100, 0, "", "false", "1", "1"), "")}},
	    /* a failed self-test outdated by a later extended one that passed */
	    {.name = "sde",
	     .x = {"!" ATA_DOC(
		 0, ",\"smart_status\":{\"passed\":true}",
		 ATTR(9, "Power_On_Hours", 90, 0, "", "false", "167031278144165",
		      "2725 (151 234 0)"),
		 ",\"ata_smart_self_test_log\":{\"extended\":{\"table\":["
		 "{\"type\":{\"string\":\"Extended offline\"},\"status\":{\"value\":0,"
		 "\"string\":\"Completed without error\",\"passed\":true},\"lifetime_hours\":90},"
		 "{\"type\":{\"string\":\"Short offline\"},\"status\":{\"value\":114,\"string\":"
		 "\"Completed: read "
		 "failure\",\"passed\":false},\"lifetime_hours\":80,\"lba\":7}]}}")}},
	    /* the same failure, newest: the drive failed its own test */
	    {.name = "sdf",
	     .x = {"!" ATA_DOC(
		 128, ",\"smart_status\":{\"passed\":true}", "",
		 ",\"ata_smart_self_test_log\":{\"standard\":{\"table\":["
		 "{\"type\":{\"string\":\"Short offline\"},\"status\":{\"value\":114,\"string\":"
		 "\"Completed: read "
		 "failure\",\"passed\":false},\"lifetime_hours\":80,\"lba\":7}]}}")}},
	    /* a USB drive whose bridge reaches it: the drive has no SMART, the bridge is fine */
	    {.name = "sdg",
	     .x = {"qemu-usb-auto.json",
		   "!{\"smartctl\":{\"version\":[7,3],\"exit_status\":4},\"device\":{\"protocol\":"
		   "\"ATA\",\"type\":\"sat\"},\"model_name\":\"Flash Disk\",\"smart_support\":"
		   "{\"available\":false}}",
		   "qemu-usb-sntjmicron.json", "qemu-usb-sntrealtek.json",
		   "qemu-usb-sntasmedia.json"}},
	};
	struct ps_drive d[] = {
	    mk("nvme0n1", PS_TR_NVME, "Samsung SSD 970 EVO 500GB", "S466NX0M776250H"),
	    mk("sda", PS_TR_SATA, "ST2000DM001", ""),
	    mk("sdb", PS_TR_USB, "USB bridge", ""),
	    mk("sdc", PS_TR_SATA, "X", "S"),
	    mk("sdd", PS_TR_SATA, "X", "S"),
	    mk("sde", PS_TR_SATA, "X", "S"),
	    mk("sdf", PS_TR_SATA, "X", "S"),
	    mk("sdg", PS_TR_USB, "USB Flash Disk", ""),
	};
	struct harness h;
	json_object *x;
	const char *ex = NULL;

	fakes = f;
	n_fakes = PS_ARRAY_SIZE(f);
	run_step(&h, PS_PLAN_QUICK, d, PS_ARRAY_SIZE(d));

	/* the 970 EVO with 7 media errors is not pass; its 62 error-log entries are reported */
	check_figure(finding(&h, "smart.nvme_media_errors", "nvme0n1"), "warn", 7, 0, "errors");
	CHECK_STR(ps_json_str(finding(&h, "smart.nvme_error_log", "nvme0n1"), "severity"), "info");
	CHECK_STR(verdict_of(&h, "nvme0n1"), "warn");

	/* smartctl -A through SAT: no identity, no health status, hours from attribute 9 */
	x = drive_data(&h, "sda");
	CHECK_STR(ps_json_str(x, "verdict"), "pass");
	CHECK_INT(json_object_get_int(ps_json_get(x, "power_on_hours")), 2725);
	CHECK(strstr(json_object_get_string(ps_json_ptr(x, "/identity/why")), "no identity") !=
	      NULL);
	CHECK_STR(json_object_get_string(ps_json_ptr(x, "/identity/used")), "inventory");
	CHECK_STR(h.inv.drives[1].model, "ST2000DM001");
	for (size_t i = 0; i < ps_json_len(h.run.examined); i++)
		if (!strcmp(ps_json_str_or(ps_json_at(h.run.examined, i), "subject", ""), "sda"))
			ex = ps_json_str(ps_json_at(h.run.examined, i), "message");
	CHECK(ex && strstr(ex, "no health status") && !strstr(ex, "shows no fault"));

	/* exit 216 through a JMicron bridge: FAILED, attribute 5 failing, error log read */
	CHECK(finding(&h, "smart.overall_failed", "sdb") != NULL);
	CHECK_STR(ps_json_str(finding(&h, "smart.attribute_failing", "sdb"), "severity"), "fail");
	check_figure(finding(&h, "smart.error_log", "sdb"), "info", 56, NAN, "errors");
	CHECK_STR(verdict_of(&h, "sdb"), "fail");

	/* out of range is unknown: no reallocated finding, a null count */
	CHECK(finding(&h, "smart.reallocated", "sdc") == NULL);
	CHECK(ps_json_ptr(drive_data(&h, "sdc"), "/ata/reallocated") == NULL);
	CHECK_STR(verdict_of(&h, "sdc"), "pass");

	/* exit bit 3 alone fails the drive; a 197 the database calls bogus is not judged */
	CHECK(finding(&h, "smart.overall_failed", "sdd") != NULL);
	CHECK(finding(&h, "smart.pending", "sdd") == NULL);

	/* the self-test log: an outdated failure is not judged, a standing one fails */
	CHECK(finding(&h, "smart.self_test_log", "sde") == NULL);
	CHECK_INT(json_object_get_int(ps_json_get(drive_data(&h, "sde"), "power_on_hours")), 2725);
	check_figure(finding(&h, "smart.self_test_log", "sdf"), "fail", 7, NAN, "LBA");

	/* the bridge reached the drive: its own missing SMART is the reason, not the bridge */
	x = drive_data(&h, "sdg");
	CHECK(strstr(ps_json_str(x, "no_smart_reason"), "has no SMART") != NULL);
	CHECK(strstr(ps_json_str(x, "no_smart_reason"), "bridge passes no SMART") == NULL);
	harness_done(&h);
}

static const char *ata_running =
    "{\"smartctl\":{\"exit_status\":0,\"version\":[7,3]},\"device\":{\"protocol\":\"ATA\"},"
    "\"ata_smart_data\":{\"self_test\":{\"status\":{\"value\":246,\"remaining_percent\":60}}}}";
static const char *ata_read_failure =
    "{\"smartctl\":{\"exit_status\":128},\"device\":{\"protocol\":\"ATA\"},"
    "\"ata_smart_data\":{\"self_test\":{\"status\":{\"value\":115,\"passed\":false}}},"
    "\"ata_smart_self_test_log\":{\"standard\":{\"table\":[{\"type\":{\"string\":\"Short "
    "offline\"},\"status\":{\"value\":115,\"string\":\"Completed: read failure\",\"passed\":"
    "false},\"lifetime_hours\":4661,\"lba\":40000}]}}}";

static void test_self_tests(void)
{
	struct fake f[] = {
	    /* QEMU's AHCI disk, recorded: starts, done at the first poll, passed */
	    {.name = "sda",
	     .x = {"qemu-ahci.json"},
	     .start = "qemu-ahci-selftest-start.json",
	     .polls = {"qemu-ahci-selftest-done.json"}},
	    /* running, then a read failure at LBA 40000 */
	    {.name = "sdb",
	     .x = {"qemu-ahci.json"},
	     .start = "qemu-ahci-selftest-start.json",
	     .polls = {ata_running, ata_running, ata_read_failure}},
	    {.name = "nvme0n1", .x = {"smart-nvme.json"}, .nvme_dst = true, .nvme_result = 0},
	    {.name = "nvme1n1",
	     .x = {"smart-nvme.json"},
	     .nvme_dst = true,
	     .nvme_result = 7,
	     .nvme_lba = 8192},
	    /* QEMU's NVMe: no self-test (OACS bit 4 clear) */
	    {.name = "nvme2n1", .x = {"qemu-nvme-critical.json"}, .nvme_dst = false},
	    {.name = "sdf", .x = {"smart-scsi.json"}},
	};
	struct ps_drive d[] = {
	    mk("sda", PS_TR_SATA, "QEMU HARDDISK", "PS-SATA-0001"),
	    mk("sdb", PS_TR_SATA, "QEMU HARDDISK", "PS-SATA-0001"),
	    mk("nvme0n1", PS_TR_NVME, "INTEL SSDPEKNW010T8", "BTNH93710FS91P0B"),
	    mk("nvme1n1", PS_TR_NVME, "INTEL SSDPEKNW010T8", "BTNH93710FS91P0B"),
	    mk("nvme2n1", PS_TR_NVME, "QEMU NVMe Ctrl", "PSNVME0001"),
	    mk("sdf", PS_TR_SCSI, "ST4000NM0043", "Z1Z5DWJK0000XXXXXXXX"),
	};
	struct harness h;
	json_object *st;

	fakes = f;
	n_fakes = PS_ARRAY_SIZE(f);
	fake_clock = 1000;
	run_step(&h, PS_PLAN_FULL, d, PS_ARRAY_SIZE(d));
	CHECK_INT(h.status, PS_PASS);
	st = ps_json_get(drive_data(&h, "sda"), "self_test");
	CHECK(ps_json_bool(st, "started") == 1);
	CHECK(ps_json_bool(st, "passed") == 1);
	CHECK_STR(ps_json_str(st, "result"), "Completed without error");
	CHECK_INT(json_object_get_int(ps_json_get(st, "announced_s")), 120);
	CHECK_INT(json_object_get_int(ps_json_get(st, "limit_s")), 180);
	CHECK_STR(verdict_of(&h, "sda"), "pass");

	st = ps_json_get(drive_data(&h, "sdb"), "self_test");
	CHECK(ps_json_bool(st, "passed") == 0);
	CHECK_INT(f[1].polls_done, 3);
	CHECK_INT(json_object_get_int(ps_json_get(st, "lba_first_error")), 40000);
	check_figure(finding(&h, "smart.self_test_failed", "sdb"), "fail", 40000, NAN, "LBA");
	CHECK_STR(verdict_of(&h, "sdb"), "fail");

	CHECK_INT(f[2].dst_starts, 1);
	CHECK(ps_json_bool(ps_json_get(drive_data(&h, "nvme0n1"), "self_test"), "passed") == 1);
	CHECK_STR(verdict_of(&h, "nvme0n1"), "pass");
	st = ps_json_get(drive_data(&h, "nvme1n1"), "self_test");
	CHECK(ps_json_bool(st, "passed") == 0);
	CHECK_STR(ps_json_str(st, "result"), "failed: one or more segments failed");
	CHECK_INT(json_object_get_int(ps_json_get(st, "lba_first_error")), 8192);
	CHECK_STR(verdict_of(&h, "nvme1n1"), "fail");
	st = ps_json_get(drive_data(&h, "nvme2n1"), "self_test");
	CHECK(ps_json_bool(st, "started") == 0);
	CHECK(strstr(ps_json_str(st, "reason"), "OACS bit 4") != NULL);
	CHECK_INT(f[4].dst_starts, 0);
	CHECK(strstr(ps_json_str(ps_json_get(drive_data(&h, "sdf"), "self_test"), "reason"),
		     "SCSI") != NULL);
	harness_done(&h);

	/* a test that never ends: stopped at announced + margin, warned */
	f[0] = (struct fake){.name = "sda",
			     .x = {"qemu-ahci.json"},
			     .start = "qemu-ahci-selftest-start.json",
			     .polls = {ata_running}};
	f[2].nvme_result = -1;
	f[2].dst_starts = f[2].dst_aborts = f[2].log_reads = 0;
	fake_clock = 0;
	run_step(&h, PS_PLAN_FULL, d, 3);
	CHECK_INT(f[0].aborts, 1);
	CHECK_INT(f[2].dst_aborts, 1);
	CHECK(finding(&h, "smart.self_test_timeout", "sda") != NULL);
	CHECK(finding(&h, "smart.self_test_timeout", "nvme0n1") != NULL);
	/* NVMe: 120 s announced, 60 s margin; the clock stepped 5 s at a time */
	CHECK(fake_clock >= 180 && fake_clock < 190);
	CHECK(strstr(ps_json_str(ps_json_get(drive_data(&h, "sda"), "self_test"), "result"),
		     "did not finish within 180 s") != NULL);
	harness_done(&h);

	/* the user aborts: every running test is stopped, the step says aborted */
	f[0].aborts = 0;
	f[2].dst_aborts = f[2].log_reads = 0;
	abort_at_poll = &h.abort_flag;
	run_step(&h, PS_PLAN_FULL, d, 3);
	abort_at_poll = NULL;
	CHECK_INT(h.status, PS_ABORTED);
	CHECK_INT(f[0].aborts, 1);
	CHECK_INT(f[2].dst_aborts, 1);
	CHECK(strstr(ps_json_str(ps_json_get(drive_data(&h, "sda"), "self_test"), "result"),
		     "aborted by the user") != NULL);
	harness_done(&h);
}

static void test_missing(void)
{
	struct fake f[] = {{.name = "sda", .x = {"smart-ata.json"}}};
	struct ps_drive d[] = {mk("sda", PS_TR_SATA, "", "")};
	struct harness h;

	fakes = f;
	n_fakes = 1;
	missing_smartctl = true;
	run_step(&h, PS_PLAN_QUICK, d, 1);
	missing_smartctl = false;
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK(strstr(h.run.reason, "smartmontools") != NULL);
	harness_done(&h);

	/* only the stick: nothing to read */
	d[0].boot_device = true;
	run_step(&h, PS_PLAN_QUICK, d, 1);
	CHECK_INT(h.status, PS_SKIPPED);
	CHECK_INT(f[0].x_calls, 0);
	harness_done(&h);

	/* no drive answered: nothing was measured, so the step is skipped, never a pass;
	 * a USB device smartctl could not open is not the bridge's fault */
	{
		static const char *gone =
		    "!{\"smartctl\":{\"version\":[7,3],\"exit_status\":2,\"messages\":[{"
		    "\"string\":\"Smartctl open device: /dev/sdz [SAT] failed: No such device\","
		    "\"severity\":\"error\"}]}}";
		struct fake g[] = {{.name = "vda", .x = {"qemu-virtio.json"}},
				   {.name = "sdz", .x = {gone, gone, gone, gone, gone}}};
		struct ps_drive e[] = {mk("vda", PS_TR_VIRTIO, "", ""),
				       mk("sdz", PS_TR_USB, "USB bridge", "")};

		fakes = g;
		n_fakes = PS_ARRAY_SIZE(g);
		run_step(&h, PS_PLAN_QUICK, e, PS_ARRAY_SIZE(e));
		CHECK_INT(h.status, PS_SKIPPED);
		CHECK(strstr(h.run.reason, "no drive answered smartctl (2 tried)") != NULL);
		CHECK_STR(verdict_of(&h, "vda"), "untested");
		CHECK_STR(verdict_of(&h, "sdz"), "untested");
		CHECK(strstr(ps_json_str(drive_data(&h, "sdz"), "no_smart_reason"),
			     "bridge passes no SMART") == NULL);
		harness_done(&h);
	}
}

int main(void)
{
	smart_backend = &fake_backend;
	test_rules();
	test_bridge_identity();
	test_realworld();
	test_self_tests();
	test_missing();
	return check_done("test_smart");
}
