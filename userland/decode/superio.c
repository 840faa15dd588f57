/*
 * superio.c - the Super I/O chip IDs the kernel's hardware monitor drivers
 * claim (drivers/hwmon nct6775-platform.c, nct6683.c, w83627ehf.c, it87.c,
 * f71882fg.c of Linux 6.1, Debian's kernel), and the probe that reads a
 * chip's ID through its configuration port.
 */
#include "decode/superio.h"

#include <errno.h>
#include <string.h>

#define REG_LDN_CONFIG 0x02 /* configuration control: 0x02 returns to wait-for-key */
#define REG_DEVID      0x20
#define REG_VENDOR     0x23
#define FINTEK_VENDOR  0x1934

struct id {
	uint16_t id, mask;
	struct ps_sio_chip chip;
};

/* Winbond and Nuvoton: the low bits are the chip's revision. */
static const struct id winbond_ids[] = {
    {0x8850, 0xfff0, {"W83627EHF", "w83627ehf"}},
    {0x8860, 0xfff0, {"W83627EHG", "w83627ehf"}},
    {0xa020, 0xfff0, {"W83627DHG", "w83627ehf"}},
    {0xb070, 0xfff0, {"W83627DHG-P", "w83627ehf"}},
    {0xa230, 0xfff0, {"W83627UHG", "w83627ehf"}},
    {0xa510, 0xfff0, {"W83667HG", "w83627ehf"}},
    {0xb350, 0xfff0, {"W83667HG-B", "w83627ehf"}},
    {0xc450, 0xfff8, {"NCT6106D", "nct6775"}},
    {0xd280, 0xfff8, {"NCT6116D", "nct6775"}},
    {0xb470, 0xfff8, {"NCT6775F", "nct6775"}},
    {0xc330, 0xfff8, {"NCT6776D/F", "nct6775"}},
    {0xc560, 0xfff8, {"NCT6779D", "nct6775"}},
    {0xc800, 0xfff8, {"NCT6791D", "nct6775"}},
    {0xc910, 0xfff8, {"NCT6792D", "nct6775"}},
    {0xd120, 0xfff8, {"NCT6793D", "nct6775"}},
    {0xd350, 0xfff8, {"NCT6795D", "nct6775"}},
    {0xd420, 0xfff8, {"NCT6796D", "nct6775"}},
    {0xd450, 0xfff8, {"NCT6797D", "nct6775"}},
    {0xd428, 0xfff8, {"NCT6798D", "nct6775"}},
    {0xd800, 0xfff8, {"NCT6799D", "nct6775"}},
    /* the embedded-controller monitors: nct6683 attaches only where it knows the board */
    {0xc730, 0xfff0, {"NCT6683D", "nct6683"}},
    {0xd440, 0xfff0, {"NCT6686D", "nct6683"}},
    {0xd590, 0xfff0, {"NCT6687D", "nct6683"}},
};

/* Fintek: exact IDs, behind Fintek's vendor ID. */
static const struct id fintek_ids[] = {
    {0x0901, 0xffff, {"F71808E", "f71882fg"}},	{0x1001, 0xffff, {"F71808A", "f71882fg"}},
    {0x0507, 0xffff, {"F71858FG", "f71882fg"}}, {0x0903, 0xffff, {"F71858AD", "f71882fg"}},
    {0x0601, 0xffff, {"F71862FG", "f71882fg"}}, {0x1106, 0xffff, {"F71868A", "f71882fg"}},
    {0x0814, 0xffff, {"F71869", "f71882fg"}},	{0x1007, 0xffff, {"F71869A", "f71882fg"}},
    {0x0541, 0xffff, {"F71882FG", "f71882fg"}}, {0x0723, 0xffff, {"F71889FG", "f71882fg"}},
    {0x0909, 0xffff, {"F71889ED", "f71882fg"}}, {0x1005, 0xffff, {"F71889A", "f71882fg"}},
    {0x0581, 0xffff, {"F8000", "f71882fg"}},	{0x1210, 0xffff, {"F81768D", "f71882fg"}},
    {0x0704, 0xffff, {"F81865F", "f71882fg"}},	{0x1010, 0xffff, {"F81866", "f71882fg"}},
    {0x1502, 0xffff, {"F81966", "f71882fg"}},	{0x1806, 0xffff, {"F81968", "f71882fg"}},
};

