/*
 * compare.h - what changed between runs: two or more documents (the same
 * machine over time, or two machines) matched device by device through
 * their stable identities and row by row through the views' key columns,
 * each figure's change in %, flagged only when it is larger than the runs'
 * own spread and in the direction the view calls better or worse, and the
 * differences of the run's conditions (firmware, kernel, governor, links,
 * DIMMs: the views' PS_BLOCK_ENV blocks) that may explain it.
 * ps_compare() is pure: documents in, comparison out.
 */
#ifndef PS_REPORT_COMPARE_H
#define PS_REPORT_COMPARE_H

#include "report/doc.h"

#include <stdbool.h>
#include <stddef.h>

#define PS_CMP_MAX_RUNS 8

enum ps_cmp_mark {
	PS_CMP_SAME = 0, /* the same value */
	PS_CMP_NOISE,	 /* changed, but within the runs' spread (min-max, CV) */
	PS_CMP_UNJUDGED, /* changed; no spread is known for it, so it is not judged */
	PS_CMP_CHANGED,	 /* a text, a setting or an identity changed (not better or worse) */
	PS_CMP_BETTER,	 /* beyond the spread, in the direction the view calls better */
	PS_CMP_WORSE,	 /* beyond the spread, worse */
	PS_CMP_MISSING,	 /* the row is not in this run */
};

struct ps_cmp_value {
	bool present;	     /* the row is in this run */
	struct ps_cell cell; /* its cell (the document's strings) */
	double change_pct;   /* against the first run; NAN when not numeric on both sides */
	enum ps_cmp_mark mark;
};

/* One figure (a column of a row) across the runs. */
struct ps_cmp_figure {
	const char *section; /* "disk_seq", "disk_seq.load", "inventory" */
	const struct ps_block *block;
	const struct ps_col *col;
	char row[200]; /* "nvme0n1 1M qd 8" ("" for a key-value list) */
	char key[400]; /* what matched the row: device ids and the other keys */
	char dev[200]; /* the row's device ids alone ("" none): which device a figure is of */
	/*
	 * The same figure shown by another table of the step (a summary of the
	 * matrix: one device, equal in every run): compare judges and lists it
	 * once, as that one. NULL: none.
	 */
	const struct ps_cmp_figure *same_as;
	bool env;  /* a condition of the run, not a result */
	bool step; /* a step's own figure (not a recorder's, not the inventory's) */
	struct ps_cmp_value v[PS_CMP_MAX_RUNS];
	enum ps_cmp_mark mark; /* the strongest mark over the runs after the first */
};

struct ps_cmp_device {
	const char *kind, *name, *id;
	bool in[PS_CMP_MAX_RUNS];
	const char *status[PS_CMP_MAX_RUNS]; /* its verdict in each run, NULL when none */
	const char *rule[PS_CMP_MAX_RUNS];
};

struct ps_cmp_run {
	const struct ps_doc *doc;
	const char *label; /* what the user named: a folder */
};

struct ps_cmp {
	size_t nruns;
	struct ps_cmp_run runs[PS_CMP_MAX_RUNS];
	bool same_machine; /* every run has the first run's machine-id: rows match by device id */
	struct ps_cmp_figure *fig;
	size_t nfig;
	struct ps_cmp_device *dev;
	size_t ndev;
	/* tallies over the figures and devices */
	size_t worse, better, noise, unjudged, changed, env_changed, missing_rows;
	size_t missing_devices, verdict_changes;
};

/* Compare docs[0] (the baseline) with docs[1..n); NULL when n < 2, n > PS_CMP_MAX_RUNS or OOM. */
struct ps_cmp *ps_compare(const struct ps_doc *const *docs, const char *const *labels, size_t n);
void ps_compare_free(struct ps_cmp *c);
/* The unit a figure's label names: the column's, else its rows' (unit_from);
 * NULL when none, or when the column's title holds it already ("best GB/s"). */
const char *ps_cmp_figure_unit(const struct ps_cmp_figure *f);

/* For people: 80 columns; malloc'd, never NULL. */
char *ps_compare_text(const struct ps_cmp *c);
/* compare.html: the same, with the figures' bars side by side per run; malloc'd, never NULL. */
char *ps_compare_html(const struct ps_cmp *c);

/*
 * Read the runs named by paths (a run folder, a reports folder or a stick:
 * its newest run) into documents. 0, or -errno with err[] naming the file
 * and what is wrong with it (damaged, cut off, a newer schema).
 */
int ps_compare_load(const char *const *paths, size_t n, const struct ps_view_set *views,
		    struct ps_doc **docs, char *err, size_t errlen);

#endif
