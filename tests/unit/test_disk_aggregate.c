/* link: steps */
/*
 * test_disk_aggregate.c - the disk_aggregate step on drives that are regular
 * files under a temp root, after the real disk_read step measured them alone
 * in the same "plan" (its typed result handed over as the runner hands it,
 * ps_after_result): who is read together and who is left out with a reason,
 * each drive's figure together beside its figure alone, the totals, what the
 * drives share (a PCIe link at 2.5 GT/s x1 above one controller, that
 * controller) with the link's capacity, its data against its strict schema
 * (the harness), the ceiling rule on crafted figures, and the step skipped
 * without disk_read or with one drive.
 */
#include "check.h"
#include "tree.h"
#include "step_harness.h"

#include "../../userland/steps/disk_aggregate.c"
#include "core/plan.h"
#include "report/doc.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#define SIZE (8 * 1048576)

static char root[] = "/var/tmp/test_disk_aggregate.XXXXXX";

extern const struct ps_step_ops *const __start_ps_steps[], *const __stop_ps_steps[];

static const struct ps_step_ops *step_named(const char *name)
{
	for (const struct ps_step_ops *const *s = __start_ps_steps; s < __stop_ps_steps; s++)
		if (strcmp((*s)->name, name) == 0)
			return *s;
	return NULL;
}

static void make_file(const char *name, size_t size)
{
	char p[64];

	snprintf(p, sizeof(p), "/dev/%s", name);
	CHECK(tree_fill(root, p, size, 7, 3));
}

static struct ps_drive drive(const char *name, const char *pci, bool boot)
{
	struct ps_drive d = {.logical_sector = 512, .boot_device = boot, .removable = 0};

	snprintf(d.name, sizeof(d.name), "%s", name);
	snprintf(d.id, sizeof(d.id), "drive:sn:test:%s", name);
	snprintf(d.model, sizeof(d.model), "TEST-%s", name);
	snprintf(d.pci_address, sizeof(d.pci_address), "%s", pci);
	d.size_bytes = SIZE;
	return d;
}

static struct ps_pcie_dev port(const char *addr, int type, int speed, int width, int up,
			       enum ps_link_verdict v)
{
	struct ps_pcie_dev p = {.up_index = up, .verdict = v, .lost_gbps = NAN};

	snprintf(p.fn.address, sizeof(p.fn.address), "%s", addr);
	snprintf(p.id, sizeof(p.id), "pcie:%s", addr);
	p.fn.is_pcie = type >= 0;
	p.fn.port_type = type;
	p.fn.has_link = speed > 0;
	p.fn.link.sta_speed = p.fn.link.cap_speed = speed;
	p.fn.link.sta_width = p.fn.link.cap_width = width;
	return p;
}

/*
 * The machine: the boot stick sda; sdb and sdc on one AHCI controller
 * (03:00.0, conventional PCI) behind the root port 00:1c.0 whose link trained
 * at 2.5 GT/s x1; vdb behind its own root port at 8 GT/s x4; sdd on the AHCI
 * controller but its device file is gone (disk_read cannot open it).
 */
static void machine(struct ps_inventory *inv)
{
	static const struct {
		const char *name, *pci;
		bool boot;
	} ds[] = {{"sda", "", true},
		  {"sdb", "0000:03:00.0", false},
		  {"sdc", "0000:03:00.0", false},
		  {"vdb", "0000:04:00.0", false},
		  {"sdd", "0000:03:00.0", false}};

	inv->drives = calloc(PS_ARRAY_SIZE(ds), sizeof(*inv->drives));
	for (size_t i = 0; i < PS_ARRAY_SIZE(ds); i++)
		inv->drives[i] = drive(ds[i].name, ds[i].pci, ds[i].boot);
	inv->n_drives = PS_ARRAY_SIZE(ds);
	inv->pcie = calloc(4, sizeof(*inv->pcie));
	inv->pcie[0] = port("0000:00:1c.0", 4 /* root port */, 1, 1, -1, PS_LINK_LIMITED);
	inv->pcie[1] = port("0000:03:00.0", -1, 0, -1, 0, PS_LINK_NONE);
	inv->pcie[2] = port("0000:00:1d.0", 4, 3, 4, -1, PS_LINK_OK);
	inv->pcie[3] = port("0000:04:00.0", 0 /* endpoint */, 3, 4, 2, PS_LINK_OK);
	inv->n_pcie = 4;
	inv->taken = true;
}

