/*
 * test_energy.c - energy per step from recorded powercap trees
 * (tests/fixtures/power/powercap): joules, mean, peak and lowest watts
 * from the sampler's ticks, a counter that wraps past its range, a CPU
 * without a DRAM zone, AMD's package and core zones, rates per watt from a
 * step's view; null with the reason where there is no RAPL (a virtual
 * machine, an old CPU, no powercap, an unreadable counter); the run's
 * power summary beside the wall meter's readings.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "decode/wall.h"
#include "hw/rapl.h"
#include "record/energy.h"
#include "lib/json.h"
#include "report/view.h"

#include <errno.h>
#include <math.h>

#define RAPL "/sys/class/powercap"

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* A copy of a recorded tree the test writes later readings into. */
static char *copy_fixture(const char *name)
{
	char *root = tree_new("test_energy");
	char cmd[PATH_MAX * 2 + 32];

	snprintf(cmd, sizeof(cmd), "cp -r '%s/power/powercap/%s/.' '%s'", FIXTURES, name, root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot copy %s\n", name);
	return root;
}

static void set_uj(const char *root, const char *zone, unsigned long long uj)
{
	char p[128];

	snprintf(p, sizeof(p), RAPL "/%s/energy_uj", zone);
	tree_printf(root, p, "%llu\n", uj);
}

static json_object *domain(json_object *o, const char *name)
{
	json_object *a = get(o, "domains");

	for (size_t i = 0; i < ps_json_len(a); i++)
		if (strcmp(ps_json_str_or(ps_json_at(a, i), "name", ""), name) == 0)
			return ps_json_at(a, i);
	return NULL;
}

/* A null that is there: the figure is unknown, not left out. */
static bool is_null(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL) && get(o, key) == NULL;
}

/* o says there is no figure, for a reason holding why; o is put. */
static void check_unavailable(json_object *o, const char *why)
{
	CHECK(b(o, "available") == 0);
	CHECK(s(o, "reason") && strstr(s(o, "reason"), why) != NULL);
	CHECK(is_null(o, "joules") && is_null(o, "avg_w") && is_null(o, "peak_w"));
	CHECK_INT(ps_json_len(get(o, "per_watt")), 0);
	json_object_put(o);
}

static void test_delta(void)
{
	uint64_t d = 0;

	CHECK_INT(ps_rapl_delta(100, 350, 1000, &d), 0);
	CHECK_INT(d, 250);
	CHECK_INT(ps_rapl_delta(900, 50, 1000, &d), 1); /* wrapped: 100 to the top, 50 on */
	CHECK_INT(d, 150);
	CHECK_INT(ps_rapl_delta(5, 5, 1000, &d), 0);
	CHECK_INT(d, 0);
	CHECK_INT(ps_rapl_delta(1001, 5, 1000, &d), -EINVAL); /* past its own range */
	CHECK_INT(ps_rapl_delta(5, 1001, 1000, &d), -EINVAL);
	CHECK_INT(ps_rapl_delta(9, 5, 0, &d), -EINVAL); /* backwards, range unknown */
	CHECK_INT(ps_rapl_delta(5, 9, 0, &d), 0);
	CHECK_INT(ps_rapl_kind_of("package-1-die-0"), PS_RAPL_PACKAGE);
	CHECK_INT(ps_rapl_kind_of("dram"), PS_RAPL_DRAM);
	CHECK_INT(ps_rapl_kind_of("psys"), PS_RAPL_PSYS);
	CHECK_INT(ps_rapl_kind_of("drams"), PS_RAPL_OTHER);
}

