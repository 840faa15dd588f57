/*
 * collect.c - the sender: a thread that delivers every run offered to the
 * collector (HTTP PUT + MOVE) and the syslog receiver, retrying with
 * back-off, and what the report and the console say about it.
 */
#include "collect/collect.h"
#include "collect/bootnet.h"
#include "collect/http.h"
#include "collect/netup.h"
#include "collect/spool.h"
#include "collect/syslog.h"
#include "collect/syslog_frame.h"
#include "collect/upload.h"
#include "collect/url.h"
#include "lib/store.h"
#include "lib/util.h"
#include "lib/json.h"
#include "report/report.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SITE_DIR       "/etc/probestick"
#define CA_NAME	       "collector-ca.pem"
#define MAX_PROBLEMS   8
#define MAX_SAY	       16
#define SAY_EVERY_S    15.0
#define DEFAULT_WAIT_S 600.0

struct run {
	char dir[PATH_MAX];
	char machine[256], name[256];
	bool live;		  /* a plan of this process wrote it */
	json_object *report;	  /* live: the last report written (a reference) */
	struct ps_spool sp;	  /* the HTTP side */
	unsigned int sl_synced;	  /* the OCP version whose lines syslog has all sent */
	size_t sl_lines;	  /* lines syslog has sent */
	struct ps_retry sl_retry; /* the syslog side */
	unsigned long long bytes_http, bytes_syslog;
	double first_line_uptime; /* uptime when the first stream line arrived; -1 */
	double first_line_wall;
	int recorded; /* what its report says of the end: 0 nothing yet, 1 delivered, 2 not */
};

struct problem {
	char text[400];
	unsigned long count;
	time_t first, last;
	bool warned; /* in the report's warnings[] */
};

struct ps_collect {
	struct ps_collect_opts o;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_on, stop;

	bool have_url, have_syslog;
	struct ps_url url; /* its password is copied into http and wiped here */
	struct ps_syslog_target syslog;
	char base[600], syslog_text[300], ca[512], user[128];
	struct ps_http http;
	bool http_ok;
	struct ps_syslog_conn sl;
	bool sl_ok;
	char libcurl[32];

	bool net_tried;
	struct ps_netup net;

	struct run *runs;
	size_t nruns;
	struct problem prob[MAX_PROBLEMS];
	size_t nprob;
	char say[MAX_SAY][480];
	bool say_problem[MAX_SAY];
	size_t nsay;
	struct ps_report_sink sink;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double uptime(const char *root)
{
	char path[512], text[64];

