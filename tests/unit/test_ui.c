/*
 * test_ui.c - what the console shows of a plan, fed a recorded report: every
 * line within 80 columns on a serial line and on the VGA console (whose bar
 * redraws with CR), the headline figures on each step's line, the reason of
 * a warning, the summary with the verdicts and where the report went.
 */
#include "check.h"
#include "flat.h"
/* link: steps */
#include "cli/ui.h"
#include "core/plan.h"
#include "report/doc.h"
#include "lib/util.h"
#include "lib/json.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_object *load_fixture(const char *name)
{
	char path[256], *data;
	size_t len;
	json_object *r;

	snprintf(path, sizeof(path), FIXTURES "/core/reports/%s", name);
	CHECK_INT(ps_read_all(path, &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	return r;
}

/* Every line (split at LF and CR: a redrawn bar is its own line) fits 79 columns. */
static int check_width(const char *what, const char *text)
{
	int col = 0, longest = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			col = 0;
			continue;
		}
		if (*p == '\033') { /* our own ESC[K and ESC[?7h take no column */
			while (*p && !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
				p++;
			if (!*p)
				break;
			continue;
		}
		if (((unsigned char)*p & 0xc0) != 0x80)
			col++;
		if (col > longest)
			longest = col;
	}
	if (longest > 79)
		fprintf(stderr, "%s: a line of %d columns\n", what, longest);
	CHECK(longest <= 79);
	return longest;
}

static void test_lines(void)
{
	struct ps_progress_state p = {.step_index = 1,
				      .n_steps = 3,
				      .step = "disk_seq",
				      .phase = "nvme0n1 a very long phase name that goes on 1M QD8",
				      .done = 400000000,
				      .total = 1000000000,
				      .unit = "B",
				      .rate = 412e6,
				      .eta_s = 3725};
	char buf[256];
	size_t n;

	n = ps_ui_progress_line(&p, true, true, buf, sizeof(buf));
	CHECK(n < 80 && strlen(buf) == n);
	CHECK(strstr(buf, " 40%") && strstr(buf, "412 MB/s") && strstr(buf, "ETA 1:02:05"));
	CHECK(strstr(buf, "########........") != NULL);
	n = ps_ui_progress_line(&p, false, true, buf, sizeof(buf));
	CHECK(n < 80 && strstr(buf, "40% (400 of 1000 MB)") && strstr(buf, "1:02:05 left"));
	p.unit = "ms";
	p.done = 2000;
	p.total = 6000;
	p.rate = NAN;
	p.eta_s = 4;
	ps_ui_progress_line(&p, false, false, buf, sizeof(buf));
	CHECK(strstr(buf, "33% (2 of 6 s)") && strstr(buf, "0:04 left"));
	p.total = 0; /* unknown total: no percentage, no bar */
	ps_ui_progress_line(&p, true, false, buf, sizeof(buf));
	CHECK(strstr(buf, "  0%") != NULL);
	p.phase = "starting stress-ng"; /* and on serial: what was done, no "of 0" */
	p.unit = "s";
	p.done = 7;
	p.rate = 1.0;
	p.eta_s = NAN;
	ps_ui_progress_line(&p, false, false, buf, sizeof(buf));
	CHECK_STR(buf, "  starting stress-ng: 7 s, 1.0 s/s");
	n = ps_ui_result_line(1, 3, "disk_seq", 10, "warn", 4.12,
			      "nvme0n1 1965 MB/s, sda 523 MB/s, vda 2399 MB/s, sdc 120 MB/s, "
			      "sdd 99 MB/s",
			      buf, sizeof(buf));
	CHECK(strlen(buf) == n);
	CHECK(strncmp(buf, "[2/3] disk_seq   WARN      4.1 s  nvme0n1 1965 MB/s", 51) == 0);
	/* nothing cut: the figures go on below, at a word */
	CHECK(strstr(buf, "\n      ") && strstr(buf, "sdd 99 MB/s") && !strstr(buf, "..."));
	CHECK(strchr(buf, '\n') - buf <= 79);
	/* a plan with disk_aggregate: every name in one column of its width; a
	 * time not known is "?" */
	ps_ui_result_line(4, 12, "disk_aggregate", 14, "fail", 14.3, "seq 1M qd 8", buf,
			  sizeof(buf));
	CHECK_STR(buf, "[5/12] disk_aggregate FAIL     14.3 s  seq 1M qd 8");
	ps_ui_result_line(5, 12, "memory", 14, "skipped", NAN, "", buf, sizeof(buf));
	CHECK_STR(buf, "[6/12] memory         skipped       ?");
}

/* A whole plan through the UI callbacks, on a plain and on a fancy terminal. */
static char *play_fixture(const char *fixture, bool fancy)
{
	json_object *r = load_fixture(fixture), *steps = ps_json_arr(r, "steps");
	const struct ps_step_ops *ops_of[16];
	size_t n = 0, k = 0;
	char path[] = "/tmp/test_ui.XXXXXX", *text;
	struct ps_console con;
	struct ps_ui ui;
	struct ps_run_result res = {0};
	size_t n_all;
	const struct ps_step_ops *const *all = ps_registry(&n_all);
	struct ps_plan_info plan = {"quick", PS_PLAN_QUICK};
	size_t len;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	ps_console_stdio(&con, -1, fd);
	con.t[0].fancy = fancy;
	ps_ui_init(&ui, &con, false);
	/* The recorded run's steps that this probestick still has (a renamed one is left out). */
	for (size_t i = 0; i < ps_json_len(steps) && n < 16; i++)
		if (ps_step_find(all, n_all, ps_json_str_or(ps_json_at(steps, i), "name", "")))
			ops_of[n++] = ps_step_find(
			    all, n_all, ps_json_str_or(ps_json_at(steps, i), "name", ""));
	ui.ops.plan_start(ui.ops.arg, &plan, ops_of, n);
	ui.ops.report(ui.ops.arg, r); /* the devices named as report/label.h does */
	ui.ops.estimate(ui.ops.arg, 26);
	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *s = ps_json_at(steps, i);
		const struct ps_step_ops *ops =
		    ps_step_find(all, n_all, ps_json_str_or(s, "name", ""));
		size_t idx = k;
		struct ps_progress_state p = {.step_index = idx,
					      .n_steps = n,
					      .step = ops ? ops->name : "?",
					      .phase = "sda 1M QD8",
					      .done = 5,
					      .total = 10,
					      .unit = "B",
					      .rate = 1e6,
					      .eta_s = 5};

		if (!ops)
			continue;
		k++;
		ui.ops.step_start(ui.ops.arg, idx, n, ops);
		ui.last_plain -= 10; /* a plain line is due */
		ui.ops.progress(ui.ops.arg, &p);
		ui.ops.step_end(ui.ops.arg, idx, n, ops, s);
	}
	ui.ops.notice(ui.ops.arg, PS_SEV_WARN,
		      "only 96 KiB free where the report goes (/stick/reports); this plan's report "
		      "needs about 340 KiB: it may not be saved complete");
	snprintf(res.dir, sizeof(res.dir), "/stick/reports/525400500001/20261201T093042Z-quick");
	snprintf(res.saved, sizeof(res.saved), "report.json and report.txt, all written");
	res.count[PS_PASS] = 3;
	res.json_complete = true;
	res.report = r;
	ps_ui_summary(&ui, &res, true, 1);
	close(fd);
	CHECK_INT(ps_read_all(path, &text, &len), 0);
	unlink(path);
	if (getenv("UI_DEBUG"))
		fprintf(stderr, "%s", text);
	check_width(fancy ? "fancy" : "plain", text);
	{
		char want[64]; /* the recorded steps this probestick still has */

		snprintf(want, sizeof(want), "probestick: plan quick, %zu steps", n);
		CHECK(strstr(text, want) != NULL);
	}
	CHECK(strstr(text, "the remaining steps take about 26 s") != NULL);
	CHECK(strstr(text, "WARNING: only 96 KiB free") != NULL);
	CHECK(strstr(text, "Saved: report.json and report.txt, all written") != NULL);
	CHECK(strstr(text, "done in") && strstr(text, ": 3 pass"));
	if (fancy)
		CHECK(strstr(text, "\r  sda 1M QD8") && strstr(text, "\033[K"));
	else
		CHECK(strstr(text, "\r") == NULL && strstr(text, "\033") == NULL);
	json_object_put(r);
	return text;
}