/* i5-13500: package, core and uncore, no DRAM zone; the package alone is the total. */
static void test_desktop_no_dram(void)
{
	char *root = copy_fixture("i5-13500");
	const unsigned long long pkg0 = 65997277274ULL, core0 = 48265700414ULL;
	struct ps_rapl r;
	struct ps_energy *e;
	json_object *o;

	CHECK_INT(ps_rapl_find(root, &r), 0);
	CHECK_INT(r.n, 3);
	CHECK_STR(r.source, "intel-rapl");
	CHECK_STR(r.z[0].name, "package-0");
	CHECK(r.z[0].counted && !r.z[1].counted && !r.z[2].counted);
	CHECK(r.z[0].uj == pkg0 && r.z[0].max_uj == 262143328850ULL);

	e = ps_energy_start(root);
	ps_energy_sample_at(e, 100.0);
	set_uj(root, "intel-rapl:0", pkg0 + 20000000);
	set_uj(root, "intel-rapl:0:0", core0 + 12000000);
	ps_energy_sample_at(e, 101.0);
	set_uj(root, "intel-rapl:0", pkg0 + 65000000);
	set_uj(root, "intel-rapl:0:0", core0 + 47000000);
	ps_energy_sample_at(e, 102.0);
	o = ps_energy_stop(e, NULL, NULL);
	CHECK(b(o, "available") == 1);
	CHECK(is_null(o, "reason"));
	CHECK_STR(s(o, "covers"), "package-0");
	CHECK(near(d(o, "joules"), 65.0));
	CHECK(near(d(o, "avg_w"), 32.5));
	CHECK(near(d(o, "peak_w"), 45.0));
	CHECK(near(d(o, "low_w"), 20.0));
	CHECK(near(d(o, "seconds"), 2.0));
	CHECK_INT(n(o, "samples"), 3);
	CHECK(domain(o, "dram") == NULL);
	CHECK(near(d(domain(o, "core"), "joules"), 47.0));
	CHECK(b(domain(o, "core"), "counted") == 0);
	CHECK(near(d(domain(o, "uncore"), "joules"), 0.0));
	CHECK_INT(ps_json_len(get(o, "series")), 2);
	CHECK(near(d(ps_json_at(get(o, "series"), 1), "w"), 45.0));
	json_object_put(o);
	tree_done(root);
}

/* Xeon Silver 4314: the package counter wraps past its range during a tick; DRAM has its own. */
static void test_wrap_and_dram(void)
{
	char *root = copy_fixture("xeon-silver-4314");
	const unsigned long long max = 262143328850ULL;
	struct ps_energy *e;
	json_object *o;

	set_uj(root, "intel-rapl:0", max - 5000000); /* 5 J before the top */
	e = ps_energy_start(root);
	ps_energy_sample_at(e, 0.0);
	set_uj(root, "intel-rapl:0", 10000000); /* and 10 J on from 0 */
	set_uj(root, "intel-rapl:0:0", 20000000000ULL + 4500000);
	ps_energy_sample_at(e, 0.5);
	o = ps_energy_stop(e, NULL, NULL);
	CHECK(b(o, "available") == 1);
	CHECK_STR(s(o, "covers"), "package-0, dram");
	CHECK(near(d(domain(o, "package-0"), "joules"), 15.0));
	CHECK_INT(n(domain(o, "package-0"), "wraps"), 1);
	CHECK(near(d(domain(o, "dram"), "joules"), 4.5));
	CHECK(near(d(domain(o, "dram"), "range_j"), 65713.0));
	CHECK(near(d(o, "joules"), 19.5));
	CHECK(near(d(o, "avg_w"), 39.0));
	json_object_put(o);
	tree_done(root);
}

/* A counter read past its own range is no reading: no total rather than a wrong one. */
static void test_bad_counter(void)
{
	char *root = copy_fixture("epyc-7543");
	struct ps_energy *e = ps_energy_start(root);

	ps_energy_sample_at(e, 0.0);
	set_uj(root, "intel-rapl:0", 70000000000ULL); /* past 65532610987 */
	ps_energy_sample_at(e, 1.0);
	check_unavailable(ps_energy_stop(e, NULL, NULL), "read past its range");
	tree_done(root);
}

/* AMD EPYC 7543: package and core (AMD's RAPL has no DRAM zone); the rates per watt. */
static const struct ps_col rate_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},
    {.path = "/mbps",
     .title = "seq",
     .unit = "MB/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "/lat",
     .title = "lat",
     .unit = "us",
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_HEADLINE},
};
static const struct ps_col net_cols[] = {
    {.path = "/tx",
     .title = "tx",
     .unit = "Mbit/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
};
static const struct ps_block rate_blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "r",
     .rows = "/drives",
     .when = "/mbps",
     .cols = PS_COLS(rate_cols)},
    {.kind = PS_BLOCK_KV, .id = "n", .rows = "/net", .cols = PS_COLS(net_cols)},
};
static const struct ps_view rate_view = {
    .name = "t", .version = 1, .blocks = PS_BLOCKS(rate_blocks)};

