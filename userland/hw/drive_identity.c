/*
 * drive_identity.c - a drive's identity as smartctl reads it, put into the
 * inventory before it is frozen: behind a USB bridge smartctl speaks to the
 * drive itself (SAT, or the NVMe bridges) where sysfs shows the bridge, and
 * elsewhere both read the drive's own IDENTIFY; where they differ smartctl,
 * the field's standard, wins. What sysfs said is kept beside (sysfs_*), for
 * the smart step's identity table.
 */
#include "hw/drive_identity.h"
#include "lib/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define IDENTIFY_TIMEOUT_S 30.0

/* smartctl -i --json=c [-d type] of the drive: 1 and *s when it answered with an identity. */
static int identify(const struct ps_drive *d, const char *root, const char *type,
		    ps_smartctl_fn *run, void *arg, struct ps_smart *s)
{
	const char *argv[8];
	char path[4200], why[128];
	struct ps_smartctl_out out;
	size_t n = 0;
	int ret;

	ps_path(path, sizeof(path), root, "/dev/%s", d->name);
	argv[n++] = "smartctl";
	argv[n++] = "-i";
	argv[n++] = "--json=c";
	if (type) {
		argv[n++] = "-d";
		argv[n++] = type;
	}
	argv[n++] = path;
	argv[n] = NULL;
	ret = run(arg, argv, IDENTIFY_TIMEOUT_S, &out);
	if (ret < 0)
		return ret == -ENOENT ? -ENOENT : 0;
	ret = !out.timed_out && ps_smart_parse(out.text, out.len, s, NULL, why, sizeof(why)) == 0 &&
	      s->proto != PS_SMART_PROTO_NONE && (s->model[0] || s->product[0]);
	ps_smartctl_out_free(&out);
	return ret;
}

int ps_drive_apply_identity(struct ps_drive *d, const struct ps_smart *s)
{
	const char *smodel =
	    s->proto == PS_SMART_PROTO_SCSI && s->product[0] ? s->product : s->model;
	bool differs = (smodel[0] && strcmp(smodel, d->model) != 0) ||
		       (s->serial[0] && strcmp(s->serial, d->serial) != 0) ||
		       (s->firmware[0] && strcmp(s->firmware, d->firmware) != 0);

	if (!differs || !smodel[0])
		return 0;
	ps_copy_str(d->sysfs_model, sizeof(d->sysfs_model), d->model);
	ps_copy_str(d->sysfs_serial, sizeof(d->sysfs_serial), d->serial);
	ps_copy_str(d->sysfs_firmware, sizeof(d->sysfs_firmware), d->firmware);
	ps_copy_str(d->sysfs_identity_source, sizeof(d->sysfs_identity_source), d->identity_source);
	ps_copy_str(d->model, sizeof(d->model), smodel);
	if (s->firmware[0])
		ps_copy_str(d->firmware, sizeof(d->firmware), s->firmware);
	snprintf(d->identity_source, sizeof(d->identity_source), "smartctl");
	if (s->serial[0] && strcmp(s->serial, d->serial) != 0) {
		ps_copy_str(d->serial, sizeof(d->serial), s->serial);
		snprintf(d->serial_source, sizeof(d->serial_source), "smartctl");
	}
	return 1;
}

int ps_drive_smartctl_identity(struct ps_drive *d, const char *root, ps_smartctl_fn *run, void *arg)
{
	size_t ntypes = d->transport == PS_TR_USB ? PS_SMARTCTL_USB_TYPES : 1;
	struct ps_smart s;

	if (d->boot_device || !d->name[0] || strchr(d->name, '/'))
		return 0;
	for (size_t i = 0; i < ntypes; i++) {
		int ret = identify(d, root, ps_smartctl_usb_types[i], run, arg, &s);

		if (ret < 0)
			return ret;
		if (ret)
			return ps_drive_apply_identity(d, &s);
	}
	return 0;
}

static int real_run(void *arg, const char *const *argv, double t, struct ps_smartctl_out *out)
{
	return ps_smartctl_run(argv, t, out);
}

void ps_inventory_smartctl_identity(struct ps_inventory *inv, const char *root, ps_smartctl_fn *run,
				    void *arg)
{
	if (!run) {
		/* a fixture tree holds no device smartctl could open */
		if (root && root[0])
			return;
		run = real_run;
	}
	for (size_t i = 0; i < inv->n_drives; i++)
		if (ps_drive_smartctl_identity(&inv->drives[i], root, run, arg) == -ENOENT)
			break; /* no smartctl: the smart step says so */
}
