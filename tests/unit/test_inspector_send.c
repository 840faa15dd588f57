/* test_inspector_send.c - the introspection callback against an inspector of the test's own on
 * 127.0.0.1 (Debian's libcurl, as the stick loads it): taken (the node named), refused (its
 * words and what to check, no second try), failing then taken (tried again), unreachable
 * (said, and given up when collect_wait is over); the report's ironic{} and the console
 * lines say which, and what went is the agent's format. */
#include "check.h"
#include "collect/collect.h"
#include "collect/inspector.h"
#include "core/config.h"
#include "core/plan.h"
#include "hw/hw.h"
#include "hw/inventory.h"
#include "json_get.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ROOT FIXTURES "/sysroot-qemu"

/* The inspector: answers each request with the next of its replies. */
struct server {
	int fd, port;
	const char *const *replies; /* "STATUS BODY" */
	size_t n, served;
	char last_body[16384];
	char last_type[128];
};

static void *serve(void *arg)
{
	struct server *sv = arg;

	for (; sv->served < sv->n; sv->served++) {
		int c = accept(sv->fd, NULL, NULL);
		char req[32768], out[1024];
		size_t got = 0;
		long want = -1;
		const char *r = sv->replies[sv->served], *body = strchr(r, ' ') + 1;

		if (c < 0)
			return NULL;
		for (;;) {
			ssize_t k = read(c, req + got, sizeof(req) - 1 - got);
			char *end, *cl;

			if (k <= 0)
				break;
			got += (size_t)k;
			req[got] = '\0';
			end = strstr(req, "\r\n\r\n");
			if (!end)
				continue;
			cl = strcasestr(req, "Content-Length:");
			want = cl ? strtol(cl + 15, NULL, 10) : 0;
			if ((long)(got - (size_t)(end + 4 - req)) >= want) {
				char *t = strcasestr(req, "Content-Type:");

				snprintf(sv->last_body, sizeof(sv->last_body), "%s", end + 4);
				sv->last_type[0] = '\0';
				if (t)
					sscanf(t + 13, " %127[^\r]", sv->last_type);
				break;
			}
		}
		snprintf(out, sizeof(out),
			 "HTTP/1.1 %.3s X\r\nContent-Type: application/json\r\nContent-Length: "
			 "%zu\r\nConnection: close\r\n\r\n%s",
			 r, strlen(body), body);
		if (write(c, out, strlen(out)) < 0)
			perror("write");
		close(c);
	}
	return NULL;
}

