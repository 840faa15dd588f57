/* iperf_pair.c - libiperf TCP runs: server and client in child processes (each
 * in its namespace), results back through a pipe as libiperf's JSON. */
#include "engines/net/iperf_pair.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h> /* before iperf_api.h, which needs it but includes it only with HAVE_STDINT_H */
#include <iperf_api.h>
#include <json-c/json.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_OUTPUT (4 << 20)

static void write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static void child_fail(int out, const char *what, int err)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));

	write_all(out, msg, n > 0 ? (size_t)n : 0);
	_exit(1);
}

/* What every child does first: die with its parent, go quiet, enter its namespace. */
static void child_setup(int ns_fd, int out)
{
	sigset_t none;
	int null;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* A peer that goes away must give libiperf an error, not kill it silently. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) < 0)
		child_fail(out, "setns into the server's or client's namespace", errno);
}

static struct iperf_test *new_test(int out, char role, int port)
{
	struct iperf_test *t = iperf_new_test();

	if (!t || iperf_defaults(t) < 0)
		child_fail(out, "libiperf: cannot set up a test", errno ? errno : ENOMEM);
	iperf_set_test_role(t, role);
	iperf_set_test_server_port(t, port);
	iperf_set_test_json_output(t, 1);
	iperf_set_verbose(t, 0);
	return t;
}

static void __attribute__((noreturn)) server_child(const struct ps_iperf_opts *o, int port, int out)
{
	struct iperf_test *t;

	child_setup(o->server_ns_fd, out);
	t = new_test(out, 's', port);
	iperf_set_test_bind_address(t, o->server_addr);
	iperf_set_test_one_off(t, 1);
	if (iperf_run_server(t) < 0) {
		char msg[256];
		int n = snprintf(msg, sizeof(msg), "iperf server: %s", iperf_strerror(i_errno));

		write_all(out, msg, n > 0 ? (size_t)n : 0);
		_exit(1);
	}
	_exit(0);
}

static void __attribute__((noreturn)) client_child(const struct ps_iperf_opts *o, int port, int out)
{
	struct iperf_test *t;
	const char *json;
	int rc;

	child_setup(o->client_ns_fd, out);
	t = new_test(out, 'c', port);
	iperf_set_test_server_hostname(t, o->server_addr);
	iperf_set_test_duration(t, o->duration_s);
	iperf_set_test_num_streams(t, o->streams);
	iperf_set_test_connect_timeout(t, o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 3000);
	if (o->reverse)
		iperf_set_test_reverse(t, 1);
	if (o->bidir)
		iperf_set_test_bidirectional(t, 1);
	rc = iperf_run_client(t);
	json = iperf_get_test_json_output_string(t);
	if (json && *json) {
		write_all(out, json, strlen(json));
	} else {
		char msg[256];
		int n = snprintf(msg, sizeof(msg), "iperf client: %s",
				 rc < 0 ? iperf_strerror(i_errno) : "no JSON output");

		write_all(out, msg, n > 0 ? (size_t)n : 0);
	}
	_exit(rc < 0 ? 1 : 0);
}

/* The server's own namespace view: is anything listening on the port yet? */
static bool listening(pid_t pid, int port)
{
	static const char *const files[] = {"tcp", "tcp6"};
	char path[64], line[512], want[16];
	bool found = false;

	snprintf(want, sizeof(want), ":%04X", port);
	for (size_t i = 0; i < 2 && !found; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, files[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (!found && fgets(line, sizeof(line), f)) {
			char local[128], remote[128], state[8];

			if (sscanf(line, "%*s %127s %127s %7s", local, remote, state) == 3 &&
			    strcmp(state, "0A") == 0 && strlen(local) > 5 &&
			    strcmp(local + strlen(local) - 5, want) == 0)
				found = true;
		}
		fclose(f);
	}
	return found;
}

/* Reap a child; after limit_s, kill it. Returns the wait status, or -1. */
static int reap(pid_t pid, double limit_s)
{
	double end = ps_mono_now() + limit_s;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (ps_mono_now() >= end) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		usleep(20000);
	}
}

