/*
 * test_compare.c - compare over recorded report pairs: identical runs, one
 * real change, a change within the runs' spread, a different machine, a
 * missing device, an old schema, and damaged files (a clear error, no crash).
 */
#include "check.h"
/* link: steps */
#include "core/plan.h"
#include "lib/util.h"
#include "report/compare.h"
#include "lib/json.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPORTS FIXTURES "/core/reports"

static char base[512];

static json_object *fixture(const char *name)
{
	char path[600], *data;
	size_t len;
	json_object *r;

	snprintf(path, sizeof(path), "%s/%s", REPORTS, name);
	if (ps_read_all(path, &data, &len) < 0)
		return NULL;
	r = json_tokener_parse(data);
	free(data);
	return r;
}

/* A folder below the test's, for one run: it lives as long as the test. */
static char *folder(const char *dir)
{
	static char paths[32][600];
	static int next;
	char *p = paths[next++ % 32];

	snprintf(p, 600, "%s/%s", base, dir);
	return p;
}

/* report as dir/report.json below the test's folder; returns the folder. */
static const char *save(const char *dir, json_object *r)
{
	char *p = folder(dir);
	const char *text = ps_report_json_text(r);

	CHECK_INT(ps_mkdirs(p, 0755), 0);
	CHECK_INT(ps_write_atomic(p, "report.json", text, strlen(text)), 0);
	return p;
}

static const char *save_raw(const char *dir, const char *fixture_name)
{
	char *p = folder(dir), src[600], *data;
	size_t len;

	snprintf(src, sizeof(src), "%s/%s", REPORTS, fixture_name);
	CHECK_INT(ps_mkdirs(p, 0755), 0);
	CHECK_INT(ps_read_all(src, &data, &len), 0);
	CHECK_INT(ps_write_atomic(p, "report.json", data, len), 0);
	free(data);
	return p;
}

struct result {
	struct ps_cmp *c;
	char *text;
	char *html;
	struct ps_doc *docs[PS_CMP_MAX_RUNS];
	size_t n;
};

static struct result run(const char *const *dirs, size_t n)
{
	struct result r = {.n = n};
	char err[2048];

	CHECK_INT(ps_compare_load(dirs, n, ps_views(), r.docs, err, sizeof(err)), 0);
	r.c = ps_compare((const struct ps_doc *const *)r.docs, dirs, n);
	CHECK(r.c != NULL);
	if (!r.c)
		return r;
	r.text = ps_compare_text(r.c);
	r.html = ps_compare_html(r.c);
	return r;
}

static void done(struct result *r)
{
	free(r->text);
	free(r->html);
	ps_compare_free(r->c);
	for (size_t i = 0; i < r->n; i++)
		ps_doc_free(r->docs[i]);
}

/* Every line of the text within 80 columns, no trailing blank. */
static void check_text(const char *t)
{
	int col = 0;
	bool blank = false;

	for (const char *p = t; *p; p++) {
		if (*p == '\n') {
			CHECK(col <= 80 && !blank);
			col = 0;
			continue;
		}
		if (((unsigned char)*p & 0xc0) != 0x80)
			col++;
		blank = *p == ' ';
	}
}

static const struct ps_cmp_figure *figure(const struct ps_cmp *c, const char *section,
					  const char *row, const char *title)
{
	for (size_t i = 0; i < c->nfig; i++)
		if (strcmp(c->fig[i].section, section) == 0 && strcmp(c->fig[i].row, row) == 0 &&
		    strcmp(c->fig[i].col->title, title) == 0)
			return &c->fig[i];
	return NULL;
}

/* data.drives[] entry of disk_read by name */
static json_object *seq_drive(json_object *rep, const char *name)
{
	json_object *steps = ps_json_arr(rep, "steps");

	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *d = ps_json_arr(ps_json_get(ps_json_at(steps, i), "data"), "drives");

		if (strcmp(ps_json_str_or(ps_json_at(steps, i), "name", ""), "disk_read"))
			continue;
		for (size_t k = 0; k < ps_json_len(d); k++)
			if (strcmp(ps_json_str_or(ps_json_at(d, k), "name", ""), name) == 0)
				return ps_json_at(d, k);
	}
	return NULL;
}

