/*
 * aer.c - PCIe Advanced Error Reporting during a step: every device's AER
 * counters (sysfs aer_dev_correctable, _nonfatal, _fatal, and the root
 * ports' aer_rootport_total_err_*) at the step's start and end, and the
 * individual events the aer probe saw (the ras:aer_event tracepoint).
 */
#include "record/platform.h"
#include "record/recorder.h"
#include "record/kcapture.h"
#include "lib/util.h"
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "lib/json.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SEV_COR = 0, SEV_NONFATAL = 1, SEV_FATAL = 2 };
static const char *const sev_files[3] = {"aer_dev_correctable", "aer_dev_nonfatal",
					 "aer_dev_fatal"};
static const char *const sev_totals[3] = {"TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL"};
static const char *const rootport_files[3] = {"aer_rootport_total_err_cor",
					      "aer_rootport_total_err_nonfatal",
					      "aer_rootport_total_err_fatal"};
static const char *const sev_keys[3] = {"correctable", "nonfatal", "fatal"};

/* The kernel's counter names are identifiers ("RxErr", "TOTAL_ERR_COR"); other bytes are no
 * counter. */
static bool counter_name(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			return false;
	return true;
}

int ps_aer_parse(const char *text, int severity, struct ps_aer_counts *c)
{
	const char *p = text;

	if (severity < 0 || severity > 2)
		return -EINVAL;
	c->n[severity] = 0;
	c->total[severity] = -1;
	while (p && *p) {
		char name[24], *end = NULL;
		unsigned long long v = 0;
		int at = 0, used;

		/* The kernel prints counters unsigned: a sign or a value past 2^63 is no
		 * counter (found by fuzz_aer: "TOTAL_ERR_COR -9" made the total -9, below
		 * the -1 that means unknown). */
		if (sscanf(p, "%23s %n", name, &at) == 1 && at > 0 &&
		    isdigit((unsigned char)p[at])) {
			errno = 0;
			v = strtoull(p + at, &end, 10);
		}
		if (!end || errno || v > INT64_MAX || !counter_name(name)) {
			p = strchr(p, '\n');
			p = p ? p + 1 : NULL;
			continue;
		}
		used = (int)(end - p);
		if (strcmp(name, sev_totals[severity]) == 0)
			c->total[severity] = (int64_t)v;
		else if (c->n[severity] < PS_AER_NAMES) {
			int k = c->n[severity]++;

			snprintf(c->name[severity][k], sizeof(c->name[severity][k]), "%s", name);
			c->count[severity][k] = v;
		}
		p += used;
		while (*p == '\n' || *p == ' ')
			p++;
	}
	return c->n[severity] || c->total[severity] >= 0 ? 0 : -EINVAL;
}

/* The kernel's names for the status bits (drivers/pci/pcie/aer.c). */
static const char *const cor_bits[32] = {
    [0] = "RxErr",    [6] = "BadTLP",	    [7] = "BadDLLP",	 [8] = "Rollover",
    [12] = "Timeout", [13] = "NonFatalErr", [14] = "CorrIntErr", [15] = "HeaderOF",
};
static const char *const uncor_bits[32] = {
    [0] = "Undefined",	    [4] = "DLP",
    [5] = "SDES",	    [12] = "TLP",
    [13] = "FCP",	    [14] = "CmpltTO",
    [15] = "CmpltAbrt",	    [16] = "UnxCmplt",
    [17] = "RxOF",	    [18] = "MalfTLP",
    [19] = "ECRC",	    [20] = "UnsupReq",
    [21] = "ACSViol",	    [22] = "UncorrIntErr",
    [23] = "BlockedTLP",    [24] = "AtomicOpBlocked",
    [25] = "TLPBlockedErr", [26] = "PoisonTLPBlocked",
};

