/*
 * latency.c - load-to-use latency: a ring of cache lines in random order
 * (Sattolo's shuffle makes one cycle through all of them), each line
 * holding the address of the next, chased with dependent loads so that no
 * prefetcher can guess ahead and no load can start before the one before
 * it. Sizes from inside L1 to beyond the last-level cache show the cache
 * levels as steps; the buffer asks for transparent huge pages so that the
 * larger sizes measure the memory rather than the TLB.
 */
#include "engines/mem/mem.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE 64

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* One cycle through the first n lines of buf, in random order. */
static void build_ring(char *buf, size_t n, uint64_t seed)
{
	size_t *order = malloc(n * sizeof(*order));

	if (!order) {
		/* in order, then: still a ring, though prefetchers see through it */
		for (size_t i = 0; i < n; i++)
			*(void **)(buf + i * LINE) = buf + ((i + 1) % n) * LINE;
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) { /* Sattolo: j < i, so the result is one cycle */
		size_t j = (size_t)(xorshift(&seed) % i), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + order[i] * LINE) = buf + order[(i + 1) % n] * LINE;
	free(order);
}

/* hops dependent loads from p; returns where they ended (kept, so nothing is optimised out). */
static void *chase(void *p, uint64_t hops)
{
	void **q = p;

	for (uint64_t i = 0; i < hops / 8; i++) {
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
		q = *(void **)q;
	}
	return q;
}

int ps_mem_latency(const size_t *sizes, size_t n, const struct ps_mem_lat_opts *o, double *ns)
{
	size_t largest = 0;
	volatile uintptr_t sink = 0;
	char *buf;

	for (size_t i = 0; i < n; i++) {
		ns[i] = NAN;
		largest = sizes[i] > largest ? sizes[i] : largest;
	}
	if (largest < 4096)
		return n ? -EINVAL : 0;
	buf = mmap(NULL, largest, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
	madvise(buf, largest, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++) {
		size_t lines = sizes[i] / LINE;
		uint64_t hops = 1 << 14;
		double t, best = INFINITY;
		void *p = buf;

		if (o->should_stop && o->should_stop(o->stop_arg))
			break;
		if (lines < 2)
			continue;
		build_ring(buf, lines, 0x9e3779b97f4a7c15ULL ^ sizes[i]);
		p = chase(p, lines < 8 ? 8 : lines); /* once round: the lines are where they live */
		/* grow the count until one run takes a tenth of the target, then time two */
		for (;;) {
			t = ps_mono_now();
			p = chase(p, hops);
			t = ps_mono_now() - t;
			if (t >= o->target_s / 10 || hops >= (1ULL << 34))
				break;
			hops *= t > 0 && o->target_s / 10 / t < 64
				    ? (uint64_t)(o->target_s / 10 / t) + 1
				    : 64;
			hops = (hops + 7) & ~7ULL;
		}
		best = t / (double)hops;
		for (int r = 0; r < 2; r++) {
			t = ps_mono_now();
			p = chase(p, hops);
			t = (ps_mono_now() - t) / (double)hops;
			best = t < best ? t : best;
		}
		sink += (uintptr_t)p;
		ns[i] = best * 1e9;
	}
	munmap(buf, largest);
	(void)sink;
	return 0;
}