static json_object *drive_row(json_object *data, const char *name)
{
	json_object *ds = json_object_object_get(data, "drives");

	for (size_t i = 0; i < ps_json_len(ds); i++)
		if (strcmp(ps_json_str_or(ps_json_at(ds, i), "name", ""), name) == 0)
			return ps_json_at(ds, i);
	return NULL;
}

static json_object *limit_row(json_object *data, const char *kind, const char *what)
{
	json_object *ls = json_object_object_get(data, "limits");

	for (size_t i = 0; i < ps_json_len(ls); i++) {
		json_object *l = ps_json_at(ls, i);

		if (strcmp(ps_json_str_or(l, "kind", ""), kind) == 0 &&
		    strcmp(ps_json_str_or(l, "what", ""), what) == 0)
			return l;
	}
	return NULL;
}

static double num(json_object *o, const char *path)
{
	json_object *v = o;
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k && v; k = strtok_r(NULL, "/", &save))
		v = json_object_object_get(v, k);
	return v && !json_object_is_type(v, json_type_null) ? json_object_get_double(v) : NAN;
}

static const char *verdict_of(json_object *verdicts, const char *name)
{
	for (size_t i = 0; i < ps_json_len(verdicts); i++) {
		json_object *v = ps_json_at(verdicts, i);

		if (strcmp(ps_json_str_or(v, "subject", ""), name) == 0 ||
		    strcmp(ps_json_str_or(v, "name", ""), name) == 0)
			return ps_json_str_or(v, "status", "");
	}
	return "";
}

/*
 * The console's result line and the report's Steps table: each total with
 * its own unit (MB/s seq, IOPS rand), never a bare number.
 */
static void check_headline(struct harness *h)
{
	json_object *empty = json_object_new_object();
	struct ps_doc *doc = ps_doc_build(empty, ps_views());
	struct ps_doc_section *sec;
	char head[600] = "", seq[64], rand[64];

	json_object_put(empty);
	json_object_object_add(h->step, "name", json_object_new_string("disk_aggregate"));
	sec = doc ? ps_doc_build_step(doc, h->step, ps_views()) : NULL;
	CHECK(sec != NULL);
	if (sec)
		ps_doc_headline(sec, head, sizeof(head));
	snprintf(seq, sizeof(seq), "seq 1M qd 8 together %.0f MB/s",
		 num(ps_json_at(json_object_object_get(h->data, "totals"), 0), "median_together"));
	snprintf(rand, sizeof(rand), ", rand 4K qd 32 together %.0f IOPS",
		 num(ps_json_at(json_object_object_get(h->data, "totals"), 1), "median_together"));
	if (!strstr(head, seq) || !strstr(head, rand))
		fprintf(stderr, "headline: '%s'; wanted '%s' and '%s'\n", head, seq, rand);
	CHECK(strstr(head, seq) != NULL);
	CHECK(strstr(head, rand) != NULL);
	ps_doc_free(doc);
}