const char *ps_aer_status_names(unsigned int severity, uint32_t status, char *out, size_t len)
{
	/* the tracepoint's severity: 0 non-fatal, 1 fatal, 2 corrected */
	const char *const *names = severity == 2 ? cor_bits : uncor_bits;
	size_t used = 0;

	out[0] = '\0';
	for (int b = 0; b < 32; b++) {
		char unnamed[16];
		const char *n;
		int w;

		if (!(status & (1U << b)))
			continue;
		n = names[b];
		if (!n) {
			snprintf(unnamed, sizeof(unnamed), "bit%d", b);
			n = unnamed;
		}
		w = snprintf(out + used, len - used, "%s%s", used ? ", " : "", n);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	return out;
}

/* ---- reading ---- */

struct ps_aer {
	char root[PATH_MAX];
	struct ps_aer_counts *start;
	size_t n;
	int err;
};

static int read_all_counts(const char *root, struct ps_aer_counts **out, size_t *n)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct ps_dirlist list;
	size_t k = 0;
	int r;

	*out = NULL;
	*n = 0;
	r = ps_dir_list(ps_path(dir, sizeof(dir), root, "/sys/bus/pci/devices"), &list);
	if (r < 0)
		return r;
	*out = calloc(list.n ? list.n : 1, sizeof(**out));
	if (!*out) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list.n; i++) {
		struct ps_aer_counts *c = &(*out)[k];
		bool any = false;

		if (!ps_is_pci_address(list.names[i], strlen(list.names[i])))
			continue;
		memset(c, 0, sizeof(*c));
		ps_copy_str(c->address, sizeof(c->address), list.names[i]);
		for (int sv = 0; sv < 3; sv++) {
			char *text;
			size_t len;
			uint64_t v;

			c->total[sv] = c->rootport[sv] = -1;
			if (ps_read_all(ps_path(path, sizeof(path), "", "%s/%s/%s", dir,
						list.names[i], sev_files[sv]),
					&text, &len) == 0) {
				char *z = realloc(text, len + 1);

				if (z) {
					z[len] = '\0';
					any |= ps_aer_parse(z, sv, c) == 0;
					text = z;
				}
				free(text);
			}
			if (ps_read_u64(ps_path(path, sizeof(path), "", "%s/%s/%s", dir,
						list.names[i], rootport_files[sv]),
					&v) == 0)
				c->rootport[sv] = (int64_t)v;
		}
		if (any)
			k++;
	}
	ps_dir_free(&list);
	*n = k;
	return 0;
}

struct ps_aer *ps_aer_start(const char *root)
{
	struct ps_aer *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	ps_copy_str(a->root, sizeof(a->root), root ? root : "");
	a->err = read_all_counts(a->root, &a->start, &a->n);
	return a;
}

json_object *ps_aer_stop(struct ps_aer *a, const struct ps_kc_records *recs,
			 const struct ps_inventory *inv)
{
	struct ps_aer_counts *end = NULL;
	const struct probestick_kc_record *ev;
	const char *reason = "";
	unsigned int nev = 0;
	bool captured = false;
	size_t n = 0;
	json_object *o;

	ev = ps_kc_records_get(recs, "aer", PROBESTICK_KC_M_AER, &nev, &captured, &reason);
	if (!a)
		return ps_aer_compare(NULL, 0, NULL, 0, ev, nev, captured, reason, inv);
	if (!a->err)
		a->err = read_all_counts(a->root, &end, &n);
	o = ps_aer_compare(a->start, a->err ? 0 : a->n, end, n, ev, nev, captured, reason, inv);
	free(end);
	free(a->start);
	free(a);
	return o;
}

/* ---- start and end into the "aer" object ---- */

static const struct ps_aer_counts *find(const struct ps_aer_counts *v, size_t n, const char *addr)
{
	for (size_t i = 0; v && i < n; i++)
		if (strcmp(v[i].address, addr) == 0)
			return &v[i];
	return NULL;
}

static uint64_t count_of(const struct ps_aer_counts *c, int sv, const char *name)
{
	for (int k = 0; c && k < c->n[sv]; k++)
		if (strcmp(c->name[sv][k], name) == 0)
			return c->count[sv][k];
	return 0;
}

/* Counters never go down; a device reset that zeroed them counts from zero. */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : b;
}

static const char *sev_of_event(unsigned int dir)
{
	return dir == 2 ? "correctable" : dir == 1 ? "fatal" : "nonfatal";
}

/* An event's device name, NUL-terminated. */
static void event_name(const struct probestick_kc_record *ev, char *name)
{
	memcpy(name, ev->name, sizeof(ev->name));
	name[sizeof(ev->name)] = '\0';
}

/* The events the probe saw, per device, severity and status register. */
static json_object *events_json(const struct probestick_kc_record *ev, unsigned int nev,
				const struct ps_inventory *inv)
{
	json_object *events = json_object_new_array();

	for (unsigned int i = 0; i < nev; i++) {
		json_object *e = json_object_new_object();
		char name[sizeof(ev[i].name) + 1], bits[200], hex[16];

		event_name(&ev[i], name);
		ps_json_set_str(e, "address", name);
		ps_json_set_str(e, "device", ps_rec_pci_ref(inv, name).id);
		ps_json_set_str(e, "severity", sev_of_event(ev[i].dir));
		snprintf(hex, sizeof(hex), "%08x", (uint32_t)ev[i].sum);
		ps_json_set_str(e, "status", hex);
		ps_json_set_str(
		    e, "errors",
		    ps_aer_status_names(ev[i].dir, (uint32_t)ev[i].sum, bits, sizeof(bits)));
		ps_json_set(e, "count", json_object_new_int64((int64_t)ev[i].extra[0]));
		ps_json_set(e, "tlp_header", json_object_new_boolean(ev[i].max != 0));
		json_object_array_add(events, e);
	}
	return events;
}

