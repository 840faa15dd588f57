/* bench.c - `probestick bench probes`: random reads with the module's probes off
 * and on, through our io_uring engine and through fio, interleaved, as ratios. */
#include "bench.h"
#include "io/uring_io.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <probestick.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define GOAL_RATIO 0.97
#define MAX_RUNS   100

static const char usage[] =
    "usage: probestick bench probes [--dev PATH] [--runs N] [--seconds S] [--qd N]\n"
    "                               [--bs BYTES] [--fio PATH|none] [--json PATH]\n"
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

/* Tracepoint hits the probes handled in one window, by kind. */
struct events {
	uint64_t block_rq;   /* requests paired issue -> complete: 2 hits each */
	uint64_t rq_unknown; /* completions without their issue: 1 hit each */
	uint64_t hardirq;    /* handled invocations: entry + exit */
	uint64_t softirq;    /* runs: entry + exit */
};

static uint64_t events_total(const struct events *e)
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
	struct events ev; /* on runs */
	uint32_t attached;
};

/* ----------------------------------------------------------- pure parts -- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void ps_bench_stats(double *v, size_t n, double *median, double *min, double *max)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double ps_bench_cost_ns(double iops_off, double iops_on, double events_per_io)
{
	if (!(iops_off > 0) || !(iops_on > 0) || !(events_per_io > 0))
		return NAN;
	return (1.0 / iops_on - 1.0 / iops_off) * 1e9 / events_per_io;
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

static int window_start(int fd, uint32_t *attached)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		struct probestick_kc_start st = {.mask = PROBESTICK_KC_ALL};

		if (ioctl(fd, PROBESTICK_IOC_KC_START, &st) == 0) {
			*attached = st.attached;
			return 0;
		}
		/* A window left open by a plan or a killed bench: this one replaces it. */
		if (errno != EBUSY || ioctl(fd, PROBESTICK_IOC_KC_STOP) < 0)
			break;
	}
	return -errno;
}

/* Stops the window and counts what its probes handled. */
static int window_stop(int fd, struct events *ev)
{
	struct probestick_kc_record *recs = NULL, *grown;
	struct probestick_kc_snapshot snap;
	uint32_t room = 0;
	int ret = -EAGAIN;

	memset(ev, 0, sizeof(*ev));
	if (ioctl(fd, PROBESTICK_IOC_KC_STOP) < 0)
		return -errno;
	for (int attempt = 0; attempt < 4; attempt++) {
		memset(&snap, 0, sizeof(snap));
		snap.version = PROBESTICK_KC_RECORD_VERSION;
		snap.record_size = sizeof(*recs);
		snap.count = room;
		snap.records = (uintptr_t)recs;
		if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, &snap) < 0) {
			ret = -errno;
			break;
		}
		if (snap.count <= room) {
			ret = 0;
			break;
		}
		room = snap.count + 8;
		grown = realloc(recs, room * sizeof(*recs));
		if (!grown) {
			ret = -ENOMEM;
			break;
		}
		recs = grown;
	}
	if (ret == 0) {
		for (uint32_t i = 0; i < snap.count; i++) {
			switch (recs[i].metric) {
			case PROBESTICK_KC_M_BLOCK_LAT:
				ev->block_rq += recs[i].count;
				break;
			case PROBESTICK_KC_M_HARDIRQ:
				ev->hardirq += recs[i].count;
				break;
			case PROBESTICK_KC_M_SOFTIRQ:
				ev->softirq += recs[i].count;
				break;
			}
		}
		ev->rq_unknown = snap.drops.rq_unknown;
	}
	free(recs);
	return ret;
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

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *g = realloc(buf, cap + 65536);

			if (!g)
				break;
			buf = g;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
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

static void run_one(const struct bench_opts *o, int module_fd, struct run *r)
{
	int ret = 0;

	if (r->on) {
		ret = window_start(module_fd, &r->attached);
		if (ret < 0) {
			r->err = ret;
			snprintf(r->why, sizeof(r->why), "cannot start a capture window: %s",
				 strerror(-ret));
			return;
		}
	}
	if (r->tool == TOOL_OURS)
		run_ours(o, r);
	else
		run_fio(o, r);
	if (r->on) {
		ret = window_stop(module_fd, &r->ev);
		if (ret < 0 && !r->err) {
			r->err = ret;
			snprintf(r->why, sizeof(r->why), "cannot read the capture window: %s",
				 strerror(-ret));
		}
	}
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
	struct events ev; /* summed over the on runs */
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
	char a[32], b[32], c[32], d[32], e[32], f[32];
	double diff = s->ratio > 1 ? s->ratio - 1 : 1 - s->ratio;

	if (!s->n[0] && !s->n[1]) {
		printf("%-11s no run gave a figure\n", name);
		return;
	}
	printf("%-11s %10s %10s %7s %7s %6s %9s\n", name, fmt_num(a, 32, s->med[0], "%.0f"),
	       fmt_num(b, 32, s->n[1] ? s->med[1] : NAN, "%.0f"), fmt_num(c, 32, s->ratio, "%.4f"),
	       fmt_num(d, 32, s->noise * 100, "%.1f%%"), fmt_num(e, 32, s->events_per_io, "%.2f"),
	       fmt_num(f, 32, s->cost_ns, "%.1f"));
	printf("%-11s off: min %.0f max %.0f (%u runs)", "", s->min[0], s->max[0], s->n[0]);
	if (s->n[1])
		printf("; on: min %.0f max %.0f (%u runs)", s->min[1], s->max[1], s->n[1]);
	printf("\n");
	if (!isnan(s->paired[0]))
		printf("%-11s on/off within each round: median %.4f, min %.4f, max %.4f\n", "",
		       s->paired[0], s->paired[1], s->paired[2]);
	if (!isnan(s->ratio))
		printf("%-11s goal on/off >= %.2f: %s%s\n", "", GOAL_RATIO,
		       s->ratio >= GOAL_RATIO ? "met" : "missed",
		       diff <= s->noise ? " (the difference is inside the run-to-run spread)" : "");
}

static json_object *jdouble(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *summary_json(const struct summary *s)
{
	json_object *o = json_object_new_object();
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
	json_object_object_add(o, "cost_per_event_ns", jdouble(s->cost_ns));
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
	printf("spread: (max - min) / median of the runs of one mode, the larger of off and on.\n");
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
	fprintf(stderr, "probestick bench: unknown benchmark '%s'\n%s", argv[0], usage);
	return 2;
}
