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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "plan": {"enum": ["quick", "full"]},
//schema:    "smartctl_version": {"type": ["string", "null"]},
//schema:    "drives": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "skipped_reason": {"type": "string"},
//schema:        "attempts": {"type": "array", "items": {"type": "object",
//schema:          "properties": {"type": {"type": "string"}, "exit_status": {"type": ["integer", "null"]},
//schema:                         "answered": {"type": "boolean"}, "message": {"type": ["string", "null"]}},
//schema:          "required": ["type", "answered"]}},
//schema:        "answered_by": {"type": ["string", "null"]},
//schema:        "no_smart_reason": {"type": ["string", "null"]},
//schema:        "protocol": {"enum": ["ata", "nvme", "scsi", null]},
//schema:        "verdict": {"enum": ["pass", "warn", "fail", null]},
//schema:        "verdict_rule": {"type": ["string", "null"]},
//schema:        "passed": {"type": ["boolean", "null"]},
//schema:        "power_on_hours": {"type": ["integer", "null"]},
//schema:        "power_cycles": {"type": ["integer", "null"]},
//schema:        "temperature_c": {"type": ["integer", "null"]},
//schema:        "temperature_max_c": {"type": ["integer", "null"]},
//schema:        "ata": {"type": ["object", "null"]},
//schema:        "nvme": {"type": ["object", "null"]},
//schema:        "scsi": {"type": ["object", "null"]},
//schema:        "self_test_log": {"type": "array"},
//schema:        "self_test": {"type": ["object", "null"]},
//schema:        "identity": {"type": ["object", "null"]},
//schema:        "smartctl": {"type": ["object", "null"]},
//schema:        "smartctl_text": {"type": ["string", "null"]}
//schema:      },
//schema:      "required": ["name"]
//schema:    }}
//schema:  },
//schema:  "required": ["plan", "drives"]
//schema:}
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
	json_object *obj, *attempts;
	struct ps_smart s;
	json_object *doc; /* smartctl's JSON of the answering run (owned by obj once set) */
	char type[16];	  /* the -d type that answered, "" for smartctl's own choice */
	bool ok;
	const char *drive_says_no; /* an attempt reached the drive, which gave no health data */
	bool opened;		   /* an attempt opened the device (behind USB: the bridge) */
	/* self-test */
	int st_kind; /* 0 none, 1 ATA (smartctl), 2 NVMe (ioctl) */
	int nvme_fd;
	double st_start, st_deadline, st_announced;
	int st_pct;
	bool st_done;
	json_object *st;
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

static void keep_text(json_object *obj, const struct ps_smartctl_out *o)
{
	ps_json_set(obj, "smartctl_text",
		    ps_json_new_strn(o->text, o->len < RAW_TEXT_CAP ? o->len : RAW_TEXT_CAP));
}

/*
 * Read the drive with one -d type (NULL: smartctl's choice). 1 when it
 * answered, 0 when not, -ENOENT when smartctl is missing. *malformed is set
 * when the output was not smartctl's JSON.
 */
static int try_type(struct drive *d, const char *type, bool *malformed)
{
	static const char *const args[] = {"-x", "--json=c", NULL};
	struct ps_smartctl_out out;
	struct ps_smart s;
	json_object *doc = NULL, *a = json_object_new_object();
	char why[256] = "";
	int ret = smartctl(d, type, args, &out), pr;

	ps_json_set_str(a, "type", type ? type : "auto");
	json_object_array_add(d->attempts, a);
	if (ret < 0) {
		ps_json_set(a, "answered", json_object_new_boolean(false));
		ps_json_set_str(a, "message", strerror(-ret));
		return ret == -ENOENT ? -ENOENT : 0;
	}
	ps_json_set(a, "exit_status", json_object_new_int(out.exit_status));
	if (out.timed_out) {
		ps_json_set(a, "answered", json_object_new_boolean(false));
		ps_json_set_str(a, "message", "no answer within 60 s: killed");
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
		ps_json_set(a, "answered", json_object_new_boolean(false));
		ps_json_set_str(a, "message", why);
		keep_text(d->obj, &out);
		ps_smartctl_out_free(&out);
		return 0;
	}
	ps_smartctl_out_free(&out);
	if (!ps_json_get(d->ctx->data, "smartctl_version") && s.version_major >= 0) {
		char v[32];

		snprintf(v, sizeof(v), "%d.%d", s.version_major, s.version_minor);
		ps_json_set_str(d->ctx->data, "smartctl_version", v);
	}
	ps_json_set(a, "answered", json_object_new_boolean(ps_smart_answered(&s)));
	ps_json_set_str(a, "message", ps_smart_message(&s));
	if (!ps_smart_answered(&s)) {
		/* the last non-answer is kept for whoever wants to see what smartctl said */
		ps_json_set(d->obj, "smartctl", doc);
		d->s = s;
		if (!d->drive_says_no)
			d->drive_says_no = ps_smart_drive_says_no(&s);
		d->opened = d->opened || ps_smart_opened(&s);
		return 0;
	}
	d->s = s;
	d->doc = doc;
	ps_json_set(d->obj, "smartctl", doc);
	snprintf(d->type, sizeof(d->type), "%s", type ? type : "");
	return 1;
}

