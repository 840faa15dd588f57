/* bench.c - `probestick bench probes`: random reads with the module's probes off
 * and on, through our io_uring engine and through fio, in judged pairs. */
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
#define MAX_PAIRS  500

static const char usage[] =
    "usage: probestick bench probes [--dev PATH] [--pairs N] [--seconds S] [--cap S]\n"
    "                               [--qd N] [--bs BYTES] [--fio PATH|none]\n"
    "                               [--json PATH]\n"
    "       probestick bench engine --help  (our io_uring engine against fio)\n"
    "       probestick bench mem --help     (triad beside likwid-bench or stress-ng)\n"
    "       probestick bench net --help     (TCP over veth against iperf3)\n"
    "\n"
    "  Random O_DIRECT reads of BS bytes at queue depth QD on PATH (default\n"
    "  /dev/nullb0) in pairs of runs of S seconds (default 5): one with a capture\n"
    "  window of every probe open, one with no probe patched in, the one that\n"
    "  goes first alternating; through our engine, then through fio (io_uring)\n"
    "  unless --fio none. The median pair ratio on/off and its 95% interval are\n"
    "  judged against the goal >= 0.97 from N pairs on (default 6), going on\n"
    "  while undecided up to a cap of S seconds per tool (default 300); then the\n"
    "  cost of one probe event in ns. Only reads: the device is never written.\n";

enum tool { TOOL_OURS, TOOL_FIO, NR_TOOLS };
static const char *const tool_names[NR_TOOLS] = {"probestick", "fio"};

struct bench_opts {
	const char *dev;
	const char *fio; /* NULL: no fio */
	const char *json;
	unsigned int pairs, cap, qd, bs;
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

double ps_bench_median(const double *v, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s)), med = NAN, mn, mx;
	size_t k = 0;

	if (!s)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > 0)
			s[k++] = v[i];
	if (k)
		ps_bench_stats(s, k, &med, &mn, &mx);
	free(s);
	return med;
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

/* ---------------------------------------------------------- one tool -- */

/* One tool's pairs: what the pair runner calls back with, and the on runs' events. */
struct tool_run {
	const struct bench_opts *o;
	enum tool tool;
	int module_fd;
	struct ps_bench_events ev; /* summed over the on runs with a figure */
	uint64_t ios_on;
};

/* Side 0: a run with every probe on (A); side 1: with none patched in (B). */
static double run_side(void *arg, int side, char *why, size_t len)
{
	struct tool_run *t = arg;
	struct run r = {.tool = t->tool, .on = side == 0};

	run_one(t->o, t->module_fd, &r);
	snprintf(why, len, "%s", r.why);
	if (r.err)
		return NAN;
	if (r.on) {
		t->ev.block_rq += r.ev.block_rq;
		t->ev.rq_unknown += r.ev.rq_unknown;
		t->ev.hardirq += r.ev.hardirq;
		t->ev.softirq += r.ev.softirq;
		t->ios_on += r.ios;
	}
	return r.iops;
}

