/* bench.c - `probestick bench probes`: random reads with the module's probes off
 * and on, through our io_uring engine and through fio, interleaved, as ratios. */
#include "cli/bench.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "engines/io/uring_io.h"
#include "record/kcapture.h"
#include "lib/json.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <probestick.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOAL_RATIO 0.97
#define MAX_RUNS   100

static const char usage[] =
    "usage: probestick bench probes [--dev PATH] [--runs N] [--seconds S] [--qd N]\n"
    "                               [--bs BYTES] [--fio PATH|none] [--json PATH]\n"
    "       probestick bench mem --help  (triad beside likwid-bench or stress-ng)\n"
    "\n"
    "  Random O_DIRECT reads of BS bytes at queue depth QD on PATH (default\n"
    "  /dev/nullb0), N runs of S seconds with the probes off (no capture window)\n"
    "  and N with a window of every probe open (default 6 each, 5 s), interleaved\n"
    "  off, on, off, on so that drift touches both; then the same with fio\n"
    "  (io_uring engine) unless --fio none. Prints IOPS per run, medians, the\n"
    "  on/off ratio (goal >= 0.97) and the cost of one probe event in ns.\n"
    "  Only reads: the device is never written.\n";

enum tool { TOOL_OURS, TOOL_FIO, NR_TOOLS };
static const char *const tool_names[NR_TOOLS] = {"probestick", "fio"};

struct bench_opts {
	const char *dev;
	const char *fio; /* NULL: no fio */
	const char *json;
	unsigned int runs, qd, bs;
	double seconds;
};

static uint64_t events_total(const struct ps_bench_events *e)
{
	return 2 * (e->block_rq + e->hardirq + e->softirq) + e->rq_unknown;
}

struct run {
	enum tool tool;
	bool on;
	int err;       /* 0, or why this run has no figure */
	char why[200]; /* ... in words */
	double iops;
	uint64_t ios;
	double seconds;
	struct ps_bench_events ev; /* on runs */
};

/* ----------------------------------------------------------- pure parts -- */

void ps_bench_stats(double *v, size_t n, double *median, double *min, double *max)
{
	struct ps_run_summary s;

	ps_run_summary(v, n, &s); /* the one median (lib/stats.c) */
	*min = s.min;
	*max = s.max;
	*median = s.median;
}

double ps_bench_cost_ns(double iops_off, double iops_on, double events_per_io)
{
	if (!(iops_off > 0) || !(iops_on > 0) || !(events_per_io > 0))
		return NAN;
	return (1.0 / iops_on - 1.0 / iops_off) * 1e9 / events_per_io;
}

enum ps_bench_verdict ps_bench_judge(double ratio, double spread, unsigned int runs_off,
				     unsigned int runs_on, double goal, char *why, size_t len)
{
	if (!runs_on || !runs_off) {
		snprintf(why, len, "not measurable here: no run with the probes %s",
			 runs_on ? "off"
				 : "on (probestick.ko is not loaded, or its windows failed)");
		return PS_BENCH_NOT_MEASURABLE;
	}
	return ps_bench_judge_ratio("on/off", ratio, spread, runs_off, runs_on, goal, why, len);
}

enum ps_bench_verdict ps_bench_judge_ratio(const char *what, double ratio, double spread,
					   unsigned int runs_a, unsigned int runs_b, double goal,
					   char *why, size_t len)
{
	double lo = ratio * (1 - spread), hi = ratio * (1 + spread);

	if (runs_a < 2 || runs_b < 2 || isnan(ratio) || isnan(spread)) {
		snprintf(why, len,
			 "not measurable here: %u and %u run(s) give no spread "
			 "(two of each at least)",
			 runs_a, runs_b);
		return PS_BENCH_NOT_MEASURABLE;
	}
	if (lo >= goal) {
		snprintf(why, len,
			 "met: %s %.4f >= %.2f, and so is its low end %.4f (spread %.1f%%)", what,
			 ratio, goal, lo, spread * 100);
		return PS_BENCH_MET;
	}
	if (hi < goal) {
		snprintf(why, len,
			 "missed: %s %.4f < %.2f, and so is its high end %.4f (spread %.1f%%)",
			 what, ratio, goal, hi, spread * 100);
		return PS_BENCH_MISSED;
	}
	snprintf(why, len,
		 "not measurable here: %s %.4f with a run-to-run spread of %.1f%% spans %.4f to "
		 "%.4f, on both sides of the goal %.2f",
		 what, ratio, spread * 100, lo, hi, goal);
	return PS_BENCH_NOT_MEASURABLE;
}

