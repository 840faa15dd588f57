/*
 * stream.c - memory bandwidth the STREAM way: three arrays of doubles,
 * copy (c = a), scale (b = s*c), add (c = a + b), triad (a = b + s*c), a
 * thread per CPU pinned to it, each working on (and first touching) its
 * own part so its pages sit on its node; every pass timed between two
 * barriers, the best pass reported. Bytes are counted as STREAM does
 * (reads plus writes, no write-allocate), 10^9 bytes/s.
 */
#include "engines/mem/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SCALAR	   3.0
#define ARRAY_SKEW (4096 + 128) /* bytes between the arrays beyond their size */

const char *ps_mem_kernel_name(enum ps_mem_kernel k)
{
	static const char *const names[PS_MEM_KERNELS] = {"copy", "scale", "add", "triad"};

	return (unsigned int)k < PS_MEM_KERNELS ? names[k] : "?";
}

unsigned int ps_mem_kernel_bytes(enum ps_mem_kernel k)
{
	return k == PS_MEM_ADD || k == PS_MEM_TRIAD ? 24 : 16;
}

unsigned int ps_mem_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

enum { OP_TOUCH = PS_MEM_KERNELS, OP_EXIT };

/* A barrier whose size can still shrink before its first use (a thread that did not start). */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned int count, waiting, generation;
};

static void gate_wait(struct gate *g)
{
	unsigned int gen;

	pthread_mutex_lock(&g->m);
	gen = g->generation;
	if (++g->waiting >= g->count) {
		g->waiting = 0;
		g->generation++;
		pthread_cond_broadcast(&g->c);
	} else {
		while (gen == g->generation)
			pthread_cond_wait(&g->c, &g->m);
	}
	pthread_mutex_unlock(&g->m);
}

static void gate_size(struct gate *g, unsigned int count)
{
	pthread_mutex_lock(&g->m);
	g->count = count;
	pthread_mutex_unlock(&g->m);
}

struct shared {
	double *a, *b, *c;
	size_t n; /* elements per array */
	unsigned int threads;
	struct gate start, done;
	int op; /* written before the start gate, read after it */
};

struct worker {
	struct shared *sh;
	unsigned int index;
	int cpu; /* -1: not pinned */
	pthread_t tid;
	double t0, t1; /* its part of the last pass, on its own clock reads */
};

static void chunk(const struct shared *sh, unsigned int i, size_t *lo, size_t *hi)
{
	/* 8-element (64-byte) aligned parts, so two threads never share a cache line */
	size_t per = (sh->n / sh->threads + 7) & ~(size_t)7;

	*lo = per * i < sh->n ? per * i : sh->n;
	*hi = per * (i + 1) < sh->n ? per * (i + 1) : sh->n;
}

/*
 * Two doubles at a time, as SSE2 (the x86-64 baseline) moves them: the
 * compiler at -O2 keeps the plain loops scalar, one load per element,
 * where STREAM built with -O3 and likwid-bench's stream_sse are packed.
 * A part starts on 8 elements (64 bytes; the arrays on 128): aligned.
 */
typedef double v2d __attribute__((vector_size(16), may_alias));
#define BLOCK	  8 /* elements per iteration: four vectors, a cache line, unrolled */
#define V(arr, k) (*(v2d *)&(arr)[j + (k)])

