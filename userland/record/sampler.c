/*
 * sampler.c - per-step load sampler: reads /proc/stat and /proc/interrupts
 * once a second on a thread, accumulates deltas, and builds steps[].load.
 */
#include "record/sampler.h"
#include "record/recorder.h"
#include "decode/proc.h"
#include "lib/util.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct cpu_acc {
	uint64_t
	    base[PS_ST_NFIELDS]; /* high-water mark: counters that step back are not re-counted */
	uint64_t sum[PS_ST_NFIELDS];
	unsigned int intervals;
	unsigned int backwards;
	bool seen, in_prev, in_cur;
};

struct irq_acc {
	char key[16];
	char *chip, *hwirq, *name;
	uint64_t *per_cpu; /* indexed by CPU number, ncpu_cap long */
	uint64_t total;
	unsigned int wraps, resets;
	unsigned long stamp; /* sample number this line was last seen in */
	bool global;
};

/* One series[] point: the sum of `samples` intervals. */
struct series_point {
	double t_end;
	double irq_dt;
	uint64_t irqs;
	unsigned int samples;
};

struct ps_load_acc {
	unsigned int interval_ms;
	unsigned long samples;
	double t_first, t_last;

	struct ps_stat st[2];
	int st_cur;
	bool st_have_prev;
	double st_t_prev;
	int st_err;
	unsigned long st_ok, st_fail, st_bad_lines, st_truncated;
	unsigned int st_first_bad_line;

	struct ps_irq_table it[2];
	int it_cur;
	bool it_have_prev;
	double it_t_prev;
	int it_err;
	unsigned long it_ok, it_fail, it_bad_lines, it_truncated;
	unsigned int it_first_bad_line;

	/* Indexed by CPU number; ncpu_cap grows when a higher number shows up. */
	unsigned int ncpu_cap;
	struct cpu_acc *cpu;
	bool *irq_cpu_seen;
	int *prev_col; /* scratch: CPU number -> column in the previous interrupts table */
	uint32_t *ivl_busy, *ivl_total; /* scratch: this interval's ticks per CPU */
	struct cpu_acc all;
	unsigned int st_intervals, it_intervals;

	struct irq_acc *irqs;
	size_t nirqs, irqs_cap;

	/* series: points[0..npoints) closed, points[npoints] open while its samples > 0 */
	struct series_point *points;
	uint32_t *pt_busy, *pt_total; /* [point * ncpu_cap + cpu] */
	size_t points_cap;
	size_t npoints;
	unsigned int stride;

	char *notes[PS_SAMPLER_NOTES_MAX];
	unsigned int nnotes, notes_dropped;
	bool oom;
};

