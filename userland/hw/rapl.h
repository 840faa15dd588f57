/*
 * rapl.h - the CPU's own energy counters through the kernel's powercap
 * interface (RAPL, /sys/class/powercap/intel-rapl:*: Intel, and AMD Zen
 * through the same driver): the zones, their readings, the energy between
 * two readings across a counter wrap, and why there are none.
 */
#ifndef PS_HW_RAPL_H
#define PS_HW_RAPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PS_RAPL_MAX 32

enum ps_rapl_kind {
	PS_RAPL_PACKAGE = 0, /* "package-0", "package-1-die-0": the whole socket */
	PS_RAPL_CORE,	     /* the cores, inside the package's figure */
	PS_RAPL_UNCORE,	     /* the client parts' graphics, inside the package's figure */
	PS_RAPL_DRAM,	     /* the memory behind the socket, outside the package's figure */
	PS_RAPL_PSYS,	     /* the platform (laptops): holds the package, never summed with it */
	PS_RAPL_OTHER,
};

struct ps_rapl_zone {
	char zone[48]; /* the powercap zone: "intel-rapl:0:1" */
	char name[32]; /* its name file: "package-0", "core", "uncore", "dram", "psys" */
	enum ps_rapl_kind kind;
	uint64_t max_uj; /* max_energy_range_uj: the counter wraps past it; 0 unknown */
	uint64_t uj;	 /* energy_uj at the last read */
	int err;	 /* 0, or -errno of the last read of energy_uj */
	bool counted;	 /* in the machine's total: the packages and DRAM */
};

struct ps_rapl {
	char source[24]; /* "intel-rapl", else "intel-rapl-mmio" */
	struct ps_rapl_zone z[PS_RAPL_MAX];
	size_t n;
};

/* "package-0" and "package-0-die-1" are packages; the others by their name. Pure. */
enum ps_rapl_kind ps_rapl_kind_of(const char *name);
const char *ps_rapl_kind_name(enum ps_rapl_kind k);

/*
 * The energy between readings a and b of one counter (µJ) into *delta: 0
 * when it ran straight, 1 when it wrapped past max_uj once (a reading is
 * taken at least once a second, and the counter takes minutes to wrap at
 * any real power), -EINVAL when a reading lies past max_uj or b < a
 * without a known range. Pure.
 */
int ps_rapl_delta(uint64_t a, uint64_t b, uint64_t max_uj, uint64_t *delta_uj);

/*
 * The machine's energy between two readings a and b of the same zones
 * (ps_rapl_find, then ps_rapl_read into a copy): the counted zones, each
 * across a wrap, in joules. 0, or -EIO when a counted zone was not read,
 * -EINVAL when a reading lies past its range or the zones differ,
 * -ENOENT when there is no counted zone. Pure.
 */
int ps_rapl_counted_delta(const struct ps_rapl *a, const struct ps_rapl *b, double *joules);

/*
 * Find root's RAPL zones (intel-rapl:*, else intel-rapl-mmio:*) and take
 * a first reading. 0 with r->n zones (may be 0), -ENOENT when the kernel
 * has no /sys/class/powercap.
 */
int ps_rapl_find(const char *root, struct ps_rapl *r);
/* Read every zone's energy_uj now; how many were read. */
size_t ps_rapl_read(const char *root, struct ps_rapl *r);

/* What tells why a machine has no energy figure. */
struct ps_rapl_env {
	bool powercap;	   /* /sys/class/powercap exists */
	size_t zones;	   /* RAPL zones found */
	int read_err;	   /* the first energy_uj read error (-EACCES), 0 none */
	int common, msr;   /* intel_rapl_common, intel_rapl_msr in /sys/module: 1, 0, -1 unknown */
	char vendor[16];   /* "GenuineIntel", "AuthenticAMD", "" */
	int family, model; /* -1 unknown */
	int hypervisor;	   /* the CPU's hypervisor flag: 1, 0, -1 unknown */
};

/* vendor, family, model and the hypervisor flag of /proc/cpuinfo's first CPU. Pure. */
void ps_rapl_env_cpuinfo(struct ps_rapl_env *e, const char *text, size_t len);
/* Fill e from root (after ps_rapl_find into r, which may be NULL). */
void ps_rapl_env_read(const char *root, const struct ps_rapl *r, struct ps_rapl_env *e);
/*
 * Why there is no energy figure, in words a technician acts on; "" when
 * the zones are there and read. Pure.
 */
void ps_rapl_reason(const struct ps_rapl_env *e, char *buf, size_t len);

#endif
