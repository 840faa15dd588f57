/*
 * port_use.h - whether the system a --root tree was recorded from uses a
 * network port: what engines/net/ports.c asks rtnetlink on a live system
 * (a bond or bridge master, a global address, the default route), read from
 * the tree's /sys/class/net/NAME/master, /proc/net/if_inet6 and
 * /proc/net/route. A port the system uses is never moved or tested.
 */
#ifndef PS_HW_PORT_USE_H
#define PS_HW_PORT_USE_H

#include <stddef.h>

/*
 * Why port name is in use, written into why ("in use: carries the default
 * route"), or NULL when the tree shows no use (or has none of those files).
 */
const char *ps_port_in_use_root(const char *root, const char *name, char *why, size_t len);

/*
 * Why a step that moves ports does not test port name under --root: its use
 * when the tree shows one, else that such a step runs on a live system only.
 */
const char *ps_port_root_untested(const char *root, const char *name, char *why, size_t len);

/*
 * The same from the two files' text (either may be NULL). Pure: a route
 * line "IFACE 00000000 GATEWAY ... MASK 00000000" is the default route, any
 * other route of IFACE one of its own addresses' prefixes; an if_inet6 line
 * of scope 00 a global address.
 */
const char *ps_port_in_use_text(const char *route, const char *if_inet6, const char *name,
				char *why, size_t len);

#endif