static void free_acc(struct ps_load_acc *a);
static int ensure_cpu(struct ps_load_acc *a, int cpu);
static void note(struct ps_load_acc *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct ps_load_acc *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (a->nnotes == PS_SAMPLER_NOTES_MAX) {
		a->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (s)
		a->notes[a->nnotes++] = s;
}

struct ps_load_acc *ps_load_acc_new(unsigned int interval_ms)
{
	struct ps_load_acc *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->interval_ms = interval_ms ? interval_ms : PS_SAMPLER_INTERVAL_MS;
	a->stride = 1;
	if (ensure_cpu(a, 0)) {
		free_acc(a);
		return NULL;
	}
	return a;
}

static void *grow_zero(void *arr, size_t old_n, size_t new_n, size_t elem)
{
	char *p = realloc(arr, new_n * elem);

	if (p)
		memset(p + old_n * elem, 0, (new_n - old_n) * elem);
	return p;
}

/* Makes CPU number cpu indexable everywhere; rare (first sample, a CPU beyond the first ones). */
static int ensure_cpu(struct ps_load_acc *a, int cpu)
{
	unsigned int old = a->ncpu_cap, n = old ? old : 8;
	void *p;

	if (cpu < 0)
		return -EINVAL;
	if ((unsigned int)cpu < old)
		return 0;
	while (n <= (unsigned int)cpu)
		n *= 2;
	if (!(p = grow_zero(a->cpu, old, n, sizeof(*a->cpu))))
		return -ENOMEM;
	a->cpu = p;
	if (!(p = grow_zero(a->irq_cpu_seen, old, n, sizeof(bool))))
		return -ENOMEM;
	a->irq_cpu_seen = p;
	if (!(p = realloc(a->prev_col, n * sizeof(int))))
		return -ENOMEM;
	a->prev_col = p;
	if (!(p = grow_zero(a->ivl_busy, old, n, sizeof(uint32_t))))
		return -ENOMEM;
	a->ivl_busy = p;
	if (!(p = grow_zero(a->ivl_total, old, n, sizeof(uint32_t))))
		return -ENOMEM;
	a->ivl_total = p;
	for (size_t i = 0; i < a->nirqs; i++) {
		if (!(p = grow_zero(a->irqs[i].per_cpu, old, n, sizeof(uint64_t))))
			return -ENOMEM;
		a->irqs[i].per_cpu = p;
	}
	if (a->points_cap) {
		/* Re-lay the series rows out at the new width. */
		uint32_t *b = calloc(a->points_cap * n, sizeof(uint32_t));
		uint32_t *t = calloc(a->points_cap * n, sizeof(uint32_t));

		if (!b || !t) {
			free(b);
			free(t);
			return -ENOMEM;
		}
		for (size_t i = 0; i < a->points_cap; i++) {
			memcpy(b + i * n, a->pt_busy + i * old, old * sizeof(uint32_t));
			memcpy(t + i * n, a->pt_total + i * old, old * sizeof(uint32_t));
		}
		free(a->pt_busy);
		free(a->pt_total);
		a->pt_busy = b;
		a->pt_total = t;
	}
	a->ncpu_cap = n;
	return 0;
}

/* ------------------------------------------------------------ /proc/stat -- */

/* Adds one interval to acc; returns this interval's ticks per field in ivl. */
static void cpu_interval(struct cpu_acc *c, const struct ps_stat_cpu *cur, uint64_t *ivl)
{
	bool back = false;

	for (int f = 0; f < PS_ST_NFIELDS; f++) {
		ivl[f] = 0;
		if (cur->v[f] >= c->base[f]) {
			ivl[f] = cur->v[f] - c->base[f];
			c->sum[f] += ivl[f];
			c->base[f] = cur->v[f];
		} else {
			back = true;
		}
	}
	c->backwards += back;
	c->intervals++;
}

static void cpu_baseline(struct cpu_acc *c, const struct ps_stat_cpu *cur)
{
	memcpy(c->base, cur->v, sizeof(c->base));
}

static uint64_t ivl_total(const uint64_t *ivl)
{
	uint64_t t = 0;

	for (int f = PS_ST_USER; f <= PS_ST_STEAL; f++)
		t += ivl[f];
	return t;
}

/* Returns true when an interval (not just a baseline) was added. */
static bool add_stat(struct ps_load_acc *a, double t, const struct ps_stat *st)
{
	bool interval = a->st_have_prev;
	uint64_t ivl[PS_ST_NFIELDS];

	if (st->has_all) {
		if (interval && a->all.seen)
			cpu_interval(&a->all, &st->all, ivl);
		else
			cpu_baseline(&a->all, &st->all);
		a->all.seen = true;
	}
	for (unsigned int i = 0; i < a->ncpu_cap; i++) {
		a->cpu[i].in_cur = false;
		a->ivl_busy[i] = a->ivl_total[i] = 0;
	}
	for (size_t i = 0; i < st->ncpus; i++) {
		const struct ps_stat_cpu *cur = &st->cpus[i];
		struct cpu_acc *c;

		if (ensure_cpu(a, cur->cpu)) {
			a->oom = true;
			continue;
		}
		c = &a->cpu[cur->cpu];
		if (c->in_cur)
			continue; /* a duplicated line: the first one counts */
		c->in_cur = true;
		if (interval && c->in_prev) {
			uint64_t tot;

			cpu_interval(c, cur, ivl);
			tot = ivl_total(ivl);
			a->ivl_total[cur->cpu] = (uint32_t)(tot > UINT32_MAX ? UINT32_MAX : tot);
			tot -= ivl[PS_ST_IDLE] + ivl[PS_ST_IOWAIT];
			a->ivl_busy[cur->cpu] = (uint32_t)(tot > UINT32_MAX ? UINT32_MAX : tot);
		} else {
			if (interval)
				note(a, "cpu%d came online %.1f s into the step; counted from then",
				     cur->cpu, t - a->t_first);
			cpu_baseline(c, cur);
		}
		c->seen = true;
	}
	for (unsigned int i = 0; i < a->ncpu_cap; i++) {
		struct cpu_acc *c = &a->cpu[i];

		if (interval && c->in_prev && !c->in_cur)
			note(a, "cpu%u went offline %.1f s into the step", i, t - a->t_first);
		c->in_prev = c->in_cur;
	}
	if (interval)
		a->st_intervals++;
	return interval;
}

/* ------------------------------------------------------- /proc/interrupts -- */

static char *dup_span(const char *s, unsigned int len)
{
	return s ? strndup(s, len) : NULL;
}

static bool span_eq(const char *stored, const char *s, unsigned int len)
{
	if (!stored || !s)
		return !stored && (!s || len == 0);
	return strlen(stored) == len && memcmp(stored, s, len) == 0;
}

static int new_irq_acc(struct ps_load_acc *a, const struct ps_irq_line *l)
{
	struct irq_acc *r;

	if (a->nirqs == a->irqs_cap) {
		size_t cap = a->irqs_cap ? a->irqs_cap * 2 : 64;
		void *p = realloc(a->irqs, cap * sizeof(*a->irqs));

		if (!p)
			return -ENOMEM;
		a->irqs = p;
		a->irqs_cap = cap;
	}
	r = &a->irqs[a->nirqs];
	memset(r, 0, sizeof(*r));
	memcpy(r->key, l->key, sizeof(r->key));
	r->chip = dup_span(l->chip, l->chip_len);
	r->hwirq = dup_span(l->hwirq, l->hwirq_len);
	r->name = dup_span(l->name, l->name_len);
	r->per_cpu = calloc(a->ncpu_cap ? a->ncpu_cap : 1, sizeof(uint64_t));
	r->global = l->global;
	if (!r->per_cpu) {
		free(r->chip);
		free(r->hwirq);
		free(r->name);
		return -ENOMEM;
	}
	return (int)a->nirqs++;
}

static int find_irq_acc(struct ps_load_acc *a, const char *key)
{
	for (size_t i = 0; i < a->nirqs; i++)
		if (strcmp(a->irqs[i].key, key) == 0)
			return (int)i;
	return -1;
}

/*
 * Per-CPU interrupt counts are unsigned int in the kernel: a smaller value
 * is a wrap when the distance through 2^32 is plausible for one interval,
 * else the descriptor was freed and reallocated and counts from 0 again.
 */
static uint64_t irq_delta(uint64_t prev, uint64_t cur, struct irq_acc *r)
{
	if (cur >= prev)
		return cur - prev;
	if (prev <= UINT32_MAX) {
		uint64_t wrapped = (UINT32_MAX - prev) + cur + 1;

		if (wrapped < (1ULL << 31)) {
			r->wraps++;
			return wrapped;
		}
	}
	r->resets++;
	return cur;
}

static void irq_label(const struct irq_acc *r, char *buf, size_t len)
{
	if (r->name && *r->name)
		snprintf(buf, len, "%s%s (%s)", r->global ? "" : "irq ", r->key, r->name);
	else
		snprintf(buf, len, "irq %s", r->key);
}

/* Returns the interrupts counted in this interval, or -1 when it was only a baseline. */
/*
 * The sample's CPU columns: every CPU made room for, each previous column
 * found again (a->prev_col), and CPUs that came or went noted where
 * /proc/stat did not. -1 when out of memory.
 */
static int irq_columns(struct ps_load_acc *a, double t, const struct ps_irq_table *cur,
		       const struct ps_irq_table *prev, bool interval)
{
	for (unsigned int k = 0; k < cur->ncols; k++) {
		if (ensure_cpu(a, cur->cpu_ids[k])) {
			a->oom = true;
			return -1;
		}
		a->irq_cpu_seen[cur->cpu_ids[k]] = true;
	}
	if (!interval)
		return 0;
	for (unsigned int i = 0; i < a->ncpu_cap; i++)
		a->prev_col[i] = -1;
	for (unsigned int k = 0; k < prev->ncols; k++)
		if ((unsigned int)prev->cpu_ids[k] < a->ncpu_cap)
			a->prev_col[prev->cpu_ids[k]] = (int)k;
	/* /proc/stat, when there, already noted CPUs going on- and offline. */
	for (unsigned int k = 0; k < cur->ncols && !a->st_ok; k++)
		if (a->prev_col[cur->cpu_ids[k]] < 0)
			note(a, "cpu%d appeared in /proc/interrupts %.1f s into the step",
			     cur->cpu_ids[k], t - a->t_first);
	for (unsigned int k = 0; k < prev->ncols && !a->st_ok; k++) {
		bool still = false;

		for (unsigned int m = 0; m < cur->ncols && !still; m++)
			still = cur->cpu_ids[m] == prev->cpu_ids[k];
		if (!still)
			note(a, "cpu%d left /proc/interrupts %.1f s into the step (went offline)",
			     prev->cpu_ids[k], t - a->t_first);
	}
	return 0;
}

/*
 * The accumulator of line l (its previous sample's pl, or NULL): the same
 * one, one found by key, or a new one (noted when it appeared mid-step);
 * its name kept current. NULL when out of memory.
 */
static struct irq_acc *irq_line_acc(struct ps_load_acc *a, double t, struct ps_irq_line *l,
				    const struct ps_irq_line *pl, bool interval)
{
	struct irq_acc *r;
	char label[160];

	if (pl && pl->user >= 0) {
		l->user = pl->user;
	} else {
		l->user = a->samples ? find_irq_acc(a, l->key) : -1;
		if (l->user < 0)
			l->user = new_irq_acc(a, l);
		if (l->user < 0) {
			a->oom = true;
			return NULL;
		}
		if (interval) {
			irq_label(&a->irqs[l->user], label, sizeof(label));
			note(a, "%s appeared %.1f s into the step; counted from then", label,
			     t - a->t_first);
		}
	}
	r = &a->irqs[l->user];
	r->stamp = a->samples;
	if (!span_eq(r->name, l->name, l->name_len)) {
		char *name = dup_span(l->name, l->name_len);

		if (r->name && *r->name && name && *name)
			note(a, "irq %s changed from %s to %s %.1f s into the step", r->key,
			     r->name, name, t - a->t_first);
		if (name && *name) {
			free(r->name);
			r->name = name;
		} else {
			free(name);
		}
	}
	return r;
}

/* Line l's interrupts since its previous sample pl, per CPU into r: their count. */
static uint64_t irq_line_delta(const struct ps_load_acc *a, const struct ps_irq_table *cur,
			       const struct ps_irq_table *prev, const struct ps_irq_line *l,
			       const struct ps_irq_line *pl, struct irq_acc *r)
{
	uint64_t count = 0;

	if (pl->global != l->global) {
		r->resets++;
		return 0;
	}
	if (l->global) {
		uint64_t d = irq_delta(prev->counts[pl->counts], cur->counts[l->counts], r);

		r->total += d;
		return d;
	}
	for (unsigned int k = 0; k < l->ncounts; k++) {
		int cpu = cur->cpu_ids[k];
		int pk = a->prev_col[cpu];
		uint64_t d;

		if (pk < 0 || (unsigned int)pk >= pl->ncounts)
			continue;
		d = irq_delta(prev->counts[pl->counts + pk], cur->counts[l->counts + k], r);
		r->per_cpu[cpu] += d;
		r->total += d;
		count += d;
	}
	return count;
}

static int64_t add_irqs(struct ps_load_acc *a, double t, struct ps_irq_table *cur,
			const struct ps_irq_table *prev)
{
	bool interval = a->it_have_prev;
	uint64_t count = 0;
	size_t hint = 0;
	char label[160];

	if (irq_columns(a, t, cur, prev, interval) < 0)
		return -1;
	for (size_t i = 0; i < cur->nlines; i++) {
		struct ps_irq_line *l = &cur->lines[i];
		const struct ps_irq_line *pl = NULL;
		struct irq_acc *r;
		long j = interval ? ps_irq_find(prev, l->key, hint) : -1;

		if (j >= 0) {
			pl = &prev->lines[j];
			hint = (size_t)j + 1;
		}
		r = irq_line_acc(a, t, l, pl, interval);
		if (r && pl)
			count += irq_line_delta(a, cur, prev, l, pl, r);
	}
	if (interval) {
		for (size_t i = 0; i < prev->nlines; i++) {
			int u = prev->lines[i].user;

			if (u >= 0 && a->irqs[u].stamp != a->samples) {
				a->irqs[u].stamp = a->samples;
				irq_label(&a->irqs[u], label, sizeof(label));
				note(a, "%s disappeared %.1f s into the step", label,
				     t - a->t_first);
			}
		}
		a->it_intervals++;
	}
	return interval ? (int64_t)count : -1;
}

/* ----------------------------------------------------------------- series -- */

static uint32_t *row(uint32_t *base, const struct ps_load_acc *a, size_t point)
{
	return base + point * a->ncpu_cap;
}

static int series_reserve(struct ps_load_acc *a, size_t need)
{
	size_t cap = a->points_cap ? a->points_cap : 64;
	void *p;

	if (need <= a->points_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > PS_SAMPLER_SERIES_MAX)
		cap = PS_SAMPLER_SERIES_MAX;
	if (!(p = grow_zero(a->points, a->points_cap, cap, sizeof(*a->points))))
		return -ENOMEM;
	a->points = p;
	if (!(p = grow_zero(a->pt_busy, a->points_cap * a->ncpu_cap, cap * a->ncpu_cap,
			    sizeof(uint32_t))))
		return -ENOMEM;
	a->pt_busy = p;
	if (!(p = grow_zero(a->pt_total, a->points_cap * a->ncpu_cap, cap * a->ncpu_cap,
			    sizeof(uint32_t))))
		return -ENOMEM;
	a->pt_total = p;
	a->points_cap = cap;
	return 0;
}

static void point_merge(struct ps_load_acc *a, size_t dst, size_t src)
{
	struct series_point *d = &a->points[dst], *s = &a->points[src];
	uint32_t *db = row(a->pt_busy, a, dst), *sb = row(a->pt_busy, a, src);
	uint32_t *dt = row(a->pt_total, a, dst), *st = row(a->pt_total, a, src);

	d->t_end = s->t_end;
	d->irq_dt += s->irq_dt;
	d->irqs += s->irqs;
	d->samples += s->samples;
	for (unsigned int c = 0; c < a->ncpu_cap; c++) {
		db[c] += sb[c];
		dt[c] += st[c];
	}
}

/* Halves the closed points pairwise so that a long step keeps PS_SAMPLER_SERIES_MAX points. */
static void series_halve(struct ps_load_acc *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->npoints; i += 2, n++) {
		if (n != i) {
			a->points[n] = a->points[i];
			memcpy(row(a->pt_busy, a, n), row(a->pt_busy, a, i),
			       a->ncpu_cap * sizeof(uint32_t));
			memcpy(row(a->pt_total, a, n), row(a->pt_total, a, i),
			       a->ncpu_cap * sizeof(uint32_t));
		}
		if (i + 1 < a->npoints)
			point_merge(a, n, i + 1);
	}
	for (size_t i = n; i < a->npoints; i++) {
		memset(&a->points[i], 0, sizeof(a->points[i]));
		memset(row(a->pt_busy, a, i), 0, a->ncpu_cap * sizeof(uint32_t));
		memset(row(a->pt_total, a, i), 0, a->ncpu_cap * sizeof(uint32_t));
	}
	a->npoints = n;
	a->stride *= 2;
}

