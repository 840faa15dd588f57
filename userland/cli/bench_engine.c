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

#define MAX_RUNS 50

static const char usage[] =
    "usage: probestick bench engine [--dev PATH] [--runs N] [--seconds S] [--fio PATH]\n"
    "                               [--json PATH]\n"
    "\n"
    "  Two cases on PATH (default /dev/nullb0), O_DIRECT reads only: random 4 KiB at\n"
    "  QD 32 (IOPS, goal probestick/fio >= 1.05) and sequential 1 MiB at QD 8 (MB/s,\n"
    "  goal >= 1.00). Each case: one warm-up run per tool, then N rounds (default 6)\n"
    "  of S seconds (default 5) per tool, the tool that goes first alternating. fio\n"
    "  runs its io_uring engine with its best settings for the case (printed).\n";

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
	unsigned int runs;
	double seconds;
};

struct result {
	int err;
	char why[200];
	double iops, value; /* value: IOPS or MB/s as the case counts */
};

static void run_ours(const struct opts *o, const struct bcase *c, double seconds, struct result *r)
{
	struct ps_uio_result res;
	struct ps_uio_job job;
	uint64_t size;
	bool direct;
	int fd = ps_uio_open(o->dev, true, &direct, NULL), ret;

	if (fd < 0) {
		r->err = fd;
		snprintf(r->why, sizeof(r->why), "cannot open %s: %s", o->dev, strerror(-fd));
		return;
	}
	ret = ps_uio_size(fd, &size);
	if (ret == 0 && size < c->bs)
		ret = -ENOSPC;
	if (ret < 0) {
		close(fd);
		r->err = ret;
		snprintf(r->why, sizeof(r->why), "%s: %s", o->dev, strerror(-ret));
		return;
	}
	memset(&job, 0, sizeof(job));
	job.fd = fd;
	job.size = size - size % c->bs;
	job.length = UINT64_MAX / 2;
	job.bs = c->bs;
	job.qd = c->qd;
	job.time_budget_s = seconds;
	job.random = c->random;
	job.seed = 0x5eed0000ULL + (uint64_t)getpid();
	ret = ps_uio_read(&job, &res);
	close(fd);
	if (ret < 0 || !res.ios || res.seconds <= 0) {
		r->err = ret < 0 ? ret : -EIO;
		snprintf(r->why, sizeof(r->why), "the engine: %s",
			 ret < 0 ? strerror(-ret) : "nothing read");
		return;
	}
	if (!direct)
		snprintf(r->why, sizeof(r->why), "%s refused O_DIRECT", o->dev);
	r->iops = (double)res.ios / res.seconds;
	r->value = c->random ? r->iops : (double)res.bytes / res.seconds / 1e6;
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

static void run_fio(const struct opts *o, const struct bcase *c, double seconds, struct result *r)
{
	char out_path[] = "/tmp/probestick-engine-XXXXXX", bufs[32][96], *argv[40];
	int out_fd = mkstemp(out_path), status = 0;
	char *json = NULL;
	size_t len = 0;
	uint64_t ios;
	pid_t pid;

	if (out_fd < 0) {
		r->err = -errno;
		snprintf(r->why, sizeof(r->why), "no temporary file in /tmp: %s", strerror(errno));
		return;
	}
	fio_argv(o, c, seconds, argv, bufs, out_path);
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
	if (pid > 0 && ps_read_all(out_path, &json, &len) == 0) {
		char *t = realloc(json, len + 1);

		if (t) {
			json = t;
			json[len] = '\0';
		}
	}
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) || !json ||
	    ps_bench_parse_fio(json, &r->iops, &ios) < 0 || r->iops <= 0) {
		r->err = -EIO;
		snprintf(r->why, sizeof(r->why), "fio failed (exit %d)",
			 pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else {
		r->value = c->random ? r->iops : r->iops * c->bs / 1e6;
	}
	free(json);
	close(out_fd);
	unlink(out_path);
}

static void run(const struct opts *o, const struct bcase *c, enum tool t, double seconds,
		struct result *r)
{
	memset(r, 0, sizeof(*r));
	if (t == OURS)
		run_ours(o, c, seconds, r);
	else
		run_fio(o, c, seconds, r);
}

struct csum {
	unsigned int n[NR_TOOLS];
	double med[NR_TOOLS], min[NR_TOOLS], max[NR_TOOLS];
	double ratio, spread, paired[3];
	enum ps_bench_verdict verdict;
	char why[240];
};

static void summarize(const struct bcase *c, const struct result (*res)[NR_TOOLS], unsigned int n,
		      struct csum *s)
{
	double v[MAX_RUNS], p[MAX_RUNS];
	unsigned int np = 0;

	memset(s, 0, sizeof(*s));
	s->ratio = s->spread = s->paired[0] = s->paired[1] = s->paired[2] = NAN;
	for (int t = 0; t < NR_TOOLS; t++) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < n; i++)
			if (!res[i][t].err)
				v[k++] = res[i][t].value;
		s->n[t] = k;
		if (k)
			ps_bench_stats(v, k, &s->med[t], &s->min[t], &s->max[t]);
	}
	for (unsigned int i = 0; i < n; i++)
		if (!res[i][OURS].err && !res[i][FIO].err)
			p[np++] = res[i][OURS].value / res[i][FIO].value;
	if (np)
		ps_bench_stats(p, np, &s->paired[0], &s->paired[1], &s->paired[2]);
	if (s->n[OURS] && s->n[FIO]) {
		double a = (s->max[OURS] - s->min[OURS]) / s->med[OURS];
		double b = (s->max[FIO] - s->min[FIO]) / s->med[FIO];

		s->ratio = s->med[OURS] / s->med[FIO];
		s->spread = a > b ? a : b;
	}
	s->verdict = ps_bench_judge_ratio("ours/fio", s->ratio, s->spread, s->n[FIO], s->n[OURS],
					  c->goal, s->why, sizeof(s->why));
}

