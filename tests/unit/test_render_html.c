/*
 * test_render_html.c - report.html from recorded reports, and from a report
 * with a step the renderer has never heard of (a histogram and a surface map
 * through its view): one self-contained page, verdicts first with rule,
 * value and limit, a chart per view hint, degraded links marked, every
 * string escaped, valid UTF-8, a reasonable size.
 */
#include "check.h"
/* link: steps */
#include "core/plan.h"
#include "lib/util.h"
#include "report/doc.h"
#include "report/html.h"
#include "lib/json.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Nothing the page could fetch: no src, no external link, no CSS url() or import. */
static void check_self_contained(const char *html)
{
	CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
	CHECK(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'") != NULL);
	CHECK(strstr(html, " src=") == NULL);
	CHECK(strstr(html, "<link") == NULL);
	CHECK(strstr(html, "url(") == NULL);
	CHECK(strstr(html, "@import") == NULL);
	CHECK(strstr(html, "href=\"http") == NULL);
	CHECK(strstr(html, "href=\"//") == NULL);
	CHECK_INT(count(html, "<script"), 1); /* the self-check, nothing else */
	CHECK(strstr(html, "id=\"selfcheck\" data-result=\"pending\"") != NULL);
	{
		char *clean = ps_text_clean_dup(html, strlen(html), "\n\t");

		CHECK_STR(clean, html);
		free(clean);
	}
}

static void test_healthy(void)
{
	json_object *r = fixture("healthy-v2.json");
	char *html = ps_report_html(r, ps_views());
	const char *verdicts = strstr(html, "<h2>Verdicts</h2>"),
		   *steps = strstr(html, "<h2>Steps");

	check_self_contained(html);
	CHECK(verdicts && steps && verdicts < steps);
	/* bars with min-max whiskers: disk_read (the recorded nic_tput has no view now); per
	 * step that ran (inventory, smart, disk_read, nic_tput) per-core busy and IRQ rate, and
	 * one chart per kind of probe histogram the step recorded (at most 4) */
	CHECK(count(html, "<svg class=\"chart\"") >= 2 + 3 * 2);
	CHECK(count(html, "<svg class=\"chart\"") <= 2 + 4 * (2 + 4));
	CHECK(strstr(html, "aria-label=\"IRQ handler time\"") != NULL);
	CHECK(strstr(html, "MB/s per drive: the figure, and its range over the runs") != NULL);
	CHECK(strstr(html, "class=\"wh\"") != NULL);  /* a whisker */
	CHECK(strstr(html, ">cpu 1</text>") != NULL); /* the legend of the per-core lines */
	CHECK(strstr(html, "<h2>disk_read <span class=\"st pass\">pass</span> 19.8 s</h2>") !=
	      NULL);
	CHECK(strstr(html, "<td class=\"n\">882</td>") != NULL);
	/* device ids ride along as row titles, not as columns */
	CHECK(strstr(html, "<tr title=\"drive:sn:QEMU_HARDDISK:PS-SATA-0001\">") != NULL);
	/* a finding's value rounded by its unit, not "61.6358 %" */
	CHECK(strstr(html, "(value 62 %, limit 20 %)") != NULL);
	CHECK(strstr(html, "61.6358") == NULL);
	/* a 0.2 s step's load, sampled once: a note, not a nearly empty chart */
	CHECK(strstr(html, "CPU busy per core over the step: 1 point, too few to draw") != NULL);
	/* five steps, four with load and probe charts: 209 kB (the recorded quick plan) */
	CHECK(strlen(html) < 256 * 1024);
	printf("healthy-v2 report.html: %zu bytes\n", strlen(html));
	free(html);
	json_object_put(r);
}

/* Numbers that come with only a unit, rounded as a person reads that unit. */
static void test_num_text(void)
{
	static const struct {
		double v;
		const char *unit, *want;
	} cases[] = {
	    {27.7591, "%", "28 %"},	 {4.25, "%", "4.2 %"},
	    {20, "%", "20 %"},		 {275.9302, "Mbit/s", "276 Mbit/s"},
	    {49.94, "C", "49.9 C"},	 {0.1438, NULL, "0.14"},
	    {0.5, "s", "0.5 s"},	 {3.7, "GB/s", "3.7 GB/s"},
	    {42, "frames", "42 frames"}, {NAN, "%", "-"},
	    {-12.345, "dB", "-12.3 dB"},
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ps_num_text(cases[i].v, cases[i].unit, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].want);
	}
}

