/* test_inventory.c - the inventory step on the workstation tree: report sections,
 * findings and status; a re-run does not duplicate entries. */
#include "check.h"

#include "../../userland/steps/inventory.c"

#include <stdarg.h>

/*
 * Until the core's steps_core.c is in the archive these stand in; weak, so
 * the real ones win once they are linked, and both fill ctx->findings alike.
 */
__attribute__((weak)) void ps_finding(struct ps_ctx *ctx, const char *severity, const char *subject,
				      const char *rule, const char *fmt, ...)
{
	json_object *f = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(f, "severity", json_object_new_string(severity));
	json_object_object_add(f, "subject", subject ? json_object_new_string(subject) : NULL);
	json_object_object_add(f, "rule", rule ? json_object_new_string(rule) : NULL);
	json_object_object_add(f, "message", json_object_new_string(msg));
	json_object_array_add(ctx->findings, f);
}

__attribute__((weak)) bool ps_should_abort(const struct ps_ctx *ctx)
{
	return ctx->abort_flag && *ctx->abort_flag;
}

static json_object *finding(json_object *findings, const char *rule, const char *subject)
{
	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i);

		if (strcmp(str(f, "rule"), rule) == 0 && str(f, "subject") &&
		    strcmp(str(f, "subject"), subject) == 0)
			return f;
	}
	return NULL;
}

static size_t count_rule(json_object *findings, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(findings); i++)
		n += strcmp(str(json_object_array_get_idx(findings, i), "rule"), rule) == 0;
	return n;
}

static void test_workstation(void)
{
	struct ps_config cfg;
	volatile sig_atomic_t abort_flag = 0;
	json_object *report = json_object_new_object(), *step = json_object_new_object();
	json_object *findings = json_object_new_array(), *f, *v;
	struct ps_ctx ctx = {
	    .root = FIXTURES "/sysroot-workstation",
	    .report = report,
	    .step = step,
	    .findings = findings,
	    .module_fd = -1,
	    .cfg = &cfg,
	    .abort_flag = &abort_flag,
	};

	memset(&cfg, 0, sizeof(cfg));
	snprintf(cfg.stick, sizeof(cfg.stick), "/stick");
	json_object_object_add(step, "data", json_object_new_object());
	/* the core may have made some sections already */
	json_object_object_add(report, "pcie", json_object_new_array());

	CHECK_INT(inventory_ops.run(&ctx), PS_WARN);
	CHECK_INT(json_object_array_length(json_object_object_get(report, "pcie")), 11);
	CHECK_INT(json_object_array_length(json_object_object_get(report, "drives")), 3);
	CHECK_INT(json_object_array_length(json_object_object_get(report, "nics")), 2);
	CHECK_STR(str(json_object_object_get(report, "machine"), "id"), "6805ca123456");
	CHECK(json_object_object_get(json_object_object_get(report, "memory"), "dimms") != NULL);

	/* one finding for the NVMe link, not a second one for its root port */
	CHECK_INT(count_rule(findings, "pcie_link_downgraded"), 1);
	f = finding(findings, "pcie_link_downgraded", "0000:01:00.0");
	CHECK(f != NULL);
	CHECK_STR(str(f, "severity"), "warn");
	CHECK(f && strstr(str(f, "message"), "8.0 GT/s x2") &&
	      strstr(str(f, "message"), "8.0 GT/s x4"));
	f = finding(findings, "nic_no_carrier", "enp2s0");
	CHECK(f && strcmp(str(f, "severity"), "info") == 0);
	CHECK(finding(findings, "nic_no_carrier", "enp4s0") == NULL);
	/* the stick found through /stick's mount: boot device, and no serial */
	f = finding(findings, "drive_no_serial", "sdb");
	CHECK(f && strcmp(str(f, "severity"), "info") == 0);
	CHECK_INT(count_rule(findings, "drive_no_serial"), 1);
	CHECK_INT(count_rule(findings, "probe_failed"), 0);
	CHECK(json_object_get_boolean(json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(report, "drives"), 2),
	    "boot_device")));
	v = json_object_object_get(step, "data");
	CHECK_INT(json_object_get_int(json_object_object_get(v, "pcie_functions")), 11);
	CHECK_INT(json_object_get_int(json_object_object_get(v, "dimms")), 2);
	CHECK_STR(str(v, "boot_disk"), "sdb");

	/* again: sections replaced, not appended to */
	CHECK_INT(inventory_ops.run(&ctx), PS_WARN);
	CHECK_INT(json_object_array_length(json_object_object_get(report, "pcie")), 11);
	CHECK_INT(json_object_array_length(json_object_object_get(report, "drives")), 3);

	/* boot_disk from the configuration wins over the mount table */
	snprintf(cfg.boot_disk, sizeof(cfg.boot_disk), "sda");
	CHECK_INT(inventory_ops.run(&ctx), PS_WARN);
	CHECK(json_object_get_boolean(json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(report, "drives"), 1),
	    "boot_device")));

	json_object_put(report);
	json_object_put(step);
	json_object_put(findings);
}

static void test_broken(void)
{
	json_object *report = json_object_new_object(), *findings = json_object_new_array();
	struct ps_ctx ctx = {
	    .root = FIXTURES "/no-such-tree",
	    .report = report,
	    .findings = findings,
	    .module_fd = -1,
	};

	/* nothing readable: every probe is a finding, the step still ends */
	CHECK_INT(inventory_ops.run(&ctx), PS_WARN);
	CHECK_INT(count_rule(findings, "probe_failed"), 5);
	CHECK(finding(findings, "probe_failed", "pcie") != NULL);
	CHECK(strstr(str(finding(findings, "probe_failed", "pcie"), "message"), "mounted") != NULL);
	json_object_put(report);
	json_object_put(findings);
}

int main(void)
{
	CHECK_STR(inventory_ops.name, "inventory");
	CHECK_INT(inventory_ops.abi, PS_STEP_ABI);
	CHECK_INT(inventory_ops.order, 0);
	CHECK_INT(inventory_ops.plans, PS_PLAN_QUICK | PS_PLAN_FULL);
	test_workstation();
	test_broken();
	return check_done("test_inventory");
}