static void run_op(struct shared *sh, int op, size_t lo, size_t hi)
{
	double *restrict a = sh->a, *restrict b = sh->b, *restrict c = sh->c;
	const double s = SCALAR;
	const v2d vs = {SCALAR, SCALAR};
	size_t j = lo, end = lo + (hi - lo) / BLOCK * BLOCK;

	switch (op) {
	case OP_TOUCH:
		for (; j < hi; j++) {
			a[j] = 1.0;
			b[j] = 2.0;
			c[j] = 0.0;
		}
		break;
	case PS_MEM_COPY:
		for (; j < end; j += BLOCK) {
			V(c, 0) = V(a, 0);
			V(c, 2) = V(a, 2);
			V(c, 4) = V(a, 4);
			V(c, 6) = V(a, 6);
		}
		for (; j < hi; j++)
			c[j] = a[j];
		break;
	case PS_MEM_SCALE:
		for (; j < end; j += BLOCK) {
			V(b, 0) = vs * V(c, 0);
			V(b, 2) = vs * V(c, 2);
			V(b, 4) = vs * V(c, 4);
			V(b, 6) = vs * V(c, 6);
		}
		for (; j < hi; j++)
			b[j] = s * c[j];
		break;
	case PS_MEM_ADD:
		for (; j < end; j += BLOCK) {
			V(c, 0) = V(a, 0) + V(b, 0);
			V(c, 2) = V(a, 2) + V(b, 2);
			V(c, 4) = V(a, 4) + V(b, 4);
			V(c, 6) = V(a, 6) + V(b, 6);
		}
		for (; j < hi; j++)
			c[j] = a[j] + b[j];
		break;
	case PS_MEM_TRIAD:
		for (; j < end; j += BLOCK) {
			V(a, 0) = V(b, 0) + vs * V(c, 0);
			V(a, 2) = V(b, 2) + vs * V(c, 2);
			V(a, 4) = V(b, 4) + vs * V(c, 4);
			V(a, 6) = V(b, 6) + vs * V(c, 6);
		}
		for (; j < hi; j++)
			a[j] = b[j] + s * c[j];
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct shared *sh = w->sh;
	size_t lo, hi;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (;;) {
		int op;

		gate_wait(&sh->start);
		op = sh->op;
		if (op == OP_EXIT)
			break;
		chunk(sh, w->index, &lo, &hi);
		w->t0 = ps_mono_now();
		run_op(sh, op, lo, hi);
		w->t1 = ps_mono_now();
		gate_wait(&sh->done);
	}
	return NULL;
}

/*
 * One pass of op over all threads: from the first worker's start to the
 * last one's end, as the workers read the clock themselves (this thread may
 * wake late from the gate when every CPU runs a worker).
 */
static double pass(struct shared *sh, struct worker *w, unsigned int n, int op)
{
	double first = INFINITY, last = -INFINITY;

	sh->op = op; /* the gate's mutex publishes it */
	gate_wait(&sh->start);
	gate_wait(&sh->done);
	for (unsigned int i = 0; i < n; i++) {
		first = w[i].t0 < first ? w[i].t0 : first;
		last = w[i].t1 > last ? w[i].t1 : last;
	}
	return last - first;
}

/*
 * What the arrays hold after the passes, STREAM's check: a, b, c all start
 * at 1, 2, 0 and each kernel ran as often as given.
 */
static bool verify(const struct shared *sh, const unsigned int *runs)
{
	double a = 1.0, b = 2.0, c = 0.0;

	/* kernel by kernel, each repeat writing what the one before wrote */
	if (runs[PS_MEM_COPY])
		c = a;
	if (runs[PS_MEM_SCALE])
		b = SCALAR * c;
	if (runs[PS_MEM_ADD])
		c = a + b;
	if (runs[PS_MEM_TRIAD])
		a = b + SCALAR * c;
	for (size_t j = 0; j < sh->n; j += sh->n / 97 + 1)
		if (fabs(sh->a[j] - a) > 1e-9 * fabs(a) || fabs(sh->b[j] - b) > 1e-9 * fabs(b) ||
		    fabs(sh->c[j] - c) > 1e-9 * (fabs(c) + 1))
			return false;
	return true;
}

uint64_t ps_mem_array_size(uint64_t llc_total, int64_t avail, uint64_t *want, uint64_t *cap)
{
	const uint64_t step = 2ULL << 20;
	uint64_t c = PS_MEM_TOTAL_MAX, w, array;

	if (avail > 0 && (uint64_t)avail / 2 < c)
		c = (uint64_t)avail / 2;
	w = llc_total ? 4 * llc_total : c / 3;
	array = w < c / 3 ? w : c / 3;
	array = array / step * step;
	if (array < PS_MEM_ARRAY_MIN)
		array = c / 3 >= PS_MEM_ARRAY_MIN ? PS_MEM_ARRAY_MIN : 0;
	if (want)
		*want = w;
	if (cap)
		*cap = c;
	return array;
}

/* The arrays and their threads between open and close. */
struct ps_mem_stream {
	struct shared sh;
	struct worker *w;
	unsigned int started;
	unsigned int runs[PS_MEM_KERNELS];
	void *map;
	size_t map_len;
	bool synced; /* the gates' mutexes and conditions exist */
};

static void stream_free(struct ps_mem_stream *s)
{
	if (s->synced) {
		pthread_mutex_destroy(&s->sh.start.m);
		pthread_cond_destroy(&s->sh.start.c);
		pthread_mutex_destroy(&s->sh.done.m);
		pthread_cond_destroy(&s->sh.done.c);
	}
	free(s->w);
	if (s->map && s->map != MAP_FAILED)
		munmap(s->map, s->map_len);
	free(s);
}

int ps_mem_stream_open(const struct ps_mem_opts *o, struct ps_mem_stream **out,
		       struct ps_mem_result *r)
{
	struct ps_mem_stream *s;
	unsigned int cpus = ps_mem_cpus(), threads = o->threads ? o->threads : cpus;
	size_t bytes;
	cpu_set_t set;
	int cpu = -1;

	*out = NULL;
	memset(r, 0, sizeof(*r));
	if (o->array_bytes < 8 * 64)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->sh.n = o->array_bytes / sizeof(double);
	if (threads > s->sh.n / 64)
		threads = (unsigned int)(s->sh.n / 64) ? (unsigned int)(s->sh.n / 64) : 1;
	bytes = s->sh.n * sizeof(double);
	/* not touched here: each worker's first write places its own pages */
	/*
	 * One mapping, the arrays a page and two cache lines apart beyond
	 * their size (STREAM's OFFSET): arrays a power of two apart would
	 * share cache sets, trip 4K aliasing between loads and stores, and
	 * under QEMU's TCG collide in its direct-mapped soft TLB on every
	 * access.
	 */
	s->map_len = 3 * bytes + 2 * ARRAY_SKEW;
	s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/*
	 * Huge pages where the kernel has them (THP in its madvise mode too):
	 * with 4 KiB pages each array takes a TLB miss every 4 KiB, a cost of
	 * the page size, not of the memory. Without them the passes still run.
	 */
	if (s->map != MAP_FAILED)
		madvise(s->map, s->map_len, MADV_HUGEPAGE);
	s->w = calloc(threads, sizeof(*s->w));
	if (s->map == MAP_FAILED || !s->w) {
		stream_free(s);
		return -ENOMEM;
	}
	s->sh.a = s->map;
	s->sh.b = (double *)((char *)s->map + bytes + ARRAY_SKEW);
	s->sh.c = (double *)((char *)s->map + 2 * (bytes + ARRAY_SKEW));
	pthread_mutex_init(&s->sh.start.m, NULL);
	pthread_cond_init(&s->sh.start.c, NULL);
	pthread_mutex_init(&s->sh.done.m, NULL);
	pthread_cond_init(&s->sh.done.c, NULL);
	s->synced = true;
	s->sh.start.count = s->sh.done.count = threads + 1;
	s->sh.threads = threads;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		CPU_ZERO(&set);
	for (unsigned int i = 0; i < threads; i++) {
		/* one thread per allowed CPU, in order; more threads than CPUs are not pinned */
		do
			cpu++;
		while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set));
		s->w[i] =
		    (struct worker){.sh = &s->sh, .index = i, .cpu = cpu < CPU_SETSIZE ? cpu : -1};
		if (pthread_create(&s->w[i].tid, NULL, worker_main, &s->w[i]))
			break;
		s->started++;
	}
	if (!s->started) {
		stream_free(s);
		return -EAGAIN;
	}
	if (s->started < threads) {
		/* fewer threads than asked: the gates wait for those that run */
		s->sh.threads = s->started;
		gate_size(&s->sh.start, s->started + 1);
		gate_size(&s->sh.done, s->started + 1);
	}
	r->threads = s->started;
	r->array_bytes = bytes;
	r->first_touch_s = pass(&s->sh, s->w, s->started, OP_TOUCH);
	*out = s;
	return 0;
}

