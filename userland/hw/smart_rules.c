/*
 * smart_rules.c - the drive-health rules (docs/rules.md, "Drive health"):
 * pure functions over struct ps_smart. Each threshold names its source
 * there: smartmontools' own assessment and exit bits, the NVMe base
 * specification's health log, field studies (Google 2007, Backblaze's
 * SMART statistics) for the ATA counters.
 */
#include "hw/smart_rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct hits {
	struct ps_smart_hit *h;
	size_t n, max;
};

__attribute__((format(printf, 7, 8))) static void hit(struct hits *hs, enum ps_smart_sev sev,
						      const char *rule, double value, double limit,
						      const char *unit, const char *fmt, ...)
{
	struct ps_smart_hit *x;
	va_list ap;

	if (hs->n >= hs->max)
		return;
	x = &hs->h[hs->n++];
	*x = (struct ps_smart_hit){
	    .severity = sev, .rule = rule, .value = value, .limit = limit, .unit = unit};
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
}

static bool has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/*
 * The attribute with this id when its name (smartctl's drive database) keeps
 * the meaning the rule reads: a vendor that reuses an id gets another name
 * ("Bogus_Current_Pend_Sect", "Not_In_Use", "Unknown_Attribute").
 */
static const struct ps_smart_attr *attr_meaning(const struct ps_smart *s, int id, const char *part)
{
	const struct ps_smart_attr *a = ps_smart_attr(s, id);

	if (!a || a->count < 0 || strncmp(a->name, "Unknown", 7) == 0 ||
	    strncmp(a->name, "Bogus", 5) == 0 || (part && !has(a->name, part)))
		return NULL;
	return a;
}

static bool exit_bit(const struct ps_smart *s, int bit)
{
	return s->exit_status >= 0 && (s->exit_status & bit);
}

/* The newest failed self-test not outdated by a later successful extended one, or NULL. */
static const struct ps_smart_selftest *failed_selftest(const struct ps_smart *s)
{
	for (size_t i = 0; i < s->n_tests; i++) {
		const struct ps_smart_selftest *t = &s->tests[i];
		int code = t->status_value >= 0 ? t->status_value >> 4 : -1;

		if (code == 0 && strncmp(t->type, "Extended", 8) == 0)
			return NULL; /* a later full surface read passed */
		if ((code >= 3 && code <= 8) || (code < 0 && t->passed == 0))
			return t;
	}
	return NULL;
}

/* The counters judged on any count above zero: id, the meaning its name keeps, the rule. */
static const struct count_rule {
	int id;
	const char *meaning; /* a part of the name smartctl's database gives that meaning */
	enum ps_smart_sev severity;
	const char *rule, *unit, *what;
} count_rules[] = {
    {.id = 197,
     .meaning = "Pend",
     .severity = PS_SMART_FAIL,
     .rule = "pending",
     .unit = "sectors",
     .what = "sectors pending reallocation (attribute 197): they cannot be read now"},
    {.id = 198,
     .meaning = "ncor",
     .severity = PS_SMART_FAIL,
     .rule = "offline_uncorrectable",
     .unit = "sectors",
     .what = "offline-uncorrectable sectors (attribute 198): unreadable in the drive's own scan"},
    {.id = 187,
     .meaning = "ncorrect",
     .severity = PS_SMART_WARN,
     .rule = "reported_uncorrect",
     .unit = "errors",
     .what = "reads the drive could not correct (attribute 187): data was lost; back it up "
	     "and watch whether the count grows"},
    {.id = 199,
     .meaning = "CRC",
     .severity = PS_SMART_WARN,
     .rule = "crc_errors",
     .unit = "errors",
     .what = "interface CRC errors (attribute 199): the cable, the port or the backplane, not "
	     "the media; reseat or replace the cable"},
};