/*
 * One severity's errors of a device during the step (end e, start s): each
 * counter's growth into names and list ("BadTLP 2, ..."); the total.
 */
static uint64_t severity_delta(const struct ps_aer_counts *e, const struct ps_aer_counts *s, int sv,
			       json_object *names, char *list, size_t len)
{
	uint64_t total = 0;
	size_t used = 0;

	list[0] = '\0';
	for (int k = 0; k < e->n[sv]; k++) {
		uint64_t v = delta(count_of(s, sv, e->name[sv][k]), e->count[sv][k]);
		int w;

		if (!v)
			continue;
		total += v;
		json_object_object_add(names, e->name[sv][k], json_object_new_int64((int64_t)v));
		w = snprintf(list + used, len - used, "%s%s %llu", used ? ", " : "", e->name[sv][k],
			     (unsigned long long)v);
		if (w > 0 && (size_t)w < len - used)
			used += (size_t)w;
	}
	if (!total && e->total[sv] > 0 && s)
		total =
		    delta((uint64_t)(s->total[sv] > 0 ? s->total[sv] : 0), (uint64_t)e->total[sv]);
	return total;
}

/* The probe's decoded status of the same device and severity, when it saw the events. */
static void probe_bits(const struct probestick_kc_record *ev, unsigned int nev, const char *address,
		       int sv, char *bits, size_t len)
{
	bits[0] = '\0';
	for (unsigned int k = 0; k < nev; k++) {
		char name[sizeof(ev[k].name) + 1];

		event_name(&ev[k], name);
		if (strcmp(name, address) == 0 &&
		    strcmp(sev_of_event(ev[k].dir), sev_keys[sv]) == 0)
			ps_aer_status_names(ev[k].dir, (uint32_t)ev[k].sum, bits, len);
	}
}

/* One severity's finding: corrected errors warn, uncorrected ones fail. */
static void severity_finding(json_object *findings, const struct ps_dev_ref *dev, int sv,
			     uint64_t total, const char *what)
{
	if (sv == SEV_COR)
		ps_rec_find(findings, "warn", "correctable", dev, (double)total, 0, "errors",
			    "%llu corrected PCIe error%s during the step (%s): the link "
			    "recovered, but it is marginal: reseat the card, try another slot or "
			    "riser",
			    (unsigned long long)total, total == 1 ? "" : "s", what);
	else
		ps_rec_find(findings, "fail", sv == SEV_FATAL ? "fatal" : "nonfatal", dev,
			    (double)total, 0, "errors",
			    "%llu uncorrected %s PCIe error%s during the step (%s): data or a "
			    "transaction was lost; the kernel ran its recovery",
			    (unsigned long long)total, sv == SEV_FATAL ? "fatal" : "non-fatal",
			    total == 1 ? "" : "s", what);
}

/* A device's errors during the step with their findings; NULL when it had none. */
static json_object *device_delta(const struct ps_aer_counts *e, const struct ps_aer_counts *s,
				 const struct probestick_kc_record *ev, unsigned int nev,
				 const struct ps_inventory *inv, json_object *findings)
{
	struct ps_dev_ref dev = ps_rec_pci_ref(inv, e->address);
	json_object *d = NULL;

	for (int sv = 0; sv < 3; sv++) {
		json_object *names = json_object_new_object();
		char list[300], bits[200];
		uint64_t total = severity_delta(e, s, sv, names, list, sizeof(list));

		if (!total) {
			json_object_put(names);
			continue;
		}
		if (!d) {
			d = json_object_new_object();
			ps_json_set_str(d, "address", e->address);
			ps_json_set_str(d, "device", dev.id);
			ps_json_set(d, "counters", json_object_new_object());
		}
		ps_json_set(d, sev_keys[sv], json_object_new_int64((int64_t)total));
		ps_json_set(ps_json_get(d, "counters"), sev_keys[sv], names);
		probe_bits(ev, nev, e->address, sv, bits, sizeof(bits));
		severity_finding(findings, &dev, sv, total,
				 list[0]   ? list
				 : bits[0] ? bits
					   : "counted in total");
	}
	for (int sv = 0; d && sv < 3; sv++)
		if (e->rootport[sv] >= 0 && s && s->rootport[sv] >= 0)
			ps_json_set_count(
			    d, rootport_files[sv] + strlen("aer_"),
			    (int64_t)delta((uint64_t)s->rootport[sv], (uint64_t)e->rootport[sv]));
	return d;
}

