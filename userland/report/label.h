/*
 * label.h - the name a person finds a device by (model and serial, MAC and
 * slot), from a report's inventory, for the views people read.
 */
#ifndef PS_REPORT_LABEL_H
#define PS_REPORT_LABEL_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * Label of the device of kind ("drive", "nic", "link", "dimm", "machine"; NULL:
 * any) with stable id device and kernel name subject (either may be NULL), as
 * report's drives[], nics[], pcie[] and memory.dimms[] describe it:
 * "QEMU HARDDISK S/N PS-SATA-0001 (sda)", "NIC 52:54:00:50:00:01 in PCI
 * 0000:04:00.0 (eth0)", "PCI 0000:00:04.0 82574L Gigabit Network Connection
 * (e1000e)", "DIMM DIMM 0". Missing facts read "unknown"; a device the
 * inventory does not list is "<kind> <subject or id>". Returns the length
 * written (< len).
 */
size_t ps_device_label(json_object *report, const char *kind, const char *device,
		       const char *subject, char *buf, size_t len);

#endif