static void test_identical(void)
{
	json_object *a = fixture("healthy-v2.json");
	const char *dirs[] = {save("same-a", a), save("same-b", a)};
	struct result r = run(dirs, 2);

	CHECK(r.c && r.c->same_machine);
	CHECK_INT(r.c->worse, 0);
	CHECK_INT(r.c->better, 0);
	CHECK_INT(r.c->noise, 0);
	CHECK_INT(r.c->unjudged, 0);
	CHECK_INT(r.c->missing_devices, 0);
	CHECK_INT(r.c->env_changed, 0);
	CHECK_INT(r.c->verdict_changes, 0);
	CHECK(r.c->ndev >= 10); /* 3 drives, 2 NICs, 5 links */
	CHECK(strstr(r.text, "in every run (matched by stable identity)") != NULL);
	CHECK(strstr(r.text, "0 figures worse and 0 better") != NULL);
	CHECK(strstr(r.text, "none: firmware, kernel") != NULL);
	check_text(r.text);
	done(&r);
	json_object_put(a);
}

static void test_within_noise(void)
{
	/* two recorded runs on the same emulated machine, the second without the module */
	const char *dirs[] = {save_raw("noise-a", "healthy-v2.json"),
			      save_raw("noise-b", "nomodule-v2.json")};
	struct result r = run(dirs, 2);
	const struct ps_cmp_figure *f;

	CHECK(r.c && r.c->same_machine);
	/* the drives' figures all changed within their runs' spread */
	CHECK_INT(r.c->worse, 0);
	/* the recorded nic_tput (eth0 -> eth1, 71 then 161 Mbit/s, better) has no view since
	 * it became nic_loop: its figures are not compared */
	CHECK_INT(r.c->better, 0);
	for (size_t i = 0; r.c && i < r.c->nfig; i++) {
		CHECK(strcmp(r.c->fig[i].section, "nic_tput") != 0);
		CHECK(r.c->fig[i].mark != PS_CMP_WORSE && r.c->fig[i].mark != PS_CMP_BETTER);
	}
	CHECK(r.c->noise >= 5);
	CHECK_INT(r.c->missing_devices, 0);
	/* sda read 619 then 243 MB/s: -61%, but the runs spanned 190-737 and 201-313 */
	f = figure(r.c, "disk_read", "sda seq 1M qd 8", "MB/s");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->v[1].mark, PS_CMP_NOISE);
		CHECK(fabs(f->v[1].change_pct + 60.7) < 0.1);
	}
	/* a latency with no spread is shown, not judged */
	f = figure(r.c, "disk_read", "sda seq 1M qd 8", "p99");
	CHECK(f && f->v[1].mark == PS_CMP_UNJUDGED);
	/* what differs in the conditions: the module */
	CHECK(r.c->env_changed >= 1);
	CHECK(strstr(r.text, "module: A loaded, B not loaded") != NULL);
	CHECK(strstr(r.text, "%  WORSE") == NULL);
	check_text(r.text);
	/* the page leads with what changed; what no spread judges comes last, collapsed */
	{
		const char *lead = strstr(r.html, "Worse or better beyond the runs' spread: 0"),
			   *devs = strstr(r.html, "<h2>Devices and verdicts</h2>"),
			   *noise = strstr(r.html, "Changed within the runs' spread: "),
			   *unj = strstr(r.html, "<details id=\"part-3\"><summary>Not judged");

		CHECK(lead && devs && noise && unj && lead < devs && devs < noise && noise < unj);
		/* devices by the label on the desk, the stable id only as the row's title */
		CHECK(strstr(r.html, "<td>QEMU HARDDISK S/N PS-SATA-0001 (sda)</td>") != NULL);
		CHECK(strstr(r.html, "<td>pcie:") == NULL);
		CHECK(strstr(r.html, "<td>drive:") == NULL);
	}
	done(&r);
}

