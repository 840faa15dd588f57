/*
 * test_links.c - the link watch: a link's state from its registers (speed,
 * width, DLActive, LBMS/LABS only where the port reports them), start vs
 * end of a step (retrained, down, bandwidth changed and back, autonomous
 * change, gone, appeared, unchanged), and reading sysfs config space.
 */
#include "check.h"
#include "json_get.h"
#include "tree.h"

#include "hw/inventory.h"
#include "record/platform.h"
#include "lib/json.h"

#include <math.h>

static struct ps_link_state st(const char *addr, int speed, int width, int dll, int lbms, int labs)
{
	struct ps_link_state s = {.speed = speed,
				  .width = width,
				  .dl_active = dll,
				  .lbms = lbms,
				  .labs = labs,
				  .training = 0};

	snprintf(s.address, sizeof(s.address), "%s", addr);
	return s;
}

static json_object *finding(json_object *o, const char *rule)
{
	json_object *f = ps_json_arr(o, "findings");

	for (size_t i = 0; i < ps_json_len(f); i++)
		if (strcmp(ps_json_str_or(ps_json_at(f, i), "rule", ""), rule) == 0)
			return ps_json_at(f, i);
	return NULL;
}

static json_object *link_of(json_object *o, const char *addr)
{
	json_object *l = ps_json_arr(o, "links");

	for (size_t i = 0; i < ps_json_len(l); i++)
		if (strcmp(ps_json_str_or(ps_json_at(l, i), "address", ""), addr) == 0)
			return ps_json_at(l, i);
	return NULL;
}

static void test_compare(void)
{
	/* a GPU at Gen3 x16 that falls to Gen1 x16 under load, a NIC link that goes down,
	 * an NVMe whose port saw a change and is back, a port that changed on its own,
	 * a function that left, one that did not move */
	struct ps_link_state at_start[] = {
	    st("0000:01:00.0", 3, 16, 1, 0, 0),	  st("0000:02:00.0", 1, 1, 1, 0, 0),
	    st("0000:00:1c.0", 3, 4, 1, 0, 0),	  st("0000:00:1d.0", 3, 4, 1, 0, 0),
	    st("0000:03:00.0", 1, 1, -1, -1, -1), st("0000:04:00.0", 4, 4, 1, 1, 0),
	};
	struct ps_link_state at_end[] = {
	    st("0000:01:00.0", 1, 16, 1, 0, 0), st("0000:02:00.0", 1, 0, 0, 0, 0),
	    st("0000:00:1c.0", 3, 4, 1, 1, 0),	st("0000:00:1d.0", 3, 4, 1, 0, 1),
	    st("0000:04:00.0", 4, 4, 1, 1, 0),	st("0000:05:00.0", 1, 1, 1, 0, 0),
	};
	json_object *o = ps_links_compare(at_start, 6, at_end, 6, "module", NULL), *f, *l;

	CHECK(b(o, "available") == 1);
	CHECK_INT(n(o, "watched"), 6);
	CHECK_INT(n(o, "changed"), 5);
	CHECK_STR(s(o, "source"), "module");
	f = finding(o, "retrained");
	CHECK(f != NULL);
	CHECK_STR(s(f, "severity"), "warn");
	CHECK(strstr(s(f, "message"), "8.0 GT/s x16 at the step's start and at 2.5 GT/s x16") !=
	      NULL);
	CHECK_STR(s(f, "subject"), "0000:01:00.0");
	l = link_of(o, "0000:01:00.0");
	CHECK_STR(s(l, "change"), "retrained");
	CHECK(json_object_get_double(json_object_array_get_idx(get(l, "speed_gts"), 0)) == 8.0);
	CHECK(json_object_get_double(json_object_array_get_idx(get(l, "speed_gts"), 1)) == 2.5);
	CHECK_STR(s(link_of(o, "0000:02:00.0"), "change"), "down");
	CHECK_STR(s(finding(o, "down"), "severity"), "fail");
	CHECK_STR(s(link_of(o, "0000:00:1c.0"), "change"), "bandwidth_changed");
	CHECK_STR(s(finding(o, "bandwidth_changed"), "severity"), "warn");
	CHECK_STR(s(link_of(o, "0000:00:1d.0"), "change"), "autonomous_change");
	CHECK_STR(s(finding(o, "autonomous_change"), "severity"), "info");
	CHECK_STR(s(link_of(o, "0000:03:00.0"), "change"), "gone");
	CHECK_STR(s(finding(o, "gone"), "severity"), "fail");
	/* LBMS set before the step: a past event, not this step's */
	l = link_of(o, "0000:04:00.0");
	CHECK(get(l, "change") == NULL);
	CHECK(b(l, "status_set_before") == 1);
	CHECK(finding(o, "appeared") != NULL);
	/* unknown bits stay null, never false */
	l = link_of(o, "0000:03:00.0");
	CHECK(json_object_array_get_idx(get(l, "dl_active"), 0) == NULL);
	json_object_put(o);

	/* nothing changed: no finding */
	o = ps_links_compare(at_start, 6, at_start, 6, "sysfs", NULL);
	CHECK_INT(n(o, "changed"), 0);
	CHECK_INT(json_object_array_length(get(o, "findings")), 0);
	json_object_put(o);
}