const char *ps_bench_verdict_name(enum ps_bench_verdict v)
{
	switch (v) {
	case PS_BENCH_MET:
		return "met";
	case PS_BENCH_MISSED:
		return "missed";
	default:
		return "not measurable here";
	}
}

int ps_bench_parse_fio(const char *json, double *iops, uint64_t *ios)
{
	json_object *root = json_tokener_parse(json), *jobs, *job, *rd, *v;
	size_t n;

	*iops = 0;
	*ios = 0;
	if (!root)
		return -EINVAL;
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array) || !(n = json_object_array_length(jobs))) {
		json_object_put(root);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		job = json_object_array_get_idx(jobs, i);
		if (!json_object_object_get_ex(job, "read", &rd) ||
		    !json_object_object_get_ex(rd, "iops", &v)) {
			json_object_put(root);
			return -EINVAL;
		}
		*iops += json_object_get_double(v);
		if (json_object_object_get_ex(rd, "total_ios", &v))
			*ios += (uint64_t)json_object_get_int64(v);
	}
	json_object_put(root);
	return 0;
}

/* ---------------------------------------------------- capture windows -- */

/* What the probes handled in a window, from its "probes" object (record/kcapture.c). */
int ps_bench_events(json_object *probes, struct ps_bench_events *ev, char *why, size_t len)
{
	json_object *arr;
	int64_t v;

	memset(ev, 0, sizeof(*ev));
	if (ps_json_bool(probes, "available") != 1) {
		snprintf(why, len, "the probes did not record: %s",
			 ps_json_str_or(probes, "reason", "no reason given"));
		return -ENODATA;
	}
	arr = ps_json_ptr(probes, "/hardirq/lines");
	for (size_t i = 0; i < ps_json_len(arr); i++) {
		/* A shared line's IRQ_NONE calls passed the probe's tracepoints too. */
		if (ps_json_int(ps_json_at(arr, i), "count", &v))
			ev->hardirq += (uint64_t)v;
		if (ps_json_int(ps_json_at(arr, i), "unhandled", &v))
			ev->hardirq += (uint64_t)v;
	}
	arr = ps_json_ptr(probes, "/softirq/vectors");
	for (size_t i = 0; i < ps_json_len(arr); i++)
		if (ps_json_int(ps_json_at(arr, i), "count", &v))
			ev->softirq += (uint64_t)v;
	arr = ps_json_ptr(probes, "/block/disks");
	for (size_t i = 0; i < ps_json_len(arr); i++)
		if (ps_json_int(ps_json_ptr(ps_json_at(arr, i), "/latency"), "count", &v))
			ev->block_rq += (uint64_t)v;
	if (ps_json_int(ps_json_get(probes, "drops"), "rq_unknown", &v))
		ev->rq_unknown = (uint64_t)v;
	return 0;
}

/* --------------------------------------------------------------- runs -- */

