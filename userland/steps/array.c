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
//schema:{
//schema:  "type": "object",
//schema:  "properties": {
//schema:    "plan": {"enum": ["quick", "full"]},
//schema:    "levels_asked": {"type": "array", "items": {"type": "integer"}},
//schema:    "chunk_bytes": {"type": "integer"},
//schema:    "extrapolate_bytes": {"type": ["integer", "null"]},
//schema:    "mdadm": {"type": ["string", "null"]},
//schema:    "speed_limit_min_kib_s": {"type": ["integer", "null"]},
//schema:    "speed_limit_max_kib_s": {"type": ["integer", "null"]},
//schema:    "md_before": {"type": "array"},
//schema:    "drives": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "name": {"type": "string"},
//schema:        "device": {"type": ["string", "null"]},
//schema:        "serial": {"type": ["string", "null"]},
//schema:        "size_bytes": {"type": ["integer", "null"]},
//schema:        "decision": {"type": "string"},
//schema:        "reason": {"type": "string"}
//schema:      },
//schema:      "required": ["name", "decision"]
//schema:    }},
//schema:    "levels": {"type": "array", "items": {
//schema:      "type": "object",
//schema:      "properties": {
//schema:        "level": {"type": "integer"},
//schema:        "status": {"type": "string"},
//schema:        "reason": {"type": ["string", "null"]},
//schema:        "md": {"type": ["string", "null"]},
//schema:        "members": {"type": "array", "items": {"type": "string"}},
//schema:        "failed": {"type": "array", "items": {"type": "string"}},
//schema:        "chunk_bytes": {"type": ["integer", "null"]},
//schema:        "stripe_cache_size": {"type": ["integer", "null"]},
//schema:        "array_bytes": {"type": ["integer", "null"]},
//schema:        "component_bytes": {"type": ["integer", "null"]},
//schema:        "initial_sync": {"type": ["object", "null"]},
//schema:        "healthy": {"type": ["object", "null"]},
//schema:        "degraded": {"type": ["object", "null"]},
//schema:        "rebuild": {"type": ["object", "null"]}
//schema:      },
//schema:      "required": ["level", "status"]
//schema:    }},
//schema:    "cleanup": {"type": "object"}
//schema:  },
//schema:  "required": ["plan", "drives", "levels"]
//schema:}
/* clang-format on */

#include "core/config.h"
#include "core/scratch.h"
#include "core/step.h"
#include "lib/util.h"
#include "lib/stats.h"
#include "engines/io/uring_io.h"
#include "engines/net/cost.h"
#include "hw/drive_use.h"
#include "decode/md.h"
#include "lib/json.h"

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

#define KIB 1024U
#define MIB (1024U * 1024U)

#define MAX_RUNS       5
#define POLL_MS	       200
#define SYNC_TIMEOUT_S (6 * 3600.0)
#define MD_FIRST       100 /* our arrays are md100 and up: clear of md0 and md127 */
#define OUT_MAX	       2048

struct point {
	bool random, write;
	unsigned int bs, qd;
	const char *key; /* in a phase's object */
};

/* disk_write's quick matrix, both ways */
static const struct point points[] = {
    {false, true, 1 * MIB, 8, "seq_write_mbps"},
    {false, false, 1 * MIB, 8, "seq_read_mbps"},
    {true, true, 4 * KIB, 32, "rand_write_iops"},
    {true, false, 4 * KIB, 32, "rand_read_iops"},
};

struct array_plan {
	const char *name;
	unsigned int runs;
	uint64_t byte_budget;
	double time_budget_s;
};

static const struct array_plan plans[] = {
    {"quick", 2, 512ULL * MIB, 1.0},
    {"full", 3, 2048ULL * MIB, 3.0},
};

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
	double phase_t0;
	json_object *sample; /* one recorded set of progress files, for tests/fixtures */
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

/* {"busy_pct" (all cores), "busiest_core_pct", "busiest_core_softirq_pct", "drive_irqs_per_s",
 * "cpu_bound"} since the mark, or null. */
