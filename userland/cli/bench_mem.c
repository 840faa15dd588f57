/* bench_mem.c - `probestick bench mem`: the memory engine's triad beside a
 * reference from Debian (likwid-bench's stream kernel, else stress-ng's
 * stream stressor), the same threads and working set, in alternating pairs
 * judged by the median pair ratio ours / reference and its 95 % interval. */
#include "cli/bench.h"
#include "lib/util.h"
#include "engines/mem/mem.h"
#include "hw/inventory.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOAL_RATIO 1.0
#define MAX_PAIRS  500
#define MIB	   (1024ULL * 1024ULL)

static const char usage[] =
    "usage: probestick bench mem [--pairs N] [--cap S] [--array-mib M] [--threads T]\n"
    "                            [--passes P] [--ref auto|likwid|stress-ng]\n"
    "                            [--json PATH]\n"
    "\n"
    "  STREAM triad (a = b + s * c) with T threads (default one per CPU) over\n"
    "  three arrays of M MiB each (default: the memory step's size, 4x the\n"
    "  last-level cache within 256 MiB in all), P passes a run (default 30),\n"
    "  in pairs with the reference on the same threads and working set\n"
    "  (likwid-bench -t stream_sse, else stress-ng --stream), the one that goes\n"
    "  first alternating. Prints GB/s (10^9 bytes/s, 24 bytes per element) per\n"
    "  run and judges the median pair ratio ours / reference and its 95%\n"
    "  interval against the goal >= 1.0 from N pairs on (default 6), going on\n"
    "  while undecided up to a cap of S seconds (default 300).\n";

enum ref { REF_AUTO, REF_LIKWID, REF_STRESSNG, REF_NONE };
static const char *const ref_names[] = {"auto", "likwid", "stress-ng", "none"};

struct mem_opts {
	unsigned int pairs, threads, passes;
	double cap;
	uint64_t array;
	enum ref ref;
	const char *json;
};

/* ----------------------------------------------------------- pure parts -- */

/* The number after "key" on the first line holding it; NAN without one. */
static double number_after(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	char *end;
	double v;

	if (!p)
		return NAN;
	p += strlen(key);
	while (*p == ' ' || *p == '\t' || *p == ':')
		p++;
	v = strtod(p, &end);
	return end == p ? NAN : v;
}

/* N of the line "Using N threads" (there is a "Using M work groups" before it). */
static double threads_used(const char *text)
{
	for (const char *p = text; (p = strstr(p, "Using ")); p++) {
		char *end;
		double v = strtod(p + 6, &end);

		if (end != p + 6 && strncmp(end, " threads", 8) == 0)
			return v;
	}
	return NAN;
}

int ps_bench_parse_likwid(const char *text, double *gbps, unsigned int *threads)
{
	double mb = number_after(text, "MByte/s"), t = threads_used(text);

	if (!(mb > 0))
		return -EINVAL;
	*gbps = mb / 1000.0;
	*threads = t >= 1 ? (unsigned int)t : 0;
	return 0;
}

int ps_bench_parse_stressng(const char *text, double *gbps, unsigned int *instances)
{
	const char *p = text;
	double sum = 0;
	unsigned int n = 0;

	while ((p = strstr(p, "memory rate:"))) {
		double rd, wr;
		char *end;

		p += strlen("memory rate:");
		rd = strtod(p, &end);
		if (end == p || !strstr(end, "read/sec"))
			continue;
		p = strstr(end, ",");
		if (!p)
			break;
		wr = strtod(p + 1, &end);
		if (end == p + 1)
			continue;
		sum += rd + wr;
		n++;
		p = end;
	}
	if (!n || !(sum > 0))
		return -EINVAL;
	*gbps = sum / 1000.0;
	*instances = n;
	return 0;
}

double ps_bench_hmean(const double *v, size_t n)
{
	double inv = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		inv += 1 / v[i];
	}
	return (double)n / inv;
}

/* ----------------------------------------------------------------- runs -- */

struct run {
	bool ref; /* the reference, else ours */
	double gbps;
	double seconds;
	double own_s, own_gb; /* the reference's own clock and data volume, NAN unknown */
	char why[200];	      /* no figure: why */
};

/* Ours: every pass of the triad, as one figure over all their bytes. */
static void run_ours(const struct mem_opts *o, struct run *r)
{
	struct ps_mem_opts mo = {.threads = o->threads,
				 .array_bytes = o->array,
				 .reps = o->passes,
				 .time_budget_s = 60,
				 .kernels = 1u << PS_MEM_TRIAD};
	struct ps_mem_result *res = calloc(1, sizeof(*res));
	double t0 = ps_mono_now();
	int ret;

	if (!res) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return;
	}
	ret = ps_mem_stream(&mo, res);
	r->seconds = ps_mono_now() - t0;
	if (ret < 0)
		snprintf(r->why, sizeof(r->why), "the memory engine failed: %s", strerror(-ret));
	else if (!res->verified)
		snprintf(r->why, sizeof(r->why), "the arrays do not hold what triad leaves");
	else
		r->gbps = ps_bench_hmean(res->k[PS_MEM_TRIAD].runs_gbps, res->k[PS_MEM_TRIAD].n);
	free(res);
}

