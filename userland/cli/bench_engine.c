/* bench_engine.c - `probestick bench engine`: our io_uring engine against fio
 * with the same parameters, alternating, as ratios (issue 7: the engine must
 * never be the bottleneck a user measures). Only reads. */
#include "cli/bench.h"
#include "lib/util.h"
#include "lib/stats.h"
#include "engines/io/uring_io.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_PAIRS 500

static const char usage[] =
    "usage: probestick bench engine [--dev PATH] [--pairs N] [--seconds S] [--cap S]\n"
    "                               [--fio PATH] [--json PATH]\n"
    "\n"
    "  Two cases on PATH (default /dev/nullb0), O_DIRECT reads only: random 4 KiB at\n"
    "  QD 32 (IOPS, goal probestick/fio >= 1.05) and sequential 1 MiB at QD 8 (MB/s,\n"
    "  goal >= 1.00). Each case: one warm-up run per tool, then pairs of runs of S\n"
    "  seconds (default 3), the tool that goes first alternating, judged on the\n"
    "  median pair ratio and its 95% interval from N pairs on (default 6), and run\n"
    "  on while undecided up to a cap of S seconds per case (default 300). Our engine\n"
    "  keeps its latency histogram as disk_read does; fio runs its io_uring engine\n"
    "  with its best settings for the case (printed).\n";

enum tool { OURS, FIO, NR_TOOLS };
static const char *const tool_names[NR_TOOLS] = {"probestick", "fio"};

struct bcase {
	const char *name; /* "random 4K QD32" */
	const char *what; /* "IOPS", "MB/s" */
	const char *rw;	  /* fio's --rw */
	bool random;
	unsigned int bs, qd;
	double goal;
};

static const struct bcase cases[] = {
    {"random 4K QD32", "IOPS", "randread", true, 4096, 32, 1.05},
    {"sequential 1M QD8", "MB/s", "read", false, 1U << 20, 8, 1.00},
};

struct opts {
	const char *dev, *fio, *json;
	unsigned int pairs;
	double seconds, cap;
};

/* A case's runs: what the pair runner calls back with, and the latencies seen. */
struct case_run {
	const struct opts *o;
	const struct bcase *c;
	double seconds;
	struct ps_lat_hist lat; /* ours, over all its runs */
	/* fio's latency from submission to completion (its "lat": the span ours
	 * covers; its percentiles are of clat alone, which starts after the submit) */
	double fio_lat_mean[MAX_PAIRS]; /* us */
	size_t fio_n;
};

static double run_ours(struct case_run *cr, char *why, size_t len)
{
	const struct opts *o = cr->o;
	const struct bcase *c = cr->c;
	struct ps_uio_result res;
	struct ps_uio_job job;
	uint64_t size;
	bool direct;
	int fd = ps_uio_open(o->dev, true, &direct, NULL), ret;

	if (fd < 0) {
		snprintf(why, len, "cannot open %s: %s", o->dev, strerror(-fd));
		return NAN;
	}
	ret = ps_uio_size(fd, &size);
	if (ret == 0 && size < c->bs)
		ret = -ENOSPC;
	if (ret < 0) {
		close(fd);
		snprintf(why, len, "%s: %s", o->dev, strerror(-ret));
		return NAN;
	}
	memset(&job, 0, sizeof(job));
	job.fd = fd;
	job.size = size - size % c->bs;
	job.length = UINT64_MAX / 2;
	job.bs = c->bs;
	job.qd = c->qd;
	job.time_budget_s = cr->seconds;
	job.random = c->random;
	job.seed = 0x5eed0000ULL + (uint64_t)getpid();
	/* as disk_read runs it: every request's latency into the histogram */
	job.lat = &cr->lat;
	ret = ps_uio_read(&job, &res);
	close(fd);
	if (ret < 0 || !res.ios || res.seconds <= 0) {
		snprintf(why, len, "the engine: %s", ret < 0 ? strerror(-ret) : "nothing read");
		return NAN;
	}
	if (!direct)
		snprintf(why, len, "%s refused O_DIRECT", o->dev);
	return c->random ? (double)res.ios / res.seconds : (double)res.bytes / res.seconds / 1e6;
}

/* fio's best settings for one case: registered buffers and file, batched submission
 * and completion as deep as the queue; no polling thread (it would take a CPU of its own). */
