/* Host shim of <linux/kconfig.h>: the probes' kernel has tracepoints. */
#ifndef PS_SHIM_LINUX_KCONFIG_H
#define PS_SHIM_LINUX_KCONFIG_H
#define CONFIG_TRACEPOINTS 1
#define IS_ENABLED(option) option
#endif
