/* procstat.c - pure parser of /proc/stat text: per-CPU tick counters and the interrupt total. */
#include "decode/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Reads one unsigned decimal after blanks; false on no digits, overflow or a glued suffix. */
static bool next_u64(const char **pp, const char *end, uint64_t *val)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (p < end && *p != ' ' && *p != '\t')
		return false;
	*pp = p;
	*val = v;
	return true;
}

static bool only_blanks(const char *p, const char *end)
{
	for (; p < end; p++)
		if (*p != ' ' && *p != '\t' && *p != '\r')
			return false;
	return true;
}

/* "cpu  1 2 3 4 ..." or "cpu7 1 2 3 4 ...": 4 to 10 fields, nothing after. */
static bool parse_cpu_line(const char *p, const char *end, struct ps_stat_cpu *c)
{
	unsigned int n = 0;

	p += 3;
	if (p < end && *p >= '0' && *p <= '9') {
		long cpu = 0;

		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			cpu = cpu * 10 + (*p - '0');
			if (cpu > PS_PROC_CPU_MAX)
				return false;
		}
		c->cpu = (int)cpu;
	} else {
		c->cpu = -1;
	}
	if (p == end || (*p != ' ' && *p != '\t'))
		return false;
	memset(c->v, 0, sizeof(c->v));
	while (n < PS_ST_NFIELDS && next_u64(&p, end, &c->v[n]))
		n++;
	if (n < 4 || !only_blanks(p, end))
		return false;
	c->nfields = n;
	return true;
}

static void bad_line(struct ps_stat *st, unsigned int lineno)
{
	if (!st->bad_lines++)
		st->first_bad_line = lineno;
}

int ps_stat_parse(const char *text, size_t len, struct ps_stat *st)
{
	const char *p = text, *end = text + len;
	unsigned int lineno = 0;

	st->has_all = false;
	st->ncpus = 0;
	st->has_intr = false;
	st->intr_total = 0;
	st->bad_lines = 0;
	st->first_bad_line = 0;
	st->truncated = len > 0 && text[len - 1] != '\n';

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next;

		lineno++;
		if (!eol) {
			/* A short read cut this line: its last number may be cut too. */
			break;
		}
		next = eol + 1;
		if ((size_t)(eol - p) >= 3 && memcmp(p, "cpu", 3) == 0) {
			struct ps_stat_cpu c;

			if (!parse_cpu_line(p, eol, &c)) {
				bad_line(st, lineno);
			} else if (c.cpu < 0) {
				st->all = c;
				st->has_all = true;
			} else {
				if (st->ncpus == st->cpus_cap) {
					size_t cap = st->cpus_cap ? st->cpus_cap * 2 : 8;
					struct ps_stat_cpu *n = realloc(st->cpus, cap * sizeof(*n));

					if (!n)
						return -ENOMEM;
					st->cpus = n;
					st->cpus_cap = cap;
				}
				st->cpus[st->ncpus++] = c;
			}
		} else if ((size_t)(eol - p) >= 5 && memcmp(p, "intr ", 5) == 0) {
			const char *q = p + 4;

			if (next_u64(&q, eol, &st->intr_total))
				st->has_intr = true;
			else
				bad_line(st, lineno);
		}
		p = next;
	}
	return st->has_all || st->ncpus ? 0 : -ENODATA;
}

void ps_stat_free(struct ps_stat *st)
{
	free(st->cpus);
	memset(st, 0, sizeof(*st));
}

uint64_t ps_stat_cpu_total(const struct ps_stat_cpu *c)
{
	uint64_t t = 0;

	for (int i = PS_ST_USER; i <= PS_ST_STEAL; i++)
		t += c->v[i];
	return t;
}
