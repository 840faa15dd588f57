/*
 * ata_native.h - the reader of what an ATA drive hides (HPA, DCO): the drive's
 * answers to read-only ATA PASS-THROUGH commands, judged by decode/ata_capacity.h.
 */
#ifndef PS_HW_ATA_NATIVE_H
#define PS_HW_ATA_NATIVE_H

#include "decode/ata_capacity.h"

#include <json-c/json.h>

/*
 * Read what the ATA drive `name` hides: its IDENTIFY data from sysfs
 * (vpd_pg89), then the native max address and DCO IDENTIFY through SG_IO
 * ATA PASS-THROUGH on /dev/name. Below a fixture root the drive's answers
 * come from root/dev/name.ata/ (read_native_max_ext.sense, dco_identify.data,
 * ...: what SG_IO gave a real drive); a tree without them leaves it unexamined.
 */
void ps_ata_capacity_read(const char *root, const char *name, struct ps_ata_capacity *out);
/* drives[].capacity (docs/report.md); NULL for a drive not examined. */
json_object *ps_ata_capacity_json(const struct ps_ata_capacity *c);

#endif
