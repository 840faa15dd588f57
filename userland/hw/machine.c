/*
 * machine.c - struct ps_machine: DMI identity, CPU model and topology, the
 * hypervisor flag, memory size, kernel command line, and the machine-id
 * derived from them.
 */
#include "decode/decode.h"
#include "hw/hw_util.h"
#include "hw/readers.h"
#include "lib/redact.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DMI(file, field)                                                                           \
	{                                                                                          \
		file, offsetof(struct ps_machine, field), sizeof(((struct ps_machine *)0)->field)  \
	}
static const struct {
	const char *file;
	size_t offset, size;
} dmi_fields[] = {
    DMI("sys_vendor", vendor),	      DMI("product_name", product),
    DMI("product_serial", serial),    DMI("product_uuid", uuid),
    DMI("bios_vendor", bios_vendor),  DMI("bios_version", bios_version),
    DMI("bios_date", bios_date),      DMI("board_vendor", board_vendor),
    DMI("board_name", board_product),
};
#undef DMI

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

/* The word flag in a /proc/cpuinfo "flags" value. */
static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

/*
 * CPU model, microcode, the hypervisor flag and topology. Each processor
 * block ends at an empty line; a block without both "physical id" and "core
 * id" (some VMs, ARM) leaves cores and packages unknown rather than guessed.
 */
static int probe_cpu(const char *root, struct ps_machine *m)
{
	char path[PATH_MAX], *data, *save = NULL;
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
		if ((v = cpuinfo_value(line, "model name")) && !m->cpu_model[0])
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", v);
		else if ((v = cpuinfo_value(line, "microcode")) && !m->microcode[0])
			snprintf(m->microcode, sizeof(m->microcode), "%s", v);
		else if ((v = cpuinfo_value(line, "physical id")))
			pkg = strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "core id")))
			core = strtol(v, NULL, 10);
		else if ((v = cpuinfo_value(line, "flags")) && !m->cpu_flags_known) {
			/* set by the hypervisor for its guests: emulated devices, no speed rules */
			m->under_hypervisor = has_flag(v, "hypervisor");
			m->cpu_flags_known = true;
		}
	}
	t->topology_known = t->logical > 0 && all_blocks_have_ids;
	m->cpu_logical = t->logical > 0 ? t->logical : PS_UNKNOWN;
	m->cpu_cores = t->topology_known ? t->n_pairs : PS_UNKNOWN;
	m->cpu_packages = t->topology_known ? t->n_packages : PS_UNKNOWN;
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

int ps_read_machine(const char *root, struct ps_machine *m)
{
	char path[PATH_MAX], mac[64] = "";
	int dmi_read = 0, ret = 0, r;

	memset(m, 0, sizeof(*m));
	m->cpu_logical = m->cpu_cores = m->cpu_packages = PS_UNKNOWN;
	m->memory_bytes = PS_UNKNOWN;
	for (size_t i = 0; i < PS_ARRAY_SIZE(dmi_fields); i++) {
		char *field = (char *)m + dmi_fields[i].offset;
		int n = ps_read_str(
		    ps_path(path, sizeof(path), root, "/sys/class/dmi/id/%s", dmi_fields[i].file),
		    field, dmi_fields[i].size);

		/* placeholders stay as read: they tell the reader what the BIOS says */
		if (n < 0) {
			field[0] = '\0';
		} else {
			/* the firmware's padding (" 3.08", as dmidecode shows it, trimmed) */
			size_t lead = strspn(field, " \t");

			memmove(field, field + lead, strlen(field + lead) + 1);
			dmi_read++;
		}
	}

	r = probe_cpu(root, m);
	if (r < 0)
		ret = r;
	m->memory_bytes = ps_meminfo_total(root);
	if (m->memory_bytes < 0) {
		ret = (int)m->memory_bytes;
		m->memory_bytes = PS_UNKNOWN;
	}
	if (ps_read_str(ps_path(path, sizeof(path), root, "/proc/cmdline"), m->kernel_cmdline,
			sizeof(m->kernel_cmdline)) < 0)
		m->kernel_cmdline[0] = '\0';
	/* the collector's password may be on it: the report never holds it */
	ps_config_redact_cmdline(m->kernel_cmdline);

	first_nic_mac(root, mac, sizeof(mac));
	ps_machine_id_rule(m->uuid, m->serial, mac[0] ? mac : NULL, m->id, sizeof(m->id));
	if (ret == 0 && dmi_read == 0)
		ret = -ENOENT; /* no DMI at all: the step says so */
	return ret;
}
