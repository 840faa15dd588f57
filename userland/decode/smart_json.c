/*
 * smart_json.c - smartctl's JSON (`smartctl -x --json=c`, smartmontools 7.x)
 * into struct ps_smart. Pure: no I/O, so unit tests feed it recorded output
 * of real drives and damaged copies. Member names follow smartctl 7.0-7.3;
 * where they changed (SCSI vendor/product), both spellings are read.
 */
#include "decode/smart.h"
#include "lib/json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ps_smart_proto_name(enum ps_smart_proto p)
{
	switch (p) {
	case PS_SMART_PROTO_ATA:
		return "ata";
	case PS_SMART_PROTO_NVME:
		return "nvme";
	case PS_SMART_PROTO_SCSI:
		return "scsi";
	default:
		return NULL;
	}
}

static void copy_str(char *dst, size_t len, const char *src)
{
	const char *end;

	dst[0] = '\0';
	if (!src)
		return;
	while (*src == ' ')
		src++;
	end = src + strlen(src);
	while (end > src && end[-1] == ' ')
		end--;
	snprintf(dst, len, "%.*s", (int)(end - src), src);
}

static int64_t get_i64(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);
	double d;

	if (!v || !ps_json_as_num(v, &d))
		return PS_UNKNOWN;
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);

		/* json-c clamps a number past 64 bits (smartctl prints a 128-bit NVMe counter
		 * or a vendor's 30-digit raw in full) to the limit: out of range is unknown */
		return i == INT64_MAX || i == INT64_MIN ? PS_UNKNOWN : i;
	}
	/* a number a 64-bit integer cannot hold (1e38, NaN) is not a figure */
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return PS_UNKNOWN;
	return (int64_t)d;
}

/* A count: PS_UNKNOWN when absent or negative (no count is). */
static int64_t get_count(json_object *o, const char *ptr)
{
	int64_t v = get_i64(o, ptr);

	return v < 0 ? PS_UNKNOWN : v;
}

static int get_int(json_object *o, const char *ptr)
{
	int64_t v = get_i64(o, ptr);

	return v < 0 || v > INT32_MAX ? PS_UNKNOWN : (int)v;
}

/* A temperature: may be below zero; absent is PS_SMART_NO_TEMP. */
static int get_temp(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);
	double d;

	if (!v || !ps_json_as_num(v, &d) || d < -100 || d > 300)
		return PS_SMART_NO_TEMP;
	return (int)d;
}

static ps_tri get_tri(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);

	return v && json_object_is_type(v, json_type_boolean) ? (ps_tri)json_object_get_boolean(v)
							      : PS_TRI_UNKNOWN;
}

static const char *get_str(json_object *o, const char *ptr)
{
	json_object *v = ps_json_ptr(o, ptr);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The leading integer of a raw string: "2015", "32 (Min/Max 24/38)", "1730h+04m". */
static int64_t leading_count(const char *s)
{
	int64_t v = 0;
	const char *p = s;

	if (!s)
		return PS_UNKNOWN;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return PS_UNKNOWN;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (INT64_MAX - 9) / 10)
			return PS_UNKNOWN;
		v = v * 10 + (*p - '0');
	}
	return v;
}

static void read_messages(json_object *doc, struct ps_smart *s)
{
	json_object *msgs = ps_json_ptr(doc, "/smartctl/messages");

	for (size_t i = 0; i < ps_json_len(msgs) && s->n_messages < PS_SMART_MESSAGES; i++) {
		json_object *m = ps_json_at(msgs, i);
		struct ps_smart_message *o = &s->messages[s->n_messages];
		const char *text = ps_json_str(m, "string");

		if (!text)
			continue;
		ps_text_clean(text, strlen(text), NULL, o->text, sizeof(o->text));
		copy_str(o->severity, sizeof(o->severity), ps_json_str(m, "severity"));
		s->n_messages++;
	}
}

