/*
 * smart_rules.h - the drive-health judgment: pure rules over the typed model
 * of one smartctl answer (struct ps_smart), each with its threshold and its
 * source in docs/rules.md ("Drive health"), so that unit tests and the replay
 * corpus of real drives (tests/realworld/smart/) score them directly.
 */
#ifndef PS_HW_SMART_RULES_H
#define PS_HW_SMART_RULES_H

#include "decode/smart.h"

#include <stdbool.h>
#include <stddef.h>

/* The same order and values as the core's enum ps_severity. */
enum ps_smart_sev { PS_SMART_INFO = 0, PS_SMART_WARN, PS_SMART_FAIL };

#define PS_SMART_REALLOC_FAIL 100 /* reallocated sectors or SCSI grown defects judged fail */
#define PS_SMART_MAX_HITS     24

/* One rule that fired: "smart.<rule>" in the report, with the figure that decided. */
struct ps_smart_hit {
	enum ps_smart_sev severity;
	const char *rule;
	double value, limit; /* NAN when not a figure */
	const char *unit;
	char msg[320];
};

/* smartctl's exit status bits (smartctl(8), EXIT STATUS). */
enum {
	PS_SMARTCTL_CMDLINE = 1 << 0,  /* the command line did not parse */
	PS_SMARTCTL_OPEN = 1 << 1,     /* open or IDENTIFY failed, or a low-power mode */
	PS_SMARTCTL_COMMAND = 1 << 2,  /* a SMART or other command failed, or a checksum */
	PS_SMARTCTL_FAILING = 1 << 3,  /* SMART status: DISK FAILING */
	PS_SMARTCTL_PREFAIL = 1 << 4,  /* pre-failure attributes at or below threshold */
	PS_SMARTCTL_PAST = 1 << 5,     /* attributes at or below threshold in the past */
	PS_SMARTCTL_ERRLOG = 1 << 6,   /* the device error log has entries */
	PS_SMARTCTL_SELFTEST = 1 << 7, /* the self-test log has errors */
};

/*
 * Every rule over one answer; fills up to max hits and returns how many.
 * Rules never fire on a figure the drive did not give (PS_UNKNOWN), and ATA
 * attributes count only under the names smartctl's drive database gives
 * them for that meaning (a 197 named Bogus_Current_Pend_Sect is not judged).
 */
size_t ps_smart_judge(const struct ps_smart *s, struct ps_smart_hit *h, size_t max);

/*
 * The drive answered with health data: smartctl opened and identified it
 * (exit bits 0-1 clear), spoke a protocol, SMART is not reported unavailable
 * or disabled, and some health figure came back (a health status,
 * attributes, the NVMe health log or a SCSI log).
 */
bool ps_smart_answered(const struct ps_smart *s);

/*
 * The drive's own overall health status was read: ATA and SCSI smart_status,
 * NVMe the health log's critical warning. False: the verdict rests on the
 * attributes alone and says "no health status".
 */
bool ps_smart_has_health_status(const struct ps_smart *s);

/*
 * smartctl opened the device and knew its type (neither "Smartctl open
 * device: ... failed" nor "Unable to detect device type"): behind USB, then,
 * the bridge was reached.
 */
bool ps_smart_opened(const struct ps_smart *s);

/*
 * Why an answer holds no health data, when the drive itself says so: SMART
 * unavailable or disabled on an identified drive. NULL when the drive was
 * not reached (no identity): behind USB, then, the bridge is the cause.
 */
const char *ps_smart_drive_says_no(const struct ps_smart *s);

#endif