/* ---- a step no renderer knows: a histogram and a surface map through its view ---- */

static const struct ps_col hist_cols[] = {
    {.path = "/name", .title = "line"},
    {.path = "/lower_ns", .title = "latency", .fmt = PS_FMT_NS},
    {.path = "/count", .title = "count"},
};

static const struct ps_col map_cols[] = {
    {.path = "/name", .title = "drive"},
    {.path = "/pos_pct", .title = "position", .unit = "%"},
    {.path = "/lat_us", .title = "latency", .fmt = PS_FMT_US, .better = PS_BETTER_LOWER},
};

static const struct ps_col zone_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/state", .title = "state", .bad = "slow"},
    {.path = "/ms", .title = "worst", .unit = "ms", .decimals = 1},
};

static const struct ps_block test_blocks[] = {
    {.kind = PS_BLOCK_SERIES,
     .id = "hist",
     .title = "Interrupt latency",
     .rows = "/lines",
     .nested = "/buckets",
     .cols = PS_COLS(hist_cols),
     .series = PS_SERIES_LOGHIST,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "map",
     .title = "Read latency over the drive",
     .rows = "/drives",
     .nested = "/map",
     .cols = PS_COLS(map_cols),
     .series = PS_SERIES_MAP,
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_TABLE, .id = "zones", .rows = "/drives", .cols = PS_COLS(zone_cols)},
};

static const struct ps_view test_view = {
    .name = "surface_test", .version = 1, .blocks = PS_BLOCKS(test_blocks)};

static json_object *surface_step(void)
{
	const char *json =
	    "{\"name\":\"surface_test\",\"status\":\"warn\",\"started\":\"2026-12-01T09:31:00Z\","
	    "\"duration_s\":12.5,\"data_version\":1,"
	    "\"findings\":[{\"severity\":\"warn\",\"rule\":\"surface_test.slow_zone\",\"kind\":"
	    "\"drive\",\"device\":\"drive:sn:QEMU HARDDISK:PS-SATA-0001\",\"subject\":\"sda\","
	    "\"message\":\"a slow zone at 40% & more <here>\",\"value\":12.5,\"limit\":10,"
	    "\"unit\":\"ms\"}],"
	    "\"verdicts\":[{\"kind\":\"drive\",\"device\":\"drive:sn:QEMU HARDDISK:PS-SATA-0001\","
	    "\"subject\":\"sda\",\"status\":\"warn\",\"rule\":\"surface_test.slow_zone\","
	    "\"message\":\"a slow zone at 40%\",\"value\":12.5,\"limit\":10,\"unit\":\"ms\"}],"
	    "\"data\":{\"lines\":[{\"name\":\"ahci\",\"buckets\":[{\"lower_ns\":1024,\"count\":3},"
	    "{\"lower_ns\":2048,\"count\":40},{\"lower_ns\":4096,\"count\":12},{\"lower_ns\":"
	    "131072,\"count\":1}]},{\"name\":\"nvme0q1\",\"buckets\":[{\"lower_ns\":512,"
	    "\"count\":9}]}],"
	    "\"drives\":[{\"name\":\"sda\",\"state\":\"slow\",\"ms\":12.5,\"map\":[{\"pos_pct\":0,"
	    "\"lat_us\":900},{\"pos_pct\":20,\"lat_us\":950},{\"pos_pct\":40,\"lat_us\":12500},"
	    "{\"pos_pct\":60,\"lat_us\":1000},{\"pos_pct\":80,\"lat_us\":980}]},"
	    "{\"name\":\"vda\",\"state\":\"ok\",\"ms\":1.1,\"map\":[{\"pos_pct\":0,\"lat_us\":300},"
	    "{\"pos_pct\":50,\"lat_us\":320}]}]}}";

	return json_tokener_parse(json);
}

