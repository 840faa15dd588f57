/*
 * test_ocp.c - the OCP export of recorded reports: one artifact per line in
 * sequence, a report cut after any step gives a prefix of the finished
 * one's lines (so the serial stream can send each step's lines as it ends),
 * the stream sends exactly the file's lines, validators from the findings'
 * limits, diagnoses from verdicts. tests/build/test_ocp_schema.sh checks the
 * same lines against the JSON schema.
 */
#include "check.h"
/* link: steps */
#include "core/plan.h"
#include "lib/util.h"
#include "lib/json.h"
#include "report/ocp.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPORTS FIXTURES "/core/reports"

static json_object *fixture(const char *name)
{
	char path[600], *data;
	size_t len;
	json_object *r;

	snprintf(path, sizeof(path), "%s/%s", REPORTS, name);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	return r;
}

/* The report as it was on the stick after its first k steps. */
static json_object *cut(json_object *full, size_t k)
{
	json_object *r = json_tokener_parse(json_object_to_json_string(full));
	json_object *steps = ps_json_arr(r, "steps");

	json_object_array_del_idx(steps, k, json_object_array_length(steps) - k);
	ps_json_set(r, "complete", json_object_new_boolean(0));
	return r;
}

static size_t lines(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

static const char *line_with(const char *t, const char *needle)
{
	const char *p = strstr(t, needle);

	while (p && p > t && p[-1] != '\n')
		p--;
	return p;
}

static void test_lines(void)
{
	json_object *r = fixture("healthy-v2.json");
	char *t = ps_ocp_text(r, ps_views());
	size_t n = lines(t), i = 0;
	const char *p = t;

	CHECK(n > 50);
	while (*p) {
		const char *nl = strchr(p, '\n');
		char *one = strndup(p, (size_t)(nl - p));
		json_object *a = json_tokener_parse(one);
		int64_t seq = -1;

		free(one);
		CHECK(a && json_object_is_type(a, json_type_object));
		CHECK(ps_json_int(a, "sequenceNumber", &seq) && seq == (int64_t)i);
		CHECK(ps_json_str(a, "timestamp") != NULL);
		json_object_put(a);
		i++;
		p = nl + 1;
	}
	CHECK(strncmp(t, "{\"sequenceNumber\":0,", 20) == 0 &&
	      strstr(t, "\"schemaVersion\":{\"major\":2,\"minor\":0}"));
	CHECK(strstr(line_with(t, "testRunStart"), "\"sequenceNumber\":1,") != NULL);
	/* every device of the inventory, with the ids the steps' measurements use */
	CHECK(strstr(t, "{\"hardwareInfoId\":\"drive:wwn:nvme.1b36-50534e564d4530303031-"
			"51454d55204e564d65204374726c-00000001\",\"name\":\"nvme0n1\"") != NULL);
	CHECK(strstr(t, "\"hardwareInfoId\":\"drive:sn:QEMU_HARDDISK:PS-SATA-0001\"") != NULL);
	CHECK(strstr(t, "\"hardwareInfoId\":\"pcie:0000:02:00.0:1b36:0010\"") != NULL);
	CHECK(strstr(t, "\"partType\":\"dimm\"") != NULL);
	/* one step per plan step */
	CHECK(strstr(t, "\"testStepStart\":{\"name\":\"disk_read\"}") != NULL);
	CHECK(strstr(t, "\"testStepId\":\"2\",\"testStepEnd\":{\"status\":\"COMPLETE\"}") != NULL);
	/* a figure of a view, with its unit, device and spread */
	p = line_with(t, "\"name\":\"disk_read.matrix.median_mbps\",\"value\":881.7");
	CHECK(p && strstr(p, "\"unit\":\"MB/s\",\"hardwareInfoId\":\"drive:wwn:nvme.1b36-"));
	CHECK(p && strstr(p, "\"row\":\"nvme0n1 seq 1M qd 8\""));
	CHECK(p && strstr(p, "\"min\":662.5,\"max\":2429.4,\"noisy\":true"));
	/* a finding's limit as a validator: the CV above 20 %, the speed below 500 Mbit/s */
	CHECK(strstr(t, "\"validators\":[{\"name\":\"disk_read.unstable_throughput\",\"type\":"
			"\"LESS_THAN_OR_EQUAL\",\"value\":20}]") != NULL);
	CHECK(strstr(t, "\"validators\":[{\"name\":\"nic_tput.slow\",\"type\":"
			"\"GREATER_THAN_OR_EQUAL\",\"value\":500}]") != NULL);
	/* series: the per-core load over the step, elements timed from the step's start */
	CHECK(strstr(t, "\"measurementSeriesStart\":{\"name\":\"nic_tput.load.busy.cpu 1\"") !=
	      NULL);
	CHECK(strstr(t, "\"index\":0,\"value\":4.1,\"timestamp\":\"2026-12-01T12:24:17.000Z\"") !=
	      NULL);
	/* verdicts as diagnoses; the run passed */
	CHECK(
	    strstr(t, "\"diagnosis\":{\"verdict\":\"disk_read.measured-pass\",\"type\":\"PASS\"") !=
	    NULL);
	CHECK(strstr(line_with(t, "testRunEnd"),
		     "\"testRunEnd\":{\"status\":\"COMPLETE\",\"result\":\"PASS\"}") != NULL);
	CHECK(line_with(t, "testRunEnd") + strlen(line_with(t, "testRunEnd")) == t + strlen(t));
	free(t);
	json_object_put(r);
}

static void test_prefix(void)
{
	json_object *full = fixture("healthy-v2.json");
	char *all = ps_ocp_text(full, ps_views());

	/* the first write is after the inventory, the first step */
	for (size_t k = 1; k <= 3; k++) {
		json_object *r = cut(full, k);
		char *t = ps_ocp_text(r, ps_views());

		/* what a cut-off run leaves: a prefix of the finished run's lines, no run end */
		CHECK(strncmp(t, all, strlen(t)) == 0);
		CHECK(strstr(t, "testRunEnd") == NULL);
		CHECK(lines(t) >= 2 + 2 * k);
		free(t);
		json_object_put(r);
	}
	free(all);
	json_object_put(full);
}

static void test_stream(void)
{
	json_object *full = fixture("healthy-v2.json");
	char path[512], *got, *want = ps_ocp_text(full, ps_views()), *w;
	struct ps_ocp_stream s = {.fd = -1};
	size_t len;

	snprintf(path, sizeof(path), "%s/tests/ocp-stream-%d",
		 getenv("OUT") ? getenv("OUT") : "out", (int)getpid());
	s.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(s.fd >= 0);
	for (size_t k = 1; k <= 3; k++) {
		json_object *r = cut(full, k);

		CHECK_INT(ps_ocp_stream_update(&s, r, ps_views()), 0);
		CHECK_INT(ps_ocp_stream_update(&s, r, ps_views()),
			  0); /* nothing new: nothing sent */
		json_object_put(r);
	}
	CHECK_INT(ps_ocp_stream_update(&s, full, ps_views()), 0);
	CHECK_INT(s.lines, lines(want));
	close(s.fd);
	CHECK_INT(ps_read_all(path, &got, &len), 0);
	/* the same lines, each on a line of its own behind a CR LF */
	w = want;
	for (char *p = got; *p;) {
		size_t n;

		while (*p == '\r' || *p == '\n')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "\r\n");
		CHECK(strncmp(p, w, n) == 0 && w[n] == '\n');
		w += n + 1;
		p += n;
	}
	CHECK(*w == '\0');
	free(got);
	free(want);
	unlink(path);
	/* a stream with no line to write to */
	s = (struct ps_ocp_stream){.fd = -1};
	CHECK(ps_ocp_stream_update(&s, full, ps_views()) < 0);
	json_object_put(full);
}

