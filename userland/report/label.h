/*
 * label.h - a device as a person finds it on the desk: the one label every
 * view a person reads uses (console, report.txt, report.html, compare).
 * Kernel names (sda, eth0) only in brackets, for finding the report's detail.
 */
#ifndef PS_REPORT_LABEL_H
#define PS_REPORT_LABEL_H

#include <json-c/json.h>
#include <stddef.h>

/*
 * The label of a device of kind ("drive", "nic", "link", "dimm", "machine")
 * with its stable id (device, may be NULL) and kernel name (subject, may be
 * NULL), looked up in the report's inventory (drives[], nics[], pcie[]):
 *   drive  "WDC WD10EZEX-08WN4A0 S/N WD-WCC6Y0RL4T0K (sda)", "virtio disk S/N
 *          PSVIRT0001 (vda)", "Cruzer Blade
 *          S/N unknown, USB port 2-1 (sdb)"
 *   nic    "NIC 68:05:ca:12:34:56 in PCI 0000:02:00.0 (enp2s0)"
 *   link   "PCI 0000:01:00.0 Samsung NVMe SSD Controller (nvme)"
 *   dimm   "DIMM ChannelA-DIMM0"
 * A device the inventory does not list gets "<kind> <subject>". What the
 * device does not tell is "unknown". Returns the length written (< len).
 */
size_t ps_device_label(json_object *report, const char *kind, const char *device,
		       const char *subject, char *buf, size_t len);

#endif
