/*
 * readers.h - inside hw/ only: one reader per inventory section, filling the
 * typed structs of hw/inventory.h, and one serializer per section for
 * ps_inventory_json() (hw/inventory_json.c) and the hw.h wrappers.
 */
#ifndef PS_HW_READERS_H
#define PS_HW_READERS_H

#include "hw/inventory.h"

#include <json-c/json.h>

/* Each returns 0 or the negative errno of what it could not read; what it could read stays. */
int ps_read_machine(const char *root, struct ps_machine *m);
int ps_read_pcie(const char *root, int module_fd, struct ps_inventory *inv);
int ps_read_drives(const char *root, const char *boot_disk, struct ps_drive **drives, size_t *n);
/* ethtool (live system only, root ""): ethtool queries per interface. */
int ps_read_nics(const char *root, struct ps_nic **nics, size_t *n);
int ps_read_memory(const char *root, int module_fd, struct ps_memory *m);

void ps_machine_to_json(const struct ps_machine *m, json_object *machine);
void ps_pcie_to_json(const struct ps_inventory *inv, json_object *pcie);
void ps_drives_to_json(const struct ps_inventory *inv, json_object *drives);
void ps_nics_to_json(const struct ps_inventory *inv, json_object *nics);
void ps_memory_to_json(const struct ps_memory *m, json_object *memory);

/* A NIC whose every field is unknown, before the readers fill it. */
void ps_nic_unknown(struct ps_nic *n);
/*
 * What ethtool adds to the sysfs view (pure: e is what ps_ethtool_query
 * answered); each fact keeps one home in struct ps_nic.
 */
struct ps_eth_info;
void ps_nic_apply_ethtool(struct ps_nic *n, const struct ps_eth_info *e);

/* The verdict and lost bandwidth of inv->pcie[i], from it and its link partner. */
void ps_pcie_judge(struct ps_inventory *inv, size_t i);

#endif