static size_t fio_argv(const struct opts *o, const struct bcase *c, double seconds, char **argv,
		       char bufs[][96], const char *out)
{
	size_t n = 0, b = 0;

#define ARG(...) (snprintf(bufs[b], sizeof(bufs[b]), __VA_ARGS__), argv[n++] = bufs[b++])
	argv[n++] = (char *)o->fio;
	ARG("--name=probestick-engine");
	ARG("--filename=%s", o->dev);
	ARG("--ioengine=io_uring");
	ARG("--rw=%s", c->rw);
	ARG("--bs=%u", c->bs);
	ARG("--iodepth=%u", c->qd);
	ARG("--iodepth_batch_submit=%u", c->qd);
	ARG("--iodepth_batch_complete_min=1");
	ARG("--iodepth_batch_complete_max=%u", c->qd);
	ARG("--fixedbufs");
	ARG("--registerfiles");
	ARG("--direct=1");
	ARG("--readonly");
	if (c->random) {
		ARG("--norandommap");
		ARG("--randrepeat=0");
	}
	ARG("--numjobs=1");
	ARG("--time_based");
	ARG("--runtime=%u", (unsigned int)(seconds + 0.5));
	ARG("--output-format=json");
	if (out)
		ARG("--output=%s", out);
	argv[n] = NULL;
#undef ARG
	return n;
}

/* fio's mean latency, submission to completion, of its read job in us; NAN without. */
static double fio_lat_mean_us(json_object *root)
{
	json_object *jobs, *v;

	if (!json_object_object_get_ex(root, "jobs", &jobs) || !json_object_array_length(jobs))
		return NAN;
	v = json_object_array_get_idx(jobs, 0);
	if (!json_object_object_get_ex(v, "read", &v) ||
	    !json_object_object_get_ex(v, "lat_ns", &v) ||
	    !json_object_object_get_ex(v, "mean", &v))
		return NAN;
	return json_object_get_double(v) / 1e3;
}

static double run_fio(struct case_run *cr, char *why, size_t len)
{
	char out_path[] = "/tmp/probestick-engine-XXXXXX", bufs[32][96], *argv[40];
	int out_fd = mkstemp(out_path), status = 0;
	char *json = NULL;
	double iops = 0, value = NAN;
	size_t jlen = 0;
	uint64_t ios;
	pid_t pid;

	if (out_fd < 0) {
		snprintf(why, len, "no temporary file in /tmp: %s", strerror(errno));
		return NAN;
	}
	fio_argv(cr->o, cr->c, cr->seconds, argv, bufs, out_path);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (pid > 0 && ps_read_all(out_path, &json, &jlen) == 0) {
		char *t = realloc(json, jlen + 1);

		if (t) {
			json = t;
			json[jlen] = '\0';
		}
	}
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !json ||
	    ps_bench_parse_fio(json, &iops, &ios) < 0 || iops <= 0) {
		snprintf(why, len, "fio failed (exit %d)",
			 pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else {
		json_object *root = json_tokener_parse(json);

		value = cr->c->random ? iops : iops * cr->c->bs / 1e6;
		if (root && cr->fio_n < MAX_PAIRS)
			cr->fio_lat_mean[cr->fio_n++] = fio_lat_mean_us(root);
		json_object_put(root);
	}
	free(json);
	close(out_fd);
	unlink(out_path);
	return value;
}

static double run_side(void *arg, int side, char *why, size_t len)
{
	return side == OURS ? run_ours(arg, why, len) : run_fio(arg, why, len);
}

static int parse(int argc, char **argv, struct opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (!val) {
			fprintf(stderr, "probestick bench engine: %s needs a value\n%s", a, usage);
			return 2;
		}
		i++;
		if (strcmp(a, "--dev") == 0) {
			o->dev = val;
		} else if (strcmp(a, "--fio") == 0) {
			o->fio = val;
		} else if (strcmp(a, "--json") == 0) {
			o->json = val;
		} else if (strcmp(a, "--pairs") == 0) {
			unsigned long v = strtoul(val, &end, 10);

			if (*end || end == val || v < 1 || v > MAX_PAIRS) {
				fprintf(stderr, "probestick bench engine: --pairs takes 1 to %d\n",
					MAX_PAIRS);
				return 2;
			}
			o->pairs = (unsigned int)v;
		} else if (strcmp(a, "--seconds") == 0 || strcmp(a, "--cap") == 0) {
			double v = strtod(val, &end);
			bool cap = a[2] == 'c';

			if (*end || end == val || !(v >= (cap ? 0 : 1)) || v > 36000) {
				fprintf(stderr, "probestick bench engine: %s takes %d to 36000\n",
					a, cap ? 0 : 1);
				return 2;
			}
			*(cap ? &o->cap : &o->seconds) = v;
		} else {
			fprintf(stderr, "probestick bench engine: unknown option %s\n%s", a, usage);
			return 2;
		}
	}
	return -1;
}

