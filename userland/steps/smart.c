/*
 * smart.c - every drive's health as smartctl reads it (TESTPLAN 2): a verdict
 * per drive with the rule, value and limit that decided it; in the full plan
 * the drive's short self-test. smartctl's own JSON of each drive is kept.
 */
/* clang-format off */
//config:config STEP_SMART
//config:	bool "smart: drive health through smartctl (SMART, NVMe health log)"
//config:	default y
//config:	help
//config:	  Runs smartctl -x --json=c on every drive but the boot stick (USB
//config:	  drives through each bridge type in turn: sat, sntjmicron,
//config:	  sntrealtek, sntasmedia) and judges the result by the rules of
//config:	  hw/smart_rules.c (docs/rules.md): the drive's own health check
//config:	  and smartctl's exit bits, reallocated, pending, offline-
//config:	  uncorrectable and reported-uncorrectable sectors, CRC errors, the
//config:	  self-test log, NVMe critical warnings, spare, wear and media
//config:	  errors, SCSI grown defects. Power-on hours are reported, never
//config:	  judged. The full plan runs each drive's
//config:	  short self-test (ATA through smartctl, NVMe through the admin
//config:	  command) and waits for its result. Needs smartctl in the image.
//kbuild:step-$(CONFIG_STEP_SMART) += smart.o
/* clang-format on */

#include "core/step.h"
#include "lib/util.h"
#include "hw/hw_util.h"
#include "hw/smart_rules.h"
#include "hw/smartctl.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION 1

#define SMARTCTL_TIMEOUT_S 60.0
#define NVME_SHORT_S	   120 /* NVMe: a short self-test ends within 2 minutes */
#define SELFTEST_MARGIN_S  60.0
#define POLL_FIRST_S	   2.0
#define POLL_EVERY_S	   5.0
#define RAW_TEXT_CAP	   65536 /* output that is not JSON is kept up to this */

/* ---- the result: data{} as a struct, described once ---- */

struct attempt_row {
	char type[16];	 /* "auto" or the -d type */
	int exit_status; /* smartctl's bit mask; -1: smartctl did not run */
	bool answered;
	char message[300];
};

struct attr_row {
	int id;
	char name[40];
	int64_t value, worst, thresh, raw, count; /* -1 unknown */
	char raw_text[48];
	char when_failed[16];
};

/* The ATA attributes the rules read, by name; -1 (null) when the drive has no such attribute. */
struct ata_part {
	int64_t reallocated, power_on_hours, reported_uncorrect, command_timeout, temperature;
	int64_t reallocation_events, pending, offline_uncorrectable, crc_errors;
	struct attr_row attributes[9];
	size_t n_attributes;
	int64_t error_log_count;
};

struct nvme_error_row {
	int64_t error_count;
	char status[80];
	int64_t lba;
};

struct nvme_part {
	int64_t critical_warning;
	char critical_warning_text[256];
	int64_t available_spare, available_spare_threshold, percentage_used;
	int64_t media_errors, error_log_entries, unsafe_shutdowns;
	int64_t data_units_read, data_units_written;
	struct nvme_error_row error_log[PS_SMART_NVME_ERRORS];
	size_t n_error_log;
};

struct scsi_part {
	int64_t grown_defects, uncorrected_read, uncorrected_write, uncorrected_verify;
	int64_t start_stop_cycles;
};

struct log_row {
	char type[32], status[80];
	ps_tri passed;
	int64_t hours, lba_first_error;
};

struct self_test_part {
	const char *kind;
	bool started;
	char reason[400];
	double announced_s, limit_s, waited_s;
	char result[256];
	ps_tri passed;
	int64_t lba_first_error;
};

struct identity_part {
	char smartctl_model[PS_SMART_STR], smartctl_serial[PS_SMART_STR], smartctl_firmware[48];
	char inventory_model[PS_STR_LEN], inventory_serial[PS_STR_LEN], inventory_firmware[48];
	char inventory_source[16];
	json_object *differs; /* "model", "serial", "firmware" */
	const char *used, *why;
};

struct drive_row {
	const char *name, *device;
	const char *skipped_reason;
	struct attempt_row *attempts;
	size_t n_attempts;
	char answered_by[16]; /* auto or the -d type */
	char no_smart_reason[900];
	const char *protocol, *verdict, *verdict_rule;
	ps_tri passed;
	int64_t power_on_hours, power_cycles;
	double temperature_c, temperature_max_c, temperature_cycle_max_c; /* NAN: unknown */
	struct ata_part *ata;
	struct nvme_part *nvme;
	struct scsi_part *scsi;
	struct log_row self_test_log[PS_SMART_SELFTESTS];
	size_t n_self_test_log;
	struct self_test_part *self_test;
	struct identity_part *identity;
	json_object *smartctl;	    /* smartctl's own JSON */
	json_object *smartctl_text; /* its output when that was not JSON */
};

struct smart_result {
	const char *plan;
	char smartctl_version[32];
	struct drive_row *drives;
	size_t n_drives;
};

#define NUL_OMIT (PS_FLD_NULL | PS_FLD_OMIT)
/* written null when unknown; a skipped drive's row in older reports lacks it */
#define OLD_SKIP PS_FLD_NEWER

static const char *const plan_names[] = {"quick", "full", NULL};
static const char *const proto_names[] = {"ata", "nvme", "scsi", NULL};
static const char *const verdict_names[] = {"pass", "warn", "fail", NULL};
static const char *const used_names[] = {"smartctl", "inventory", NULL};

static const struct ps_field attempt_f[] = {
    PS_FIELD(struct attempt_row, type, "type", .help = "auto or the -d type"),
    PS_FIELD(struct attempt_row, exit_status, "exit_status", .help = "smartctl's bit mask",
	     .flags = NUL_OMIT),
    PS_FIELD(struct attempt_row, answered, "answered"),
    PS_FIELD(struct attempt_row, message, "message", .flags = PS_FLD_NULL),
};
static const struct ps_fields attempt_fields = PS_FIELDS(struct attempt_row, attempt_f);

static const struct ps_field attr_f[] = {
    PS_FIELD(struct attr_row, id, "id"),
    PS_FIELD(struct attr_row, name, "name", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, value, "value", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, worst, "worst", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, thresh, "thresh", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, raw, "raw", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, raw_text, "raw_text", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, count, "count", .flags = PS_FLD_NULL),
    PS_FIELD(struct attr_row, when_failed, "when_failed", .help = "now, past or null",
	     .flags = PS_FLD_NULL),
};
static const struct ps_fields attr_fields = PS_FIELDS(struct attr_row, attr_f);