static void play(bool fancy)
{
	char *text = play_fixture("healthy-v2.json", fancy);

	/* the recorded nic_tput step is now nic_loop: the four others */
	CHECK(strstr(text, "probestick: plan quick, 4 steps") != NULL);
	CHECK(strstr(text,
		     "[2/4] smart      pass      3.1 s  sda health pass, nvme0n1 health pass") !=
	      NULL);
	CHECK(strstr(text, "[3/4] disk_read  pass     19.8 s  nvme0n1 882 MB/s 21959 IOPS") !=
	      NULL);
	CHECK(strstr(text, "[4/4] disk_write skipped") != NULL);
	CHECK(strstr(text, "nic_tput") == NULL);
	CHECK(strstr(text, "No FAIL or WARN: every device examined passed.") != NULL);
	free(text);
	/* the recorded disk_seq step is left out: disk_read took its place; the
	 * names' column as wide as net_storage */
	text = play_fixture("nic-peer-v2.json", fancy);
	CHECK(strstr(text, "probestick: plan quick, 6 steps") != NULL);
	CHECK(strstr(text,
		     "[2/6] nic_loop    pass     43.6 s  eth0 -> eth1 one way str 1 12 Mbit/s") !=
	      NULL);
	CHECK(strstr(text, "[4/6] mtu         WARN     43.1 s") != NULL);
	free(text);
}