/* disk_read alone, then disk_aggregate with its result, as the runner runs them. */
static void test_plan(void)
{
	const struct ps_step_ops *dr_ops = step_named("disk_read");
	struct harness dr, h;
	void *kept;
	json_object *d, *l, *t;

	CHECK(dr_ops != NULL);
	if (!dr_ops)
		return;
	harness_init(&dr, dr_ops, root, PS_PLAN_QUICK);
	machine(&dr.inv);
	dr.status = dr_ops->run(&dr.ctx);
	kept = ps_step_result_keep(&dr.ctx, dr_ops, dr.data);
	CHECK(kept != NULL);
	CHECK(json_object_array_length(json_object_object_get(dr.data, "drives")) == 5);

	harness_init(&h, &disk_aggregate_ops, root, PS_PLAN_QUICK);
	machine(&h.inv);
	h.run.after_result = kept;
	h.run.after_fields = dr_ops->result;
	CHECK_INT(harness_run(&h), PS_PASS);

	/* read together: sdb, sdc, vdb; each beside its figure alone */
	for (const char *const *n = (const char *const[]){"sdb", "sdc", "vdb", NULL}; *n; n++) {
		d = drive_row(h.data, *n);
		CHECK(d != NULL);
		CHECK(json_object_object_get(d, "left_out") == NULL);
		CHECK(num(d, "seq/alone") > 0);
		CHECK(num(d, "seq/median_together") > 0);
		/* as many runs as the total's: 3, and up to 5 while noisy */
		CHECK_INT(
		    ps_json_len(
			json_object_object_get(json_object_object_get(d, "seq"), "runs_together")),
		    ps_json_len(json_object_object_get(
			ps_json_at(json_object_object_get(h.data, "totals"), 0), "runs_together")));
		CHECK(ps_json_len(json_object_object_get(json_object_object_get(d, "seq"),
							 "runs_together")) >= 3);
		CHECK(num(d, "seq/pct_of_alone") > 0);
		CHECK(num(d, "rand/alone") > 0);
		CHECK(num(d, "rand/median_together") > 0);
		CHECK_STR(verdict_of(h.verdicts, *n), "pass");
	}
	/* the same figures alone as disk_read's data says */
	CHECK(fabs(num(drive_row(h.data, "sdb"), "seq/alone") -
		   num(ps_json_at(json_object_object_get(dr.data, "drives"), 1), "seq_mbps")) <
	      0.1);
	/* left out, with the reason, and no verdict of this step */
	CHECK_STR(ps_json_str(drive_row(h.data, "sda"), "left_out"),
		  "the boot stick: never touched");
	CHECK(strstr(ps_json_str_or(drive_row(h.data, "sdd"), "left_out", ""), "cannot open") !=
	      NULL);
	CHECK_STR(verdict_of(h.verdicts, "sda"), "");
	CHECK(strcmp(verdict_of(h.verdicts, "sdd"), "pass") != 0);

	/* totals of the two patterns, over three drives, against the sum alone */
	t = json_object_object_get(h.data, "totals");
	CHECK_INT(ps_json_len(t), 2);
	CHECK_STR(ps_json_str(ps_json_at(t, 0), "pattern"), "seq");
	CHECK_INT(num(ps_json_at(t, 0), "drives"), 3);
	CHECK(fabs(num(ps_json_at(t, 0), "alone_sum") -
		   (num(drive_row(h.data, "sdb"), "seq/alone") +
		    num(drive_row(h.data, "sdc"), "seq/alone") +
		    num(drive_row(h.data, "vdb"), "seq/alone"))) < 0.5);
	CHECK(num(ps_json_at(t, 0), "median_together") > 0);
	CHECK(ps_json_str(ps_json_at(t, 0), "ceiling") != NULL);
	CHECK(ps_json_str(ps_json_at(t, 0), "ceiling_why") != NULL);
	CHECK_STR(ps_json_str(ps_json_at(t, 1), "pattern"), "rand");
	CHECK_INT(harness_count(&h, "disk_aggregate.ceiling", NULL), 2);
	check_headline(&h);

	/* what they share: the x1 link above the AHCI controller, and the controller */
	l = limit_row(h.data, "pcie_link", "0000:00:1c.0");
	CHECK(l != NULL);
	CHECK_STR(ps_json_str_or(l, "drives", ""), "sdb, sdc");
	CHECK_STR(ps_json_str_or(l, "detail", ""), "2.5 GT/s x1, limited");
	CHECK(fabs(num(l, "capacity_mbps") - 250) < 0.5);
	CHECK(num(l, "seq_together_mbps") > 0);
	l = limit_row(h.data, "controller", "0000:03:00.0");
	CHECK(l != NULL);
	CHECK_INT(num(l, "n_drives"), 2);
	/* vdb's link is its own: not shared */
	CHECK(limit_row(h.data, "pcie_link", "0000:00:1d.0") == NULL);
	CHECK(limit_row(h.data, "controller", "0000:04:00.0") == NULL);

	harness_done(&h);
	ps_step_result_drop(dr_ops, kept);
	harness_done(&dr);
}

/* Without disk_read in the plan, or with one drive measured alone: skipped, with why. */
static void test_skips(void)
{
	const struct ps_step_ops *dr_ops = step_named("disk_read");
	struct harness dr, h;
	void *kept;

	harness_init(&h, &disk_aggregate_ops, root, PS_PLAN_QUICK);
	machine(&h.inv);
	CHECK_INT(harness_run(&h), PS_SKIPPED);
	CHECK(strstr(h.run.reason, "disk_read did not run") != NULL);
	harness_done(&h);

	if (!dr_ops)
		return;
	harness_init(&dr, dr_ops, root, PS_PLAN_QUICK);
	machine(&dr.inv);
	dr.inv.n_drives = 2; /* the stick and sdb */
	dr_ops->run(&dr.ctx);
	kept = ps_step_result_keep(&dr.ctx, dr_ops, dr.data);
	harness_init(&h, &disk_aggregate_ops, root, PS_PLAN_QUICK);
	machine(&h.inv);
	h.run.after_result = kept;
	h.run.after_fields = dr_ops->result;
	CHECK_INT(harness_run(&h), PS_SKIPPED);
	CHECK(strstr(h.run.reason, "1 drive measured alone") != NULL);
	harness_done(&h);
	ps_step_result_drop(dr_ops, kept);
	harness_done(&dr);
}

