/* tcp_rr.c - TCP request/response round trips between two namespaces: a server
 * thread that echoes one byte, a client that times each round trip. */
#include "engines/net/tcp_rr.h"
#include "lib/util.h"
#include "lib/stats.h"
#include "engines/net/netns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct server {
	int lfd;
	atomic_bool stop;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	struct pollfd p = {.fd = s->lfd, .events = POLLIN};
	int fd, one = 1;
	char c;

	while (!atomic_load(&s->stop) && poll(&p, 1, 100) == 0)
		;
	if (atomic_load(&s->stop))
		return NULL;
	fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return NULL;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* one byte in, one byte out, until the client closes */
	while (read(fd, &c, 1) == 1)
		if (write(fd, &c, 1) != 1)
			break;
	close(fd);
	return NULL;
}

static int ns_socket(int ns, int type)
{
	int fd = ns >= 0 ? ps_netns_socket(ns, AF_INET, type, 0)
			 : socket(AF_INET, type | SOCK_CLOEXEC, 0);

	return fd < 0 && ns < 0 ? -errno : fd;
}

int ps_tcp_rr_run(const struct ps_rr_opts *o, struct ps_rr_result *r)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(o->port ? o->port : PS_RR_PORT)};
	struct server srv = {.lfd = -1};
	struct ps_lat_hist *h = calloc(1, sizeof(*h));
	pthread_t th;
	bool started = false;
	int fd = -1, one = 1, ret = 0;
	double t0, end, last_check = 0;
	struct timeval tv = {.tv_sec = 2};

	memset(r, 0, sizeof(*r));
	if (!h)
		return -ENOMEM;
	ps_lat_init(h);
	if (!o->server_addr || inet_pton(AF_INET, o->server_addr, &sa.sin_addr) != 1 ||
	    o->seconds <= 0) {
		free(h);
		return -EINVAL;
	}
	srv.lfd = ns_socket(o->server_ns_fd, SOCK_STREAM);
	if (srv.lfd < 0) {
		ret = srv.lfd;
		snprintf(r->error, sizeof(r->error), "server socket: %s", strerror(-ret));
		goto out;
	}
	setsockopt(srv.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv.lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(srv.lfd, 1) < 0) {
		ret = -errno;
		snprintf(r->error, sizeof(r->error), "server on %s:%d: %s", o->server_addr,
			 ntohs(sa.sin_port), strerror(-ret));
		goto out;
	}
	if (pthread_create(&th, NULL, serve, &srv) != 0) {
		ret = -EAGAIN;
		snprintf(r->error, sizeof(r->error), "no thread for the server");
		goto out;
	}
	started = true;
	fd = ns_socket(o->client_ns_fd, SOCK_STREAM);
	if (fd < 0) {
		ret = fd;
		snprintf(r->error, sizeof(r->error), "client socket: %s", strerror(-ret));
		goto out;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		snprintf(r->error, sizeof(r->error), "connect to %s:%d: %s", o->server_addr,
			 ntohs(sa.sin_port), strerror(-ret));
		goto out;
	}
	t0 = ps_mono_now();
	end = t0 + o->seconds;
	for (;;) {
		double a = ps_mono_now(), b;
		char c = 'r';

		if (a >= end)
			break;
		if (a - last_check >= 0.1) {
			last_check = a;
			if (o->should_stop && o->should_stop(o->stop_arg)) {
				ret = -ECANCELED;
				break;
			}
		}
		if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1) {
			ret = errno ? -errno : -EPIPE;
			snprintf(r->error, sizeof(r->error), "round trip %llu: %s",
				 (unsigned long long)r->transactions + 1, strerror(-ret));
			break;
		}
		b = ps_mono_now();
		ps_lat_add(h, (uint64_t)((b - a) * 1e9));
		r->transactions++;
	}
	if (ret == 0 && r->transactions) {
		double took = ps_mono_now() - t0;

		r->per_s = (double)r->transactions / took;
		r->p50_us = (double)ps_lat_percentile(h, 50) / 1000;
		r->p90_us = (double)ps_lat_percentile(h, 90) / 1000;
		r->p99_us = (double)ps_lat_percentile(h, 99) / 1000;
		r->min_us = (double)h->min_ns / 1000;
		r->max_us = (double)h->max_ns / 1000;
	}
out:
	if (fd >= 0)
		close(fd);
	atomic_store(&srv.stop, true);
	if (started)
		pthread_join(th, NULL);
	if (srv.lfd >= 0)
		close(srv.lfd);
	free(h);
	return ret;
}