static const struct ps_field ata_f[] = {
    PS_FIELD(struct ata_part, reallocated, "reallocated", .help = "attribute 5",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, power_on_hours, "power_on_hours", .help = "attribute 9",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, reported_uncorrect, "reported_uncorrect", .help = "attribute 187",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, command_timeout, "command_timeout", .help = "attribute 188",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, temperature, "temperature", .help = "attribute 194",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, reallocation_events, "reallocation_events", .help = "attribute 196",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, pending, "pending", .help = "attribute 197", .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, offline_uncorrectable, "offline_uncorrectable",
	     .help = "attribute 198", .flags = PS_FLD_NULL),
    PS_FIELD(struct ata_part, crc_errors, "crc_errors", .help = "attribute 199",
	     .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct ata_part, attributes, n_attributes, "attributes", &attr_fields),
    PS_FIELD(struct ata_part, error_log_count, "error_log_count", .flags = PS_FLD_NULL),
};
static const struct ps_fields ata_fields = PS_FIELDS(struct ata_part, ata_f);

static const struct ps_field nvme_error_f[] = {
    PS_FIELD(struct nvme_error_row, error_count, "error_count", .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_error_row, status, "status", .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_error_row, lba, "lba", .flags = PS_FLD_NULL),
};
static const struct ps_fields nvme_error_fields = PS_FIELDS(struct nvme_error_row, nvme_error_f);

static const struct ps_field nvme_f[] = {
    PS_FIELD(struct nvme_part, critical_warning, "critical_warning", .help = "bit mask",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, critical_warning_text, "critical_warning_text",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, available_spare, "available_spare", .unit = "%",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, available_spare_threshold, "available_spare_threshold", .unit = "%",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, percentage_used, "percentage_used", .unit = "%",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, media_errors, "media_errors", .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, error_log_entries, "error_log_entries", .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, unsafe_shutdowns, "unsafe_shutdowns", .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, data_units_read, "data_units_read", .unit = "units of 512,000 bytes",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct nvme_part, data_units_written, "data_units_written",
	     .unit = "units of 512,000 bytes", .flags = PS_FLD_NULL),
    PS_FIELD_ARRAY(struct nvme_part, error_log, n_error_log, "error_log", &nvme_error_fields),
};
static const struct ps_fields nvme_fields = PS_FIELDS(struct nvme_part, nvme_f);

static const struct ps_field scsi_f[] = {
    PS_FIELD(struct scsi_part, grown_defects, "grown_defects", .flags = PS_FLD_NULL),
    PS_FIELD(struct scsi_part, uncorrected_read, "uncorrected_read", .flags = PS_FLD_NULL),
    PS_FIELD(struct scsi_part, uncorrected_write, "uncorrected_write", .flags = PS_FLD_NULL),
    PS_FIELD(struct scsi_part, uncorrected_verify, "uncorrected_verify", .flags = PS_FLD_NULL),
    PS_FIELD(struct scsi_part, start_stop_cycles, "start_stop_cycles", .flags = PS_FLD_NULL),
};
static const struct ps_fields scsi_fields = PS_FIELDS(struct scsi_part, scsi_f);

static const struct ps_field log_f[] = {
    PS_FIELD(struct log_row, type, "type", .flags = PS_FLD_NULL),
    PS_FIELD(struct log_row, status, "status", .flags = PS_FLD_NULL),
    PS_FIELD(struct log_row, passed, "passed", .flags = PS_FLD_NULL),
    PS_FIELD(struct log_row, hours, "hours", .flags = PS_FLD_NULL),
    PS_FIELD(struct log_row, lba_first_error, "lba_first_error", .flags = PS_FLD_NULL),
};
static const struct ps_fields log_fields = PS_FIELDS(struct log_row, log_f);

static const struct ps_field self_test_f[] = {
    PS_FIELD(struct self_test_part, kind, "kind", .help = "short"),
    PS_FIELD(struct self_test_part, started, "started"),
    PS_FIELD(struct self_test_part, reason, "reason", .help = "why it was not started",
	     .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, announced_s, "announced_s", .unit = "s", .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, limit_s, "limit_s", .unit = "s", .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, waited_s, "waited_s", .unit = "s", .decimals = 1,
	     .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, result, "result", .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, passed, "passed", .flags = NUL_OMIT),
    PS_FIELD(struct self_test_part, lba_first_error, "lba_first_error", .flags = NUL_OMIT),
};
static const struct ps_fields self_test_fields = PS_FIELDS(struct self_test_part, self_test_f);

