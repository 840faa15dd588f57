/*
 * collect.h - the fleet's collector, from the machine's side. With collect=
 * (and/or syslog=) set, the boot port gets its address, and a thread of its
 * own sends each run: the live OCP stream after every step, the finished
 * run folder at the end (report.json last), each file through a temporary
 * name and MOVE; the stream as syslog too. It retries with back-off until
 * the run is delivered or the plan's end has waited collect_wait; the run's
 * folder (on the stick, or in /run) is the spool meanwhile. The report's
 * collect{} says what was delivered and what was not; the console says it
 * too. No port is opened for listening: the machine only connects out.
 */
#ifndef PS_COLLECT_H
#define PS_COLLECT_H

#include "report/report.h"

#include <json-c/json.h>
#include <stdbool.h>

struct ps_collect;

/*
 * probestick.cfg's keys of the collector, as core/config.c checked them
 * ("" unset): collect=, collect_ca=, collect_user=, collect_password=,
 * syslog=, ip=. The texts outlive the collector's start; ip= its thread.
 */
struct ps_collect_keys {
	const char *collect, *collect_ca, *collect_user, *collect_password, *syslog, *ip;
};

struct ps_collect_opts {
	struct ps_collect_keys keys;
	const char *root;    /* "" live; a fixture tree in tests */
	const char *stick;   /* the stick's mount point, "" none (where collector-ca.pem
				may be; what the summary says of the spool) */
	const char *cmdline; /* the kernel command line's text (BOOTIF=, ip=), NULL none */
	bool net;	     /* bring the boot port up first (probestick boot) */
	/* the views the run's files are rendered with when the outcome is written (ps_views()) */
	const struct ps_view_set *views;
	/* A line for the person watching; only ever called from the caller's thread. */
	void (*say)(void *arg, bool problem, const char *line);
	void *arg;
};

/*
 * NULL when neither collect= nor syslog= is set. Problems that stop it
 * (no address, no libcurl) are said, and in the report through the sink:
 * it stays usable and only records them.
 */
struct ps_collect *ps_collect_start(const struct ps_collect_opts *o);

/* The plan runner's sink: the report's collect{}, and each write offered to the sender. */
const struct ps_report_sink *ps_collect_sink(struct ps_collect *c);

/* A finished run folder from another time (a stick's, or `probestick send`): sent as it is. */
int ps_collect_add_run(struct ps_collect *c, const char *dir);

/*
 * Wait until every run offered is on the collector, at most seconds (a
 * line on the console every 15 s says what it waits for). Then the live
 * runs' own report says what happened, and the console. true: all delivered.
 */
bool ps_collect_settle(struct ps_collect *c, double seconds);

/* collect_wait= (its text) in seconds (0 allowed; unset: 600). */
double ps_collect_wait_s(const char *collect_wait);

/* Bytes sent so far (HTTP bodies and syslog frames), for `probestick send`. */
unsigned long long ps_collect_bytes(struct ps_collect *c);

/* Stop the sender, forget the password. */
void ps_collect_free(struct ps_collect *c);

#endif