/* Why a drive gives no SMART, from what each attempt said. */
static void no_smart(struct drive *d, bool usb)
{
	char why[900];
	const char *cause, *first;
	size_t o = 0;

	for (size_t i = 0; i < ps_json_len(d->attempts) && o < sizeof(why); i++) {
		json_object *a = ps_json_at(d->attempts, i);
		const char *m = ps_json_str(a, "message");
		int64_t ex = -1;

		ps_json_int(a, "exit_status", &ex);
		o += (size_t)snprintf(why + o, sizeof(why) - o, "%s%s: %s", i ? "; " : "",
				      ps_json_str_or(a, "type", "?"),
				      m && m[0]		      ? m
				      : ex >= 0 && (ex & 0x2) ? "the device did not answer its "
								"identify command"
				      : ex >= 0 && (ex & 0x1) ? "smartctl refused the device"
							      : "no health data");
	}
	o = o < sizeof(why) ? o : sizeof(why) - 1;
	/* the bridge is the cause only when no attempt reached the drive behind it */
	cause = d->drive_says_no   ? d->drive_says_no
		: usb && d->opened ? "the USB bridge passes no SMART commands: connect the drive "
				     "to a SATA or NVMe port to read its health"
		: d->inv->transport == PS_TR_VIRTIO ? "a virtio disk of a hypervisor has no SMART"
						    : NULL;
	if (cause)
		snprintf(why + o, sizeof(why) - o, " (%s)", cause);
	ps_json_set_str(d->obj, "no_smart_reason", why);
	ps_findf(d->ctx, PS_SEV_INFO, ps_drive_ref(d->inv), "no_smart",
		 "no SMART data: %s; its health is unknown", why);
	/* the verdicts say it short: the cause, else what smartctl said first */
	first = ps_json_str(ps_json_at(d->attempts, 0), "message");
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
static void identity(struct drive *d)
{
	const struct ps_drive *v = d->inv;
	const struct ps_smart *s = &d->s;
	json_object *id = json_object_new_object(), *diff = json_object_new_array();
	const char *smodel =
	    s->proto == PS_SMART_PROTO_SCSI && s->product[0] ? s->product : s->model;
	bool corrected = strcmp(v->identity_source, "smartctl") == 0 && v->sysfs_model[0];
	const char *imodel = corrected ? v->sysfs_model : v->model;
	const char *iserial = corrected ? v->sysfs_serial : v->serial;
	const char *ifirmware = corrected ? v->sysfs_firmware : v->firmware;
	bool bridge = v->transport == PS_TR_USB && s->proto != PS_SMART_PROTO_SCSI;
	bool wins;

	ps_json_set_str(id, "smartctl_model", smodel);
	ps_json_set_str(id, "smartctl_serial", s->serial);
	ps_json_set_str(id, "smartctl_firmware", s->firmware);
	ps_json_set_str(id, "inventory_model", imodel);
	ps_json_set_str(id, "inventory_serial", iserial);
	ps_json_set_str(id, "inventory_firmware", ifirmware);
	ps_json_set_str(id, "inventory_source",
			corrected ? v->sysfs_identity_source : v->identity_source);
	if (smodel[0] && !same(smodel, imodel))
		json_object_array_add(diff, json_object_new_string("model"));
	if (s->serial[0] && !same(s->serial, iserial))
		json_object_array_add(diff, json_object_new_string("serial"));
	if (s->firmware[0] && !same(s->firmware, ifirmware))
		json_object_array_add(diff, json_object_new_string("firmware"));
	wins = ps_json_len(diff) > 0 && smodel[0];
	ps_json_set(id, "differs", diff);
	ps_json_set_str(id, "used", wins ? "smartctl" : "inventory");
	ps_json_set_str(id, "why",
			!smodel[0] && !s->serial[0] && !s->firmware[0]
			    ? "smartctl gave no identity: the inventory's is kept"
			: !smodel[0] ? "smartctl gave no model: the inventory's identity is kept"
			: !wins	     ? "smartctl and the inventory agree"
			: bridge ? "behind a USB bridge smartctl reads the drive, sysfs the bridge"
				 : "smartctl (the drive's IDENTIFY as smartctl reads it) differs "
				   "from sysfs");
	if (wins && !bridge)
		ps_findf(d->ctx, PS_SEV_INFO, ps_drive_ref(v), "identity_differs",
			 "smartctl reads model/serial/firmware %s / %s / %s, sysfs gave %s / %s / "
			 "%s: the report uses smartctl's",
			 smodel, s->serial[0] ? s->serial : "-", s->firmware[0] ? s->firmware : "-",
			 imodel[0] ? imodel : "-", iserial[0] ? iserial : "-",
			 ifirmware[0] ? ifirmware : "-");
	ps_json_set(d->obj, "identity", id);
}

static json_object *count_or_null(int64_t v)
{
	return ps_json_new_count(v);
}

static json_object *temp_json(int t)
{
	return t == PS_SMART_NO_TEMP ? NULL : json_object_new_int(t);
}

static void figures(struct drive *d)
{
	const struct ps_smart *s = &d->s;
	json_object *o = d->obj, *log = json_object_new_array();

	ps_json_set_str(o, "protocol", ps_smart_proto_name(s->proto));
	ps_json_set_str(o, "answered_by", d->type[0] ? d->type : "auto");
	ps_json_set_tri(o, "passed", s->passed);
	ps_json_set(o, "power_on_hours", count_or_null(s->power_on_hours));
	ps_json_set(o, "power_cycles", count_or_null(s->power_cycles));
	ps_json_set(o, "temperature_c", temp_json(s->temp_c));
	ps_json_set(o, "temperature_max_c", temp_json(s->temp_max_c));
	ps_json_set(o, "temperature_cycle_max_c", temp_json(s->temp_cycle_max_c));
	if (s->proto == PS_SMART_PROTO_ATA) {
		static const struct {
			int id;
			const char *key;
		} keys[] = {{5, "reallocated"},
			    {9, "power_on_hours"},
			    {187, "reported_uncorrect"},
			    {188, "command_timeout"},
			    {194, "temperature"},
			    {196, "reallocation_events"},
			    {197, "pending"},
			    {198, "offline_uncorrectable"},
			    {199, "crc_errors"}};
		json_object *ata = json_object_new_object(), *attrs = json_object_new_array();

		for (size_t i = 0; i < PS_ARRAY_SIZE(keys); i++) {
			const struct ps_smart_attr *a = ps_smart_attr(s, keys[i].id);
			json_object *e;

			ps_json_set(ata, keys[i].key, a ? count_or_null(a->count) : NULL);
			if (!a)
				continue;
			e = json_object_new_object();
			ps_json_set(e, "id", json_object_new_int(a->id));
			ps_json_set_str(e, "name", a->name);
			ps_json_set(e, "value", count_or_null(a->value));
			ps_json_set(e, "worst", count_or_null(a->worst));
			ps_json_set(e, "thresh", count_or_null(a->thresh));
			ps_json_set(e, "raw", count_or_null(a->raw));
			ps_json_set_str(e, "raw_text", a->raw_text);
			ps_json_set(e, "count", count_or_null(a->count));
			ps_json_set_str(e, "when_failed", a->when_failed);
			json_object_array_add(attrs, e);
		}
		ps_json_set(ata, "attributes", attrs);
		ps_json_set(ata, "error_log_count", count_or_null(s->ata_error_count));
		ps_json_set(o, "ata", ata);
	} else if (s->proto == PS_SMART_PROTO_NVME) {
		json_object *nv = json_object_new_object(), *errs = json_object_new_array();
		char bits[256];

		ps_nvme_critical_text(s->nvme_critical_warning, bits, sizeof(bits));
		ps_json_set(nv, "critical_warning", count_or_null(s->nvme_critical_warning));
		ps_json_set_str(nv, "critical_warning_text", bits);
		ps_json_set(nv, "available_spare", count_or_null(s->nvme_spare));
		ps_json_set(nv, "available_spare_threshold",
			    count_or_null(s->nvme_spare_threshold));
		ps_json_set(nv, "percentage_used", count_or_null(s->nvme_percentage_used));
		ps_json_set(nv, "media_errors", count_or_null(s->nvme_media_errors));
		ps_json_set(nv, "error_log_entries", count_or_null(s->nvme_error_log_entries));
		ps_json_set(nv, "unsafe_shutdowns", count_or_null(s->nvme_unsafe_shutdowns));
		ps_json_set(nv, "data_units_read", count_or_null(s->nvme_data_units_read));
		ps_json_set(nv, "data_units_written", count_or_null(s->nvme_data_units_written));
		for (size_t i = 0; i < s->n_nvme_errors; i++) {
			json_object *e = json_object_new_object();

			ps_json_set(e, "error_count", count_or_null(s->nvme_errors[i].error_count));
			ps_json_set_str(e, "status", s->nvme_errors[i].status);
			ps_json_set(e, "lba", count_or_null(s->nvme_errors[i].lba));
			json_object_array_add(errs, e);
		}
		ps_json_set(nv, "error_log", errs);
		ps_json_set(o, "nvme", nv);
	} else if (s->proto == PS_SMART_PROTO_SCSI) {
		json_object *sc = json_object_new_object();

		ps_json_set(sc, "grown_defects", count_or_null(s->scsi_grown_defects));
		ps_json_set(sc, "uncorrected_read", count_or_null(s->scsi_uncorrected_read));
		ps_json_set(sc, "uncorrected_write", count_or_null(s->scsi_uncorrected_write));
		ps_json_set(sc, "uncorrected_verify", count_or_null(s->scsi_uncorrected_verify));
		ps_json_set(sc, "start_stop_cycles", count_or_null(s->scsi_start_stop_cycles));
		ps_json_set(o, "scsi", sc);
	}
	for (size_t i = 0; i < s->n_tests; i++) {
		json_object *e = json_object_new_object();

		ps_json_set_str(e, "type", s->tests[i].type);
		ps_json_set_str(e, "status", s->tests[i].status);
		ps_json_set_tri(e, "passed", s->tests[i].passed);
		ps_json_set(e, "hours", count_or_null(s->tests[i].hours));
		ps_json_set(e, "lba_first_error", count_or_null(s->tests[i].lba_first_error));
		json_object_array_add(log, e);
	}
	ps_json_set(o, "self_test_log", log);
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
	ps_json_set_str(d->obj, "verdict",
			worst == PS_SEV_FAIL   ? "fail"
			: worst == PS_SEV_WARN ? "warn"
					       : "pass");
	ps_json_set_str(d->obj, "verdict_rule", worst > PS_SEV_INFO ? rule : "healthy");
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
		if (malformed && ps_json_len(d->attempts) == 1) {
			const char *m = ps_json_str(ps_json_at(d->attempts, 0), "message");

			ps_findf(d->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "smartctl_output",
				 "%s: %s; its health is unknown (the text is kept in "
				 "data.smartctl_text)",
				 d->inv->name, m ? m : "unreadable output");
			ps_json_set_str(d->obj, "no_smart_reason", m);
			ps_not_tested(d->ctx, ps_drive_ref(d->inv), "smartctl's output: %s",
				      m ? m : "unreadable");
		} else {
			no_smart(d, usb);
		}
		return 0;
	}
	ps_json_set(d->obj, "smartctl_text", NULL);
	d->ok = true;
	identity(d);
	figures(d);
	verdict(d);
	return 1;
}

