/*
 * machine.c - machine{} of the report: DMI identity, CPU model and topology,
 * memory size, kernel command line, and the machine-id derived from them.
 */
#include "decode.h"
#include "probe_util.h"
#include "probes.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
	const char *file, *key;
} dmi_fields[] = {
    {"sys_vendor", "vendor"},	{"product_name", "product"},	  {"product_serial", "serial"},
    {"product_uuid", "uuid"},	{"bios_vendor", "bios_vendor"},	  {"bios_version", "bios_version"},
    {"bios_date", "bios_date"}, {"board_vendor", "board_vendor"}, {"board_name", "board_product"},
};

struct cpu_topology {
	int logical;
	/* (package, core) pairs seen; a machine has far fewer than this */
	long pairs[4096][2];
	int n_pairs;
	long packages[256];
	int n_packages;
	bool topology_known;
};

static void add_unique_pair(struct cpu_topology *t, long pkg, long core)
{
	for (int i = 0; i < t->n_pairs; i++)
		if (t->pairs[i][0] == pkg && t->pairs[i][1] == core)
			return;
	if (t->n_pairs < (int)PS_ARRAY_SIZE(t->pairs)) {
		t->pairs[t->n_pairs][0] = pkg;
		t->pairs[t->n_pairs][1] = core;
		t->n_pairs++;
	}
	for (int i = 0; i < t->n_packages; i++)
		if (t->packages[i] == pkg)
			return;
	if (t->n_packages < (int)PS_ARRAY_SIZE(t->packages))
		t->packages[t->n_packages++] = pkg;
}

/* Value of a "key\t: value" line of /proc/cpuinfo, or NULL for another key. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	if (strncmp(line, key, n) != 0)
		return NULL;
	p = line + n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

/*
 * CPU model, microcode and topology. Each processor block ends at an empty
 * line; a block without both "physical id" and "core id" (some VMs, ARM)
 * leaves cores and packages unknown rather than guessed.
 */
static int probe_cpu(const char *root, json_object *machine)
{
	char path[PATH_MAX], *data, *save = NULL, model[256] = "", microcode[64] = "";
	struct cpu_topology *t = calloc(1, sizeof(*t));
	long pkg = -1, core = -1;
	bool in_block = false, all_blocks_have_ids = true;
	size_t len;
	int ret;

	if (!t)
		return -ENOMEM;
	ret = ps_read_all(ps_path(path, sizeof(path), root, "/proc/cpuinfo"), &data, &len);
	if (ret < 0) {
		free(t);
		json_object_object_add(machine, "cpu_model", NULL);
		json_object_object_add(machine, "cpu_logical", NULL);
		json_object_object_add(machine, "cpu_cores", NULL);
		json_object_object_add(machine, "cpu_packages", NULL);
		json_object_object_add(machine, "microcode", NULL);
		return ret;
	}
	for (char *line = strtok_r(data, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
		const char *v;

		if (!line || cpuinfo_value(line, "processor")) {
			if (in_block) {
				if (pkg >= 0 && core >= 0)
					add_unique_pair(t, pkg, core);
				else
					all_blocks_have_ids = false;
			}
			if (!line)
				break;
			in_block = true;
			t->logical++;
			pkg = core = -1;
			continue;
		}
		if ((v = cpuinfo_value(line, "model name")) && !model[0])
			snprintf(model, sizeof(model), "%s", v);
		else if ((v = cpuinfo_value(line, "microcode")) && !microcode[0])
			snprintf(microcode, sizeof(microcode), "%s", v);
		else if ((v = cpuinfo_value(line, "physical id")))
			pkg = strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "core id")))
			core = strtol(v, NULL, 10);
	}
	t->topology_known = t->logical > 0 && all_blocks_have_ids;
	ps_json_add_str(machine, "cpu_model", model);
	ps_json_add_int(machine, "cpu_logical", t->logical > 0 ? t->logical : -1);
	ps_json_add_int(machine, "cpu_cores", t->topology_known ? t->n_pairs : -1);
	ps_json_add_int(machine, "cpu_packages", t->topology_known ? t->n_packages : -1);
	ps_json_add_str(machine, "microcode", microcode);
	free(data);
	free(t);
	return 0;
}

/* MAC of the first physical NIC by name, for the machine-id. */
static int first_nic_mac(const char *root, char *mac, size_t len)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	int ret = -ENOENT;

	if (ps_dir_list(ps_path(path, sizeof(path), root, "/sys/class/net"), &list) < 0)
		return -ENOENT;
	for (size_t i = 0; i < list.n && ret < 0; i++) {
		char buf[64];

		if (access(ps_path(path, sizeof(path), root, "/sys/class/net/%s/device",
				   list.names[i]),
			   F_OK) != 0)
			continue;
		if (ps_read_str(ps_path(path, sizeof(path), root, "/sys/class/net/%s/address",
					list.names[i]),
				buf, sizeof(buf)) == 17 &&
		    strcmp(buf, "00:00:00:00:00:00") != 0) {
			snprintf(mac, len, "%s", buf);
			ret = 0;
		}
	}
	ps_dir_free(&list);
	return ret;
}

int ps_probe_machine(const char *root, json_object *machine)
{
	char path[PATH_MAX], uuid[256] = "", serial[256] = "", mac[64] = "", id[128], cmdline[4096];
	int dmi_read = 0, ret = 0, r;
	int64_t total;

	json_object_object_add(machine, "id", NULL); /* first in the object, filled last */
	for (size_t i = 0; i < PS_ARRAY_SIZE(dmi_fields); i++) {
		char buf[256];
		int n = ps_read_str(
		    ps_path(path, sizeof(path), root, "/sys/class/dmi/id/%s", dmi_fields[i].file),
		    buf, sizeof(buf));

		/* placeholders stay as read: they tell the reader what the BIOS says */
		ps_json_add_str(machine, dmi_fields[i].key, n > 0 ? buf : NULL);
		if (n >= 0)
			dmi_read++;
		if (n > 0 && strcmp(dmi_fields[i].key, "uuid") == 0)
			snprintf(uuid, sizeof(uuid), "%s", buf);
		if (n > 0 && strcmp(dmi_fields[i].key, "serial") == 0)
			snprintf(serial, sizeof(serial), "%s", buf);
	}

	r = probe_cpu(root, machine);
	if (r < 0)
		ret = r;
	total = ps_meminfo_total(root);
	ps_json_add_int(machine, "memory_bytes", total);
	if (total < 0)
		ret = (int)total;
	r = ps_read_str(ps_path(path, sizeof(path), root, "/proc/cmdline"), cmdline,
			sizeof(cmdline));
	ps_json_add_str(machine, "kernel_cmdline", r >= 0 ? cmdline : NULL);

	first_nic_mac(root, mac, sizeof(mac));
	ps_machine_id_rule(uuid, serial, mac[0] ? mac : NULL, id, sizeof(id));
	json_object_object_add(machine, "id", json_object_new_string(id));
	if (ret == 0 && dmi_read == 0)
		ret = -ENOENT; /* no DMI at all: the step says so */
	return ret;
}
