/*
 * inspector_extra.c - probestick's findings and verdicts as the extra data
 * of an introspection: under probestick{} in what inspector stores, where
 * a rule's condition reaches them (data://probestick.worst.drive.status)
 * and its actions quote them ({data[probestick][worst][drive][reason]}).
 */
#include "collect/inspector_data.h"
#include "lib/json.h"
#include "version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kinds[] = {"drive", "nic", "link", "dimm", "machine"};
/* fail above warn above untested (nothing measured is no pass) above pass */
static const char *const order[] = {"pass", "untested", "warn", "fail"};

static int rank(const char *status)
{
	for (int i = 3; i >= 0; i--)
		if (status && strcmp(status, order[i]) == 0)
			return i;
	return -1;
}

/* The device as a person finds it: "QEMU HARDDISK, serial PS1", "MAC 52:54:00:..". */
static void described(const struct ps_inventory *inv, const struct ps_doc_verdict *v, char *buf,
		      size_t len)
{
	const char *kind = v->kind ? v->kind : "", *name = v->subject ? v->subject : "";
	const struct ps_drive *d =
	    strcmp(kind, "drive") == 0 ? ps_inventory_drive(inv, name) : NULL;
	const struct ps_nic *n = strcmp(kind, "nic") == 0 ? ps_inventory_nic(inv, name) : NULL;
	const struct ps_machine *m = &inv->machine;

	buf[0] = '\0';
	if (d)
		snprintf(buf, len, "%s, serial %s", d->model[0] ? d->model : "model unknown",
			 d->serial[0] ? d->serial : "unknown");
	else if (n)
		snprintf(buf, len, "MAC %s%s%s", n->perm_mac[0] ? n->perm_mac : n->mac,
			 n->pci_address[0] ? ", slot " : "", n->pci_address);
	else if (strcmp(kind, "machine") == 0)
		snprintf(buf, len, "%s %s, serial %s", m->vendor[0] ? m->vendor : "vendor unknown",
			 m->product, m->serial[0] ? m->serial : "unknown");
}

static void reason(const struct ps_inventory *inv, const struct ps_doc_verdict *v, char *buf,
		   size_t len)
{
	char who[300], status[12], figure[120] = "";
	size_t i;

	described(inv, v, who, sizeof(who));
	snprintf(status, sizeof(status), "%s", v->status);
	for (i = 0; status[i]; i++)
		status[i] =
		    (char)(status[i] >= 'a' && status[i] <= 'z' ? status[i] - 32 : status[i]);
	if (!isnan(v->value))
		snprintf(figure, sizeof(figure), " = %g%s%s", v->value, v->unit ? " " : "",
			 v->unit ? v->unit : "");
	if (!isnan(v->value) && !isnan(v->limit))
		snprintf(figure + strlen(figure), sizeof(figure) - strlen(figure), " (limit %g)",
			 v->limit);
	snprintf(buf, len, "probestick: %s %s%s%s%s %s: %s%s: %s", v->kind ? v->kind : "device",
		 v->subject ? v->subject : "-", who[0] ? " (" : "", who, who[0] ? ")" : "", status,
		 v->rule ? v->rule : "-", figure, v->message ? v->message : "");
}

/* What a verdict and a finding share: the device, the rule, the figure, the words. */
static void about(json_object *o, const char *kind, const char *device, const char *subject,
		  const char *rule, double value, double limit, const char *unit,
		  const char *message)
{
	ps_json_set_str(o, "kind", kind);
	ps_json_set_str(o, "device", device);
	ps_json_set_str(o, "subject", subject);
	ps_json_set_str(o, "rule", rule);
	ps_json_set_num(o, "value", value, 3);
	ps_json_set_num(o, "limit", limit, 3);
	ps_json_set_str(o, "unit", unit);
	ps_json_set_str(o, "message", message);
}