	ps_path(path, sizeof(path), root, "/proc/uptime");
	return ps_read_str(path, text, sizeof(text)) > 0 ? strtod(text, NULL) : -1;
}

/* A line for the console, said by the caller's thread at its next chance. Locked. */
static void queue_say(struct ps_collect *c, bool is_problem, const char *line)
{
	if (c->nsay == MAX_SAY)
		return;
	c->say_problem[c->nsay] = is_problem;
	snprintf(c->say[c->nsay++], sizeof(c->say[0]), "%s", line);
}

/* A problem: counted; a new one is said and becomes a report warning. Locked. */
static void problem(struct ps_collect *c, const char *text)
{
	struct problem *p = NULL;
	char line[460];

	for (size_t i = 0; i < c->nprob; i++)
		if (strcmp(c->prob[i].text, text) == 0)
			p = &c->prob[i];
	if (!p) {
		if (c->nprob == MAX_PROBLEMS) {
			memmove(&c->prob[0], &c->prob[1], sizeof(c->prob[0]) * (MAX_PROBLEMS - 1));
			c->nprob--;
		}
		p = &c->prob[c->nprob++];
		memset(p, 0, sizeof(*p));
		snprintf(p->text, sizeof(p->text), "%s", text);
		p->first = time(NULL);
		snprintf(line, sizeof(line), "collect: %s", text);
		queue_say(c, true, line);
	}
	p->count++;
	p->last = time(NULL);
}

static void drain_say(struct ps_collect *c)
{
	char lines[MAX_SAY][480];
	bool probs[MAX_SAY];
	size_t n;

	pthread_mutex_lock(&c->lock);
	n = c->nsay;
	memcpy(lines, c->say, sizeof(lines[0]) * n);
	memcpy(probs, c->say_problem, sizeof(probs[0]) * n);
	c->nsay = 0;
	pthread_mutex_unlock(&c->lock);
	for (size_t i = 0; i < n && c->o.say; i++)
		c->o.say(c->o.arg, probs[i], lines[i]);
}

/* ------------------------------------------------------------- the jobs -- */

enum job_kind { JOB_NONE, JOB_HTTP, JOB_SYSLOG };

struct job {
	enum job_kind kind;
	size_t run;
	int file;
	unsigned int version;
	char dir[PATH_MAX], machine[256], name[256];
	size_t from_line;
	bool folders;
};

static bool syslog_pending(const struct run *r)
{
	return r->sp.f[PS_SPOOL_OCP].written != r->sl_synced;
}

/* The next job that is due, or JOB_NONE and how long until one is. Locked. */
static double find_job(struct ps_collect *c, struct job *j, double now)
{
	double wait = 3600;

	memset(j, 0, sizeof(*j));
	for (size_t i = 0; i < c->nruns; i++) {
		struct run *r = &c->runs[i];
		double later;
		int file = ps_spool_next(&r->sp, wall_now(), &later);
		bool h = c->http_ok && file >= 0, s = c->sl_ok && syslog_pending(r);

		if (c->http_ok && file < 0 && later < wait)
			wait = later; /* the live stream's next turn */
		if (h && ps_retry_due(&r->sp.retry, now)) {
			j->kind = JOB_HTTP;
			j->file = file;
			j->version = r->sp.f[j->file].written;
			j->folders = r->sp.folders;
		} else if (s && ps_retry_due(&r->sl_retry, now)) {
			j->kind = JOB_SYSLOG;
			j->version = r->sp.f[PS_SPOOL_OCP].written;
			j->from_line = r->sl_lines;
		}
		if (j->kind != JOB_NONE) {
			j->run = i;
			snprintf(j->dir, sizeof(j->dir), "%s", r->dir);
			snprintf(j->machine, sizeof(j->machine), "%s", r->machine);
			snprintf(j->name, sizeof(j->name), "%s", r->name);
			return 0;
		}
		if (h && r->sp.retry.next_at - now < wait)
			wait = r->sp.retry.next_at - now;
		if (s && r->sl_retry.next_at - now < wait)
			wait = r->sl_retry.next_at - now;
	}
	return wait < 0.05 ? 0.05 : wait;
}

static void first_line(struct ps_collect *c, struct run *r)
{
	if (r->first_line_uptime >= 0)
		return;
	r->first_line_uptime = uptime(c->o.root);
	r->first_line_wall = wall_now();
}

static void http_failed(struct ps_collect *c, struct run *r, const struct ps_http_result *res)
{
	char msg[400];

	ps_http_explain(res, c->base, c->ca, msg, sizeof(msg));
	ps_retry_fail(&r->sp.retry, ps_mono_now());
	problem(c, msg);
}

static void do_http(struct ps_collect *c, const struct job *j)
{
	struct ps_http_result res;
	char path[PATH_MAX + 64], *data = NULL;
	const char *file = ps_spool_names[j->file];
	size_t len = 0;
	int ret = 0, rd;

	if (!j->folders)
		ret = ps_upload_folders(&c->http, &c->url, j->machine, j->name, &res);
	snprintf(path, sizeof(path), "%s/%s", j->dir, file);
	rd = ret == 0 ? ps_read_all(path, &data, &len) : 0;
	if (ret == 0 && rd == 0)
		ret = ps_upload_file(&c->http, &c->url, j->machine, j->name, file, data, len, &res);
	free(data);
	pthread_mutex_lock(&c->lock);
	{
		struct run *r = &c->runs[j->run];

		if (ret < 0) {
			http_failed(c, r, &res);
		} else if (rd < 0) {
			char msg[PATH_MAX + 100];

			/* nothing to send: the runner could not write it here */
			snprintf(msg, sizeof(msg), "%s cannot be read (%s): not sent", path,
				 strerror(-rd));
			problem(c, msg);
			r->sp.folders = true;
			ps_spool_delivered(&r->sp, j->file, j->version, 0, 0);
		} else {
			r->sp.folders = true;
			ps_retry_ok(&r->sp.retry);
			ps_spool_delivered(&r->sp, j->file, j->version, len, wall_now());
			r->bytes_http += len;
			if (j->file == PS_SPOOL_OCP && len)
				first_line(c, r);
		}
	}
	pthread_mutex_unlock(&c->lock);
}

static void do_syslog(struct ps_collect *c, const struct job *j)
{
	char path[PATH_MAX + 64], ts[64], why[400] = "", *data = NULL;
	size_t len = 0, line = 0, sent = j->from_line;
	unsigned long long bytes = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", j->dir, ps_spool_names[PS_SPOOL_OCP]);
	ret = ps_read_all(path, &data, &len);
	for (size_t off = 0; ret == 0 && off < len;) {
		const char *p = data + off, *nl = memchr(p, '\n', len - off);
		size_t n = nl ? (size_t)(nl - p) : len - off;
		struct ps_syslog_msg m = {
		    .facility = PS_SYSLOG_LOCAL0,
		    .app = "probestick",
		    .msgid = "ocp",
		    .hostname = j->machine,
		    .procid = j->name,
		    .msg = p,
		    .msglen = n,
		};
		char *frame;
		size_t flen;

		off += n + (nl ? 1 : 0);
		if (!nl || line++ < sent)
			continue; /* a line is whole once its newline is there */
		ps_syslog_time(wall_now(), ts, sizeof(ts));
		m.timestamp = ts;
		m.severity = ps_syslog_severity(p, n);
		frame = ps_syslog_frame(&m, &flen);
		if (!frame || ps_syslog_send(&c->sl, frame, flen, why, sizeof(why)) < 0) {
			free(frame);
			ret = -1;
			break;
		}
		free(frame);
		bytes += flen;
		sent++;
	}
	free(data);
	pthread_mutex_lock(&c->lock);
	{
		struct run *r = &c->runs[j->run];

		r->bytes_syslog += bytes;
		if (sent > r->sl_lines) {
			r->sl_lines = sent;
			first_line(c, r);
		}
		if (ret == 0) {
			r->sl_synced = j->version;
			ps_retry_ok(&r->sl_retry);
		} else {
			ps_retry_fail(&r->sl_retry, ps_mono_now());
			problem(c, why[0] ? why : "the syslog stream could not read its lines");
		}
	}
	pthread_mutex_unlock(&c->lock);
}

static void *worker(void *arg)
{
	struct ps_collect *c = arg;

	pthread_mutex_lock(&c->lock);
	while (!c->stop) {
		struct job j;
		double wait = find_job(c, &j, ps_mono_now());

		if (j.kind == JOB_NONE) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += (time_t)wait;
			ts.tv_nsec += (long)((wait - (double)(time_t)wait) * 1e9);
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&c->cond, &c->lock, &ts);
			continue;
		}
		pthread_mutex_unlock(&c->lock);
		if (j.kind == JOB_HTTP)
			do_http(c, &j);
		else
			do_syslog(c, &j);
		pthread_mutex_lock(&c->lock);
		pthread_cond_broadcast(&c->cond); /* for settle */
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* ---------------------------------------------------------------- runs -- */

static const char *base_name(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	s = path + n;
	while (s > path && s[-1] != '/')
		s--;
	snprintf(buf, len, "%.*s", (int)(path + n - s), s);
	return buf;
}

/* The run of dir, added when new. Locked. NULL when out of memory. */
static struct run *run_of(struct ps_collect *c, const char *dir, bool live)
{
	char parent[PATH_MAX];
	struct run *r;
	void *p;