static void test_unknown_step(void)
{
	json_object *r = fixture("healthy-v2.json"), *pcie = ps_json_arr(r, "pcie");
	const struct ps_view_set *all = ps_views();
	const struct ps_view *list[32];
	struct ps_view_set set = {.v = list};
	struct ps_doc *doc;
	char *html;
	const char *v, *s;

	for (size_t i = 0; i < all->n && set.n < 31; i++)
		list[set.n++] = all->v[i];
	list[set.n++] = &test_view;
	json_object_array_add(ps_json_arr(r, "steps"), surface_step());
	/* one link trained below what both ends support */
	ps_json_set_str(ps_json_at(pcie, 11), "verdict", "degraded");
	json_object_array_put_idx(ps_json_arr(r, "warnings"), 0,
				  json_object_new_string("<script>alert('x')</script>"));
	doc = ps_doc_build(r, &set);
	html = ps_render_html(doc);
	check_self_contained(html);
	/* the WARN verdict on top, with its rule, value and limit */
	v = strstr(html, "<tr class=\"v-warn\"");
	s = strstr(html, "<h2>Steps");
	CHECK(v && s && v < s);
	CHECK(strstr(html, "<td class=\"rule\">surface_test.slow_zone</td><td class=\"n\">12.5 "
			   "ms</td><td class=\"n\">10 ms</td>") != NULL);
	/* the busiest histograms overlaid on one log-scale chart, a heat strip per drive */
	CHECK(strstr(html, ">ahci</text>") && strstr(html, ">nvme0q1</text>")); /* legend */
	CHECK(strstr(html, "aria-label=\"Interrupt latency\"") != NULL);
	CHECK(strstr(html, "aria-label=\"Read latency over the drive\"") != NULL);
	CHECK(strstr(html, ">1.00 us</text>") != NULL); /* a power-of-ten tick of the log axis */
	/* the slow zone in the hottest colour, beside the scale's end */
	CHECK_INT(count(html, "fill=\"#7f0000\""), 2);
	CHECK(count(html, "<svg class=\"chart\"") >= 2 + 3 * 2 + 1 + 1);
	/* marked rows: the slow zone and the degraded link */
	CHECK(count(html, "<tr class=\"bad\"") >= 2);
	/* escaped everywhere: a warning, a finding's message */
	CHECK(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != NULL);
	CHECK(strstr(html, "a slow zone at 40% &amp; more &lt;here&gt;") != NULL);
	CHECK(strstr(html, "<script>alert") == NULL);
	/* for tests/build/test_html_browser.sh: this page in a real browser */
	{
		char dir[512];

		snprintf(dir, sizeof(dir), "%s/tests/html", getenv("OUT") ? getenv("OUT") : "out");
		CHECK_INT(ps_mkdirs(dir, 0755), 0);
		CHECK_INT(ps_write_atomic(dir, "surface.html", html, strlen(html)), 0);
	}
	free(html);
	ps_doc_free(doc);
	json_object_put(r);
}

static void test_incomplete(void)
{
	json_object *r = fixture("healthy-v2.json");
	char *html;

	ps_json_set(r, "complete", json_object_new_boolean(0));
	ps_json_set_str(r, "running_step", "nic_tput");
	html = ps_report_html(r, ps_views());
	CHECK(strstr(html, "INCOMPLETE: the run stopped during nic_tput") != NULL);
	CHECK(strstr(html, "(incomplete)</title>") != NULL);
	free(html);
	json_object_put(r);
}

int main(void)
{
	test_num_text();
	test_healthy();
	test_unknown_step();
	test_incomplete();
	return check_done("test_render_html");
}
