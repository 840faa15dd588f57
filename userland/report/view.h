/*
 * view.h - how a part of the report is shown, described once: the tables,
 * key-value lists and series a step (or the inventory, or a recorder)
 * produces, with each column's unit, decimals, whether it identifies the
 * row and whether higher or lower is better. Text, HTML, compare and the
 * exports render these descriptions; none of them knows a step by name.
 */
#ifndef PS_REPORT_VIEW_H
#define PS_REPORT_VIEW_H

#include "lib/stats.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

enum ps_better {
	PS_BETTER_NONE = 0, /* a setting or an identity: a change is shown, never judged */
	PS_BETTER_HIGHER,   /* throughput, IOPS */
	PS_BETTER_LOWER,    /* latency, errors, CPU cost */
};

enum ps_fmt {
	PS_FMT_AUTO = 0, /* numbers with the column's decimals, strings as they are */
	PS_FMT_BYTES,	 /* decimal units, as drive makers label sizes: "64.0 MB" */
	PS_FMT_IBYTES,	 /* binary units, for memory: "512 MiB" */
	PS_FMT_BLOCK,	 /* a block size in bytes as "4K", "1M" */
	PS_FMT_BOOL,	 /* "yes" / "no" */
	PS_FMT_SECONDS,	 /* "12.3 s", "4 min 10 s", "1 h 02 min" */
	PS_FMT_NS,	 /* a latency in ns: "850 ns", "12.3 us", "4.56 ms" */
	PS_FMT_US,	 /* a latency in us, shown like PS_FMT_NS */
	PS_FMT_STATUS,	 /* pass / warn / fail / error / skipped / aborted: upper-cased for warn+ */
	PS_FMT_RANGE,	 /* "min-max" from the column's min and max paths (its path is ignored) */
	/*
	 * Text from the column's tmpl: each "{/pointer}" is the value of that
	 * member of the object at the column's path ("rx {/rx}/{/rx_max}"),
	 * numbers as they are, booleans "on"/"off", a missing one "?"; null when
	 * the object is. The one way to show several figures in one cell: a step
	 * stores the figures, never their text.
	 */
	PS_FMT_TEMPLATE,
	/* An object's members as "name value, name value" (null ones left out, booleans on/off). */
	PS_FMT_PAIRS,
};

/* Column flags. */
#define PS_COL_KEY	(1U << 0) /* identifies the row: compare matches rows on every key column */
#define PS_COL_HEADLINE (1U << 1) /* the step's one-line result on the console shows it */
#define PS_COL_OPTIONAL (1U << 2) /* the text view drops it first when 80 columns are too few */
#define PS_COL_DEVICE                                                                              \
	(1U << 3) /* the value is a device's stable id (hidden in text, used to match) */
#define PS_COL_WIDE (1U << 4) /* free text: the text view gives it the remaining width */
/*
 * A series' y column (cols[2], the only y) whose value in each point is an
 * array: each element is a line of its own, labelled "<cols[0].title> <i>"
 * (a per-CPU figure sampled over time). Only in a series of three columns.
 */
#define PS_COL_EACH (1U << 5)
/*
 * Measured, with no direction to judge (a count of requests or probes, what
 * the free memory allowed, a row's verdict that follows its measured
 * throughput): compare shows a change as not judged, never as a setting that
 * changed.
 */
#define PS_COL_MEASURED (1U << 6)

/*
 * One column of a table, one field of a key-value list, one coordinate of
 * a series. Paths are RFC 6901 JSON pointers into the row; a path starting
 * with "^" reads the parent row of a nested table ("^/name").
 */
struct ps_col {
	const char *path;
	const char *title; /* column head or field label; short: text tables are 80 columns */
	const char *unit;  /* "MB/s", "us", "%", or NULL */
	/* path of the row's own unit, for a column whose rows differ ("MB/s" seq,
	 * "IOPS" rand); NULL: unit for every row */
	const char *unit_from;
	int decimals;
	enum ps_fmt fmt;
	enum ps_better better;
	unsigned int flags;    /* PS_COL_* */
	const char *spread;    /* path of this figure's run-to-run CV in %, or NULL */
	const char *min, *max; /* paths of its run-to-run range, or NULL: HTML draws min-max bars */
	/*
	 * Values that mark the row as a problem, comma separated ("degraded,down"):
	 * HTML highlights the row. NULL: none.
	 */
	const char *bad;
	const char *noisy; /* path of a boolean: the figure stayed noisy after its extra runs */
	const char *tmpl;  /* PS_FMT_TEMPLATE: the text with {/member} pointers into the value */
	/* PS_COL_HEADLINE: the word before the value on the console's result line
	 * ("triad 3.7 GB/s"); NULL: the title when the value has no unit, else none */
	const char *head;
};

enum ps_block_kind {
	PS_BLOCK_KV,	 /* rows: an object; cols: its fields */
	PS_BLOCK_TABLE,	 /* rows: an array, each element one row (or nested sub-rows) */
	PS_BLOCK_SERIES, /* rows: an array of lines; cols[0] labels a line, nested its points,
			    cols[1] the x and cols[2..] the y values of a point */
};

enum ps_series_kind {
	PS_SERIES_LINE = 0, /* over time or position */
	PS_SERIES_BARS,	    /* one bar per x */
	PS_SERIES_LOGHIST,  /* a latency histogram: x = bucket lower bound, y = count; log x */
	PS_SERIES_MAP,	    /* latency by position over a device (surface map) */
};