static void read_identity(json_object *doc, struct ps_smart *s)
{
	const char *model = get_str(doc, "/model_name");
	json_object *wwn = ps_json_get(doc, "wwn");

	if (!model)
		model = get_str(doc, "/scsi_model_name");
	copy_str(s->model, sizeof(s->model), model);
	copy_str(s->serial, sizeof(s->serial), get_str(doc, "/serial_number"));
	copy_str(s->firmware, sizeof(s->firmware), get_str(doc, "/firmware_version"));
	if (!s->firmware[0])
		copy_str(s->firmware, sizeof(s->firmware),
			 get_str(doc, "/scsi_revision") ? get_str(doc, "/scsi_revision")
							: get_str(doc, "/revision"));
	copy_str(s->vendor, sizeof(s->vendor),
		 get_str(doc, "/scsi_vendor") ? get_str(doc, "/scsi_vendor")
					      : get_str(doc, "/vendor"));
	copy_str(s->product, sizeof(s->product),
		 get_str(doc, "/scsi_product") ? get_str(doc, "/scsi_product")
					       : get_str(doc, "/product"));
	if (wwn) {
		int64_t naa = get_i64(wwn, "/naa"), oui = get_i64(wwn, "/oui"),
			id = get_i64(wwn, "/id");

		if (naa >= 0 && oui >= 0 && id >= 0)
			snprintf(s->wwn, sizeof(s->wwn), "0x%llx",
				 ((unsigned long long)naa << 60) | ((unsigned long long)oui << 36) |
				     (unsigned long long)id);
	}
	s->capacity_bytes = get_count(doc, "/user_capacity/bytes");
	{
		int64_t rpm = get_i64(doc, "/rotation_rate");

		/* smartctl prints 0 for "Solid State Device" after word 217 said 1 */
		s->rotation_rpm = rpm < 0 ? PS_UNKNOWN : rpm == 0 ? 1 : (int)rpm;
		if (rpm == 0 && s->proto == PS_SMART_PROTO_SCSI)
			s->rotation_rpm = PS_UNKNOWN; /* SCSI B1 absent also prints 0 */
	}
	s->in_database = get_tri(doc, "/in_smartctl_database");
}

static void read_attrs(json_object *doc, struct ps_smart *s)
{
	json_object *table = ps_json_ptr(doc, "/ata_smart_attributes/table");

	s->has_attrs = table && json_object_is_type(table, json_type_array);
	for (size_t i = 0; i < ps_json_len(table) && s->n_attrs < PS_SMART_ATTRS; i++) {
		json_object *a = ps_json_at(table, i);
		struct ps_smart_attr *o = &s->attrs[s->n_attrs];
		int64_t id = get_i64(a, "/id");

		if (id <= 0 || id > 255)
			continue;
		memset(o, 0, sizeof(*o));
		o->id = (int)id;
		copy_str(o->name, sizeof(o->name), ps_json_str(a, "name"));
		o->value = get_int(a, "/value");
		o->worst = get_int(a, "/worst");
		o->thresh = get_int(a, "/thresh");
		o->raw = get_count(a, "/raw/value");
		copy_str(o->raw_text, sizeof(o->raw_text), get_str(a, "/raw/string"));
		o->count = o->raw_text[0] ? leading_count(o->raw_text) : o->raw;
		o->prefailure = get_tri(a, "/flags/prefailure") == 1;
		copy_str(o->when_failed, sizeof(o->when_failed), ps_json_str(a, "when_failed"));
		s->n_attrs++;
	}
}

/*
 * Power-on hours and cycles from attributes 9 and 12 when smartctl's summary
 * lacks them: it writes power_on_time only for the raw formats it turns into
 * hours, and a "2725 (151 234 0)" leaves it out. Attribute 9 counts hours
 * when its name says hours (Power_On_Hours, Power_On_Hours_and_Msec) or its
 * raw string reads "NNNh+MMm" (the minutes, seconds and half-minutes
 * formats); anything else is unknown.
 */
