/*
 * memory.c - memory{} of the report: MemTotal and every SMBIOS type 17
 * memory device (populated or not) from /sys/firmware/dmi/entries.
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

static json_object *dimm_json(const struct ps_dimm *d)
{
	json_object *o = json_object_new_object();

	ps_json_add_str(o, "locator", d->locator);
	ps_json_add_str(o, "bank", d->bank);
	json_object_object_add(o, "populated", json_object_new_boolean(d->populated));
	ps_json_add_int(o, "size_bytes", d->size_bytes);
	ps_json_add_str(o, "type", d->populated ? d->type : NULL);
	ps_json_add_str(o, "form_factor", d->form_factor);
	ps_json_add_int(o, "speed_mts", d->populated ? d->speed_mts : -1);
	ps_json_add_int(o, "configured_speed_mts", d->populated ? d->configured_speed_mts : -1);
	ps_json_add_int(o, "rank", d->populated ? d->rank : -1);
	ps_json_add_str(o, "manufacturer", d->manufacturer);
	ps_json_add_str(o, "part_number", d->part_number);
	ps_json_add_str(o, "serial", d->serial);
	return o;
}

/* "17-3" -> 3, to keep slots in firmware order (17-10 after 17-9). */
static bool type17_entry(const char *name)
{
	return strncmp(name, "17-", 3) == 0 && name[3] &&
	       strspn(name + 3, "0123456789") == strlen(name + 3);
}

int ps_probe_memory(const char *root, json_object *memory)
{
	char path[PATH_MAX];
	json_object *dimms = json_object_new_array();
	struct ps_dirlist list;
	int64_t total = ps_meminfo_total(root);
	int total_slots = 0, populated = 0, err = 0, r;

	ps_json_add_int(memory, "total_bytes", total);
	if (total < 0)
		err = (int)total;
	r = ps_dir_list(ps_path(path, sizeof(path), root, "/sys/firmware/dmi/entries"), &list);
	if (r < 0) {
		json_object_object_add(memory, "slots_total", NULL);
		json_object_object_add(memory, "slots_populated", NULL);
		json_object_object_add(memory, "dimms", dimms);
		return err ? err : r;
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
		total_slots++;
		populated += d.populated;
		json_object_array_add(dimms, dimm_json(&d));
	}
	ps_dir_free(&list);
	ps_json_add_int(memory, "slots_total", err && !total_slots ? -1 : total_slots);
	ps_json_add_int(memory, "slots_populated", err && !total_slots ? -1 : populated);
	json_object_object_add(memory, "dimms", dimms);
	return err;
}
