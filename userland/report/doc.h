/*
 * doc.h - the neutral document: a report read through its views into
 * sections, key-value lists, tables, series, findings and verdicts, with
 * typed values not yet formatted. Every renderer (text, HTML) and compare
 * works from it; none of them reads a step's data by name.
 */
#ifndef PS_REPORT_DOC_H
#define PS_REPORT_DOC_H

#include "report/view.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

enum ps_cell_type { PS_CELL_NULL = 0, PS_CELL_NUM, PS_CELL_STR, PS_CELL_BOOL };

struct ps_cell {
	enum ps_cell_type type;
	double num;
	const char *str; /* valid while the document lives */
	bool b;
	double spread_pct; /* run-to-run CV of this figure, NAN when the view gives none */
	double min, max;   /* run-to-run range, NAN when none */
	int noisy;	   /* the view's noisy path: 1 noisy, 0 steady, -1 unknown or none */
	const char *unit;  /* the row's unit (the column's unit_from), or NULL */
};

struct ps_doc_line {
	const char *label;
	size_t n;  /* points */
	double *x; /* n values */
	double *y; /* n * (ncols - 2) values, point-major */
};

struct ps_doc_block {
	const struct ps_block *desc; /* kind, columns, flags */
	const char *id;		     /* "<section id>.<block id>", unique in the document */
	size_t nrows;
	struct ps_cell *cells; /* nrows * desc->ncols (KV: one row) */
	struct ps_doc_line *lines;
	size_t nlines;
};

/* A finding as the report holds it (steps[].findings[]). */
struct ps_doc_finding {
	const char *severity; /* "info", "warn", "fail" */
	const char *rule;     /* "disk_seq.read_error" */
	const char *kind;     /* "drive", ... or NULL */
	const char *device;   /* stable id or NULL */
	const char *subject;  /* "sda" or NULL */
	const char *message;
	double value, limit; /* NAN when absent */
	const char *unit;
};

/* One device's verdict: the worst over every step that examined it. */
struct ps_doc_verdict {
	const char *kind; /* "drive", "nic", "link", "dimm", "machine" */
	const char *device;
	const char *subject;
	const char *status; /* "fail", "warn", "pass", "untested" (no step measured it) */
	const char *rule;   /* the rule that decided it */
	const char *message;
	const char *step; /* the step that decided it */
	double value, limit;
	const char *unit;
	/* steps that meant to measure it and could not ("nic_loop, mtu"), and the first's
	 * reason; NULL when every step that meant to measure it did */
	const char *untested_by, *untested_why;
};

/* A verdict that is a plain pass: passed, and no step left it untested. */
bool ps_doc_verdict_passed(const struct ps_doc_verdict *v);

enum ps_section_kind {
	PS_SEC_STEP,	  /* a step's figures (PS_SCOPE_DATA) */
	PS_SEC_INVENTORY, /* a step whose view reads the report's top level */
	PS_SEC_RECORDER,  /* load, probes, kmsg of a step: a child of its step section */
};

struct ps_doc_section {
	enum ps_section_kind kind;
	const char *id;	   /* "disk_seq", "disk_seq.load" */
	const char *title; /* the step's name, or the recorder's */
	const char *step;  /* the step's name */
	const char *status;
	double duration_s; /* NAN when unknown */
	const char *reason;
	const char *note; /* why the blocks are missing (no view, another data version), or NULL */
	struct ps_doc_finding *findings;
	size_t nfindings;
	struct ps_doc_block *blocks;
	size_t nblocks;
	struct ps_doc_section *children; /* recorders */
	size_t nchildren;
};

struct ps_doc {
	json_object *report; /* a reference held while the document lives */
	int schema_version;
	const char *plan, *created, *machine_id, *version, *kernel, *module_status;
	bool complete;
	const char *stopped_at; /* the step that was running when a cut-off run ended, or NULL */
	bool cut;		/* a later boot found the run cut off (interrupted{}) */
	const char *cut_cause;	/* interrupted.cause: "power_lost", "stopped", or NULL */
	const char *cut_message, *cut_found;
	const char **stick_notes; /* what the boot of this run found on the stick and did */
	size_t nstick_notes;
	const char *collect_note; /* the fleet's collector: where the run went, delivered or not */
	bool collect_failed;	  /* ... and it was not delivered */
	const char *machine;	  /* "vendor product" for a heading, or NULL */
	struct ps_doc_verdict *verdicts; /* fail first, then warn, then pass */
	size_t nverdicts;
	struct ps_doc_section *sections; /* in run order */
	size_t nsections;
	const char **warnings;
	size_t nwarnings;
	struct ps_doc_arena *arena;
};

/* The document of a report through views; NULL only when out of memory. */
struct ps_doc *ps_doc_build(json_object *report, const struct ps_view_set *views);
void ps_doc_free(struct ps_doc *doc);

/* One step's figures alone (the console's result line), from steps[i]. */
struct ps_doc_section *ps_doc_build_step(struct ps_doc *doc, json_object *step,
					 const struct ps_view_set *views);

/* "sda read 215 MB/s, errors 0": the HEADLINE columns of sec, each after its title
 * (never a bare number) and its row's keys, at most len bytes. */
size_t ps_doc_headline(const struct ps_doc_section *sec, char *buf, size_t len);

/* ---- for views' extend hooks ---- */

/* A block built by hand under sec: nrows rows of desc's columns, cells NULL-typed. */
struct ps_doc_block *ps_doc_add_block(struct ps_doc *doc, struct ps_doc_section *sec,
				      const struct ps_block *desc, size_t nrows);
void ps_doc_cell_num(struct ps_doc_block *b, size_t row, size_t col, double v);
void ps_doc_cell_str(struct ps_doc *doc, struct ps_doc_block *b, size_t row, size_t col,
		     const char *s);
/* A copy of s that lives as long as doc. */
const char *ps_doc_strdup(struct ps_doc *doc, const char *s);

/* True when the cell's text is one of its column's bad values (a degraded link). */
bool ps_cell_marked(const struct ps_cell *c, const struct ps_col *col);

/*
 * A row as a person names it: its key columns but the device ids, "nvme0n1
 * 1M qd 8" (a plain number is given with its column's title). At most len bytes.
 */
size_t ps_doc_row_label(const struct ps_doc_block *b, size_t row, char *buf, size_t len);

/* The block of sec whose view block id is id, or NULL. */
const struct ps_doc_block *ps_doc_block_find(const struct ps_doc_section *sec, const char *id);

/*
 * A number that comes with only a unit (a finding's value and limit), rounded
 * as a person reads that unit: whole numbers as they are, a percentage to
 * whole percent from 10 % up (27.7591 % is "28 %"), else three significant
 * figures at most ("0.14", "3.7 GB/s", "49.9 C", "711 MB/s"). Pure.
 */
size_t ps_num_text(double v, const char *unit, char *buf, size_t len);

/* A cell as text in its column's format and unit ("215.3", "4K", "-" for null). */
size_t ps_cell_text(const struct ps_cell *c, const struct ps_col *col, char *buf, size_t len,
		    bool with_unit);

#endif
