/*
 * ocp.c - the report as OCP Test and Validation artifacts (output spec 2.0,
 * one JSON object per line): schemaVersion, testRunStart with the DUT and a
 * hardwareInfo per device of the inventory, per plan step its start, the
 * measurements of its views (findings with a value and a limit carry a
 * validator), measurement series for its charts (histograms, maps, load
 * over time), logs for findings, diagnoses for verdicts, errors, its end;
 * testRunEnd once the report is complete. tests/ocp/ocp-output.schema.json
 * checks every line.
 */
#include "report/ocp.h"
#include "report/doc.h"
#include "lib/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ELEMENTS 512 /* per measurement series: a long series is cut, its end says so */

struct hwinfo {
	const char *kind; /* "machine", "link", "drive", "nic", "dimm" */
	char id[200];
	char name[160];
};

struct out {
	FILE *f;
	unsigned int seq;
	struct hwinfo *hw;
	size_t nhw;
	json_object *report;
	const struct ps_view_set *views;
};

/* ---- time ---- */

static double parse_time(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (!s || !(end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return NAN;
	return (double)timegm(&tm);
}

static void fmt_time(double t, char *buf, size_t len)
{
	time_t sec;
	struct tm tm;
	size_t n;
	int ms;

	if (isnan(t))
		t = 0;
	sec = (time_t)t;
	ms = (int)((t - (double)sec) * 1000 + 0.5);
	if (ms >= 1000) {
		sec++;
		ms -= 1000;
	}
	gmtime_r(&sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n && n + 6 < len)
		snprintf(buf + n, len - n, ".%03dZ", ms % 1000);
}

/* ---- emitting ---- */

static json_object *jstr(const char *s)
{
	char *clean = ps_text_clean_dup(s ? s : "", strlen(s ? s : ""), NULL);
	json_object *o = json_object_new_string(clean ? clean : "");

	free(clean);
	return o;
}

/* A number in its shortest faithful text: 1964.6, not 1964.5999999999999. */
static json_object *jnum(double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.10g", v);
	return json_object_new_double_s(v, buf);
}

static void add_str(json_object *o, const char *key, const char *s)
{
	if (s && *s)
		json_object_object_add(o, key, jstr(s));
}

/* One output artifact: {"sequenceNumber", "timestamp", key: body}; body is consumed. */
static void emit(struct out *o, double when, const char *key, json_object *body)
{
	json_object *a = json_object_new_object();
	char ts[40];

	fmt_time(when, ts, sizeof(ts));
	json_object_object_add(a, "sequenceNumber", json_object_new_int64(o->seq++));
	json_object_object_add(a, "timestamp", json_object_new_string(ts));
	json_object_object_add(a, key, body);
	fputs(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE),
	      o->f);
	fputc('\n', o->f);
	json_object_put(a);
}

static void run_artifact(struct out *o, double when, const char *key, json_object *body)
{
	json_object *r = json_object_new_object();

	json_object_object_add(r, key, body);
	emit(o, when, "testRunArtifact", r);
}

static void step_artifact(struct out *o, double when, size_t step, const char *key,
			  json_object *body)
{
	json_object *s = json_object_new_object();
	char id[24];

	snprintf(id, sizeof(id), "%zu", step);
	json_object_object_add(s, "testStepId", json_object_new_string(id));
	json_object_object_add(s, key, body);
	emit(o, when, "testStepArtifact", s);
}

/* ---- the devices: a hardwareInfo per inventory entry ---- */

/* The stable id the inventory gave a device of this kind and name, or NULL: the inventory is
 * the first step, the one whose view reads the report's top level. */
static const char *inventory_device(const struct out *o, const char *kind, const char *name)
{
	json_object *inv = ps_json_at(ps_json_arr(o->report, "steps"), 0);
	const struct ps_view *v = ps_view_find(o->views, ps_json_str_or(inv, "name", ""));
	static const char *const lists[] = {"verdicts", "findings"};

	if (!name || !v || v->scope != PS_SCOPE_REPORT)
		return NULL;
	for (size_t l = 0; l < 2; l++) {
		json_object *a = ps_json_arr(inv, lists[l]);

		for (size_t i = 0; i < ps_json_len(a); i++) {
			json_object *v = ps_json_at(a, i);

			if (ps_json_str(v, "device") &&
			    strcmp(ps_json_str_or(v, "kind", ""), kind) == 0 &&
			    strcmp(ps_json_str_or(v, "subject", ""), name) == 0)
				return ps_json_str(v, "device");
		}
	}
	return NULL;
}

static json_object *hw_add(struct out *o, const char *kind, json_object *row, const char *name,
			   const char *label)
{
	struct hwinfo *h;
	const char *id = ps_json_str(row, "id");
	json_object *j = json_object_new_object();

	if (!id)
		id = inventory_device(o, kind, name);
	h = realloc(o->hw, (o->nhw + 1) * sizeof(*o->hw));
	if (!h)
		abort(); /* as json-c does: no partial export */
	o->hw = h;
	h = &o->hw[o->nhw++];
	h->kind = kind;
	snprintf(h->name, sizeof(h->name), "%s", name ? name : "?");
	if (id)
		snprintf(h->id, sizeof(h->id), "%s", id);
	else
		snprintf(h->id, sizeof(h->id), "%s:%s", kind, name ? name : "?");
	json_object_object_add(j, "hardwareInfoId", jstr(h->id));
	json_object_object_add(j, "name", jstr(label && *label ? label : h->name));
	return j;
}

static json_object *hardware_infos(struct out *o)
{
	json_object *a = json_object_new_array(), *r = o->report, *m = ps_json_get(r, "machine");
	json_object *list, *j;
	char label[320];

	snprintf(label, sizeof(label), "%s %s", ps_json_str_or(m, "vendor", ""),
		 ps_json_str_or(m, "product", ""));
	j = hw_add(o, "machine", m, ps_json_str_or(r, "machine_id", "unknown"),
		   strcmp(label, " ") ? label : NULL);
	add_str(j, "manufacturer", ps_json_str(m, "vendor"));
	add_str(j, "partNumber", ps_json_str(m, "product"));
	add_str(j, "serialNumber", ps_json_str(m, "serial"));
	add_str(j, "partType", "system");
	json_object_array_add(a, j);
	list = ps_json_arr(r, "pcie");
	for (size_t i = 0; i < ps_json_len(list); i++) {
		json_object *p = ps_json_at(list, i);
		const char *addr = ps_json_str(p, "address");

		snprintf(label, sizeof(label), "PCI %s %s:%s%s%s", addr ? addr : "?",
			 ps_json_str_or(p, "vendor_id", "?"), ps_json_str_or(p, "device_id", "?"),
			 ps_json_str(p, "driver") ? " " : "", ps_json_str_or(p, "driver", ""));
		j = hw_add(o, "link", p, addr, label);
		add_str(j, "location", addr);
		add_str(j, "partType", "pcie-function");
		json_object_array_add(a, j);
	}
	list = ps_json_arr(r, "drives");
	for (size_t i = 0; i < ps_json_len(list); i++) {
		json_object *d = ps_json_at(list, i);

		j = hw_add(o, "drive", d, ps_json_str(d, "name"), NULL);
		add_str(j, "location", ps_json_str(d, "path"));
		add_str(j, "serialNumber", ps_json_str(d, "serial"));
		add_str(j, "partNumber", ps_json_str(d, "model"));
		add_str(j, "version", ps_json_str(d, "firmware"));
		add_str(j, "partType", "drive");
		json_object_array_add(a, j);
	}
	list = ps_json_arr(r, "nics");
	for (size_t i = 0; i < ps_json_len(list); i++) {
		json_object *n = ps_json_at(list, i);

		j = hw_add(o, "nic", n, ps_json_str(n, "name"), NULL);
		add_str(j, "location", ps_json_str(n, "pci_address"));
		add_str(j, "serialNumber", ps_json_str(n, "mac"));
		add_str(j, "version", ps_json_str(n, "firmware"));
		add_str(j, "partType", "nic");
		json_object_array_add(a, j);
	}
	list = ps_json_arr(ps_json_ptr(r, "/memory"), "dimms"); /* the report's section */
	for (size_t i = 0; i < ps_json_len(list); i++) {
		json_object *d = ps_json_at(list, i);

		if (ps_json_bool(d, "populated") != 1)
			continue;
		j = hw_add(o, "dimm", d, ps_json_str(d, "locator"), NULL);
		add_str(j, "location", ps_json_str(d, "bank"));
		add_str(j, "serialNumber", ps_json_str(d, "serial"));
		add_str(j, "partNumber", ps_json_str(d, "part_number"));
		add_str(j, "manufacturer", ps_json_str(d, "manufacturer"));
		add_str(j, "partType", "dimm");
		json_object_array_add(a, j);
	}
	return a;
}

/*
 * The hardwareInfo of a device named by a step: by its id, by kind and
 * name, or through what steps 0..upto said of that id. NULL when none.
 */
static const char *hw_lookup(const struct out *o, const char *device, const char *kind,
			     const char *subject, size_t upto)
{
	json_object *steps = ps_json_arr(o->report, "steps");

	for (size_t i = 0; device && i < o->nhw; i++)
		if (strcmp(o->hw[i].id, device) == 0)
			return o->hw[i].id;
	for (size_t i = 0; kind && subject && i < o->nhw; i++)
		if (strcmp(o->hw[i].kind, kind) == 0 && strcmp(o->hw[i].name, subject) == 0)
			return o->hw[i].id;
	if (!device || kind)
		return NULL;
	for (size_t s = 0; s <= upto && s < ps_json_len(steps); s++) {
		static const char *const lists[] = {"verdicts", "findings"};

		for (size_t l = 0; l < 2; l++) {
			json_object *a = ps_json_arr(ps_json_at(steps, s), lists[l]);

			for (size_t i = 0; i < ps_json_len(a); i++) {
				json_object *v = ps_json_at(a, i);

				if (strcmp(ps_json_str_or(v, "device", ""), device) == 0 &&
				    ps_json_str(v, "kind") && ps_json_str(v, "subject"))
					return hw_lookup(o, NULL, ps_json_str(v, "kind"),
							 ps_json_str(v, "subject"), upto);
			}
		}
	}
	return NULL;
}

/* ---- measurements ---- */

static const char *unit_of(const struct ps_col *col)
{
	switch (col->fmt) {
	case PS_FMT_BYTES:
	case PS_FMT_IBYTES:
	case PS_FMT_BLOCK:
		return "bytes";
	case PS_FMT_SECONDS:
		return "s";
	case PS_FMT_NS:
		return "ns";
	case PS_FMT_US:
		return "us";
	default:
		return col->unit;
	}
}

/* "disk_seq.throughput.median_mbps": step, block and the column's path. */
static void measure_name(const char *sec, const struct ps_block *b, const struct ps_col *col,
			 char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s.%s.", sec, b->id);
	const char *p = col->path;

	if (*p == '^')
		p++;
	if (*p == '/')
		p++;
	for (; *p && o + 1 < len; p++)
		buf[o++] = *p == '/' ? '.' : *p;
	if (!col->path[0] || !p[-1] || o == strlen(sec) + strlen(b->id) + 2)
		o += (size_t)snprintf(buf + o, len - o, "value");
	buf[o < len ? o : len - 1] = '\0';
}

static const char *row_device(const struct ps_doc_block *db, size_t r)
{
	const struct ps_block *d = db->desc;

	for (size_t c = 0; c < d->ncols; c++) {
		const struct ps_cell *cell = &db->cells[r * d->ncols + c];

		if ((d->cols[c].flags & PS_COL_DEVICE) && cell->type == PS_CELL_STR)
			return cell->str;
	}
	return NULL;
}

static void block_measurements(struct out *o, const struct ps_doc_section *sec,
			       const struct ps_doc_block *db, size_t k, double when)
{
	const struct ps_block *d = db->desc;

	if ((d->flags & PS_BLOCK_ENV) || d->kind == PS_BLOCK_SERIES)
		return;
	for (size_t r = 0; r < db->nrows; r++) {
		const char *hw = hw_lookup(o, row_device(db, r), NULL, NULL, k);
		char label[256];

		ps_doc_row_label(db, r, label, sizeof(label));
		for (size_t c = 0; c < d->ncols; c++) {
			const struct ps_col *col = &d->cols[c];
			const struct ps_cell *cell = &db->cells[r * d->ncols + c];
			json_object *m, *meta;
			char name[256];

			if ((col->flags & (PS_COL_KEY | PS_COL_DEVICE)) ||
			    col->fmt == PS_FMT_RANGE || cell->type != PS_CELL_NUM ||
			    isnan(cell->num) || isinf(cell->num))
				continue;
			measure_name(sec->id, d, col, name, sizeof(name));
			m = json_object_new_object();
			json_object_object_add(m, "name", jstr(name));
			json_object_object_add(m, "value", jnum(cell->num));
			add_str(m, "unit", cell->unit ? cell->unit : unit_of(col));
			if (hw)
				json_object_object_add(m, "hardwareInfoId", jstr(hw));
			meta = json_object_new_object();
			add_str(meta, "title", col->title);
			add_str(meta, "row", label);
			if (!isnan(cell->spread_pct))
				json_object_object_add(meta, "cv_pct", jnum(cell->spread_pct));
			if (!isnan(cell->min))
				json_object_object_add(meta, "min", jnum(cell->min));
			if (!isnan(cell->max))
				json_object_object_add(meta, "max", jnum(cell->max));
			if (cell->noisy >= 0)
				json_object_object_add(meta, "noisy",
						       json_object_new_boolean(cell->noisy));
			if (col->better != PS_BETTER_NONE)
				add_str(meta, "better",
					col->better == PS_BETTER_HIGHER ? "higher" : "lower");
			json_object_object_add(m, "metadata", meta);
			step_artifact(o, when, k, "measurement", m);
		}
	}
}

static void series_of(struct out *o, const struct ps_doc_section *sec,
		      const struct ps_doc_block *db, size_t k, double t0, double t1)
{
	const struct ps_block *d = db->desc;
	size_t ny = d->ncols - 2;
	bool hist = d->series == PS_SERIES_LOGHIST;
	bool timed = d->cols[1].unit && strcmp(d->cols[1].unit, "s") == 0 && !hist;

	for (size_t l = 0; l < db->nlines; l++) {
		const struct ps_doc_line *ln = &db->lines[l];

		for (size_t j = 0; j < (hist ? 1 : ny); j++) {
			json_object *st = json_object_new_object(), *end;
			char id[64], name[320];
			size_t count = 0;

			snprintf(id, sizeof(id), "%zu.%s.%zu.%zu", k, d->id, l, j);
			snprintf(name, sizeof(name), "%s.%s%s%s%s%s", sec->id, d->id,
				 ln->label ? "." : "", ln->label ? ln->label : "",
				 ny > 1 ? "." : "", ny > 1 ? d->cols[2 + j].title : "");
			json_object_object_add(st, "name", jstr(name));
			json_object_object_add(st, "measurementSeriesId", jstr(id));
			add_str(st, "unit", hist ? "count" : unit_of(&d->cols[2 + j]));
			{
				json_object *meta = json_object_new_object();

				add_str(meta, "kind",
					hist			     ? "histogram"
					: d->series == PS_SERIES_MAP ? "map"
								     : "series");
				add_str(meta, "x", d->cols[1].title);
				add_str(meta, "x_unit", unit_of(&d->cols[1]));
				add_str(meta, "title", d->title);
				json_object_object_add(st, "metadata", meta);
			}
			step_artifact(o, t1, k, "measurementSeriesStart", st);
			for (size_t p = 0; p < ln->n && count < MAX_ELEMENTS; p++) {
				double x = ln->x[p], y = ln->y[p * ny + j];
				json_object *e, *meta;
				char ts[40];

				if (isnan(y) || isinf(y))
					continue;
				e = json_object_new_object();
				json_object_object_add(e, "index", json_object_new_int64(count++));
				json_object_object_add(e, "value", jnum(y));
				fmt_time(timed && !isnan(x) && !isnan(t0) ? t0 + x : t1, ts,
					 sizeof(ts));
				json_object_object_add(e, "timestamp", json_object_new_string(ts));
				json_object_object_add(e, "measurementSeriesId", jstr(id));
				meta = json_object_new_object();
				if (!isnan(x))
					json_object_object_add(meta, hist ? "bucket_lower" : "x",
							       jnum(x));
				json_object_object_add(e, "metadata", meta);
				step_artifact(o, t1, k, "measurementSeriesElement", e);
			}
			end = json_object_new_object();
			json_object_object_add(end, "measurementSeriesId", jstr(id));
			json_object_object_add(end, "totalCount", json_object_new_int64(count));
			step_artifact(o, t1, k, "measurementSeriesEnd", end);
		}
	}
}

static void section_figures(struct out *o, const struct ps_doc_section *sec, size_t k, double t0,
			    double t1, bool recorder)
{
	for (size_t b = 0; b < sec->nblocks; b++) {
		const struct ps_doc_block *db = &sec->blocks[b];

		if (db->desc->kind == PS_BLOCK_SERIES)
			series_of(o, sec, db, k, t0, t1);
		else if (!recorder || db->desc->kind == PS_BLOCK_KV)
			block_measurements(o, sec, db, k, t1);
	}
}

/* A finding's limit as a validator: the side of the limit its value is on failed it. */
static const char *validator_type(double value, double limit)
{
	if (value > limit)
		return "LESS_THAN_OR_EQUAL";
	if (value < limit)
		return "GREATER_THAN_OR_EQUAL";
	return "LESS_THAN";
}

static void findings(struct out *o, json_object *step, size_t k, double when)
{
	json_object *fs = ps_json_arr(step, "findings");

	for (size_t i = 0; i < ps_json_len(fs); i++) {
		json_object *f = ps_json_at(fs, i), *log = json_object_new_object();
		const char *sev = ps_json_str_or(f, "severity", "warn");
		const char *hw = hw_lookup(o, ps_json_str(f, "device"), NULL, NULL, k);
		double value, limit;
		char msg[2048];

		if (!hw)
			hw = hw_lookup(o, NULL, ps_json_str(f, "kind"), ps_json_str(f, "subject"),
				       k);
		snprintf(msg, sizeof(msg), "%s%s%s [%s]", ps_json_str_or(f, "subject", ""),
			 ps_json_str(f, "subject") ? ": " : "", ps_json_str_or(f, "message", ""),
			 ps_json_str_or(f, "rule", "-"));
		add_str(log, "severity",
			strcmp(sev, "fail") == 0   ? "ERROR"
			: strcmp(sev, "warn") == 0 ? "WARNING"
						   : "INFO");
		json_object_object_add(log, "message", jstr(msg));
		step_artifact(o, when, k, "log", log);
		if (ps_json_num(f, "value", &value) && ps_json_num(f, "limit", &limit)) {
			json_object *m = json_object_new_object(), *vs = json_object_new_array();
			json_object *v = json_object_new_object(), *meta = json_object_new_object();

			json_object_object_add(m, "name",
					       jstr(ps_json_str_or(f, "rule", "finding")));
			json_object_object_add(m, "value", jnum(value));
			add_str(m, "unit", ps_json_str(f, "unit"));
			add_str(v, "name", ps_json_str(f, "rule"));
			add_str(v, "type", validator_type(value, limit));
			json_object_object_add(v, "value", jnum(limit));
			json_object_array_add(vs, v);
			json_object_object_add(m, "validators", vs);
			if (hw)
				json_object_object_add(m, "hardwareInfoId", jstr(hw));
			add_str(meta, "severity", sev);
			add_str(meta, "subject", ps_json_str(f, "subject"));
			json_object_object_add(m, "metadata", meta);
			step_artifact(o, when, k, "measurement", m);
		}
	}
}

static void diagnoses(struct out *o, json_object *step, size_t k, double when)
{
	json_object *vs = ps_json_arr(step, "verdicts");

	for (size_t i = 0; i < ps_json_len(vs); i++) {
		json_object *v = ps_json_at(vs, i), *d = json_object_new_object();
		const char *st = ps_json_str_or(v, "status", "pass");
		const char *hw = hw_lookup(o, ps_json_str(v, "device"), NULL, NULL, k);
		char verdict[200];

		if (!hw)
			hw = hw_lookup(o, NULL, ps_json_str(v, "kind"), ps_json_str(v, "subject"),
				       k);
		snprintf(verdict, sizeof(verdict), "%s-%s", ps_json_str_or(v, "rule", "verdict"),
			 st);
		json_object_object_add(d, "verdict", jstr(verdict));
		/* warn: looked at, not clearly out of specification */
		add_str(d, "type",
			strcmp(st, "pass") == 0	  ? "PASS"
			: strcmp(st, "fail") == 0 ? "FAIL"
						  : "UNKNOWN");
		add_str(d, "message", ps_json_str(v, "message"));
		if (hw)
			json_object_object_add(d, "hardwareInfoId", jstr(hw));
		step_artifact(o, when, k, "diagnosis", d);
	}
}

static const char *step_status(const char *s)
{
	if (!strcmp(s, "pass") || !strcmp(s, "warn") || !strcmp(s, "fail"))
		return "COMPLETE";
	if (!strcmp(s, "skipped") || !strcmp(s, "aborted"))
		return "SKIP";
	return "ERROR";
}

static void step_artifacts(struct out *o, const struct ps_doc_section *sec, json_object *step,
			   size_t k)
{
	double t0 = parse_time(ps_json_str(step, "started")), dur = 0, t1;
	const char *status = ps_json_str_or(step, "status", "error");
	json_object *b;

	ps_json_num(step, "duration_s", &dur);
	t1 = isnan(t0) ? t0 : t0 + dur;
	b = json_object_new_object();
	json_object_object_add(b, "name", jstr(ps_json_str_or(step, "name", "?")));
	step_artifact(o, t0, k, "testStepStart", b);
	if (sec) {
		section_figures(o, sec, k, t0, t1, false);
		for (size_t c = 0; c < sec->nchildren; c++)
			section_figures(o, &sec->children[c], k, t0, t1, true);
	}
	findings(o, step, k, t1);
	diagnoses(o, step, k, t1);
	if (strcmp(status, "error") == 0) {
		b = json_object_new_object();
		json_object_object_add(b, "symptom", jstr(ps_json_str_or(step, "name", "step")));
		add_str(b, "message", ps_json_str(step, "reason"));
		step_artifact(o, t1, k, "error", b);
	} else if (strcmp(step_status(status), "SKIP") == 0) {
		b = json_object_new_object();
		add_str(b, "severity", "WARNING");
		json_object_object_add(
		    b, "message", jstr(ps_json_str_or(step, "reason", "the step did not run")));
		step_artifact(o, t1, k, "log", b);
	}
	b = json_object_new_object();
	add_str(b, "status", step_status(status));
	step_artifact(o, t1, k, "testStepEnd", b);
}

static json_object *run_start(struct out *o)
{
	json_object *r = o->report, *ps = ps_json_get(r, "probestick"),
		    *m = ps_json_get(r, "machine");
	json_object *s = json_object_new_object(), *p = json_object_new_object();
	json_object *dut = json_object_new_object(), *sw = json_object_new_array(), *e;
	json_object *plat = json_object_new_array();
	json_object *planned = ps_json_arr(ps, "plan_steps");
	char label[320];

	json_object_object_add(s, "name", json_object_new_string("probestick"));
	json_object_object_add(s, "version", jstr(ps_json_str_or(ps, "version", "unknown")));
	json_object_object_add(s, "commandLine",
			       jstr(ps_json_str_or(m, "kernel_cmdline", "probestick")));
	add_str(p, "plan", ps_json_str(r, "plan"));
	/* only what was known when the run started: the lines before a step never change */
	if (planned)
		json_object_object_add(p, "steps", json_object_get(planned));
	if (ps_json_get(ps, "config"))
		json_object_object_add(p, "config", json_object_get(ps_json_get(ps, "config")));
	add_str(p, "report_schema_version", "2");
	json_object_object_add(s, "parameters", p);
	json_object_object_add(dut, "dutInfoId", jstr(ps_json_str_or(r, "machine_id", "unknown")));
	snprintf(label, sizeof(label), "%s %s", ps_json_str_or(m, "vendor", ""),
		 ps_json_str_or(m, "product", ""));
	if (strcmp(label, " ") != 0) {
		json_object_object_add(dut, "name", jstr(label));
		e = json_object_new_object();
		json_object_object_add(e, "info", jstr(label));
		json_object_array_add(plat, e);
	}
	json_object_object_add(dut, "platformInfos", plat);
	e = json_object_new_object();
	json_object_object_add(e, "softwareInfoId", json_object_new_string("probestick"));
	json_object_object_add(e, "name", json_object_new_string("probestick"));
	add_str(e, "version", ps_json_str(ps, "version"));
	add_str(e, "softwareType", "APPLICATION");
	json_object_array_add(sw, e);
	if (ps_json_str(ps, "kernel")) {
		e = json_object_new_object();
		json_object_object_add(e, "softwareInfoId", json_object_new_string("kernel"));
		json_object_object_add(e, "name", json_object_new_string("linux"));
		add_str(e, "version", ps_json_str(ps, "kernel"));
		add_str(e, "softwareType", "SYSTEM");
		json_object_array_add(sw, e);
	}
	if (ps_json_str(m, "bios_version")) {
		e = json_object_new_object();
		json_object_object_add(e, "softwareInfoId", json_object_new_string("bios"));
		json_object_object_add(e, "name", jstr(ps_json_str_or(m, "bios_vendor", "bios")));
		add_str(e, "version", ps_json_str(m, "bios_version"));
		add_str(e, "revision", ps_json_str(m, "bios_date"));
		add_str(e, "softwareType", "FIRMWARE");
		json_object_array_add(sw, e);
	}
	if (ps_json_str(m, "microcode")) {
		e = json_object_new_object();
		json_object_object_add(e, "softwareInfoId", json_object_new_string("microcode"));
		json_object_object_add(e, "name", json_object_new_string("cpu microcode"));
		add_str(e, "version", ps_json_str(m, "microcode"));
		add_str(e, "softwareType", "FIRMWARE");
		json_object_array_add(sw, e);
	}
	json_object_object_add(dut, "softwareInfos", sw);
	json_object_object_add(dut, "hardwareInfos", hardware_infos(o));
	json_object_object_add(s, "dutInfo", dut);
	return s;
}

static json_object *run_end(json_object *report)
{
	json_object *e = json_object_new_object(), *steps = ps_json_arr(report, "steps");
	bool fail = false, ran = false;

	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *s = ps_json_at(steps, i), *vs = ps_json_arr(s, "verdicts");
		const char *st = ps_json_str_or(s, "status", "error");

		ran = ran || strcmp(step_status(st), "SKIP") != 0;
		fail = fail || strcmp(st, "fail") == 0;
		for (size_t j = 0; j < ps_json_len(vs); j++)
			fail = fail ||
			       strcmp(ps_json_str_or(ps_json_at(vs, j), "status", ""), "fail") == 0;
	}
	add_str(e, "status", ran ? "COMPLETE" : "SKIP");
	add_str(e, "result", !ran ? "NOT_APPLICABLE" : fail ? "FAIL" : "PASS");
	return e;
}

