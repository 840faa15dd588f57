/* test_coldplug.c - the modalias walk over a fixture sysfs (symlink loops, duplicates through
 * /sys/bus, empty files) and a coldplug run against an empty module tree (loads nothing; the
 * Super I/O monitors by name, since a fixture root has no /dev/port). */
#include "check.h"
#include "boot/coldplug.h"
#include "lib/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROOT FIXTURES "/core/coldplug-root"

static void test_strset(void)
{
	struct ps_strset s = {0};

	CHECK_INT(ps_strset_add(&s, "pci:b"), 1);
	CHECK_INT(ps_strset_add(&s, "pci:a"), 1);
	CHECK_INT(ps_strset_add(&s, "usb:z"), 1);
	CHECK_INT(ps_strset_add(&s, "pci:b"), 0);
	CHECK_INT(s.n, 3);
	CHECK_STR(s.v[0], "pci:a");
	CHECK_STR(s.v[2], "usb:z");
	CHECK(ps_strset_has(&s, "pci:b"));
	CHECK(!ps_strset_has(&s, "pci:c"));
	for (int i = 0; i < 1000; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "alias%d", (i * 7919) % 1000);
		CHECK_INT(ps_strset_add(&s, buf), 1);
	}
	CHECK_INT(s.n, 1003);
	for (size_t i = 1; i < s.n; i++)
		CHECK(strcmp(s.v[i - 1], s.v[i]) < 0);
	ps_strset_free(&s);
	CHECK_INT(s.n, 0);
}

static void test_scan(void)
{
	struct ps_strset seen = {0}, fresh = {0}, again = {0};

	CHECK_INT(ps_coldplug_scan(ROOT, &seen, &fresh), 5);
	CHECK_INT(seen.n, 5);
	CHECK_INT(fresh.n, 5);
	CHECK(ps_strset_has(&seen, "pci:v00008086d00001D02sv00001028sd000004F9bc01sc06i01"));
	CHECK(ps_strset_has(&seen, "pci:v00001AF4d00001041sv00001AF4sd00001100bc02sc00i00"));
	CHECK(ps_strset_has(&seen, "virtio:d00000001v00001AF4"));
	CHECK(ps_strset_has(&seen, "platform:serial8250"));
	CHECK(ps_strset_has(&seen, "platform:orphan")); /* only in the /sys/bus view */
	CHECK(!ps_strset_has(&seen, ""));
	/* a second round finds nothing new: that is what ends the settle loop */
	CHECK_INT(ps_coldplug_scan(ROOT, &seen, &again), 0);
	CHECK_INT(again.n, 0);
	ps_strset_free(&seen);
	ps_strset_free(&fresh);
	ps_strset_free(&again);

	CHECK_INT(ps_coldplug_scan(FIXTURES "/core/no-such-root", &seen, NULL), -ENOENT);
}

static void test_run(void)
{
	char path[1024];
	const char *o = getenv("OUT");
	json_object *doc, *failed, *first, *v;
	struct ps_coldplug_opts opts = {
	    .root = ROOT,
	    .settle_s = 0,
	    .json_path = path,
	    .modules_dir = FIXTURES "/core/modules-empty",
	};

	snprintf(path, sizeof(path), "%s/tests/coldplug-%d/run/coldplug.json", o ? o : "out",
		 (int)getpid());
	{
		struct ps_coldplug_result res;

		CHECK_INT(ps_coldplug_run(&opts, &res), 0);
		CHECK_STR(res.error, "");
		CHECK(res.doc != NULL);
		json_object_put(res.doc);
	}
	doc = json_object_from_file(path);
	CHECK(doc != NULL);
	if (!doc)
		return;
	CHECK(json_object_object_get_ex(doc, "loaded", &v) && json_object_array_length(v) == 0);
	CHECK(json_object_object_get_ex(doc, "duration_s", &v) &&
	      json_object_is_type(v, json_type_double));
	CHECK(json_object_object_get_ex(doc, "failed", &failed));
	/* the modules loaded by name (drivetemp, the Super I/O monitors, probestick.ko)
	 * are not in an empty tree: each recorded with its error, not a stop */
	CHECK_INT(json_object_array_length(failed), 7);
	{
		const char *want[] = {"drivetemp", "nct6775",	"nct6683",   "it87",
				      "f71882fg",  "w83627ehf", "probestick"};

		for (size_t i = 0; i < 7 && i < json_object_array_length(failed); i++) {
			first = json_object_array_get_idx(failed, i);
			CHECK(json_object_object_get_ex(first, "module", &v));
			CHECK_STR(json_object_get_string(v), want[i]);
			CHECK(json_object_object_get_ex(first, "error", &v) &&
			      strlen(json_object_get_string(v)));
		}
	}
	/* a fixture root has no /dev/port: every Super I/O driver by name, recorded as such */
	{
		json_object *sio = NULL, *m = NULL, *drv = NULL;

		CHECK(json_object_object_get_ex(doc, "superio", &sio));
		CHECK(json_object_object_get_ex(sio, "method", &m));
		CHECK_STR(json_object_get_string(m), "by_name");
		CHECK(json_object_object_get_ex(sio, "reason", &m));
		CHECK(strstr(json_object_get_string(m), "/dev/port") != NULL);
		CHECK(json_object_object_get_ex(sio, "drivers", &drv));
		CHECK_INT(json_object_array_length(drv), 5);
		CHECK(json_object_object_get_ex(json_object_array_get_idx(drv, 0), "result", &m));
		CHECK_STR(json_object_get_string(m), "failed");
		CHECK(json_object_object_get_ex(sio, "chips", &m) &&
		      json_object_array_length(m) == 0);
	}
	json_object_put(doc);
}

int main(void)
{
	test_strset();
	test_scan();
	test_run();
	return check_done("test_coldplug");
}