static void test_fail_and_error(void)
{
	json_object *r = fixture("healthy-v2.json"), *steps = ps_json_arr(r, "steps");
	json_object *v = ps_json_at(ps_json_arr(ps_json_at(steps, 2), "verdicts"), 0);
	char *t;

	ps_json_set_str(v, "status", "fail");
	ps_json_set_str(ps_json_at(steps, 4), "status", "error");
	ps_json_set_str(ps_json_at(steps, 4), "reason", "iperf failed: Connection refused");
	ps_json_set_str(ps_json_at(steps, 0), "status", "skipped");
	t = ps_ocp_text(r, ps_views());
	CHECK(
	    strstr(t, "\"diagnosis\":{\"verdict\":\"disk_read.measured-fail\",\"type\":\"FAIL\"") !=
	    NULL);
	CHECK(strstr(t, "\"error\":{\"symptom\":\"nic_tput\",\"message\":\"iperf failed: "
			"Connection refused\"}") != NULL);
	CHECK(strstr(t, "\"testStepId\":\"4\",\"testStepEnd\":{\"status\":\"ERROR\"}") != NULL);
	CHECK(strstr(t, "\"testStepId\":\"0\",\"testStepEnd\":{\"status\":\"SKIP\"}") != NULL);
	CHECK(strstr(t, "\"testRunEnd\":{\"status\":\"COMPLETE\",\"result\":\"FAIL\"}") != NULL);
	free(t);
	json_object_put(r);
}

int main(void)
{
	test_lines();
	test_prefix();
	test_stream();
	test_fail_and_error();
	return check_done("test_ocp");
}