char *ps_ocp_text(json_object *report, const struct ps_view_set *views)
{
	struct out o = {.report = report, .views = views};
	char *buf = NULL;
	size_t len = 0;
	json_object *steps = ps_json_arr(report, "steps"), *b;
	struct ps_doc *doc = ps_doc_build(report, views);
	double t = parse_time(ps_json_str(report, "created")), last = t;

	o.f = open_memstream(&buf, &len);
	if (!o.f || !doc) {
		if (o.f)
			fclose(o.f);
		free(buf);
		ps_doc_free(doc);
		return NULL;
	}
	b = json_object_new_object();
	json_object_object_add(b, "major", json_object_new_int(2));
	json_object_object_add(b, "minor", json_object_new_int(0));
	emit(&o, t, "schemaVersion", b);
	run_artifact(&o, t, "testRunStart", run_start(&o));
	for (size_t k = 0; k < ps_json_len(steps); k++) {
		json_object *s = ps_json_at(steps, k);
		double st = parse_time(ps_json_str(s, "started")), dur = 0;

		step_artifacts(&o, k < doc->nsections ? &doc->sections[k] : NULL, s, k);
		ps_json_num(s, "duration_s", &dur);
		if (!isnan(st))
			last = st + dur;
	}
	if (ps_json_bool(report, "complete") == 1) {
		json_object *w = ps_json_arr(report, "warnings");

		for (size_t i = 0; i < ps_json_len(w); i++) {
			b = json_object_new_object();
			add_str(b, "severity", "WARNING");
			json_object_object_add(b, "message",
					       jstr(json_object_get_string(ps_json_at(w, i))));
			run_artifact(&o, last, "log", b);
		}
		run_artifact(&o, last, "testRunEnd", run_end(report));
	}
	fclose(o.f);
	free(o.hw);
	ps_doc_free(doc);
	return buf;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ps_ocp_stream_update(struct ps_ocp_stream *s, json_object *report,
			 const struct ps_view_set *views)
{
	char *text;
	const char *p;
	size_t line = 0;

	if (!s || s->fd < 0)
		return -EBADF;
	if (s->err)
		return s->err;
	text = ps_ocp_text(report, views);
	if (!text)
		return -ENOMEM;
	for (p = text; *p && !s->err;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (line++ >= s->lines) {
			s->err = write_all(s->fd, "\r\n", 2);
			if (!s->err)
				s->err = write_all(s->fd, p, n);
			if (!s->err)
				s->err = write_all(s->fd, "\r\n", 2);
			if (!s->err)
				s->lines++;
		}
		p += n + (nl ? 1 : 0);
	}
	free(text);
	return s->err;
}