static json_object *jdouble(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/*
 * The cost of one probe event from the judged ratio: an IO takes
 * (1/ratio - 1) / IOPS_off longer with the probes on, shared among its
 * events; the interval's ends give the cost's range (the high ratio the
 * low cost). Printed, and added to o.
 */
static void print_cost(const struct tool_run *t, const struct ps_pairs *pr, json_object *o)
{
	double per_io = t->ios_on ? (double)events_total(&t->ev) / (double)t->ios_on : NAN;
	double c = ps_bench_cost_ns(pr->median_b, pr->median_b * pr->j.median, per_io);
	double c_lo = ps_bench_cost_ns(pr->median_b, pr->median_b * pr->j.hi, per_io);
	double c_hi = ps_bench_cost_ns(pr->median_b, pr->median_b * pr->j.lo, per_io);

	printf("  events: %llu block requests (issue + complete), %llu irq handler runs, %llu "
	       "softirq runs;\n  %.2f events per IO",
	       (unsigned long long)t->ev.block_rq, (unsigned long long)t->ev.hardirq,
	       (unsigned long long)t->ev.softirq, per_io);
	if (c < 0)
		printf("; no cost to tell: the on runs were the faster\n");
	else if (isfinite(c) && isfinite(c_lo))
		printf("; cost per event %.1f ns (95%% interval %.1f to %.1f ns)\n", c, c_lo, c_hi);
	else if (isfinite(c))
		printf("; cost per event %.1f ns (no interval: too few pairs)\n", c);
	else
		printf("\n");
	json_object_object_add(o, "events_block_rq",
			       json_object_new_int64((int64_t)t->ev.block_rq));
	json_object_object_add(o, "events_hardirq", json_object_new_int64((int64_t)t->ev.hardirq));
	json_object_object_add(o, "events_softirq", json_object_new_int64((int64_t)t->ev.softirq));
	json_object_object_add(o, "ios_on", json_object_new_int64((int64_t)t->ios_on));
	json_object_object_add(o, "events_per_io", jdouble(per_io));
	json_object_object_add(o, "cost_per_event_ns", jdouble(c));
	json_object_object_add(o, "cost_per_event_ns_low", jdouble(c_lo));
	json_object_object_add(o, "cost_per_event_ns_high", jdouble(c_hi));
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
		} else if (strcmp(a, "--pairs") == 0) {
			if (parse_uint(a, val, 1, MAX_PAIRS, &o->pairs) < 0)
				return 2;
		} else if (strcmp(a, "--cap") == 0) {
			if (parse_uint(a, val, 0, 36000, &o->cap) < 0)
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

/* What the run does, and what it cannot do without the module. */
static void probes_intro(const struct bench_opts *o, int module_fd)
{
	printf("probestick bench probes: random %u-byte O_DIRECT reads at QD %u on %s,\n"
	       "pairs of %g s runs with every probe on (a capture window of hardirq, softirq,\n"
	       "block and nic around the run) and with none patched in, the one that goes first\n"
	       "alternating; judged from %u pairs on, and on while undecided for at most %u s\n"
	       "per tool.\n",
	       o->bs, o->qd, o->dev, o->seconds, o->pairs, o->cap);
	if (module_fd < 0)
		printf("note: %s cannot be opened (%s): probestick.ko is not loaded, so there are\n"
		       "no runs with the probes on; one run of each tool with them off shows the\n"
		       "command works.\n",
		       PROBESTICK_DEVICE, strerror(errno));
}

/*
 * One tool: a warm-up run, then pairs of runs with the probes on and off
 * (without the module, one run off). Its result into tools. 0, 1 when it
 * failed, -1 when the pairs could not run at all.
 */
static int probes_tool(const struct bench_opts *o, enum tool t, int module_fd, json_object *tools)
{
	struct tool_run tr = {.o = o, .tool = t, .module_fd = module_fd};
	struct ps_pair_plan plan = {.name_a = "on",
				    .name_b = "off",
				    .unit = "IOPS",
				    .what = "on/off",
				    .goal = GOAL_RATIO,
				    .first_look = o->pairs,
				    .max_pairs = MAX_PAIRS,
				    .cap_s = o->cap,
				    .run = run_side,
				    .arg = &tr};
	struct bench_opts w = *o;
	struct ps_pairs pr;
	json_object *j;
	char why[240];
	double v;
	int failed = 0;

	printf("\n%s:\n", tool_names[t]);
	/* The first run of a tool pays for cold caches, page faults and lazy
	 * binding: one short run, not counted, before the measured ones. */
	w.seconds = o->seconds < 2 ? o->seconds : 2;
	tr.o = &w;
	v = run_side(&tr, 1, why, sizeof(why));
	tr.o = o;
	printf("  warm-up  off %s\n", v > 0 ? "done" : why);
	if (module_fd < 0) {
		v = run_side(&tr, 1, why, sizeof(why));
		j = json_object_new_object();
		if (v > 0) {
			printf("  off: %.0f IOPS\n", v);
			json_object_object_add(j, "off_iops", json_object_new_double(v));
		} else {
			printf("  off: failed: %s\n", why);
			failed = 1;
		}
		json_object_object_add(tools, tool_names[t], j);
		return failed;
	}
	if (ps_pairs_run(&plan, &pr) < 0)
		return -1;
	ps_pairs_print(&plan, &pr);
	j = ps_pairs_json(&plan, &pr);
	print_cost(&tr, &pr, j);
	json_object_object_add(tools, tool_names[t], j);
	failed = pr.broken || !pr.j.pairs;
	ps_pairs_free(&pr);
	return failed;
}

/* The run as JSON (--json FILE): false when it could not be written. */
static bool probes_json(const struct bench_opts *o, int module_fd, json_object *tools)
{
	json_object *root = json_object_new_object();
	bool ok = true;

	json_object_object_add(root, "device", json_object_new_string(o->dev));
	json_object_object_add(root, "bs", json_object_new_int((int)o->bs));
	json_object_object_add(root, "qd", json_object_new_int((int)o->qd));
	json_object_object_add(root, "seconds", json_object_new_double(o->seconds));
	json_object_object_add(root, "module", json_object_new_boolean(module_fd >= 0));
	json_object_object_add(root, "goal_ratio", json_object_new_double(GOAL_RATIO));
	json_object_object_add(root, "tools", tools);
	if (o->json && json_object_to_file_ext(o->json, root, JSON_C_TO_STRING_PRETTY) < 0) {
		fprintf(stderr, "probestick bench: cannot write %s\n", o->json);
		ok = false;
	}
	json_object_put(root);
	return ok;
}

static int cmd_probes(int argc, char **argv)
{
	struct bench_opts o = {.dev = "/dev/nullb0",
			       .fio = "fio",
			       .pairs = 6,
			       .cap = (unsigned int)PS_BENCH_CAP_S,
			       .qd = 32,
			       .bs = 4096,
			       .seconds = 5};
	json_object *tools;
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
	probes_intro(&o, module_fd);
	tools = json_object_new_object();
	for (int t = 0; t < NR_TOOLS; t++) {
		if (t == TOOL_FIO && !o.fio)
			continue;
		ret = probes_tool(&o, (enum tool)t, module_fd, tools);
		failed = failed || ret != 0;
		if (ret < 0)
			break;
	}
	if (module_fd >= 0)
		printf(
		    "\nevents: tracepoint hits the probes handled in the on runs: block issue + "
		    "complete\nper request, irq_handler entry + exit, softirq entry + exit; cost "
		    "per event =\n(1/ratio - 1) / IOPS_off x 1e9 / events per IO.\n");
	if (!probes_json(&o, module_fd, tools))
		failed = true;
	if (module_fd >= 0)
		close(module_fd);
	return failed ? 1 : 0;
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