/* ITE: exact IDs; the newer IT8686E/IT8688E/IT8689E have no driver in this kernel. */
static const struct id ite_ids[] = {
    {0x8705, 0xffff, {"IT8705F", "it87"}},   {0x8712, 0xffff, {"IT8712F", "it87"}},
    {0x8716, 0xffff, {"IT8716F", "it87"}},   {0x8718, 0xffff, {"IT8718F", "it87"}},
    {0x8720, 0xffff, {"IT8720F", "it87"}},   {0x8721, 0xffff, {"IT8721F/IT8758E", "it87"}},
    {0x8726, 0xffff, {"IT8726F", "it87"}},   {0x8728, 0xffff, {"IT8728F", "it87"}},
    {0x8732, 0xffff, {"IT8732F", "it87"}},   {0x8733, 0xffff, {"IT8792E/IT8795E", "it87"}},
    {0x8771, 0xffff, {"IT8771E", "it87"}},   {0x8772, 0xffff, {"IT8772E", "it87"}},
    {0x8781, 0xffff, {"IT8781F", "it87"}},   {0x8782, 0xffff, {"IT8782F", "it87"}},
    {0x8783, 0xffff, {"IT8783E/F", "it87"}}, {0x8786, 0xffff, {"IT8786E", "it87"}},
    {0x8790, 0xffff, {"IT8790E", "it87"}},   {0x8603, 0xffff, {"IT8603E", "it87"}},
    {0x8620, 0xffff, {"IT8620E", "it87"}},   {0x8622, 0xffff, {"IT8622E", "it87"}},
    {0x8623, 0xffff, {"IT8623E", "it87"}},   {0x8628, 0xffff, {"IT8628E", "it87"}},
    {0x8655, 0xffff, {"IT8655E", NULL}},     {0x8665, 0xffff, {"IT8665E", NULL}},
    {0x8686, 0xffff, {"IT8686E", NULL}},     {0x8688, 0xffff, {"IT8688E", NULL}},
    {0x8689, 0xffff, {"IT8689E", NULL}},     {0x8695, 0xffff, {"IT87952E", NULL}},
};

static const struct ps_sio_chip *find(const struct id *t, size_t n, uint16_t devid)
{
	for (size_t i = 0; i < n; i++)
		if ((devid & t[i].mask) == t[i].id)
			return &t[i].chip;
	return NULL;
}

const struct ps_sio_chip *ps_sio_lookup(enum ps_sio_family family, uint16_t devid, uint16_t vendor)
{
	if (family == PS_SIO_ITE)
		return find(ite_ids, sizeof(ite_ids) / sizeof(ite_ids[0]), devid);
	if (vendor == FINTEK_VENDOR)
		return find(fintek_ids, sizeof(fintek_ids) / sizeof(fintek_ids[0]), devid);
	return find(winbond_ids, sizeof(winbond_ids) / sizeof(winbond_ids[0]), devid);
}

/* ---- the probe ---- */

static int reg_read(const struct ps_sio_ports *io, uint16_t port, uint8_t reg)
{
	int ret = io->outb(io->arg, port, reg);

	return ret < 0 ? ret : io->inb(io->arg, (uint16_t)(port + 1));
}

static int reg_read16(const struct ps_sio_ports *io, uint16_t port, uint8_t reg, uint16_t *v)
{
	int hi = reg_read(io, port, reg), lo;

	if (hi < 0)
		return hi;
	lo = reg_read(io, port, (uint8_t)(reg + 1));
	if (lo < 0)
		return lo;
	*v = (uint16_t)(hi << 8 | lo);
	return 0;
}

static int enter(const struct ps_sio_ports *io, uint16_t port, enum ps_sio_family f)
{
	const uint8_t winbond[] = {0x87, 0x87};
	const uint8_t ite[] = {0x87, 0x01, 0x55, port == 0x4e ? 0xaa : 0x55};
	const uint8_t *seq = f == PS_SIO_ITE ? ite : winbond;
	size_t n = f == PS_SIO_ITE ? sizeof(ite) : sizeof(winbond);

	for (size_t i = 0; i < n; i++) {
		int ret = io->outb(io->arg, port, seq[i]);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Back to wait-for-key, as the drivers leave it: the lock key, then the control bit. */
static void leave(const struct ps_sio_ports *io, uint16_t port, enum ps_sio_family f)
{
	if (f == PS_SIO_WINBOND)
		io->outb(io->arg, port, 0xaa);
	io->outb(io->arg, port, REG_LDN_CONFIG);
	io->outb(io->arg, (uint16_t)(port + 1), 0x02);
}

int ps_sio_probe(const struct ps_sio_ports *io, struct ps_sio_found *found, size_t max)
{
	static const uint16_t ports[] = {0x2e, 0x4e};
	size_t n = 0;
	int err = 0, accessed = 0;

	for (size_t p = 0; p < 2; p++) {
		for (int f = PS_SIO_WINBOND; f <= PS_SIO_ITE; f++) {
			uint16_t devid, vendor = 0xffff;
			int ret = enter(io, ports[p], (enum ps_sio_family)f);

			if (ret == 0)
				ret = reg_read16(io, ports[p], REG_DEVID, &devid);
			if (ret == 0 && f == PS_SIO_WINBOND)
				ret = reg_read16(io, ports[p], REG_VENDOR, &vendor);
			leave(io, ports[p], (enum ps_sio_family)f);
			if (ret < 0) {
				err = err ? err : ret;
				continue;
			}
			accessed++;
			if (devid == 0xffff || devid == 0x0000)
				continue;
			if (n < max) {
				found[n].port = ports[p];
				found[n].family = (enum ps_sio_family)f;
				found[n].devid = devid;
				found[n].vendor = vendor;
				found[n].chip = ps_sio_lookup((enum ps_sio_family)f, devid, vendor);
				n++;
			}
			break; /* one chip per port: the other family's keys are not tried */
		}
	}
	return accessed ? (int)n : err ? err : -EIO;
}