static int listen_local(struct server *sv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sv->fd = socket(AF_INET, SOCK_STREAM, 0);
	if (sv->fd < 0 || bind(sv->fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(sv->fd, 4) < 0 || getsockname(sv->fd, (struct sockaddr *)&a, &len) < 0)
		return -1;
	sv->port = ntohs(a.sin_port);
	return 0;
}

static char said[8][1600];
static int nsaid, nproblems;

static void say(void *arg, bool problem, const char *line)
{
	if (nsaid < 8)
		snprintf(said[nsaid++], sizeof(said[0]), "%s", line);
	nproblems += problem;
}

static bool said_like(const char *text)
{
	for (int i = 0; i < nsaid; i++)
		if (strstr(said[i], text))
			return true;
	return false;
}

static const char report_text[] =
    "{\"schema_version\": 2, \"plan\": \"quick\", \"complete\": true, \"machine_id\": \"m1\","
    " \"steps\": [{\"name\": \"disk_read\", \"status\": \"pass\", \"findings\": [],"
    " \"verdicts\": [{\"kind\": \"drive\", \"device\": \"drive:wwn:0x50014ee2b5d4a3c1\","
    " \"subject\": \"sda\", \"status\": \"pass\", \"rule\": \"disk_read.measured\","
    " \"message\": \"read 200 MB/s\"}]}]}";

/* What went names the run as the collector would file it (no collector: no URL). */
static void body_has_run(const char *text, const char *path)
{
	json_object *body = json_tokener_parse(text), *ps = get(body, "probestick");

	CHECK_STR(s(ps, "run"), path);
	CHECK(s(ps, "report_url") == NULL);
	json_object_put(body);
}

/* One callback against an inspector answering replies[]; the report's ironic{}. */
static json_object *send_to(const struct ps_inventory *inv, const char *const *replies, size_t n,
			    bool up, double wait_s, struct server *sv, bool *ok)
{
	struct ps_inspector *in;
	struct ps_inspector_port port = {"52:54:00:50:00:01", "eth1", "127.0.0.1"};
	json_object *rep = json_tokener_parse(report_text), *ironic;
	pthread_t t;
	char why[400], url[80];

	memset(sv, 0, sizeof(*sv));
	sv->replies = replies;
	sv->n = n;
	if (listen_local(sv) < 0) {
		perror("listen");
		exit(1);
	}
	if (!up)
		close(sv->fd); /* nobody there: connection refused */
	else
		pthread_create(&t, NULL, serve, sv);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/continue", sv->port);
	in = ps_inspector_start(url, "", "", why, sizeof(why));
	CHECK(in != NULL);
	CHECK_STR(why, "");
	nsaid = nproblems = 0;
	*ok = ps_inspector_send(in, inv, rep, ps_views(), &port, NULL, wait_s, say, NULL);
	/* a second plan of the same boot sends nothing */
	CHECK(ps_inspector_send(in, inv, rep, ps_views(), &port, NULL, wait_s, say, NULL));
	ps_inspector_free(in);
	if (up) {
		pthread_join(t, NULL);
		close(sv->fd);
	}
	ironic = json_object_get(get(rep, "ironic"));
	json_object_put(rep);
	return ironic;
}

/* Through the collector's sink, with only inspect= set (no collect=): the report's ironic{}
 * pending, then delivered; no collect{} and no collector lines for a collector there is not. */
static void test_through_sink(const struct ps_inventory *inv)
{
	static const char *const taken[] = {
	    "200 {\"uuid\": \"8878212a-94fd-4e0d-8344-d87e7a718209\"}"};
	struct server sv = {.replies = taken, .n = 1};
	struct ps_config cfg;
	struct ps_collect *c;
	const struct ps_report_sink *sink;
	json_object *rep = json_tokener_parse(report_text), *ins;
	char dir[] = "/nonexistent/m1/20261206T000000Z-quick";
	pthread_t t;

	if (listen_local(&sv) < 0) {
		perror("listen");
		exit(1);
	}
	pthread_create(&t, NULL, serve, &sv);
	ps_config_defaults(&cfg);
	snprintf(cfg.inspect, sizeof(cfg.inspect), "http://127.0.0.1:%d/v1/continue", sv.port);
	nsaid = nproblems = 0;
	c = ps_collect_start(&(struct ps_collect_opts){
	    .keys = ps_config_collect_keys(&cfg), .views = ps_views(), .root = "", .say = say});
	CHECK(c != NULL);
	sink = ps_collect_sink(c);
	sink->annotate(sink->arg, rep, dir);
	CHECK_STR(s(get(get(rep, "ironic"), "inspector"), "status"), "pending");
	sink->finished(sink->arg, inv, rep, dir);
	sink->annotate(sink->arg, rep, dir);
	sink->written(sink->arg, rep, dir);
	CHECK(ps_collect_settle(c, 1));
	ps_collect_free(c);
	pthread_join(t, NULL);
	close(sv.fd);
	ins = get(get(rep, "ironic"), "inspector");
	CHECK_STR(s(ins, "status"), "delivered");
	CHECK_STR(s(get(rep, "ironic"), "node"), "8878212a-94fd-4e0d-8344-d87e7a718209");
	body_has_run(sv.last_body, "m1/20261206T000000Z-quick");
	CHECK(get(rep, "collect") == NULL);
	CHECK(!said_like("collect: "));
	CHECK(said_like("inspector: the plan's inventory and verdicts go to http://127.0.0.1:"));
	json_object_put(rep);
}

int main(void)
{
	struct ps_inventory inv;
	struct ps_inventory_opts o = {.root = ROOT, .module_fd = -1};
	struct server sv;
	json_object *ir, *ins, *body;
	bool ok;
	char stick[32];
	static const char *const taken[] = {
	    "200 {\"uuid\": \"8878212a-94fd-4e0d-8344-d87e7a718209\"}"};
	static const char *const refused[] = {
	    "404 {\"error\": {\"message\": \"Could not find a node for attributes {'mac': "
	    "['52:54:00:50:00:01']}\"}}"};
	static const char *const failing[] = {
	    "500 {\"error\": {\"message\": \"database locked\"}}",
	    "503 {\"error\": {\"message\": \"busy\"}}",
	    "200 {\"uuid\": \"8878212a-94fd-4e0d-8344-d87e7a718209\"}"};

	CHECK_INT(ps_boot_disk(ROOT, "/stick", stick, sizeof(stick)), 0);
	o.boot_disk = stick;
	CHECK_INT(ps_inventory_take(&inv, &o), 0);

	/* taken: the node named, the agent's format sent as JSON */
	ir = send_to(&inv, taken, 1, true, 60, &sv, &ok);
	ins = get(ir, "inspector");
	CHECK(ok);
	CHECK_STR(s(ir, "node"), "8878212a-94fd-4e0d-8344-d87e7a718209");
	CHECK_STR(s(ir, "node_from"), "inspector");
	CHECK_STR(s(ins, "status"), "delivered");
	CHECK_INT(n(ins, "http_status"), 200);
	CHECK_INT(n(ins, "tries"), 1);
	CHECK_INT(n(ins, "bytes"), (long long)strlen(sv.last_body));
	CHECK(s(ins, "at") != NULL);
	CHECK_STR(sv.last_type, "application/json");
	body = json_tokener_parse(sv.last_body);
	CHECK_INT(json_object_array_length(get(get(body, "inventory"), "disks")), 5);
	CHECK_STR(s(body, "boot_interface"), "52:54:00:50:00:01");
	CHECK_STR(s(get(body, "probestick"), "verdict"), "pass");
	json_object_put(body);
	CHECK(said_like("inspector: sending the inventory and 1 verdicts to http://127.0.0.1:"));
	CHECK(said_like("inspector: delivered to http://127.0.0.1:"));
	CHECK(said_like("this machine is Ironic node 8878212a-94fd-4e0d-8344-d87e7a718209"));
	CHECK_INT(nproblems, 0);
	json_object_put(ir);

	/* refused: its words and what to check, said once, not tried again */
	ir = send_to(&inv, refused, 1, true, 60, &sv, &ok);
	ins = get(ir, "inspector");
	CHECK(!ok);
	CHECK_STR(s(ins, "status"), "refused");
	CHECK_INT(n(ins, "http_status"), 404);
	CHECK_INT(n(ins, "tries"), 1);
	CHECK(s(ins, "message") &&
	      strstr(s(ins, "message"), "refused the inventory (HTTP 404): "
					"Could not find a node for attributes"));
	CHECK(strstr(s(ins, "message"), "its port must be enrolled"));
	CHECK(said_like("inspector: NOT delivered: the inspector at http://127.0.0.1:"));
	CHECK(s(ir, "node") == NULL);
	json_object_put(ir);

	/* failing twice (5xx), then taken: each failure said once, tried again after 1 s, 2 s */
	ir = send_to(&inv, failing, 3, true, 60, &sv, &ok);
	ins = get(ir, "inspector");
	CHECK(ok);
	CHECK_STR(s(ins, "status"), "delivered");
	CHECK_INT(n(ins, "tries"), 3);
	CHECK(said_like("failed (HTTP 500): database locked; trying again"));
	CHECK(said_like("failed (HTTP 503): busy; trying again"));
	CHECK_INT(nproblems, 2);
	json_object_put(ir);

	/* unreachable, collect_wait over: given up, said so */
	ir = send_to(&inv, NULL, 0, false, 0.5, &sv, &ok);
	ins = get(ir, "inspector");
	CHECK(!ok);
	CHECK_STR(s(ins, "status"), "not_delivered");
	CHECK_INT(n(ins, "tries"), 1);
	CHECK(s(ins, "message") && strstr(s(ins, "message"), "cannot reach the inspector at "));
	CHECK(strstr(s(ins, "message"), "gave up after 1 tries"));
	CHECK(said_like("inspector: NOT delivered: cannot reach the inspector"));
	json_object_put(ir);

	test_through_sink(&inv);
	ps_inventory_free(&inv);
	return check_done("test_inspector_send");
}