/* The ceiling rule on crafted figures: none, the CPU, a shared link, a controller. */
static void test_ceiling_rule(void)
{
	struct agg_result r;
	struct agg_total *t;
	struct agg_limit *l;

	ps_fields_init(&agg_fields, &r);
	r.limits = ps_fields_new(&limit_fields, 2);
	r.n_limits = 2;
	l = &r.limits[0];
	l->kind = L_PCIE_LINK;
	snprintf(l->what, sizeof(l->what), "0000:00:1c.0");
	snprintf(l->detail, sizeof(l->detail), "2.5 GT/s x1, limited");
	snprintf(l->drives, sizeof(l->drives), "sdb, sdc");
	l->capacity_mbps = 250;
	l->seq_alone_mbps = 400;
	l->seq_together_mbps = 240;
	l->rand_together_iops = 20000;
	l = &r.limits[1];
	l->kind = L_CONTROLLER;
	snprintf(l->what, sizeof(l->what), "0000:03:00.0");
	snprintf(l->drives, sizeof(l->drives), "sdb, sdc");
	l->seq_alone_mbps = 400;
	l->seq_together_mbps = 240;
	l->rand_alone_iops = 40000;
	l->rand_together_iops = 20000;
	t = &r.totals[0];
	ps_fields_init(&total_fields, t);
	t->pattern = SEQ;
	t->alone_sum = 900;
	ps_figure_add(&t->together, 740);
	ps_figure_finish(&t->together, NULL);
	t->pct_of_alone = 100 * 740 / 900.0;
	t->cpu_busy_pct = 40;

	ceiling(NULL, &r, t);
	CHECK_STR(limit_names[t->ceiling], "pcie_link");
	CHECK_STR(t->ceiling_what, "0000:00:1c.0");
	CHECK(strstr(t->ceiling_why, "sdb, sdc") != NULL);
	CHECK(strstr(t->ceiling_why, "250 MB/s") != NULL);

	t->cpu_busy_pct = 97;
	ceiling(NULL, &r, t);
	CHECK_STR(limit_names[t->ceiling], "cpu");

	t->cpu_busy_pct = 40;
	t->pct_of_alone = 95;
	ceiling(NULL, &r, t);
	CHECK_STR(limit_names[t->ceiling], "none");

	/* the link carried more than it can: an emulated link, not the ceiling */
	t->pct_of_alone = 70;
	r.limits[0].seq_together_mbps = 600;
	ceiling(NULL, &r, t);
	CHECK(t->ceiling != L_PCIE_LINK);
	CHECK(strstr(t->ceiling_why, "controller") != NULL || t->ceiling == L_UNEXPLAINED);

	/* random: the controller's drives got half their IOPS alone */
	t->pattern = RAND;
	t->alone_sum = 60000;
	ps_figure_init(&t->together);
	ps_figure_add(&t->together, 35000);
	ps_figure_finish(&t->together, NULL);
	t->pct_of_alone = 100 * 35000 / 60000.0;
	r.limits[0].capacity_mbps = NAN;
	ceiling(NULL, &r, t);
	CHECK_STR(limit_names[t->ceiling], "controller");
	CHECK_STR(t->ceiling_what, "0000:03:00.0");
	ps_fields_free(&agg_fields, &r);
}

int main(void)
{
	char p[4200];

	alarm(120);
	CHECK(mkdtemp(root) != NULL);
	snprintf(p, sizeof(p), "%s/dev", root);
	CHECK(mkdir(p, 0755) == 0);
	make_file("sda", SIZE);
	make_file("sdb", SIZE);
	make_file("sdc", SIZE);
	make_file("vdb", SIZE);

	test_plan();
	test_skips();
	test_ceiling_rule();

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	CHECK(system(p) == 0);
	return check_done("test_disk_aggregate");
}