/* Whatever the child wrote into the pipe, until EOF, the deadline or a stop. */
static int drain(int fd, const struct ps_iperf_opts *o, double deadline, char **out)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, 100);
		ssize_t n;

		if (o->should_stop && o->should_stop(o->stop_arg)) {
			free(buf);
			return -ECANCELED;
		}
		if (r < 0 && errno != EINTR) {
			free(buf);
			return -errno;
		}
		if (r <= 0) {
			if (ps_mono_now() > deadline) {
				free(buf);
				return -ETIMEDOUT;
			}
			continue;
		}
		if (len + 1 >= cap) {
			char *nb = cap >= MAX_OUTPUT ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				return -EFBIG;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static json_object *path(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	if (!json_object_object_get_ex(o, a, &x))
		return NULL;
	if (!b)
		return x;
	return json_object_object_get_ex(x, b, &y) ? y : NULL;
}

int ps_iperf_parse_client(const char *text, struct ps_iperf_result *res)
{
	json_object *j = json_tokener_parse(text), *end, *v;

	if (!j || !json_object_is_type(j, json_type_object)) {
		/* Not JSON: the child's own error message. */
		snprintf(res->error, sizeof(res->error), "%s",
			 text[0] ? text : "the iperf client gave no output");
		json_object_put(j);
		return -EIO;
	}
	v = path(j, "error", NULL);
	end = path(j, "end", NULL);
	if (v || !end || !path(end, "sum_received", "bits_per_second")) {
		snprintf(res->error, sizeof(res->error), "iperf: %s",
			 v ? json_object_get_string(v) : "no end results in its JSON");
		json_object_put(j);
		return -EIO;
	}
	res->mbps = json_object_get_double(path(end, "sum_received", "bits_per_second")) / 1e6;
	if ((v = path(end, "sum_sent", "bits_per_second")))
		res->sent_mbps = json_object_get_double(v) / 1e6;
	if ((v = path(end, "sum_sent", "retransmits")))
		res->retransmits = (long)json_object_get_int64(v);
	if ((v = path(end, "cpu_utilization_percent", "host_total")))
		res->cpu_sender_pct = json_object_get_double(v);
	if ((v = path(end, "cpu_utilization_percent", "remote_total")))
		res->cpu_receiver_pct = json_object_get_double(v);
	if ((v = path(end, "sum_received_bidir_reverse", "bits_per_second")))
		res->rev_mbps = json_object_get_double(v) / 1e6;
	if ((v = path(end, "sum_sent_bidir_reverse", "retransmits")))
		res->rev_retransmits = (long)json_object_get_int64(v);
	json_object_put(j);
	return 0;
}

static void read_error(int fd, char *buf, size_t len)
{
	ssize_t n;
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

int ps_iperf_pair_run(const struct ps_iperf_opts *o, struct ps_iperf_result *res)
{
	int port = o->port ? o->port : 5201, sp[2], cp[2], ret = 0;
	pid_t spid, cpid;
	char *out = NULL;
	double limit;

	memset(res, 0, sizeof(*res));
	res->retransmits = res->rev_retransmits = -1;
	res->cpu_sender_pct = res->cpu_receiver_pct = res->rev_mbps = -1;
	if (o->streams < 1 || o->duration_s < 1 || !o->server_addr)
		return -EINVAL;
	if (pipe2(sp, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(cp, O_CLOEXEC) < 0) {
		ret = -errno;
		close(sp[0]);
		close(sp[1]);
		return ret;
	}
	spid = fork();
	if (spid == 0)
		server_child(o, port, sp[1]);
	close(sp[1]);
	if (spid < 0) {
		ret = -errno;
		snprintf(res->error, sizeof(res->error), "fork for the iperf server: %s",
			 strerror(-ret));
		close(sp[0]);
		close(cp[0]);
		close(cp[1]);
		return ret;
	}
	/* The client must not connect before the server listens. */
	limit = ps_mono_now() + 5;
	while (!listening(spid, port)) {
		if (waitpid(spid, NULL, WNOHANG) == spid) {
			read_error(sp[0], res->error, sizeof(res->error));
			if (!res->error[0])
				snprintf(res->error, sizeof(res->error),
					 "the iperf server ended before it listened");
			spid = -1;
			ret = -EIO;
			break;
		}
		if (o->should_stop && o->should_stop(o->stop_arg)) {
			ret = -ECANCELED;
			break;
		}
		if (ps_mono_now() > limit) {
			snprintf(res->error, sizeof(res->error),
				 "the iperf server did not listen on %s:%d within 5 s",
				 o->server_addr, port);
			ret = -ETIMEDOUT;
			break;
		}
		usleep(20000);
	}
	if (ret == 0) {
		cpid = fork();
		if (cpid == 0)
			client_child(o, port, cp[1]);
		close(cp[1]);
		cp[1] = -1;
		if (cpid < 0) {
			ret = -errno;
			snprintf(res->error, sizeof(res->error), "fork for the iperf client: %s",
				 strerror(-ret));
		} else {
			/* Connect, the run, the results exchange: generous under emulation. */
			ret = drain(cp[0], o, ps_mono_now() + o->duration_s + 30, &out);
			if (ret == -ETIMEDOUT)
				snprintf(res->error, sizeof(res->error),
					 "the iperf client did not finish within %d s",
					 o->duration_s + 30);
			else if (ret < 0 && ret != -ECANCELED)
				snprintf(res->error, sizeof(res->error),
					 "reading the iperf client's results: %s", strerror(-ret));
			reap(cpid, ret < 0 ? 0 : 5);
		}
	}
	if (cp[1] >= 0)
		close(cp[1]);
	close(cp[0]);
	if (spid > 0) {
		/* One-off server: it ends by itself once the client is done. */
		reap(spid, ret < 0 ? 0 : 3);
	}
	close(sp[0]);
	if (ret == 0)
		ret = ps_iperf_parse_client(out, res);
	free(out);
	return ret;
}

int ps_iperf_client_run(const struct ps_iperf_opts *o, struct ps_iperf_result *res)
{
	int port = o->port ? o->port : 5201, cp[2], ret;
	int connect_s = (o->connect_timeout_ms > 0 ? o->connect_timeout_ms : 3000) / 1000 + 1;
	char *out = NULL;
	pid_t cpid;

	memset(res, 0, sizeof(*res));
	res->retransmits = res->rev_retransmits = -1;
	res->cpu_sender_pct = res->cpu_receiver_pct = res->rev_mbps = -1;
	if (o->streams < 1 || o->duration_s < 1 || !o->server_addr)
		return -EINVAL;
	if (pipe2(cp, O_CLOEXEC) < 0)
		return -errno;
	cpid = fork();
	if (cpid == 0)
		client_child(o, port, cp[1]);
	close(cp[1]);
	if (cpid < 0) {
		ret = -errno;
		snprintf(res->error, sizeof(res->error), "fork for the iperf client: %s",
			 strerror(-ret));
		close(cp[0]);
		return ret;
	}
	ret = drain(cp[0], o, ps_mono_now() + o->duration_s + connect_s + 30, &out);
	if (ret == -ETIMEDOUT)
		snprintf(res->error, sizeof(res->error),
			 "the iperf client did not finish within %d s",
			 o->duration_s + connect_s + 30);
	else if (ret < 0 && ret != -ECANCELED)
		snprintf(res->error, sizeof(res->error), "reading the iperf client's results: %s",
			 strerror(-ret));
	reap(cpid, ret < 0 ? 0 : 5);
	close(cp[0]);
	if (ret == 0)
		ret = ps_iperf_parse_client(out, res);
	free(out);
	return ret;
}

int ps_iperf_server_spawn(int ns_fd, const char *bind_addr, int port)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		struct iperf_test *t;
		int null = open("/dev/null", O_WRONLY);

		child_setup(ns_fd, null >= 0 ? null : STDERR_FILENO);
		t = new_test(STDERR_FILENO, 's', port ? port : 5201);
		if (bind_addr)
			iperf_set_test_bind_address(t, bind_addr);
		/* One client after the other; a failed test (a client that went away) is
		 * not the end of the server. */
		for (;;) {
			iperf_run_server(t);
			iperf_reset_test(t);
			iperf_set_test_role(t, 's');
			iperf_set_test_server_port(t, port ? port : 5201);
			iperf_set_test_json_output(t, 1);
			if (bind_addr)
				iperf_set_test_bind_address(t, bind_addr);
		}
	}
	return pid;
}
