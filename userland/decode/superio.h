/*
 * superio.h - which hardware monitor a desktop board's Super I/O chip is,
 * read the way lm-sensors' sensors-detect and the kernel drivers read it:
 * through the configuration ports 0x2e or 0x4e, each vendor's documented
 * enter sequence (Winbond, Nuvoton and Fintek 0x87 0x87; ITE 0x87 0x01
 * 0x55 0x55, or 0xaa at 0x4e), the chip ID in registers 0x20/0x21 (Fintek's
 * vendor ID in 0x23/0x24), and the exit sequence. The ports are behind an
 * ops struct, so tests run a chip of their own.
 */
#ifndef PS_DECODE_SUPERIO_H
#define PS_DECODE_SUPERIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The vendors' enter sequences: each chip answers only its own. */
enum ps_sio_family {
	PS_SIO_WINBOND = 0, /* Winbond, Nuvoton, Fintek: 0x87 0x87, exit 0xaa */
	PS_SIO_ITE,	    /* ITE: 0x87 0x01 0x55 0x55 (0xaa at 0x4e), exit reg 0x02 = 0x02 */
};

struct ps_sio_chip {
	const char *name;   /* "NCT6798D" */
	const char *driver; /* the kernel module that drives it: "nct6775"; NULL none */
};

/*
 * The chip a family's enter sequence found: devid from registers 0x20
 * (high) and 0x21, vendor (0x23/0x24, Fintek's 0x1934) where the family
 * has one. NULL when no chip this table knows. Pure.
 */
const struct ps_sio_chip *ps_sio_lookup(enum ps_sio_family family, uint16_t devid, uint16_t vendor);

/* Port access: a byte in, a byte out (/dev/port live; a simulated chip in tests). */
struct ps_sio_ports {
	int (*inb)(void *arg, uint16_t port);		      /* 0..255, or -errno */
	int (*outb)(void *arg, uint16_t port, uint8_t value); /* 0 or -errno */
	void *arg;
};

struct ps_sio_found {
	uint16_t port; /* 0x2e or 0x4e */
	enum ps_sio_family family;
	uint16_t devid, vendor;		/* as read; vendor 0xffff where the family has none */
	const struct ps_sio_chip *chip; /* NULL: an ID this table does not know */
};

/*
 * Try both configuration ports with each family's sequence; what
 * answered (an ID other than 0x0000 and 0xffff) into found. Returns how
 * many, or -errno when a port could not be accessed at all.
 */
int ps_sio_probe(const struct ps_sio_ports *io, struct ps_sio_found *found, size_t max);

#endif
