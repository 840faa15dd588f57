/*
 * test_render_text.c - report.txt from recorded report.json files, against
 * checked-in expected text (golden files), plus the properties every
 * rendering keeps: 80 columns, no trailing blanks, valid UTF-8, the verdict
 * block on the first screen, every step's figures present. UPDATE_GOLDEN=1
 * rewrites the expected files (then read the diff before committing).
 */
#include "check.h"
/* link: steps */
#include "core/plan.h"
#include "lib/util.h"
#include "report/doc.h"
#include "report/report.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIR_REPORTS FIXTURES "/core/reports"

static void check_lines(const char *name, const char *text)
{
	int line = 1, col = 0;
	bool trailing = false;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			if (col > 80 || trailing) {
				fprintf(stderr, "%s line %d: %d columns%s\n", name, line, col,
					trailing ? ", trailing blank" : "");
				CHECK(0);
			}
			line++;
			col = 0;
			continue;
		}
		/* count characters, not UTF-8 continuation bytes */
		if (((unsigned char)*p & 0xc0) != 0x80)
			col++;
		trailing = *p == ' ';
		CHECK((unsigned char)*p >= 0x20 || *p == '\t');
	}
	{
		char *clean = ps_text_clean_dup(text, strlen(text), "\n\t");

		CHECK_STR(clean, text); /* already valid UTF-8, no control bytes */
		free(clean);
	}
}

/* The first 24 lines (one screen) hold the verdict block. */
static void check_first_screen(const char *name, const char *text)
{
	const char *p = text;

	for (int i = 0; i < 24 && p; i++) {
		if (strncmp(p, "Verdicts\n", 9) == 0)
			return;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	fprintf(stderr, "%s: no verdict block on the first screen\n", name);
	CHECK(0);
}

static void golden(const char *name)
{
	char json_path[512], txt_path[512], err[1024];
	json_object *r;
	char *text, *want;
	size_t len;
	int ret;

	snprintf(json_path, sizeof(json_path), "%s/%s.json", DIR_REPORTS, name);
	snprintf(txt_path, sizeof(txt_path), "%s/%s.txt", DIR_REPORTS, name);
	{
		char dir[512], *data;
		size_t dlen;

		/* through the loader: the same path show and compare take */
		snprintf(dir, sizeof(dir), "%s/tests/golden-%d",
			 getenv("OUT") ? getenv("OUT") : "out", (int)getpid());
		CHECK_INT(ps_read_all(json_path, &data, &dlen), 0);
		CHECK_INT(ps_mkdirs(dir, 0755), 0);
		CHECK_INT(ps_write_atomic(dir, "report.json", data, dlen), 0);
		free(data);
		ret = ps_report_load(dir, &r, err, sizeof(err));
		CHECK_INT(ret, 0);
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", name, err);
			return;
		}
	}
	text = ps_report_text(r, ps_views(), 0);
	check_lines(name, text);
	check_first_screen(name, text);
	if (getenv("UPDATE_GOLDEN")) {
		CHECK_INT(
		    ps_write_atomic(DIR_REPORTS, strrchr(txt_path, '/') + 1, text, strlen(text)),
		    0);
	} else if (ps_read_all(txt_path, &want, &len) == 0) {
		if (strcmp(want, text) != 0) {
			char out[600];
			FILE *f;

			snprintf(out, sizeof(out), "%s/tests/%s.got.txt",
				 getenv("OUT") ? getenv("OUT") : "out", name);
			f = fopen(out, "w");
			if (f) {
				fputs(text, f);
				fclose(f);
			}
			fprintf(stderr, "%s: the rendering differs from %s (got: %s)\n", name,
				txt_path, out);
			CHECK(0);
		}
		free(want);
	} else {
		fprintf(stderr, "%s: no expected %s (UPDATE_GOLDEN=1 writes it)\n", name, txt_path);
		CHECK(0);
	}
	free(text);
	json_object_put(r);
}

