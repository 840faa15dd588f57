/*
 * mem.h - the memory engine: STREAM's four kernels (copy, scale, add,
 * triad) with a thread per CPU, each first-touching its own part of the
 * arrays, best of N; load-to-use latency by chasing a random ring of
 * cache lines from L1-sized to past the last-level cache; and the cache
 * sizes those need. No step logic: steps/memory.c decides sizes and rules.
 */
#ifndef PS_ENGINES_MEM_H
#define PS_ENGINES_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ps_mem_kernel { PS_MEM_COPY, PS_MEM_SCALE, PS_MEM_ADD, PS_MEM_TRIAD, PS_MEM_KERNELS };

#define PS_MEM_MAX_REPS 64

/* "copy", "scale", "add", "triad". */
const char *ps_mem_kernel_name(enum ps_mem_kernel k);
/* Bytes moved per element as STREAM counts them: 16 (copy, scale), 24 (add, triad). */
unsigned int ps_mem_kernel_bytes(enum ps_mem_kernel k);

struct ps_mem_opts {
	unsigned int threads; /* 0: one per CPU this process may run on */
	size_t array_bytes;   /* each of the three arrays */
	unsigned int reps;    /* passes of each kernel, best taken (<= PS_MEM_MAX_REPS) */
	double time_budget_s; /* per kernel: stop early past it, after 2 passes */
	unsigned int kernels; /* 1 << enum ps_mem_kernel of those to run; 0: all four */
	bool (*should_stop)(void *arg);
	void *stop_arg;
	void (*progress)(void *arg, unsigned int passes_done);
	void *progress_arg;
};

struct ps_mem_kernel_result {
	double runs_gbps[PS_MEM_MAX_REPS]; /* 10^9 bytes/s of each pass, in order */
	unsigned int n;
	double best_gbps; /* the fastest pass: STREAM's reported figure */
};

struct ps_mem_result {
	unsigned int threads;
	size_t array_bytes;
	double first_touch_s;
	struct ps_mem_kernel_result k[PS_MEM_KERNELS];
	bool verified; /* the arrays hold what the kernels must have left */
	bool aborted;
};

/* Every kernel o->reps times (each within o->time_budget_s after two): 0, or -ENOMEM
 * (arrays, threads) / -EINVAL. make bench's way; the memory step repeats passes under
 * the noise rule with the three calls below. */
int ps_mem_stream(const struct ps_mem_opts *o, struct ps_mem_result *r);

/*
 * The arrays and their threads, first-touched (r: threads, array_bytes,
 * first_touch_s; o: threads and array_bytes only); then one timed pass of a
 * kernel at a time, in STREAM's order (copy, scale, add, triad: each kernel's
 * passes before the next kernel's), its GB/s; close checks what the arrays
 * hold against the passes that ran (true: verified) and frees everything.
 */
struct ps_mem_stream;
int ps_mem_stream_open(const struct ps_mem_opts *o, struct ps_mem_stream **s,
		       struct ps_mem_result *r);
double ps_mem_stream_pass(struct ps_mem_stream *s, enum ps_mem_kernel k);
bool ps_mem_stream_close(struct ps_mem_stream *s);

/*
 * How large each of the three arrays is: 4x the machine's last-level caches
 * (llc_total; unknown 0: as large as allowed), all three in half of avail
 * (unknown < 0) and in PS_MEM_TOTAL_MAX, in 2 MiB steps, at least
 * PS_MEM_ARRAY_MIN; 0 when even that does not fit. *want gets 4x the LLC
 * (or the cap's third), *cap the cap of all three. Pure.
 */
#define PS_MEM_TOTAL_MAX (256ULL << 20) /* the stick runs on 256 MiB machines */
#define PS_MEM_ARRAY_MIN (4ULL << 20)
uint64_t ps_mem_array_size(uint64_t llc_total, int64_t avail, uint64_t *want, uint64_t *cap);

/* Load-to-use latency at one ring size: ns per dependent load, NAN when stopped. */
struct ps_mem_lat_opts {
	double target_s; /* timed chasing per size, about */
	bool (*should_stop)(void *arg);
	void *stop_arg;
};
/* For each sizes[i] (bytes, at least 4 KiB): ns[i]. 0 or -ENOMEM. */
int ps_mem_latency(const size_t *sizes, size_t n, const struct ps_mem_lat_opts *o, double *ns);

/* Cache sizes from root's /sys/devices/system/cpu/cpuN/cache: bytes, 0 unknown. */
struct ps_mem_caches {
	uint64_t l1d, l2, llc; /* of one CPU (cpu0): its L1 data, L2 and last level */
	int llc_level;
	uint64_t llc_total; /* every distinct last-level cache of the machine, summed */
};
int ps_mem_caches(const char *root, struct ps_mem_caches *c);
/* "64K", "32M" (sysfs cache size text) -> bytes, 0 when it is not one. Pure. */
uint64_t ps_mem_parse_size(const char *s);

/* MemAvailable of root's /proc/meminfo (else MemFree), bytes, or -errno. */
int64_t ps_mem_available(const char *root);

/* Online CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned int ps_mem_cpus(void);

#endif
