/* machine_id.c - the machine-id (reports folder name) of a report, from machine{} and nics[].
 * Pure: one rule for the whole program, ps_machine_id_rule() of the probes. */
#include "decode/machine_id.h"
#include "decode/decode.h"

#include <stdio.h>
#include <string.h>

static const char *str_field(json_object *obj, const char *key)
{
	json_object *v;

	if (!obj || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

char *ps_machine_id(json_object *machine, json_object *nics, char *buf, size_t len)
{
	const char *mac = NULL;

	if (nics && json_object_is_type(nics, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(nics) && !mac; i++) {
			const char *m = str_field(json_object_array_get_idx(nics, i), "mac");

			if (m && strlen(m) == 17 && strcmp(m, "00:00:00:00:00:00") != 0)
				mac = m;
		}
	}
	/* The rule re-applied to the fields, so a machine{} from any source gives the same id. */
	ps_machine_id_rule(str_field(machine, "uuid"), str_field(machine, "serial"), mac, buf, len);
	return buf;
}
