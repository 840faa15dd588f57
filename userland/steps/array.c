/*
 * array.c - md software RAID on confirmed scratch drives (TESTPLAN 5, seeds
 * 000 and 001): per level named in array=, build the array through mdadm,
 * time its initial sync, measure it with the disk engine, fail one member
 * (two for RAID 6), measure it degraded, add the members back and time the
 * rebuild, then stop it and wipe every member's md superblock. Destructive,
 * never in a default plan: it runs only when steps= names it, and only on
 * drives core/scratch.c lets a step write.
 */
/* clang-format off */
//config:config STEP_ARRAY
//config:	bool "array: md RAID build, degrade, rebuild on confirmed scratch drives"
//config:	default y
//config:	help
//config:	  Runs only when steps= (or the menu's step choice) names it,
//config:	  with the levels in array= (0, 1, 5, 6, 10), and only on two or
//config:	  more drives confirmed as scratch by serial (the same refusals as
//config:	  disk_write: never the boot stick, a mounted, swap or held drive,
//config:	  or a member of an array that was there before). Builds each
//config:	  level with mdadm, times its initial sync, measures sequential
//config:	  and random writes and reads, fails one member (two for RAID 6),
//config:	  measures again, adds them back and times the rebuild; then stops
//config:	  the array and wipes every member's md superblock. DESTROYS the
//config:	  data on the confirmed drives.
//kbuild:step-$(CONFIG_STEP_ARRAY) += array.o
/* clang-format on */

#include "core/config.h"
#include "core/scratch.h"
#include "core/step.h"
#include "decode/md.h"
#include "engines/io/matrix.h"
#include "engines/io/uring_io.h"
#include "engines/measure.h"
#include "engines/net/cost.h"
#include "hw/drive_use.h"
#include "lib/json.h"
#include "lib/stats.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_VERSION 1

#define KIB PS_KIB
#define MIB PS_MIB

#define POLL_MS	       200
#define SYNC_TIMEOUT_S (6 * 3600.0)
#define MD_FIRST       100 /* our arrays are md100 and up: clear of md0 and md127 */
#define OUT_MAX	       2048

struct point {
	bool random, write;
	unsigned int bs, qd;
	const char *what; /* in findings: "sequential 1M QD8 writes" */
};

/* disk_write's quick matrix, both ways */
enum { SEQ_WRITE, SEQ_READ, RAND_WRITE, RAND_READ, N_POINTS };
static const struct point points[N_POINTS] = {
    [SEQ_WRITE] = {false, true, 1 * MIB, 8, "sequential 1M QD8 writes"},
    [SEQ_READ] = {false, false, 1 * MIB, 8, "sequential 1M QD8 reads"},
    [RAND_WRITE] = {true, true, 4 * KIB, 32, "random 4K QD32 writes"},
    [RAND_READ] = {true, false, 4 * KIB, 32, "random 4K QD32 reads"},
};

struct array_plan {
	const char *name;
	unsigned int runs, max_runs; /* more runs while the CV is above noise_cv_pct, to max_runs */
	double noise_cv_pct;
	uint64_t byte_budget;
	double time_budget_s;
};

static const struct array_plan plans[] = {
    {"quick", 2, 4, 10.0, 512ULL * MIB, 1.0},
    {"full", 3, 5, 5.0, 2048ULL * MIB, 3.0},
};

/* ---- the result: data{} as a struct, described once ---- */

/* The CPU over a phase (engines/net/cost.c over /proc/stat and the drives' IRQs). */
struct cpu_load {
	double busy_pct, busiest_core_pct, busiest_core_softirq_pct, drive_irqs_per_s;
	bool cpu_bound;
};

/* A point measured on the array: the median of its runs (MB/s or IOPS) and their spread. */
struct point_result {
	double value, cv_pct;
	char error[64];
};

/* The array measured healthy or degraded: the four points and the CPU over them. */
struct phase_result {
	char error[4400]; /* the array could not be opened */
	struct point_result pt[N_POINTS];
	ps_tri direct;
	struct cpu_load *cpu;
	double seconds;
};

/* md's initial sync or a rebuild, timed until md's sync_action went idle. */
struct sync_result {
	char action[32];
	double seconds, mbps, speed_avg_kib_s;
	int64_t speed_max_kib_s;
	bool completed;
	struct cpu_load *cpu;		     /* a rebuild's */
	double full_drive_s, extrapolated_s; /* a rebuild's, scaled */
	int64_t degraded_after;		     /* a rebuild's: members still missing */
};

struct level_result {
	int level;
	const char *status; /* "running", "done", "skipped", "error", "aborted" */
	char reason[OUT_MAX + 256];
	char md[16];
	json_object *members, *failed; /* drive names */
	int64_t chunk_bytes, stripe_cache_size, array_bytes, component_bytes, degraded_members;
	struct sync_result *initial_sync, *rebuild;
	struct phase_result *healthy, *degraded;
	char stop_error[OUT_MAX];
};

struct drive_result {
	char name[32];
	const char *device, *serial;
	int64_t size_bytes;
	const char *decision;
	char reason[512];
};

struct md_array {
	char name[32], level[16];
	bool active;
	json_object *members;
};

struct cleanup_result {
	char stop_error[OUT_MAX];
	struct md_array *md_after;
	size_t n_md_after;
	json_object *mdstat_after, *md_left, *superblocks_left;
	bool clean;
};

struct array_result {
	int plan;
	struct ps_noise_rule rule;
	json_object *levels_asked;
	int64_t chunk_bytes, extrapolate_bytes;
	char mdadm[4200];
	int64_t speed_limit_min_kib_s, speed_limit_max_kib_s;
	struct md_array *md_before;
	size_t n_md_before;
	struct drive_result *drives;
	size_t n_drives;
	struct level_result *levels;
	size_t n_levels;
	struct cleanup_result *cleanup;
	json_object
	    *progress_sample; /* one recorded set of md's progress files (tests/fixtures/md) */
};

static const char *const plan_names[] = {"quick", "full", NULL};
#define NAMES_SCHEMA "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}"

static const struct ps_field cpu_f[] = {
    PS_FIELD(struct cpu_load, busy_pct, "busy_pct", .unit = "% of all CPUs", .decimals = 1),
    PS_FIELD(struct cpu_load, busiest_core_pct, "busiest_core_pct", .unit = "%", .decimals = 1),
    PS_FIELD(struct cpu_load, busiest_core_softirq_pct, "busiest_core_softirq_pct", .unit = "%",
	     .decimals = 1),
    PS_FIELD(struct cpu_load, drive_irqs_per_s, "drive_irqs_per_s", .flags = PS_FLD_NULL),
    PS_FIELD(struct cpu_load, cpu_bound, "cpu_bound"),
};
static const struct ps_fields cpu_fields = PS_FIELDS(struct cpu_load, cpu_f);