static void judge_ata(const struct ps_smart *s, struct hits *hs)
{
	const struct ps_smart_attr *re = attr_meaning(s, 5, NULL);
	const struct ps_smart_selftest *st = failed_selftest(s);

	if (re && re->count > 0) {
		bool saturated = re->value >= 0 && re->thresh > 0 && re->value <= re->thresh;

		if (re->count >= PS_SMART_REALLOC_FAIL || saturated)
			hit(hs, PS_SMART_FAIL, "reallocated", (double)re->count,
			    PS_SMART_REALLOC_FAIL, "sectors",
			    "%lld reallocated sectors%s: the drive is running out of spare "
			    "sectors; copy its data off and replace it",
			    (long long)re->count,
			    saturated ? " (the normalized value is at its threshold: saturated)"
				      : "");
		else
			hit(hs, PS_SMART_WARN, "reallocated", (double)re->count, 0, "sectors",
			    "%lld reallocated sectors: the drive has remapped bad sectors; watch "
			    "whether the count grows",
			    (long long)re->count);
	}
	for (size_t i = 0; i < sizeof(count_rules) / sizeof(count_rules[0]); i++) {
		const struct count_rule *c = &count_rules[i];
		const struct ps_smart_attr *a = attr_meaning(s, c->id, c->meaning);

		if (a && a->count > 0)
			hit(hs, c->severity, c->rule, (double)a->count, 0, c->unit, "%lld %s",
			    (long long)a->count, c->what);
	}
	for (size_t i = 0; i < s->n_attrs; i++) {
		const struct ps_smart_attr *a = &s->attrs[i];

		if (strcmp(a->when_failed, "now") == 0)
			hit(hs, a->prefailure ? PS_SMART_FAIL : PS_SMART_WARN, "attribute_failing",
			    a->value, a->thresh, NULL,
			    "attribute %d %s is at or below its threshold now (normalized %d, "
			    "threshold %d)%s",
			    a->id, a->name, a->value, a->thresh,
			    a->prefailure ? ": a pre-failure attribute, the drive predicts its "
					    "own failure; replace it"
					  : ": a usage attribute (wear, temperature), not a "
					    "failure prediction");
		else if (strcmp(a->when_failed, "past") == 0)
			hit(hs, PS_SMART_INFO, "attribute_failed_past", a->worst, a->thresh, NULL,
			    "attribute %d %s was at or below its threshold %d in the past (worst "
			    "%d)",
			    a->id, a->name, a->thresh, a->worst);
	}
	if (st)
		hit(hs, PS_SMART_FAIL, "self_test_log",
		    st->lba_first_error >= 0 ? (double)st->lba_first_error : NAN, NAN,
		    st->lba_first_error >= 0 ? "LBA" : NULL,
		    "the drive's self-test log: %s \"%s\"%s at %lld power-on hours, not "
		    "outdated by a later extended test that passed",
		    st->type[0] ? st->type : "a self-test", st->status,
		    st->lba_first_error >= 0 ? " (first error at the LBA given)" : "",
		    (long long)st->hours);
	else if (exit_bit(s, PS_SMARTCTL_SELFTEST))
		hit(hs, PS_SMART_FAIL, "self_test_log", NAN, NAN, NULL,
		    "smartctl's exit status says the self-test log has errors (bit 7)");
	if (s->ata_error_count > 0 || exit_bit(s, PS_SMARTCTL_ERRLOG))
		hit(hs, PS_SMART_INFO, "error_log",
		    s->ata_error_count > 0 ? (double)s->ata_error_count : NAN, NAN,
		    s->ata_error_count > 0 ? "errors" : NULL,
		    "the drive's error log holds %lld errors: reported, not judged (interface "
		    "and media errors are judged by their own counters)",
		    (long long)(s->ata_error_count > 0 ? s->ata_error_count : 0));
}

static void judge_nvme(const struct ps_smart *s, struct hits *hs)
{
	if (s->nvme_critical_warning > 0) {
		char bits[256];
		/* bit 1 alone: a temperature outside its thresholds now, the cooling's problem */
		bool temp_only = s->nvme_critical_warning == 0x02;

		ps_nvme_critical_text(s->nvme_critical_warning, bits, sizeof(bits));
		hit(hs, temp_only ? PS_SMART_WARN : PS_SMART_FAIL, "nvme_critical_warning",
		    s->nvme_critical_warning, 0, NULL, "critical warning 0x%02x: %s%s",
		    s->nvme_critical_warning, bits, temp_only ? "; check the drive's cooling" : "");
	}
	if (s->nvme_spare >= 0 && s->nvme_spare_threshold >= 0 &&
	    s->nvme_spare < s->nvme_spare_threshold)
		hit(hs, PS_SMART_FAIL, "nvme_spare", s->nvme_spare, s->nvme_spare_threshold, "%",
		    "available spare %d%% is below the drive's threshold of %d%%", s->nvme_spare,
		    s->nvme_spare_threshold);
	if (s->nvme_percentage_used >= 100)
		hit(hs, PS_SMART_WARN, "nvme_worn_out", s->nvme_percentage_used, 100, "%",
		    "percentage used %d%%: the drive has used up its rated endurance (the "
		    "specification: not by itself a failure); plan its replacement",
		    s->nvme_percentage_used);
	if (s->nvme_media_errors > 0)
		hit(hs, PS_SMART_WARN, "nvme_media_errors", (double)s->nvme_media_errors, 0,
		    "errors",
		    "%lld media and data integrity errors: the drive could not recover data "
		    "that many times; back it up and watch whether the count grows",
		    (long long)s->nvme_media_errors);
	if (s->nvme_error_log_entries > 0)
		hit(hs, PS_SMART_INFO, "nvme_error_log", (double)s->nvme_error_log_entries, NAN,
		    "entries",
		    "%lld error-log entries: reported, not judged (most are commands the drive "
		    "refused, such as a tool's probe)",
		    (long long)s->nvme_error_log_entries);
}