static void test_amd_per_watt(void)
{
	char *root = copy_fixture("epyc-7543");
	json_object *data = json_tokener_parse(
	    "{\"drives\": [{\"name\": \"sda\", \"bs\": 1048576, \"mbps\": 500.0, \"lat\": 80},"
	    " {\"name\": \"sdb\", \"mbps\": null}], \"net\": {\"tx\": 9400}}");
	struct ps_energy *e = ps_energy_start(root);
	json_object *o, *pw;

	ps_energy_sample_at(e, 0.0);
	set_uj(root, "intel-rapl:0", 30000000000ULL + 100000000); /* 100 J */
	set_uj(root, "intel-rapl:0:0", 10000000000ULL + 60000000);
	ps_energy_sample_at(e, 2.0);
	o = ps_energy_stop(e, &rate_view, data);
	CHECK_STR(s(o, "covers"), "package-0");
	CHECK(near(d(o, "avg_w"), 50.0));
	CHECK(near(d(domain(o, "core"), "avg_w"), 30.0));
	pw = get(o, "per_watt");
	CHECK_INT(ps_json_len(pw), 2); /* sdb has no figure; latency is no rate */
	CHECK_STR(s(ps_json_at(pw, 0), "figure"), "sda 1M seq");
	CHECK(near(d(ps_json_at(pw, 0), "per_w"), 10.0));
	CHECK_STR(s(ps_json_at(pw, 0), "per_w_unit"), "MB/s per W");
	CHECK(near(d(ps_json_at(pw, 1), "per_w"), 0.188)); /* 9.4 Gbit/s over 50 W */
	CHECK_STR(s(ps_json_at(pw, 1), "per_w_unit"), "Gbit/s per W");
	json_object_put(o);
	json_object_put(data);
	tree_done(root);
}

static json_object *absent(const char *cpuinfo, bool powercap, const char *module)
{
	char *root = tree_new("test_energy_none");
	struct ps_energy *e;
	json_object *o;
	char p[128];

	tree_write(root, "/proc/cpuinfo", cpuinfo, 0);
	tree_write(root, "/sys/module/msr/uevent", "\n", 0);
	if (module) {
		snprintf(p, sizeof(p), "/sys/module/%s/uevent", module);
		tree_write(root, p, "\n", 0);
	}
	if (powercap)
		tree_write(root, RAPL "/.keep", "", 1);
	e = ps_energy_start(root);
	ps_energy_sample_at(e, 0);
	ps_energy_sample_at(e, 1);
	o = ps_energy_stop(e, NULL, NULL);
	tree_done(root);
	return o;
}

static void test_absent(void)
{
	/* QEMU's CPU under TCG, as tests/fixtures/sysroot-qemu recorded it */
	json_object *o =
	    absent("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 15\n"
		   "model\t\t: 107\nflags\t\t: fpu de pse tsc msr hypervisor lahf_lm\n",
		   true, NULL);

	check_unavailable(o, "virtual machine");

	/* seed 001's Phenom II X6 1065T: AMD family 10h, before RAPL */
	o = absent("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 16\nmodel\t\t: 10\n"
		   "flags\t\t: fpu vme\n",
		   true, NULL);
	check_unavailable(o, "AuthenticAMD family 0x10 model 0xa has no RAPL");

	/* a Zen CPU whose RAPL driver is missing from the image */
	o = absent("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
		   "flags\t\t: fpu rapl\n",
		   true, NULL);
	check_unavailable(o, "intel_rapl_common is not loaded");
	o = absent("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n",
		   true, "intel_rapl_common");
	check_unavailable(o, "intel_rapl_msr is not");
	o = absent("processor\t: 0\nvendor_id\t: GenuineIntel\n", false, NULL);
	check_unavailable(o, "no powercap interface");
}