static const struct ps_field identity_f[] = {
    PS_FIELD(struct identity_part, smartctl_model, "smartctl_model", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, smartctl_serial, "smartctl_serial", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, smartctl_firmware, "smartctl_firmware", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, inventory_model, "inventory_model", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, inventory_serial, "inventory_serial", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, inventory_firmware, "inventory_firmware", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, inventory_source, "inventory_source", .flags = PS_FLD_NULL),
    PS_FIELD(struct identity_part, differs, "differs",
	     .schema = "{\"type\": \"array\", \"items\": {\"enum\": [\"model\", \"serial\", "
		       "\"firmware\"]}}"),
    PS_FIELD(struct identity_part, used, "used", .names = used_names),
    PS_FIELD(struct identity_part, why, "why"),
};
static const struct ps_fields identity_fields = PS_FIELDS(struct identity_part, identity_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive_row, name, "name"),
    PS_FIELD(struct drive_row, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_row, skipped_reason, "skipped_reason", .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct drive_row, attempts, n_attempts, "attempts", &attempt_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD(struct drive_row, answered_by, "answered_by", .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, no_smart_reason, "no_smart_reason", .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, protocol, "protocol", .names = proto_names, .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, verdict, "verdict", .names = verdict_names, .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, verdict_rule, "verdict_rule", .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, passed, "passed", .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD(struct drive_row, power_on_hours, "power_on_hours", .unit = "h",
	     .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD(struct drive_row, power_cycles, "power_cycles", .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD(struct drive_row, temperature_c, "temperature_c", .unit = "C",
	     .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD(struct drive_row, temperature_max_c, "temperature_max_c", .unit = "C",
	     .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD(struct drive_row, temperature_cycle_max_c, "temperature_cycle_max_c", .unit = "C",
	     .flags = PS_FLD_NULL | OLD_SKIP),
    PS_FIELD_OBJP(struct drive_row, ata, "ata", &ata_fields, .flags = NUL_OMIT),
    PS_FIELD_OBJP(struct drive_row, nvme, "nvme", &nvme_fields, .flags = NUL_OMIT),
    PS_FIELD_OBJP(struct drive_row, scsi, "scsi", &scsi_fields, .flags = NUL_OMIT),
    PS_FIELD_ARRAY(struct drive_row, self_test_log, n_self_test_log, "self_test_log", &log_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct drive_row, self_test, "self_test", &self_test_fields, .flags = NUL_OMIT),
    PS_FIELD_OBJP(struct drive_row, identity, "identity", &identity_fields, .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, smartctl, "smartctl", .schema = "{\"type\": \"object\"}",
	     .help = "smartctl's JSON of the answering call", .flags = NUL_OMIT),
    PS_FIELD(struct drive_row, smartctl_text, "smartctl_text", .schema = "{\"type\": \"string\"}",
	     .help = "the output when it was not JSON", .flags = NUL_OMIT),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive_row, drive_f);

static const struct ps_field smart_f[] = {
    PS_FIELD(struct smart_result, plan, "plan", .names = plan_names),
    PS_FIELD(struct smart_result, smartctl_version, "smartctl_version", .flags = NUL_OMIT),
    PS_FIELD_ARRAY(struct smart_result, drives, n_drives, "drives", &drive_fields),
};
static const struct ps_fields smart_fields = PS_FIELDS(struct smart_result, smart_f);

/* ---- how the step reaches smartctl and the NVMe ioctls: tests replace it ---- */

struct smart_backend {
	int (*smartctl)(void *arg, const char *const *argv, double timeout_s,
			struct ps_smartctl_out *out);
	/* NVMe self-test: open the namespace node, identify, start/abort, read the log */
	int (*nvme_open)(void *arg, const char *path);
	void (*nvme_close)(void *arg, int fd);
	int (*nvme_identify)(void *arg, int fd, uint8_t *buf, size_t len);
	int (*nvme_dst)(void *arg, int fd, int code);
	int (*nvme_log)(void *arg, int fd, uint8_t *buf, size_t len);
	void (*sleep_s)(void *arg, double s);
	double (*now_s)(void *arg); /* the self-test's clock */
	void *arg;
};

static int real_smartctl(void *arg, const char *const *argv, double t, struct ps_smartctl_out *o)
{
	return ps_smartctl_run(argv, t, o);
}
static int real_open(void *arg, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}
static void real_close(void *arg, int fd)
{
	close(fd);
}
static int real_identify(void *arg, int fd, uint8_t *b, size_t l)
{
	return ps_nvme_identify_ctrl(fd, b, l);
}
static int real_dst(void *arg, int fd, int code)
{
	return ps_nvme_dst_start(fd, code);
}
static int real_log(void *arg, int fd, uint8_t *b, size_t l)
{
	return ps_nvme_dst_log(fd, b, l);
}
static void real_sleep(void *arg, double s)
{
	struct timespec ts = {.tv_sec = (time_t)s,
			      .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

static double real_now(void *arg)
{
	return ps_mono_now();
}

static const struct smart_backend real_backend = {real_smartctl, real_open, real_close,
						  real_identify, real_dst,  real_log,
						  real_sleep,	 real_now,  NULL};

/* Only tests/unit/test_smart.c, which includes this file, sets it. */
static const struct smart_backend *smart_backend = &real_backend;

/* ---- one drive ---- */

struct drive {
	struct ps_ctx *ctx;
	const struct ps_drive *inv;
	struct drive_row *row; /* its row of the result */
	struct ps_smart s;
	char type[16]; /* the -d type that answered, "" for smartctl's own choice */
	bool ok;
	const char *drive_says_no; /* an attempt reached the drive, which gave no health data */
	bool opened;		   /* an attempt opened the device (behind USB: the bridge) */
	/* self-test */
	int st_kind; /* 0 none, 1 ATA (smartctl), 2 NVMe (ioctl) */
	int nvme_fd;
	double st_start, st_deadline, st_announced;
	int st_pct;
	bool st_done;
};

static void drive_path(const struct drive *d, char *buf, size_t len)
{
	ps_path(buf, len, d->ctx->root, "/dev/%s", d->inv->name);
}

/* argv for smartctl: ARGS... [-d TYPE] PATH */
static int smartctl(struct drive *d, const char *type, const char *const *args,
		    struct ps_smartctl_out *out)
{
	const char *argv[16];
	char path[4200];
	size_t n = 0;

	drive_path(d, path, sizeof(path));
	argv[n++] = "smartctl";
	for (size_t i = 0; args[i] && n < 12; i++)
		argv[n++] = args[i];
	if (type && type[0]) {
		argv[n++] = "-d";
		argv[n++] = type;
	}
	argv[n++] = path;
	argv[n] = NULL;
	return smart_backend->smartctl(smart_backend->arg, argv, SMARTCTL_TIMEOUT_S, out);
}

static void keep_json(json_object **member, json_object *v)
{
	json_object_put(*member);
	*member = v;
}

/*
 * Read the drive with one -d type (NULL: smartctl's choice). 1 when it
 * answered, 0 when not, -ENOENT when smartctl is missing. *malformed is set
 * when the output was not smartctl's JSON.
 */
static int try_type(struct drive *d, const char *type, bool *malformed)
{
	static const char *const args[] = {"-x", "--json=c", NULL};
	struct smart_result *r = d->ctx->result;
	struct ps_smartctl_out out;
	struct ps_smart s;
	json_object *doc = NULL;
	struct attempt_row *a =
	    ps_fields_grow(&attempt_fields, &d->row->attempts, &d->row->n_attempts);
	char why[256] = "";
	int ret, pr;

	if (!a)
		return -ENOMEM;
	ret = smartctl(d, type, args, &out);
	snprintf(a->type, sizeof(a->type), "%s", type ? type : "auto");
	a->exit_status = -1;
	if (ret < 0) {
		snprintf(a->message, sizeof(a->message), "%s", strerror(-ret));
		return ret == -ENOENT ? -ENOENT : 0;
	}
	a->exit_status = out.exit_status;
	if (out.timed_out) {
		snprintf(a->message, sizeof(a->message), "no answer within 60 s: killed");
		ps_findf(d->ctx, PS_SEV_WARN, ps_drive_ref(d->inv), "smartctl_timeout",
			 "smartctl%s%s did not finish within %.0f s: the drive may hang on "
			 "commands; check its cable and power",
			 type ? " -d " : "", type ? type : "", SMARTCTL_TIMEOUT_S);
		ps_smartctl_out_free(&out);
		return 0;
	}
	pr = ps_smart_parse(out.text, out.len, &s, &doc, why, sizeof(why));
	if (pr < 0) {
		*malformed = true;
		snprintf(a->message, sizeof(a->message), "%s", why);
		keep_json(
		    &d->row->smartctl_text,
		    ps_json_new_strn(out.text, out.len < RAW_TEXT_CAP ? out.len : RAW_TEXT_CAP));
		ps_smartctl_out_free(&out);
		return 0;
	}
	ps_smartctl_out_free(&out);
	if (!r->smartctl_version[0] && s.version_major >= 0)
		snprintf(r->smartctl_version, sizeof(r->smartctl_version), "%d.%d", s.version_major,
			 s.version_minor);
	a->answered = ps_smart_answered(&s);
	snprintf(a->message, sizeof(a->message), "%s", ps_smart_message(&s));
	if (!ps_smart_answered(&s)) {
		/* the last non-answer is kept for whoever wants to see what smartctl said */
		keep_json(&d->row->smartctl, doc);
		d->s = s;
		if (!d->drive_says_no)
			d->drive_says_no = ps_smart_drive_says_no(&s);
		d->opened = d->opened || ps_smart_opened(&s);
		return 0;
	}
	d->s = s;
	keep_json(&d->row->smartctl, doc);
	snprintf(d->type, sizeof(d->type), "%s", type ? type : "");
	return 1;
}

/* Why a drive gives no SMART, from what each attempt said. */
static void no_smart(struct drive *d, bool usb)
{
	char *why = d->row->no_smart_reason;
	size_t whylen = sizeof(d->row->no_smart_reason), o = 0;
	const char *cause, *first;

	for (size_t i = 0; i < d->row->n_attempts && o < whylen; i++) {
		const struct attempt_row *a = &d->row->attempts[i];
		const char *m = a->message;
		int ex = a->exit_status;

		o += (size_t)snprintf(why + o, whylen - o, "%s%s: %s", i ? "; " : "", a->type,
				      m[0]		      ? m
				      : ex >= 0 && (ex & 0x2) ? "the device did not answer its "
								"identify command"
				      : ex >= 0 && (ex & 0x1) ? "smartctl refused the device"
							      : "no health data");
	}
	o = o < whylen ? o : whylen - 1;
	/* the bridge is the cause only when no attempt reached the drive behind it */
	cause = d->drive_says_no   ? d->drive_says_no
		: usb && d->opened ? "the USB bridge passes no SMART commands: connect the drive "
				     "to a SATA or NVMe port to read its health"
		: d->inv->transport == PS_TR_VIRTIO ? "a virtio disk of a hypervisor has no SMART"
						    : NULL;
	if (cause)
		snprintf(why + o, whylen - o, " (%s)", cause);
	ps_findf(d->ctx, PS_SEV_INFO, ps_drive_ref(d->inv), "no_smart",
		 "no SMART data: %s; its health is unknown", why);
	/* the verdicts say it short: the cause, else what smartctl said first */
	first = d->row->n_attempts ? d->row->attempts[0].message : NULL;
	ps_not_tested(d->ctx, ps_drive_ref(d->inv), "no SMART data: %s",
		      cause		  ? cause
		      : first && first[0] ? first
					  : "smartctl gave no health data");
}

static bool same(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/*
 * The drive's identity as smartctl gives it beside the inventory's. Behind a
 * USB bridge smartctl speaks to the drive itself (SAT, or the NVMe bridges)
 * where sysfs shows the bridge: smartctl's identity wins. Elsewhere both read
 * the drive's own IDENTIFY; a difference is noted and smartctl, the field's
 * standard, wins too. The inventory was corrected before it was frozen
 * (hw/drive_identity.c); the table compares with what sysfs said.
 */
static int identity(struct drive *d)
{
	const struct ps_drive *v = d->inv;
	const struct ps_smart *s = &d->s;
	struct identity_part *id = ps_fields_new(&identity_fields, 1);
	const char *smodel =
	    s->proto == PS_SMART_PROTO_SCSI && s->product[0] ? s->product : s->model;
	bool corrected = strcmp(v->identity_source, "smartctl") == 0 && v->sysfs_model[0];
	const char *imodel = corrected ? v->sysfs_model : v->model;
	const char *iserial = corrected ? v->sysfs_serial : v->serial;
	const char *ifirmware = corrected ? v->sysfs_firmware : v->firmware;
	bool bridge = v->transport == PS_TR_USB && s->proto != PS_SMART_PROTO_SCSI;
	bool differs[3], wins;
	static const char *const what[3] = {"model", "serial", "firmware"};

	if (!id)
		return -ENOMEM;
	d->row->identity = id;
	snprintf(id->smartctl_model, sizeof(id->smartctl_model), "%s", smodel);
	snprintf(id->smartctl_serial, sizeof(id->smartctl_serial), "%s", s->serial);
	snprintf(id->smartctl_firmware, sizeof(id->smartctl_firmware), "%s", s->firmware);
	snprintf(id->inventory_model, sizeof(id->inventory_model), "%s", imodel);
	snprintf(id->inventory_serial, sizeof(id->inventory_serial), "%s", iserial);
	snprintf(id->inventory_firmware, sizeof(id->inventory_firmware), "%s", ifirmware);
	snprintf(id->inventory_source, sizeof(id->inventory_source), "%s",
		 corrected ? v->sysfs_identity_source : v->identity_source);
	differs[0] = smodel[0] && !same(smodel, imodel);
	differs[1] = s->serial[0] && !same(s->serial, iserial);
	differs[2] = s->firmware[0] && !same(s->firmware, ifirmware);
	id->differs = json_object_new_array();
	for (size_t i = 0; i < 3; i++)
		if (differs[i])
			json_object_array_add(id->differs, json_object_new_string(what[i]));
	wins = (differs[0] || differs[1] || differs[2]) && smodel[0];
	id->used = wins ? "smartctl" : "inventory";
	id->why = !smodel[0] && !s->serial[0] && !s->firmware[0]
		      ? "smartctl gave no identity: the inventory's is kept"
		  : !smodel[0] ? "smartctl gave no model: the inventory's identity is kept"
		  : !wins      ? "smartctl and the inventory agree"
		  : bridge     ? "behind a USB bridge smartctl reads the drive, sysfs the bridge"
			       : "smartctl (the drive's IDENTIFY as smartctl reads it) differs "
				 "from sysfs";
	if (wins && !bridge)
		ps_findf(d->ctx, PS_SEV_INFO, ps_drive_ref(v), "identity_differs",
			 "smartctl reads model/serial/firmware %s / %s / %s, sysfs gave %s / %s / "
			 "%s: the report uses smartctl's",
			 smodel, s->serial[0] ? s->serial : "-", s->firmware[0] ? s->firmware : "-",
			 imodel[0] ? imodel : "-", iserial[0] ? iserial : "-",
			 ifirmware[0] ? ifirmware : "-");
	return 0;
}

/* A temperature: -1 (null) when the drive gave none. */
/* A temperature as the report holds it: NAN when the drive gives none (below 0 C is kept). */
static double temp_of(int t)
{
	return t == PS_SMART_NO_TEMP ? NAN : (double)t;
}

/* The ATA attributes the rules read: smartctl's decoded counts and their rows in full. */
static struct ata_part *ata_part(const struct ps_smart *s)
{
	static const struct {
		int id;
		size_t off;
	} keys[] = {{5, offsetof(struct ata_part, reallocated)},
		    {9, offsetof(struct ata_part, power_on_hours)},
		    {187, offsetof(struct ata_part, reported_uncorrect)},
		    {188, offsetof(struct ata_part, command_timeout)},
		    {194, offsetof(struct ata_part, temperature)},
		    {196, offsetof(struct ata_part, reallocation_events)},
		    {197, offsetof(struct ata_part, pending)},
		    {198, offsetof(struct ata_part, offline_uncorrectable)},
		    {199, offsetof(struct ata_part, crc_errors)}};
	struct ata_part *ata = ps_fields_new(&ata_fields, 1);

	if (!ata)
		return NULL;
	for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++) {
		const struct ps_smart_attr *a = ps_smart_attr(s, keys[i].id);
		int64_t *count = (int64_t *)((char *)ata + keys[i].off);
		struct attr_row *e;

		*count = a && a->count >= 0 ? a->count : -1;
		if (!a)
			continue;
		e = &ata->attributes[ata->n_attributes++];
		e->id = a->id;
		snprintf(e->name, sizeof(e->name), "%s", a->name);
		e->value = a->value >= 0 ? a->value : -1;
		e->worst = a->worst >= 0 ? a->worst : -1;
		e->thresh = a->thresh >= 0 ? a->thresh : -1;
		e->raw = a->raw >= 0 ? a->raw : -1;
		snprintf(e->raw_text, sizeof(e->raw_text), "%s", a->raw_text);
		e->count = a->count >= 0 ? a->count : -1;
		snprintf(e->when_failed, sizeof(e->when_failed), "%s", a->when_failed);
	}
	ata->error_log_count = s->ata_error_count >= 0 ? s->ata_error_count : -1;
	return ata;
}

static struct nvme_part *nvme_part(const struct ps_smart *s)
{
	struct nvme_part *nv = ps_fields_new(&nvme_fields, 1);

	if (!nv)
		return NULL;
	nv->critical_warning = s->nvme_critical_warning >= 0 ? s->nvme_critical_warning : -1;
	ps_nvme_critical_text(s->nvme_critical_warning, nv->critical_warning_text,
			      sizeof(nv->critical_warning_text));
	nv->available_spare = s->nvme_spare >= 0 ? s->nvme_spare : -1;
	nv->available_spare_threshold = s->nvme_spare_threshold >= 0 ? s->nvme_spare_threshold : -1;
	nv->percentage_used = s->nvme_percentage_used >= 0 ? s->nvme_percentage_used : -1;
	nv->media_errors = s->nvme_media_errors;
	nv->error_log_entries = s->nvme_error_log_entries;
	nv->unsafe_shutdowns = s->nvme_unsafe_shutdowns;
	nv->data_units_read = s->nvme_data_units_read;
	nv->data_units_written = s->nvme_data_units_written;
	for (size_t i = 0; i < s->n_nvme_errors && i < PS_SMART_NVME_ERRORS; i++) {
		struct nvme_error_row *e = &nv->error_log[nv->n_error_log++];

		e->error_count = s->nvme_errors[i].error_count;
		snprintf(e->status, sizeof(e->status), "%s", s->nvme_errors[i].status);
		e->lba = s->nvme_errors[i].lba;
	}
	return nv;
}

static struct scsi_part *scsi_part(const struct ps_smart *s)
{
	struct scsi_part *sc = ps_fields_new(&scsi_fields, 1);

	if (!sc)
		return NULL;
	sc->grown_defects = s->scsi_grown_defects;
	sc->uncorrected_read = s->scsi_uncorrected_read;
	sc->uncorrected_write = s->scsi_uncorrected_write;
	sc->uncorrected_verify = s->scsi_uncorrected_verify;
	sc->start_stop_cycles = s->scsi_start_stop_cycles;
	return sc;
}

/* What was read of the drive into its row. */
static int figures(struct drive *d)
{
	const struct ps_smart *s = &d->s;
	struct drive_row *o = d->row;

	o->protocol = ps_smart_proto_name(s->proto);
	snprintf(o->answered_by, sizeof(o->answered_by), "%s", d->type[0] ? d->type : "auto");
	o->passed = s->passed;
	o->power_on_hours = s->power_on_hours;
	o->power_cycles = s->power_cycles;
	o->temperature_c = temp_of(s->temp_c);
	o->temperature_max_c = temp_of(s->temp_max_c);
	o->temperature_cycle_max_c = temp_of(s->temp_cycle_max_c);
	if (s->proto == PS_SMART_PROTO_ATA && !(o->ata = ata_part(s)))
		return -ENOMEM;
	if (s->proto == PS_SMART_PROTO_NVME && !(o->nvme = nvme_part(s)))
		return -ENOMEM;
	if (s->proto == PS_SMART_PROTO_SCSI && !(o->scsi = scsi_part(s)))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_tests && i < PS_SMART_SELFTESTS; i++) {
		struct log_row *e = &o->self_test_log[o->n_self_test_log++];

		snprintf(e->type, sizeof(e->type), "%s", s->tests[i].type);
		snprintf(e->status, sizeof(e->status), "%s", s->tests[i].status);
		e->passed = s->tests[i].passed;
		e->hours = s->tests[i].hours;
		e->lba_first_error = s->tests[i].lba_first_error;
	}
	return 0;
}

/* Findings from the rules, and the drive examined with what was read of it. */
static void verdict(struct drive *d)
{
	struct ps_smart_hit hits[PS_SMART_MAX_HITS];
	size_t n = ps_smart_judge(&d->s, hits, PS_SMART_MAX_HITS);
	enum ps_severity worst = PS_SEV_INFO;
	const char *rule = NULL;
	char hours[48] = "power-on hours unknown";

	for (size_t i = 0; i < n; i++) {
		struct ps_finding f = {.severity = (enum ps_severity)hits[i].severity,
				       .dev = ps_drive_ref(d->inv),
				       .rule = hits[i].rule,
				       .value = hits[i].value,
				       .limit = hits[i].limit,
				       .unit = hits[i].unit};

		ps_find(d->ctx, &f, "%s", hits[i].msg);
		if ((enum ps_severity)hits[i].severity > worst) {
			worst = (enum ps_severity)hits[i].severity;
			rule = hits[i].rule;
		}
	}
	if (d->s.power_on_hours >= 0)
		snprintf(hours, sizeof(hours), "%lld power-on hours",
			 (long long)d->s.power_on_hours);
	if (ps_smart_has_health_status(&d->s))
		ps_examined(d->ctx, ps_drive_ref(d->inv), "healthy",
			    "SMART (%s) shows no fault; %s", ps_smart_proto_name(d->s.proto),
			    hours);
	else
		ps_examined(d->ctx, ps_drive_ref(d->inv), "healthy",
			    "SMART (%s): no health status (smartctl gave none), so it is not "
			    "judged; no rule fires on what was read; %s",
			    ps_smart_proto_name(d->s.proto), hours);
	d->row->verdict = worst == PS_SEV_FAIL ? "fail" : worst == PS_SEV_WARN ? "warn" : "pass";
	d->row->verdict_rule = worst > PS_SEV_INFO ? rule : "healthy";
}

static const char *skip_reason(const struct ps_drive *v)
{
	if (!v->name[0] || strchr(v->name, '/'))
		return "no usable name in the inventory";
	if (v->boot_device)
		return "the boot stick: never a target";
	if (v->size_bytes == 0 && v->removable == 1)
		return "removable media absent (size 0)";
	return NULL;
}

/* Read one drive: 1 answered, 0 not, -ENOENT smartctl missing. */
static int read_drive(struct drive *d)
{
	static const char *const usb_types[] = {NULL, "sat", "sntjmicron", "sntrealtek",
						"sntasmedia"};
	bool usb = d->inv->transport == PS_TR_USB, malformed = false;
	size_t ntypes = usb ? PS_ARRAY_SIZE(usb_types) : 1;
	int ret = 0;

	for (size_t i = 0; i < ntypes && ret == 0 && !ps_should_abort(d->ctx); i++) {
		char phase[96];

		snprintf(phase, sizeof(phase), "%s: smartctl%s%s", d->inv->name,
			 usb_types[i] ? " -d " : "", usb_types[i] ? usb_types[i] : "");
		ps_progress_phase(d->ctx, phase, 0, NULL);
		ret = try_type(d, usb_types[i], &malformed);
	}
	if (ret < 0)
		return ret;
	if (ret == 0) {
		if (malformed && d->row->n_attempts == 1) {
			const char *m = d->row->attempts[0].message;

			ps_findf(d->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "smartctl_output",
				 "%s: %s; its health is unknown (the text is kept in "
				 "data.smartctl_text)",
				 d->inv->name, m[0] ? m : "unreadable output");
			snprintf(d->row->no_smart_reason, sizeof(d->row->no_smart_reason), "%s", m);
			ps_not_tested(d->ctx, ps_drive_ref(d->inv), "smartctl's output: %s",
				      m[0] ? m : "unreadable");
		} else {
			no_smart(d, usb);
		}
		return 0;
	}
	keep_json(&d->row->smartctl_text, NULL);
	d->ok = true;
	if (identity(d) < 0 || figures(d) < 0)
		return -ENOMEM;
	verdict(d);
	return 1;
}

/* ---- the full plan's short self-test ---- */

/* Why the self-test was not started, or how it ended. */
static void st_reason(struct drive *d, const char *why)
{
	snprintf(d->row->self_test->reason, sizeof(d->row->self_test->reason), "%s", why);
}

static void st_ended(struct drive *d, const char *text)
{
	struct self_test_part *st = d->row->self_test;

	snprintf(st->result, sizeof(st->result), "%s", text);
	st->waited_s = smart_backend->now_s(smart_backend->arg) - d->st_start;
}

static bool st_start_ata(struct drive *d)
{
	static const char *const args[] = {"-t", "short", "--json=c", NULL};
	struct ps_smartctl_out out;
	struct ps_smart s;
	char why[256];
	int ret;

	if (d->s.self_test_supported != 1) {
		st_reason(d, "the drive announces no self-test (SMART capabilities)");
		return false;
	}
	ret = smartctl(d, d->type, args, &out);
	if (ret < 0 || out.timed_out ||
	    ps_smart_parse(out.text, out.len, &s, NULL, why, sizeof(why)) < 0 ||
	    (s.exit_status & 0x7)) {
		char msg[400];

		snprintf(msg, sizeof(msg), "smartctl -t short failed: %s",
			 ret < 0	 ? strerror(-ret)
			 : out.timed_out ? "no answer within 60 s"
			 : s.n_messages	 ? ps_smart_message(&s)
					 : "the drive refused the command");
		st_reason(d, msg);
		if (ret == 0)
			ps_smartctl_out_free(&out);
		return false;
	}
	ps_smartctl_out_free(&out);
	d->st_announced = d->s.self_test_short_min > 0 ? d->s.self_test_short_min * 60.0 : 120;
	d->st_kind = 1;
	return true;
}

static bool st_start_nvme(struct drive *d)
{
	uint8_t *id = calloc(1, PS_NVME_ID_CTRL_LEN);
	char path[4200], msg[300];
	int fd, ret;
	ps_tri sup;

	drive_path(d, path, sizeof(path));
	fd = id ? smart_backend->nvme_open(smart_backend->arg, path) : -ENOMEM;
	if (fd < 0) {
		snprintf(msg, sizeof(msg), "cannot open %.200s: %s", path, strerror(-fd));
		st_reason(d, msg);
		free(id);
		return false;
	}
	ret = smart_backend->nvme_identify(smart_backend->arg, fd, id, PS_NVME_ID_CTRL_LEN);
	sup = ret == 0 ? ps_nvme_dst_supported(id, PS_NVME_ID_CTRL_LEN) : PS_TRI_UNKNOWN;
	free(id);
	if (sup != 1) {
		snprintf(msg, sizeof(msg), "%s",
			 ret < 0 ? "Identify Controller failed: whether it has a self-test is "
				   "unknown"
				 : "the drive has no self-test (Identify Controller, OACS bit 4 "
				   "clear)");
		st_reason(d, msg);
		smart_backend->nvme_close(smart_backend->arg, fd);
		return false;
	}
	ret = smart_backend->nvme_dst(smart_backend->arg, fd, 1);
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "Device Self-test (short) failed to start: %s",
			 strerror(-ret));
		st_reason(d, msg);
		smart_backend->nvme_close(smart_backend->arg, fd);
		return false;
	}
	d->nvme_fd = fd;
	d->st_announced = NVME_SHORT_S;
	d->st_kind = 2;
	return true;
}

static void st_result(struct drive *d, bool passed, const char *text, int64_t lba)
{
	d->st_done = true;
	d->st_pct = 100;
	d->row->self_test->passed = passed;
	d->row->self_test->lba_first_error = lba;
	st_ended(d, text);
	if (!passed) {
		struct ps_finding f = {.severity = PS_SEV_FAIL,
				       .dev = ps_drive_ref(d->inv),
				       .rule = "self_test_failed",
				       .value = lba >= 0 ? (double)lba : PS_NO_VALUE,
				       .limit = PS_NO_VALUE,
				       .unit = lba >= 0 ? "LBA" : NULL};
		char at[48] = "";

		if (lba >= 0)
			snprintf(at, sizeof(at), " (first error at LBA %lld)", (long long)lba);
		ps_find(d->ctx, &f, "the short self-test failed: %s%s", text, at);
	}
}

static void st_poll_ata(struct drive *d)
{
	static const char *const args[] = {"-c", "-l", "selftest", "--json=c", NULL};
	struct ps_smartctl_out out;
	struct ps_smart s;
	char why[256];

	if (smartctl(d, d->type, args, &out) < 0)
		return;
	if (out.timed_out || ps_smart_parse(out.text, out.len, &s, NULL, why, sizeof(why)) < 0) {
		ps_smartctl_out_free(&out);
		return;
	}
	ps_smartctl_out_free(&out);
	if (s.self_test_status < 0)
		return;
	if ((s.self_test_status >> 4) == 0xf) {
		int rem = s.self_test_remaining >= 0 ? s.self_test_remaining
						     : (s.self_test_status & 0xf) * 10;

		d->st_pct = 100 - rem;
		return;
	}
	if (s.n_tests > 0)
		st_result(d, (s.self_test_status >> 4) == 0, s.tests[0].status,
			  s.tests[0].lba_first_error);
	else
		st_result(d, (s.self_test_status >> 4) == 0,
			  s.self_test_text[0] ? s.self_test_text : "ended", PS_UNKNOWN);
}

static void st_poll_nvme(struct drive *d)
{
	uint8_t page[PS_NVME_DST_LOG_LEN];
	struct ps_nvme_dst_log log;

	if (smart_backend->nvme_log(smart_backend->arg, d->nvme_fd, page, sizeof(page)) < 0 ||
	    ps_nvme_dst_log_decode(page, sizeof(page), &log) < 0)
		return;
	if (log.current_op == 1) {
		d->st_pct = log.current_pct;
		return;
	}
	if (!log.newest_valid)
		return;
	st_result(d, log.newest_result == 0, ps_nvme_dst_result_text(log.newest_result),
		  log.newest_lba);
}

static void st_abort(struct drive *d, const char *why)
{
	static const char *const args[] = {"-X", "--json=c", NULL};

	if (d->st_kind == 1) {
		struct ps_smartctl_out out;

		if (smartctl(d, d->type, args, &out) == 0)
			ps_smartctl_out_free(&out);
	} else if (d->st_kind == 2) {
		smart_backend->nvme_dst(smart_backend->arg, d->nvme_fd, 0xf);
	}
	d->st_done = true;
	st_ended(d, why);
}

/* Start every drive's short self-test, then wait for all of them together. */
static bool self_tests(struct ps_ctx *ctx, struct drive *ds, size_t n)
{
	size_t running = 0;
	bool aborted = false;

	for (size_t i = 0; i < n; i++) {
		struct drive *d = &ds[i];
		struct self_test_part *st;
		bool started = false;

		if (!d->ok)
			continue;
		st = d->row->self_test = ps_fields_new(&self_test_fields, 1);
		if (!st)
			continue;
		st->kind = "short";
		if (d->s.proto == PS_SMART_PROTO_ATA)
			started = st_start_ata(d);
		else if (d->s.proto == PS_SMART_PROTO_NVME)
			started = st_start_nvme(d);
		else
			st_reason(d, "SCSI drives: not started (the plan runs ATA and NVMe "
				     "self-tests)");
		st->started = started;
		if (!started)
			continue;
		d->st_start = smart_backend->now_s(smart_backend->arg);
		d->st_deadline = d->st_start + d->st_announced +
				 (d->st_announced / 2 > SELFTEST_MARGIN_S ? d->st_announced / 2
									  : SELFTEST_MARGIN_S);
		st->announced_s = d->st_announced;
		st->limit_s = d->st_deadline - d->st_start;
		running++;
	}
	if (!running)
		return false;
	{
		char phase[64];

		snprintf(phase, sizeof(phase), "short self-test of %zu drive%s", running,
			 running == 1 ? "" : "s");
		ps_progress_phase(ctx, phase, 100, "%");
	}
	smart_backend->sleep_s(smart_backend->arg, POLL_FIRST_S);
	for (;;) {
		size_t left = 0;
		unsigned int pct = 0;

		aborted = aborted || ps_should_abort(ctx);
		for (size_t i = 0; i < n; i++) {
			struct drive *d = &ds[i];

			if (!d->st_kind || d->st_done)
				continue;
			if (aborted) {
				st_abort(d, "aborted by the user: the self-test was stopped");
				continue;
			}
			if (d->st_kind == 1)
				st_poll_ata(d);
			else
				st_poll_nvme(d);
			if (!d->st_done &&
			    smart_backend->now_s(smart_backend->arg) > d->st_deadline) {
				char why[200];

				snprintf(why, sizeof(why),
					 "did not finish within %.0f s (announced %.0f s): stopped",
					 d->st_deadline - d->st_start, d->st_announced);
				st_abort(d, why);
				ps_findf(
				    ctx, PS_SEV_WARN, ps_drive_ref(d->inv), "self_test_timeout",
				    "the short self-test %s; a drive that cannot finish its own "
				    "test is suspect",
				    why);
			}
		}
		for (size_t i = 0; i < n; i++) {
			if (!ds[i].st_kind)
				continue;
			pct += (unsigned int)(ds[i].st_done ? 100 : ds[i].st_pct);
			left += !ds[i].st_done;
		}
		ps_progress_set(ctx, pct / running);
		if (!left)
			break;
		smart_backend->sleep_s(smart_backend->arg, POLL_EVERY_S);
	}
	for (size_t i = 0; i < n; i++)
		if (ds[i].st_kind == 2)
			smart_backend->nvme_close(smart_backend->arg, ds[i].nvme_fd);
	return aborted;
}

static int run(struct ps_ctx *ctx)
{
	struct smart_result *r = ctx->result;
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;
	size_t n_inv = ctx->inv->n_drives;
	struct drive *ds = calloc(n_inv ? n_inv : 1, sizeof(*ds));
	size_t n = 0, targets = 0, answered = 0;
	int ret = 0;
	bool aborted = false;

	r->plan = full ? "full" : "quick";
	r->drives = ps_fields_new(&drive_fields, n_inv);
	if (!ds || !r->drives) {
		free(ds);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_inv; i++) {
		struct drive *d = &ds[n++];
		const char *why;

		d->ctx = ctx;
		d->inv = &ctx->inv->drives[i];
		d->nvme_fd = -1;
		d->row = &r->drives[r->n_drives++];
		d->row->name = d->inv->name[0] ? d->inv->name : "(unnamed)";
		d->row->device = d->inv->id;
		why = skip_reason(d->inv);
		if (why) {
			d->row->skipped_reason = why;
			continue;
		}
		if (ps_should_abort(ctx)) {
			aborted = true;
			d->row->skipped_reason = "the step was aborted first";
			continue;
		}
		targets++;
		ret = read_drive(d);
		if (ret == -ENOMEM) {
			free(ds);
			return ret;
		}
		if (ret == -ENOENT) {
			ps_step_reason(ctx, "smartctl is not installed (Debian package "
					    "smartmontools): no drive's health was read");
			free(ds);
			return PS_SKIPPED;
		}
	}
	if (full && !aborted)
		aborted = self_tests(ctx, ds, n);
	for (size_t i = 0; i < n; i++)
		answered += ds[i].ok;
	free(ds);
	if (aborted || ps_should_abort(ctx))
		return PS_ABORTED;
	if (targets == 0) {
		ps_step_reason(ctx, "no drive to read (the boot stick is never one)");
		return PS_SKIPPED;
	}
	if (answered == 0) {
		/* nothing was measured: never a pass (docs/rules.md, "Measured or not") */
		ps_step_reason(ctx,
			       "no drive answered smartctl (%zu tried): their health is unknown; "
			       "each drive's reason is in its row",
			       targets);
		return PS_SKIPPED;
	}
	return PS_PASS;
}

static double estimate(const struct ps_ctx *ctx)
{
	unsigned int n = 0;

	for (size_t i = 0; i < ctx->inv->n_drives; i++)
		n += skip_reason(&ctx->inv->drives[i]) == NULL;
	/* a read takes about a second; the full plan waits for the short self-tests */
	return n * 2.0 + (ctx->plan && ctx->plan->level == PS_PLAN_FULL && n ? 120.0 : 0);
}

/* ---- view ---- */

static const struct ps_col ata_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/verdict", .title = "health", .fmt = PS_FMT_STATUS, .flags = PS_COL_HEADLINE},
    {.path = "/ata/reallocated", .title = "realloc", .better = PS_BETTER_LOWER},
    {.path = "/ata/pending", .title = "pend", .better = PS_BETTER_LOWER},
    {.path = "/ata/offline_uncorrectable", .title = "offl", .better = PS_BETTER_LOWER},
    {.path = "/ata/reported_uncorrect", .title = "unc", .better = PS_BETTER_LOWER},
    {.path = "/ata/command_timeout",
     .title = "tmo",
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
    {.path = "/ata/crc_errors", .title = "crc", .better = PS_BETTER_LOWER},
    {.path = "/power_on_hours", .title = "hours"},
    {.path = "/temperature_c", .title = "temp", .unit = "C"},
    {.path = "/temperature_max_c", .title = "max", .unit = "C", .flags = PS_COL_OPTIONAL},
};

static const struct ps_col nvme_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/verdict", .title = "health", .fmt = PS_FMT_STATUS, .flags = PS_COL_HEADLINE},
    {.path = "/nvme/critical_warning", .title = "crit", .better = PS_BETTER_LOWER},
    {.path = "/nvme/available_spare", .title = "spare %", .better = PS_BETTER_HIGHER},
    {.path = "/nvme/available_spare_threshold", .title = "thr %"},
    {.path = "/nvme/percentage_used", .title = "used %", .better = PS_BETTER_LOWER},
    {.path = "/nvme/media_errors", .title = "media", .better = PS_BETTER_LOWER},
    {.path = "/nvme/error_log_entries", .title = "errlog", .better = PS_BETTER_LOWER},
    {.path = "/nvme/unsafe_shutdowns", .title = "unsafe", .flags = PS_COL_OPTIONAL},
    {.path = "/power_on_hours", .title = "hours"},
    {.path = "/temperature_c", .title = "temp", .unit = "C"},
};

static const struct ps_col scsi_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/device", .title = "device", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/verdict", .title = "health", .fmt = PS_FMT_STATUS, .flags = PS_COL_HEADLINE},
    {.path = "/scsi/grown_defects", .title = "grown", .better = PS_BETTER_LOWER},
    {.path = "/scsi/uncorrected_read", .title = "unc rd", .better = PS_BETTER_LOWER},
    {.path = "/scsi/uncorrected_write", .title = "unc wr", .better = PS_BETTER_LOWER},
    {.path = "/scsi/uncorrected_verify", .title = "unc vf", .better = PS_BETTER_LOWER},
    {.path = "/scsi/start_stop_cycles", .title = "starts", .flags = PS_COL_OPTIONAL},
    {.path = "/power_on_hours", .title = "hours"},
    {.path = "/temperature_c", .title = "temp", .unit = "C"},
};

static const struct ps_col selftest_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/self_test/started", .title = "run", .fmt = PS_FMT_BOOL},
    {.path = "/self_test/waited_s", .title = "took", .fmt = PS_FMT_SECONDS},
    {.path = "/self_test/lba_first_error", .title = "error LBA"},
    {.path = "/self_test/result", .title = "result", .flags = PS_COL_WIDE},
    {.path = "/self_test/reason", .title = "not run because", .flags = PS_COL_WIDE},
};

