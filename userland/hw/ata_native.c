/*
 * ata_native.c - what an ATA drive hides, read: its IDENTIFY data from sysfs,
 * then the native max address and DEVICE CONFIGURATION IDENTIFY through
 * SG_IO ATA PASS-THROUGH (16) on the disk, read-only commands only (each CDB
 * passes ps_ata_cdb_read_only() before it is sent); below a fixture root,
 * the answers a real drive gave, recorded. The judgement is decode/ata_capacity.c's.
 */
#include "hw/ata_native.h"

#include "lib/json.h"
#include "lib/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <scsi/sg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* VPD page 0x89 carries IDENTIFY DEVICE at byte 60 (SAT; hw/ata_identify.c reads it too). */
#define PG89_IDENTIFY 60
/* A drive spun down answers after it spun up: seconds, not minutes. */
#define PT_TIMEOUT_MS 15000

struct exchange {
	uint8_t sense[PS_ATA_SENSE_LEN];
	size_t sense_len;
	uint8_t data[512];
	size_t data_len;
};

/* One read-only command through SG_IO; 0 when the drive answered (its status is in the sense). */
static int sgio(int fd, enum ps_ata_ro_cmd c, struct exchange *x)
{
	uint8_t cdb[PS_ATA_CDB_LEN];
	sg_io_hdr_t io;

	ps_ata_ro_cdb(c, cdb);
	if (!ps_ata_cdb_read_only(cdb, sizeof(cdb)))
		return -EPERM; /* never: only read-only commands leave here */
	memset(&io, 0, sizeof(io));
	io.interface_id = 'S';
	io.cmdp = cdb;
	io.cmd_len = sizeof(cdb);
	io.sbp = x->sense;
	io.mx_sb_len = sizeof(x->sense);
	io.timeout = PT_TIMEOUT_MS;
	if (c == PS_ATA_DCO_IDENTIFY) {
		io.dxfer_direction = SG_DXFER_FROM_DEV;
		io.dxferp = x->data;
		io.dxfer_len = sizeof(x->data);
	} else {
		io.dxfer_direction = SG_DXFER_NONE;
	}
	if (ioctl(fd, SG_IO, &io) < 0)
		return -errno;
	x->sense_len = io.sb_len_wr;
	x->data_len = c == PS_ATA_DCO_IDENTIFY ? sizeof(x->data) - (size_t)io.resid : 0;
	if (io.host_status || (io.driver_status & ~0x08)) /* 0x08: DRIVER_SENSE, expected */
		return -EIO;
	return 0;
}

