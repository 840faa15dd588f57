/*
 * smart.h - a drive's health as smartctl reports it: a typed model read from
 * `smartctl -x --json=c` by a pure parser (smart_json.c). Running smartctl and
 * the NVMe self-test ioctls are hw/smartctl.h's. smartmontools is the field's
 * standard: its drive database decodes vendor raw values, so the counts here
 * are the ones smartctl prints, never re-decoded.
 */
#ifndef PS_DECODE_SMART_H
#define PS_DECODE_SMART_H

#include "decode/decode.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_SMART_STR	     96
#define PS_SMART_ATTRS	     64
#define PS_SMART_SELFTESTS   8
#define PS_SMART_NVME_ERRORS 8
#define PS_SMART_MESSAGES    6
#define PS_SMART_NO_TEMP     INT_MIN /* a temperature the drive did not give */

enum ps_smart_proto {
	PS_SMART_PROTO_NONE = 0, /* smartctl found no device it could talk to */
	PS_SMART_PROTO_ATA,
	PS_SMART_PROTO_NVME,
	PS_SMART_PROTO_SCSI,
};
const char *ps_smart_proto_name(enum ps_smart_proto p); /* "ata", "nvme", "scsi", NULL */

/* One ATA attribute row as smartctl prints it. */
struct ps_smart_attr {
	int id;
	char name[40];
	int value, worst, thresh; /* normalized; PS_UNKNOWN when absent */
	int64_t raw;		  /* the 48-bit raw value */
	int64_t count;		  /* the raw value as the drive database decodes it: the leading
				     integer of smartctl's raw string ("32 (Min/Max 24/38)" is 32) */
	char raw_text[48];
	bool prefailure;
	char when_failed[16]; /* "", "now", "past" */
};

struct ps_smart_selftest {
	char type[32];	 /* "Short offline", "Extended offline" */
	char status[80]; /* "Completed without error", "Completed: read failure" */
	int status_value;
	ps_tri passed;
	int64_t hours;		 /* power-on hours when it ran, PS_UNKNOWN */
	int64_t lba_first_error; /* PS_UNKNOWN */
};

struct ps_smart_nvme_error {
	int64_t error_count;
	char status[80];
	int64_t lba; /* PS_UNKNOWN */
};

struct ps_smart_message {
	char text[200];
	char severity[16]; /* "error", "warning", "information" */
};

/* Everything the smart step uses of one smartctl run; unknown is PS_UNKNOWN / "" / tri unknown. */
struct ps_smart {
	int exit_status; /* smartctl.exit_status (bit mask), PS_UNKNOWN */
	int version_major, version_minor;
	char device_type[32]; /* device.type: "sat", "nvme", "scsi", "sntjmicron" */
	enum ps_smart_proto proto;
	struct ps_smart_message messages[PS_SMART_MESSAGES];
	size_t n_messages;

	char model[PS_SMART_STR], serial[PS_SMART_STR], firmware[48];
	char vendor[48], product[PS_SMART_STR]; /* SCSI INQUIRY */
	char wwn[32];				/* "0x5000c500a1b2c3d4", "" */
	int64_t capacity_bytes;
	int rotation_rpm; /* PS_UNKNOWN; 1 non-rotating (ATA word 217 and SCSI B1 say so) */
	ps_tri in_database;

	ps_tri smart_available, smart_enabled;
	ps_tri passed; /* smart_status.passed: the drive's own health check */

	int64_t power_on_hours, power_cycles;
	int temp_c, temp_max_c; /* current, lifetime maximum (SCT), PS_SMART_NO_TEMP */
	int temp_cycle_max_c;	/* maximum since power-on, PS_SMART_NO_TEMP */

	/* ATA */
	struct ps_smart_attr attrs[PS_SMART_ATTRS];
	size_t n_attrs;
	bool has_attrs;
	ps_tri self_test_supported;
	int self_test_short_min; /* polling minutes the drive announces, PS_UNKNOWN */
	int self_test_status;	 /* ata_smart_data.self_test.status.value, PS_UNKNOWN */
	int self_test_remaining; /* percent, PS_UNKNOWN */
	char self_test_text[80];
	struct ps_smart_selftest tests[PS_SMART_SELFTESTS]; /* newest first */
	size_t n_tests;
	int64_t ata_error_count; /* ata_smart_error_log (extended or summary) count */

	/* NVMe */
	bool has_nvme_log;
	int nvme_critical_warning; /* bit mask, PS_UNKNOWN */
	int nvme_spare, nvme_spare_threshold, nvme_percentage_used;
	int64_t nvme_media_errors, nvme_error_log_entries, nvme_unsafe_shutdowns;
	int64_t nvme_data_units_read, nvme_data_units_written;
	struct ps_smart_nvme_error nvme_errors[PS_SMART_NVME_ERRORS];
	size_t n_nvme_errors;

	/* SCSI */
	int64_t scsi_grown_defects;
	int64_t scsi_uncorrected_read, scsi_uncorrected_write, scsi_uncorrected_verify;
	int64_t scsi_start_stop_cycles;
};

/*
 * Parse smartctl's JSON output (len bytes, not NUL-terminated). 0 with *out
 * filled and, when root is not NULL, *root the parsed document (the caller
 * puts it); -EBADMSG when the text is not one complete JSON object (why says
 * where it broke: truncated, malformed); -ENODATA when it is JSON but not
 * smartctl's (no "smartctl", "json_format_version" or "device" member). Pure.
 */
int ps_smart_parse(const char *text, size_t len, struct ps_smart *out, json_object **root,
		   char *why, size_t whylen);
/* The same from a parsed document. */
int ps_smart_from_json(json_object *doc, struct ps_smart *out);

/* The attribute with this id, or NULL. */
const struct ps_smart_attr *ps_smart_attr(const struct ps_smart *s, int id);
/* The first message of smartctl with severity "error", else the first one, else "". */
const char *ps_smart_message(const struct ps_smart *s);

/* NVMe critical warning bits by name ("spare below threshold", ...): writes "a, b" into out. */
void ps_nvme_critical_text(int bits, char *out, size_t len);

#endif
