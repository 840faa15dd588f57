/*
 * memory.c - struct ps_memory: MemTotal, every SMBIOS type 17 memory device
 * (populated or not) from probestick.ko's dmi_walk() table or else from
 * /sys/firmware/dmi/entries (one decoder, kmod/smbios17.h), which of them
 * are RAM (their type 16 arrays), the channels their names give, the
 * memory controller's own channel registers (PROBESTICK_IOC_IMC) and
 * EDAC's controllers and DIMMs.
 */
#include "decode/decode.h"
#include "hw/edac.h"
#include "hw/hw_util.h"
#include "hw/readers.h"
#include "lib/util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* "17-3": a type 17 entry (ps_dir_list keeps them in firmware order, 17-10 after 17-9). */
static bool type17_entry(const char *name)
{
	return strncmp(name, "17-", 3) == 0 && name[3] &&
	       strspn(name + 3, "0123456789") == strlen(name + 3);
}

static void add_slot(struct ps_memory *m, const struct ps_dimm *d)
{
	struct ps_dimm_slot *s = &m->dimms[m->n_dimms++];

	s->d = *d;
}

/*
 * A slot's identity: its locator, with the bank locator too where another
 * device has the same locator (AMD's "DIMM 0" on every channel).
 */
static void slot_identity(const struct ps_memory *m, struct ps_dimm_slot *s)
{
	char name[2 * PS_DMI_STR + 2];
	bool shared = false;

	for (size_t i = 0; i < m->n_dimms && !shared; i++)
		shared = &m->dimms[i] != s && strcmp(m->dimms[i].d.locator, s->d.locator) == 0;
	if (!s->d.locator[0])
		snprintf(name, sizeof(name), "%s", s->d.bank);
	else if (shared && s->d.bank[0])
		snprintf(name, sizeof(name), "%s/%s", s->d.locator, s->d.bank);
	else
		snprintf(name, sizeof(name), "%s", s->d.locator);
	ps_dimm_identity(name, s->d.populated ? s->d.serial : NULL, s->id, sizeof(s->id));
}

/* The type 16 arrays (root-only sysfs entries, also when the module read the devices). */
#define MAX_ARRAYS 32
static size_t read_arrays(const char *root, struct ps_memory_array *a)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	size_t n = 0;

	if (ps_dir_list(ps_path(path, sizeof(path), root, "/sys/firmware/dmi/entries"), &list) < 0)
		return 0;
	for (size_t i = 0; i < list.n && n < MAX_ARRAYS; i++) {
		char *raw;
		size_t len;

		if (strncmp(list.names[i], "16-", 3) != 0 ||
		    ps_read_all(ps_path(path, sizeof(path), root,
					"/sys/firmware/dmi/entries/%s/raw", list.names[i]),
				&raw, &len) < 0)
			continue;
		n += ps_smbios16_decode((const uint8_t *)raw, len, &a[n]) == 0;
		free(raw);
	}
	ps_dir_free(&list);
	return n;
}

static int array_use(const struct ps_memory_array *a, size_t n, unsigned int handle)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].handle == handle)
			return a[i].use;
	return -1;
}

/* Which devices are RAM, the channels of the RAM slots and the identities, read as one table. */
static void whole_table(const char *root, struct ps_memory *m)
{
	struct ps_slot_names *names = calloc(m->n_dimms ? m->n_dimms : 1, sizeof(*names));
	struct ps_memory_array arrays[MAX_ARRAYS];
	size_t n = 0, n_arrays = read_arrays(root, arrays);

	for (size_t i = 0; i < m->n_dimms; i++) {
		struct ps_dimm_slot *s = &m->dimms[i];

		slot_identity(m, s);
		s->ram = ps_dimm_is_ram(&s->d, array_use(arrays, n_arrays, s->d.array_handle));
		s->channel[0] = '\0';
		if (s->ram && names) {
			names[n].locator = s->d.locator;
			names[n++].bank = s->d.bank;
		}
	}
	if (!names)
		return;
	ps_dimm_channels(names, n);
	for (size_t i = 0, k = 0; i < m->n_dimms; i++)
		if (m->dimms[i].ram)
			memcpy(m->dimms[i].channel, names[k++].channel, sizeof(names[0].channel));
	free(names);
}

/* The module's table: the firmware's structures as dmi_walk() finds them. */
static int slots_from_module(int fd, struct ps_memory *m)
{
	struct probestick_dimm *v = NULL, *grown;
	struct probestick_dimm_table t;
	uint32_t room = 16;

	for (int attempt = 0; attempt < 3; attempt++) {
		grown = realloc(v, room * sizeof(*v));
		if (!grown) {
			free(v);
			return -ENOMEM;
		}
		v = grown;
		memset(&t, 0, sizeof(t));
		t.count = room;
		t.entry_size = sizeof(*v);
		t.dimms = (uintptr_t)v;
		if (ioctl(fd, PROBESTICK_IOC_DMI_MEMORY, &t) < 0) {
			int err = -errno;

			free(v);
			return err;
		}
		if (t.count <= room)
			break;
		room = t.count > PROBESTICK_DIMMS_MAX ? PROBESTICK_DIMMS_MAX : t.count;
	}
	if (t.count > room)
		t.count = room;
	m->dimms = calloc(t.count ? t.count : 1, sizeof(*m->dimms));
	if (!m->dimms) {
		free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < t.count; i++) {
		struct ps_dimm d;

		ps_dimm_from_smbios(&v[i], &d);
		add_slot(m, &d);
	}
	free(v);
	m->source = "module";
	return 0;
}