static void run_ours(const struct bench_opts *o, struct run *r)
{
	struct ps_uio_result res;
	struct ps_uio_job job;
	uint64_t size;
	bool direct;
	int fd, ret;

	fd = ps_uio_open(o->dev, true, &direct, NULL);
	if (fd < 0) {
		r->err = fd;
		snprintf(r->why, sizeof(r->why), "cannot open %s: %s", o->dev, strerror(-fd));
		return;
	}
	ret = ps_uio_size(fd, &size);
	if (ret == 0 && size < o->bs)
		ret = -ENOSPC;
	if (ret < 0) {
		r->err = ret;
		snprintf(r->why, sizeof(r->why), "%s: no size (%s)", o->dev, strerror(-ret));
		close(fd);
		return;
	}
	memset(&job, 0, sizeof(job));
	job.fd = fd;
	job.size = size - size % o->bs;
	job.length = UINT64_MAX;
	job.bs = o->bs;
	job.qd = o->qd;
	job.time_budget_s = o->seconds;
	job.random = true;
	job.seed = 0x5eed0000ULL + (uint64_t)getpid();
	ret = ps_uio_read(&job, &res);
	close(fd);
	if (ret < 0 || res.ios == 0 || res.seconds <= 0) {
		r->err = ret < 0 ? ret : -EIO;
		snprintf(r->why, sizeof(r->why), "the io_uring engine: %s (%llu IOs, %llu errors)",
			 ret < 0 ? strerror(-ret) : "nothing read", (unsigned long long)res.ios,
			 (unsigned long long)res.errors);
		return;
	}
	if (!direct)
		snprintf(r->why, sizeof(r->why), "%s refused O_DIRECT: buffered reads", o->dev);
	r->ios = res.ios;
	r->seconds = res.seconds;
	r->iops = (double)res.ios / res.seconds;
}

