/*
 * spool.h - what of one run the collector holds. The run's folder (on the
 * stick, or in /run without one) is the spool; this is its bookkeeping:
 * each file in the version the runner wrote last and the version the
 * collector has. While the plan runs only the live stream (report.ocp.jsonl)
 * is offered; at the end every file is, and report.json goes last, once
 * the others are there, so a collector that holds a run's report.json
 * holds the files it names. Pure.
 */
#ifndef PS_COLLECT_SPOOL_H
#define PS_COLLECT_SPOOL_H

#include "collect/retry.h"

#include <stdbool.h>
#include <stddef.h>

enum { PS_SPOOL_OCP, PS_SPOOL_TXT, PS_SPOOL_HTML, PS_SPOOL_JSON, PS_SPOOL_FILES };

struct ps_spool_file {
	const char *name;	/* "report.ocp.jsonl" */
	unsigned int written;	/* versions the runner wrote that are offered; 0 none yet */
	unsigned int delivered; /* the version the collector holds; 0 none */
	size_t bytes;		/* of the delivered version */
	double delivered_at;	/* wall-clock seconds, 0 never */
};

/*
 * The live stream goes at most this often while the plan runs: the file is
 * sent whole (WebDAV has no append) and grows with every step, so sending
 * it after every step would cost the square of its size. The first lines go
 * at once; syslog= carries every line as it comes.
 */
#define PS_SPOOL_LIVE_EVERY_S 30.0

struct ps_spool {
	struct ps_spool_file f[PS_SPOOL_FILES];
	bool folders;  /* the machine's and the run's folders are on the collector */
	bool complete; /* the run has ended: its final files are offered */
	struct ps_retry retry;
};

/* The file names, in the order of enum above. */
extern const char *const ps_spool_names[PS_SPOOL_FILES];

void ps_spool_init(struct ps_spool *s, uint32_t seed);

/* The runner wrote the run's folder; complete: for the last time (the plan ended). */
void ps_spool_written(struct ps_spool *s, bool complete);

/*
 * The file to send at now (seconds, the clock delivered times are on), or
 * -1: nothing is pending, or only report.json, which waits for the others,
 * or the live stream, which waits until *wait seconds have passed (large
 * when nothing is pending).
 */
int ps_spool_next(const struct ps_spool *s, double now, double *wait);

/* Version of file i is on the collector (bytes long, at wall-clock when). */
void ps_spool_delivered(struct ps_spool *s, int i, unsigned int version, size_t bytes, double when);

/* Files whose last version the collector does not hold. */
size_t ps_spool_pending(const struct ps_spool *s);

/* The run has ended and the collector holds the last version of every file. */
bool ps_spool_done(const struct ps_spool *s);

#endif