static void series_add(struct ps_load_acc *a, double t, bool have_ticks, int64_t irqs,
		       double irq_dt)
{
	struct series_point *p;
	uint32_t *b, *tt;

	if (series_reserve(a, a->npoints + 1)) {
		a->oom = true;
		return;
	}
	p = &a->points[a->npoints];
	b = row(a->pt_busy, a, a->npoints);
	tt = row(a->pt_total, a, a->npoints);
	p->t_end = t;
	p->samples++;
	if (irqs >= 0) {
		p->irqs += (uint64_t)irqs;
		p->irq_dt += irq_dt;
	}
	if (have_ticks) {
		for (unsigned int c = 0; c < a->ncpu_cap; c++) {
			b[c] += a->ivl_busy[c];
			tt[c] += a->ivl_total[c];
		}
	}
	if (p->samples < a->stride)
		return;
	a->npoints++;
	if (a->npoints == PS_SAMPLER_SERIES_MAX)
		series_halve(a);
}

/* ------------------------------------------------------------------ input -- */

int ps_load_acc_add(struct ps_load_acc *a, double t, const char *stat, size_t stat_len,
		    int stat_err, const char *intr, size_t intr_len, int intr_err)
{
	bool st_ok = false, it_ok = false, ticks = false;
	double st_prev_t = a->st_t_prev, it_dt = t - a->it_t_prev;
	int64_t irqs = -1;

	if (stat) {
		struct ps_stat *cur = &a->st[a->st_cur];

		stat_err = ps_stat_parse(stat, stat_len, cur);
		if (stat_err == -ENOMEM)
			return stat_err;
		a->st_bad_lines += cur->bad_lines;
		a->st_truncated += cur->truncated;
		if (cur->bad_lines && !a->st_first_bad_line)
			a->st_first_bad_line = cur->first_bad_line;
		st_ok = stat_err == 0;
	}
	if (intr) {
		struct ps_irq_table *cur = &a->it[a->it_cur];

		intr_err = ps_irq_parse(intr, intr_len, cur);
		if (intr_err == -ENOMEM)
			return intr_err;
		a->it_bad_lines += cur->bad_lines;
		a->it_truncated += cur->truncated;
		if (cur->bad_lines && !a->it_first_bad_line)
			a->it_first_bad_line = cur->first_bad_line;
		it_ok = intr_err == 0;
	}
	/* A reading that fails between good ones only lengthens the next interval. */
	if (!st_ok) {
		if (!a->st_err)
			a->st_err = stat_err < 0 ? stat_err : -EIO;
		a->st_fail++;
	}
	if (!it_ok) {
		if (!a->it_err)
			a->it_err = intr_err < 0 ? intr_err : -EIO;
		a->it_fail++;
	}
	if (!st_ok && !it_ok)
		return 0;
	if (!a->samples)
		a->t_first = t;
	a->t_last = t;

	/* A stat reading that fails between good ones only lengthens the next interval. */
	if (st_ok) {
		ticks = add_stat(a, t, &a->st[a->st_cur]);
		a->st_cur ^= 1;
		a->st_have_prev = true;
		a->st_t_prev = t;
		a->st_ok++;
	}
	if (it_ok) {
		irqs = add_irqs(a, t, &a->it[a->it_cur], &a->it[a->it_cur ^ 1]);
		a->it_cur ^= 1;
		a->it_have_prev = true;
		a->it_t_prev = t;
		a->it_ok++;
	}
	if (irqs < 0 && st_ok && ticks && !a->it_ok) {
		/* No /proc/interrupts at all: the "intr" total still gives a rate. */
		const struct ps_stat *cur = &a->st[a->st_cur ^ 1], *prev = &a->st[a->st_cur];

		if (cur->has_intr && prev->has_intr && cur->intr_total >= prev->intr_total) {
			irqs = (int64_t)(cur->intr_total - prev->intr_total);
			it_dt = t - st_prev_t;
		}
	}
	if (a->samples && (ticks || irqs >= 0))
		series_add(a, t, ticks, irqs, it_dt);
	a->samples++;
	return 0;
}

