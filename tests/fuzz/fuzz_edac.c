/*
 * fuzz_edac.c - EDAC's sysfs as the edac recorder reads it around a step
 * (record/edac.c over hw/edac.c's ps_edac_read: mcN and dimmN/rankN
 * directories, mc_name, size_mb, ce_count, ue_count, *_noinfo_count,
 * dimm_label, dimm_location, size, dimm_mem_type, dimm_edac_mode,
 * dimm_ce_count, dimm_ue_count), every number through ps_read_u64
 * (ps_parse_u64), then the "edac" object and its view.
 * Input: the tree's files as fuzz_tree.h reads them, below
 * sys/devices/system/edac/mc/ (paths are written there), "@" between
 * the start's tree and what changed by the end.
 */
// fuzz-sources: all
#include "fuzz_tree.h"

#include "hw/edac.h"
#include "record/platform.h"
#include "report/report.h"

static void check_edac(const struct ps_edac *e)
{
	FUZZ_CHECK(e->present == (e->n_mcs > 0));
	for (size_t i = 0; i < e->n_mcs; i++) {
		FUZZ_CHECK(e->mcs[i].mc >= 0 && e->mcs[i].mc <= 65535);
		FUZZ_CHECK(memchr(e->mcs[i].name, '\0', sizeof(e->mcs[i].name)));
	}
	for (size_t i = 0; i < e->n_dimms; i++) {
		const struct ps_edac_dimm *d = &e->dimms[i];

		FUZZ_CHECK(memchr(d->name, '\0', sizeof(d->name)) && d->name[0]);
		FUZZ_CHECK(memchr(d->label, '\0', sizeof(d->label)));
		FUZZ_CHECK(memchr(d->location, '\0', sizeof(d->location)));
		FUZZ_CHECK(memchr(d->mem_type, '\0', sizeof(d->mem_type)));
		FUZZ_CHECK(memchr(d->edac_mode, '\0', sizeof(d->edac_mode)));
	}
}

static void render(json_object *edac)
{
	static const struct ps_view *const views[] = {&ps_edac_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "edac", edac);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_tree t;
	struct ps_edac_rec *rec;
	struct ps_edac e;
	char root[PATH_MAX];
	json_object *o;
	bool more;

	fuzz_tree_init(&t, "edac", data, size);
	/* the input's paths are below the mc directory */
	snprintf(root, sizeof(root), "%s", t.root);
	snprintf(t.root, sizeof(t.root), "%s/sys/devices/system/edac/mc", root);
	more = fuzz_tree_write(&t);
	FUZZ_CHECK(ps_edac_read(root, &e) == 0);
	check_edac(&e);
	ps_edac_free(&e);
	rec = ps_edac_start(root);
	FUZZ_CHECK(rec);
	if (more)
		fuzz_tree_write(&t);
	o = ps_edac_stop(rec, NULL);
	FUZZ_CHECK(o);
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
