/*
 * fuzz_power.c - the power parsers over a tree of the input's files: RAPL's
 * powercap zones (sys/class/powercap/intel-rapl:N[:M]/name, energy_uj,
 * max_energy_range_uj, through ps_rapl_find and ps_parse_u64) sampled at
 * the start, after the changes ("@") and again, with a counter wrap where
 * a reading falls, into the step's "energy" object (ps_energy_stop, with
 * its rates per watt read from a view over the input's data.json) and the
 * run's power summary (ps_power_update); /proc/cpuinfo's vendor, family,
 * model and hypervisor flag and the reason there is no RAPL
 * (ps_rapl_env_cpuinfo, ps_rapl_reason); wall meter readings as typed
 * (ps_wall_parse, from the file "wall"); and the Super I/O probe over a
 * bus whose port reads come from the file "ports" (ps_sio_probe,
 * ps_sio_lookup).
 * Input: the tree's files as fuzz_tree.h reads them, "@" between the
 * start's tree and what changed.
 */
// fuzz-sources: all
#include "fuzz_tree.h"

#include "lib/util.h"
#include "decode/wall.h"
#include "hw/rapl.h"
#include "decode/superio.h"
#include "record/energy.h"
#include "report/report.h"

#include <math.h>

static const struct ps_col rate_cols[] = {
    {.path = "/name", .title = "drive", .flags = PS_COL_KEY},
    {.path = "/bs", .title = "bs", .fmt = PS_FMT_BLOCK, .flags = PS_COL_KEY},
    {.path = "/mbps",
     .title = "seq",
     .unit = "MB/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
    {.path = "^/tx",
     .title = "tx",
     .unit = "Mbit/s",
     .better = PS_BETTER_HIGHER,
     .flags = PS_COL_HEADLINE},
};
static const struct ps_block rate_blocks[] = {
    {.kind = PS_BLOCK_TABLE,
     .id = "r",
     .rows = "/drives",
     .nested = "/runs",
     .when = "/name",
     .cols = PS_COLS(rate_cols)},
    {.kind = PS_BLOCK_KV, .id = "k", .rows = "/total", .cols = PS_COLS(rate_cols)},
};
static const struct ps_view rate_view = {
    .name = "fuzz", .version = 1, .blocks = PS_BLOCKS(rate_blocks)};

/* A bus whose reads are the input's bytes (port modulo its length); writes go nowhere. */
struct bus {
	const uint8_t *b;
	size_t n;
	unsigned int writes;
};

static int bus_inb(void *arg, uint16_t port)
{
	struct bus *bus = arg;

	return bus->n ? bus->b[port % bus->n] : 0xff;
}

static int bus_outb(void *arg, uint16_t port, uint8_t v)
{
	((struct bus *)arg)->writes++;
	return 0;
}

static void check_energy(json_object *e)
{
	double j, avg, peak, low;

	FUZZ_CHECK(e);
	if (ps_json_bool(e, "available") != 1) {
		/* never a 0 for what was not measured: null, and the reason */
		FUZZ_CHECK(ps_json_str(e, "reason") && *ps_json_str(e, "reason"));
		FUZZ_CHECK(!ps_json_num(e, "joules", &j) && !ps_json_num(e, "avg_w", &avg));
		return;
	}
	FUZZ_CHECK(ps_json_num(e, "joules", &j) && j >= 0 && isfinite(j));
	FUZZ_CHECK(ps_json_str(e, "covers") && *ps_json_str(e, "covers"));
	if (ps_json_num(e, "peak_w", &peak) && ps_json_num(e, "low_w", &low))
		FUZZ_CHECK(peak >= low && low >= 0);
	if (ps_json_num(e, "avg_w", &avg))
		FUZZ_CHECK(avg >= 0);
	for (size_t i = 0; i < ps_json_len(ps_json_arr(e, "per_watt")); i++) {
		json_object *p = ps_json_at(ps_json_arr(e, "per_watt"), i);

		FUZZ_CHECK(ps_json_str(p, "figure") && ps_json_str(p, "per_w_unit"));
	}
}

static void render(json_object *energy)
{
	static const struct ps_view *const views[] = {&ps_energy_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object(), *p;
	struct ps_wall w = {NAN, 205, "probestick.cfg", NULL};
	double low, peak;
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "energy", energy);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	ps_power_update(report, &w);
	p = ps_json_get(ps_json_get(report, "power"), "rapl");
	/* the lowest and highest whole ticks (the mean also counts a short last tick) */
	if (ps_json_num(p, "low_w", &low) && ps_json_num(p, "peak_w", &peak))
		FUZZ_CHECK(low <= peak + 0.1);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	fuzz_check_strings(report);
	json_object_put(report);
}

static void other_parsers(const char *root)
{
	char path[PATH_MAX], *text;
	size_t len;

	if (ps_read_all(ps_path(path, sizeof(path), root, "/proc/cpuinfo"), &text, &len) == 0) {
		struct ps_rapl_env e = {0};
		char why[512];

		ps_rapl_env_cpuinfo(&e, text, len);
		FUZZ_CHECK(e.family >= -1 && e.family <= 0xfff && e.model >= -1 &&
			   e.model <= 0xfff);
		FUZZ_CHECK(strnlen(e.vendor, sizeof(e.vendor)) < sizeof(e.vendor));
		e.powercap = true;
		ps_rapl_reason(&e, why, sizeof(why));
		FUZZ_CHECK(why[0]); /* no zone: always a reason */
		free(text);
	}
	if (ps_read_all(ps_path(path, sizeof(path), root, "/wall"), &text, &len) == 0) {
		char s[64];
		double w = -1;

		snprintf(s, sizeof(s), "%.*s", (int)(len < 63 ? len : 63), text);
		if (ps_wall_parse(s, &w) == 0)
			FUZZ_CHECK(w >= 0.1 && w <= 100000);
		free(text);
	}
	if (ps_read_all(ps_path(path, sizeof(path), root, "/ports"), &text, &len) == 0) {
		struct bus bus = {(const uint8_t *)text, len, 0};
		struct ps_sio_ports io = {bus_inb, bus_outb, &bus};
		struct ps_sio_found f[2];
		int n = ps_sio_probe(&io, f, 2);

		FUZZ_CHECK(n >= 0 && n <= 2);
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(f[i].devid != 0 && f[i].devid != 0xffff);
			FUZZ_CHECK(f[i].port == 0x2e || f[i].port == 0x4e);
			FUZZ_CHECK(!f[i].chip || f[i].chip->name);
		}
		FUZZ_CHECK(bus.writes > 0);
		free(text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_tree t;
	struct ps_energy *e;
	json_object *o, *d = NULL;
	char path[PATH_MAX];
	bool more;

	fuzz_tree_init(&t, "power", data, size);
	more = fuzz_tree_write(&t);
	other_parsers(t.root);
	e = ps_energy_start(t.root);
	FUZZ_CHECK(e);
	ps_energy_sample_at(e, 0);
	if (more)
		fuzz_tree_write(&t);
	ps_energy_sample_at(e, 1.0);
	ps_energy_sample_at(e, 1.1); /* a short last tick: joules, no watts */
	d = json_object_from_file(ps_path(path, sizeof(path), t.root, "/data.json"));
	o = ps_energy_stop(e, &rate_view, json_object_is_type(d, json_type_object) ? d : NULL);
	json_object_put(d);
	check_energy(o);
	fuzz_dump(o);
	render(o);
	return 0;
}