/* ----------------------------------------------------------------- output -- */

static json_object *one_decimal(double v)
{
	char buf[32];
	long long x;

	if (v < 0)
		v = 0;
	x = (long long)(v * 10 + 0.5);
	snprintf(buf, sizeof(buf), "%lld.%lld", x / 10, x % 10);
	return json_object_new_double_s((double)x / 10, buf);
}

/* Unknown (null) when nothing was counted, or when the counts cannot be a share: a
 * counter that leapt by nearly 2^64 wraps the sums. */
static json_object *pct(uint64_t part, uint64_t whole)
{
	return whole && part <= whole ? one_decimal(100.0 * (double)part / (double)whole) : NULL;
}

static json_object *cpu_json(const uint64_t *sum, int cpu)
{
	json_object *o = json_object_new_object();
	uint64_t total = 0;
	static const struct {
		const char *name;
		int field;
	} fields[] = {
	    {"user", PS_ST_USER}, {"nice", PS_ST_NICE},	      {"system", PS_ST_SYSTEM},
	    {"irq", PS_ST_IRQ},	  {"softirq", PS_ST_SOFTIRQ}, {"iowait", PS_ST_IOWAIT},
	    {"idle", PS_ST_IDLE}, {"steal", PS_ST_STEAL},
	};

	for (int f = PS_ST_USER; f <= PS_ST_STEAL; f++)
		total += sum[f];
	if (cpu >= 0)
		json_object_object_add(o, "cpu", json_object_new_int(cpu));
	for (size_t i = 0; i < PS_ARRAY_SIZE(fields); i++)
		json_object_object_add(o, fields[i].name, pct(sum[fields[i].field], total));
	json_object_object_add(o, "busy", pct(total - sum[PS_ST_IDLE] - sum[PS_ST_IOWAIT], total));
	json_object_object_add(o, "guest", pct(sum[PS_ST_GUEST] + sum[PS_ST_GUEST_NICE], total));
	json_object_object_add(o, "ticks", json_object_new_int64((int64_t)total));
	return o;
}