/* ---- the full plan's short self-test ---- */

static void st_set(struct drive *d, const char *key, const char *val)
{
	ps_json_set_str(d->st, key, val);
}

static bool st_start_ata(struct drive *d)
{
	static const char *const args[] = {"-t", "short", "--json=c", NULL};
	struct ps_smartctl_out out;
	struct ps_smart s;
	char why[256];
	int ret;

	if (d->s.self_test_supported != 1) {
		st_set(d, "reason", "the drive announces no self-test (SMART capabilities)");
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
		st_set(d, "reason", msg);
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
		st_set(d, "reason", msg);
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
		st_set(d, "reason", msg);
		smart_backend->nvme_close(smart_backend->arg, fd);
		return false;
	}
	ret = smart_backend->nvme_dst(smart_backend->arg, fd, 1);
	if (ret < 0) {
		snprintf(msg, sizeof(msg), "Device Self-test (short) failed to start: %s",
			 strerror(-ret));
		st_set(d, "reason", msg);
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
	ps_json_set(d->st, "passed", json_object_new_boolean(passed));
	st_set(d, "result", text);
	ps_json_set(d->st, "lba_first_error", ps_json_new_count(lba));
	ps_json_set_num(d->st, "waited_s", smart_backend->now_s(smart_backend->arg) - d->st_start,
			1);
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
	st_set(d, "result", why);
	ps_json_set_num(d->st, "waited_s", smart_backend->now_s(smart_backend->arg) - d->st_start,
			1);
}

/* Start every drive's short self-test, then wait for all of them together. */
static bool self_tests(struct ps_ctx *ctx, struct drive *ds, size_t n)
{
	size_t running = 0;
	bool aborted = false;

	for (size_t i = 0; i < n; i++) {
		struct drive *d = &ds[i];
		bool started = false;

		if (!d->ok)
			continue;
		d->st = json_object_new_object();
		st_set(d, "kind", "short");
		ps_json_set(d->obj, "self_test", d->st);
		if (d->s.proto == PS_SMART_PROTO_ATA)
			started = st_start_ata(d);
		else if (d->s.proto == PS_SMART_PROTO_NVME)
			started = st_start_nvme(d);
		else
			st_set(d, "reason",
			       "SCSI drives: not started (the plan runs ATA and NVMe "
			       "self-tests)");
		ps_json_set(d->st, "started", json_object_new_boolean(started));
		if (!started)
			continue;
		d->st_start = smart_backend->now_s(smart_backend->arg);
		d->st_deadline = d->st_start + d->st_announced +
				 (d->st_announced / 2 > SELFTEST_MARGIN_S ? d->st_announced / 2
									  : SELFTEST_MARGIN_S);
		ps_json_set_num(d->st, "announced_s", d->st_announced, 0);
		ps_json_set_num(d->st, "limit_s", d->st_deadline - d->st_start, 0);
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
	bool full = ctx->plan && ctx->plan->level == PS_PLAN_FULL;
	json_object *out = json_object_new_array();
	struct drive *ds = calloc(ctx->inv->n_drives ? ctx->inv->n_drives : 1, sizeof(*ds));
	size_t n = 0, targets = 0, answered = 0;
	int ret = 0;
	bool aborted = false;

	if (!ds)
		return -ENOMEM;
	ps_json_set_str(ctx->data, "plan", full ? "full" : "quick");
	ps_json_set(ctx->data, "drives", out);
	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		struct drive *d = &ds[n++];
		const char *why;

		d->ctx = ctx;
		d->inv = &ctx->inv->drives[i];
		d->nvme_fd = -1;
		d->obj = json_object_new_object();
		ps_json_set_str(d->obj, "name", d->inv->name[0] ? d->inv->name : "(unnamed)");
		ps_json_set_str(d->obj, "device", d->inv->id);
		json_object_array_add(out, d->obj);
		why = skip_reason(d->inv);
		if (why) {
			ps_json_set_str(d->obj, "skipped_reason", why);
			continue;
		}
		if (ps_should_abort(ctx)) {
			aborted = true;
			ps_json_set_str(d->obj, "skipped_reason", "the step was aborted first");
			continue;
		}
		targets++;
		d->attempts = json_object_new_array();
		ps_json_set(d->obj, "attempts", d->attempts);
		ret = read_drive(d);
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
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(smart_ops);