/* A report whose disk_read failed nfail drives (and warned one NIC), aborted burnin. */
static json_object *failing_report(int nfail)
{
	json_object *r = json_object_new_object(), *drives = json_object_new_array();
	json_object *steps = json_object_new_array(), *vs = json_object_new_array();
	json_object *s = json_object_new_object(), *b = json_object_new_object();
	char name[16], serial[32], dev[64], msg[300];

	json_object_object_add(r, "schema_version", json_object_new_int(2));
	json_object_object_add(r, "complete", json_object_new_boolean(1));
	json_object_object_add(r, "plan", json_object_new_string("quick"));
	for (int i = 0; i < nfail; i++) {
		json_object *d = json_object_new_object(), *v = json_object_new_object();

		snprintf(name, sizeof(name), "sd%c", 'a' + i);
		snprintf(serial, sizeof(serial), "PS-FAIL-%04d", i);
		snprintf(dev, sizeof(dev), "drive:serial:%s", serial);
		json_object_object_add(d, "name", json_object_new_string(name));
		json_object_object_add(d, "id", json_object_new_string(dev));
		json_object_object_add(d, "model", json_object_new_string("QEMU HARDDISK"));
		json_object_object_add(d, "serial", json_object_new_string(serial));
		json_object_array_add(drives, d);
		snprintf(msg, sizeof(msg),
			 "a read failed at 32 MiB (I/O error): the drive cannot return what it "
			 "stored there; replace it and restore from backup %d",
			 i);
		json_object_object_add(v, "kind", json_object_new_string("drive"));
		json_object_object_add(v, "device", json_object_new_string(dev));
		json_object_object_add(v, "subject", json_object_new_string(name));
		json_object_object_add(v, "status", json_object_new_string("fail"));
		json_object_object_add(v, "rule", json_object_new_string("disk_read.read_error"));
		json_object_object_add(v, "message", json_object_new_string(msg));
		json_object_array_add(vs, v);
	}
	json_object_object_add(r, "drives", drives);
	json_object_object_add(s, "name", json_object_new_string("disk_read"));
	json_object_object_add(s, "status", json_object_new_string("fail"));
	json_object_object_add(s, "verdicts", vs);
	json_object_array_add(steps, s);
	json_object_object_add(b, "name", json_object_new_string("nic_coalesce"));
	json_object_object_add(b, "status", json_object_new_string("aborted"));
	json_object_object_add(
	    b, "reason",
	    json_object_new_string("aborted by a key: 5 of 7 coalescing settings not measured"));
	json_object_array_add(steps, b);
	json_object_object_add(r, "steps", steps);
	return r;
}

/* The end screen: every FAIL while they fit 23 lines, the most severe first when not. */
static void test_end_screen(void)
{
	unsigned int count[PS_ABORTED + 1] = {0};
	struct ps_end_info in = {.plan = "quick",
				 .took_s = 72,
				 .count = count,
				 .dir = "/stick/reports/525400500001/20261201T093042Z-quick",
				 .saved =
				     "report.json, report.txt, report.html and report.ocp.jsonl, "
				     "all written"};

	count[PS_FAIL] = 1;
	count[PS_ABORTED] = 1;
	for (int nfail = 1; nfail <= 25; nfail++) {
		json_object *r = failing_report(nfail);
		struct ps_doc *doc = ps_doc_build(r, ps_views());
		char *text = ps_ui_end_screen(doc, &in, 23), want[64], *flat_text;
		int lines = 0, shown = 0;

		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		CHECK(lines <= 23);
		check_width("end screen", text);
		/* the lines run on: a sentence wrapped at a word reads whole */
		flat_text = flat(strdup(text));
		for (int i = 0; i < nfail; i++) {
			snprintf(want, sizeof(want), "QEMU HARDDISK S/N PS-FAIL-%04d (sd%c)", i,
				 'a' + i);
			shown += strstr(text, want) != NULL;
		}
		/* an abort never reads as a complete plan; what it left out is said */
		CHECK(strstr(text, "ended, not in full") && !strstr(text, "complete"));
		CHECK(strstr(text, "Report: /stick/reports/") != NULL);
		if (strstr(text, "more (")) {
			snprintf(want, sizeof(want), "%d more (", nfail + 1 - shown);
			CHECK(strstr(text, want) != NULL);
			CHECK(strstr(text, "press v") != NULL);
			CHECK(shown >= 15); /* the fails first, one line each when need be */
		} else {
			CHECK_INT(shown, nfail);
			CHECK(strstr(flat_text, "5 of 7 coalescing settings not") != NULL);
		}
		if (nfail <= 3) /* room for all: reason, advice and rule whole */
			CHECK(strstr(flat_text, "replace it and restore from backup") &&
			      strstr(flat_text, "[disk_read.read_error]") &&
			      strstr(flat_text, "5 of 7 coalescing settings not measured"));
		if ((nfail == 2 || nfail == 25) && getenv("UI_DEBUG"))
			fprintf(stderr, "%s", text);
		CHECK(nfail > 15 || !strstr(text, "more ("));
		free(flat_text);
		free(text);
		ps_doc_free(doc);
		json_object_put(r);
	}
}

int main(void)
{
	test_lines();
	test_end_screen();
	play(false);
	play(true);
	return check_done("test_ui");
}