static int cmp_irq_total(const void *x, const void *y)
{
	const struct irq_acc *const *a = x, *const *b = y;

	if ((*a)->total != (*b)->total)
		return (*a)->total < (*b)->total ? 1 : -1;
	return *a < *b ? -1 : *a > *b; /* keep /proc/interrupts order among equals */
}

static void errno_text(char *buf, size_t len, const char *file, int err)
{
	if (err == -ENODATA)
		snprintf(buf, len, "%s: no parsable data", file);
	else
		snprintf(buf, len, "%s: %s", file, strerror(-err));
}

static void add_irq_json(struct ps_load_acc *a, json_object *load, const int *ids, size_t nids)
{
	json_object *irqs = json_object_new_array(), *other = json_object_new_object();
	struct irq_acc **order = calloc(a->nirqs ? a->nirqs : 1, sizeof(*order));
	uint64_t other_total = 0, all_total = 0;
	size_t n = 0, other_lines = 0;

	if (!order) {
		a->oom = true;
		json_object_object_add(load, "irqs", irqs);
		json_object_put(other);
		return;
	}
	for (size_t i = 0; i < a->nirqs; i++)
		if (a->irqs[i].total)
			order[n++] = &a->irqs[i];
	qsort(order, n, sizeof(*order), cmp_irq_total);
	for (size_t i = 0; i < n; i++) {
		struct irq_acc *r = order[i];
		json_object *o, *pc;

		all_total += r->total;
		if (i >= PS_SAMPLER_IRQS_MAX) {
			other_total += r->total;
			other_lines++;
			continue;
		}
		/* Keys and names come as the kernel printed them (a netdev may be named
		 * anything): cleaned as every report string is. */
		o = json_object_new_object();
		json_object_object_add(o, "irq", ps_json_new_str(r->key));
		json_object_object_add(o, "name",
				       r->name && *r->name ? ps_json_new_str(r->name)
							   : json_object_new_string(""));
		json_object_object_add(o, "chip", ps_json_new_str(r->chip));
		if (r->hwirq)
			json_object_object_add(o, "hwirq", ps_json_new_str(r->hwirq));
		json_object_object_add(o, "total", json_object_new_int64((int64_t)r->total));
		if (r->global) {
			json_object_object_add(o, "global", json_object_new_boolean(1));
		} else {
			pc = json_object_new_array();
			for (size_t k = 0; k < nids; k++)
				json_object_array_add(
				    pc, json_object_new_int64((int64_t)r->per_cpu[ids[k]]));
			json_object_object_add(o, "per_cpu", pc);
		}
		json_object_array_add(irqs, o);
	}
	free(order);
	json_object_object_add(load, "irqs", irqs);
	json_object_object_add(other, "lines", json_object_new_int64((int64_t)other_lines));
	json_object_object_add(other, "total", json_object_new_int64((int64_t)other_total));
	json_object_object_add(load, "irqs_other", other);
	json_object_object_add(load, "irq_total", json_object_new_int64((int64_t)all_total));
}