static const struct ps_col id_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/answered_by", .title = "via"},
    {.path = "/identity/used", .title = "identity"},
    {.path = "/identity/smartctl_firmware", .title = "firmware"},
    {.path = "/identity/smartctl_serial", .title = "serial"},
    {.path = "/identity/smartctl_model", .title = "model (smartctl)", .flags = PS_COL_WIDE},
};

static const struct ps_col none_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/no_smart_reason", .title = "no SMART because", .flags = PS_COL_WIDE},
};

static const struct ps_col skip_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/skipped_reason", .title = "not read", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "ata",
     .title = "ATA SMART (attributes 5 197 198 187 188 199; raw counts as smartctl decodes them)",
     .rows = "/drives",
     .when = "/ata",
     .cols = PS_COLS(ata_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "nvme",
     .title = "NVMe health log",
     .rows = "/drives",
     .when = "/nvme",
     .cols = PS_COLS(nvme_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "scsi",
     .title = "SCSI/SAS logs",
     .rows = "/drives",
     .when = "/scsi",
     .cols = PS_COLS(scsi_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "self_test",
     .title = "Short self-test",
     .rows = "/drives",
     .when = "/self_test",
     .cols = PS_COLS(selftest_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "identity",
     .title = "Identity as smartctl reads it",
     .rows = "/drives",
     .when = "/identity",
     .cols = PS_COLS(id_cols),
     .note = "power-on hours are reported, never judged; smartctl's JSON of each drive is "
	     "in report.json"},
    {.kind = PS_BLOCK_TABLE,
     .id = "no_smart",
     .rows = "/drives",
     .when = "/no_smart_reason",
     .cols = PS_COLS(none_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "skipped",
     .rows = "/drives",
     .when = "/skipped_reason",
     .cols = PS_COLS(skip_cols)},
};

static const struct ps_view view = {
    .name = "smart",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops smart_ops = {
    .abi = PS_STEP_ABI,
    .name = "smart",
    .title = "drive health through smartctl (read-only; full: short self-test)",
    .plans = PS_PLAN_QUICK | PS_PLAN_FULL,
    .order = 10,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &smart_fields,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(smart_ops);