/* A text file as a NUL-terminated string, or NULL. */
static char *read_file(const char *path)
{
	char *data = NULL, *text;
	size_t len = 0;

	if (ps_read_all(path, &data, &len) < 0)
		return NULL;
	text = realloc(data, len + 1);
	if (!text) {
		free(data);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

/* The last non-empty line of a file, for an error message. */
static void last_line(const char *path, char *out, size_t len)
{
	char *text = read_file(path), *end, *start;

	*out = '\0';
	if (!text)
		return;
	end = text + strlen(text);
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	start = strrchr(text, '\n');
	snprintf(out, len, "%s", start ? start + 1 : text);
	free(text);
}

static void run_fio(const struct bench_opts *o, struct run *r)
{
	char out_path[] = "/tmp/probestick-fio-XXXXXX",
	     err_path[] = "/tmp/probestick-fio-err-XXXXXX";
	char a_file[512], a_bs[32], a_qd[32], a_rt[32], a_out[64], tail[160];
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path), status = 0;
	char *json = NULL;
	pid_t pid;
	char *const argv[] = {(char *)o->fio,
			      "--name=probestick-bench",
			      a_file,
			      "--ioengine=io_uring",
			      "--rw=randread",
			      a_bs,
			      a_qd,
			      "--direct=1",
			      "--readonly",
			      "--norandommap",
			      "--time_based",
			      a_rt,
			      "--output-format=json",
			      a_out,
			      NULL};

	if (out_fd < 0 || err_fd < 0) {
		r->err = -errno;
		snprintf(r->why, sizeof(r->why), "fio: no temporary file in /tmp: %s",
			 strerror(errno));
		goto out;
	}
	snprintf(a_file, sizeof(a_file), "--filename=%s", o->dev);
	snprintf(a_bs, sizeof(a_bs), "--bs=%u", o->bs);
	snprintf(a_qd, sizeof(a_qd), "--iodepth=%u", o->qd);
	/* fio's runtime is whole seconds; a fraction would be rounded anyway. */
	snprintf(a_rt, sizeof(a_rt), "--runtime=%u", (unsigned int)(o->seconds + 0.5));
	snprintf(a_out, sizeof(a_out), "--output=%s", out_path);

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r->err = -errno;
		snprintf(r->why, sizeof(r->why), "fio: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		dup2(err_fd, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(err_fd, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	json = read_file(out_path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !json ||
	    ps_bench_parse_fio(json, &r->iops, &r->ios) < 0 || r->iops <= 0) {
		last_line(err_path, tail, sizeof(tail));
		r->err = -EIO;
		r->iops = 0;
		snprintf(r->why, sizeof(r->why), "fio %s %d: %s",
			 WIFEXITED(status) ? "exited with" : "killed by signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 tail[0] ? tail : "no JSON result");
		goto out;
	}
	r->seconds = (double)r->ios / r->iops;
out:
	free(json);
	if (out_fd >= 0) {
		close(out_fd);
		unlink(out_path);
	}
	if (err_fd >= 0) {
		close(err_fd);
		unlink(err_path);
	}
}

/*
 * An "on" run attaches the probes for itself and detaches them after, so
 * that an "off" run has no tracepoint patched in at all.
 */
static void run_one(const struct bench_opts *o, int module_fd, struct run *r)
{
	struct ps_kcapture *c = NULL;
	struct ps_kprobes *k = NULL;
	json_object *probes;
	char why[sizeof(r->why)];

	if (r->on) {
		k = ps_kprobes_attach(module_fd);
		c = k ? ps_kcapture_start(k) : NULL;
		if (!c) {
			ps_kprobes_detach(k);
			r->err = -ENOMEM;
			snprintf(r->why, sizeof(r->why), "out of memory for a capture window");
			return;
		}
	}
	if (r->tool == TOOL_OURS)
		run_ours(o, r);
	else
		run_fio(o, r);
	if (!r->on)
		return;
	probes = ps_kcapture_stop(c);
	ps_kprobes_detach(k);
	if (ps_bench_events(probes, &r->ev, why, sizeof(why)) < 0 && !r->err) {
		r->err = -ENODATA;
		snprintf(r->why, sizeof(r->why), "%s", why);
	}
	json_object_put(probes);
}

/* ------------------------------------------------------------ summary -- */

struct summary {
	unsigned int n[2]; /* runs with a figure, off and on */
	double med[2], min[2], max[2];
	double ratio;	      /* median on / median off */
	double paired[3];     /* median, min, max of on/off within each round */
	double noise;	      /* largest (max - min) / median of the two modes */
	double events_per_io; /* over every on run */
	double cost_ns;
	bool cost_is_noise;	   /* the difference it stands on is within the spread */
	struct ps_bench_events ev; /* summed over the on runs */
	uint64_t ios_on;
};

/* Each on run against the off run just before it: drift between rounds
 * cancels out of these, which the medians of all runs cannot do. */
static void paired_ratios(const struct run *runs, size_t nruns, enum tool t, double *v,
			  double out[3])
{
	double off = 0;
	unsigned int n = 0;

	for (size_t i = 0; i < nruns; i++) {
		if (runs[i].tool != t)
			continue;
		if (!runs[i].on)
			off = runs[i].err ? 0 : runs[i].iops;
		else if (off > 0 && !runs[i].err)
			v[n++] = runs[i].iops / off;
	}
	if (n)
		ps_bench_stats(v, n, &out[0], &out[1], &out[2]);
}

static void summarize(const struct run *runs, size_t nruns, enum tool t, struct summary *s)
{
	double *v = calloc(nruns ? nruns : 1, sizeof(*v));

	memset(s, 0, sizeof(*s));
	s->ratio = s->noise = s->events_per_io = s->cost_ns = NAN;
	s->paired[0] = s->paired[1] = s->paired[2] = NAN;
	if (!v)
		return;
	paired_ratios(runs, nruns, t, v, s->paired);
	for (int on = 0; on < 2; on++) {
		unsigned int n = 0;

		for (size_t i = 0; i < nruns; i++) {
			if (runs[i].tool != t || runs[i].on != on || runs[i].err)
				continue;
			v[n++] = runs[i].iops;
			if (on) {
				s->ev.block_rq += runs[i].ev.block_rq;
				s->ev.rq_unknown += runs[i].ev.rq_unknown;
				s->ev.hardirq += runs[i].ev.hardirq;
				s->ev.softirq += runs[i].ev.softirq;
				s->ios_on += runs[i].ios;
			}
		}
		s->n[on] = n;
		if (n)
			ps_bench_stats(v, n, &s->med[on], &s->min[on], &s->max[on]);
	}
	free(v);
	if (s->n[0] && s->n[1]) {
		double a = (s->max[0] - s->min[0]) / s->med[0];
		double b = (s->max[1] - s->min[1]) / s->med[1];

		s->ratio = s->med[1] / s->med[0];
		s->noise = a > b ? a : b;
	}
	if (s->ios_on)
		s->events_per_io = (double)events_total(&s->ev) / (double)s->ios_on;
	s->cost_ns = ps_bench_cost_ns(s->med[0], s->med[1], s->events_per_io);
	/* The cost per event is the difference itself: noise when the spread is larger. */
	s->cost_is_noise = !isnan(s->cost_ns) && !(fabs(1 - s->ratio) >= s->noise);
}

static const char *fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

static void print_summary(const char *name, const struct summary *s)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], why[240];

	if (!s->n[0] && !s->n[1]) {
		printf("%-11s no run gave a figure\n", name);
		return;
	}
	printf("%-11s %10s %10s %7s %7s %6s %9s\n", name, fmt_num(a, 32, s->med[0], "%.0f"),
	       fmt_num(b, 32, s->n[1] ? s->med[1] : NAN, "%.0f"), fmt_num(c, 32, s->ratio, "%.4f"),
	       fmt_num(d, 32, s->noise * 100, "%.1f%%"), fmt_num(e, 32, s->events_per_io, "%.2f"),
	       s->cost_is_noise ? "noise" : fmt_num(f, 32, s->cost_ns, "%.1f"));
	printf("%-11s off: min %.0f max %.0f (%u runs)", "", s->min[0], s->max[0], s->n[0]);
	if (s->n[1])
		printf("; on: min %.0f max %.0f (%u runs)", s->min[1], s->max[1], s->n[1]);
	printf("\n");
	if (!isnan(s->paired[0]))
		printf("%-11s on/off within each round: median %.4f, min %.4f, max %.4f\n", "",
		       s->paired[0], s->paired[1], s->paired[2]);
	/* Every goal printed says whether this machine can tell at all. */
	ps_bench_judge(s->ratio, s->noise, s->n[0], s->n[1], GOAL_RATIO, why, sizeof(why));
	printf("%-11s goal on/off >= %.2f: %s\n", "", GOAL_RATIO, why);
}

