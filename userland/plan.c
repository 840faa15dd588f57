/* plan.c - run the steps of a plan one after the other and keep the report on disk
 * current after each one, so pulling the power loses at most the step in progress. */
#include "version.h"
#include "plan.h"
#include "console.h"
#include "machine_id.h"
#include "report.h"
#include "kcapture.h"
#include "sampler.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <probestick.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

enum { ABORT_NONE = 0, ABORT_KEY = 1, ABORT_SIGINT = 2 };

static volatile sig_atomic_t abort_flag;

static void on_sigint(int sig)
{
	abort_flag = ABORT_SIGINT;
}

struct key_watch {
	struct ps_console *con;
	pthread_t thread;
	atomic_bool stop;
	bool running;
};

/* Poll the consoles while a step runs: any key sets the abort flag. */
static void *watch_keys(void *arg)
{
	struct key_watch *w = arg;

	while (!atomic_load(&w->stop)) {
		int k = ps_console_key(w->con, 100);

		if (k >= 0)
			abort_flag = ABORT_KEY;
		else if (k == -ENODEV)
			break;
	}
	return NULL;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	json_object_array_add(ps_json_get(report, "warnings"), json_object_new_string(buf));
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
		json_object_object_add(ps, "module_abi", NULL);
		json_object_object_add(ps, "module_status", json_object_new_string(status));
		return -1;
	}
	memset(&v, 0, sizeof(v));
	if (ioctl(fd, PROBESTICK_IOC_VERSION, &v) < 0) {
		snprintf(status, sizeof(status), "not usable: %s: version ioctl: %s", path,
			 strerror(errno));
		json_object_object_add(ps, "module_abi", NULL);
		json_object_object_add(ps, "module_status", json_object_new_string(status));
		close(fd);
		return -1;
	}
	json_object_object_add(ps, "module_abi", json_object_new_int((int)v.abi));
	if (v.abi != PROBESTICK_ABI_VERSION) {
		snprintf(status, sizeof(status),
			 "not used: module ABI %u, this probestick speaks ABI %d: sysfs fallback",
			 v.abi, PROBESTICK_ABI_VERSION);
		json_object_object_add(ps, "module_status", json_object_new_string(status));
		close(fd);
		return -1;
	}
	json_object_object_add(ps, "module_status", json_object_new_string("loaded"));
	return fd;
}

static int fill_probestick(json_object *report, const struct ps_run_opts *o)
{
	json_object *ps = ps_json_get(report, "probestick");
	struct utsname u;
	char path[4096];
	int fd;

	json_object_object_add(ps, "version", json_object_new_string(PS_VERSION));
	json_object_object_add(ps, "kernel",
			       uname(&u) == 0 ? json_object_new_string(u.release) : NULL);
	fd = open_module(o->root, ps);
	if (o->cfg && o->cfg->stick[0]) {
		if (snprintf(path, sizeof(path), "%s/manifest.json", o->cfg->stick) >=
		    (int)sizeof(path))
			path[0] = '\0';
		json_object_object_add(ps, "image_manifest",
				       read_json_file(report, path, "probestick.image_manifest"));
	} else {
		json_object_object_add(ps, "image_manifest", NULL);
	}
	if (o->coldplug_json)
		snprintf(path, sizeof(path), "%s", o->coldplug_json);
	else
		ps_path(path, sizeof(path), o->root, "/run/probestick/coldplug.json");
	json_object_object_add(report, "coldplug", read_json_file(report, path, "coldplug"));
	return fd;
}

