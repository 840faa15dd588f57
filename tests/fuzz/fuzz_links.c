/*
 * fuzz_links.c - the links recorder over sysfs (record/links.c, no
 * module): every function under sys/bus/pci/devices, its config space
 * through ps_pcie_decode_config and the link registers, else (not root)
 * current_link_width and current_link_speed through the sysfs parsers;
 * the step's start and end compared (ps_links_compare through
 * ps_links_stop) and the "links" object through its view.
 * Input: the tree's files as fuzz_tree.h reads them, below
 * sys/bus/pci/devices/ ("0000:00:1c.0/config\n<256 bytes>"), "@" between
 * the start's tree and what changed by the end.
 */
// fuzz-sources: all
#include "fuzz_tree.h"

#include "record/platform.h"
#include "report/report.h"

static void render(json_object *links)
{
	static const struct ps_view *const views[] = {&ps_links_view};
	static const struct ps_view_set set = {views, 1};
	json_object *report = ps_report_new("quick", 0), *step = json_object_new_object();
	char *text;

	json_object_object_add(step, "name", json_object_new_string("fuzz"));
	json_object_object_add(step, "status", json_object_new_string("pass"));
	json_object_object_add(step, "links", links);
	json_object_array_add(ps_json_arr(report, "steps"), step);
	text = ps_report_text(report, &set, 0);
	FUZZ_CHECK(text);
	free(text);
	json_object_put(report);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_tree t;
	struct ps_link_state *st = NULL;
	struct ps_links *l;
	const char *source = NULL;
	char root[PATH_MAX];
	json_object *o;
	size_t n = 0;
	bool more;

	fuzz_tree_init(&t, "links", data, size);
	snprintf(root, sizeof(root), "%s", t.root);
	snprintf(t.root, sizeof(t.root), "%s/sys/bus/pci/devices", root);
	more = fuzz_tree_write(&t);
	if (ps_links_read(root, -1, &st, &n, &source) == 0) {
		FUZZ_CHECK(source && strcmp(source, "sysfs") == 0);
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(memchr(st[i].address, '\0', sizeof(st[i].address)));
			FUZZ_CHECK(st[i].speed >= 0 && st[i].width >= -1);
		}
	}
	free(st);
	l = ps_links_start(root, -1, NULL);
	if (more)
		fuzz_tree_write(&t);
	o = ps_links_stop(l, NULL);
	FUZZ_CHECK(o);
	fuzz_dump(o);
	fuzz_check_strings(o);
	render(o);
	return 0;
}
