/*
 * hw.h - the inventory section by section as JSON, for the callers that
 * still work on report JSON (steps/inventory.c, cli/cli.c). Thin wrappers:
 * each reads its section into the typed inventory (hw/inventory.h) and
 * serializes it with the code of ps_inventory_json(); they go once those
 * callers use ps_inventory_take() and ps_inventory_json(). Each returns 0
 * or a negative errno. A missing file is a null field and, where it
 * matters, a finding; never a crash.
 */
#ifndef PS_PROBES_H
#define PS_PROBES_H

#include <json-c/json.h>
#include <stddef.h>

/* machine{}: DMI, CPU, memory size, kernel. */
int ps_probe_machine(const char *root, json_object *machine);

/* pcie[]: from /dev/probestick when module_fd >= 0, else from sysfs. */
int ps_probe_pcie(const char *root, int module_fd, json_object *pcie);

/* drives[]: block devices; boot_disk (e.g. "sda", or NULL) is marked as the stick. */
int ps_probe_drives(const char *root, const char *boot_disk, json_object *drives);

/* nics[]: network interfaces except loopback and virtual ones. */
int ps_probe_nics(const char *root, json_object *nics);

/* memory{}: total size and SMBIOS type 17 DIMM slots. */
int ps_probe_memory(const char *root, json_object *memory);

/*
 * The whole disk ("sdb") holding the file system mounted at or above dir
 * (the stick's mount point), from root's /proc/self/mountinfo. 0 or -errno.
 */
int ps_boot_disk(const char *root, const char *dir, char *disk, size_t len);

#endif
