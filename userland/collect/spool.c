/* spool.c - the bookkeeping of one run's delivery to the collector. */
#include "collect/spool.h"

#include <string.h>

const char *const ps_spool_names[PS_SPOOL_FILES] = {
    [PS_SPOOL_OCP] = "report.ocp.jsonl",
    [PS_SPOOL_TXT] = "report.txt",
    [PS_SPOOL_HTML] = "report.html",
    [PS_SPOOL_JSON] = "report.json",
};

void ps_spool_init(struct ps_spool *s, uint32_t seed)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < PS_SPOOL_FILES; i++)
		s->f[i].name = ps_spool_names[i];
	ps_retry_init(&s->retry, seed);
}

void ps_spool_written(struct ps_spool *s, bool complete)
{
	/* The live stream grows with every step; the rest is whole only at the end. */
	s->f[PS_SPOOL_OCP].written++;
	if (!complete)
		return;
	s->complete = true;
	for (int i = 0; i < PS_SPOOL_FILES; i++)
		if (i != PS_SPOOL_OCP)
			s->f[i].written++;
}

static bool pending(const struct ps_spool_file *f)
{
	return f->written && f->delivered != f->written;
}

int ps_spool_next(const struct ps_spool *s, double now, double *wait)
{
	const struct ps_spool_file *ocp = &s->f[PS_SPOOL_OCP];

	*wait = 3600;
	for (int i = 0; i < PS_SPOOL_FILES; i++) {
		if (!pending(&s->f[i]))
			continue;
		if (i == PS_SPOOL_JSON) {
			for (int k = 0; k < PS_SPOOL_JSON; k++)
				if (pending(&s->f[k]))
					return -1;
		}
		if (i == PS_SPOOL_OCP && !s->complete && ocp->delivered_at > 0 &&
		    now - ocp->delivered_at < PS_SPOOL_LIVE_EVERY_S) {
			*wait = ocp->delivered_at + PS_SPOOL_LIVE_EVERY_S - now;
			continue;
		}
		*wait = 0;
		return i;
	}
	return -1;
}

void ps_spool_delivered(struct ps_spool *s, int i, unsigned int version, size_t bytes, double when)
{
	if (i < 0 || i >= PS_SPOOL_FILES || version <= s->f[i].delivered)
		return;
	s->f[i].delivered = version;
	s->f[i].bytes = bytes;
	s->f[i].delivered_at = when;
}

size_t ps_spool_pending(const struct ps_spool *s)
{
	size_t n = 0;

	for (int i = 0; i < PS_SPOOL_FILES; i++)
		n += pending(&s->f[i]);
	return n;
}

bool ps_spool_done(const struct ps_spool *s)
{
	return s->complete && ps_spool_pending(s) == 0;
}
