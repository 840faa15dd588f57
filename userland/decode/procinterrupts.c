/*
 * procinterrupts.c - pure parser of /proc/interrupts text: per-line, per-CPU
 * counts with the chip, hwirq and action names (kernel/irq/proc.c format).
 */
#include "decode/proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && !is_blank(*p))
		p++;
	return p;
}

static bool next_u64(const char **pp, const char *end, uint64_t *val)
{
	const char *p = skip_blanks(*pp, end);
	uint64_t v = 0;

	if (p == end || !is_digit(*p))
		return false;
	for (; p < end && is_digit(*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (p < end && !is_blank(*p))
		return false;
	*pp = p;
	*val = v;
	return true;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *bigger;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	bigger = realloc(*arr, n * elem);
	if (!bigger)
		return -ENOMEM;
	*arr = bigger;
	*cap = n;
	return 0;
}

/* "           CPU0       CPU1       CPU3" (offline CPUs have no column). */
static int parse_header(const char *p, const char *end, struct ps_irq_table *t)
{
	t->ncols = 0;
	for (p = skip_blanks(p, end); p < end; p = skip_blanks(p, end)) {
		const char *e = token_end(p, end);
		long cpu = 0;

		if (e - p < 4 || memcmp(p, "CPU", 3) != 0)
			return -ENODATA;
		for (const char *d = p + 3; d < e; d++) {
			if (!is_digit(*d))
				return -ENODATA;
			cpu = cpu * 10 + (*d - '0');
			if (cpu > PS_PROC_CPU_MAX)
				return -ENODATA;
		}
		if (t->ncols == t->cols_cap) {
			size_t cap = t->cols_cap;
			int ret = grow((void **)&t->cpu_ids, &cap, t->ncols + 1, sizeof(int));

			if (ret)
				return ret;
			t->cols_cap = (unsigned int)cap;
		}
		t->cpu_ids[t->ncols++] = (int)cpu;
		p = e;
	}
	return t->ncols ? 0 : -ENODATA;
}

/* hwirq and handler after the chip: "0-edge", "524288-edge", "Level", "-fasteoi". */
static bool is_hwirq_token(const char *p, const char *e)
{
	if (is_digit(*p)) {
		while (p < e && is_digit(*p))
			p++;
		return p == e || *p == '-';
	}
	if (*p == '-')
		return e - p > 1;
	return (e - p == 5 && memcmp(p, "Level", 5) == 0) ||
	       (e - p == 4 && memcmp(p, "Edge", 4) == 0);
}

static void parse_numbered_tail(const char *p, const char *end, struct ps_irq_line *l)
{
	const char *e;

	p = skip_blanks(p, end);
	if (p == end)
		return;
	e = token_end(p, end);
	l->chip = p;
	l->chip_len = (unsigned int)(e - p);
	p = skip_blanks(e, end);
	while (p < end) {
		e = token_end(p, end);
		if (!is_hwirq_token(p, e))
			break;
		if (!l->hwirq)
			l->hwirq = p;
		l->hwirq_len = (unsigned int)(e - l->hwirq);
		p = skip_blanks(e, end);
	}
	if (p < end) {
		l->name = p;
		l->name_len = (unsigned int)(end - p);
	}
}

static int parse_line(const char *p, const char *end, struct ps_irq_table *t)
{
	const char *colon, *key;
	struct ps_irq_line *l;
	bool numbered = true;
	unsigned int n = 0;
	size_t first;
	int ret;

	p = skip_blanks(p, end);
	key = p;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == key || colon - key >= (long)sizeof(l->key))
		return -EINVAL;
	for (const char *c = key; c < colon; c++) {
		if (is_blank(*c) || *c == '\0') /* a NUL would cut the key short */
			return -EINVAL;
		numbered = numbered && is_digit(*c);
	}
	ret = grow((void **)&t->counts, &t->counts_cap, t->ncounts + t->ncols, sizeof(uint64_t));
	if (ret)
		return ret;
	first = t->ncounts;
	p = colon + 1;
	while (n < t->ncols && next_u64(&p, end, &t->counts[first + n]))
		n++;
	p = skip_blanks(p, end);
	if (n == 0 || (n < t->ncols && !(n == 1 && p == end)))
		return -EINVAL;

	ret = grow((void **)&t->lines, &t->lines_cap, t->nlines + 1, sizeof(*l));
	if (ret)
		return ret;
	l = &t->lines[t->nlines];
	memset(l, 0, sizeof(*l));
	memcpy(l->key, key, (size_t)(colon - key));
	l->counts = first;
	l->ncounts = n;
	l->global = n < t->ncols;
	l->user = -1;
	while (end > p && is_blank(end[-1]))
		end--;
	if (numbered) {
		parse_numbered_tail(p, end, l);
	} else if (p < end) {
		l->name = p;
		l->name_len = (unsigned int)(end - p);
	}
	t->ncounts += n;
	t->nlines++;
	return 0;
}

int ps_irq_parse(const char *text, size_t len, struct ps_irq_table *t)
{
	const char *p = text, *end = text + len, *eol;
	unsigned int lineno = 1;
	int ret;

	t->ncols = 0;
	t->nlines = 0;
	t->ncounts = 0;
	t->bad_lines = 0;
	t->first_bad_line = 0;
	t->truncated = len > 0 && text[len - 1] != '\n';

	eol = memchr(p, '\n', len);
	if (!eol)
		return -ENODATA;
	ret = parse_header(p, eol, t);
	if (ret)
		return ret;
	for (p = eol + 1; p < end; p = eol + 1) {
		lineno++;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break; /* cut by a short read: its last count may be cut too */
		if (skip_blanks(p, eol) == eol)
			continue;
		ret = parse_line(p, eol, t);
		if (ret == -ENOMEM)
			return ret;
		if (ret && !t->bad_lines++)
			t->first_bad_line = lineno;
	}
	return 0;
}

void ps_irq_free(struct ps_irq_table *t)
{
	free(t->cpu_ids);
	free(t->lines);
	free(t->counts);
	memset(t, 0, sizeof(*t));
}

long ps_irq_find(const struct ps_irq_table *t, const char *key, size_t hint)
{
	if (hint < t->nlines && strcmp(t->lines[hint].key, key) == 0)
		return (long)hint;
	for (size_t i = 0; i < t->nlines; i++)
		if (strcmp(t->lines[i].key, key) == 0)
			return (long)i;
	return -1;
}
