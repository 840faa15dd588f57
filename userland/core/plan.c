/*
 * plan.c - run the steps of a plan one after the other: take the inventory
 * first, wrap every step in its recorders, turn what it found into verdicts,
 * and keep the report on disk current after each step, so that pulling the
 * power loses at most the step in progress.
 */
#include "version.h"
#include "core/plan.h"
#include "core/recorders.h"
#include "core/scratch.h"
#include "core/step_run.h"
#include "lib/store.h"
#include "lib/util.h"
#include "hw/hw.h"
#include "hw/inventory.h"
#include "report/index.h"
#include "lib/json.h"
#include "report/ocp.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <probestick.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum { ABORT_NONE = 0, ABORT_KEY = 1, ABORT_SIGINT = 2 };

/* What a report costs on the stick: the quick plan's JSON is about 75 kB, most
 * of it probe buckets and load series, growing with each step and its length;
 * the text is a seventh of that, report.html and report.ocp.jsonl about half
 * each; writing atomically needs a second copy of each. */
#define REPORT_BASE_BYTES     (32 * 1024)
#define REPORT_PER_STEP_BYTES (48 * 1024)

static volatile sig_atomic_t abort_flag;

void ps_plan_request_abort(int why)
{
	abort_flag = why == ABORT_SIGINT ? ABORT_SIGINT : ABORT_KEY;
}

static void on_sigint(int sig)
{
	abort_flag = ABORT_SIGINT;
}

