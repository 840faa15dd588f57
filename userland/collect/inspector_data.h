/*
 * inspector_data.h - what OpenStack ironic-inspector's callback (POST
 * /v1/continue) is sent, in the format it expects from its own agent,
 * ironic-python-agent: the hardware inventory (cpu, memory, disks,
 * interfaces, system_vendor, boot), the root disk and the boot interface
 * its processing hooks read (tested against inspector 11.1), and
 * probestick's findings and verdicts as extra data that introspection
 * rules can act on. Built from the typed inventory the plan already holds
 * and from the report's document: nothing is read twice. Pure.
 */
#ifndef PS_COLLECT_INSPECTOR_DATA_H
#define PS_COLLECT_INSPECTOR_DATA_H

#include "hw/inventory.h"
#include "report/doc.h"

#include <json-c/json.h>
#include <net/if.h>

/* The smallest disk the agent takes as a root disk when no hint names one. */
#define PS_INSPECTOR_ROOT_MIN_BYTES (4LL << 30)

/* The port the machine booted from, as the collector brought it up. */
struct ps_inspector_port {
	char mac[18];		/* "52:54:00:12:34:56" (BOOTIF=), "" not named */
	char name[IF_NAMESIZE]; /* the port that got an address, "" none */
	char ipv4[16];		/* its address without the prefix, "" none */
};

/*
 * inventory{}: the agent's fields, unknown as null (never 0, "" or a
 * guess); the boot stick is not one of the machine's disks.
 */
json_object *ps_inspector_inventory(const struct ps_inventory *inv,
				    const struct ps_inspector_port *boot);

/*
 * The disk the agent would pick with no root device hints: the smallest of
 * at least PS_INSPECTOR_ROOT_MIN_BYTES, by name among equals; never the
 * stick. NULL when none is that large.
 */
const struct ps_drive *ps_inspector_root_disk(const struct ps_inventory *inv);

/*
 * probestick{}, the extra data: the run (where it is on the collector),
 * the worst verdict of each kind of device with a reason for people (the
 * device as a person finds it, the rule, the value and the limit), every
 * verdict, the warn and fail findings, each step's status.
 */
struct ps_inspector_run {
	const char *path;	/* "<machine-id>/<run>" as on the collector, NULL unknown */
	const char *report_url; /* the run's folder on the collector, NULL none */
};
json_object *ps_inspector_extra(const struct ps_doc *doc, const struct ps_inventory *inv,
				const struct ps_inspector_run *run);

/* The whole body of the callback: the above, root_disk, boot_interface, configuration, error. */
json_object *ps_inspector_data(const struct ps_inventory *inv, const struct ps_inspector_port *boot,
			       json_object *extra);

#endif