int ps_bench_engine_main(int argc, char **argv)
{
	struct opts o = {
	    .dev = "/dev/nullb0", .fio = "fio", .pairs = 6, .seconds = 3, .cap = PS_BENCH_CAP_S};
	json_object *root, *jc;
	int ret = parse(argc, argv, &o);
	bool failed = false;

	if (ret >= 0)
		return ret;
	if (access(o.dev, R_OK) < 0) {
		fprintf(stderr, "probestick bench engine: cannot read %s: %s\n", o.dev,
			strerror(errno));
		return 1;
	}
	root = json_object_new_object();
	jc = json_object_new_array();
	printf("probestick bench engine: O_DIRECT reads of %s in pairs of %g s runs, the tool\n"
	       "that goes first alternating, after one warm-up run of each; judged from %u pairs\n"
	       "on, and on while undecided for at most %g s per case.\n",
	       o.dev, o.seconds, o.pairs, o.cap);
	for (size_t k = 0; k < PS_ARRAY_SIZE(cases); k++) {
		const struct bcase *c = &cases[k];
		struct case_run *cr = calloc(1, sizeof(*cr));
		char bufs[32][96], *argv_f[40], line[1024] = "";
		size_t nargs = fio_argv(&o, c, o.seconds, argv_f, bufs, NULL), used = 0;
		struct ps_pair_plan plan = {.name_a = tool_names[OURS],
					    .name_b = tool_names[FIO],
					    .unit = c->what,
					    .what = "probestick/fio",
					    .goal = c->goal,
					    .first_look = o.pairs,
					    .max_pairs = MAX_PAIRS,
					    .cap_s = o.cap,
					    .run = run_side,
					    .arg = cr};
		struct ps_pairs pr;
		json_object *j;

		if (!cr) {
			failed = true;
			break;
		}
		cr->o = &o;
		cr->c = c;
		ps_lat_init(&cr->lat);
		for (size_t i = 0; i < nargs && used < sizeof(line); i++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
						 i ? " " : "", argv_f[i]);
		printf("\n%s (%s): probestick's engine (io_uring, registered buffers and file,\n"
		       "one submitter, latency histogram on) against: %s\n",
		       c->name, c->what, line);
		/* the first run of a tool pays for cold caches and lazy binding */
		cr->seconds = o.seconds < 2 ? o.seconds : 2;
		for (int t = 0; t < NR_TOOLS; t++) {
			char why[240] = "";
			double v = run_side(cr, t, why, sizeof(why));

			printf("  warm-up  %-10s %s\n", tool_names[t], v > 0 ? "done" : why);
		}
		ps_lat_init(&cr->lat);
		cr->fio_n = 0;
		cr->seconds = o.seconds;
		if (ps_pairs_run(&plan, &pr) < 0) {
			free(cr);
			failed = true;
			break;
		}
		ps_pairs_print(&plan, &pr);
		printf(
		    "  latency, submission to completion: probestick mean %.1f us, p50 %.1f, p99 "
		    "%.1f\n  (its histogram, %llu IOs); fio mean %.1f us (its lat, median of its "
		    "runs)\n",
		    cr->lat.count ? (double)cr->lat.sum_ns / (double)cr->lat.count / 1e3 : NAN,
		    (double)ps_lat_percentile(&cr->lat, 50) / 1e3,
		    (double)ps_lat_percentile(&cr->lat, 99) / 1e3,
		    (unsigned long long)cr->lat.count,
		    ps_bench_median(cr->fio_lat_mean, cr->fio_n));
		j = ps_pairs_json(&plan, &pr);
		json_object_object_add(j, "case", json_object_new_string(c->name));
		json_object_array_add(jc, j);
		if (pr.broken || !pr.j.pairs)
			failed = true;
		ps_pairs_free(&pr);
		free(cr);
	}
	json_object_object_add(root, "device", json_object_new_string(o.dev));
	json_object_object_add(root, "seconds", json_object_new_double(o.seconds));
	json_object_object_add(root, "cap_seconds", json_object_new_double(o.cap));
	json_object_object_add(root, "cases", jc);
	if (o.json && json_object_to_file_ext(o.json, root, JSON_C_TO_STRING_PRETTY) < 0) {
		fprintf(stderr, "probestick bench engine: cannot write %s\n", o.json);
		failed = true;
	}
	json_object_put(root);
	return failed ? 1 : 0;
}