static int slots_from_sysfs(const char *root, struct ps_memory *m)
{
	char path[PATH_MAX];
	struct ps_dirlist list;
	int err = 0, r;

	r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/firmware/dmi/entries"), &list);
	if (r < 0)
		return r;
	m->dimms = calloc(list.n ? list.n : 1, sizeof(*m->dimms));
	if (!m->dimms) {
		ps_dir_free(&list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < list.n; i++) {
		struct ps_dimm d;
		char *raw;
		size_t len;

		if (!type17_entry(list.names[i]))
			continue;
		/* raw is root-only; a non-root run learns nothing about DIMMs */
		r = ps_read_all(ps_path(path, sizeof(path), root,
					"/sys/firmware/dmi/entries/%s/raw", list.names[i]),
				&raw, &len);
		if (r < 0) {
			err = err ? err : r;
			continue;
		}
		r = ps_smbios17_decode((const uint8_t *)raw, len, &d);
		free(raw);
		if (r < 0) {
			err = err ? err : r;
			continue;
		}
		add_slot(m, &d);
	}
	ps_dir_free(&list);
	if (m->n_dimms)
		m->source = "sysfs";
	return err;
}

static void imc_from_module(int fd, struct ps_imc *imc)
{
	struct probestick_imc *q = calloc(1, sizeof(*q));

	if (!q)
		return;
	if (ioctl(fd, PROBESTICK_IOC_IMC, q) == 0) {
		imc->read = true;
		imc->status = q->status;
		ps_copy_str(imc->family, sizeof(imc->family), q->family);
		ps_copy_str(imc->reason, sizeof(imc->reason), q->reason);
		imc->cpu_vendor = q->cpu_vendor;
		imc->cpu_family = q->cpu_family;
		imc->cpu_model = q->cpu_model;
		imc->n = q->status == 0 && q->nr_channels <= PROBESTICK_IMC_MAX_CHANNELS
			     ? q->nr_channels
			     : 0;
		memcpy(imc->ch, q->channels, imc->n * sizeof(imc->ch[0]));
	}
	free(q);
}

/* Distinct channels of the populated DIMMs, when every one of them names its channel. */
static int smbios_channels(const struct ps_memory *m)
{
	int n = 0, populated = 0;

	for (size_t i = 0; i < m->n_dimms; i++) {
		const struct ps_dimm_slot *s = &m->dimms[i];
		bool seen = false;

		if (!s->d.populated || !s->ram)
			continue;
		populated++;
		if (!s->channel[0])
			return PS_UNKNOWN;
		for (size_t k = 0; k < i && !seen; k++)
			seen = m->dimms[k].d.populated && m->dimms[k].ram &&
			       strcmp(m->dimms[k].channel, s->channel) == 0;
		n += !seen;
	}
	return populated ? n : PS_UNKNOWN;
}

int ps_read_memory(const char *root, int module_fd, struct ps_memory *m)
{
	int err = 0, r = -ENODEV;

	memset(m, 0, sizeof(*m));
	m->total_bytes = ps_meminfo_total(root);
	if (m->total_bytes < 0) {
		err = (int)m->total_bytes;
		m->total_bytes = PS_UNKNOWN;
	}
	m->slots_total = m->slots_populated = PS_UNKNOWN;
	m->channels_smbios = m->channels_imc = m->channels_present = PS_UNKNOWN;
	if (module_fd >= 0) {
		r = slots_from_module(module_fd, m);
		imc_from_module(module_fd, &m->imc);
	}
	if (r < 0 && r != -ENOMEM) { /* no module, or no SMBIOS there: sysfs says the same or why */
		free(m->dimms);
		m->dimms = NULL;
		m->n_dimms = 0;
		r = slots_from_sysfs(root, m);
	}
	if (r < 0 && !err)
		err = r;
	whole_table(root, m);
	for (size_t i = 0; i < m->n_dimms; i++) {
		if (!m->dimms[i].ram)
			continue;
		/* a table that lists no RAM says nothing about slots: they stay unknown */
		if (m->slots_total == PS_UNKNOWN)
			m->slots_total = m->slots_populated = 0;
		m->slots_total++;
		m->slots_populated += m->dimms[i].d.populated;
	}
	m->channels_smbios = smbios_channels(m);
	if (m->imc.read && m->imc.status == 0) {
		m->channels_imc = m->channels_present = 0;
		for (size_t i = 0; i < m->imc.n; i++) {
			m->channels_present += !!(m->imc.ch[i].flags & PROBESTICK_IMC_CH_PRESENT);
			m->channels_imc += !!(m->imc.ch[i].flags & PROBESTICK_IMC_CH_POPULATED);
		}
	}
	if (ps_edac_read(root, &m->edac) == -ENOMEM && !err)
		err = -ENOMEM;
	return err;
}