static json_object *jdouble(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *summary_json(const struct summary *s)
{
	json_object *o = json_object_new_object();
	enum ps_bench_verdict verdict;
	char why[240];
	static const char *const mode[2] = {"off", "on"};

	for (int on = 0; on < 2; on++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "runs", json_object_new_int((int)s->n[on]));
		json_object_object_add(m, "median_iops", s->n[on] ? jdouble(s->med[on]) : NULL);
		json_object_object_add(m, "min_iops", s->n[on] ? jdouble(s->min[on]) : NULL);
		json_object_object_add(m, "max_iops", s->n[on] ? jdouble(s->max[on]) : NULL);
		json_object_object_add(o, mode[on], m);
	}
	json_object_object_add(o, "ratio_on_off", jdouble(s->ratio));
	json_object_object_add(o, "spread", jdouble(s->noise));
	json_object_object_add(o, "paired_ratio_median", jdouble(s->paired[0]));
	json_object_object_add(o, "paired_ratio_min", jdouble(s->paired[1]));
	json_object_object_add(o, "paired_ratio_max", jdouble(s->paired[2]));
	json_object_object_add(o, "events_per_io", jdouble(s->events_per_io));
	/* null when the text says noise: the difference it stands on is within the spread */
	json_object_object_add(o, "cost_per_event_ns",
			       s->cost_is_noise ? NULL : jdouble(s->cost_ns));
	json_object_object_add(o, "cost_per_event_noise",
			       json_object_new_boolean(s->cost_is_noise));
	verdict =
	    ps_bench_judge(s->ratio, s->noise, s->n[0], s->n[1], GOAL_RATIO, why, sizeof(why));
	json_object_object_add(o, "goal", json_object_new_string(ps_bench_verdict_name(verdict)));
	json_object_object_add(o, "goal_why", json_object_new_string(why));
	json_object_object_add(o, "events_block_rq",
			       json_object_new_int64((int64_t)s->ev.block_rq));
	json_object_object_add(o, "events_hardirq", json_object_new_int64((int64_t)s->ev.hardirq));
	json_object_object_add(o, "events_softirq", json_object_new_int64((int64_t)s->ev.softirq));
	json_object_object_add(o, "ios_on", json_object_new_int64((int64_t)s->ios_on));
	return o;
}