/* <out>/<machine-id>/<stamp>-<plan>, made unique if a run started in the same second. */
static int make_report_dir(const struct ps_run_opts *o, json_object *report, time_t started,
			   char *dir, size_t len)
{
	char stamp[32], parent[PATH_MAX];
	const char *id = ps_json_str(report, "machine_id");
	int ret;

	ps_stamp(started, stamp, sizeof(stamp));
	snprintf(parent, sizeof(parent), "%s/%s", o->out_root, id ? id : "unknown");
	ret = ps_mkdirs(parent, 0755);
	if (ret < 0)
		return ret;
	for (int i = 1; i < 100; i++) {
		int n = i == 1 ? snprintf(dir, len, "%s/%s-%s", parent, stamp, o->plan)
			       : snprintf(dir, len, "%s/%s-%s-%d", parent, stamp, o->plan, i);

		if (n >= (int)len)
			return -ENAMETOOLONG;
		if (mkdir(dir, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void set_machine_id(json_object *report)
{
	json_object *machine = ps_json_get(report, "machine");
	char id[128];

	ps_machine_id(machine, ps_json_get(report, "nics"), id, sizeof(id));
	json_object_object_add(report, "machine_id", json_object_new_string(id));
	if (machine && json_object_object_length(machine) > 0)
		json_object_object_add(machine, "id", json_object_new_string(id));
}

static void identify(const struct ps_run_opts *o, json_object *report)
{
	json_object *machine = json_object_new_object(), *nics = json_object_new_array();
	int ret = o->identify ? o->identify(o->root, machine, nics) : -ENOSYS;

	if (ret < 0)
		add_warning(report, "machine identity: %s: the machine-id may be 'unknown'",
			    strerror(-ret));
	json_object_object_add(report, "machine", machine);
	/* Keep what an inventory step found; only an empty list is filled. */
	if (json_object_array_length(ps_json_get(report, "nics")) == 0)
		json_object_object_add(report, "nics", nics);
	else
		json_object_put(nics);
}

static const char *missing_need(const struct ps_step_ops *s, int module_fd)
{
	if ((s->needs & PS_NEED_ROOT) && geteuid() != 0)
		return "needs root: run probestick as root";
	if ((s->needs & PS_NEED_MODULE) && module_fd < 0)
		return "needs probestick.ko (/dev/probestick), which is not loaded";
	if (s->needs & PS_NEED_SCRATCH)
		return "needs a confirmed scratch drive; none was confirmed, so nothing is written";
	return NULL;
}

static void finish_step(json_object *step, int ret, double dur, const char *forced_reason,
			enum ps_status forced)
{
	enum ps_status st;
	char reason[256] = "";

	if (forced_reason) {
		st = forced;
		snprintf(reason, sizeof(reason), "%s", forced_reason);
	} else if (ret < 0) {
		st = PS_ERROR;
		snprintf(reason, sizeof(reason), "%s", strerror(-ret));
	} else if (ret > PS_ABORTED) {
		st = PS_ERROR;
		snprintf(reason, sizeof(reason), "the step returned %d, which is not a status",
			 ret);
	} else {
		st = (enum ps_status)ret;
	}
	json_object_object_add(step, "status", json_object_new_string(ps_status_name(st)));
	json_object_object_add(
	    step, "duration_s",
	    json_object_new_double((double)((long long)(dur * 1000 + 0.5)) / 1000.0));
	if (reason[0])
		json_object_object_add(step, "reason", json_object_new_string(reason));
	else if ((st == PS_ERROR || st == PS_SKIPPED || st == PS_ABORTED) &&
		 !ps_json_str(step, "reason"))
		json_object_object_add(step, "reason",
				       json_object_new_string("the step gave no reason"));
}

static void write_report(const struct ps_run_opts *o, json_object *report,
			 struct ps_run_result *res)
{
	int ret;

	if (!res->dir[0])
		return;
	ret = ps_report_write(report, res->dir);
	if (ret < 0 && res->write_error == 0) {
		ps_console_printf(o->con, "probestick: cannot write the report to %s: %s\n",
				  res->dir, strerror(-ret));
		add_warning(report, "writing the report to %s failed once: %s", res->dir,
			    strerror(-ret));
	}
	if (ret < 0)
		res->write_error = ret;
}

static void open_dir(const struct ps_run_opts *o, json_object *report, time_t started,
		     struct ps_run_result *res)
{
	int ret = make_report_dir(o, report, started, res->dir, sizeof(res->dir));

	if (ret < 0) {
		ps_console_printf(o->con,
				  "probestick: cannot create a report folder below %s: %s; the "
				  "plan runs on, results only on screen\n",
				  o->out_root, strerror(-ret));
		res->dir[0] = '\0';
		res->write_error = ret;
	}
}

int ps_plan_run(const struct ps_run_opts *o, struct ps_run_result *res)
{
	time_t started = time(NULL);
	json_object *report = ps_report_new(o->plan, started);
	json_object *steps = ps_json_get(report, "steps");
	struct sigaction sa = {.sa_handler = on_sigint}, old_sa;
	bool has_inventory = false;
	int module_fd;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; o->warnings && i < json_object_array_length(o->warnings); i++)
		json_object_array_add(ps_json_get(report, "warnings"),
				      json_object_get(json_object_array_get_idx(o->warnings, i)));
	module_fd = fill_probestick(report, o);
	for (size_t i = 0; i < o->n_steps; i++)
		has_inventory = has_inventory || strcmp(o->steps[i]->name, "inventory") == 0;
	if (!has_inventory) {
		identify(o, report);
		set_machine_id(report);
		open_dir(o, report, started, res);
	}
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking read in a step returns EINTR and the step can stop. */
	sigaction(SIGINT, &sa, &old_sa);
	ps_console_printf(o->con, "probestick: plan %s, %zu step%s%s\n", o->plan, o->n_steps,
			  o->n_steps == 1 ? "" : "s",
			  o->key_aborts ? " (press any key to abort the running step)" : "");
	for (size_t i = 0; i < o->n_steps; i++) {
		const struct ps_step_ops *s = o->steps[i];
		json_object *step = json_object_new_object(), *findings = json_object_new_array();
		struct ps_ctx ctx = {
		    .root = o->root,
		    .report = report,
		    .step = step,
		    .findings = findings,
		    .module_fd = module_fd,
		    .cfg = o->cfg,
		    .abort_flag = &abort_flag,
		};
		struct key_watch w = {.con = o->con};
		const char *need = missing_need(s, module_fd);
		char when[32];
		struct ps_sampler *smp;
		struct ps_kcapture *kc;
		double t0;
		int ret = 0;

		ps_rfc3339(time(NULL), when, sizeof(when));
		json_object_object_add(step, "name", json_object_new_string(s->name));
		json_object_object_add(step, "status", json_object_new_string("error"));
		json_object_object_add(step, "started", json_object_new_string(when));
		json_object_object_add(step, "duration_s", json_object_new_double(0));
		json_object_object_add(step, "findings", findings);
		json_object_object_add(step, "data", json_object_new_object());
		ps_console_printf(o->con, "[%zu/%zu] %-14s %s ... ", i + 1, o->n_steps, s->name,
				  s->title ? s->title : "");
		abort_flag = ABORT_NONE;
		t0 = mono_now();
		if (need) {
			finish_step(step, 0, 0, need, PS_SKIPPED);
		} else {
			if (o->key_aborts && o->con && ps_console_has_input(o->con)) {
				ps_console_flush(o->con);
				atomic_init(&w.stop, false);
				w.running = pthread_create(&w.thread, NULL, watch_keys, &w) == 0;
			}
			/* Every step is timed and sampled: CPU split and IRQs for its own span. */
			smp = ps_sampler_start(o->root, 1000);
			kc = ps_kcapture_start(module_fd, PROBESTICK_KC_ALL);
			ret = s->run(&ctx);
			json_object_object_add(step, "probes", ps_kcapture_stop(kc));
			json_object_object_add(step, "load", ps_sampler_stop(smp));
			if (w.running) {
				atomic_store(&w.stop, true);
				pthread_join(w.thread, NULL);
			}
			if (abort_flag)
				finish_step(step, ret, mono_now() - t0,
					    abort_flag == ABORT_KEY ? "aborted by a key press"
								    : "aborted by SIGINT (Ctrl-C)",
					    PS_ABORTED);
			else
				finish_step(step, ret, mono_now() - t0, NULL, PS_PASS);
		}
		abort_flag = ABORT_NONE;
		json_object_array_add(steps, step);
		{
			const char *st = ps_json_str(step, "status");
			const char *why = ps_json_str(step, "reason");

			for (int k = 0; k <= PS_ABORTED; k++)
				if (strcmp(st, ps_status_name((enum ps_status)k)) == 0)
					res->count[k]++;
			ps_console_printf(o->con, "%s (%.1f s)%s%s\n", st, mono_now() - t0,
					  why ? ": " : "", why ? why : "");
		}
		if (!res->dir[0] && !res->write_error && strcmp(s->name, "inventory") == 0) {
			json_object *m = ps_json_get(report, "machine");

			if (!m || json_object_object_length(m) == 0)
				identify(o, report);
			set_machine_id(report);
			open_dir(o, report, started, res);
		}
		if (i + 1 < o->n_steps)
			write_report(o, report, res);
	}
	sigaction(SIGINT, &old_sa, NULL);
	if (!res->dir[0] && !res->write_error) {
		/* inventory was in the plan but never finished (cannot happen) or no steps */
		set_machine_id(report);
		open_dir(o, report, started, res);
	}
	json_object_object_add(report, "complete", json_object_new_boolean(1));
	write_report(o, report, res);
	if (module_fd >= 0)
		close(module_fd);
	if (res->dir[0])
		ps_console_printf(o->con, "probestick: report in %s%s\n", res->dir,
				  res->write_error ? " (incomplete: writing failed)" : "");
	json_object_put(report);
	return res->write_error;
}
