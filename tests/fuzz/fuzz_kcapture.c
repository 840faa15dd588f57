/*
 * fuzz_kcapture.c - what PROBESTICK_IOC_KC_PROBES and _KC_SNAPSHOT return
 * (a module of another version, a module bug): ps_kcapture_json over the
 * probes and records, then the "probes" object in a step of a report,
 * rendered through its view (record/probes_view.c).
 * Input: a snapshot header, then probes and records in a compact form
 * (struct in_* below) that the harness spreads into the ABI structs.
 */
// fuzz-sources: record/kcapture.c record/probes_view.c decode/hist.c lib/json.c
// fuzz-sources: lib/store.c
// fuzz-sources: report/report.c report/render_text.c report/render_html.c report/chart.c
// fuzz-sources: report/ocp.c report/doc.c report/view.c report/text.c
// fuzz-sources: lib/util.c
#include "fuzz.h"

#include "record/kcapture.h"
#include "report/report.h"

#define MAX_PROBES  PROBESTICK_KC_MAX_PROBES /* what ps_kcapture_stop has room for */
#define MAX_RECORDS 64

struct in_header {
	uint64_t window_ns;
	uint32_t mask, attached;
	uint8_t nprobes, nrecs, pad[2];
	uint32_t nr_cpus;
};

/* id 255 is PROBESTICK_KC_NO_ID (a probe the module was built without) */
struct in_probe {
	uint8_t id, flags;
	int8_t error;
	uint8_t pad;
	char name[16];
	char reason[12];
};

struct in_record {
	uint16_t metric, cpu;
	uint32_t key;
	uint16_t dir;
	uint8_t probe, pad;
	char name[32];
	char bus[12];
	uint64_t count, sum, max;
	uint32_t extra[2];
	struct {
		uint16_t idx, n;
	} buckets[4];
};

/* tests/fuzz/make-seeds.sh packs seeds in these layouts. */
_Static_assert(sizeof(struct in_header) == 24, "in_header layout");
_Static_assert(sizeof(struct in_probe) == 32, "in_probe layout");
_Static_assert(sizeof(struct in_record) == 104, "in_record layout");

static bool take(const uint8_t **p, size_t *left, void *out, size_t n)
{
	memset(out, 0, n);
	if (*left < n)
		return false;
	memcpy(out, *p, n);
	*p += n;
	*left -= n;
	return true;
}

/* The probes as report.txt shows them: one step holding them, their view alone. */
static void render(json_object *probes)
{
	static const struct ps_view *const views[] = {&ps_probes_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "probes", probes);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probestick_kc_record recs[MAX_RECORDS];
	struct probestick_kc_probe probes[MAX_PROBES];
	struct probestick_kc_snapshot snap;
	struct in_header h;
	unsigned int nprobes, nrecs;
	json_object *o;

	if (!take(&data, &size, &h, sizeof(h)))
		return 0;
	memset(&snap, 0, sizeof(snap));
	snap.window_ns = h.window_ns;
	snap.mask = h.mask;
	snap.attached = h.attached;
	snap.nr_cpus = h.nr_cpus;
	nprobes = h.nprobes % (MAX_PROBES + 1);
	memset(probes, 0, sizeof(probes));
	for (unsigned int i = 0; i < nprobes; i++) {
		struct in_probe in;

		take(&data, &size, &in, sizeof(in));
		probes[i].id = in.id == 255 ? PROBESTICK_KC_NO_ID : in.id;
		probes[i].flags = in.flags;
		probes[i].error = in.error;
		memcpy(probes[i].name, in.name, sizeof(in.name));
		memcpy(probes[i].reason, in.reason, sizeof(in.reason));
	}
	nrecs = h.nrecs % (MAX_RECORDS + 1);
	for (unsigned int i = 0; i < nrecs; i++) {
		struct probestick_kc_record *r = &recs[i];
		struct in_record in;

		take(&data, &size, &in, sizeof(in));
		memset(r, 0, sizeof(*r));
		r->metric = in.metric;
		r->cpu = in.cpu;
		r->key = in.key;
		r->dir = in.dir;
		r->probe = in.probe;
		memcpy(r->name, in.name, sizeof(in.name));
		memcpy(r->bus, in.bus, sizeof(in.bus));
		r->count = in.count;
		r->sum = in.sum;
		r->max = in.max;
		r->extra[0] = in.extra[0];
		r->extra[1] = in.extra[1];
		for (int k = 0; k < 4; k++)
			r->buckets[in.buckets[k].idx % PROBESTICK_KC_BUCKETS] += in.buckets[k].n;
	}
	o = ps_kcapture_json(probes, nprobes, &snap, recs, nrecs);
	FUZZ_CHECK(o);
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