static void add_series_json(struct ps_load_acc *a, json_object *load, const int *ids, size_t nids)
{
	json_object *series = json_object_new_array();
	size_t n = a->npoints + (a->npoints < a->points_cap && a->points[a->npoints].samples);

	for (size_t i = 0; i < n; i++) {
		const struct series_point *p = &a->points[i];
		const uint32_t *b = row(a->pt_busy, a, i), *t = row(a->pt_total, a, i);
		json_object *o = json_object_new_object(), *busy = json_object_new_array();

		json_object_object_add(o, "t", one_decimal(p->t_end - a->t_first));
		for (size_t k = 0; k < nids; k++)
			json_object_array_add(busy, pct(b[ids[k]], t[ids[k]]));
		json_object_object_add(o, "busy", busy);
		json_object_object_add(
		    o, "irq_rate",
		    p->irq_dt > 0
			? json_object_new_int64((int64_t)((double)p->irqs / p->irq_dt + 0.5))
			: NULL);
		json_object_array_add(series, o);
	}
	json_object_object_add(load, "series_step_s",
			       one_decimal(a->stride * (double)a->interval_ms / 1000.0));
	json_object_object_add(load, "series", series);
}

static void free_acc(struct ps_load_acc *a)
{
	for (int i = 0; i < 2; i++) {
		ps_stat_free(&a->st[i]);
		ps_irq_free(&a->it[i]);
	}
	for (size_t i = 0; i < a->nirqs; i++) {
		free(a->irqs[i].chip);
		free(a->irqs[i].hwirq);
		free(a->irqs[i].name);
		free(a->irqs[i].per_cpu);
	}
	free(a->irqs);
	free(a->cpu);
	free(a->irq_cpu_seen);
	free(a->prev_col);
	free(a->ivl_busy);
	free(a->ivl_total);
	free(a->points);
	free(a->pt_busy);
	free(a->pt_total);
	for (unsigned int i = 0; i < a->nnotes; i++)
		free(a->notes[i]);
	free(a);
}

/* Why /proc/stat or /proc/interrupts gave nothing, when one did not. */
static void unavailable_json(const struct ps_load_acc *a, json_object *load)
{
	char unavailable[512] = "", buf[256];

	if (!a->st_ok) {
		errno_text(buf, sizeof(buf), "/proc/stat", a->st_err ? a->st_err : -ENODATA);
		snprintf(unavailable, sizeof(unavailable), "%s", buf);
	}
	if (!a->it_ok) {
		size_t used = strlen(unavailable);

		errno_text(buf, sizeof(buf), "/proc/interrupts", a->it_err ? a->it_err : -ENODATA);
		snprintf(unavailable + used, sizeof(unavailable) - used, "%s%s", used ? "; " : "",
			 buf);
	}
	if (*unavailable)
		json_object_object_add(load, "unavailable", json_object_new_string(unavailable));
}