#define POINT_FIELDS(i, key, unit_, dec)                                                           \
	PS_FIELD(struct phase_result, pt[i].value, key, .unit = unit_, .decimals = dec,            \
		 .flags = PS_FLD_NULL | PS_FLD_OMIT),                                              \
	    PS_FIELD(struct phase_result, pt[i].cv_pct, key "_cv_pct", .unit = "%", .decimals = 1, \
		     .flags = PS_FLD_OMIT),                                                        \
	    PS_FIELD(struct phase_result, pt[i].error, key "_error", .flags = PS_FLD_OMIT)

static const struct ps_field phase_f[] = {
    PS_FIELD(struct phase_result, error, "error", .flags = PS_FLD_OMIT),
    POINT_FIELDS(SEQ_WRITE, "seq_write_mbps", "MB/s", 1),
    POINT_FIELDS(SEQ_READ, "seq_read_mbps", "MB/s", 1),
    POINT_FIELDS(RAND_WRITE, "rand_write_iops", "IOPS", 0),
    POINT_FIELDS(RAND_READ, "rand_read_iops", "IOPS", 0),
    PS_FIELD(struct phase_result, direct, "direct", .help = "O_DIRECT (false: buffered)",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_OBJP(struct phase_result, cpu, "cpu", &cpu_fields, .flags = PS_FLD_OMIT),
    PS_FIELD(struct phase_result, seconds, "seconds", .unit = "s", .decimals = 1,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
};
static const struct ps_fields phase_fields = PS_FIELDS(struct phase_result, phase_f);

static const struct ps_field sync_f[] = {
    PS_FIELD(struct sync_result, action, "action"),
    PS_FIELD(struct sync_result, seconds, "seconds", .unit = "s", .decimals = 2),
    PS_FIELD(struct sync_result, mbps, "mbps", .unit = "MB/s per member", .decimals = 1,
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct sync_result, speed_avg_kib_s, "sync_speed_avg_kib_s", .unit = "KiB/s",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct sync_result, speed_max_kib_s, "sync_speed_max_kib_s", .unit = "KiB/s",
	     .flags = PS_FLD_NULL),
    PS_FIELD(struct sync_result, completed, "completed"),
    PS_FIELD_OBJP(struct sync_result, cpu, "cpu", &cpu_fields, .flags = PS_FLD_OMIT),
    PS_FIELD(struct sync_result, full_drive_s, "full_drive_s", .unit = "s", .decimals = 1,
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct sync_result, extrapolated_s, "extrapolated_s", .unit = "s",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct sync_result, degraded_after, "degraded_after",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
};
static const struct ps_fields sync_fields = PS_FIELDS(struct sync_result, sync_f);

static const struct ps_field level_f[] = {
    PS_FIELD(struct level_result, level, "level"),
    PS_FIELD(struct level_result, status, "status"),
    PS_FIELD(struct level_result, reason, "reason", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, md, "md", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, members, "members", .schema = NAMES_SCHEMA, .flags = PS_FLD_OMIT),
    PS_FIELD(struct level_result, failed, "failed", .schema = NAMES_SCHEMA, .flags = PS_FLD_OMIT),
    PS_FIELD(struct level_result, chunk_bytes, "chunk_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, stripe_cache_size, "stripe_cache_size",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, array_bytes, "array_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, component_bytes, "component_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct level_result, degraded_members, "degraded_members",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_OBJP(struct level_result, initial_sync, "initial_sync", &sync_fields,
		  .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct level_result, healthy, "healthy", &phase_fields, .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct level_result, degraded, "degraded", &phase_fields, .flags = PS_FLD_OMIT),
    PS_FIELD_OBJP(struct level_result, rebuild, "rebuild", &sync_fields, .flags = PS_FLD_OMIT),
    PS_FIELD(struct level_result, stop_error, "stop_error", .flags = PS_FLD_OMIT),
};
static const struct ps_fields level_fields = PS_FIELDS(struct level_result, level_f);

static const struct ps_field drive_f[] = {
    PS_FIELD(struct drive_result, name, "name"),
    PS_FIELD(struct drive_result, device, "device", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, serial, "serial", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, size_bytes, "size_bytes", .unit = "bytes", .flags = PS_FLD_NULL),
    PS_FIELD(struct drive_result, decision, "decision"),
    PS_FIELD(struct drive_result, reason, "reason"),
};
static const struct ps_fields drive_fields = PS_FIELDS(struct drive_result, drive_f);

static const struct ps_field md_f[] = {
    PS_FIELD(struct md_array, name, "name"),
    PS_FIELD(struct md_array, level, "level", .flags = PS_FLD_NULL),
    PS_FIELD(struct md_array, active, "active"),
    PS_FIELD(struct md_array, members, "members", .schema = NAMES_SCHEMA),
};
static const struct ps_fields md_fields = PS_FIELDS(struct md_array, md_f);

static const struct ps_field cleanup_f[] = {
    PS_FIELD(struct cleanup_result, stop_error, "stop_error", .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct cleanup_result, md_after, n_md_after, "md_after", &md_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD(struct cleanup_result, mdstat_after, "mdstat_after",
	     .schema = "{\"type\": \"string\"}", .flags = PS_FLD_NULL,
	     .help = "/proc/mdstat as read after the clean-up"),
    PS_FIELD(struct cleanup_result, md_left, "md_left", .schema = NAMES_SCHEMA),
    PS_FIELD(struct cleanup_result, superblocks_left, "superblocks_left", .schema = NAMES_SCHEMA),
    PS_FIELD(struct cleanup_result, clean, "clean"),
};
static const struct ps_fields cleanup_fields = PS_FIELDS(struct cleanup_result, cleanup_f);

static const struct ps_field array_f[] = {
    PS_FIELD_ENUM(struct array_result, plan, "plan", plan_names),
    PS_FIELD(struct array_result, rule.runs, "runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct array_result, rule.max_runs, "max_runs", .flags = PS_FLD_NEWER),
    PS_FIELD(struct array_result, rule.cv_limit_pct, "noise_cv_pct", .unit = "%", .decimals = 1,
	     .flags = PS_FLD_NEWER),
    PS_FIELD(struct array_result, levels_asked, "levels_asked",
	     .schema = "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}}",
	     .flags = PS_FLD_OMIT),
    PS_FIELD(struct array_result, chunk_bytes, "chunk_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct array_result, extrapolate_bytes, "extrapolate_bytes", .unit = "bytes",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct array_result, mdadm, "mdadm", .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct array_result, speed_limit_min_kib_s, "speed_limit_min_kib_s", .unit = "KiB/s",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD(struct array_result, speed_limit_max_kib_s, "speed_limit_max_kib_s", .unit = "KiB/s",
	     .flags = PS_FLD_NULL | PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct array_result, md_before, n_md_before, "md_before", &md_fields,
		   .flags = PS_FLD_OMIT),
    PS_FIELD_ARRAY(struct array_result, drives, n_drives, "drives", &drive_fields),
    PS_FIELD_ARRAY(struct array_result, levels, n_levels, "levels", &level_fields),
    PS_FIELD_OBJP(struct array_result, cleanup, "cleanup", &cleanup_fields, .flags = PS_FLD_OMIT),
    PS_FIELD(struct array_result, progress_sample, "progress_sample",
	     .schema = "{\"type\": \"object\"}", .flags = PS_FLD_OMIT,
	     .help = "md's progress files read once mid-rebuild, for tests/fixtures/md"),
};
static const struct ps_fields array_fields = PS_FIELDS(struct array_result, array_f);

struct member {
	const struct ps_drive *inv;
	char dev[4200]; /* /dev/vdb */
	uint64_t size;
};

struct arr {
	struct ps_ctx *ctx;
	const struct array_plan *p;
	struct member m[PS_MD_MAX_MEMBERS];
	size_t n;
	char mdadm[4200];
	char md[16];	   /* md100 */
	char mdpath[4200]; /* /dev/md100 */
	bool md_up;	   /* our array exists: stop it on every path */
	bool aborted;
	uint64_t chunk;
	uint64_t extrapolate; /* 0: none */
	int fd;
	bool direct;
	struct array_result *out;
};

static const struct array_plan *plan_of(const struct ps_ctx *ctx)
{
	return ctx->plan && ctx->plan->level == PS_PLAN_FULL ? &plans[1] : &plans[0];
}

static bool stop_now(struct arr *a)
{
	a->aborted = a->aborted || ps_should_abort(a->ctx);
	return a->aborted;
}

/* ---- mdadm ---- */

/*
 * Runs mdadm with args (NULL-terminated), stdin /dev/null, stdout and stderr
 * into out. Its exit status, or -errno when it could not be started.
 */
static int mdadm(struct arr *a, char *out, size_t outlen, const char *const *args)
{
	const char *argv[24 + PS_MD_MAX_MEMBERS];
	int pipefd[2], status;
	size_t n = 0, used = 0;
	pid_t pid;

	argv[n++] = a->mdadm;
	for (size_t i = 0; args[i]; i++) {
		if (n == PS_ARRAY_SIZE(argv) - 1)
			return -E2BIG; /* never a command with members left off */
		argv[n++] = args[i];
	}
	argv[n] = NULL;
	if (out && outlen)
		out[0] = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return -e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		/* no udev in the initramfs: mdadm makes the device nodes itself */
		setenv("MDADM_NO_UDEV", "1", 1);
		setenv("MDADM_NO_SYSTEMCTL", "1", 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		char buf[512];
		ssize_t r = read(pipefd[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (out && used + 1 < outlen) {
			size_t c = (size_t)r < outlen - 1 - used ? (size_t)r : outlen - 1 - used;

			memcpy(out + used, buf, c);
			used += c;
			out[used] = 0;
		}
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (out)
		while (used && (out[used - 1] == '\n' || out[used - 1] == ' '))
			out[--used] = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int read_mdstat(struct arr *a, struct ps_mdstat *st, char **text)
{
	char path[4200], *data = NULL;
	size_t len = 0;
	int ret;

	ps_path(path, sizeof(path), a->ctx->root, "/proc/mdstat");
	ret = ps_read_all(path, &data, &len);
	if (ret < 0) {
		memset(st, 0, sizeof(*st));
		if (text)
			*text = NULL;
		return ret;
	}
	ret = ps_mdstat_parse(data, len, st);
	if (text)
		*text = data;
	else
		free(data);
	return ret;
}

static int md_attr(struct arr *a, const char *attr, char *buf, size_t len)
{
	char path[4200];

	ps_path(path, sizeof(path), a->ctx->root, "/sys/block/%s/md/%s", a->md, attr);
	return ps_read_str(path, buf, len);
}

static int64_t md_attr_int(struct arr *a, const char *attr)
{
	char buf[64], *end;
	long long v;

	if (md_attr(a, attr, buf, sizeof(buf)) < 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return end == buf ? -1 : v;
}

/* ---- CPU load of a phase: engines/net/cost.c over /proc/stat and the drives' IRQs ---- */

struct cpu_mark {
	struct ps_cost c;
};

static void cpu_mark(struct arr *a, struct cpu_mark *m)
{
	memset(m, 0, sizeof(*m));
	m->c.root = a->ctx->root;
	/* the members' interrupt vectors (a virtio disk or NVMe has its own function) */
	for (size_t i = 0; i < a->n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(a->m[k].inv->pci_address, a->m[i].inv->pci_address);
		if (!seen && a->m[i].inv->pci_address[0])
			ps_cost_watch_pci(&m->c, a->m[i].inv->pci_address);
	}
	ps_cost_begin(&m->c);
}

/* The CPU since the mark, or NULL when /proc/stat could not tell. */
static struct cpu_load *cpu_since(struct arr *a, struct cpu_mark *m)
{
	struct ps_cost_result r;
	struct cpu_load *o;

	ps_cost_end(&m->c, &r);
	if (!r.known || !(o = ps_fields_new(&cpu_fields, 1)))
		return NULL;
	o->busy_pct = r.total_pct;
	o->busiest_core_pct = r.busiest_pct;
	o->busiest_core_softirq_pct = r.busiest_softirq_pct;
	o->drive_irqs_per_s = r.irqs_per_s >= 0 ? r.irqs_per_s : NAN;
	o->cpu_bound = r.cpu_bound;
	return o;
}

/* ---- the engine on the array ---- */

static bool engine_stop(void *arg)
{
	return stop_now(arg);
}

static void fill_plain(void *arg, unsigned char *buf, uint64_t off, unsigned int len)
{
	memset(buf, 0x5a, len);
}

/* The noise rule over a point's runs: the plan's runs, more while noisy; no warm-up. */
static struct ps_noise_rule noise_rule(const struct array_plan *p)
{
	return (struct ps_noise_rule){
	    .runs = p->runs, .max_runs = p->max_runs, .cv_limit_pct = p->noise_cv_pct};
}

/* One point on the array, as the measuring engine's run() sees it. */
struct point_run {
	struct arr *a;
	const struct point *pt;
	uint64_t size, per_run;
	int err;
};

/* One run: MB/s for sequential, IOPS for random, each write flushed; reads from the drives. */
static int point_run(void *arg, unsigned int i, double *v)
{
	struct point_run *pr = arg;
	struct arr *a = pr->a;
	const struct point *pt = pr->pt;
	struct ps_uio_result res;
	struct ps_uio_job j = {.fd = a->fd,
			       .size = pr->size,
			       .length = pr->per_run,
			       .bs = pt->bs,
			       .qd = pt->qd,
			       .time_budget_s = a->p->time_budget_s,
			       .check_ms = 50,
			       .should_stop = engine_stop,
			       .stop_arg = a,
			       .random = pt->random,
			       .seed = 0x9E3779B97F4A7C15ULL * (i + 1),
			       .write = pt->write,
			       .fill = pt->write ? fill_plain : NULL,
			       .data_arg = a};
	double t0 = ps_mono_now(), secs;
	int err;

	if (!pt->write)
		posix_fadvise(a->fd, 0, 0, POSIX_FADV_DONTNEED);
	err = pt->write ? ps_uio_write(&j, &res) : ps_uio_read(&j, &res);
	if (err == 0 && pt->write && fdatasync(a->fd) < 0 && errno != EINVAL)
		err = -errno;
	secs = ps_mono_now() - t0;
	if (err < 0)
		return pr->err = err;
	if (!res.bytes || a->aborted)
		return -ECANCELED;
	v[0] = pt->random ? ps_iops(res.ios, secs) : ps_mbps(res.bytes, secs);
	return 0;
}

/* A point under the noise rule into o: the median of its runs, their CV, or why none ran. */
static void measure_point(struct arr *a, const struct point *pt, uint64_t size, int level,
			  struct point_result *o)
{
	struct point_run pr = {.a = a, .pt = pt, .size = size};
	struct ps_measure me = {.rule = noise_rule(a->p),
				.nfig = 1,
				.run = point_run,
				.arg = &pr,
				.should_stop = engine_stop,
				.stop_arg = a};
	struct ps_figure f;
	char what[96];

	pr.per_run = size < a->p->byte_budget ? size : a->p->byte_budget;
	ps_measure_run(&me, &f);
	if (pr.err)
		snprintf(o->error, sizeof(o->error), "%s", strerror(-pr.err));
	o->value = f.median;
	o->cv_pct = f.cv_pct;
	snprintf(what, sizeof(what), "RAID %d %s", level, pt->what);
	ps_find_unstable(a->ctx, (struct ps_dev_ref){0}, "unstable_throughput", &f,
			 pt->random ? "IOPS" : "MB/s", pt->random ? 0 : 1, what,
			 "another load, or a member that is not steady");
}

/* Measures the array: the four points, the CPU over them. */
static struct phase_result *measure_phase(struct arr *a, const char *what, int level)
{
	struct phase_result *o = ps_fields_new(&phase_fields, 1);
	struct cpu_mark b;
	uint64_t size = 0;
	char phase[96];
	double t0 = ps_mono_now();

	if (!o)
		return NULL;
	a->fd = ps_uio_open_rw(a->mdpath, true, &a->direct, NULL);
	if (a->fd < 0 || ps_uio_size(a->fd, &size) < 0 || size < MIB) {
		snprintf(o->error, sizeof(o->error), "cannot open %.4000s: %s", a->mdpath,
			 a->fd < 0 ? strerror(-a->fd) : "no size");
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return o;
	}
	snprintf(phase, sizeof(phase), "%s RAID %d %s", a->md, level, what);
	ps_progress_phase(a->ctx, phase, N_POINTS, "points");
	cpu_mark(a, &b);
	for (size_t i = 0; i < N_POINTS && !stop_now(a); i++) {
		measure_point(a, &points[i], size, level, &o->pt[i]);
		ps_progress_set(a->ctx, i + 1);
	}
	o->direct = a->direct;
	o->cpu = cpu_since(a, &b);
	o->seconds = ps_mono_now() - t0;
	close(a->fd);
	a->fd = -1;
	return o;
}

/* ---- syncs: the initial one and rebuilds ---- */

/* One recorded set of the files md shows mid-rebuild (tests/fixtures/md), once a run. */
static void record_sample(struct arr *a, const char *what)
{
	static const char *const files[][2] = {
	    {"sync_completed", "/sys/block/%s/md/sync_completed"},
	    {"sync_speed", "/sys/block/%s/md/sync_speed"},
	    {"mdstat", "/proc/mdstat"}};
	json_object *smp = json_object_new_object();

	for (size_t i = 0; i < PS_ARRAY_SIZE(files); i++) {
		char path[4200];

		ps_path(path, sizeof(path), a->ctx->root, files[i][1], a->md);
		ps_json_set_file(smp, files[i][0], path);
	}
	ps_json_set_str(smp, "what", what);
	a->out->progress_sample = smp;
}

/* What a sync's polls saw: its action, md's speeds, whether it ran at all. */
struct sync_watch {
	double t0, speed_sum;
	int64_t speed_max;
	unsigned int speed_n;
	bool seen, phase, timed_out;
	char action[32];
};

/* One poll of md's sync files; false when the sync is over (or never started). */
static bool sync_poll(struct arr *a, const char *what, struct sync_watch *w)
{
	char buf[128], act[32] = "";
	struct ps_md_sync s;
	int64_t kib;

	md_attr(a, "sync_action", act, sizeof(act));
	if (md_attr(a, "sync_completed", buf, sizeof(buf)) < 0 ||
	    ps_md_sync_completed_parse(buf, &s) < 0)
		s.state = PS_MD_SYNC_NONE;
	if (s.state != PS_MD_SYNC_NONE || (act[0] && strcmp(act, "idle"))) {
		if (!w->seen)
			snprintf(w->action, sizeof(w->action), "%s", act);
		w->seen = true;
	}
	if (s.state == PS_MD_SYNC_RUNNING) {
		if (!w->phase) {
			char ph[96];

			snprintf(ph, sizeof(ph), "%s %s (%s)", a->md, what, act);
			ps_progress_phase(a->ctx, ph, s.total * 512, "B");
			w->phase = true;
		}
		ps_progress_set(a->ctx, s.done * 512);
		if (md_attr(a, "sync_speed", buf, sizeof(buf)) >= 0 &&
		    ps_md_sync_speed_parse(buf, &kib) == 0 && kib > 0) {
			w->speed_sum += (double)kib;
			w->speed_n++;
			w->speed_max = kib > w->speed_max ? kib : w->speed_max;
		}
		if (!a->out->progress_sample && strstr(what, "rebuild") && s.done > s.total / 4)
			record_sample(a, what);
	}
	/* a sync md has not started yet (resync=PENDING) is given 2 s to start */
	if (s.state == PS_MD_SYNC_NONE && (!act[0] || !strcmp(act, "idle")) &&
	    (w->seen || ps_mono_now() - w->t0 > 2.0))
		return false;
	return true;
}

/* Waits for md's sync to end, with progress; what it was, or NULL when none ran. */
static struct sync_result *wait_sync(struct arr *a, const char *what, uint64_t component_bytes)
{
	struct sync_watch w = {.t0 = ps_mono_now(), .speed_max = -1};
	struct sync_result *o;

	while (sync_poll(a, what, &w) && !stop_now(a)) {
		if (ps_mono_now() - w.t0 > SYNC_TIMEOUT_S) {
			w.timed_out = true;
			ps_findf(a->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "sync_timeout",
				 "%s: the %s did not end in %.0f h; it is left running and its "
				 "figures are not counted",
				 a->md, what, SYNC_TIMEOUT_S / 3600);
			break;
		}
		usleep(POLL_MS * 1000);
	}
	if (!w.seen || !(o = ps_fields_new(&sync_fields, 1)))
		return NULL;
	snprintf(o->action, sizeof(o->action), "%s", w.action);
	o->seconds = ps_mono_now() - w.t0;
	o->completed = !a->aborted && !w.timed_out;
	o->mbps =
	    !o->completed || o->seconds <= 0 ? NAN : (double)component_bytes / 1e6 / o->seconds;
	o->speed_avg_kib_s = w.speed_n ? w.speed_sum / w.speed_n : NAN;
	o->speed_max_kib_s = w.speed_max;
	return o;
}

/* ---- one level ---- */

static void set_fail(struct level_result *row, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fail(struct level_result *row, const char *status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(row->reason, sizeof(row->reason), fmt, ap);
	va_end(ap);
	row->status = status;
}

/* The drives' names, from member first to last, as a JSON list. */
static json_object *member_names(const struct arr *a, size_t first, size_t last)
{
	json_object *l = json_object_new_array();

	for (size_t i = first; i < last; i++)
		json_object_array_add(l, json_object_new_string(a->m[i].inv->name));
	return l;
}

static void zero_members(struct arr *a, size_t n)
{
	char out[OUT_MAX];

	for (size_t i = 0; i < n; i++) {
		const char *args[] = {"--zero-superblock", a->m[i].dev, NULL};

		mdadm(a, out, sizeof(out), args);
	}
}

static int stop_array(struct arr *a, char *out, size_t outlen)
{
	const char *args[] = {"--stop", a->mdpath, NULL};
	int ret = 0;

	if (!a->md_up)
		return 0;
	for (int tries = 0; tries < 5; tries++) {
		ret = mdadm(a, out, outlen, args);
		if (ret == 0)
			break;
		usleep(300 * 1000); /* a sync being torn down: EBUSY for a moment */
	}
	a->md_up = false;
	return ret;
}

static bool pick_md(struct arr *a)
{
	for (int i = MD_FIRST; i < MD_FIRST + 100; i++) {
		char path[4200];
		struct stat st;

		ps_path(path, sizeof(path), a->ctx->root, "/sys/block/md%d", i);
		if (stat(path, &st) == 0)
			continue;
		snprintf(a->md, sizeof(a->md), "md%d", i);
		ps_path(a->mdpath, sizeof(a->mdpath), a->ctx->root, "/dev/md%d", i);
		return true;
	}
	return false;
}

static int64_t read_limit(struct arr *a, const char *name)
{
	char path[4200];
	int64_t v;

	ps_path(path, sizeof(path), a->ctx->root, "/proc/sys/dev/raid/%s", name);
	return ps_read_s64(path, &v) == 0 ? v : -1;
}

/* mdadm --create of RAID level over every member, and what md made of it. */
static int create_array(struct arr *a, int level, struct level_result *row)
{
	char out[OUT_MAX], lvl[24], nd[48], chunk[48], path[4200];
	const char *args[16 + PS_MD_MAX_MEMBERS];
	size_t na = 0;
	int64_t comp_kib;
	uint64_t sz;
	int ret;

	snprintf(lvl, sizeof(lvl), "--level=%d", level);
	snprintf(nd, sizeof(nd), "--raid-devices=%zu", a->n);
	snprintf(chunk, sizeof(chunk), "--chunk=%lluK", (unsigned long long)(a->chunk / KIB));
	args[na++] = "--create";
	args[na++] = a->mdpath;
	args[na++] = "--run";
	args[na++] = "--metadata=1.2";
	if (level != 0) /* mdadm refuses a bitmap setting for RAID 0, which has none */
		args[na++] = "--bitmap=none"; /* a rebuild copies whole members, as after a swap */
	args[na++] = lvl;
	args[na++] = nd;
	if (level != 1)
		args[na++] = chunk;
	for (size_t i = 0; i < a->n; i++)
		args[na++] = a->m[i].dev;
	args[na] = NULL;
	zero_members(a, a->n);
	ret = mdadm(a, out, sizeof(out), args);
	a->md_up = true; /* even a failed create may leave a device: stop it either way */
	if (ret != 0) {
		set_fail(row, "error", "mdadm --create RAID %d: exit %d: %s", level, ret, out);
		return -EIO;
	}
	/* md_mod is loaded by the first create: its limits are there from now on */
	if (a->out->speed_limit_max_kib_s < 0) {
		a->out->speed_limit_min_kib_s = read_limit(a, "speed_limit_min");
		a->out->speed_limit_max_kib_s = read_limit(a, "speed_limit_max");
	}
	row->chunk_bytes = level == 1 ? -1 : (int64_t)a->chunk;
	comp_kib = md_attr_int(a, "component_size");
	row->component_bytes = comp_kib > 0 ? comp_kib * (int64_t)KIB : -1;
	ps_path(path, sizeof(path), a->ctx->root, "/sys/block/%s/size", a->md);
	row->array_bytes = ps_read_u64(path, &sz) == 0 ? (int64_t)(sz * 512) : -1;
	if (level == 5 || level == 6)
		row->stripe_cache_size = md_attr_int(a, "stripe_cache_size");
	return 0;
}

/* Fail the last k members and take them out. */
static int degrade(struct arr *a, size_t k, struct level_result *row)
{
	char out[OUT_MAX];
	int ret;

	for (size_t i = a->n - k; i < a->n; i++) {
		const char *fa[] = {a->mdpath, "--fail", a->m[i].dev, NULL};
		const char *ra[] = {a->mdpath, "--remove", a->m[i].dev, NULL};

		ret = mdadm(a, out, sizeof(out), fa);
		for (int t = 0; ret == 0 && t < 10; t++) {
			ret = mdadm(a, out, sizeof(out), ra);
			if (ret != 0)
				usleep(200 * 1000);
			else
				break;
		}
		if (ret != 0) {
			set_fail(row, "error", "mdadm fail/remove %s: exit %d: %s", a->m[i].dev,
				 ret, out);
			return -EIO;
		}
		json_object_array_add(row->failed, json_object_new_string(a->m[i].inv->name));
	}
	row->degraded_members = md_attr_int(a, "degraded");
	return 0;
}

/* The rebuild's time scaled to a full member (md sizes every member by the smallest drive)
 * and to array_extrapolate; a rebuild that did not end has no time to scale. */
static void scale_rebuild(struct arr *a, struct sync_result *rb, uint64_t comp)
{
	uint64_t smallest = a->m[0].size;

	for (size_t i = 1; i < a->n; i++)
		smallest = a->m[i].size < smallest ? a->m[i].size : smallest;
	if (!rb->completed)
		return;
	rb->full_drive_s = ps_md_extrapolate_s(rb->seconds, comp, smallest);
	rb->extrapolated_s = ps_md_extrapolate_s(rb->seconds, comp, a->extrapolate);
}

/* Add the failed members back as new drives and time the whole-member rebuild. */
static int rebuild(struct arr *a, int level, size_t k, uint64_t comp, struct level_result *row)
{
	const char *aa[4 + PS_MD_MAX_MEMBERS];
	char out[OUT_MAX];
	struct cpu_mark b;
	size_t x = 0;
	int ret;

	for (size_t i = a->n - k; i < a->n; i++) {
		const char *za[] = {"--zero-superblock", a->m[i].dev, NULL};

		mdadm(a, out, sizeof(out), za);
	}
	cpu_mark(a, &b);
	aa[x++] = a->mdpath;
	aa[x++] = "--add";
	for (size_t i = a->n - k; i < a->n; i++)
		aa[x++] = a->m[i].dev;
	aa[x] = NULL;
	ret = mdadm(a, out, sizeof(out), aa);
	if (ret != 0) {
		set_fail(row, "error", "mdadm --add: exit %d: %s", ret, out);
		return -EIO;
	}
	row->rebuild = wait_sync(a, k > 1 ? "rebuild of 2 members" : "rebuild", comp);
	if (!row->rebuild) {
		if (!a->aborted)
			set_fail(row, "error", "no rebuild started after mdadm --add");
		return 0;
	}
	row->rebuild->cpu = cpu_since(a, &b);
	row->rebuild->degraded_after = md_attr_int(a, "degraded");
	scale_rebuild(a, row->rebuild, comp);
	if (!a->aborted && row->rebuild->degraded_after != 0)
		ps_findf(a->ctx, PS_SEV_FAIL, (struct ps_dev_ref){0}, "rebuild",
			 "RAID %d on %s: %lld members still missing after the rebuild", level,
			 a->md, (long long)row->rebuild->degraded_after);
	return 0;
}

/* One level: built, synced, measured healthy, degraded, measured, rebuilt. */
static int run_level(struct arr *a, int level, struct level_result *row)
{
	int red = ps_md_level_redundancy(level);
	size_t k = (size_t)(red > 0 ? red : 0);
	uint64_t comp;
	int ret;

	row->members = member_names(a, 0, a->n);
	row->failed = json_object_new_array();
	if (!pick_md(a)) {
		set_fail(row, "error", "no free md device number from md%d", MD_FIRST);
		return -EBUSY;
	}
	snprintf(row->md, sizeof(row->md), "%s", a->md);
	ret = create_array(a, level, row);
	if (ret < 0)
		return ret;
	comp = row->component_bytes > 0 ? (uint64_t)row->component_bytes : 0;
	/* a sync with nothing else running goes as fast as the system's limit lets it */
	row->initial_sync = wait_sync(a, "initial sync", comp);
	if (a->aborted)
		return 0;
	row->healthy = measure_phase(a, "healthy", level);
	if (k == 0)
		snprintf(row->reason, sizeof(row->reason),
			 "RAID 0 has no redundancy: it cannot run degraded");
	if (a->aborted || k == 0)
		return 0;
	ret = degrade(a, k, row);
	if (ret < 0)
		return ret;
	row->degraded = measure_phase(a, "degraded", level);
	if (a->aborted)
		return 0;
	return rebuild(a, level, k, comp, row);
}

/* ---- the step ---- */

/* The arrays of an mdstat as rows; *n of them. */
static struct md_array *md_rows(const struct ps_mdstat *st, size_t *n)
{
	struct md_array *rows = st->n ? ps_fields_new(&md_fields, st->n) : NULL;

	*n = rows ? st->n : 0;
	for (size_t i = 0; i < *n; i++) {
		snprintf(rows[i].name, sizeof(rows[i].name), "%s", st->a[i].name);
		snprintf(rows[i].level, sizeof(rows[i].level), "%s", st->a[i].level);
		rows[i].active = st->a[i].active;
		rows[i].members = json_object_new_array();
		for (size_t k = 0; k < st->a[i].n_members; k++)
			json_object_array_add(rows[i].members,
					      json_object_new_string(st->a[i].members[k]));
	}
	return rows;
}

static bool find_mdadm(struct arr *a)
{
	static const char *const where[] = {"/sbin/mdadm", "/usr/sbin/mdadm", "/bin/mdadm",
					    "/usr/bin/mdadm"};

	for (size_t i = 0; i < PS_ARRAY_SIZE(where); i++) {
		ps_path(a->mdadm, sizeof(a->mdadm), a->ctx->root, "%s", where[i]);
		if (access(a->mdadm, X_OK) == 0)
			return true;
	}
	a->mdadm[0] = 0;
	return false;
}

/* Stop our array, wipe every member, and say what /proc/mdstat holds afterwards. */
static bool cleanup(struct arr *a, const struct ps_mdstat *before)
{
	struct cleanup_result *c = ps_fields_new(&cleanup_fields, 1);
	struct ps_mdstat st;
	char out[OUT_MAX], *text = NULL;

	if (!c)
		return false;
	a->out->cleanup = c;
	c->clean = true;
	c->md_left = json_object_new_array();
	c->superblocks_left = json_object_new_array();
	if (stop_array(a, out, sizeof(out)) != 0) {
		snprintf(c->stop_error, sizeof(c->stop_error), "%s", out);
		c->clean = false;
	}
	if (a->mdadm[0])
		zero_members(a, a->n);
	for (size_t i = 0; i < a->n && a->mdadm[0]; i++) {
		const char *args[] = {"--examine", a->m[i].dev, NULL};

		/* exit 0: mdadm still finds a superblock on the member */
		if (mdadm(a, out, sizeof(out), args) == 0) {
			json_object_array_add(c->superblocks_left,
					      json_object_new_string(a->m[i].inv->name));
			c->clean = false;
		}
	}
	if (read_mdstat(a, &st, &text) == 0) {
		for (size_t i = 0; i < st.n; i++) {
			bool old = false;

			for (size_t k = 0; k < before->n && !old; k++)
				old = !strcmp(before->a[k].name, st.a[i].name);
			if (!old) {
				json_object_array_add(c->md_left,
						      json_object_new_string(st.a[i].name));
				c->clean = false;
			}
		}
		c->md_after = md_rows(&st, &c->n_md_after);
	}
	c->mdstat_after = text ? json_object_new_string(text) : NULL;
	free(text);
	if (!c->clean)
		ps_findf(a->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "cleanup",
			 "md devices (%zu) or superblocks (%zu) of the array step are left: stop "
			 "them with mdadm --stop and wipe with mdadm --zero-superblock",
			 ps_json_len(c->md_left), ps_json_len(c->superblocks_left));
	return c->clean;
}

/* array=, array_chunk=, array_extrapolate=: what the step builds, and how rebuilds are scaled. */
static int parse_levels(const char *text, void *value, char *why, size_t whylen)
{
	return ps_md_levels_parse(text, value, why, whylen);
}

static int parse_chunk(const char *text, void *value, char *why, size_t whylen)
{
	return ps_md_chunk_parse(text, value, why, whylen);
}

static int parse_extrapolate(const char *text, void *value, char *why, size_t whylen)
{
	if (ps_md_size_parse(text, value) == 0 && *(uint64_t *)value > 0)
		return 0;
	snprintf(why, whylen, "not a size (2TB, 500GB, 4TiB)");
	return -EINVAL;
}

static const struct ps_setting array_levels = {
    .key = "array",
    .help = "the RAID levels the array step builds on the scratch drives (1,5,6); none: it skips",
    .size = sizeof(struct ps_md_levels),
    .parse = parse_levels,
};

static const struct ps_setting array_chunk = {
    .key = "array_chunk",
    .help = "the md chunk size of those arrays (512K)",
    .def = "512K",
    .size = sizeof(uint64_t),
    .parse = parse_chunk,
};

static const struct ps_setting array_extrapolate = {
    .key = "array_extrapolate",
    .help = "a member size the rebuild times are scaled to (2TB); none: not scaled",
    .size = sizeof(uint64_t),
    .parse = parse_extrapolate,
};

static const struct ps_setting *const array_settings[] = {&array_levels, &array_chunk,
							  &array_extrapolate, NULL};

/* Which drives the arrays may use: every drive's decision, the confirmed ones as members. */
static void choose_members(struct arr *a, const struct ps_mdstat *before)
{
	struct ps_ctx *ctx = a->ctx;

	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		const struct ps_drive *d = &ctx->inv->drives[i];
		const struct ps_mdstat_array *in = ps_mdstat_member_of(before, d->name);
		struct drive_result *o = &a->out->drives[a->out->n_drives++];
		struct ps_drive_use use;
		enum ps_scratch_verdict v;
		char dev[4200];

		snprintf(o->name, sizeof(o->name), "%s", d->name);
		o->device = d->id;
		o->serial = d->serial;
		o->size_bytes = d->size_bytes;
		ps_path(dev, sizeof(dev), ctx->root, "/dev/%s", d->name);
		/* arrays that were there before are not ours: left alone, their members refused */
		v = ps_scratch_decide_for(ctx, d, dev, in ? in->name : NULL, &use, o->reason,
					  sizeof(o->reason));
		o->decision = ps_scratch_verdict_name(v);
		if (v != PS_SCRATCH_OK || a->n >= PS_MD_MAX_MEMBERS)
			continue;
		a->m[a->n].inv = d;
		snprintf(a->m[a->n].dev, sizeof(a->m[a->n].dev), "%s", dev);
		a->m[a->n].size = d->size_bytes > 0 ? (uint64_t)d->size_bytes : 0;
		a->n++;
	}
}

/* Each level asked for in turn; false when one of them failed. *done_any: one finished. */
static bool run_levels(struct arr *a, const struct ps_md_levels *lv, bool *done_any)
{
	bool ok = true;

	for (size_t i = 0; i < lv->n && !a->aborted; i++) {
		int level = lv->level[i], need = ps_md_level_min_drives(level);
		struct level_result *row = &a->out->levels[a->out->n_levels++];
		char out[OUT_MAX];

		row->level = level;
		if ((size_t)need > a->n) {
			set_fail(row, "skipped", "RAID %d needs %d drives, %zu confirmed", level,
				 need, a->n);
			continue;
		}
		if (stop_now(a)) {
			set_fail(row, "aborted",
				 "the abort key was pressed before RAID %d was built", level);
			break;
		}
		row->status = "running";
		if (run_level(a, level, row) < 0)
			ok = false;
		else if (!a->aborted)
			row->status = "done", *done_any = true;
		if (stop_array(a, out, sizeof(out)) != 0)
			snprintf(row->stop_error, sizeof(row->stop_error), "%s", out);
		if (a->aborted)
			row->status = "aborted";
		zero_members(a, a->n);
	}
	return ok;
}

static int run(struct ps_ctx *ctx)
{
	struct arr a = {.ctx = ctx, .p = plan_of(ctx), .fd = -1, .out = ctx->result};
	struct ps_md_levels lv = *(const struct ps_md_levels *)ps_setting(ctx, &array_levels);
	struct ps_mdstat before;
	bool ok, done_any = false;

	a.out->plan = a.p == &plans[1];
	a.out->rule = noise_rule(a.p);
	a.out->drives = ps_fields_new(&drive_fields, ctx->inv->n_drives);
	a.out->levels = ps_fields_new(&level_fields, lv.n);
	if ((!a.out->drives && ctx->inv->n_drives) || (!a.out->levels && lv.n))
		return -ENOMEM;
	if (lv.n == 0) {
		ps_step_reason(ctx, "array= names no RAID level (it is empty): set array=1,5,6 in "
				    "probestick.cfg; nothing is written");
		return PS_SKIPPED;
	}
	a.out->levels_asked = json_object_new_array();
	for (size_t i = 0; i < lv.n; i++)
		json_object_array_add(a.out->levels_asked, json_object_new_int(lv.level[i]));
	a.chunk = *(const uint64_t *)ps_setting(ctx, &array_chunk);
	a.out->chunk_bytes = (int64_t)a.chunk;
	a.extrapolate = *(const uint64_t *)ps_setting(ctx, &array_extrapolate);
	a.out->extrapolate_bytes = a.extrapolate ? (int64_t)a.extrapolate : -1;
	read_mdstat(&a, &before, NULL);
	a.out->md_before = md_rows(&before, &a.out->n_md_before);
	choose_members(&a, &before);
	if (a.n < 2) {
		ps_step_reason(ctx,
			       "an array needs two or more confirmed scratch drives, %zu found: "
			       "nothing is written (name them with scratch=SERIAL,SERIAL)",
			       a.n);
		return PS_SKIPPED;
	}
	if (!find_mdadm(&a)) {
		ps_step_reason(ctx, "mdadm is not on this system (/sbin/mdadm): the array step "
				    "cannot build arrays");
		return PS_ERROR;
	}
	snprintf(a.out->mdadm, sizeof(a.out->mdadm), "%s", a.mdadm);
	ok = run_levels(&a, &lv, &done_any);
	ok = cleanup(&a, &before) && ok;
	if (a.aborted)
		return PS_ABORTED;
	for (size_t i = 0; i < a.n && done_any; i++)
		ps_examined(ctx, ps_drive_ref(a.m[i].inv), "array_member",
			    "built into the arrays, degraded and rebuilt; its md superblock wiped");
	if (!ok)
		return done_any ? PS_WARN : PS_ERROR;
	return done_any ? PS_PASS : PS_SKIPPED;
}

static double estimate(const struct ps_ctx *ctx)
{
	const struct array_plan *p = plan_of(ctx);
	const struct ps_md_levels *lv = ps_setting(ctx, &array_levels);
	double member = 0;

	/* two measured phases of four points, and a sync at ~100 MB/s per member, per level */
	for (size_t i = 0; ctx->cfg && i < ctx->inv->n_drives; i++)
		if (ps_scratch_listed(&ctx->cfg->scratch_list, ctx->inv->drives[i].serial) &&
		    ctx->inv->drives[i].size_bytes > 0)
			member = (double)ctx->inv->drives[i].size_bytes;
	return (double)lv->n * (8 * p->runs * p->time_budget_s + 2 * member / 100e6);
}

/* ---- view ---- */

static const struct ps_col lvl_cols[] = {
    {.path = "/level", .title = "RAID", .flags = PS_COL_KEY},
    {.path = "/healthy/seq_write_mbps",
     .title = "write",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/healthy/seq_read_mbps",
     .title = "read",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/degraded/seq_write_mbps",
     .title = "deg write",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER},
    {.path = "/degraded/seq_read_mbps",
     .title = "deg read",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER},
    {.path = "/rebuild/seconds",
     .title = "rebuild",
     .fmt = PS_FMT_SECONDS,
     .better = PS_BETTER_LOWER},
    {.path = "/rebuild/mbps",
     .title = "rebuild",
     .unit = "MB/s",
     .decimals = 1,
     .better = PS_BETTER_HIGHER},
    {.path = "/status", .title = "status", .bad = "error,aborted"},
};

static const struct ps_col ext_cols[] = {
    {.path = "/level", .title = "RAID", .flags = PS_COL_KEY},
    {.path = "/stripe_cache_size", .title = "stripe cache", .flags = PS_COL_OPTIONAL},
    {.path = "/component_bytes", .title = "member size", .fmt = PS_FMT_BYTES},
    {.path = "/initial_sync/seconds",
     .title = "first sync",
     .fmt = PS_FMT_SECONDS,
     .better = PS_BETTER_LOWER},
    {.path = "/rebuild/full_drive_s",
     .title = "rebuild, full drive",
     .fmt = PS_FMT_SECONDS,
     .better = PS_BETTER_LOWER},
    {.path = "/rebuild/extrapolated_s",
     .title = "at array_extrapolate",
     .fmt = PS_FMT_SECONDS,
     .better = PS_BETTER_LOWER},
};

static const struct ps_col rnd_cols[] = {
    {.path = "/level", .title = "RAID", .flags = PS_COL_KEY},
    {.path = "/healthy/rand_write_iops",
     .title = "4K write",
     .unit = "IOPS",
     .better = PS_BETTER_HIGHER},
    {.path = "/healthy/rand_read_iops",
     .title = "4K read",
     .unit = "IOPS",
     .better = PS_BETTER_HIGHER},
    {.path = "/degraded/rand_write_iops",
     .title = "deg 4K wr",
     .unit = "IOPS",
     .better = PS_BETTER_HIGHER},
    {.path = "/degraded/rand_read_iops",
     .title = "deg 4K rd",
     .unit = "IOPS",
     .better = PS_BETTER_HIGHER},
};

static const struct ps_col cpu_cols[] = {
    {.path = "/level", .title = "RAID", .flags = PS_COL_KEY},
    {.path = "/healthy/cpu/busy_pct",
     .title = "healthy",
     .unit = "%",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/healthy/cpu/busiest_core_pct",
     .title = "busiest core",
     .unit = "%",
     .decimals = 1,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_OPTIONAL},
    {.path = "/degraded/cpu/busy_pct",
     .title = "degraded",
     .unit = "%",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/rebuild/cpu/busy_pct",
     .title = "rebuild",
     .unit = "%",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/rebuild/cpu/drive_irqs_per_s", .title = "rebuild irq/s", .flags = PS_COL_MEASURED},
};

static const struct ps_col set_cols[] = {
    {.path = "/chunk_bytes", .title = "chunk", .fmt = PS_FMT_BLOCK},
    {.path = "/speed_limit_min_kib_s", .title = "md speed_limit_min", .unit = "KiB/s"},
    {.path = "/speed_limit_max_kib_s", .title = "md speed_limit_max", .unit = "KiB/s"},
    {.path = "/extrapolate_bytes", .title = "array_extrapolate", .fmt = PS_FMT_BYTES},
    {.path = "/cleanup/clean", .title = "no md device or superblock left", .fmt = PS_FMT_BOOL},
    {.path = "/cleanup/md_left", .title = "md devices left"},
};

static const struct ps_col dec_cols[] = {PS_SCRATCH_DECISION_COLS};

static const struct ps_col why_cols[] = {
    {.path = "/level", .title = "RAID", .flags = PS_COL_KEY},
    {.path = "/reason", .title = "note", .flags = PS_COL_WIDE},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "levels",
     .title = "md arrays on the confirmed scratch drives (sequential 1M QD8, O_DIRECT)",
     .rows = "/levels",
     .cols = PS_COLS(lvl_cols),
     .empty = "no array was built",
     .note = "degraded: one member failed and removed (two for RAID 6); rebuild: those "
	     "members added back as new drives, timed until md's recovery ended"},
    {.kind = PS_BLOCK_TABLE,
     .id = "rebuild",
     .title = "Sync and rebuild times, scaled to the drives' full size and to array_extrapolate",
     .rows = "/levels",
     .when = "/rebuild",
     .cols = PS_COLS(ext_cols),
     .note = "a rebuild rewrites each added member whole: its time grows with the member size"},
    {.kind = PS_BLOCK_TABLE,
     .id = "random",
     .title = "Random 4K QD32 on the arrays",
     .rows = "/levels",
     .when = "/healthy",
     .cols = PS_COLS(rnd_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "cpu",
     .title = "CPU busy over each phase (all CPUs; what parity costs)",
     .rows = "/levels",
     .when = "/healthy",
     .cols = PS_COLS(cpu_cols)},
    {.kind = PS_BLOCK_KV,
     .id = "settings",
     .title = "Settings and clean-up",
     .rows = "",
     .cols = PS_COLS(set_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "notes",
     .title = "Levels not built or not finished",
     .rows = "/levels",
     .when = "/reason",
     .cols = PS_COLS(why_cols)},
    PS_SCRATCH_DECISIONS_BLOCK(dec_cols),
};

static const struct ps_view view = {
    .name = "array",
    .version = DATA_VERSION,
    .blocks = PS_BLOCKS(blocks),
};

static const struct ps_step_ops array_ops = {
    .abi = PS_STEP_ABI,
    .name = "array",
    .title = "md RAID build, degrade, rebuild on confirmed scratch drives (DESTRUCTIVE)",
    .plans = PS_PLAN_NAMED,
    .needs = PS_NEED_SCRATCH,
    .order = 37,
    .after = "inventory",
    .data_version = DATA_VERSION,
    .view = &view,
    .result = &array_fields,
    .settings = array_settings,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(array_ops);