static void judge_scsi(const struct ps_smart *s, struct hits *hs)
{
	int64_t unc[3] = {s->scsi_uncorrected_read, s->scsi_uncorrected_write,
			  s->scsi_uncorrected_verify};
	static const char *const what[3] = {"read", "write", "verify"};

	if (s->scsi_grown_defects >= PS_SMART_REALLOC_FAIL)
		hit(hs, PS_SMART_FAIL, "grown_defects", (double)s->scsi_grown_defects,
		    PS_SMART_REALLOC_FAIL, "sectors",
		    "%lld grown defects: the drive is remapping many sectors; copy its data off "
		    "and replace it",
		    (long long)s->scsi_grown_defects);
	else if (s->scsi_grown_defects > 0)
		hit(hs, PS_SMART_WARN, "grown_defects", (double)s->scsi_grown_defects, 0, "sectors",
		    "%lld grown defects: the drive has remapped bad sectors; watch whether the "
		    "list grows",
		    (long long)s->scsi_grown_defects);
	for (int i = 0; i < 3; i++)
		if (unc[i] > 0)
			hit(hs, PS_SMART_WARN, "uncorrected_errors", (double)unc[i], 0, "errors",
			    "%lld uncorrected %s errors in the error counter log",
			    (long long)unc[i], what[i]);
}

size_t ps_smart_judge(const struct ps_smart *s, struct ps_smart_hit *h, size_t max)
{
	struct hits hs = {h, 0, max};

	/* NVMe's overall status is its critical warning, judged bit by bit below. */
	if (s->proto != PS_SMART_PROTO_NVME && (s->passed == 0 || exit_bit(s, PS_SMARTCTL_FAILING)))
		hit(&hs, PS_SMART_FAIL, "overall_failed", NAN, NAN, NULL,
		    "the drive's own SMART health check says FAILED: replace it");
	if (s->proto == PS_SMART_PROTO_ATA)
		judge_ata(s, &hs);
	else if (s->proto == PS_SMART_PROTO_NVME)
		judge_nvme(s, &hs);
	else if (s->proto == PS_SMART_PROTO_SCSI)
		judge_scsi(s, &hs);
	if (exit_bit(s, PS_SMARTCTL_COMMAND))
		hit(&hs, PS_SMART_INFO, "command_failed", NAN, NAN, NULL,
		    "a SMART command failed (smartctl exit bit 2%s%s): what was read is judged",
		    s->n_messages ? ": " : "", s->n_messages ? ps_smart_message(s) : "");
	return hs.n;
}

bool ps_smart_has_health_status(const struct ps_smart *s)
{
	if (s->proto == PS_SMART_PROTO_NVME)
		return s->passed >= 0 || s->nvme_critical_warning >= 0;
	return s->passed >= 0 || exit_bit(s, PS_SMARTCTL_FAILING);
}

bool ps_smart_answered(const struct ps_smart *s)
{
	if (exit_bit(s, PS_SMARTCTL_CMDLINE | PS_SMARTCTL_OPEN) || s->proto == PS_SMART_PROTO_NONE)
		return false;
	if (s->smart_available == 0 || s->smart_enabled == 0)
		return false;
	return ps_smart_has_health_status(s) || s->has_attrs || s->has_nvme_log ||
	       s->scsi_grown_defects >= 0 || s->scsi_uncorrected_read >= 0;
}

bool ps_smart_opened(const struct ps_smart *s)
{
	for (size_t i = 0; i < s->n_messages; i++)
		if (strncmp(s->messages[i].text, "Smartctl open device", 20) == 0 ||
		    strstr(s->messages[i].text, "Unable to detect device type"))
			return false;
	return true;
}

const char *ps_smart_drive_says_no(const struct ps_smart *s)
{
	if (s->proto == PS_SMART_PROTO_NONE || !(s->model[0] || s->serial[0] || s->product[0]))
		return NULL;
	if (s->smart_available == 0)
		return "the drive answers but has no SMART (smartctl: SMART support is "
		       "unavailable)";
	if (s->smart_enabled == 0)
		return "SMART is disabled on the drive (smartctl -s on enables it)";
	return "the drive answers but gives no health data";
}
