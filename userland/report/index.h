/*
 * index.h - reports/index.html on the stick: every run of every machine the
 * stick has seen, newest first, with machine, plan, date, verdict counts and
 * links; a run that was cut off is listed as incomplete, a folder whose
 * report cannot be read as unreadable with the reason. Built from the
 * stick's tree alone, so any probestick (or a test) rebuilds the same page.
 */
#ifndef PS_REPORT_INDEX_H
#define PS_REPORT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ps_run_state { PS_RUN_COMPLETE, PS_RUN_INCOMPLETE, PS_RUN_UNREADABLE };

struct ps_index_run {
	char machine_dir[256]; /* the machine's folder: its machine-id */
	char run_dir[256];     /* "<YYYYmmddTHHMMSSZ>-<plan>[-N]" */
	char path[1536];       /* reports root/machine_dir/run_dir */
	char machine[256];     /* "vendor product", "" unknown */
	char plan[32];
	char created[40]; /* from the report, else from the folder's stamp */
	enum ps_run_state state;
	char stopped_at[64];	       /* incomplete: the step that was running, "" unknown */
	bool cut;		       /* a later boot found it cut off (its interrupted{}) */
	char cut_cause[16];	       /* "power_lost", "stopped", "" unknown */
	char reason[512];	       /* unreadable: why, in words */
	unsigned int fail, warn, pass; /* devices by their worst verdict */
	bool has_html, has_txt, has_ocp;
	char worst[400]; /* its worst verdicts for people: "fail drive sdb: smart.pending; ..." */
};

struct ps_index {
	struct ps_index_run *runs; /* newest first (by the folder's stamp), then by machine */
	size_t n;
	size_t machines;      /* machine folders holding at least one run */
	bool has_compare;     /* reports/compare.html is there */
	char stick_note[512]; /* the newest run's boot: what it found on the stick, "" nothing */
};

/* Read every run folder below reports_root. 0, or -errno when the root cannot be read. */
int ps_index_scan(const char *reports_root, struct ps_index *idx);
void ps_index_free(struct ps_index *idx);

/* The page; malloc'd, never NULL. */
char *ps_index_html(const struct ps_index *idx);

/* A table row's start, marked by the run's worst verdict ("<tr class=...><td>"), and the
 * machine's cell content: its model and its id. */
void ps_index_row(FILE *f, const struct ps_index_run *r);
void ps_index_machine(FILE *f, const struct ps_index_run *r);
/* A link to a run's file (its last extension as the text), and a verdict count badge. */
void ps_index_href(FILE *f, const struct ps_index_run *r, const char *file);
void ps_index_badge(FILE *f, const char *cls, const char *word, unsigned int n);

/*
 * A collector's tree (report/fleet.c): a table with a row per machine,
 * worst first: its latest run, that run's verdicts worst first and links.
 */
void ps_fleet_table(FILE *f, const struct ps_index *idx);

/* Scan reports_root and write its index.html through the stick store. 0 or -errno. */
int ps_index_write(const char *reports_root);

#endif