/* Block flags. */
#define PS_BLOCK_NO_TEXT (1U << 0) /* charts only (HTML): the text view leaves it out */
/*
 * The conditions of the run, not its results (firmware, kernel, governor,
 * links, DIMMs): compare lists the differences of these blocks as what may
 * explain a changed figure, and the OCP export gives no measurements for them.
 */
#define PS_BLOCK_ENV (1U << 1)

struct ps_block {
	enum ps_block_kind kind;
	const char *id;	    /* stable within its view: HTML anchors and compare use it */
	const char *title;  /* NULL: no heading of its own */
	const char *rows;   /* pointer from the view's root; "" is the root itself */
	const char *nested; /* TABLE: an array in each row whose elements are the rows; SERIES: the
			       points of each line; NULL: none */
	const char *when; /* a path in the row that must be non-null (and, for an array, non-empty)
			     for the row to show; NULL: every row */
	const char *unless; /* a path that must be null or missing; NULL: no condition */
	const struct ps_col *cols;
	size_t ncols;
	enum ps_series_kind series;
	unsigned int flags; /* PS_BLOCK_* */
	const char *empty;  /* the line shown when no row qualifies; NULL: the block is left out */
	const char *note;   /* one line under the block: how it was measured, or NULL */
};

/* Where a view's paths start. */
enum ps_view_scope {
	PS_SCOPE_DATA = 0, /* steps[i].data: a step's own figures */
	PS_SCOPE_MEMBER, /* steps[i].<view name>: a recorder every step has (load, probes, kmsg) */
	PS_SCOPE_REPORT, /* the report's top level: the inventory's machine, drives, ... */
};

struct ps_doc;
struct ps_doc_section;

struct ps_view {
	const char *name; /* the step's name, or the recorder's member */
	unsigned int
	    version; /* the data version it reads: older data is shown as "see report.json" */
	enum ps_view_scope scope;
	const struct ps_block *blocks;
	size_t nblocks;
	/*
	 * Optional: adds to the section what blocks cannot express (a surface
	 * map's summary) from root, the view's root object. Builds document
	 * nodes only; never prints or writes.
	 */
	void (*extend)(json_object *root, struct ps_doc *doc, struct ps_doc_section *sec);
};

/*
 * The standard columns of a measured figure in a row (struct ps_figure,
 * lib/stats.h, in its JSON form under the name nm, "mbps"): its median with
 * the run-to-run spread, range and noise marker (HTML's bar and whisker,
 * compare's judgement, the text view's "~"); its min-max range, dropped
 * first when 80 columns are too few; and its CV. flags: PS_COL_HEADLINE...
 */
#define PS_COL_FIGURE(nm, ttl, u, dec, bt, fl)                                                     \
	{                                                                                          \
		.path = "/" PS_FIGURE_MEDIAN(nm), .title = (ttl), .unit = (u), .decimals = (dec),  \
		.better = (bt), .flags = (fl), .spread = "/" PS_FIGURE_CV,                         \
		.min = "/" PS_FIGURE_MIN(nm), .max = "/" PS_FIGURE_MAX(nm),                        \
		.noisy = "/" PS_FIGURE_NOISY                                                       \
	}
#define PS_COL_FIGURE_RANGE(nm, dec)                                                               \
	{                                                                                          \
		.path = "/" PS_FIGURE_MEDIAN(nm), .title = "min-max", .fmt = PS_FMT_RANGE,         \
		.min = "/" PS_FIGURE_MIN(nm), .max = "/" PS_FIGURE_MAX(nm), .decimals = (dec),     \
		.flags = PS_COL_OPTIONAL                                                           \
	}
#define PS_COL_FIGURE_CV                                                                           \
	{                                                                                          \
		.path = "/" PS_FIGURE_CV, .title = "cv", .unit = "%", .better = PS_BETTER_LOWER    \
	}
/* The note under a table of figures that explains the "~". */
#define PS_FIGURE_NOTE "~ still noisy after the extra runs (CV above the plan's limit)"

/* Helpers for the descriptions: PS_COLS(cols) gives "cols, n". */
#define PS_COLS(a)   (a), (sizeof(a) / sizeof((a)[0]))
#define PS_BLOCKS(a) (a), (sizeof(a) / sizeof((a)[0]))

/* A column's value in a row: a path starting with "^" reads the parent row. NULL: none. */
json_object *ps_col_value(json_object *row, json_object *parent, const char *path);
/* Whether a row shows in block b: its when path is set (non-null, non-empty, not false)
 * and its unless path is not. */
bool ps_row_shown(const struct ps_block *b, json_object *row);

/* Why a view cannot be used (no name, a block without rows or columns, a bad path), or true. */
bool ps_view_valid(const struct ps_view *v, char *why, size_t whylen);

/* Every view a renderer needs: the steps', the inventory's and the recorders'. */
struct ps_view_set {
	const struct ps_view *const *v;
	size_t n;
};
/* The view named name (a step's current one comes first), or NULL. */
const struct ps_view *ps_view_find(const struct ps_view_set *set, const char *name);
/* The view of name that reads data version version (an older view a step keeps), or NULL. */
const struct ps_view *ps_view_find_version(const struct ps_view_set *set, const char *name,
					   unsigned int version);

#endif