static void test_unreadable(void)
{
	char *root = copy_fixture("i5-13500");
	struct ps_energy *e;
	char cmd[PATH_MAX + 64];

	/* energy_uj that cannot be read (a folder here; EACCES for a user on a live system) */
	snprintf(cmd, sizeof(cmd),
		 "rm '%s" RAPL "/intel-rapl:0/energy_uj' && mkdir '%s" RAPL
		 "/intel-rapl:0/energy_uj'",
		 root, root);
	CHECK(system(cmd) == 0);
	e = ps_energy_start(root);
	ps_energy_sample_at(e, 0);
	ps_energy_sample_at(e, 1);
	check_unavailable(ps_energy_stop(e, NULL, NULL), "cannot be read");
	tree_done(root);
}

static void test_wall_parse(void)
{
	static const struct {
		const char *in;
		int ret;
		double w;
	} cases[] = {
	    {"105", 0, 105},	    {"105W", 0, 105},	   {" 98.5 w ", 0, 98.5},
	    {"205 W", 0, 205},	    {"", -ENODATA, 0},	   {"  ", -ENODATA, 0},
	    {"-5", -EINVAL, 0},	    {"0", -EINVAL, 0},	   {"1e3", -EINVAL, 0},
	    {"nan", -EINVAL, 0},    {"10 kW", -EINVAL, 0}, {"1.2.3", -EINVAL, 0},
	    {"200000", -EINVAL, 0}, {"0x10", -EINVAL, 0},  {".5", 0, 0.5},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double w = -1;
		int ret = ps_wall_parse(cases[i].in, &w);

		CHECK_INT(ret, cases[i].ret);
		if (ret == 0 && !near(w, cases[i].w))
			CHECK(!"wall reading");
	}
}

/* report.power: the wall's readings beside RAPL's lowest, load and peak figures. */
static void test_power_summary(void)
{
	json_object *r = json_tokener_parse(
	    "{\"steps\": ["
	    " {\"name\": \"inventory\", \"energy\": {\"available\": true, \"avg_w\": 14.2,"
	    "  \"low_w\": 11.8, \"peak_w\": 20.0}},"
	    " {\"name\": \"burnin\", \"energy\": {\"available\": true, \"avg_w\": 88.4,"
	    "  \"low_w\": 30.0, \"peak_w\": 97.5}},"
	    " {\"name\": \"smart\", \"energy\": {\"available\": false, \"reason\": \"x\"}}]}");
	struct ps_wall w = {105, 205, "probestick.cfg", NULL};
	json_object *p, *rapl;

	ps_power_update(r, &w);
	p = get(r, "power");
	rapl = get(p, "rapl");
	CHECK(near(d(get(p, "wall"), "idle_w"), 105));
	CHECK_STR(s(get(p, "wall"), "source"), "probestick.cfg");
	CHECK(b(rapl, "available") == 1);
	CHECK(near(d(rapl, "low_w"), 11.8));
	CHECK_STR(s(rapl, "low_step"), "inventory");
	CHECK(near(d(rapl, "load_w"), 88.4));
	CHECK_STR(s(rapl, "load_step"), "burnin");
	CHECK(near(d(rapl, "peak_w"), 97.5));
	CHECK(near(d(p, "rest_load_w"), 116.6));
	CHECK(near(d(p, "rest_idle_w"), 93.2));
	/* a later update without readings keeps them */
	ps_power_update(r, NULL);
	CHECK(near(d(get(get(r, "power"), "wall"), "load_w"), 205));
	json_object_put(r);

	/* no RAPL anywhere, no readings: nulls and the reason */
	r = json_tokener_parse("{\"steps\": [{\"name\": \"inventory\", \"energy\": "
			       "{\"available\": false, \"reason\": \"no RAPL zone: a VM\"}}]}");
	ps_power_update(r, NULL);
	p = get(r, "power");
	CHECK(b(get(p, "rapl"), "available") == 0);
	CHECK_STR(s(get(p, "rapl"), "reason"), "no RAPL zone: a VM");
	CHECK(is_null(get(p, "rapl"), "load_w"));
	CHECK(is_null(get(p, "wall"), "idle_w"));
	CHECK(is_null(p, "rest_load_w"));
	json_object_put(r);
}

int main(void)
{
	test_delta();
	test_desktop_no_dram();
	test_wrap_and_dram();
	test_bad_counter();
	test_amd_per_watt();
	test_absent();
	test_unreadable();
	test_wall_parse();
	test_power_summary();
	return check_done("test_energy");
}
