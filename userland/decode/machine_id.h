/* machine_id.h - the stable name of a machine, used as its reports folder. */
#ifndef PS_MACHINE_ID_H
#define PS_MACHINE_ID_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * The machine-id rule (ps_machine_id_rule: DMI UUID, else a meaningful DMI
 * serial, else the first NIC's MAC without colons, else "unknown") applied
 * to machine{} and nics[] (either may be NULL). Writes buf and returns it.
 */
char *ps_machine_id(json_object *machine, json_object *nics, char *buf, size_t len);

#endif