/* Properties of the healthy run that the golden text must keep showing. */
static void test_healthy_figures(void)
{
	char *data, *text;
	size_t len;
	json_object *r;

	CHECK_INT(ps_read_all(DIR_REPORTS "/healthy-v2.json", &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	CHECK(r != NULL);
	text = ps_report_text(r, ps_views(), 0);
	/* smart: per drive its health and the counts that decided it */
	CHECK(strstr(text, "ATA SMART") && strstr(text, "NVMe health log"));
	CHECK(strstr(text, "vda    auto: /dev/vda: Unable to detect device type") != NULL);
	/* disk_read: per drive the headline, the matrix with its spread, latency both sides */
	CHECK(strstr(text, "Read speed") != NULL);
	CHECK(strstr(text, "min-max") && strstr(text, "cv %") && strstr(text, "p99"));
	CHECK(strstr(text, "nvme0n1  seq   1M   8  882~") != NULL);
	CHECK(strstr(text, "nvme0n1  rand  4K  32") != NULL);
	CHECK(strstr(text, "Latency of every read, user side") && strstr(text, "Disk requests"));
	/* the step summary carries each step's headline figures */
	CHECK(strstr(text, "disk_read    pass        19.8 s  nvme0n1 882 MB/s 21959 IOPS") != NULL);
	free(text);
	text = ps_report_text(r, ps_views(), PS_TEXT_VERDICTS);
	CHECK(strncmp(text, "\nVerdicts\n", 10) == 0);
	CHECK(strstr(text, "pass 3 drives: nvme0n1, sda, vda") != NULL);
	CHECK(strstr(text, "Read matrix") == NULL);
	free(text);
	json_object_put(r);
}

/* The NIC steps of a recorded two-guest run (tests/boot/test_nic_peer_pair's client). */
static void test_nic_figures(void)
{
	char *data, *text;
	size_t len;
	json_object *r;

	CHECK_INT(ps_read_all(DIR_REPORTS "/nic-peer-v2.json", &data, &len), 0);
	r = json_tokener_parse(data);
	free(data);
	CHECK(r != NULL);
	text = ps_report_text(r, ps_views(), 0);
	/* nic_loop: each way and both at once, share of the link, the CPU it cost */
	CHECK(strstr(text, "eth0 -> eth1") && strstr(text, "both ways") && strstr(text, "link %") &&
	      strstr(text, "top core"));
	/* mtu: the peer path with seed 003's figures */
	CHECK(strstr(text, "eth3 <-> 198.51.100.1") && strstr(text, "4074") &&
	      strstr(text, "4046"));
	/* net_storage: the three figures side by side */
	CHECK(strstr(text, "local disk") && strstr(text, "raw TCP") && strstr(text, "end to end"));
	/* nic_link: negotiation and the plan's counters */
	CHECK(strstr(text, "best common") && strstr(text, "by steps"));
	free(text);
	json_object_put(r);
}

/* report.txt of a report given as JSON text, held to check_lines(); "" when it does not parse. */
static char *render_checked(const char *js, const char *name)
{
	json_object *r = json_tokener_parse(js);
	char *text;

	CHECK(r != NULL);
	if (!r)
		return strdup("");
	text = ps_report_text(r, ps_views(), 0);
	check_lines(name, text);
	json_object_put(r);
	return text;
}

/* A report with wrong types everywhere renders, with - for what it cannot use. */
static void test_wrong_types(void)
{
	char *text = render_checked(
	    "{\"schema_version\":2,\"plan\":7,\"pcie\":{},\"drives\":[1,\"x\",{}],"
	    "\"nics\":[{\"speed_mbps\":\"fast\"}],\"steps\":[null,{\"name\":\"disk_seq\","
	    "\"data_version\":2,\"data\":{\"drives\":[{\"name\":5,\"results\":\"many\"}]},"
	    "\"findings\":[7,{\"severity\":\"warn\"}],\"verdicts\":[{\"kind\":\"drive\"}]},"
	    "{\"name\":\"inventory\",\"data_version\":1}]}",
	    "wrong types");

	CHECK(strstr(text, "Drives") != NULL);
	free(text);
}

/*
 * Nothing measured is never called pass: a port whose link nic_link read but
 * that nic_loop and mtu could not test (the only NIC of an installed system,
 * in use), and a drive no smartctl type answered, are listed as not tested
 * with why; skipped steps are named.
 */
static void test_not_tested(void)
{
	json_object *r = json_tokener_parse(
	    "{\"schema_version\":2,\"plan\":\"quick\",\"complete\":true,\"steps\":["
	    "{\"name\":\"smart\",\"status\":\"skipped\",\"reason\":\"no drive answered\","
	    "\"findings\":[],\"verdicts\":[{\"kind\":\"drive\",\"device\":\"drive:a\","
	    "\"subject\":\"sda\",\"status\":\"untested\",\"rule\":\"smart.not_tested\","
	    "\"message\":\"no SMART data: the USB bridge passes no SMART commands\"}]},"
	    "{\"name\":\"nic_loop\",\"status\":\"skipped\",\"reason\":\"no port pair\","
	    "\"findings\":[],\"verdicts\":[{\"kind\":\"nic\",\"device\":\"nic:1\",\"subject\":"
	    "\"eth0\",\"status\":\"untested\",\"rule\":\"nic_loop.not_tested\",\"message\":"
	    "\"in use: has address 198.18.0.1/24\"}]},"
	    "{\"name\":\"mtu\",\"status\":\"skipped\",\"reason\":\"no path\",\"findings\":[],"
	    "\"verdicts\":[{\"kind\":\"nic\",\"device\":\"nic:1\",\"subject\":\"eth0\","
	    "\"status\":\"untested\",\"rule\":\"mtu.not_tested\",\"message\":\"in use\"}]},"
	    "{\"name\":\"nic_link\",\"status\":\"pass\",\"findings\":[],\"verdicts\":["
	    "{\"kind\":\"nic\",\"device\":\"nic:1\",\"subject\":\"eth0\",\"status\":\"pass\","
	    "\"rule\":\"nic_link.link\",\"message\":\"link up at 1000 Mb/s full\"}]}]}");
	struct ps_doc *doc;
	char *text;

	CHECK(r != NULL);
	text = ps_report_text(r, ps_views(), 0);
	check_lines("not tested", text);
	/* the checks read the wrapped lines joined again */
	for (char *p = text, *q = text;; p++) {
		if (*p == '\n' && p[1] == ' ') {
			while (p[1] == ' ')
				p++;
			*p = ' ';
		}
		if (!(*q++ = *p))
			break;
	}
	CHECK(strstr(text, "pass 1 nic") == NULL);
	CHECK(strstr(text, "NOT TESTED nic eth0 by nic_loop, mtu: in use: has address "
			   "198.18.0.1/24 (nic_link passed what it measured)") != NULL);
	CHECK(strstr(text, "NOT TESTED drive sda by smart: no SMART data: the USB bridge") != NULL);
	CHECK(strstr(text, "NOT RUN smart, nic_loop, mtu") != NULL);
	free(text);
	doc = ps_doc_build(r, ps_views());
	CHECK(doc && doc->nverdicts == 2);
	for (size_t i = 0; doc && i < doc->nverdicts; i++)
		CHECK(!ps_doc_verdict_passed(&doc->verdicts[i]));
	ps_doc_free(doc);
	json_object_put(r);
}

/* Strings from devices reach the text escaped: no terminal control gets through. */
static void test_hostile_strings(void)
{
	char *text =
	    render_checked("{\"schema_version\":2,\"plan\":\"quick\",\"complete\":true,\"machine\":"
			   "{\"vendor\":\"ACME\\u001b[2J\",\"product\":\"\\u0007box\"},"
			   "\"warnings\":[\"bad \\u001b[31mred\"],\"steps\":[]}",
			   "hostile");

	CHECK(strstr(text, "\\x1b[2J") != NULL);
	CHECK(strstr(text, "\\x1b[31mred") != NULL);
	free(text);
}

/* Numbers a damaged report may hold, in the formats that turn them into integers. */
static void test_cell_extremes(void)
{
	struct ps_col block = {.path = "/x", .title = "x", .fmt = PS_FMT_BLOCK};
	struct ps_col secs = {.path = "/x", .title = "x", .fmt = PS_FMT_SECONDS};
	struct ps_cell c = {.type = PS_CELL_NUM, .num = 1e300};
	char buf[64];

	ps_cell_text(&c, &block, buf, sizeof(buf), false);
	CHECK_STR(buf, "18446744073709551615");
	ps_cell_text(&c, &secs, buf, sizeof(buf), false);
	CHECK_STR(buf, "1e+300 s");
	c.num = NAN;
	ps_cell_text(&c, &secs, buf, sizeof(buf), false);
	CHECK_STR(buf, "nan s");
	c.num = 3600.0 * 5000000; /* 5e6 h: the minutes are taken modulo the hour */
	ps_cell_text(&c, &secs, buf, sizeof(buf), false);
	CHECK_STR(buf, "5000000 h 00 min");
	c.num = 65536;
	ps_cell_text(&c, &block, buf, sizeof(buf), false);
	CHECK_STR(buf, "64K");
}

/*
 * The Steps table: the names' column as wide as the longest name (no status
 * pushed out of its column by disk_aggregate), and a step whose time the
 * report does not hold shows "?", never 0.0 s.
 */
static void test_step_table(void)
{
	char *text =
	    render_checked("{\"schema_version\":2,\"plan\":\"quick\",\"complete\":true,\"steps\":["
			   "{\"name\":\"inventory\",\"status\":\"pass\",\"duration_s\":1.4},"
			   "{\"name\":\"disk_aggregate\",\"status\":\"fail\"},"
			   "{\"name\":\"smart\",\"status\":\"pass\",\"duration_s\":0}]}",
			   "step table");

	CHECK(strstr(text, "\ninventory      pass         1.4 s") != NULL);
	CHECK(strstr(text, "\ndisk_aggregate FAIL             ?") != NULL);
	CHECK(strstr(text, "\nsmart          pass         0.0 s") != NULL);
	CHECK(strstr(text, "disk_aggregate FAIL         0.0 s") == NULL);
	CHECK(strstr(text, "\ndisk_aggregate: fail\n") != NULL);
	CHECK(strstr(text, "disk_aggregate: fail (") == NULL);
	if (!strstr(text, "\ndisk_aggregate FAIL             ?"))
		fprintf(stderr, "%s\n", text);
	free(text);
}

/*
 * A table of numbers whose heads are wider than the values (array's md
 * table: 93 columns before) fits 79: the heads that gain most go on two
 * lines, every value stays whole.
 */
static void test_split_heads(void)
{
	static const char *const lv[] = {"1, 619.5, 1470.0, 831.3, 1424.7, 0.2, 327.6",
					 "5, 246.6, 1515.1, 294.7, 259.7, 0.8, 81.6"};
	char js[4096];
	size_t o = 0;
	char *text, *sec;

	o += (size_t)snprintf(js + o, sizeof(js) - o,
			      "{\"schema_version\":2,\"plan\":\"custom\",\"complete\":true,"
			      "\"steps\":[{\"name\":\"array\",\"status\":\"pass\","
			      "\"data_version\":1,\"data\":{\"levels\":[");
	for (size_t i = 0; i < PS_ARRAY_SIZE(lv); i++) {
		double v[7];

		CHECK_INT(sscanf(lv[i], "%lf, %lf, %lf, %lf, %lf, %lf, %lf", &v[0], &v[1], &v[2],
				 &v[3], &v[4], &v[5], &v[6]),
			  7);
		o += (size_t)snprintf(
		    js + o, sizeof(js) - o,
		    "%s{\"level\":%.0f,\"status\":\"done\",\"healthy\":{\"seq_write_mbps\":%.1f,"
		    "\"seq_read_mbps\":%.1f},\"degraded\":{\"seq_write_mbps\":%.1f,"
		    "\"seq_read_mbps\":%.1f},\"rebuild\":{\"seconds\":%.1f,\"mbps\":%.1f}}",
		    i ? "," : "", v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
	}
	snprintf(js + o, sizeof(js) - o, "]}}]}");
	text = render_checked(js, "split heads");
	sec = strstr(text, "\narray: pass");
	CHECK(sec != NULL);
	/* every line of the step within 79 columns */
	for (const char *p = sec ? sec + 1 : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n > 79)
			fprintf(stderr, "split heads: a line of %zu: %.*s\n", n, (int)n, p);
		CHECK(n <= 79);
		p += n + (nl ? 1 : 0);
	}
	/* the heads on two lines, the second under the first; the values whole */
	CHECK(
	    strstr(
		text,
		"          write             deg write  deg read\n"
		"    RAID   MB/s  read MB/s       MB/s      MB/s  rebuild  rebuild MB/s  status\n"
		"       1  619.5     1470.0      831.3    1424.7    0.2 s         327.6  done\n") !=
	    NULL);
	CHECK(strstr(text, "~") == NULL);
	free(text);
}

int main(void)
{
	DIR *d = opendir(DIR_REPORTS);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char name[256];

		if (len < 9 || strcmp(e->d_name + len - 8, "-v2.json") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), e->d_name);
		golden(name);
		n++;
	}
	if (d)
		closedir(d);
	CHECK(n >= 2);
	test_healthy_figures();
	test_nic_figures();
	test_wrong_types();
	test_hostile_strings();
	test_not_tested();
	test_cell_extremes();
	test_step_table();
	test_split_heads();
	return check_done("test_render_text");
}