static void test_real_change(void)
{
	json_object *a = fixture("healthy-v2.json"), *b = fixture("healthy-v2.json"), *res;
	const char *dirs[2];
	struct result r;
	const struct ps_cmp_figure *f;

	/* A steady nvme0n1 at 882 MB/s, then a steady one at 400: beyond the spread */
	res = ps_json_at(ps_json_arr(seq_drive(a, "nvme0n1"), "results"), 0);
	ps_json_set_num(res, "min_mbps", 870, 1);
	ps_json_set_num(res, "max_mbps", 890, 1);
	ps_json_set_num(res, "cv_pct", 1.2, 1);
	res = ps_json_at(ps_json_arr(seq_drive(b, "nvme0n1"), "results"), 0);
	ps_json_set_num(res, "median_mbps", 400, 1);
	ps_json_set_num(res, "min_mbps", 380, 1);
	ps_json_set_num(res, "max_mbps", 420, 1);
	ps_json_set_num(res, "cv_pct", 2.0, 1);
	dirs[0] = save("real-a", a);
	dirs[1] = save("real-b", b);
	r = run(dirs, 2);
	CHECK_INT(r.c->worse, 1);
	CHECK_INT(r.c->better, 0);
	f = figure(r.c, "disk_read", "nvme0n1 seq 1M qd 8", "MB/s");
	CHECK(f && f->v[1].mark == PS_CMP_WORSE && f->mark == PS_CMP_WORSE);
	CHECK(f && fabs(f->v[1].change_pct + 54.6) < 0.1);
	CHECK(strstr(r.text, "nvme0n1 seq 1M qd 8 MB/s") != NULL);
	CHECK(strstr(r.text, "-54.6%  WORSE") != NULL);
	CHECK(strstr(r.text, "1 figure worse") != NULL);
	CHECK(strstr(r.html, "<svg class=\"chart\"") != NULL);
	check_text(r.text);
	done(&r);
	/* the other way round it is better (MB/s: higher is better) */
	{
		const char *back[] = {dirs[1], dirs[0]};

		r = run(back, 2);
		CHECK_INT(r.c->worse, 0);
		CHECK_INT(r.c->better, 1);
		done(&r);
	}
	json_object_put(a);
	json_object_put(b);
}

/*
 * Compare judges a figure once: no two listed figures are one device's equal
 * values in every run (a headline repeated by the matrix), and figures of one
 * row measured by the same runs (one CV) carry one mark.
 */
static void check_judged_once(const struct ps_cmp *c)
{
	for (size_t i = 0; c && i < c->nfig; i++) {
		const struct ps_cmp_figure *f = &c->fig[i];

		if (f->same_as || f->env || f->mark == PS_CMP_SAME)
			continue;
		for (size_t k = i + 1; k < c->nfig; k++) {
			const struct ps_cmp_figure *g = &c->fig[k];
			bool equal = f->dev[0] && strcmp(f->dev, g->dev) == 0;

			if (g->same_as || g->env || g->mark == PS_CMP_SAME)
				continue;
			for (size_t j = 0; equal && j < c->nruns; j++)
				equal = f->v[j].present && g->v[j].present &&
					f->v[j].cell.type == PS_CELL_NUM &&
					g->v[j].cell.type == PS_CELL_NUM &&
					f->v[j].cell.num == g->v[j].cell.num;
			CHECK(!equal);
			if (g->block == f->block && strcmp(g->key, f->key) == 0 && f->col->spread &&
			    g->col->spread && strcmp(f->col->spread, g->col->spread) == 0 &&
			    f->col->better == g->col->better)
				CHECK_INT(g->mark, f->mark);
		}
	}
}