static json_object *cpu_since(struct arr *a, struct cpu_mark *m)
{
	struct ps_cost_result r;
	json_object *o;

	ps_cost_end(&m->c, &r);
	if (!r.known)
		return NULL;
	o = json_object_new_object();
	ps_json_set_num(o, "busy_pct", r.total_pct, 1);
	ps_json_set_num(o, "busiest_core_pct", r.busiest_pct, 1);
	ps_json_set_num(o, "busiest_core_softirq_pct", r.busiest_softirq_pct, 1);
	ps_json_set(o, "drive_irqs_per_s",
		    r.irqs_per_s >= 0 ? ps_json_new_num(r.irqs_per_s, 0) : NULL);
	ps_json_set(o, "cpu_bound", json_object_new_boolean(r.cpu_bound));
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

/* The median of runs of one point: MB/s for sequential, IOPS for random; NAN when none ran. */
static double measure_point(struct arr *a, const struct point *pt, uint64_t size, json_object *o)
{
	double v[MAX_RUNS];
	unsigned int n = 0;
	uint64_t per_run = size < a->p->byte_budget ? size : a->p->byte_budget;
	struct ps_run_summary sum;
	char key[64];

	for (unsigned int r = 0; r < a->p->runs && r < MAX_RUNS && !stop_now(a); r++) {
		struct ps_uio_result res;
		struct ps_uio_job j = {.fd = a->fd,
				       .size = size,
				       .offset = 0,
				       .length = per_run,
				       .bs = pt->bs,
				       .qd = pt->qd,
				       .time_budget_s = a->p->time_budget_s,
				       .check_ms = 50,
				       .should_stop = engine_stop,
				       .stop_arg = a,
				       .random = pt->random,
				       .seed = 0x9E3779B97F4A7C15ULL * (r + 1),
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
		if (err < 0) {
			snprintf(key, sizeof(key), "%s_error", pt->key);
			ps_json_set_str(o, key, strerror(-err));
			break;
		}
		if (!res.bytes || a->aborted)
			break;
		v[n++] = pt->random ? ps_iops(res.ios, secs) : ps_mbps(res.bytes, secs);
	}
	if (!n)
		return NAN;
	ps_run_summary(v, n, &sum);
	snprintf(key, sizeof(key), "%s_cv_pct", pt->key);
	if (n > 1)
		ps_json_set_num(o, key, sum.cv_pct, 1);
	return sum.median;
}

/* Measures the array: the four points, the CPU over them; the phase's object. */
static json_object *measure_phase(struct arr *a, const char *what, int level)
{
	json_object *o = json_object_new_object();
	struct cpu_mark b;
	uint64_t size = 0;
	char phase[96];
	double t0 = ps_mono_now();

	a->fd = ps_uio_open_rw(a->mdpath, true, &a->direct, NULL);
	if (a->fd < 0 || ps_uio_size(a->fd, &size) < 0 || size < MIB) {
		char msg[4400];

		snprintf(msg, sizeof(msg), "cannot open %s: %s", a->mdpath,
			 a->fd < 0 ? strerror(-a->fd) : "no size");
		ps_json_set_str(o, "error", msg);
		if (a->fd >= 0)
			close(a->fd);
		a->fd = -1;
		return o;
	}
	snprintf(phase, sizeof(phase), "%s RAID %d %s", a->md, level, what);
	ps_progress_phase(a->ctx, phase, PS_ARRAY_SIZE(points), "points");
	cpu_mark(a, &b);
	for (size_t i = 0; i < PS_ARRAY_SIZE(points) && !stop_now(a); i++) {
		double v = measure_point(a, &points[i], size, o);

		ps_json_set_num(o, points[i].key, v, points[i].random ? 0 : 1);
		ps_progress_set(a->ctx, i + 1);
	}
	ps_json_set(o, "direct", json_object_new_boolean(a->direct));
	ps_json_set(o, "cpu", cpu_since(a, &b));
	ps_json_set_num(o, "seconds", ps_mono_now() - t0, 1);
	close(a->fd);
	a->fd = -1;
	return o;
}

/* ---- syncs: the initial one and rebuilds ---- */

/* How a sync ended: its time, and whether it ran to its end (not aborted, not timed out). */
struct sync_end {
	double seconds;
	bool completed;
};

/* Waits for md's sync to end, with progress; its object (seconds, rate, speeds) or NULL when
 * none ran. *end (may be NULL) says how it ended. */
static json_object *wait_sync(struct arr *a, const char *what, uint64_t component_bytes,
			      struct sync_end *end)
{
	double t0 = ps_mono_now(), spd_sum = 0;
	int64_t spd_max = -1;
	unsigned int spd_n = 0;
	bool seen = false, phase = false, timed_out = false;
	char action[32] = "";
	json_object *o;

	for (;;) {
		char buf[128], act[32] = "";
		struct ps_md_sync s;
		int64_t kib;

		md_attr(a, "sync_action", act, sizeof(act));
		if (md_attr(a, "sync_completed", buf, sizeof(buf)) < 0 ||
		    ps_md_sync_completed_parse(buf, &s) < 0)
			s.state = PS_MD_SYNC_NONE;
		if (s.state != PS_MD_SYNC_NONE || (act[0] && strcmp(act, "idle"))) {
			if (!seen)
				snprintf(action, sizeof(action), "%s", act);
			seen = true;
		}
		if (s.state == PS_MD_SYNC_RUNNING) {
			if (!phase) {
				char ph[96];

				snprintf(ph, sizeof(ph), "%s %s (%s)", a->md, what, act);
				ps_progress_phase(a->ctx, ph, s.total * 512, "B");
				phase = true;
			}
			ps_progress_set(a->ctx, s.done * 512);
			if (md_attr(a, "sync_speed", buf, sizeof(buf)) >= 0 &&
			    ps_md_sync_speed_parse(buf, &kib) == 0 && kib > 0) {
				spd_sum += (double)kib;
				spd_n++;
				spd_max = kib > spd_max ? kib : spd_max;
			}
			/* one recorded set of the files md shows mid-sync (tests/fixtures/md) */
			if (!a->sample && strstr(what, "rebuild") && s.done > s.total / 4) {
				char path[4200];
				json_object *smp = json_object_new_object();

				ps_path(path, sizeof(path), a->ctx->root,
					"/sys/block/%s/md/sync_completed", a->md);
				ps_json_set_file(smp, "sync_completed", path);
				ps_path(path, sizeof(path), a->ctx->root,
					"/sys/block/%s/md/sync_speed", a->md);
				ps_json_set_file(smp, "sync_speed", path);
				ps_path(path, sizeof(path), a->ctx->root, "/proc/mdstat");
				ps_json_set_file(smp, "mdstat", path);
				ps_json_set_str(smp, "what", what);
				a->sample = smp;
			}
		}
		if (s.state == PS_MD_SYNC_NONE && (!act[0] || !strcmp(act, "idle"))) {
			/* a sync md has not started yet (resync=PENDING) is given 2 s to start */
			if (seen || ps_mono_now() - t0 > 2.0)
				break;
		}
		if (stop_now(a))
			break;
		if (ps_mono_now() - t0 > SYNC_TIMEOUT_S) {
			timed_out = true;
			ps_findf(a->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "sync_timeout",
				 "%s: the %s did not end in %.0f h; it is left running and its "
				 "figures are not counted",
				 a->md, what, SYNC_TIMEOUT_S / 3600);
			break;
		}
		usleep(POLL_MS * 1000);
	}
	if (end)
		*end = (struct sync_end){.seconds = NAN, .completed = false};
	if (!seen)
		return NULL;
	o = json_object_new_object();
	{
		double secs = ps_mono_now() - t0;
		bool completed = !a->aborted && !timed_out;

		if (end)
			*end = (struct sync_end){.seconds = secs, .completed = completed};
		ps_json_set_str(o, "action", action);
		ps_json_set_num(o, "seconds", secs, 2);
		ps_json_set_num(
		    o, "mbps", !completed || secs <= 0 ? NAN : (double)component_bytes / 1e6 / secs,
		    1);
		ps_json_set_num(o, "sync_speed_avg_kib_s", spd_n ? spd_sum / spd_n : NAN, 0);
		ps_json_set_count(o, "sync_speed_max_kib_s", spd_max);
		ps_json_set(o, "completed", json_object_new_boolean(completed));
	}
	return o;
}

/* ---- one level ---- */

static void set_fail(json_object *row, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fail(json_object *row, const char *status, const char *fmt, ...)
{
	char msg[OUT_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ps_json_set_str(row, "status", status);
	ps_json_set_str(row, "reason", msg);
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

static void read_limit(struct arr *a, const char *name, const char *key)
{
	char path[4200];
	int64_t v;

	ps_path(path, sizeof(path), a->ctx->root, "/proc/sys/dev/raid/%s", name);
	ps_json_set_count(a->ctx->data, key, ps_read_s64(path, &v) == 0 ? v : -1);
}

static int run_level(struct arr *a, int level, json_object *row)
{
	int red = ps_md_level_redundancy(level);
	size_t n = a->n, k = (size_t)(red > 0 ? red : 0);
	json_object *mem = json_object_new_array(), *failed = json_object_new_array();
	char out[OUT_MAX], lvl[24], nd[48], chunk[48];
	const char *args[16 + PS_MD_MAX_MEMBERS];
	size_t na = 0;
	int64_t comp_kib;
	uint64_t comp;
	int ret;

	ps_json_set(row, "members", mem);
	ps_json_set(row, "failed", failed);
	for (size_t i = 0; i < n; i++)
		json_object_array_add(mem, json_object_new_string(a->m[i].inv->name));
	if (!pick_md(a)) {
		set_fail(row, "error", "no free md device number from md%d", MD_FIRST);
		return -EBUSY;
	}
	ps_json_set_str(row, "md", a->md);
	snprintf(lvl, sizeof(lvl), "--level=%d", level);
	snprintf(nd, sizeof(nd), "--raid-devices=%zu", n);
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
	for (size_t i = 0; i < n; i++)
		args[na++] = a->m[i].dev;
	args[na] = NULL;
	zero_members(a, n);
	ret = mdadm(a, out, sizeof(out), args);
	a->md_up = true; /* even a failed create may leave a device: stop it either way */
	if (ret != 0) {
		set_fail(row, "error", "mdadm --create RAID %d: exit %d: %s", level, ret, out);
		return -EIO;
	}
	/* md_mod is loaded by the first create: its limits are there from now on */
	if (!ps_json_get(a->ctx->data, "speed_limit_max_kib_s")) {
		read_limit(a, "speed_limit_min", "speed_limit_min_kib_s");
		read_limit(a, "speed_limit_max", "speed_limit_max_kib_s");
	}
	ps_json_set_count(row, "chunk_bytes", level == 1 ? -1 : (int64_t)a->chunk);
	comp_kib = md_attr_int(a, "component_size");
	comp = comp_kib > 0 ? (uint64_t)comp_kib * KIB : 0;
	ps_json_set_count(row, "component_bytes", comp ? (int64_t)comp : -1);
	{
		char path[4200];
		uint64_t sz;

		ps_path(path, sizeof(path), a->ctx->root, "/sys/block/%s/size", a->md);
		ps_json_set_count(row, "array_bytes",
				  ps_read_u64(path, &sz) == 0 ? (int64_t)(sz * 512) : -1);
	}
	if (level == 5 || level == 6)
		ps_json_set_count(row, "stripe_cache_size", md_attr_int(a, "stripe_cache_size"));
	/* a sync with nothing else running goes as fast as the system's limit lets it */
	ps_json_set(row, "initial_sync", wait_sync(a, "initial sync", comp, NULL));
	if (a->aborted)
		return 0;
	ps_json_set(row, "healthy", measure_phase(a, "healthy", level));
	if (a->aborted || k == 0) {
		if (k == 0)
			ps_json_set_str(row, "reason",
					"RAID 0 has no redundancy: it cannot run degraded");
		return 0;
	}
	/* fail the last k members and take them out */
	for (size_t i = n - k; i < n; i++) {
		const char *fa[] = {a->mdpath, "--fail", a->m[i].dev, NULL};
		const char *ra[] = {a->mdpath, "--remove", a->m[i].dev, NULL};

		ret = mdadm(a, out, sizeof(out), fa);
		if (ret == 0) {
			for (int t = 0; t < 10; t++) {
				ret = mdadm(a, out, sizeof(out), ra);
				if (ret == 0)
					break;
				usleep(200 * 1000);
			}
		}
		if (ret != 0) {
			set_fail(row, "error", "mdadm fail/remove %s: exit %d: %s", a->m[i].dev,
				 ret, out);
			return -EIO;
		}
		json_object_array_add(failed, json_object_new_string(a->m[i].inv->name));
	}
	{
		int64_t deg = md_attr_int(a, "degraded");

		ps_json_set_count(row, "degraded_members", deg);
	}
	ps_json_set(row, "degraded", measure_phase(a, "degraded", level));
	if (a->aborted)
		return 0;
	/* add them back as new drives: a whole-member rebuild */
	{
		struct cpu_mark b;
		struct sync_end end;
		json_object *rb;

		for (size_t i = n - k; i < n; i++) {
			const char *za[] = {"--zero-superblock", a->m[i].dev, NULL};

			mdadm(a, out, sizeof(out), za);
		}
		cpu_mark(a, &b);
		{
			const char *aa[4 + PS_MD_MAX_MEMBERS];
			size_t x = 0;

			aa[x++] = a->mdpath;
			aa[x++] = "--add";
			for (size_t i = n - k; i < n; i++)
				aa[x++] = a->m[i].dev;
			aa[x] = NULL;
			ret = mdadm(a, out, sizeof(out), aa);
		}
		if (ret != 0) {
			set_fail(row, "error", "mdadm --add: exit %d: %s", ret, out);
			return -EIO;
		}
		rb = wait_sync(a, k > 1 ? "rebuild of 2 members" : "rebuild", comp, &end);
		if (rb) {
			int64_t deg = md_attr_int(a, "degraded");
			double full, target;
			/* aborted or timed out: no time to scale */
			bool done = end.completed;
			uint64_t smallest = a->m[0].size;

			ps_json_set(rb, "cpu", cpu_since(a, &b));

			/* md sizes every member by the smallest drive: that is the "full drive" */
			for (size_t i = 1; i < n; i++)
				smallest = a->m[i].size < smallest ? a->m[i].size : smallest;
			full = ps_md_extrapolate_s(end.seconds, comp, smallest);
			target = ps_md_extrapolate_s(end.seconds, comp, a->extrapolate);
			ps_json_set_num(rb, "full_drive_s", done ? full : NAN, 1);
			ps_json_set_num(rb, "extrapolated_s", done ? target : NAN, 0);
			ps_json_set_count(rb, "degraded_after", deg);
			if (!a->aborted && deg != 0) {
				ps_findf(a->ctx, PS_SEV_FAIL, (struct ps_dev_ref){0}, "rebuild",
					 "RAID %d on %s: %lld members still missing after the "
					 "rebuild",
					 level, a->md, (long long)deg);
			}
		} else if (!a->aborted) {
			set_fail(row, "error", "no rebuild started after mdadm --add");
		}
		ps_json_set(row, "rebuild", rb);
	}
	return 0;
}

/* ---- the step ---- */

static json_object *mdstat_json(const struct ps_mdstat *st)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < st->n; i++) {
		json_object *o = json_object_new_object(), *m = json_object_new_array();

		ps_json_set_str(o, "name", st->a[i].name);
		ps_json_set_str(o, "level", st->a[i].level);
		ps_json_set(o, "active", json_object_new_boolean(st->a[i].active));
		for (size_t k = 0; k < st->a[i].n_members; k++)
			json_object_array_add(m, json_object_new_string(st->a[i].members[k]));
		ps_json_set(o, "members", m);
		json_object_array_add(arr, o);
	}
	return arr;
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
	json_object *c = json_object_new_object(), *left = json_object_new_array(),
		    *sb = json_object_new_array();
	struct ps_mdstat st;
	char out[OUT_MAX], *text = NULL;
	bool clean = true;
	int ret = stop_array(a, out, sizeof(out));

	if (ret != 0) {
		ps_json_set_str(c, "stop_error", out);
		clean = false;
	}
	if (a->mdadm[0])
		zero_members(a, a->n);
	for (size_t i = 0; i < a->n && a->mdadm[0]; i++) {
		const char *args[] = {"--examine", a->m[i].dev, NULL};

		/* exit 0: mdadm still finds a superblock on the member */
		if (mdadm(a, out, sizeof(out), args) == 0) {
			json_object_array_add(sb, json_object_new_string(a->m[i].inv->name));
			clean = false;
		}
	}
	if (read_mdstat(a, &st, &text) == 0) {
		for (size_t i = 0; i < st.n; i++) {
			bool old = false;

			for (size_t k = 0; k < before->n && !old; k++)
				old = !strcmp(before->a[k].name, st.a[i].name);
			if (!old) {
				json_object_array_add(left, json_object_new_string(st.a[i].name));
				clean = false;
			}
		}
		ps_json_set(c, "md_after", mdstat_json(&st));
	}
	ps_json_set_str(c, "mdstat_after", text);
	free(text);
	ps_json_set(c, "md_left", left);
	ps_json_set(c, "superblocks_left", sb);
	ps_json_set(c, "clean", json_object_new_boolean(clean));
	ps_json_set(a->ctx->data, "cleanup", c);
	if (!clean)
		ps_findf(a->ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "cleanup",
			 "md devices (%zu) or superblocks (%zu) of the array step are left: stop "
			 "them with mdadm --stop and wipe with mdadm --zero-superblock",
			 ps_json_len(left), ps_json_len(sb));
	return clean;
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

static int run(struct ps_ctx *ctx)
{
	struct arr a = {.ctx = ctx, .p = plan_of(ctx), .fd = -1};
	struct ps_scratch_list named;
	struct ps_md_levels lv;
	struct ps_mdstat before;
	json_object *drives = json_object_new_array(), *levels = json_object_new_array(), *asked;
	char why[512];
	bool errors = false, done_any = false;

	ps_json_set_str(ctx->data, "plan", a.p->name);
	ps_json_set(ctx->data, "drives", drives);
	ps_json_set(ctx->data, "levels", levels);
	lv = *(const struct ps_md_levels *)ps_setting(ctx, &array_levels);
	if (lv.n == 0) {
		ps_step_reason(ctx, "array= names no RAID level (it is empty): set array=1,5,6 in "
				    "probestick.cfg; nothing is written");
		return PS_SKIPPED;
	}
	asked = json_object_new_array();
	for (size_t i = 0; i < lv.n; i++)
		json_object_array_add(asked, json_object_new_int(lv.level[i]));
	ps_json_set(ctx->data, "levels_asked", asked);
	a.chunk = *(const uint64_t *)ps_setting(ctx, &array_chunk);
	ps_json_set_count(ctx->data, "chunk_bytes", (int64_t)a.chunk);
	a.extrapolate = *(const uint64_t *)ps_setting(ctx, &array_extrapolate);
	ps_json_set_count(ctx->data, "extrapolate_bytes",
			  a.extrapolate ? (int64_t)a.extrapolate : -1);
	named = ctx->cfg ? ctx->cfg->scratch_list : (struct ps_scratch_list){0};
	/* arrays that were there before are not ours: left alone, their members refused */
	read_mdstat(&a, &before, NULL);
	ps_json_set(ctx->data, "md_before", mdstat_json(&before));
	for (size_t i = 0; i < ctx->inv->n_drives; i++) {
		const struct ps_drive *d = &ctx->inv->drives[i];
		const struct ps_mdstat_array *in = ps_mdstat_member_of(&before, d->name);
		json_object *o = json_object_new_object();
		struct ps_drive_use use;
		enum ps_scratch_verdict v;
		char dev[4200];

		ps_json_set_str(o, "name", d->name);
		ps_json_set_str(o, "device", d->id);
		ps_json_set_str(o, "serial", d->serial);
		ps_json_set_count(o, "size_bytes", d->size_bytes);
		json_object_array_add(drives, o);
		ps_path(dev, sizeof(dev), ctx->root, "/dev/%s", d->name);
		ps_drive_use_read(ctx->root, d->name, dev, &use);
		v = ps_scratch_decide(d, &use, &named, why, sizeof(why));
		if (v == PS_SCRATCH_OK && in) {
			v = PS_SCRATCH_HELD;
			snprintf(why, sizeof(why),
				 "a member of %s, an array that was there before this step: left "
				 "alone",
				 in->name);
		}
		ps_json_set_str(o, "decision", ps_scratch_verdict_name(v));
		ps_json_set_str(o, "reason", why);
		if (v != PS_SCRATCH_OK) {
			if (v != PS_SCRATCH_NOT_NAMED && ps_scratch_listed(&named, d->serial))
				ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "refused",
					 "%s (serial %s) was named as scratch but is refused: %s",
					 d->name, d->serial, why);
			continue;
		}
		if (a.n < PS_MD_MAX_MEMBERS) {
			a.m[a.n].inv = d;
			snprintf(a.m[a.n].dev, sizeof(a.m[a.n].dev), "%s", dev);
			a.m[a.n].size = d->size_bytes > 0 ? (uint64_t)d->size_bytes : 0;
			a.n++;
		}
	}
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
		ps_json_set(ctx->data, "mdadm", NULL);
		return PS_ERROR;
	}
	ps_json_set_str(ctx->data, "mdadm", a.mdadm);
	for (size_t i = 0; i < lv.n && !a.aborted; i++) {
		int level = lv.level[i], need = ps_md_level_min_drives(level);
		json_object *row = json_object_new_object();

		json_object_array_add(levels, row);
		ps_json_set(row, "level", json_object_new_int(level));
		if ((size_t)need > a.n) {
			set_fail(row, "skipped", "RAID %d needs %d drives, %zu confirmed", level,
				 need, a.n);
			continue;
		}
		if (stop_now(&a)) {
			set_fail(row, "aborted",
				 "the abort key was pressed before RAID %d was built", level);
			break;
		}
		ps_json_set_str(row, "status", "running");
		if (run_level(&a, level, row) < 0)
			errors = true;
		else if (!a.aborted)
			ps_json_set_str(row, "status", "done"), done_any = true;
		{
			char out[OUT_MAX];

			if (stop_array(&a, out, sizeof(out)) != 0)
				ps_json_set_str(row, "stop_error", out);
		}
		if (a.aborted)
			ps_json_set_str(row, "status", "aborted");
		zero_members(&a, a.n);
	}
	if (a.sample)
		ps_json_set(ctx->data, "progress_sample", a.sample);
	if (!cleanup(&a, &before))
		errors = true;
	if (a.aborted)
		return PS_ABORTED;
	for (size_t i = 0; i < a.n && done_any; i++)
		ps_examined(ctx, ps_drive_ref(a.m[i].inv), "array_member",
			    "built into the arrays, degraded and rebuilt; its md superblock wiped");
	if (errors)
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

static const struct ps_col dec_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/decision", .title = "decision"},
    {.path = "/reason", .title = "why", .flags = PS_COL_WIDE},
};

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
    {.kind = PS_BLOCK_TABLE,
     .id = "decisions",
     .title = "Which drives may be written",
     .rows = "/drives",
     .cols = PS_COLS(dec_cols)},
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
    .settings = array_settings,
    .run = run,
    .estimate_s = estimate,
};
PS_STEP_REGISTER(array_ops);
