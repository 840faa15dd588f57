/*
 * test_fleet.c - a collector's tree as a fleet: four machines of one model
 * (copies of a recorded report), one of them with a drive far slower than
 * the others beyond the runs' spread, a fifth of another model, a sixth
 * whose run is still streaming (report.ocp.jsonl only). compare --fleet
 * flags the slow one and only it; the index's machines table lists each
 * machine once, the failing one first, the streaming one as incomplete.
 */
#include "check.h"
/* link: steps */
#include "core/plan.h"
#include "lib/util.h"
#include "report/fleet_compare.h"
#include "report/index.h"
#include "lib/json.h"
#include "report/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char base[512];

static json_object *fixture(void)
{
	char *data;
	size_t len;
	json_object *r;

	if (ps_read_all(FIXTURES "/core/reports/healthy-v2.json", &data, &len) < 0)
		return NULL;
	r = json_tokener_parse(data);
	free(data);
	return r;
}

static json_object *seq_result(json_object *rep, const char *drive)
{
	json_object *steps = ps_json_arr(rep, "steps");

	for (size_t i = 0; i < ps_json_len(steps); i++) {
		json_object *d = ps_json_arr(ps_json_get(ps_json_at(steps, i), "data"), "drives");

		if (strcmp(ps_json_str_or(ps_json_at(steps, i), "name", ""), "disk_read") != 0)
			continue;
		for (size_t k = 0; k < ps_json_len(d); k++)
			if (strcmp(ps_json_str_or(ps_json_at(d, k), "name", ""), drive) == 0)
				return ps_json_at(ps_json_arr(ps_json_at(d, k), "results"), 0);
	}
	return NULL;
}

/* A machine's run below the tree: the fixture with its id, model and nvme0n1 seq MB/s. */
static struct ps_doc *machine(const char *id, const char *product, double mbps, json_object **keep)
{
	json_object *r = fixture(), *res = seq_result(r, "nvme0n1");
	char dir[700];
	const char *text;

	ps_json_set_str(r, "machine_id", id);
	ps_json_set_str(ps_json_get(r, "machine"), "product", product);
	ps_json_set_num(res, "median_mbps", mbps, 1);
	ps_json_set_num(res, "min_mbps", mbps - 10, 1);
	ps_json_set_num(res, "max_mbps", mbps + 10, 1);
	ps_json_set_num(res, "cv_pct", 1.0, 1);
	snprintf(dir, sizeof(dir), "%s/%s/20261201T0930%02dZ-quick", base, id, (int)(mbps) % 60);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	text = ps_report_json_text(r);
	CHECK_INT(ps_write_atomic(dir, "report.json", text, strlen(text)), 0);
	*keep = r;
	return ps_doc_build(r, ps_views());
}

int main(void)
{
	json_object *keep[5];
	struct ps_doc *docs[5];
	const char *labels[5] = {"m1", "m2", "m3", "slow", "other"};
	struct ps_fleet_cmp *fc;
	struct ps_index idx;
	char *text, dir[700];

	snprintf(base, sizeof(base), "/tmp/probestick-test-fleet-%d", (int)getpid());
	docs[0] = machine("m1", "R740", 882, &keep[0]);
	docs[1] = machine("m2", "R740", 876, &keep[1]);
	docs[2] = machine("m3", "R740", 889, &keep[2]);
	docs[3] = machine("slow", "R740", 400, &keep[3]);
	docs[4] = machine("other", "R640", 300, &keep[4]);

	fc = ps_fleet_compare((const struct ps_doc *const *)docs, 5);
	CHECK(fc != NULL);
	CHECK_INT(fc->ngroups, 2);
	CHECK(strstr(fc->groups[0].model, "R740") != NULL);
	CHECK_INT(fc->groups[0].n, 4);
	CHECK_INT(fc->groups[1].n, 1);
	/* the slow one, for that figure alone; the other three within their spread */
	CHECK_INT(fc->groups[0].nodd, 1);
	if (fc->groups[0].nodd == 1) {
		const struct ps_fleet_odd *o = &fc->groups[0].odd[0];

		CHECK_INT(o->machine, 3);
		CHECK(strstr(o->figure, "nvme0n1") && strstr(o->figure, "MB/s"));
		CHECK(fabs(o->value - 400) < 0.01);
		CHECK(fabs(o->median - 882) < 0.01);
		CHECK_INT(o->beyond, 3);
		CHECK_INT(o->of, 3);
		CHECK_INT(o->worse, 1);
	}
	text = ps_fleet_compare_text(fc, labels);
	CHECK(strstr(text, "slow differs from the others of its model beyond their spread:") !=
	      NULL);
	CHECK(strstr(text, "WORSE") != NULL);
	CHECK(strstr(text, "m1: within the others' spread") != NULL);
	CHECK(strstr(text, "R640: 1 machine") != NULL);
	for (char *l = text; *l;) {
		size_t n = strcspn(l, "\n");

		CHECK(n <= 80);
		l += n + (l[n] ? 1 : 0);
	}
	free(text);
	ps_fleet_compare_free(fc);

	/* two machines alone: counted, not blamed */
	{
		const struct ps_doc *two[2] = {docs[0], docs[3]};
		const char *l2[2] = {"m1", "slow"};

		fc = ps_fleet_compare(two, 2);
		CHECK_INT(fc->groups[0].nodd, 0);
		CHECK_INT(fc->groups[0].pair_differences, 1);
		text = ps_fleet_compare_text(fc, l2);
		CHECK(
		    strstr(text, "1 figure differs beyond the runs' spread between m1 and slow") !=
		    NULL);
		CHECK(strstr(text, "which one is odd") != NULL);
		free(text);
		ps_fleet_compare_free(fc);
	}

	/* a run still streaming: the live file only */
	snprintf(dir, sizeof(dir), "%s/streaming/20261201T094500Z-quick", base);
	CHECK_INT(ps_mkdirs(dir, 0755), 0);
	CHECK_INT(ps_write_atomic(dir, "report.ocp.jsonl", "{}\n", 3), 0);
	CHECK_INT(ps_index_scan(base, &idx), 0);
	CHECK_INT(idx.machines, 6);
	text = ps_index_html(&idx);
	CHECK(strstr(text, "<table class=\"fleet\">") != NULL);
	CHECK(strstr(text, "probestick reports: a fleet") != NULL);
	/* each machine once in the machines table, the run list after it */
	{
		char *fleet = strstr(text, "class=\"fleet\""),
		     *runs = strstr(text, "<h2>Runs</h2>");
		const char *ids[] = {"m1", "m2", "m3", "slow", "other", "streaming"};

		CHECK(fleet && runs && fleet < runs);
		for (size_t i = 0; fleet && runs && i < PS_ARRAY_SIZE(ids); i++) {
			char cell[64], *at;
			int count = 0;

			snprintf(cell, sizeof(cell), "<span class=\"rule\">%s</span>", ids[i]);
			for (at = fleet; (at = strstr(at, cell)) && at < runs; at++)
				count++;
			CHECK_INT(count, 1);
		}
		CHECK(strstr(fleet, "incomplete") && strstr(fleet, "incomplete") < runs);
	}
	free(text);
	ps_index_free(&idx);

	for (int i = 0; i < 5; i++) {
		ps_doc_free(docs[i]);
		json_object_put(keep[i]);
	}
	snprintf(dir, sizeof(dir), "rm -rf '%s'", base);
	CHECK_INT(system(dir), 0);
	return check_done("test_fleet");
}