static void read_attr_summary(struct ps_smart *s)
{
	const struct ps_smart_attr *poh = ps_smart_attr(s, 9), *pc = ps_smart_attr(s, 12);

	if (s->power_on_hours < 0 && poh && strncmp(poh->name, "Power_On_", 9) == 0) {
		const char *p = poh->raw_text;

		while (isdigit((unsigned char)*p))
			p++;
		if (strncmp(poh->name, "Power_On_Hours", 14) == 0 ||
		    (p > poh->raw_text && *p == 'h'))
			s->power_on_hours = poh->count;
	}
	if (s->power_cycles < 0 && pc && strcmp(pc->name, "Power_Cycle_Count") == 0)
		s->power_cycles = pc->count;
}

static void read_selftests(json_object *doc, struct ps_smart *s)
{
	/* -x reads the extended log where the drive has one; -a the standard one */
	json_object *table = ps_json_ptr(doc, "/ata_smart_self_test_log/extended/table");

	if (!ps_json_len(table))
		table = ps_json_ptr(doc, "/ata_smart_self_test_log/standard/table");
	for (size_t i = 0; i < ps_json_len(table) && s->n_tests < PS_SMART_SELFTESTS; i++) {
		json_object *t = ps_json_at(table, i);
		struct ps_smart_selftest *o = &s->tests[s->n_tests++];
		int64_t v = get_i64(t, "/status/value");

		copy_str(o->type, sizeof(o->type), get_str(t, "/type/string"));
		copy_str(o->status, sizeof(o->status), get_str(t, "/status/string"));
		o->status_value = v < 0 || v > 255 ? PS_UNKNOWN : (int)v;
		o->passed = get_tri(t, "/status/passed");
		o->hours = get_count(t, "/lifetime_hours");
		o->lba_first_error = get_count(t, "/lba");
	}
	s->self_test_supported = get_tri(doc, "/ata_smart_data/capabilities/self_tests_supported");
	/* ATA gives the short test's polling time in one byte (SMART data offset 372): more than
	 * 255 minutes is no drive's, and the step would wait for it (found by fuzz_smart) */
	s->self_test_short_min = get_int(doc, "/ata_smart_data/self_test/polling_minutes/short");
	if (s->self_test_short_min > 255)
		s->self_test_short_min = PS_UNKNOWN;
	s->self_test_status = get_int(doc, "/ata_smart_data/self_test/status/value");
	s->self_test_remaining = get_int(doc, "/ata_smart_data/self_test/status/remaining_percent");
	copy_str(s->self_test_text, sizeof(s->self_test_text),
		 get_str(doc, "/ata_smart_data/self_test/status/string"));
	s->ata_error_count = get_count(doc, "/ata_smart_error_log/extended/count");
	if (s->ata_error_count < 0)
		s->ata_error_count = get_count(doc, "/ata_smart_error_log/summary/count");
}

static void read_nvme(json_object *doc, struct ps_smart *s)
{
	json_object *log = ps_json_get(doc, "nvme_smart_health_information_log");
	json_object *errs = ps_json_ptr(doc, "/nvme_error_information_log/table");

	s->has_nvme_log = log && json_object_is_type(log, json_type_object);
	if (!s->has_nvme_log)
		return;
	s->nvme_critical_warning = get_int(log, "/critical_warning");
	s->nvme_spare = get_int(log, "/available_spare");
	s->nvme_spare_threshold = get_int(log, "/available_spare_threshold");
	s->nvme_percentage_used = get_int(log, "/percentage_used");
	s->nvme_media_errors = get_count(log, "/media_errors");
	s->nvme_error_log_entries = get_count(log, "/num_err_log_entries");
	s->nvme_unsafe_shutdowns = get_count(log, "/unsafe_shutdowns");
	s->nvme_data_units_read = get_count(log, "/data_units_read");
	s->nvme_data_units_written = get_count(log, "/data_units_written");
	if (s->power_on_hours < 0)
		s->power_on_hours = get_count(log, "/power_on_hours");
	if (s->power_cycles < 0)
		s->power_cycles = get_count(log, "/power_cycles");
	if (s->temp_c == PS_SMART_NO_TEMP)
		s->temp_c = get_temp(log, "/temperature");
	for (size_t i = 0; i < ps_json_len(errs) && s->n_nvme_errors < PS_SMART_NVME_ERRORS; i++) {
		json_object *e = ps_json_at(errs, i);
		struct ps_smart_nvme_error *o = &s->nvme_errors[s->n_nvme_errors];

		o->error_count = get_count(e, "/error_count");
		if (o->error_count <= 0)
			continue; /* an unused entry */
		copy_str(o->status, sizeof(o->status), get_str(e, "/status_field/string"));
		o->lba = get_count(e, "/lba/value");
		s->n_nvme_errors++;
	}
}