double ps_mem_stream_pass(struct ps_mem_stream *s, enum ps_mem_kernel k)
{
	double t = pass(&s->sh, s->w, s->started, k);

	s->runs[k]++;
	return t > 0 ? (double)ps_mem_kernel_bytes(k) * (double)s->sh.n / t / 1e9 : NAN;
}

bool ps_mem_stream_close(struct ps_mem_stream *s)
{
	bool ok;

	if (!s)
		return false;
	ok = verify(&s->sh, s->runs);
	s->sh.op = OP_EXIT;
	gate_wait(&s->sh.start);
	for (unsigned int i = 0; i < s->started; i++)
		pthread_join(s->w[i].tid, NULL);
	stream_free(s);
	return ok;
}

int ps_mem_stream(const struct ps_mem_opts *o, struct ps_mem_result *r)
{
	struct ps_mem_stream *s;
	unsigned int done = 0;
	int err;

	if (o->reps == 0 || o->reps > PS_MEM_MAX_REPS)
		return -EINVAL;
	err = ps_mem_stream_open(o, &s, r);
	if (err < 0)
		return err;
	for (int k = 0; k < PS_MEM_KERNELS && !r->aborted; k++) {
		struct ps_mem_kernel_result *kr = &r->k[k];
		double t_start = ps_mono_now();

		if (o->kernels && !(o->kernels & 1u << k))
			continue;
		for (unsigned int i = 0; i < o->reps; i++) {
			if (o->should_stop && o->should_stop(o->stop_arg)) {
				r->aborted = true;
				break;
			}
			kr->runs_gbps[kr->n++] = ps_mem_stream_pass(s, (enum ps_mem_kernel)k);
			if (kr->runs_gbps[kr->n - 1] > kr->best_gbps)
				kr->best_gbps = kr->runs_gbps[kr->n - 1];
			if (o->progress)
				o->progress(o->progress_arg, ++done);
			if (i >= 1 && ps_mono_now() - t_start > o->time_budget_s)
				break;
		}
	}
	r->verified = ps_mem_stream_close(s) && !r->aborted;
	return 0;
}