/* The same exchange as a fixture tree recorded it: dir/<command>.sense and .data. */
static int recorded(const char *dir, enum ps_ata_ro_cmd c, struct exchange *x)
{
	char path[PATH_MAX], *buf;
	size_t n;
	int r;

	snprintf(path, sizeof(path), "%s/%s.sense", dir, ps_ata_ro_cmd_file(c));
	r = ps_read_all(path, &buf, &n);
	if (r == 0) {
		x->sense_len = n < sizeof(x->sense) ? n : sizeof(x->sense);
		memcpy(x->sense, buf, x->sense_len);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/%s.data", dir, ps_ata_ro_cmd_file(c));
	if (ps_read_all(path, &buf, &n) == 0) {
		x->data_len = n < sizeof(x->data) ? n : sizeof(x->data);
		memcpy(x->data, buf, x->data_len);
		free(buf);
		r = 0;
	}
	return r < 0 ? -ENOENT : 0;
}

struct source {
	int fd;		 /* the disk, or -1 */
	const char *dir; /* the recorded answers, or NULL */
};

static int ask(const struct source *s, enum ps_ata_ro_cmd c, struct exchange *x)
{
	memset(x, 0, sizeof(*x));
	return s->dir ? recorded(s->dir, c, x) : sgio(s->fd, c, x);
}

/* The native max address: 0 and *lba, -EIO when the drive aborted the command. */
static int native_max(const struct source *s, enum ps_ata_ro_cmd c, uint64_t *lba)
{
	struct exchange x;
	struct ps_ata_regs regs;
	int r = ask(s, c, &x);

	if (r < 0)
		return r;
	r = ps_ata_sense_regs(x.sense, x.sense_len, &regs);
	if (r < 0)
		return r;
	return ps_ata_native_max(c, &regs, lba);
}

/* DEVICE CONFIGURATION IDENTIFY into page: 0, -EIO when aborted (a frozen DCO). */
static int dco_identify(const struct source *s, uint8_t page[512])
{
	struct exchange x;
	struct ps_ata_regs regs;
	int r = ask(s, PS_ATA_DCO_IDENTIFY, &x);

	if (r < 0)
		return r;
	/* an aborted command comes back with sense: the ATA registers, or its key */
	if (ps_ata_sense_regs(x.sense, x.sense_len, &regs) == 0 && (regs.status & 0x01))
		return -EIO;
	switch (ps_sense_key(x.sense, x.sense_len)) {
	case -1:
	case 0x0: /* NO SENSE */
	case 0x1: /* RECOVERED ERROR */
		break;
	case 0xb: /* ABORTED COMMAND */
		return -EIO;
	default: /* the translation refused it (ILLEGAL REQUEST), or worse */
		return -EREMOTEIO;
	}
	if (x.data_len < 512)
		return -ENODATA;
	memcpy(page, x.data, 512);
	return 0;
}

void ps_ata_capacity_read(const char *root, const char *name, struct ps_ata_capacity *out)
{
	char path[PATH_MAX], dir[PATH_MAX], *pg89 = NULL;
	struct ps_ata_identify ident;
	struct ps_ata_cap_id id;
	struct ps_ata_answers a = {.native_ret = -ENOTSUP, .dco_ret = -ENOTSUP};
	struct source s = {.fd = -1};
	uint8_t page[512];
	size_t n = 0;
	int open_err = 0;

	memset(out, 0, sizeof(*out));
	if (ps_read_all(
		ps_path(path, sizeof(path), root, "/sys/class/block/%s/device/vpd_pg89", name),
		&pg89, &n) < 0 ||
	    ps_vpd_pg89_identify((const uint8_t *)pg89, n, &ident) < 0) {
		free(pg89);
		return; /* not an ATA drive libata or a SAT bridge describes */
	}
	a.identify = (const uint8_t *)pg89 + PG89_IDENTIFY;
	a.identify_len = PS_ATA_IDENTIFY_LEN;
	a.model = ident.model;
	if (root && root[0]) {
		ps_path(dir, sizeof(dir), root, "/dev/%s.ata", name);
		if (access(dir, F_OK) < 0) {
			free(pg89);
			return; /* the fixture recorded no answers for this drive */
		}
		s.dir = dir;
	} else {
		/* O_NONBLOCK: no waiting on removable media; the commands are SCSI, not I/O */
		s.fd = open(ps_path(path, sizeof(path), root, "/dev/%s", name),
			    O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		open_err = s.fd < 0 ? -errno : 0;
	}
	if (ps_ata_cap_id_decode(a.identify, a.identify_len, &id) == 0) {
		a.native_cmd = ps_ata_native_max_cmd(&id);
		if (s.fd < 0 && !s.dir) {
			a.native_ret = a.dco_ret = open_err;
		} else {
			if (a.native_cmd != PS_ATA_RO_CMDS)
				a.native_ret = native_max(&s, a.native_cmd, &a.native_lba);
			if (id.dco) {
				a.dco_ret = dco_identify(&s, page);
				a.dco_page = a.dco_ret == 0 ? page : NULL;
			}
		}
	}
	ps_ata_capacity_judge(&a, out);
	if (s.fd >= 0)
		close(s.fd);
	free(pg89);
}

json_object *ps_ata_capacity_json(const struct ps_ata_capacity *c)
{
	json_object *o;

	if (!c->examined)
		return NULL;
	o = json_object_new_object();
	ps_json_set_count(o, "current_sectors", c->current_sectors);
	ps_json_set_count(o, "native_sectors", c->native_sectors);
	ps_json_set_str(o, "native_command", c->native_command);
	ps_json_set_str(o, "hpa", ps_hpa_state_name(c->hpa));
	ps_json_set_count(o, "hpa_hidden_sectors", c->hpa_hidden);
	ps_json_set_str(o, "dco", ps_dco_state_name(c->dco));
	ps_json_set_count(o, "dco_sectors", c->dco_sectors);
	ps_json_set_count(o, "dco_hidden_sectors", c->dco_hidden);
	ps_json_set_str(o, "dco_hidden_features", c->dco_features);
	ps_json_set_count(o, "hidden_sectors", c->hidden_sectors);
	ps_json_set_count(o, "hidden_bytes",
			  c->hidden_sectors >= 0 && c->logical_sector > 0 &&
				  c->hidden_sectors <= INT64_MAX / c->logical_sector
			      ? c->hidden_sectors * c->logical_sector
			      : PS_UNKNOWN);
	ps_json_set_str(o, "reason", c->reason);
	return o;
}