static void read_scsi(json_object *doc, struct ps_smart *s)
{
	s->scsi_grown_defects = get_count(doc, "/scsi_grown_defect_list");
	s->scsi_uncorrected_read =
	    get_count(doc, "/scsi_error_counter_log/read/total_uncorrected_errors");
	s->scsi_uncorrected_write =
	    get_count(doc, "/scsi_error_counter_log/write/total_uncorrected_errors");
	s->scsi_uncorrected_verify =
	    get_count(doc, "/scsi_error_counter_log/verify/total_uncorrected_errors");
	s->scsi_start_stop_cycles =
	    get_count(doc, "/scsi_start_stop_cycle_counter/accumulated_start_stop_cycles");
}

static void init(struct ps_smart *s)
{
	memset(s, 0, sizeof(*s));
	s->exit_status = s->version_major = s->version_minor = PS_UNKNOWN;
	s->capacity_bytes = PS_UNKNOWN;
	s->rotation_rpm = PS_UNKNOWN;
	s->in_database = s->smart_available = s->smart_enabled = s->passed = PS_TRI_UNKNOWN;
	s->power_on_hours = s->power_cycles = PS_UNKNOWN;
	s->temp_c = s->temp_max_c = s->temp_cycle_max_c = PS_SMART_NO_TEMP;
	s->self_test_supported = PS_TRI_UNKNOWN;
	s->self_test_short_min = s->self_test_status = s->self_test_remaining = PS_UNKNOWN;
	s->ata_error_count = PS_UNKNOWN;
	s->nvme_critical_warning = s->nvme_spare = s->nvme_spare_threshold = PS_UNKNOWN;
	s->nvme_percentage_used = PS_UNKNOWN;
	s->nvme_media_errors = s->nvme_error_log_entries = s->nvme_unsafe_shutdowns = PS_UNKNOWN;
	s->nvme_data_units_read = s->nvme_data_units_written = PS_UNKNOWN;
	s->scsi_grown_defects = s->scsi_uncorrected_read = s->scsi_uncorrected_write = PS_UNKNOWN;
	s->scsi_uncorrected_verify = s->scsi_start_stop_cycles = PS_UNKNOWN;
}

int ps_smart_from_json(json_object *doc, struct ps_smart *s)
{
	const char *proto;

	init(s);
	if (!doc || !json_object_is_type(doc, json_type_object) ||
	    (!ps_json_get(doc, "smartctl") && !ps_json_get(doc, "json_format_version") &&
	     !ps_json_get(doc, "device")))
		return -ENODATA;
	s->exit_status = get_int(doc, "/smartctl/exit_status");
	s->version_major = get_int(doc, "/smartctl/version/0");
	s->version_minor = get_int(doc, "/smartctl/version/1");
	copy_str(s->device_type, sizeof(s->device_type), get_str(doc, "/device/type"));
	proto = get_str(doc, "/device/protocol");
	if (proto && strcmp(proto, "ATA") == 0)
		s->proto = PS_SMART_PROTO_ATA;
	else if (proto && strcmp(proto, "NVMe") == 0)
		s->proto = PS_SMART_PROTO_NVME;
	else if (proto && strcmp(proto, "SCSI") == 0)
		s->proto = PS_SMART_PROTO_SCSI;
	read_messages(doc, s);
	read_identity(doc, s);
	s->smart_available = get_tri(doc, "/smart_support/available");
	s->smart_enabled = get_tri(doc, "/smart_support/enabled");
	s->passed = get_tri(doc, "/smart_status/passed");
	s->power_on_hours = get_count(doc, "/power_on_time/hours");
	s->power_cycles = get_count(doc, "/power_cycle_count");
	s->temp_c = get_temp(doc, "/temperature/current");
	s->temp_max_c = get_temp(doc, "/temperature/lifetime_max");
	s->temp_cycle_max_c = get_temp(doc, "/temperature/power_cycle_max");
	read_attrs(doc, s);
	read_attr_summary(s);
	read_selftests(doc, s);
	read_nvme(doc, s);
	read_scsi(doc, s);
	/* A SCSI drive that reports 0 degrees has no temperature sensor (smartctl prints 0). */
	if (s->proto == PS_SMART_PROTO_SCSI && s->temp_c == 0)
		s->temp_c = PS_SMART_NO_TEMP;
	return 0;
}

