/*
 * inspector.c - the introspection callback to ironic-inspector, its answer,
 * and the report's ironic{}.
 */
#include "collect/inspector.h"
#include "collect/http.h"
#include "collect/retry.h"
#include "lib/json.h"
#include "lib/util.h"
#include "report/doc.h"
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX 8192

struct ps_inspector {
	char url[512];	    /* the callback; "" none (a deploy) */
	char node[64];	    /* the Ironic node, "" unknown */
	char node_from[24]; /* "inspector", "ironic_node" */
	struct ps_http http;
	bool http_ok;
	char http_why[400]; /* why not, when !http_ok */
	/* the outcome */
	const char *status; /* "pending", "delivered", "refused", "not_delivered" */
	long http_status;
	char message[1400];
	unsigned long tries;
	size_t bytes;
	time_t at;
	bool sent; /* tried to the end once: a second plan of the boot sends nothing */
};

struct ps_inspector *ps_inspector_start(const char *inspect, const char *ironic_node,
					const char *ca, char *why, size_t whylen)
{
	struct ps_inspector *in;

	why[0] = '\0';
	if (!inspect[0] && !ironic_node[0])
		return NULL;
	in = calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	snprintf(in->url, sizeof(in->url), "%s", inspect);
	if (ironic_node[0]) {
		snprintf(in->node, sizeof(in->node), "%s", ironic_node);
		snprintf(in->node_from, sizeof(in->node_from), "ironic_node");
	}
	in->status = "pending";
	if (in->url[0]) {
		in->http_ok = ps_http_open(&in->http, strncmp(in->url, "https:", 6) == 0 ? ca : "",
					   NULL, NULL, in->http_why, sizeof(in->http_why)) == 0;
		if (!in->http_ok)
			snprintf(why, whylen, "%s", in->http_why);
	}
	return in;
}

void ps_inspector_annotate(struct ps_inspector *in, json_object *report)
{
	json_object *o, *ins = NULL;
	char at[40];

	if (!in)
		return;
	o = json_object_new_object();
	ps_json_set_str(o, "node", in->node);
	ps_json_set_str(o, "node_from", in->node[0] ? in->node_from : NULL);
	if (in->url[0]) {
		ins = json_object_new_object();
		ps_json_set_str(ins, "url", in->url);
		ps_json_set_str(ins, "status", in->status);
		ps_json_set_count(ins, "http_status", in->http_status ? in->http_status : -1);
		ps_json_set_str(ins, "message", in->message);
		ps_json_set_count(ins, "tries", (int64_t)in->tries);
		ps_json_set_count(ins, "bytes", in->tries ? (int64_t)in->bytes : -1);
		if (in->at)
			ps_rfc3339(in->at, at, sizeof(at));
		ps_json_set_str(ins, "at", in->at ? at : NULL);
	}
	ps_json_set(o, "inspector", ins);
	ps_json_set(report, "ironic", o);
}

/* Why a try failed, for people; true when trying again may help. */
static bool explain(const struct ps_inspector *in, const struct ps_http_result *res,
		    const char *said, char *buf, size_t len)
{
	const char *ca = in->http.ca[0] ? in->http.ca : "none named";

	switch (res->fail) {
	case PS_HTTP_UNREACHABLE:
		if (res->status)
			snprintf(buf, len,
				 "the inspector at %.300s is busy (HTTP %ld); trying again",
				 in->url, res->status);
		else
			snprintf(buf, len, "cannot reach the inspector at %.300s: %.300s", in->url,
				 res->why);
		return true;
	case PS_HTTP_SERVER:
		snprintf(buf, len,
			 "the inspector at %.300s failed (HTTP %ld)%s%.400s; trying again", in->url,
			 res->status, said[0] ? ": " : "", said);
		return true;
	case PS_HTTP_TLS:
		snprintf(buf, len,
			 "%.300s is not the inspector: its certificate is not signed by the CA in "
			 "%.300s (collect_ca=) (%.300s)",
			 in->url, ca, res->why);
		return false;
	case PS_HTTP_AUTH:
	case PS_HTTP_REFUSED:
		snprintf(buf, len,
			 "the inspector at %.300s refused the inventory (HTTP %ld)%s%.400s%s",
			 in->url, res->status, said[0] ? ": " : "", said,
			 res->status == 404 ? " (is Ironic inspecting a node with this machine's "
					      "MACs? its port must be enrolled)"
					    : "");
		return false;
	case PS_HTTP_LOCAL:
	default:
		snprintf(buf, len, "could not send to the inspector at %.300s: %.300s", in->url,
			 res->why);
		return false;
	}
}

