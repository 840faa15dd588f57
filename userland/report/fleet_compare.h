/*
 * fleet_compare.h - the odd machine out. Machines of one model (DMI vendor
 * and product) are compared two by two with compare's own matching and
 * rule (report/compare.h: rows by their keys, a change judged against the
 * runs' spread); a machine whose figure differs beyond the spread from more
 * than half of the others it could be compared with is flagged for that
 * figure. Two machines alone cannot say which is odd: their differences
 * are counted, not blamed. Pure: documents in, groups out.
 */
#ifndef PS_REPORT_FLEET_COMPARE_H
#define PS_REPORT_FLEET_COMPARE_H

#include "report/doc.h"

#include <stddef.h>

/* One figure in which one machine differs from most of its model's others. */
struct ps_fleet_odd {
	size_t machine;	      /* index into the documents */
	char figure[400];     /* "disk_read nvme0n1 seq 1M qd 8 MB/s" */
	double value, median; /* its value and the others' median */
	size_t beyond, of;    /* it differs beyond the spread from beyond of the of others */
	int worse;	      /* 1 worse, 0 better, -1 the view gives no direction */
};

struct ps_fleet_group {
	char model[256]; /* "QEMU Standard PC (Q35 + ICH9, 2009)" */
	size_t *members; /* indexes into the documents */
	size_t n;
	struct ps_fleet_odd *odd;
	size_t nodd;
	size_t pair_differences; /* two machines: figures beyond the spread between them */
};

struct ps_fleet_cmp {
	struct ps_fleet_group *groups; /* by model */
	size_t ngroups;
	size_t unknown; /* documents without a model */
};

/* Group docs[0..n) by model and find the odd ones; NULL when out of memory. */
struct ps_fleet_cmp *ps_fleet_compare(const struct ps_doc *const *docs, size_t n);
void ps_fleet_compare_free(struct ps_fleet_cmp *fc);

/* For people, 80 columns; labels name the documents (machine ids). malloc'd, never NULL. */
char *ps_fleet_compare_text(const struct ps_fleet_cmp *fc, const char *const *labels);

#endif