	for (size_t i = 0; i < c->nruns; i++)
		if (strcmp(c->runs[i].dir, dir) == 0)
			return &c->runs[i];
	p = realloc(c->runs, (c->nruns + 1) * sizeof(*c->runs));
	if (!p)
		return NULL;
	c->runs = p;
	r = &c->runs[c->nruns++];
	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	base_name(dir, r->name, sizeof(r->name));
	snprintf(parent, sizeof(parent), "%s", dir);
	{
		char *slash = strrchr(parent, '/');

		if (slash && slash != parent)
			*slash = '\0';
	}
	base_name(parent, r->machine, sizeof(r->machine));
	r->live = live;
	r->first_line_uptime = -1;
	ps_spool_init(&r->sp, ps_retry_seed(r->machine));
	ps_retry_init(&r->sl_retry, ps_retry_seed(r->name));
	return r;
}

int ps_collect_add_run(struct ps_collect *c, const char *dir)
{
	struct run *r;

	pthread_mutex_lock(&c->lock);
	r = run_of(c, dir, false);
	if (r && !r->sp.complete)
		ps_spool_written(&r->sp, true);
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return r ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------- reports -- */

static void when_text(double wall, char *buf, size_t len)
{
	if (wall > 0)
		ps_rfc3339((time_t)wall, buf, len);
	else
		snprintf(buf, len, "-");
}

/* Everything of a finished run is where it was to go. */
static bool run_done(const struct ps_collect *c, const struct run *r)
{
	return (!c->have_url || ps_spool_done(&r->sp)) &&
	       (!c->have_syslog || (r->sp.complete && !syslog_pending(r)));
}

/* Worth waiting for: not done, and a way to send what is missing. */
static bool run_waits(const struct ps_collect *c, const struct run *r)
{
	return (c->http_ok && !ps_spool_done(&r->sp)) ||
	       (c->sl_ok && !(r->sp.complete && !syslog_pending(r)));
}

/* One line for people: where it goes and how far it got. Locked. */
static void summary(const struct ps_collect *c, const struct run *r, const char *status, char *buf,
		    size_t len)
{
	size_t o = 0, files = 0;
	unsigned long long bytes = r->bytes_http + r->bytes_syslog;
	char at[40];

	for (int i = 0; i < PS_SPOOL_FILES; i++)
		files += r->sp.f[i].delivered > 0;
	when_text(r->sp.f[PS_SPOOL_JSON].delivered_at, at, sizeof(at));
	if (!c->have_url)
		o = (size_t)snprintf(buf, len, "no collect= set");
	else if (strcmp(status, "delivered") == 0)
		o = (size_t)snprintf(buf, len, "delivered to %s%s/%s/ at %s: %zu files", c->base,
				     r->machine, r->name, at, files);
	else if (strcmp(status, "not_delivered") == 0)
		o = (size_t)snprintf(
		    buf, len,
		    "NOT delivered to %s%s/%s/ (%zu of 4 files there%s%s); the run stays in %s%s",
		    c->base, r->machine, r->name, files, c->nprob ? "; last problem: " : "",
		    c->nprob ? c->prob[c->nprob - 1].text : "", r->dir,
		    c->o.stick && c->o.stick[0]
			? " on the stick: `probestick send` delivers it later"
			: " in RAM and is lost at power off");
	else if (r->sp.complete)
		o = (size_t)snprintf(
		    buf, len,
		    "sending to %s%s/%s/: this report.json goes last, once report.txt, "
		    "report.html and report.ocp.jsonl are there",
		    c->base, r->machine, r->name);
	else
		o = (size_t)snprintf(
		    buf, len,
		    "sending to %s%s/%s/: the live stream (report.ocp.jsonl) after "
		    "each step, the whole folder when the plan ends",
		    c->base, r->machine, r->name);
	if (c->have_syslog && o < len)
		o += (size_t)snprintf(buf + o, len - o, "; syslog %s: %zu lines sent",
				      c->syslog_text, r->sl_lines);
	if (o < len)
		snprintf(buf + o, len - o, "; %llu bytes sent", bytes);
}

/* The report's collect{} for run r. Locked. */
static json_object *run_json(const struct ps_collect *c, const struct run *r, const char *status)
{
	json_object *o = json_object_new_object(), *files = json_object_new_array();
	json_object *probs = json_object_new_array(), *stream = json_object_new_object();
	char text[1600], path[600];

	ps_json_set_str(o, "url", c->have_url ? c->base : NULL);
	snprintf(path, sizeof(path), "%s/%s/", r->machine, r->name);
	ps_json_set_str(o, "path", path);
	ps_json_set_str(o, "syslog", c->have_syslog ? c->syslog_text : NULL);
	ps_json_set_str(o, "user", c->user[0] ? c->user : NULL);
	ps_json_set_str(o, "ca", c->ca[0] ? c->ca : NULL);
	ps_json_set_str(o, "libcurl", c->libcurl[0] ? c->libcurl : NULL);
	ps_json_set_str(o, "status", status);
	summary(c, r, status, text, sizeof(text));
	ps_json_set_str(o, "summary", text);
	for (int i = 0; c->have_url && i < PS_SPOOL_FILES; i++) {
		const struct ps_spool_file *f = &r->sp.f[i];
		json_object *e = json_object_new_object();
		char at[40];

		ps_json_set_str(e, "name", f->name);
		/* delivered: the version the collector holds is the last one written */
		json_object_object_add(
		    e, "delivered",
		    json_object_new_boolean(f->written && f->delivered == f->written));
		ps_json_set_count(e, "bytes", f->delivered ? (int64_t)f->bytes : -1);
		when_text(f->delivered_at, at, sizeof(at));
		ps_json_set_str(e, "at", f->delivered_at > 0 ? at : NULL);
		json_object_array_add(files, e);
	}
	ps_json_set(o, "files", files);
	ps_json_set_count(stream, "syslog_lines", c->have_syslog ? (int64_t)r->sl_lines : -1);
	ps_json_set_num(stream, "first_line_uptime_s",
			r->first_line_uptime >= 0 ? r->first_line_uptime : NAN, 1);
	ps_json_set(o, "stream", stream);
	ps_json_set_count(o, "bytes_sent", (int64_t)(r->bytes_http + r->bytes_syslog));
	ps_json_set_count(o, "tries", (int64_t)(r->sp.retry.tries + r->sl_retry.tries));
	ps_json_set_count(o, "failures", (int64_t)(r->sp.retry.failures + r->sl_retry.failures));
	for (size_t i = 0; i < c->nprob; i++) {
		json_object *p = json_object_new_object();
		char t[40];

		ps_json_set_str(p, "message", c->prob[i].text);
		ps_json_set_count(p, "count", (int64_t)c->prob[i].count);
		ps_rfc3339(c->prob[i].first, t, sizeof(t));
		ps_json_set_str(p, "first", t);
		ps_rfc3339(c->prob[i].last, t, sizeof(t));
		ps_json_set_str(p, "last", t);
		json_object_array_add(probs, p);
	}
	ps_json_set(o, "problems", probs);
	ps_json_set(o, "network", c->net_tried ? ps_netup_json(&c->net) : NULL);
	return o;
}

/* New problems into the report's warnings[] (each once). Locked. */
static void add_warnings(struct ps_collect *c, json_object *report)
{
	json_object *w = ps_json_get(report, "warnings");

	for (size_t i = 0; w && i < c->nprob; i++) {
		char text[460];

		if (c->prob[i].warned)
			continue;
		c->prob[i].warned = true;
		snprintf(text, sizeof(text), "collector: %s", c->prob[i].text);
		json_object_array_add(w, ps_json_new_str(text));
	}
}

static void annotate(void *arg, json_object *report, const char *dir)
{
	struct ps_collect *c = arg;
	struct run *r;

	pthread_mutex_lock(&c->lock);
	r = run_of(c, dir, true);
	if (r) {
		add_warnings(c, report);
		ps_json_set(report, "collect", run_json(c, r, "sending"));
	}
	pthread_mutex_unlock(&c->lock);
	drain_say(c);
}

static void written(void *arg, json_object *report, const char *dir)
{
	struct ps_collect *c = arg;
	struct run *r;

	pthread_mutex_lock(&c->lock);
	r = run_of(c, dir, true);
	if (r) {
		bool complete = ps_json_bool(report, "complete") == 1;

		ps_spool_written(&r->sp, complete);
		if (complete && !r->report)
			r->report = json_object_get(report);
	}
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

const struct ps_report_sink *ps_collect_sink(struct ps_collect *c)
{
	return c ? &c->sink : NULL;
}

/* ------------------------------------------------------------- settle -- */

static size_t runs_waiting(const struct ps_collect *c)
{
	size_t n = 0;

	/* no address: nothing would get out, waiting only keeps the machine from then= */
	if (c->net_tried && !c->net.up)
		return 0;

	for (size_t i = 0; i < c->nruns; i++)
		n += run_waits(c, &c->runs[i]);
	return n;
}

/* The live runs' reports in their folders say how their delivery ended (again when that
 * changed), and the console. */
static void record_outcome(struct ps_collect *c)
{
	for (size_t i = 0; i < c->nruns; i++) {
		struct run *r;
		json_object *rep;
		char dir[PATH_MAX], line[1700];
		bool done;

		pthread_mutex_lock(&c->lock);
		r = &c->runs[i];
		done = run_done(c, r);
		if (!r->sp.complete || r->recorded == (done ? 1 : 2)) {
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		r->recorded = done ? 1 : 2;
		rep = json_object_get(r->report);
		if (rep) {
			add_warnings(c, rep);
			ps_json_set(rep, "collect",
				    run_json(c, r, done ? "delivered" : "not_delivered"));
		}
		memcpy(line, "collect: ", 9);
		summary(c, r, done ? "delivered" : "not_delivered", line + 9, sizeof(line) - 9);
		snprintf(dir, sizeof(dir), "%s", r->dir);
		pthread_mutex_unlock(&c->lock);
		if (c->o.say)
			c->o.say(c->o.arg, !done, line);
		if (!rep)
			continue;
		ps_store_begin(dir);
		ps_report_write(rep, dir, c->o.views, &(struct ps_report_files){0});
		ps_store_end(dir);
		json_object_put(rep);
		if (!done) {
			/* the folder changed: what is sent later must be all of it, as it is now */
			pthread_mutex_lock(&c->lock);
			ps_spool_written(&c->runs[i].sp, true);
			pthread_cond_broadcast(&c->cond);
			pthread_mutex_unlock(&c->lock);
		}
	}
}

bool ps_collect_settle(struct ps_collect *c, double seconds)
{
	double end = ps_mono_now() + seconds, said = ps_mono_now();
	size_t waiting;

	if (!c)
		return true;
	pthread_mutex_lock(&c->lock);
	while ((waiting = runs_waiting(c)) && c->thread_on) {
		double now = ps_mono_now();
		struct timespec ts;

		if (now >= end)
			break;
		if (now - said >= SAY_EVERY_S) {
			char line[700];

			snprintf(
			    line, sizeof(line),
			    "collect: %zu run%s to deliver to %s; waiting up to %.0f s more%s%s",
			    waiting, waiting == 1 ? "" : "s",
			    c->have_url ? c->base : c->syslog_text, end - now,
			    c->nprob ? " (last problem: " : "",
			    c->nprob ? c->prob[c->nprob - 1].text : "");
			if (c->nprob)
				strncat(line, ")", sizeof(line) - strlen(line) - 1);
			queue_say(c, c->nprob > 0, line);
			said = now;
			pthread_mutex_unlock(&c->lock);
			drain_say(c);
			pthread_mutex_lock(&c->lock);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&c->cond, &c->lock, &ts);
	}
	waiting = 0;
	for (size_t i = 0; i < c->nruns; i++)
		waiting += !run_done(c, &c->runs[i]);
	pthread_mutex_unlock(&c->lock);
	drain_say(c);
	record_outcome(c);
	return waiting == 0;
}

double ps_collect_wait_s(const char *collect_wait)
{
	unsigned int s;

	if (strcmp(collect_wait, "0") == 0)
		return 0;
	return ps_duration_parse(collect_wait, &s) == 0 ? (double)s : DEFAULT_WAIT_S;
}

unsigned long long ps_collect_bytes(struct ps_collect *c)
{
	unsigned long long n = 0;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nruns; i++)
		n += c->runs[i].bytes_http + c->runs[i].bytes_syslog;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* -------------------------------------------------------------- start -- */

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* collect_ca=, else the netboot tree's (site.img), else the stick's; "" none. */
static void find_ca(const struct ps_collect_opts *o, char *ca, size_t len)
{
	const char *named = o->keys.collect_ca, *stick = o->stick ? o->stick : "";
	char path[512];

	ca[0] = '\0';
	if (named[0] == '/') {
		snprintf(ca, len, "%s", named);
		return;
	}
	if (named[0]) {
		snprintf(ca, len, "%.250s/%.250s", stick[0] ? stick : SITE_DIR, named);
		return;
	}
	ps_path(path, sizeof(path), o->root, "%s/%s", SITE_DIR, CA_NAME);
	if (readable(path)) {
		snprintf(ca, len, "%s", path);
		return;
	}
	snprintf(path, sizeof(path), "%.400s/%s", stick, CA_NAME);
	if (stick[0] && readable(path))
		snprintf(ca, len, "%s", path);
}

static void say_now(struct ps_collect *c, bool problem_line, const char *fmt, const char *a,
		    const char *b)
{
	char line[900];

	if (!c->o.say)
		return;
	snprintf(line, sizeof(line), fmt, a, b);
	c->o.say(c->o.arg, problem_line, line);
}

static void bring_up_network(struct ps_collect *c)
{
	struct ps_bootnet b;
	char why[300];

	ps_bootnet_from_cmdline(c->o.cmdline ? c->o.cmdline : "", c->o.keys.ip, &b, why,
				sizeof(why));
	if (why[0])
		say_now(c, true, "collect: the kernel command line's %s%s", why, "");
	c->net_tried = true;
	ps_netup(c->o.root, &b, &c->net);
	if (c->net.up) {
		char what[200];

		snprintf(what, sizeof(what), "%s (%s, %s, found by %s)", c->net.address,
			 c->net.port, c->net.how, c->net.found_by);
		say_now(c, false, "collect: this machine is %s%s", what, "");
	} else {
		char msg[500];

		snprintf(msg, sizeof(msg), "no address for the collector: %s", c->net.why);
		pthread_mutex_lock(&c->lock);
		problem(c, msg);
		pthread_mutex_unlock(&c->lock);
	}
}

struct ps_collect *ps_collect_start(const struct ps_collect_opts *o)
{
	struct ps_collect_keys k = o->keys;
	const char **each[] = {&k.collect,	    &k.collect_ca, &k.collect_user,
			       &k.collect_password, &k.syslog,	   &k.ip};
	struct ps_collect *c;
	char why[400];

	/* an unset key is "" from here on */
	for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++)
		*each[i] = *each[i] ? *each[i] : "";
	if (!k.collect[0] && !k.syslog[0])
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->o = *o;
	c->o.keys = k;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->sink = (struct ps_report_sink){.arg = c, .annotate = annotate, .written = written};
	find_ca(&c->o, c->ca, sizeof(c->ca));
	if (k.collect[0] && ps_url_parse(k.collect, &c->url, why, sizeof(why)) == 0) {
		c->have_url = true;
		ps_url_base(&c->url, c->base, sizeof(c->base));
		/* collect_user=/collect_password= over the URL's user:password@ */
		if (k.collect_user[0])
			snprintf(c->url.user, sizeof(c->url.user), "%s", k.collect_user);
		if (k.collect_password[0])
			snprintf(c->url.password, sizeof(c->url.password), "%s",
				 k.collect_password);
		snprintf(c->user, sizeof(c->user), "%s", c->url.user);
	}
	if (k.syslog[0] && ps_syslog_target_parse(k.syslog, &c->syslog, why, sizeof(why)) == 0) {
		c->have_syslog = true;
		ps_syslog_target_text(&c->syslog, c->syslog_text, sizeof(c->syslog_text));
	}
	if (o->net)
		bring_up_network(c);
	{
		/* libcurl: the netboot tree's collect.img, else the stick's tools/collect */
		char stick_libs[600];
		const char *dirs[] = {PS_CURL_DIR_NETBOOT, stick_libs, NULL};

		snprintf(stick_libs, sizeof(stick_libs), "%.400s/%s", o->stick ? o->stick : "",
			 PS_CURL_DIR_STICK);
		if (!o->stick || !o->stick[0])
			dirs[1] = NULL;
		ps_curl_load(dirs, why, sizeof(why));
	}
	if (c->have_url) {
		c->http_ok = ps_http_open(&c->http, c->ca, c->url.user, c->url.password, why,
					  sizeof(why)) == 0;
		if (!c->http_ok) {
			pthread_mutex_lock(&c->lock);
			problem(c, why);
			pthread_mutex_unlock(&c->lock);
		}
	}
	memset(c->url.password, 0, sizeof(c->url.password));
	if (c->have_syslog) {
		c->sl_ok = ps_syslog_open(&c->sl, &c->syslog, c->ca, why, sizeof(why)) == 0;
		if (!c->sl_ok) {
			pthread_mutex_lock(&c->lock);
			problem(c, why);
			pthread_mutex_unlock(&c->lock);
		}
	}
	if (c->http_ok || c->sl_ok) {
		const struct ps_curl *cu = c->http_ok ? c->http.c : c->sl.c;
		curl_version_info_data *v = cu->version_info(CURLVERSION_NOW);

		snprintf(c->libcurl, sizeof(c->libcurl), "%s", v && v->version ? v->version : "");
		c->thread_on = pthread_create(&c->thread, NULL, worker, c) == 0;
	}
	if (c->have_url)
		say_now(c, false, "collect: runs go to %s%s", c->base,
			c->ca[0] ? "" : " (no CA file named or found)");
	drain_say(c);
	return c;
}

void ps_collect_free(struct ps_collect *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	if (c->thread_on)
		pthread_join(c->thread, NULL);
	if (c->http_ok)
		ps_http_close(&c->http);
	if (c->sl_ok)
		ps_syslog_close(&c->sl);
	for (size_t i = 0; i < c->nruns; i++)
		json_object_put(c->runs[i].report);
	free(c->runs);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof(*c));
	free(c);
}
