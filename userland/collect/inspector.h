/*
 * inspector.h - probestick as OpenStack Ironic's ramdisk (README "With
 * OpenStack Ironic"). Booted for an introspection (ironic-inspector's
 * ipa-inspection-callback-url= on the kernel command line: the inspect=
 * setting), the plan runs, then its inventory, findings and verdicts go to
 * the callback (POST, inspector_data.h), retried with back-off while the
 * inspector cannot be reached; the inspector's answer names the Ironic
 * node. Booted as a ramdisk deploy, ironic_node= names it. Either way the
 * report's ironic{} says which node the run was and what the inspector
 * answered, and the collector's index shows the node beside the machine.
 */
#ifndef PS_COLLECT_INSPECTOR_H
#define PS_COLLECT_INSPECTOR_H

#include "collect/inspector_data.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

struct ps_inspector;

/*
 * NULL when neither inspect= nor ironic_node= is set ("" unset, as
 * core/config.c checked them). ca: a PEM file an
 * https:// callback is checked with ("" none). A problem that keeps it from
 * sending (no libcurl) is in why[] and in the report; it stays usable.
 */
struct ps_inspector *ps_inspector_start(const char *inspect, const char *ironic_node,
					const char *ca, char *why, size_t whylen);

/* The report's ironic{} as it stands. */
void ps_inspector_annotate(struct ps_inspector *in, json_object *report);

/* A line for the person watching (the caller's thread). */
typedef void (*ps_inspector_say)(void *arg, bool problem, const char *line);

/*
 * After a plan: its inventory, findings and verdicts to the callback, once
 * per boot, trying again for up to wait_s seconds while the inspector
 * cannot be reached or fails (5xx); a refusal (4xx) is final. The report's
 * ironic{} gets the outcome. views: the set the report is read with
 * (ps_views()). true when the inspector took it (or there is no callback to
 * send to).
 */
bool ps_inspector_send(struct ps_inspector *in, const struct ps_inventory *inv, json_object *report,
		       const struct ps_view_set *views, const struct ps_inspector_port *boot,
		       const struct ps_inspector_run *run, double wait_s, ps_inspector_say say,
		       void *arg);

void ps_inspector_free(struct ps_inspector *in);

/*
 * The inspector's answer to the callback: {"uuid": NODE} on success,
 * {"error": {"message": TEXT}} on a refusal. node[] gets a well-formed UUID
 * ("" none), message[] the error's text cleaned for a console ("" none).
 * 0 when the body is a JSON object, -EINVAL otherwise. Pure.
 */
int ps_inspector_reply(const char *body, size_t len, char *node, size_t nodelen, char *message,
		       size_t msglen);

#endif