/* Without counters (an older kernel) the probe's events are the findings. */
static void event_findings(const struct probestick_kc_record *ev, unsigned int nev,
			   const struct ps_inventory *inv, json_object *findings)
{
	for (unsigned int i = 0; i < nev; i++) {
		char name[sizeof(ev[i].name) + 1], bits[200];
		struct ps_dev_ref dev;
		bool cor = ev[i].dir == 2;

		event_name(&ev[i], name);
		dev = ps_rec_pci_ref(inv, name);
		ps_rec_find(findings, cor ? "warn" : "fail",
			    cor		     ? "correctable"
			    : ev[i].dir == 1 ? "fatal"
					     : "nonfatal",
			    &dev, (double)ev[i].extra[0], 0, "errors",
			    "%s PCIe error (%s) during the step, %llu time%s",
			    cor ? "a corrected" : "an uncorrected",
			    ps_aer_status_names(ev[i].dir, (uint32_t)ev[i].sum, bits, sizeof(bits)),
			    (unsigned long long)ev[i].extra[0], ev[i].extra[0] == 1 ? "" : "s");
	}
}

json_object *ps_aer_compare(const struct ps_aer_counts *a, size_t na, const struct ps_aer_counts *b,
			    size_t nb, const struct probestick_kc_record *ev, unsigned int nev,
			    bool captured, const char *probe_reason, const struct ps_inventory *inv)
{
	json_object *o = json_object_new_object(), *devs = json_object_new_array(),
		    *findings = json_object_new_array();
	bool any_sysfs = na > 0;

	ps_json_set(o, "available", json_object_new_boolean(any_sysfs || captured));
	if (!any_sysfs && !captured)
		ps_json_set_str(o, "reason",
				"no device has AER counters (no AER capability, or the kernel's "
				"AER driver does not own them) and the aer probe did not run");
	ps_json_set(o, "watched", json_object_new_int((int)na));
	ps_json_set(o, "probe", json_object_new_boolean(captured));
	if (!captured)
		ps_json_set_str(o, "probe_reason",
				probe_reason && probe_reason[0] ? probe_reason
								: "probestick.ko not loaded");
	for (size_t i = 0; i < nb; i++) {
		json_object *d =
		    device_delta(&b[i], find(a, na, b[i].address), ev, nev, inv, findings);

		if (d)
			json_object_array_add(devs, d);
	}
	if (!any_sysfs)
		event_findings(ev, nev, inv, findings);
	ps_json_set(o, "devices", devs);
	ps_json_set(o, "events", events_json(ev, nev, inv));
	ps_json_set(o, "findings", findings);
	return o;
}

/* ---- view ---- */

static const struct ps_col summary_cols[] = {
    {.path = "/watched", .title = "devices with AER counters"},
    {.path = "/probe", .title = "aer_event probe", .fmt = PS_FMT_BOOL},
    {.path = "/reason", .title = "not watched", .flags = PS_COL_WIDE},
};

static const struct ps_col dev_cols[] = {
    {.path = "/address", .title = "function", .flags = PS_COL_KEY},
    {.path = "/device", .title = "id", .flags = PS_COL_DEVICE | PS_COL_KEY},
    {.path = "/correctable", .title = "corrected", .better = PS_BETTER_LOWER},
    {.path = "/nonfatal", .title = "non-fatal", .better = PS_BETTER_LOWER},
    {.path = "/fatal", .title = "fatal", .better = PS_BETTER_LOWER},
};

static const struct ps_col event_cols[] = {
    {.path = "/address", .title = "function", .flags = PS_COL_KEY},
    {.path = "/severity", .title = "severity", .flags = PS_COL_KEY},
    {.path = "/status", .title = "status", .flags = PS_COL_KEY},
    {.path = "/count", .title = "times", .better = PS_BETTER_LOWER},
    {.path = "/errors", .title = "errors", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV, .id = "summary", .rows = "", .cols = PS_COLS(summary_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "devices",
     .title = "PCIe errors of the step (AER counters)",
     .rows = "/devices",
     .cols = PS_COLS(dev_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "events",
     .title = "AER events (aer_event tracepoint)",
     .rows = "/events",
     .cols = PS_COLS(event_cols)},
};

const struct ps_view ps_aer_view = {
    .name = "aer",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};

/* ---- registered: AER counters and events around every step ---- */

static void *aer_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_aer_start(rc->root);
}

static json_object *aer_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_aer_stop(state, rc->records, rc->inv);
}

static const struct ps_rec_rule aer_owns[] = {{"aer", "/available"}, {NULL, NULL}};

static const struct ps_recorder_ops aer_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "aer",
    .order = 20,
    .show = 60,
    .view = &ps_aer_view,
    .owns = aer_owns,
    .start = aer_start,
    .stop = aer_stop,
};
PS_RECORDER_REGISTER(aer_recorder);