static void notice(const struct ps_run_opts *o, enum ps_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void notice(const struct ps_run_opts *o, enum ps_severity sev, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!o->ui || !o->ui->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	o->ui->notice(o->ui->arg, sev, buf);
}

static void add_warning(json_object *report, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_warning(json_object *report, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_object_array_add(ps_json_get(report, "warnings"), ps_json_new_str(buf));
}

/* Parse a small JSON file into an object; NULL and a warning when it is damaged. */
static json_object *read_json_file(json_object *report, const char *path, const char *what)
{
	char *data;
	size_t len;
	json_object *obj;
	int ret = ps_read_all(path, &data, &len);

	if (ret == -ENOENT)
		return NULL;
	if (ret < 0) {
		add_warning(report, "%s: %s: %s left null", path, strerror(-ret), what);
		return NULL;
	}
	obj = json_tokener_parse(data);
	free(data);
	if (!obj || !json_object_is_type(obj, json_type_object)) {
		add_warning(report, "%s is not a valid JSON object: %s left null", path, what);
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static int open_module(const char *root, json_object *ps)
{
	char path[4096], status[4400];
	struct probestick_version v;
	int fd;

	ps_path(path, sizeof(path), root, "%s", PROBESTICK_DEVICE);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(status, sizeof(status), "not loaded: %s: %s", path, strerror(errno));
		ps_json_set(ps, "module_abi", NULL);
		ps_json_set_str(ps, "module_status", status);
		return -1;
	}
	memset(&v, 0, sizeof(v));
	if (ioctl(fd, PROBESTICK_IOC_VERSION, &v) < 0) {
		snprintf(status, sizeof(status), "not usable: %s: version ioctl: %s", path,
			 strerror(errno));
		ps_json_set(ps, "module_abi", NULL);
		ps_json_set_str(ps, "module_status", status);
		close(fd);
		return -1;
	}
	ps_json_set(ps, "module_abi", json_object_new_int((int)v.abi));
	if (v.abi != PROBESTICK_ABI_VERSION) {
		snprintf(status, sizeof(status),
			 "not used: module ABI %u, this probestick speaks ABI %d: sysfs fallback",
			 v.abi, PROBESTICK_ABI_VERSION);
		ps_json_set_str(ps, "module_status", status);
		close(fd);
		return -1;
	}
	ps_json_set_str(ps, "module_status", "loaded");
	return fd;
}

/* What was asked for: the plan's steps and the settings that chose them (reproducibility). */
static void plan_json(json_object *ps, const struct ps_run_opts *o)
{
	json_object *steps = json_object_new_array(), *cfg = json_object_new_object();

	for (size_t i = 0; i < o->n_steps; i++)
		json_object_array_add(steps, ps_json_new_str(o->steps[i]->name));
	ps_json_set(ps, "plan_steps", steps);
	ps_json_set_str(cfg, "plan", o->plan.name);
	ps_json_set_str(cfg, "depth", o->plan.level == PS_PLAN_FULL ? "full" : "quick");
	if (o->cfg) {
		/* every setting: the core's, then each step's; null where nothing was given and
		 * the setting has no default of its own; a secret as ps_config_shown says */
		size_t n;
		const struct ps_core_key *core = ps_config_core_keys(&n);
		char shown[PS_CONFIG_SHOWN_MAX];

		for (size_t i = 0; i < n; i++) {
			const char *t = ps_config_shown(o->cfg, core[i].key, shown, sizeof(shown));

			if (strcmp(core[i].key, "plan") != 0)
				ps_json_set(cfg, core[i].key,
					    t && t[0] ? ps_json_new_str(t) : NULL);
		}
		for (size_t i = 0; i < o->cfg->n_step; i++) {
			const char *t = o->cfg->step[i].text;

			ps_json_set(cfg, o->cfg->step[i].s->key, t[0] ? ps_json_new_str(t) : NULL);
		}
	}
	ps_json_set(ps, "config", cfg);
}

static int fill_probestick(json_object *report, const struct ps_run_opts *o)
{
	json_object *ps = ps_json_get(report, "probestick");
	struct utsname u;
	char path[4096], bootid[64];
	int fd;

	ps_json_set_str(ps, "version", PS_VERSION);
	ps_json_set_str(ps, "kernel", uname(&u) == 0 ? u.release : NULL);
	/* A later boot tells a run cut off by the power from one whose program ended. */
	ps_path(path, sizeof(path), o->root, "/proc/sys/kernel/random/boot_id");
	ps_json_set_str(ps, "boot_id",
			ps_read_str(path, bootid, sizeof(bootid)) > 0 ? bootid : NULL);
	plan_json(ps, o);
	fd = open_module(o->root, ps);
	if (o->cfg && o->cfg->stick[0] &&
	    snprintf(path, sizeof(path), "%s/manifest.json", o->cfg->stick) < (int)sizeof(path))
		ps_json_set(ps, "image_manifest",
			    read_json_file(report, path, "probestick.image_manifest"));
	else
		ps_json_set(ps, "image_manifest", NULL);
	if (o->coldplug_json)
		snprintf(path, sizeof(path), "%s", o->coldplug_json);
	else
		ps_path(path, sizeof(path), o->root, "/run/probestick/coldplug.json");
	ps_json_set(report, "coldplug", read_json_file(report, path, "coldplug"));
	return fd;
}

/* <out>/<machine-id>/<stamp>-<plan>, made unique if a run started in the same second. */
static int make_report_dir(const struct ps_run_opts *o, const char *id, time_t started, char *dir,
			   size_t len)
{
	char stamp[32], parent[PATH_MAX];
	int ret;

	ps_stamp(started, stamp, sizeof(stamp));
	snprintf(parent, sizeof(parent), "%s/%s", o->out_root, id && *id ? id : "unknown");
	ret = ps_store_begin(parent);
	if (ret < 0)
		return ret;
	ret = ps_store_mkdirs(parent, 0755);
	for (int i = 1; ret == 0 && i < 100; i++) {
		int n = i == 1 ? snprintf(dir, len, "%s/%s-%s", parent, stamp, o->plan.name)
			       : snprintf(dir, len, "%s/%s-%s-%d", parent, stamp, o->plan.name, i);

		if (n >= (int)len) {
			ret = -ENAMETOOLONG;
			break;
		}
		ret = ps_store_mkdir(dir, 0755);
		if (ret == 0)
			break;
		ret = ret == -EEXIST && i < 99 ? 0 : ret;
	}
	ps_store_end(parent);
	return ret;
}

struct runner {
	const struct ps_run_opts *o;
	json_object *report;
	struct ps_run_result *res;
	struct ps_report_files files;
	struct ps_inventory inv;
	int module_fd;
	struct ps_recorders_plan recorders; /* what they keep for the plan (the module's probes) */
	time_t started;
	bool dir_tried;
	bool store_warned;
	bool indexed; /* reports/index.html lists this run (from its first write on) */
};

/* Before the first write: is there room on the stick for this plan's report? */
static void check_room(struct runner *r)
{
	struct statvfs sv;
	unsigned long long need, avail;

	if (!r->res->dir[0] || statvfs(r->res->dir, &sv) < 0)
		return;
	avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
	need = 2ULL * (REPORT_BASE_BYTES + REPORT_PER_STEP_BYTES * r->o->n_steps) * 11 / 10;
	if (avail >= need)
		return;
	notice(r->o, PS_SEV_WARN,
	       "only %llu KiB free where the report goes (%s); this plan's report needs about "
	       "%llu KiB: it may not be saved complete. Free room on the stick (older reports) "
	       "for the next run.",
	       avail / 1024, r->o->out_root, need / 1024);
	add_warning(r->report,
		    "only %llu KiB were free for the report below %s before the plan (about "
		    "%llu KiB needed)",
		    avail / 1024, r->o->out_root, need / 1024);
}

static void open_dir(struct runner *r)
{
	int ret;

	if (r->dir_tried)
		return;
	r->dir_tried = true;
	ret =
	    make_report_dir(r->o, r->inv.machine.id, r->started, r->res->dir, sizeof(r->res->dir));
	if (ret < 0) {
		notice(r->o, PS_SEV_FAIL,
		       "cannot create a report folder below %s: %s; the plan runs on, results "
		       "only on screen",
		       r->o->out_root, strerror(-ret));
		r->res->dir[0] = '\0';
		r->res->write_error = ret;
		return;
	}
	check_room(r);
}

static void set_machine(struct runner *r)
{
	ps_json_set_str(r->report, "machine_id",
			r->inv.machine.id[0] ? r->inv.machine.id : "unknown");
}

static void write_report(struct runner *r)
{
	int ret;

	/* The stream gets the finished steps whether or not the stick takes them (not
	 * the write at the first step's start: the DUT's hardware is not known yet). */
	if (r->o->stream && ps_json_len(ps_json_arr(r->report, "steps")) > 0)
		ps_ocp_stream_update(r->o->stream, r->report, ps_views());
	if (!r->res->dir[0])
		return;
	if (r->o->sink && r->o->sink->annotate)
		r->o->sink->annotate(r->o->sink->arg, r->report, r->res->dir);
	/* The report's files and the index share one read-write window of the stick. */
	ps_store_begin(r->res->dir);
	ret = ps_report_write(r->report, r->res->dir, ps_views(), &r->files);
	/* The stick's index: this run appears (incomplete) from its first write on. */
	if (ret == 0 && (!r->indexed || ps_json_bool(r->report, "complete") == 1))
		r->indexed = ps_index_write(r->o->out_root) == 0;
	ps_store_end(r->res->dir);
	if (ret < 0 && r->res->write_error == 0) {
		notice(r->o, PS_SEV_FAIL, "cannot write the report to %s: %s", r->res->dir,
		       strerror(-ret));
		add_warning(r->report, "writing the report to %s failed once: %s", r->res->dir,
			    strerror(-ret));
	}
	if (ret < 0)
		r->res->write_error = ret;
	if (r->o->sink && r->o->sink->written)
		r->o->sink->written(r->o->sink->arg, r->report, r->res->dir);
	if (*ps_store_error() && !r->store_warned) {
		r->store_warned = true;
		notice(r->o, PS_SEV_WARN, "%s", ps_store_error());
		add_warning(r->report, "%s", ps_store_error());
	}
}

static const char *missing_need(const struct ps_step_ops *s, int module_fd,
				const struct ps_config *cfg)
{
	if ((s->needs & PS_NEED_ROOT) && geteuid() != 0)
		return "needs root: run probestick as root";
	if ((s->needs & PS_NEED_MODULE) && module_fd < 0)
		return "needs probestick.ko (/dev/probestick), which is not loaded";
	if ((s->needs & PS_NEED_SCRATCH) && !ps_scratch_named(cfg))
		return "needs a confirmed scratch drive; none was confirmed, so nothing is written";
	return NULL;
}

void ps_step_run_init(struct ps_step_run *r, const struct ps_step_ops *ops, json_object *step,
		      const struct ps_plan_ui *ui, size_t index, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->step = step;
	r->findings = json_object_new_array();
	r->examined = json_object_new_array();
	pthread_mutex_init(&r->progress.lock, NULL);
	r->progress.ui = ui;
	r->progress.st.step_index = index;
	r->progress.st.n_steps = n;
	r->progress.st.step = ops->name;
	r->progress.st.phase = r->progress.phase;
	r->progress.st.unit = r->progress.unit;
}

void ps_step_run_done(struct ps_step_run *r)
{
	json_object_put(r->examined);
	pthread_mutex_destroy(&r->progress.lock);
}

/* The status a step ends with: what it returned, raised by what it found. */
static enum ps_status final_status(int ret, json_object *findings, char *reason, size_t len)
{
	int worst = ps_findings_worst(findings);

	if (ret < 0) {
		if (!reason[0])
			snprintf(reason, len, "%s", strerror(-ret));
		return PS_ERROR;
	}
	if (ret > PS_ABORTED) {
		snprintf(reason, len, "the step returned %d, which is not a status", ret);
		return PS_ERROR;
	}
	if (ret <= PS_FAIL) {
		if (worst == PS_SEV_FAIL)
			return PS_FAIL;
		if (worst == PS_SEV_WARN && ret == PS_PASS)
			return PS_WARN;
	}
	return (enum ps_status)ret;
}

static void finish_step(struct ps_step_run *run, enum ps_status st, double dur)
{
	json_object *step = run->step;

	ps_json_set_str(step, "status", ps_status_name(st));
	ps_json_set_num(step, "duration_s", dur, 3);
	if (run->reason[0])
		ps_json_set_str(step, "reason", run->reason);
	else if (st == PS_ERROR || st == PS_SKIPPED || st == PS_ABORTED)
		ps_json_set_str(step, "reason", "the step gave no reason");
	ps_json_set(step, "verdicts", ps_step_verdicts(run->findings, run->examined));
}

/* The step runs after the plan's inventory phase (its "after" is that phase's step). */
static bool after_inventory(const struct ps_run_opts *o, const struct ps_step_ops *s)
{
	const struct ps_step_ops *dep =
	    s->after ? ps_step_find(o->steps, o->n_steps, s->after) : NULL;

	return dep && (dep->flags & PS_STEP_TAKES_INVENTORY);
}

static double estimate_rest(struct runner *r, size_t from, const struct ps_ctx *base)
{
	double total = 0;
	bool known = false;

	for (size_t i = from; i < r->o->n_steps; i++) {
		const struct ps_step_ops *s = r->o->steps[i];
		double e = s->estimate_s ? s->estimate_s(base) : NAN;

		if (!isnan(e) && e >= 0) {
			total += e;
			known = true;
		}
	}
	return known ? total : NAN;
}

static void run_step(struct runner *r, size_t i)
{
	const struct ps_run_opts *o = r->o;
	const struct ps_step_ops *s = o->steps[i];
	json_object *step = json_object_new_object(), *data = json_object_new_object();
	struct ps_step_run run;
	struct ps_ctx ctx = {
	    .root = o->root,
	    .plan = &o->plan,
	    .cfg = o->cfg,
	    .inv = &r->inv,
	    .inventory = s->flags & PS_STEP_TAKES_INVENTORY ? &r->inv : NULL,
	    .data = data,
	    .module_fd = r->module_fd,
	    .abort_flag = &abort_flag,
	    .run = &run,
	};
	const char *need = missing_need(s, r->module_fd, o->cfg);
	char when[32];
	double t0;
	int ret = 0;
	enum ps_status st;

	ps_step_run_init(&run, s, step, o->ui, i, o->n_steps);
	ps_rfc3339(time(NULL), when, sizeof(when));
	ps_json_set_str(step, "name", s->name);
	ps_json_set_str(step, "status", "error");
	ps_json_set_str(step, "started", when);
	ps_json_set(step, "duration_s", json_object_new_double(0));
	ps_json_set(step, "data_version", json_object_new_int((int)s->data_version));
	ps_json_set(step, "findings", run.findings);
	ps_json_set(step, "data", data);
	if (o->ui && o->ui->step_start)
		o->ui->step_start(o->ui->arg, i, o->n_steps, s);
	abort_flag = ABORT_NONE;
	t0 = ps_mono_now();
	if (ps_step_result_begin(&ctx, s, data) < 0) {
		snprintf(run.reason, sizeof(run.reason), "out of memory for its result");
		st = PS_ERROR;
	} else if (need) {
		snprintf(run.reason, sizeof(run.reason), "%s", need);
		st = PS_SKIPPED;
	} else if (after_inventory(o, s) && !r->inv.taken) {
		snprintf(run.reason, sizeof(run.reason),
			 "runs after the inventory, which did not complete");
		st = PS_SKIPPED;
	} else {
		/*
		 * Every step is timed and sampled by the registered recorders (the CPU
		 * split, IRQs and probes for its own span, and the platform around it:
		 * links, AER, machine checks, ECC, sensors, energy, the kernel log).
		 */
		struct ps_recorders_run rec;

		ps_recorders_start(&rec, &r->recorders, o->root, r->module_fd,
				   r->inv.taken ? &r->inv : NULL, s->view);
		ret = s->run(&ctx);
		ps_step_result_end(&ctx, s, data);
		ps_recorders_stop(&rec, r->inv.taken ? &r->inv : NULL, step, data, run.findings);
		if (abort_flag) {
			snprintf(run.reason, sizeof(run.reason), "%s",
				 abort_flag == ABORT_KEY ? "aborted by a key press"
							 : "aborted by SIGINT (Ctrl-C)");
			st = PS_ABORTED;
		} else {
			st = final_status(ret, run.findings, run.reason, sizeof(run.reason));
		}
	}
	ps_step_result_end(&ctx, s, data); /* a step that did not run: its unknowns */
	finish_step(&run, st, ps_mono_now() - t0);
	abort_flag = ABORT_NONE;
	json_object_array_add(ps_json_get(r->report, "steps"), step);
	r->res->count[st]++;
	if (s->flags & PS_STEP_TAKES_INVENTORY) {
		/* The typed inventory is the steps' input, read-only from here on; the
		 * report gets its sections. */
		ps_inventory_json(&r->inv, r->report);
		if (r->inv.environment.read)
			ps_environment_json(&r->inv.environment, r->report);
		if (r->inv.boot.read)
			ps_boot_json(&r->inv.boot, r->report);
		set_machine(r);
		open_dir(r);
		if (o->ui && o->ui->estimate)
			o->ui->estimate(o->ui->arg, estimate_rest(r, i + 1, &ctx));
	}
	ps_recorders_summary(r->report, NULL);
	if (o->ui && o->ui->step_end)
		o->ui->step_end(o->ui->arg, i, o->n_steps, s, step);
	ps_step_run_done(&run);
}

int ps_plan_run(const struct ps_run_opts *o, struct ps_run_result *res)
{
	struct sigaction sa = {.sa_handler = on_sigint}, old_sa;
	struct runner r = {.o = o, .res = res, .started = time(NULL)};
	struct ps_wall wall = ps_config_wall(o->cfg);
	bool has_inventory = false;

	memset(res, 0, sizeof(*res));
	r.report = ps_report_new(o->plan.name, r.started);
	for (size_t i = 0; o->warnings && i < json_object_array_length(o->warnings); i++)
		json_object_array_add(ps_json_get(r.report, "warnings"),
				      json_object_get(json_object_array_get_idx(o->warnings, i)));
	r.module_fd = fill_probestick(r.report, o);
	ps_recorders_summary(r.report, &wall); /* the wall meter's readings for this run */
	if (o->stick)
		ps_json_set(r.report, "stick", json_object_get(o->stick));
	/* The probes are patched in once for the plan; each step only opens a window. */
	ps_recorders_plan_start(&r.recorders, r.module_fd);
	for (size_t i = 0; i < o->n_steps; i++)
		has_inventory = has_inventory || (o->steps[i]->flags & PS_STEP_TAKES_INVENTORY);
	if (o->ui && o->ui->plan_start)
		o->ui->plan_start(o->ui->arg, &o->plan, o->steps, o->n_steps);
	if (!has_inventory) {
		/* The machine-id names the folder: take what it needs now. */
		ps_inventory_identify(&r.inv, o->root);
		ps_inventory_json(&r.inv, r.report);
		set_machine(&r);
		open_dir(&r);
	}
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking read in a step returns EINTR and the step can stop. */
	sigaction(SIGINT, &sa, &old_sa);
	for (size_t i = 0; i < o->n_steps; i++) {
		/* On disk at each step's start: what ended before it, and which step runs, so
		 * that a run cut off tells where it stopped (the inventory's start is not
		 * written: the folder is named after what it finds). */
		ps_json_set_str(r.report, "running_step", o->steps[i]->name);
		write_report(&r);
		run_step(&r, i);
	}
	sigaction(SIGINT, &old_sa, NULL);
	if (!res->dir[0] && !r.dir_tried) {
		set_machine(&r);
		open_dir(&r);
	}
	json_object_object_del(r.report, "running_step");
	ps_json_set(r.report, "complete", json_object_new_boolean(1));
	write_report(&r);
	ps_recorders_plan_stop(&r.recorders);
	if (r.module_fd >= 0)
		close(r.module_fd);
	res->json_complete = r.files.json_complete;
	if (res->dir[0])
		ps_report_files_text(&r.files, res->saved, sizeof(res->saved));
	else
		snprintf(res->saved, sizeof(res->saved), "nothing: no report folder could be made");
	res->report = r.report;
	ps_inventory_free(&r.inv);
	return res->write_error;
}