static int write_json(const char *path, const struct bench_opts *o, const struct run *runs,
		      size_t nruns, const struct summary *sum, bool have_module)
{
	json_object *root = json_object_new_object(), *arr = json_object_new_array(), *t;
	int ret = 0;

	json_object_object_add(root, "device", json_object_new_string(o->dev));
	json_object_object_add(root, "bs", json_object_new_int((int)o->bs));
	json_object_object_add(root, "qd", json_object_new_int((int)o->qd));
	json_object_object_add(root, "seconds", json_object_new_double(o->seconds));
	json_object_object_add(root, "runs_per_mode", json_object_new_int((int)o->runs));
	json_object_object_add(root, "module", json_object_new_boolean(have_module));
	json_object_object_add(root, "goal_ratio", json_object_new_double(GOAL_RATIO));
	for (size_t i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "tool", json_object_new_string(tool_names[r->tool]));
		json_object_object_add(j, "probes", json_object_new_string(r->on ? "on" : "off"));
		if (r->err) {
			json_object_object_add(j, "error", json_object_new_string(r->why));
		} else {
			json_object_object_add(j, "iops", json_object_new_double(r->iops));
			json_object_object_add(j, "ios", json_object_new_int64((int64_t)r->ios));
			json_object_object_add(j, "seconds", json_object_new_double(r->seconds));
		}
		if (r->on && !r->err)
			json_object_object_add(
			    j, "events", json_object_new_int64((int64_t)events_total(&r->ev)));
		json_object_array_add(arr, j);
	}
	json_object_object_add(root, "runs", arr);
	t = json_object_new_object();
	for (int i = 0; i < NR_TOOLS; i++)
		if (sum[i].n[0] || sum[i].n[1])
			json_object_object_add(t, tool_names[i], summary_json(&sum[i]));
	json_object_object_add(root, "summary", t);
	if (sum[TOOL_OURS].n[0] && sum[TOOL_FIO].n[0]) {
		t = json_object_new_object();
		json_object_object_add(
		    t, "off", json_object_new_double(sum[TOOL_OURS].med[0] / sum[TOOL_FIO].med[0]));
		if (sum[TOOL_OURS].n[1] && sum[TOOL_FIO].n[1])
			json_object_object_add(
			    t, "on",
			    json_object_new_double(sum[TOOL_OURS].med[1] / sum[TOOL_FIO].med[1]));
		json_object_object_add(root, "ours_over_fio", t);
	}
	if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}

/* ------------------------------------------------------------ command -- */

static int parse_uint(const char *opt, const char *val, unsigned int lo, unsigned int hi,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || end == val || v < lo || v > hi) {
		fprintf(stderr, "probestick bench: %s takes a number from %u to %u, not '%s'\n",
			opt, lo, hi, val);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct bench_opts *o)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!val) {
			fprintf(stderr, "probestick bench: %s needs a value\n%s", a, usage);
			return 2;
		}
		i++;
		if (strcmp(a, "--dev") == 0) {
			o->dev = val;
		} else if (strcmp(a, "--json") == 0) {
			o->json = val;
		} else if (strcmp(a, "--fio") == 0) {
			o->fio = strcmp(val, "none") == 0 ? NULL : val;
		} else if (strcmp(a, "--runs") == 0) {
			if (parse_uint(a, val, 1, MAX_RUNS, &o->runs) < 0)
				return 2;
		} else if (strcmp(a, "--qd") == 0) {
			if (parse_uint(a, val, 1, PS_UIO_MAX_QD, &o->qd) < 0)
				return 2;
		} else if (strcmp(a, "--bs") == 0) {
			if (parse_uint(a, val, PS_UIO_ALIGN, 1U << 20, &o->bs) < 0)
				return 2;
			if (o->bs % PS_UIO_ALIGN) {
				fprintf(stderr, "probestick bench: --bs must be a multiple of %u\n",
					PS_UIO_ALIGN);
				return 2;
			}
		} else if (strcmp(a, "--seconds") == 0) {
			o->seconds = strtod(val, &end);
			if (*end || end == val || !(o->seconds >= 1) || o->seconds > 3600) {
				fprintf(stderr,
					"probestick bench: --seconds takes 1 to 3600, not '%s'\n",
					val);
				return 2;
			}
		} else {
			fprintf(stderr, "probestick bench: unknown option %s\n%s", a, usage);
			return 2;
		}
	}
	return -1;
}