/*
 * Each CPU's times and the total. The total is the sum of the per-CPU lines:
 * the aggregate "cpu" line also holds offline CPUs' frozen counters, whose
 * idle time jumps when they go off- and online. It is used only when no
 * per-CPU line parsed.
 */
static void cpus_json(const struct ps_load_acc *a, json_object *load, const int *ids, size_t nids)
{
	json_object *ids_json = json_object_new_array(), *cpus = json_object_new_array();

	for (size_t k = 0; k < nids; k++)
		json_object_array_add(ids_json, json_object_new_int(ids[k]));
	json_object_object_add(load, "cpu_ids", ids_json);
	for (size_t k = 0; k < nids; k++) {
		const struct cpu_acc *c = &a->cpu[ids[k]];

		if (c->seen)
			json_object_array_add(cpus, cpu_json(c->sum, ids[k]));
	}
	json_object_object_add(load, "cpus", cpus);
	if (json_object_array_length(cpus)) {
		uint64_t sum[PS_ST_NFIELDS] = {0};

		for (size_t k = 0; k < nids; k++)
			for (int f = 0; f < PS_ST_NFIELDS; f++)
				sum[f] += a->cpu[ids[k]].sum[f];
		json_object_object_add(load, "total", cpu_json(sum, -1));
	} else if (a->all.seen) {
		json_object_object_add(load, "total", cpu_json(a->all.sum, -1));
	} else {
		json_object_object_add(load, "total", NULL);
	}
}

/* Events that can repeat every second, summed here rather than noted each time. */
static void note_totals(struct ps_load_acc *a, const int *ids, size_t nids)
{
	char buf[256];

	for (size_t k = 0; k < nids; k++) {
		const struct cpu_acc *c = &a->cpu[ids[k]];

		if (c->backwards)
			note(a, "cpu%d: a counter stepped back in %u of %u intervals (not counted)",
			     ids[k], c->backwards, c->intervals);
	}
	for (size_t i = 0; i < a->nirqs; i++) {
		const struct irq_acc *r = &a->irqs[i];

		irq_label(r, buf, sizeof(buf));
		if (r->wraps)
			note(a, "%s: counter wrapped past 2^32 %u time%s (counted through)", buf,
			     r->wraps, r->wraps == 1 ? "" : "s");
		if (r->resets)
			note(a, "%s: counter restarted %u time%s (counted from 0)", buf, r->resets,
			     r->resets == 1 ? "" : "s");
	}
	if (a->st_ok && a->st_fail)
		note(a, "/proc/stat could not be read in %lu of %lu samples", a->st_fail,
		     a->st_fail + a->st_ok);
	if (a->it_ok && a->it_fail)
		note(a, "/proc/interrupts could not be read in %lu of %lu samples", a->it_fail,
		     a->it_fail + a->it_ok);
	if (a->st_bad_lines)
		note(a, "/proc/stat: %lu malformed lines skipped (first at line %u)",
		     a->st_bad_lines, a->st_first_bad_line);
	if (a->it_bad_lines)
		note(a, "/proc/interrupts: %lu malformed lines skipped (first at line %u)",
		     a->it_bad_lines, a->it_first_bad_line);
	if (a->st_truncated)
		note(a, "/proc/stat ended mid-line in %lu samples (last line ignored)",
		     a->st_truncated);
	if (a->it_truncated)
		note(a, "/proc/interrupts ended mid-line in %lu samples (last line ignored)",
		     a->it_truncated);
	if (a->oom)
		note(a, "out of memory while sampling: figures are incomplete");
}

/* The notes, and how many were left out. */
static void notes_json(const struct ps_load_acc *a, json_object *load)
{
	json_object *notes;
	char buf[64];

	if (!a->nnotes)
		return;
	notes = json_object_new_array();
	for (unsigned int i = 0; i < a->nnotes; i++)
		json_object_array_add(notes, ps_json_new_str(a->notes[i]));
	if (a->notes_dropped) {
		snprintf(buf, sizeof(buf), "%u more notes left out", a->notes_dropped);
		json_object_array_add(notes, json_object_new_string(buf));
	}
	json_object_object_add(load, "notes", notes);
}

json_object *ps_load_acc_finish(struct ps_load_acc *a)
{
	json_object *load = json_object_new_object();
	int *ids;
	size_t nids = 0;

	if (!load || !a) {
		if (a)
			free_acc(a);
		if (load)
			json_object_object_add(load, "unavailable",
					       json_object_new_string("sampler could not start"));
		return load;
	}
	json_object_object_add(load, "interval_ms", json_object_new_int((int)a->interval_ms));
	json_object_object_add(load, "samples", json_object_new_int64((int64_t)a->samples));
	json_object_object_add(load, "duration_s",
			       one_decimal(a->samples ? a->t_last - a->t_first : 0));
	unavailable_json(a, load);
	ids = calloc(a->ncpu_cap ? a->ncpu_cap : 1, sizeof(int));
	if (!ids) {
		free_acc(a);
		return load;
	}
	for (unsigned int c = 0; c < a->ncpu_cap; c++)
		if (a->cpu[c].seen || a->irq_cpu_seen[c])
			ids[nids++] = (int)c;
	cpus_json(a, load, ids, nids);
	add_irq_json(a, load, ids, nids);
	add_series_json(a, load, ids, nids);
	note_totals(a, ids, nids);
	notes_json(a, load);
	free(ids);
	free_acc(a);
	return load;
}

