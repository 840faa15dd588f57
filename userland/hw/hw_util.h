/* hw_util.h - what the inventory readers share beyond lib/util.h (its
 * directory listings): MemTotal. */
#ifndef PS_PROBE_UTIL_H
#define PS_PROBE_UTIL_H

#include "lib/util.h"

#include <stdint.h>

/* MemTotal of root's /proc/meminfo in bytes, or -errno. */
int64_t ps_meminfo_total(const char *root);

#endif