/* A config space dump with a PCIe capability at 0x40: LnkCap, LnkSta as given. */
static void write_config(const char *root, const char *addr, uint32_t lnkcap, uint16_t lnksta,
			 int type)
{
	uint8_t cfg[256] = {0x86, 0x80, 0x01, 0x10};
	char path[128];

	cfg[0x06] = 0x10; /* capability list */
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x10; /* PCI Express */
	cfg[0x42] = (uint8_t)(2 | type << 4);
	memcpy(cfg + 0x40 + 0x0c, &lnkcap, 4);
	memcpy(cfg + 0x40 + 0x12, &lnksta, 2);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", addr);
	tree_write(root, path, cfg, sizeof(cfg));
}

static void test_sysfs(void)
{
	char *root = tree_new("test_links");
	struct ps_link_state *v = NULL;
	const char *source = NULL;
	size_t cnt = 0;

	/* a root port with bandwidth notification and DLL reporting, LBMS set, trained x1 */
	write_config(root, "0000:00:1c.0", 0x00300443, 0x6011, 4);
	/* an endpoint without those capabilities */
	write_config(root, "0000:01:00.0", 0x00000411, 0x0011, 0);
	/* conventional PCI: no capability list */
	tree_write(root, "/sys/bus/pci/devices/0000:00:1f.0/config", "\x86\x80\x18\x29", 4);
	CHECK_INT(ps_links_read(root, -1, &v, &cnt, &source), 0);
	CHECK_STR(source, "sysfs");
	CHECK_INT(cnt, 2);
	if (cnt == 2) {
		CHECK_STR(v[0].address, "0000:00:1c.0");
		CHECK_INT(v[0].speed, 1);
		CHECK_INT(v[0].width, 1);
		CHECK_INT(v[0].dl_active, 1);
		CHECK_INT(v[0].lbms, 1);
		CHECK_INT(v[0].labs, 0);
		CHECK_INT(v[1].dl_active, -1); /* the endpoint does not report it */
		CHECK_INT(v[1].lbms, -1);
	}
	free(v);
	tree_done(root);
}

/*
 * An idle graphics card (HP Z440 of the corpus: GTX 1050 at 2.5 GT/s x16,
 * best 8 GT/s): its speed changing at full width between the step's start
 * and end is the power management the inventory found, not a retrain; read
 * again during the step, a link that reaches its best is confirmed.
 */
static void test_idle(void)
{
	char *root = tree_new("test_links_idle");
	struct ps_pcie_dev devs[2];
	struct ps_inventory inv = {.pcie = devs, .n_pcie = 2};
	struct ps_link_state a[2] = {st("0000:00:02.0", 1, 16, 1, 0, 1),
				     st("0000:00:1c.0", 3, 4, 1, 0, 0)};
	struct ps_link_state b[2] = {st("0000:00:02.0", 3, 16, 1, 0, 1),
				     st("0000:00:1c.0", 1, 4, 1, 0, 0)};
	struct ps_links *l;
	json_object *o, *f;

	memset(devs, 0, sizeof(devs));
	snprintf(devs[0].fn.address, sizeof(devs[0].fn.address), "0000:00:02.0");
	devs[0].verdict = PS_LINK_IDLE;
	devs[0].best_speed = 3;
	devs[0].up_index = -1;
	snprintf(devs[1].fn.address, sizeof(devs[1].fn.address), "0000:00:1c.0");
	devs[1].verdict = PS_LINK_OK;
	devs[1].up_index = -1;
	o = ps_links_compare(a, 2, b, 2, "module", &inv);
	CHECK_STR(ps_json_str_or(link_of(o, "0000:00:02.0"), "change", ""), "power_managed");
	CHECK(finding(o, "power_managed") != NULL);
	CHECK_STR(ps_json_str_or(finding(o, "power_managed"), "severity", ""), "info");
	/* the link that was ok and dropped speed: still a retrain */
	CHECK_STR(ps_json_str_or(link_of(o, "0000:00:1c.0"), "change", ""), "retrained");
	json_object_put(o);

	/* sysfs: 2.5 GT/s x16 at the start, 8 GT/s x16 mid-step, 2.5 GT/s again at the end */
	write_config(root, "0000:00:02.0", 0x03780103, 0xf101, 4);
	l = ps_links_start(root, -1, &inv);
	write_config(root, "0000:00:02.0", 0x03780103, 0xf103, 4);
	ps_links_sample(l);
	write_config(root, "0000:00:02.0", 0x03780103, 0xf101, 4);
	o = ps_links_stop(l, &inv);
	CHECK(d(link_of(o, "0000:00:02.0"), "peak_speed_gts") == 8.0);
	CHECK(d(link_of(o, "0000:00:02.0"), "idle_best_gts") == 8.0);
	f = finding(o, "idle_trained_up");
	CHECK(f != NULL);
	CHECK_STR(ps_json_str_or(f, "severity", ""), "info");
	CHECK_INT(n(o, "changed"), 0);
	json_object_put(o);

	/* never loaded: it stays idle, nothing to say */
	l = ps_links_start(root, -1, &inv);
	ps_links_sample(l);
	o = ps_links_stop(l, &inv);
	CHECK(d(link_of(o, "0000:00:02.0"), "peak_speed_gts") == 2.5);
	CHECK(finding(o, "idle_trained_up") == NULL);
	json_object_put(o);
	ps_links_sample(NULL);
	tree_done(root);
}

int main(void)
{
	test_compare();
	test_sysfs();
	test_idle();
	return check_done("test_links");
}