static json_object *verdict_json(const struct ps_inventory *inv, const struct ps_doc_verdict *v,
				 bool with_reason)
{
	json_object *o = json_object_new_object();
	char text[1400];

	ps_json_set_str(o, "status", v->status);
	ps_json_set_str(o, "step", v->step);
	about(o, v->kind, v->device, v->subject, v->rule, v->value, v->limit, v->unit, v->message);
	if (with_reason) {
		described(inv, v, text, sizeof(text));
		ps_json_set_str(o, "described", text);
		reason(inv, v, text, sizeof(text));
		ps_json_set_str(o, "reason", text);
	}
	return o;
}

static json_object *findings(const struct ps_doc *doc)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];

		for (size_t k = 0; k < s->nfindings; k++) {
			const struct ps_doc_finding *f = &s->findings[k];
			json_object *o;

			if (strcmp(f->severity, "fail") && strcmp(f->severity, "warn"))
				continue;
			o = json_object_new_object();
			ps_json_set_str(o, "step", s->step);
			ps_json_set_str(o, "severity", f->severity);
			about(o, f->kind, f->device, f->subject, f->rule, f->value, f->limit,
			      f->unit, f->message);
			json_object_array_add(a, o);
		}
	}
	return a;
}

json_object *ps_inspector_extra(const struct ps_doc *doc, const struct ps_inventory *inv,
				const struct ps_inspector_run *run)
{
	json_object *o = json_object_new_object(), *worst = json_object_new_object();
	json_object *all = json_object_new_array(), *counts = json_object_new_object();
	json_object *steps = json_object_new_array();
	unsigned int n[4] = {0};
	int top = -1;

	ps_json_set_str(o, "version", PS_VERSION);
	ps_json_set_str(o, "machine_id", doc->machine_id);
	ps_json_set_str(o, "plan", doc->plan);
	ps_json_set(o, "complete", json_object_new_boolean(doc->complete));
	ps_json_set_str(o, "run", run ? run->path : NULL);
	ps_json_set_str(o, "report_url", run ? run->report_url : NULL);
	for (size_t i = 0; i < doc->nverdicts; i++) {
		const struct ps_doc_verdict *v = &doc->verdicts[i];
		int r = rank(v->status);

		if (r < 0)
			continue;
		n[r]++;
		top = r > top ? r : top;
		json_object_array_add(all, verdict_json(inv, v, false));
	}
	/* per kind, its worst device: what a rule's condition names */
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const struct ps_doc_verdict *w = NULL;

		for (size_t i = 0; i < doc->nverdicts; i++) {
			const struct ps_doc_verdict *v = &doc->verdicts[i];

			if (v->kind && strcmp(v->kind, kinds[k]) == 0 &&
			    (!w || rank(v->status) > rank(w->status)))
				w = v;
		}
		ps_json_set(worst, kinds[k], w ? verdict_json(inv, w, true) : NULL);
	}
	ps_json_set_str(o, "verdict", top >= 0 ? order[top] : NULL);
	ps_json_set_count(counts, "fail", n[3]);
	ps_json_set_count(counts, "warn", n[2]);
	ps_json_set_count(counts, "untested", n[1]);
	ps_json_set_count(counts, "pass", n[0]);
	ps_json_set(o, "counts", counts);
	ps_json_set(o, "worst", worst);
	ps_json_set(o, "verdicts", all);
	ps_json_set(o, "findings", findings(doc));
	for (size_t i = 0; i < doc->nsections; i++) {
		const struct ps_doc_section *s = &doc->sections[i];
		json_object *st;

		if (s->kind == PS_SEC_RECORDER)
			continue;
		st = json_object_new_object();
		ps_json_set_str(st, "name", s->step);
		ps_json_set_str(st, "status", s->status);
		ps_json_set_str(st, "reason", s->reason);
		json_object_array_add(steps, st);
	}
	ps_json_set(o, "steps", steps);
	return o;
}