/* argv run with stdout and stderr in one buffer (NUL-terminated); the exit status. */
static int capture(char *const argv[], char **text)
{
	char path[] = "/tmp/probestick-bench-mem-XXXXXX";
	int fd = mkstemp(path), status = -1;
	size_t len = 0;
	char *data = NULL;
	pid_t pid;

	*text = NULL;
	if (fd < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(fd, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	close(fd);
	if (ps_read_all(path, &data, &len) == 0) {
		*text = realloc(data, len + 1);
		if (*text)
			(*text)[len] = '\0';
		else
			free(data);
	}
	unlink(path);
	return pid < 0 ? -errno : status;
}

/* The last line of text, for a message. */
static const char *last_line(char *text)
{
	char *end, *start;

	if (!text)
		return "no output";
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	start = strrchr(text, '\n');
	return start ? start + 1 : text;
}

static void run_ref(const struct mem_opts *o, enum ref ref, struct run *r)
{
	char a1[64], a2[64], a3[32], *text = NULL;
	unsigned int n = 0;
	double t0 = ps_mono_now();
	int status, ret;

	r->ref = true;
	if (ref == REF_LIKWID) {
		/* the working set of all three vectors, over the node's CPUs */
		snprintf(a1, sizeof(a1), "N:%lluB:%u", (unsigned long long)(3 * o->array),
			 o->threads);
		char *const argv[] = {"likwid-bench", "-t", "stream_sse", "-w", a1, NULL};

		status = capture(argv, &text);
		ret = status == 0 ? ps_bench_parse_likwid(text ? text : "", &r->gbps, &n) : -EIO;
		/* its own clock, to hold against the wall clock of the run */
		if (ret == 0) {
			r->own_s = number_after(text, "\nTime");
			r->own_gb = number_after(text, "Data volume (Byte)") / 1e9;
		}
	} else {
		/* stress-ng sizes its arrays from the cache size it is given: 4x it */
		snprintf(a1, sizeof(a1), "%u", o->threads);
		snprintf(a2, sizeof(a2), "%lluK", (unsigned long long)(o->array / 4 / 1024));
		snprintf(a3, sizeof(a3), "%us", o->passes * 2);
		char *const argv[] = {"stress-ng", "--stream", a1,  "--stream-l3-size", a2, "-t",
				      a3,	   "-v",       NULL};

		status = capture(argv, &text);
		ret = status == 0 ? ps_bench_parse_stressng(text ? text : "", &r->gbps, &n) : -EIO;
	}
	r->seconds = ps_mono_now() - t0;
	if (ret < 0) {
		r->gbps = 0;
		snprintf(r->why, sizeof(r->why), "%s %s: %s", ref_names[ref],
			 status == 0 ? "printed no bandwidth" : "failed", last_line(text));
	} else if (n && n != o->threads) {
		snprintf(r->why, sizeof(r->why), "%s ran %u threads, not %u", ref_names[ref], n,
			 o->threads);
		r->gbps = 0;
	}
	free(text);
}

static bool on_path(const char *name)
{
	const char *path = getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin";
	char buf[4096];

	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (access(buf, X_OK) == 0)
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

/* The pair runner's side: 0 ours, 1 the reference; GB/s or NAN. */
struct mem_run {
	const struct mem_opts *o;
	enum ref use;
};

static double run_side(void *arg, int side, char *why, size_t len)
{
	const struct mem_run *m = arg;
	struct run r = {.own_s = NAN, .own_gb = NAN};

	if (side == 0)
		run_ours(m->o, &r);
	else
		run_ref(m->o, m->use, &r);
	if (!(r.gbps > 0)) {
		snprintf(why, len, "%s", r.why);
		return NAN;
	}
	if (isfinite(r.own_s) && isfinite(r.own_gb))
		snprintf(why, len, "%.1f s; by its clock %.2f GB in %.2f s", r.seconds, r.own_gb,
			 r.own_s);
	return r.gbps;
}

/* ------------------------------------------------------------- command -- */

static int parse_uint(const char *opt, const char *val, unsigned int lo, unsigned int hi,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || end == val || v < lo || v > hi) {
		fprintf(stderr, "probestick bench mem: %s takes a number from %u to %u, not '%s'\n",
			opt, lo, hi, val);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct mem_opts *o)
{
	for (int i = 0; i < argc; i += 2) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned int u;

		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!val) {
			fprintf(stderr, "probestick bench mem: %s needs a value\n%s", a, usage);
			return 2;
		}
		if (strcmp(a, "--pairs") == 0) {
			if (parse_uint(a, val, 1, MAX_PAIRS, &o->pairs) < 0)
				return 2;
		} else if (strcmp(a, "--cap") == 0) {
			if (parse_uint(a, val, 0, 36000, &u) < 0)
				return 2;
			o->cap = u;
		} else if (strcmp(a, "--threads") == 0) {
			if (parse_uint(a, val, 1, 4096, &o->threads) < 0)
				return 2;
		} else if (strcmp(a, "--passes") == 0) {
			if (parse_uint(a, val, 2, PS_MEM_MAX_REPS, &o->passes) < 0)
				return 2;
		} else if (strcmp(a, "--array-mib") == 0) {
			if (parse_uint(a, val, PS_MEM_ARRAY_MIN / MIB, 4096, &u) < 0)
				return 2;
			o->array = u * MIB;
		} else if (strcmp(a, "--json") == 0) {
			o->json = val;
		} else if (strcmp(a, "--ref") == 0) {
			size_t k;

			for (k = 0; k < sizeof(ref_names) / sizeof(ref_names[0]); k++)
				if (strcmp(val, ref_names[k]) == 0)
					break;
			if (k == sizeof(ref_names) / sizeof(ref_names[0])) {
				fprintf(stderr,
					"probestick bench mem: --ref takes auto, likwid, stress-ng "
					"or none, not '%s'\n",
					val);
				return 2;
			}
			o->ref = (enum ref)k;
		} else {
			fprintf(stderr, "probestick bench mem: unknown option %s\n%s", a, usage);
			return 2;
		}
	}
	return -1;
}

int ps_bench_mem_main(int argc, char **argv)
{
	struct mem_opts o = {.pairs = 6, .passes = 30, .ref = REF_AUTO, .cap = PS_BENCH_CAP_S};
	struct ps_mem_caches caches = {0};
	struct ps_environment env;
	struct mem_run mr = {.o = &o};
	struct ps_pair_plan plan = {.name_a = "probestick",
				    .unit = "GB/s",
				    .what = "ours/reference",
				    .goal = GOAL_RATIO,
				    .max_pairs = MAX_PAIRS,
				    .run = run_side,
				    .arg = &mr};
	struct ps_pairs pr;
	int ret = parse_args(argc, argv, &o);

	if (ret >= 0)
		return ret;
	if (!o.threads)
		o.threads = ps_mem_cpus();
	if (!o.array) {
		if (ps_mem_caches("", &caches) < 0)
			memset(&caches, 0, sizeof(caches));
		o.array = ps_mem_array_size(caches.llc_total, ps_mem_available(""), NULL, NULL);
		if (!o.array) {
			fprintf(stderr, "probestick bench mem: too little free memory for three "
					"arrays of 4 MiB\n");
			return 1;
		}
	}
	mr.use = o.ref;
	if (mr.use == REF_AUTO)
		mr.use = on_path("likwid-bench") ? REF_LIKWID
			 : on_path("stress-ng")	 ? REF_STRESSNG
						 : REF_NONE;
	if (mr.use == REF_NONE) {
		fprintf(stderr, "probestick bench mem: no reference (likwid-bench or stress-ng) to "
				"compare with\n");
		return 1;
	}
	/* Our arrays ask for huge pages; likwid-bench cannot, and gets them only
	 * when THP is "always" (tests/bench/run.sh sets it for the run): the
	 * mode as the inventory reads it. */
	ps_environment_read(NULL, &env);
	printf("bench mem: triad, %u threads, 3 arrays of %llu MiB (%llu MiB in all), %u passes "
	       "a run;\ntransparent huge pages: %s (ours asks for them, the reference gets them "
	       "in \"always\" only);\nreference: %s;\npairs, the one that goes first alternating, "
	       "judged from %u pairs on, and on while\nundecided for at most %g s.\n",
	       o.threads, (unsigned long long)(o.array / MIB),
	       (unsigned long long)(3 * o.array / MIB), o.passes, env.thp[0] ? env.thp : "unknown",
	       mr.use == REF_LIKWID ? "likwid-bench -t stream_sse (packed SSE2, as our compiled "
				      "triad), the same working set and threads"
				    : "stress-ng --stream (all four kernels, its own sizing)",
	       o.pairs, o.cap);
	fflush(stdout);
	plan.name_b = ref_names[mr.use];
	plan.first_look = o.pairs;
	plan.cap_s = o.cap;
	if (ps_pairs_run(&plan, &pr) < 0)
		return 1;
	ps_pairs_print(&plan, &pr);
	if (o.json) {
		json_object *root = ps_pairs_json(&plan, &pr);

		json_object_object_add(root, "threads", json_object_new_int((int)o.threads));
		json_object_object_add(root, "array_bytes",
				       json_object_new_int64((int64_t)o.array));
		json_object_object_add(root, "passes", json_object_new_int((int)o.passes));
		json_object_object_add(root, "reference",
				       json_object_new_string(ref_names[mr.use]));
		if (json_object_to_file_ext(o.json, root, JSON_C_TO_STRING_PRETTY) < 0)
			fprintf(stderr, "probestick bench mem: cannot write %s: %s\n", o.json,
				strerror(errno));
		json_object_put(root);
	}
	ret = pr.j.pairs && !pr.broken ? 0 : 1;
	ps_pairs_free(&pr);
	return ret;
}
