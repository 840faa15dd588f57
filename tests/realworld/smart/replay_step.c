/*
 * replay_step.c - the smart step, as the plan runs it, over recorded smartctl
 * JSON of real drives (tests/realworld/smart/replay builds and drives it).
 * One drive per input line:
 *   NAME TAB TRANSPORT TAB MODEL TAB SERIAL TAB JSON [TAB JSON-for--d-sat ...]
 * TRANSPORT is sata, sas, nvme, usb or virtio; MODEL and SERIAL are what the
 * inventory (sysfs) shows, "-" for none; the JSON files answer smartctl -x
 * (a USB drive's in the order the step tries: auto, sat, sntjmicron,
 * sntrealtek, sntasmedia; "-" for one that prints nothing). One JSON line out
 * per drive: the step's status, verdict, findings, the examined message and
 * the facts it reports.
 */
#include "step_harness.h"

#include "../../../userland/steps/smart.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TYPES 5

static const char *answers[MAX_TYPES];

static int replay_smartctl(void *arg, const char *const *argv, double t,
			   struct ps_smartctl_out *out)
{
	static const char *const types[MAX_TYPES] = {NULL, "sat", "sntjmicron", "sntrealtek",
						     "sntasmedia"};
	const char *type = NULL, *file = NULL;
	struct ps_smart s;
	char why[64];

	memset(out, 0, sizeof(*out));
	for (size_t i = 1; argv[i]; i++)
		if (strcmp(argv[i], "-d") == 0 && argv[i + 1])
			type = argv[++i];
	for (size_t i = 0; i < MAX_TYPES; i++)
		if ((!type && !types[i]) || (type && types[i] && strcmp(type, types[i]) == 0))
			file = answers[i];
	if (!file || strcmp(file, "-") == 0 || ps_read_all(file, &out->text, &out->len) < 0) {
		out->text = strdup("");
		out->len = 0;
		out->exit_status = 2;
		return 0;
	}
	/* the process's exit status is the one smartctl wrote into its JSON */
	out->exit_status = ps_smart_parse(out->text, out->len, &s, NULL, why, sizeof(why)) == 0 &&
				   s.exit_status >= 0
			       ? s.exit_status
			       : 0;
	return 0;
}

static int no_open(void *arg, const char *path)
{
	return -ENODEV;
}
static void no_close(void *arg, int fd)
{
}
static int no_cmd(void *arg, int fd, uint8_t *b, size_t l)
{
	return -ENODEV;
}
static int no_dst(void *arg, int fd, int code)
{
	return -ENODEV;
}
static void no_sleep(void *arg, double s)
{
}
static double no_clock(void *arg)
{
	return 0;
}

static const struct smart_backend replay_backend = {
    replay_smartctl, no_open, no_close, no_cmd, no_dst, no_cmd, no_sleep, no_clock, NULL};

static enum ps_transport transport_of(const char *t)
{
	static const struct {
		const char *name;
		enum ps_transport tr;
	} map[] = {{"sata", PS_TR_SATA},
		   {"sas", PS_TR_SCSI},
		   {"nvme", PS_TR_NVME},
		   {"usb", PS_TR_USB},
		   {"virtio", PS_TR_VIRTIO}};

	for (size_t i = 0; i < PS_ARRAY_SIZE(map); i++)
		if (strcmp(t, map[i].name) == 0)
			return map[i].tr;
	return PS_TR_UNKNOWN;
}

static void copy_field(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", strcmp(src, "-") == 0 ? "" : src);
}

static void replay(char **f, size_t n)
{
	struct harness h;
	struct ps_drive d = {.size_bytes = 1LL << 30, .removable = 0};
	json_object *out = json_object_new_object(), *x, *ex = json_object_new_array();
	struct ps_smart s;
	char *text = NULL, why[64];
	size_t len;

	for (size_t i = 0; i < MAX_TYPES; i++)
		answers[i] = 4 + i < n ? f[4 + i] : NULL;
	snprintf(d.name, sizeof(d.name), "sda");
	snprintf(d.id, sizeof(d.id), "drive:replay:%s", f[0]);
	d.transport = transport_of(f[1]);
	copy_field(d.model, sizeof(d.model), f[2]);
	copy_field(d.serial, sizeof(d.serial), f[3]);
	snprintf(d.identity_source, sizeof(d.identity_source), "%s",
		 d.transport == PS_TR_USB ? "scsi" : "ata");
	harness_init(&h, &smart_ops, "", PS_PLAN_QUICK);
	h.inv.drives = calloc(1, sizeof(d));
	memcpy(h.inv.drives, &d, sizeof(d));
	h.inv.n_drives = 1;
	h.inv.taken = true;
	harness_run(&h);

	ps_json_set_str(out, "drive", f[0]);
	ps_json_set_str(out, "status", ps_status_name((enum ps_status)h.status));
	ps_json_set_str(out, "reason", h.run.reason[0] ? h.run.reason : NULL);
	x = ps_json_at(ps_json_arr(h.data, "drives"), 0);
	ps_json_set(out, "data", json_object_get(x));
	ps_json_set(out, "findings", json_object_get(h.run.findings));
	for (size_t i = 0; i < ps_json_len(h.run.examined); i++)
		json_object_array_add(ex, json_object_new_string(ps_json_str_or(
					      ps_json_at(h.run.examined, i), "message", "")));
	ps_json_set(out, "examined", ex);
	ps_json_set(out, "verdicts", json_object_get(h.verdicts));
	/* capacity: what the parsed model of the answering JSON holds */
	if (answers[0] && ps_read_all(answers[0], &text, &len) == 0 &&
	    ps_smart_parse(text, len, &s, NULL, why, sizeof(why)) == 0)
		ps_json_set(out, "capacity_bytes", ps_json_new_count(s.capacity_bytes));
	free(text);
	/* smartctl's JSON is in data; the line stays short without it */
	json_object_object_del(ps_json_get(out, "data"), "smartctl");
	puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN));
	json_object_put(out);
	harness_done(&h);
}

int main(void)
{
	char line[8192];

	smart_backend = &replay_backend;
	while (fgets(line, sizeof(line), stdin)) {
		char *f[4 + MAX_TYPES], *save = NULL, *tok;
		size_t n = 0;

		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(line, "\t", &save); tok && n < PS_ARRAY_SIZE(f);
		     tok = strtok_r(NULL, "\t", &save))
			f[n++] = tok;
		if (n < 5) {
			fprintf(stderr,
				"replay_step: a line needs NAME TRANSPORT MODEL SERIAL JSON\n");
			return 2;
		}
		replay(f, n);
		fflush(stdout);
	}
	return 0;
}