/* fio is optional: without it the bench goes on with our engine alone. */
static bool have_program(const char *name)
{
	char *path, *dir, *save = NULL, buf[4096];
	bool found = false;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	for (dir = path ? strtok_r(path, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, name);
		found = access(buf, X_OK) == 0;
	}
	free(path);
	return found;
}

static int cmd_probes(int argc, char **argv)
{
	struct bench_opts o = {
	    .dev = "/dev/nullb0", .fio = "fio", .runs = 6, .qd = 32, .bs = 4096, .seconds = 5};
	struct summary sum[NR_TOOLS];
	struct run *runs;
	size_t nruns = 0;
	int module_fd, ret = parse_args(argc, argv, &o);
	bool failed = false;

	if (ret >= 0)
		return ret;
	if (access(o.dev, R_OK) < 0) {
		fprintf(stderr,
			"probestick bench: cannot read %s: %s (null_blk: modprobe null_blk)\n",
			o.dev, strerror(errno));
		return 1;
	}
	if (o.fio && !have_program(o.fio)) {
		printf("note: %s is not installed here: fio runs skipped\n", o.fio);
		o.fio = NULL;
	}
	module_fd = open(PROBESTICK_DEVICE, O_RDWR | O_CLOEXEC);
	if (module_fd < 0)
		printf("note: %s cannot be opened (%s): probestick.ko is not loaded, so only the "
		       "probes-off runs are made\n",
		       PROBESTICK_DEVICE, strerror(errno));
	runs = calloc((size_t)o.runs * 2 * NR_TOOLS, sizeof(*runs));
	if (!runs) {
		if (module_fd >= 0)
			close(module_fd);
		return 1;
	}
	printf("probestick bench probes: random %u-byte O_DIRECT reads at QD %u on %s,\n"
	       "%u runs of %g s per tool and mode, interleaved probes off/on; \"on\" is a capture\n"
	       "window of every probe (hardirq, softirq, block, nic) around the run.\n\n",
	       o.bs, o.qd, o.dev, o.runs, o.seconds);
	printf("%-4s %-11s %-6s %10s %10s %10s %7s\n", "run", "tool", "probes", "IOPS", "IOs",
	       "events", "ev/IO");
	fflush(stdout);
	/* The first run of a tool pays for cold caches, page faults and lazy
	 * binding: one short run of each, not counted, before the measured ones. */
	for (int t = 0; t < NR_TOOLS; t++) {
		struct bench_opts w = o;
		struct run r = {.tool = (enum tool)t};

		if (t == TOOL_FIO && !o.fio)
			continue;
		w.seconds = o.seconds < 2 ? o.seconds : 2;
		run_one(&w, module_fd, &r);
		printf("%-4s %-11s %-6s ", "-", tool_names[t], "off");
		if (r.err)
			printf("warm-up failed: %s\n", r.why);
		else
			printf("%10.0f %10llu  (warm-up, not counted)\n", r.iops,
			       (unsigned long long)r.ios);
		fflush(stdout);
	}
	for (unsigned int i = 0; i < o.runs; i++) {
		for (int t = 0; t < NR_TOOLS; t++) {
			if (t == TOOL_FIO && !o.fio)
				continue;
			for (int on = 0; on < 2; on++) {
				struct run *r = &runs[nruns];

				if (on && module_fd < 0)
					continue;
				r->tool = (enum tool)t;
				r->on = on;
				run_one(&o, module_fd, r);
				nruns++;
				printf("%-4u %-11s %-6s ", i + 1, tool_names[t], on ? "on" : "off");
				if (r->err) {
					printf("failed: %s\n", r->why);
					failed = true;
				} else if (on) {
					printf("%10.0f %10llu %10llu %7.2f\n", r->iops,
					       (unsigned long long)r->ios,
					       (unsigned long long)events_total(&r->ev),
					       (double)events_total(&r->ev) / (double)r->ios);
				} else {
					printf("%10.0f %10llu\n", r->iops,
					       (unsigned long long)r->ios);
				}
				if (!r->err && r->why[0])
					printf("     note: %s\n", r->why);
				fflush(stdout);
			}
		}
	}
	for (int t = 0; t < NR_TOOLS; t++)
		summarize(runs, nruns, (enum tool)t, &sum[t]);
	printf("\n%-11s %10s %10s %7s %7s %6s %9s\n", "tool", "IOPS off", "IOPS on", "on/off",
	       "spread", "ev/IO", "ns/event");
	for (int t = 0; t < NR_TOOLS; t++)
		if (t == TOOL_OURS || o.fio)
			print_summary(tool_names[t], &sum[t]);
	if (sum[TOOL_OURS].n[0] && sum[TOOL_FIO].n[0]) {
		printf("\nprobestick/fio IOPS: %.3f with the probes off",
		       sum[TOOL_OURS].med[0] / sum[TOOL_FIO].med[0]);
		if (sum[TOOL_OURS].n[1] && sum[TOOL_FIO].n[1])
			printf(", %.3f with them on", sum[TOOL_OURS].med[1] / sum[TOOL_FIO].med[1]);
		printf("\n");
	}
	if (sum[TOOL_OURS].n[1])
		printf(
		    "\nevents: tracepoint hits the probes handled in the on windows: block issue "
		    "+\n"
		    "complete per request (%llu requests), irq_handler entry + exit (%llu),\n"
		    "softirq entry + exit (%llu); ev/IO = events / IOs of the same runs.\n"
		    "cost per event = (1/IOPS_on - 1/IOPS_off) x 1e9 / ev/IO, from the medians.\n",
		    (unsigned long long)sum[TOOL_OURS].ev.block_rq,
		    (unsigned long long)sum[TOOL_OURS].ev.hardirq,
		    (unsigned long long)sum[TOOL_OURS].ev.softirq);
	printf("spread: (max - min) / median of the runs of one mode, the larger of off and on.\n"
	       "A goal is judged only when on/off +- the spread lies on one side of it;\n"
	       "a cost per event below the spread is shown as noise.\n");
	if (o.json) {
		ret = write_json(o.json, &o, runs, nruns, sum, module_fd >= 0);
		if (ret < 0) {
			fprintf(stderr, "probestick bench: cannot write %s: %s\n", o.json,
				strerror(-ret));
			failed = true;
		}
	}
	if (module_fd >= 0)
		close(module_fd);
	free(runs);
	return failed || !sum[TOOL_OURS].n[0] ? 1 : 0;
}

int ps_bench_main(int argc, char **argv)
{
	if (argc < 1 || strcmp(argv[0], "--help") == 0) {
		fputs(usage, argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	if (strcmp(argv[0], "probes") == 0)
		return cmd_probes(argc - 1, argv + 1);
	if (strcmp(argv[0], "net") == 0)
		return ps_bench_net(argc - 1, argv + 1);
	if (strcmp(argv[0], "engine") == 0)
		return ps_bench_engine_main(argc - 1, argv + 1);
	if (strcmp(argv[0], "mem") == 0)
		return ps_bench_mem_main(argc - 1, argv + 1);
	fprintf(stderr, "probestick bench: unknown benchmark '%s'\n%s", argv[0], usage);
	return 2;
}