/* ----------------------------------------------------------------- thread -- */

struct proc_file {
	char path[PATH_MAX];
	int fd;
	int err;
	char *buf;
	size_t cap, len;
};

struct ps_sampler {
	struct ps_load_acc *acc;
	struct proc_file stat, intr;
	unsigned int interval_ms;
	struct timespec start;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool sync_init, thread_started;
	bool stop;
	void (*hook)(void *arg);
	void *hook_arg;
};

static void proc_open(struct proc_file *pf, const char *root, const char *name)
{
	ps_path(pf->path, sizeof(pf->path), root, "/proc/%s", name);
	pf->fd = open(pf->path, O_RDONLY | O_CLOEXEC);
	pf->err = pf->fd < 0 ? -errno : 0;
}

/* Re-reads the open file from the start into its buffer, grown only when the text outgrows it. */
static int proc_read(struct proc_file *pf)
{
	if (pf->fd < 0)
		return pf->err;
	if (lseek(pf->fd, 0, SEEK_SET) < 0)
		return -errno;
	pf->len = 0;
	for (;;) {
		ssize_t n;

		if (pf->len == pf->cap) {
			size_t cap = pf->cap ? pf->cap * 2 : 16384;
			char *b = realloc(pf->buf, cap);

			if (!b)
				return -ENOMEM;
			pf->buf = b;
			pf->cap = cap;
		}
		n = read(pf->fd, pf->buf + pf->len, pf->cap - pf->len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return 0;
		pf->len += (size_t)n;
	}
}

static double since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

static void take_sample(struct ps_sampler *s)
{
	int se = proc_read(&s->stat), ie = proc_read(&s->intr);

	if (ps_load_acc_add(s->acc, since(&s->start), se ? NULL : s->stat.buf, s->stat.len, se,
			    ie ? NULL : s->intr.buf, s->intr.len, ie) == -ENOMEM)
		s->acc->oom = true;
	if (s->hook)
		s->hook(s->hook_arg);
}

static struct timespec deadline(const struct timespec *start, uint64_t ms)
{
	struct timespec t = *start;

	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Samples on a fixed grid from the start, so that slow reads do not make the step drift. */
static void *sampler_thread(void *arg)
{
	struct ps_sampler *s = arg;
	uint64_t k = 1;

	pthread_mutex_lock(&s->lock);
	while (!s->stop) {
		struct timespec due = deadline(&s->start, k * s->interval_ms);
		int rc = pthread_cond_timedwait(&s->cond, &s->lock, &due);

		if (s->stop)
			break;
		if (rc != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&s->lock);
		take_sample(s);
		pthread_mutex_lock(&s->lock);
		k = (uint64_t)(since(&s->start) * 1000.0 / s->interval_ms) + 1;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct ps_sampler *ps_sampler_start(const char *root, unsigned int interval_ms)
{
	return ps_sampler_start_hooked(root, interval_ms, NULL, NULL);
}

struct ps_sampler *ps_sampler_start_hooked(const char *root, unsigned int interval_ms,
					   void (*hook)(void *arg), void *arg)
{
	struct ps_sampler *s = calloc(1, sizeof(*s));
	pthread_condattr_t attr;
	sigset_t all, old;
	int ret;

	if (!s)
		return NULL;
	s->hook = hook;
	s->hook_arg = arg;
	s->interval_ms = interval_ms ? interval_ms : PS_SAMPLER_INTERVAL_MS;
	s->acc = ps_load_acc_new(s->interval_ms);
	if (!s->acc) {
		free(s);
		return NULL;
	}
	proc_open(&s->stat, root, "stat");
	proc_open(&s->intr, root, "interrupts");
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	take_sample(s);
	if (s->stat.fd < 0 && s->intr.fd < 0)
		return s; /* nothing to sample: stop reports why */

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &attr);
	pthread_condattr_destroy(&attr);
	s->sync_init = true;
	/* The runner's signals (abort key, SIGINT) must reach its own thread, not this one. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&s->thread, NULL, sampler_thread, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		note(s->acc,
		     "sampling thread could not start (%s): only the step's start and end "
		     "were sampled",
		     strerror(ret));
	else
		s->thread_started = true;
	return s;
}

json_object *ps_sampler_stop(struct ps_sampler *s)
{
	json_object *load;

	if (!s)
		return ps_load_acc_finish(NULL);
	if (s->thread_started) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	take_sample(s);
	if (s->sync_init) {
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
	}
	load = ps_load_acc_finish(s->acc);
	if (s->stat.fd >= 0)
		close(s->stat.fd);
	if (s->intr.fd >= 0)
		close(s->intr.fd);
	free(s->stat.buf);
	free(s->intr.buf);
	free(s);
	return load;
}

/* ---- registered: the load of every step, whose thread also ticks the samplers ---- */

static void *load_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_sampler_start_hooked(rc->root, 1000, rc->tick, rc);
}

static json_object *load_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_sampler_stop(state);
}

static const struct ps_recorder_ops load_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "load",
    .order = 50,
    .show = 10,
    .view = &ps_load_view,
    .start = load_start,
    .stop = load_stop,
};
PS_RECORDER_REGISTER(load_recorder);