static int parse(int argc, char **argv, struct opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

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
		} else if (strcmp(a, "--runs") == 0) {
			unsigned long v = strtoul(val, &end, 10);

			if (*end || v < 2 || v > MAX_RUNS) {
				fprintf(stderr, "probestick bench engine: --runs takes 2 to %d\n",
					MAX_RUNS);
				return 2;
			}
			o->runs = (unsigned int)v;
		} else if (strcmp(a, "--seconds") == 0) {
			o->seconds = strtod(val, &end);
			if (*end || !(o->seconds >= 1) || o->seconds > 600) {
				fprintf(stderr,
					"probestick bench engine: --seconds takes 1 to 600\n");
				return 2;
			}
		} else {
			fprintf(stderr, "probestick bench engine: unknown option %s\n%s", a, usage);
			return 2;
		}
	}
	return -1;
}

int ps_bench_engine_main(int argc, char **argv)
{
	struct opts o = {.dev = "/dev/nullb0", .fio = "fio", .runs = 6, .seconds = 5};
	struct result res[PS_ARRAY_SIZE(cases)][MAX_RUNS][NR_TOOLS];
	struct csum sum[PS_ARRAY_SIZE(cases)];
	json_object *root = json_object_new_object(), *jc = json_object_new_array();
	int ret = parse(argc, argv, &o);
	bool failed = false;

	if (ret >= 0) {
		json_object_put(root);
		json_object_put(jc);
		return ret;
	}
	if (access(o.dev, R_OK) < 0) {
		fprintf(stderr, "probestick bench engine: cannot read %s: %s\n", o.dev,
			strerror(errno));
		json_object_put(root);
		json_object_put(jc);
		return 1;
	}
	printf("probestick bench engine: O_DIRECT reads of %s, %u rounds of %g s per tool and "
	       "case,\nthe tool that goes first alternating, after one warm-up run of each.\n",
	       o.dev, o.runs, o.seconds);
	for (size_t k = 0; k < PS_ARRAY_SIZE(cases); k++) {
		const struct bcase *c = &cases[k];
		char bufs[32][96], *argv_f[40], line[1024] = "";
		size_t nargs = fio_argv(&o, c, o.seconds, argv_f, bufs, NULL), used = 0;

		for (size_t i = 0; i < nargs && used < sizeof(line); i++)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s",
						 i ? " " : "", argv_f[i]);
		printf("\n%s (%s): probestick's engine (io_uring, registered buffers, one "
		       "submitter)\nagainst: %s\n",
		       c->name, c->what, line);
		for (int t = 0; t < NR_TOOLS; t++) {
			struct result w;

			run(&o, c, (enum tool)t, o.seconds < 2 ? o.seconds : 2, &w);
			printf("  warm-up  %-10s %s\n", tool_names[t], w.err ? w.why : "done");
		}
		for (unsigned int i = 0; i < o.runs; i++) {
			for (int j = 0; j < NR_TOOLS; j++) {
				enum tool t = (enum tool)((j + i) % NR_TOOLS);
				struct result *r = &res[k][i][t];

				run(&o, c, t, o.seconds, r);
				if (r->err) {
					printf("  round %-2u %-10s failed: %s\n", i + 1,
					       tool_names[t], r->why);
					failed = true;
				} else {
					printf("  round %-2u %-10s %10.1f %s\n", i + 1,
					       tool_names[t], r->value, c->what);
				}
				fflush(stdout);
			}
		}
		summarize(c, res[k], o.runs, &sum[k]);
	}
	printf("\n%-19s %5s %11s %11s %9s %7s  goal\n", "case", "", "probestick", "fio", "ours/fio",
	       "spread");
	for (size_t k = 0; k < PS_ARRAY_SIZE(cases); k++) {
		const struct csum *s = &sum[k];
		json_object *j = json_object_new_object();

		printf("%-19s %5s %11.1f %11.1f %9.3f %6.1f%%  >= %.2f: %s\n", cases[k].name,
		       cases[k].what, s->med[OURS], s->med[FIO], s->ratio, s->spread * 100,
		       cases[k].goal, ps_bench_verdict_name(s->verdict));
		printf("%-25s rounds: ours/fio median %.3f, min %.3f, max %.3f; %s\n", "",
		       s->paired[0], s->paired[1], s->paired[2], s->why);
		json_object_object_add(j, "case", json_object_new_string(cases[k].name));
		json_object_object_add(j, "unit", json_object_new_string(cases[k].what));
		json_object_object_add(j, "probestick_median",
				       json_object_new_double(s->med[OURS]));
		json_object_object_add(j, "fio_median", json_object_new_double(s->med[FIO]));
		json_object_object_add(j, "ratio",
				       isnan(s->ratio) ? NULL : json_object_new_double(s->ratio));
		json_object_object_add(j, "spread",
				       isnan(s->spread) ? NULL : json_object_new_double(s->spread));
		json_object_object_add(j, "goal", json_object_new_double(cases[k].goal));
		json_object_object_add(j, "verdict",
				       json_object_new_string(ps_bench_verdict_name(s->verdict)));
		json_object_object_add(j, "why", json_object_new_string(s->why));
		json_object_array_add(jc, j);
	}
	printf("spread: (max - min) / median of one tool's rounds, the larger of the two; a goal\n"
	       "is judged only when ratio +- spread lies on one side of it (otherwise: not "
	       "measurable here).\n");
	json_object_object_add(root, "device", json_object_new_string(o.dev));
	json_object_object_add(root, "rounds", json_object_new_int((int)o.runs));
	json_object_object_add(root, "seconds", json_object_new_double(o.seconds));
	json_object_object_add(root, "cases", jc);
	if (o.json && json_object_to_file_ext(o.json, root, JSON_C_TO_STRING_PRETTY) < 0) {
		fprintf(stderr, "probestick bench engine: cannot write %s\n", o.json);
		failed = true;
	}
	json_object_put(root);
	return failed ? 1 : 0;
}