static size_t count_verdicts(json_object *extra)
{
	return ps_json_len(ps_json_arr(extra, "verdicts"));
}

bool ps_inspector_send(struct ps_inspector *in, const struct ps_inventory *inv, json_object *report,
		       const struct ps_view_set *views, const struct ps_inspector_port *boot,
		       const struct ps_inspector_run *run, double wait_s, ps_inspector_say say,
		       void *arg)
{
	struct ps_doc *doc;
	json_object *extra, *body;
	const char *text;
	char line[1600], said[600], last[1400] = "", *reply;
	struct ps_retry retry;
	double end = ps_mono_now() + wait_s;
	bool ok = false;

	if (!in || !in->url[0] || in->sent)
		return true;
	in->sent = true;
	if (!inv || !inv->taken) {
		in->status = "not_delivered";
		snprintf(in->message, sizeof(in->message),
			 "the plan took no inventory: nothing to send to the inspector (run a plan "
			 "with the inventory step)");
		goto out;
	}
	if (!in->http_ok) {
		in->status = "not_delivered";
		snprintf(in->message, sizeof(in->message), "%s", in->http_why);
		goto out;
	}
	doc = ps_doc_build(report, views);
	reply = malloc(REPLY_MAX);
	if (!doc || !reply) {
		ps_doc_free(doc);
		free(reply);
		in->status = "not_delivered";
		snprintf(in->message, sizeof(in->message), "out of memory");
		goto out;
	}
	extra = ps_inspector_extra(doc, inv, run);
	snprintf(line, sizeof(line), "inspector: sending the inventory and %zu verdicts to %s",
		 count_verdicts(extra), in->url);
	if (say)
		say(arg, false, line);
	body = ps_inspector_data(inv, boot, extra);
	text = json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN);
	ps_retry_init(&retry, ps_retry_seed(inv->machine.id));
	for (;;) {
		struct ps_http_result res;
		size_t got = REPLY_MAX;
		char node[40];
		int ret;

		in->tries++;
		in->bytes = strlen(text);
		ret = ps_http_post(&in->http, in->url, "application/json", text, in->bytes, reply,
				   &got, &res);
		in->http_status = res.status;
		ps_inspector_reply(reply, got, node, sizeof(node), said, sizeof(said));
		if (ret == 0) {
			in->status = "delivered";
			in->at = time(NULL);
			in->message[0] = '\0';
			if (node[0]) {
				snprintf(in->node, sizeof(in->node), "%s", node);
				snprintf(in->node_from, sizeof(in->node_from), "inspector");
			}
			ok = true;
			break;
		}
		if (!explain(in, &res, said, in->message, sizeof(in->message))) {
			in->status = res.fail == PS_HTTP_AUTH || res.fail == PS_HTTP_REFUSED
					 ? "refused"
					 : "not_delivered";
			break;
		}
		if (say && strcmp(last, in->message) != 0) {
			snprintf(last, sizeof(last), "%s", in->message);
			snprintf(line, sizeof(line), "inspector: %s", in->message);
			say(arg, true, line);
		}
		{
			double now = ps_mono_now(), delay = ps_retry_fail(&retry, now);

			if (now + delay > end) {
				in->status = "not_delivered";
				size_t n = strlen(in->message);

				snprintf(in->message + n, sizeof(in->message) - n,
					 "; gave up after %lu tries", in->tries);
				break;
			}
			usleep((useconds_t)(delay * 1e6));
		}
	}
	json_object_put(body);
	ps_doc_free(doc);
	free(reply);
out:
	if (say) {
		if (ok)
			snprintf(line, sizeof(line),
				 "inspector: delivered to %s: this machine is Ironic node %s",
				 in->url,
				 in->node[0] ? in->node : "(the inspector did not name it)");
		else
			snprintf(line, sizeof(line), "inspector: NOT delivered: %s", in->message);
		say(arg, !ok, line);
	}
	ps_inspector_annotate(in, report);
	return ok;
}

void ps_inspector_free(struct ps_inspector *in)
{
	if (!in)
		return;
	if (in->http_ok)
		ps_http_close(&in->http);
	free(in);
}