static void test_judged_once(void)
{
	json_object *a = fixture("healthy-v2.json"), *b = fixture("healthy-v2.json");
	json_object *dr[2] = {seq_drive(a, "sda"), seq_drive(b, "sda")};
	static const double mbps[2][4] = {{711.1, 525.0, 757.6, 14.3}, {37.0, 27.3, 39.4, 14.3}};
	const char *dirs[2];
	struct result r;
	const struct ps_cmp_figure *f;

	/* sda at 711 MB/s, then 37 (-94.8%): the headline and the matrix hold one median */
	for (int k = 0; k < 2; k++) {
		json_object *res = ps_json_at(ps_json_arr(dr[k], "results"), 0);

		ps_json_set_num(res, "median_mbps", mbps[k][0], 1);
		ps_json_set_num(res, "min_mbps", mbps[k][1], 1);
		ps_json_set_num(res, "max_mbps", mbps[k][2], 1);
		ps_json_set_num(res, "cv_pct", mbps[k][3], 1);
		ps_json_set_num(res, "median_iops", k ? 35 : 678, 0);
		ps_json_set_num(dr[k], "seq_mbps", mbps[k][0], 1);
	}
	dirs[0] = save("once-a", a);
	dirs[1] = save("once-b", b);
	r = run(dirs, 2);
	check_judged_once(r.c);
	f = figure(r.c, "disk_read", "sda seq 1M qd 8", "MB/s");
	CHECK(f && f->mark == PS_CMP_WORSE && !f->same_as);
	/* its IOPS: the same runs, the same judgement, not "within spread" or "not judged" */
	f = figure(r.c, "disk_read", "sda seq 1M qd 8", "IOPS");
	CHECK(f && f->mark == PS_CMP_WORSE);
	/* the headline's copy is not listed a second time as "not judged" */
	CHECK(strstr(r.text, "-94.8%  not judged") == NULL);
	CHECK(strstr(r.text, "-94.8%  WORSE") != NULL);
	check_text(r.text);
	done(&r);
	json_object_put(a);
	json_object_put(b);
}

static void test_missing_device(void)
{
	json_object *a = fixture("healthy-v2.json"), *b = fixture("healthy-v2.json");
	json_object *steps = ps_json_arr(b, "steps");
	const char *dirs[2];
	struct result r;

	/* vda gone from the second run: from the inventory, the steps and their verdicts */
	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *s = ps_json_at(steps, i), *v = ps_json_arr(s, "verdicts"), *kept;
		json_object *d = ps_json_arr(ps_json_get(s, "data"), "drives");

		kept = json_object_new_array();
		for (size_t k = 0; k < ps_json_len(v); k++)
			if (strcmp(ps_json_str_or(ps_json_at(v, k), "subject", ""), "vda"))
				json_object_array_add(kept, json_object_get(ps_json_at(v, k)));
		ps_json_set(s, "verdicts", kept);
		v = ps_json_arr(s, "findings");
		kept = json_object_new_array();
		for (size_t k = 0; k < ps_json_len(v); k++)
			if (strcmp(ps_json_str_or(ps_json_at(v, k), "subject", ""), "vda"))
				json_object_array_add(kept, json_object_get(ps_json_at(v, k)));
		ps_json_set(s, "findings", kept);
		for (size_t k = ps_json_len(d); k-- > 0;)
			if (strcmp(ps_json_str_or(ps_json_at(d, k), "name", ""), "vda") == 0)
				json_object_array_del_idx(d, k, 1);
	}
	{
		json_object *inv = ps_json_arr(b, "drives");

		for (size_t k = ps_json_len(inv); k-- > 0;)
			if (strcmp(ps_json_str_or(ps_json_at(inv, k), "name", ""), "vda") == 0)
				json_object_array_del_idx(inv, k, 1);
	}
	dirs[0] = save("miss-a", a);
	dirs[1] = save("miss-b", b);
	r = run(dirs, 2);
	CHECK_INT(r.c->missing_devices, 1);
	/* by model and serial, as report/label.h names it, not by its raw id */
	CHECK(strstr(r.text, "MISSING virtio disk S/N PSVIRT0001 (vda): only in A") != NULL);
	CHECK(strstr(r.text, "only in A") != NULL);
	/* its figures are listed as missing, not as changes */
	CHECK_INT(r.c->worse, 0);
	CHECK(r.c->missing_rows >= 1);
	check_text(r.text);
	done(&r);
	json_object_put(a);
	json_object_put(b);
}