int ps_smart_parse(const char *text, size_t len, struct ps_smart *out, json_object **root,
		   char *why, size_t whylen)
{
	struct json_tokener *tok;
	json_object *doc;
	enum json_tokener_error err;
	size_t end, first = 0;
	int ret;

	init(out);
	if (root)
		*root = NULL;
	while (first < len && isspace((unsigned char)text[first]))
		first++;
	if (first == len) {
		snprintf(why, whylen, "smartctl printed nothing");
		return -EBADMSG;
	}
	tok = json_tokener_new_ex(64);
	if (!tok) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	doc = json_tokener_parse_ex(tok, text, (int)(len > INT32_MAX ? INT32_MAX : len));
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!doc) {
		if (err == json_tokener_continue)
			snprintf(why, whylen,
				 "smartctl's output ends in the middle of its JSON (%zu bytes): "
				 "truncated",
				 len);
		else
			snprintf(why, whylen, "smartctl's output is not JSON at byte %zu: %s", end,
				 json_tokener_error_desc(err));
		return -EBADMSG;
	}
	while (end < len && isspace((unsigned char)text[end]))
		end++;
	if (end < len) {
		snprintf(why, whylen,
			 "smartctl's output has %zu bytes after its JSON object (at byte %zu)",
			 len - end, end);
		json_object_put(doc);
		return -EBADMSG;
	}
	if (!json_object_is_type(doc, json_type_object)) {
		snprintf(why, whylen, "smartctl's output is JSON but not an object");
		json_object_put(doc);
		return -EBADMSG;
	}
	/* the document is kept in the report: its strings follow the report's rule */
	ps_json_clean_tree(doc);
	ret = ps_smart_from_json(doc, out);
	if (ret < 0) {
		snprintf(
		    why, whylen,
		    "the JSON has no \"smartctl\" or \"device\" member: not smartctl's output");
		json_object_put(doc);
		return ret;
	}
	if (root)
		*root = doc;
	else
		json_object_put(doc);
	return 0;
}

const struct ps_smart_attr *ps_smart_attr(const struct ps_smart *s, int id)
{
	for (size_t i = 0; i < s->n_attrs; i++)
		if (s->attrs[i].id == id)
			return &s->attrs[i];
	return NULL;
}

const char *ps_smart_message(const struct ps_smart *s)
{
	for (size_t i = 0; i < s->n_messages; i++)
		if (strcmp(s->messages[i].severity, "error") == 0)
			return s->messages[i].text;
	return s->n_messages ? s->messages[0].text : "";
}

void ps_nvme_critical_text(int bits, char *out, size_t len)
{
	static const char *const names[] = {
	    "available spare below threshold",
	    "temperature outside its thresholds",
	    "reliability degraded by media or internal errors",
	    "media placed in read-only mode",
	    "volatile memory backup failed",
	    "persistent memory region unreliable",
	};
	size_t o = 0;

	out[0] = '\0';
	if (bits <= 0)
		return;
	for (int b = 0; b < 8; b++) {
		if (!(bits & (1 << b)))
			continue;
		if (b < 6)
			o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%s%s", o ? ", " : "",
					      names[b]);
		else
			o += (size_t)snprintf(out + o, o < len ? len - o : 0, "%sreserved bit %d",
					      o ? ", " : "", b);
	}
}
