/*
 * test_superio.c - which driver a board's Super I/O chip needs, read the
 * way sensors-detect reads it: a simulated chip on the configuration port
 * answers only its own vendor's enter sequence (Nuvoton 0x87 0x87, ITE
 * 0x87 0x01 0x55 0x55/0xaa), gives its ID in 0x20/0x21 (Fintek's vendor in
 * 0x23/0x24) and must be left in wait-for-key; an empty bus reads 0xff.
 */
#include "check.h"

#include "decode/superio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

struct chip {
	uint16_t port;	   /* 0x2e or 0x4e; 0 none */
	bool ite;	   /* which key unlocks it */
	uint8_t regs[256]; /* its configuration registers */
	/* state */
	uint8_t key[4];
	int nkey;
	bool open;
	uint8_t index;
	int writes_while_locked, exits;
	bool fail; /* /dev/port refused */
};

static bool key_done(struct chip *c)
{
	static const uint8_t nuvoton[] = {0x87, 0x87};
	uint8_t ite[] = {0x87, 0x01, 0x55, c->port == 0x4e ? 0xaa : 0x55};
	const uint8_t *k = c->ite ? ite : nuvoton;
	int n = c->ite ? 4 : 2;

	return c->nkey >= n && memcmp(c->key + c->nkey - n, k, (size_t)n) == 0;
}

static int sim_outb(void *arg, uint16_t port, uint8_t v)
{
	struct chip *c = arg;

	if (c->fail)
		return -EPERM;
	if (!c->port || (port != c->port && port != c->port + 1))
		return 0; /* nobody there */
	if (port == c->port && !c->open) {
		if (c->nkey == 4)
			memmove(c->key, c->key + 1, 3), c->nkey = 3;
		c->key[c->nkey++] = v;
		c->open = key_done(c);
		c->writes_while_locked++;
		return 0;
	}
	if (!c->open)
		return 0;
	if (port == c->port) {
		if (v == 0xaa && !c->ite) {
			c->open = false, c->nkey = 0, c->exits++;
			return 0;
		}
		c->index = v;
		return 0;
	}
	if (c->index == 0x02 && (v & 0x02)) {
		c->open = false, c->nkey = 0, c->exits++;
		return 0;
	}
	c->regs[c->index] = v;
	return 0;
}

static int sim_inb(void *arg, uint16_t port)
{
	struct chip *c = arg;

	if (c->fail)
		return -EPERM;
	if (!c->port || port != c->port + 1 || !c->open)
		return 0xff; /* an undriven ISA bus */
	return c->regs[c->index];
}

static int probe(struct chip *c, struct ps_sio_found *f, size_t max)
{
	struct ps_sio_ports io = {sim_inb, sim_outb, c};

	return ps_sio_probe(&io, f, max);
}

static void chip_at(struct chip *c, uint16_t port, bool ite, uint16_t id)
{
	memset(c, 0, sizeof(*c));
	c->port = port;
	c->ite = ite;
	c->regs[0x20] = (uint8_t)(id >> 8);
	c->regs[0x21] = (uint8_t)id;
	c->regs[0x23] = c->regs[0x24] = 0xff;
}

static void test_nuvoton(void)
{
	struct ps_sio_found f[4];
	struct chip c;

	/* NCT6798D, revision bits 0x0b as the Labbe board's chip read (0xd42b) */
	chip_at(&c, 0x2e, false, 0xd42b);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_INT(f[0].port, 0x2e);
	CHECK_INT(f[0].devid, 0xd42b);
	CHECK(f[0].chip != NULL);
	CHECK_STR(f[0].chip->name, "NCT6798D");
	CHECK_STR(f[0].chip->driver, "nct6775");
	CHECK(!c.open); /* left in wait-for-key */
	/* NCT6796D differs from NCT6798D in bit 3 only: the kernel's mask 0xfff8 tells them apart
	 */
	chip_at(&c, 0x2e, false, 0xd423);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_STR(f[0].chip->name, "NCT6796D");
	/* W83627DHG (w83627ehf) and NCT6683D (nct6683) at 0x4e */
	chip_at(&c, 0x4e, false, 0xa025);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_INT(f[0].port, 0x4e);
	CHECK_STR(f[0].chip->driver, "w83627ehf");
	chip_at(&c, 0x4e, false, 0xc732);
	probe(&c, f, 4);
	CHECK_STR(f[0].chip->driver, "nct6683");
}

static void test_fintek(void)
{
	struct ps_sio_found f[4];
	struct chip c;

	chip_at(&c, 0x2e, false, 0x0541);
	c.regs[0x23] = 0x19;
	c.regs[0x24] = 0x34;
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_INT(f[0].vendor, 0x1934);
	CHECK_STR(f[0].chip->name, "F71882FG");
	CHECK_STR(f[0].chip->driver, "f71882fg");
	/* the same ID without Fintek's vendor ID is no Fintek chip */
	c.regs[0x23] = 0x5c;
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK(f[0].chip == NULL);
}

static void test_ite(void)
{
	struct ps_sio_found f[4];
	struct chip c;

	/* IT8728F answers only ITE's key: the Nuvoton key reads an undriven bus first */
	chip_at(&c, 0x2e, true, 0x8728);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_INT(f[0].family, PS_SIO_ITE);
	CHECK_STR(f[0].chip->name, "IT8728F");
	CHECK_STR(f[0].chip->driver, "it87");
	CHECK(!c.open);
	CHECK(c.exits >= 1);
	/* at 0x4e ITE's key ends in 0xaa */
	chip_at(&c, 0x4e, true, 0x8733);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_STR(f[0].chip->name, "IT8792E/IT8795E");
	/* IT8688E: known, but this kernel has no driver for it */
	chip_at(&c, 0x2e, true, 0x8688);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK_STR(f[0].chip->name, "IT8688E");
	CHECK(f[0].chip->driver == NULL);
}

static void test_nothing(void)
{
	struct ps_sio_found f[4];
	struct chip c;

	/* a virtual machine or a board without a Super I/O: 0xffff everywhere */
	memset(&c, 0, sizeof(c));
	CHECK_INT(probe(&c, f, 4), 0);
	/* an ID no table knows is still reported, without a driver */
	chip_at(&c, 0x2e, false, 0x1234);
	CHECK_INT(probe(&c, f, 4), 1);
	CHECK(f[0].chip == NULL);
	CHECK_INT(f[0].devid, 0x1234);
	/* ports that cannot be accessed (lockdown refuses /dev/port): an error, not "none" */
	memset(&c, 0, sizeof(c));
	c.fail = true;
	CHECK_INT(probe(&c, f, 4), -EPERM);
	CHECK(ps_sio_lookup(PS_SIO_WINBOND, 0xffff, 0xffff) == NULL);
}

int main(void)
{
	test_nuvoton();
	test_fintek();
	test_ite();
	test_nothing();
	return check_done("test_superio");
}