static void test_other_machine_and_old_schema(void)
{
	/* full.json: schema 1, a Dell PowerEdge; healthy-v2: schema 2, a QEMU guest */
	const char *dirs[] = {save_raw("other-a", "healthy-v2.json"),
			      save_raw("other-b", "full.json")};
	const char *old[2];
	struct result r = run(dirs, 2);

	CHECK(r.c && !r.c->same_machine);
	CHECK(strstr(r.text, "of different machines") != NULL);
	CHECK(strstr(r.text, "matched by name") != NULL);
	CHECK(r.c->missing_devices > 0); /* none of the QEMU guest's drives is in the Dell */
	check_text(r.text);
	done(&r);
	/* an old schema against itself: read, nothing changed */
	old[0] = save_raw("old-a", "full.json");
	old[1] = save_raw("old-b", "full.json");
	r = run(old, 2);
	CHECK(r.c && r.c->same_machine);
	CHECK_INT(r.c->worse + r.c->better + r.c->missing_devices + r.c->env_changed, 0);
	done(&r);
}

static void test_three_runs(void)
{
	const char *dirs[] = {save_raw("three-a", "healthy-v2.json"),
			      save_raw("three-b", "nomodule-v2.json"),
			      save_raw("three-c", "healthy-v2.json")};
	struct result r = run(dirs, 3);

	CHECK_INT(r.c->nruns, 3);
	CHECK(strstr(r.text, "  C  2026-12-01T12:23:46Z") != NULL);
	CHECK(strstr(r.text, ", C ") != NULL);
	check_text(r.text);
	done(&r);
}

static void test_damaged(void)
{
	struct ps_doc *docs[PS_CMP_MAX_RUNS];
	char err[2048];
	const char *good = save_raw("dmg-good", "healthy-v2.json");
	const char *dirs[2] = {good, NULL};
	json_object *newer = fixture("healthy-v2.json");

	dirs[1] = save_raw("dmg-trunc", "truncated.json");
	CHECK(ps_compare_load(dirs, 2, ps_views(), docs, err, sizeof(err)) < 0);
	CHECK(strstr(err, "dmg-trunc") && strstr(err, "not valid JSON"));
	CHECK(docs[0] == NULL && docs[1] == NULL);
	ps_json_set(newer, "schema_version", json_object_new_int(PS_SCHEMA_VERSION + 1));
	dirs[1] = save("dmg-newer", newer);
	CHECK(ps_compare_load(dirs, 2, ps_views(), docs, err, sizeof(err)) < 0);
	CHECK(strstr(err, "use a newer probestick") != NULL);
	dirs[1] = "/nonexistent/probestick/run";
	CHECK(ps_compare_load(dirs, 2, ps_views(), docs, err, sizeof(err)) < 0);
	CHECK(strstr(err, "holds no report") != NULL);
	/* one run is no comparison */
	CHECK(ps_compare(NULL, NULL, 1) == NULL);
	json_object_put(newer);
}

int main(void)
{
	snprintf(base, sizeof(base), "%s/tests/compare-%d", getenv("OUT") ? getenv("OUT") : "out",
		 (int)getpid());
	test_identical();
	test_within_noise();
	test_real_change();
	test_judged_once();
	test_missing_device();
	test_other_machine_and_old_schema();
	test_three_runs();
	test_damaged();
	return check_done("test_compare");
}
