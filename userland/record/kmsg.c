/*
 * kmsg.c - the kernel-log recorder of a step: reads /dev/kmsg from the
 * step's start to its end, keeps the last records, and sums the decoded
 * errors and warnings per device (steps[].kmsg); and the console log level
 * while probestick owns the console.
 */
#include "record/kmsg.h"
#include "record/recorder.h"
#include "lib/util.h"
#include "decode/decode.h"
#include "lib/json.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>

#define AGGS_MAX	 128 /* distinct (rule, kernel name) before mapping */
#define RAW_RANGES_MAX	 64  /* distinct LBA ranges kept per aggregate */
#define NOTES_MAX	 4
#define SCSI_NAMES_MAX	 32
#define READ_BUF	 8192		   /* CONSOLE_EXT_LOG_MAX: one record always fits */
#define LINK_SETTLE_USEC (10 * 1000000ULL) /* a NIC link needs a few seconds to come up */

struct range {
	int64_t first, last;
	enum ps_kmsg_lba_unit unit;
	bool start_only;
};

/* One rule on one kernel name, as the records said it. */
struct agg {
	const char *rule;
	enum ps_kmsg_ns ns;
	char name[40];
	int ata_port;
	enum ps_kmsg_sev sev;
	enum ps_dev_kind kind;
	uint64_t count, details;
	uint64_t first_usec, last_usec, last_seq;
	char what[96], last_what[96]; /* the first and the latest counted line's */
	char notes[NOTES_MAX][64];
	int nnotes;
	double min_speed;
	struct range ranges[RAW_RANGES_MAX];
	int nranges;
};

struct kept {
	uint64_t seq, usec;
	int level, facility;
	char *text;
	size_t len;
};

struct ps_kmsg_acc {
	struct kept keep[PS_KMSG_KEEP_RECORDS];
	size_t head, n, bytes; /* ring: oldest at head */
	uint64_t total, dropped, lost, ratelimited, aggs_dropped;
	uint64_t end_usec; /* the step's end on the log's clock, 0 unknown */
	struct agg *aggs;
	size_t naggs;
	struct {
		char addr[40], disk[40];
	} scsi[SCSI_NAMES_MAX];
	size_t nscsi;
	char partial[PS_KMSG_TEXT_MAX * 4 + 64]; /* feed(): a record cut between two calls */
	size_t partial_len;
};

struct ps_kmsg_acc *ps_kmsg_acc_new(void)
{
	struct ps_kmsg_acc *acc = calloc(1, sizeof(*acc));

	if (acc && !(acc->aggs = calloc(AGGS_MAX, sizeof(*acc->aggs)))) {
		free(acc);
		return NULL;
	}
	return acc;
}

void ps_kmsg_acc_lost(struct ps_kmsg_acc *acc, uint64_t n)
{
	if (acc)
		acc->lost += n;
}

void ps_kmsg_acc_end(struct ps_kmsg_acc *acc, uint64_t usec)
{
	if (acc)
		acc->end_usec = usec;
}

static void keep_record(struct ps_kmsg_acc *acc, const struct ps_kmsg_record *r)
{
	struct kept *k;
	char *text = malloc(r->len + 1);

	if (!text) {
		acc->dropped++;
		return;
	}
	memcpy(text, r->text, r->len + 1);
	/* the newest record is kept; the oldest give way to the count and the byte limits */
	while (acc->n &&
	       (acc->n == PS_KMSG_KEEP_RECORDS || acc->bytes + r->len > PS_KMSG_KEEP_BYTES)) {
		struct kept *old = &acc->keep[acc->head];

		acc->bytes -= old->len;
		free(old->text);
		acc->head = (acc->head + 1) % PS_KMSG_KEEP_RECORDS;
		acc->n--;
		acc->dropped++;
	}
	k = &acc->keep[(acc->head + acc->n) % PS_KMSG_KEEP_RECORDS];
	*k = (struct kept){r->seq, r->usec, r->level, r->facility, text, r->len};
	acc->n++;
	acc->bytes += r->len;
}

static bool same_ns_name(const struct agg *a, const struct ps_kmsg_hit *h)
{
	if (a->ns != h->ns)
		return false;
	if (h->ns == PS_KNS_ATA) /* "ata3" (link) and "ata3.00" (device) are one port */
		return a->ata_port == atoi(h->name + 3);
	return strcmp(a->name, h->name) == 0;
}

static void add_note(char notes[][64], int *n, const char *note)
{
	if (!note[0])
		return;
	for (int i = 0; i < *n; i++)
		if (strncmp(notes[i], note, 63) == 0)
			return;
	if (*n < NOTES_MAX)
		snprintf(notes[(*n)++], 64, "%.63s", note);
}

static void add_range(struct range *rs, int *n, const struct range *r)
{
	for (int i = 0; i < *n; i++)
		if (rs[i].first == r->first && rs[i].unit == r->unit) {
			if (r->last > rs[i].last && !r->start_only) {
				rs[i].last = r->last;
				rs[i].start_only = false;
			}
			return;
		}
	if (*n < RAW_RANGES_MAX)
		rs[(*n)++] = *r;
}

static void learn_scsi(struct ps_kmsg_acc *acc, const char *addr, const char *disk)
{
	for (size_t i = 0; i < acc->nscsi; i++)
		if (strcmp(acc->scsi[i].addr, addr) == 0)
			return;
	if (acc->nscsi < SCSI_NAMES_MAX) {
		snprintf(acc->scsi[acc->nscsi].addr, sizeof(acc->scsi[0].addr), "%s", addr);
		snprintf(acc->scsi[acc->nscsi].disk, sizeof(acc->scsi[0].disk), "%s", disk);
		acc->nscsi++;
	}
}

static void add_hit(struct ps_kmsg_acc *acc, const struct ps_kmsg_record *r,
		    const struct ps_kmsg_hit *h)
{
	struct agg *a = NULL;

	if (strcmp(h->rule, "ratelimited") == 0) {
		acc->ratelimited += h->count;
		return;
	}
	if (h->scsi[0])
		learn_scsi(acc, h->scsi, h->name);
	for (size_t i = 0; i < acc->naggs && !a; i++)
		if (acc->aggs[i].rule == h->rule && same_ns_name(&acc->aggs[i], h))
			a = &acc->aggs[i];
	if (!a) {
		if (acc->naggs == AGGS_MAX) {
			acc->aggs_dropped++;
			return;
		}
		a = &acc->aggs[acc->naggs++];
		a->rule = h->rule;
		a->ns = h->ns;
		a->kind = h->kind;
		a->ata_port = h->ns == PS_KNS_ATA ? atoi(h->name + 3) : -1;
		a->first_usec = r->usec;
		a->min_speed = NAN;
		snprintf(a->name, sizeof(a->name), "%s", h->name);
	}
	if (h->ns == PS_KNS_ATA && strchr(h->name, '.') && !strchr(a->name, '.'))
		snprintf(a->name, sizeof(a->name), "%s",
			 h->name); /* the device's name, not the link's */
	if (h->severity > a->sev)
		a->sev = h->severity;
	if (h->detail) {
		a->details++;
	} else {
		a->count += h->count;
		if (!a->what[0])
			snprintf(a->what, sizeof(a->what), "%s", h->what);
		snprintf(a->last_what, sizeof(a->last_what), "%s", h->what);
	}
	a->last_usec = r->usec;
	a->last_seq = r->seq;
	add_note(a->notes, &a->nnotes, h->note);
	if (!isnan(h->speed) && (isnan(a->min_speed) || h->speed < a->min_speed))
		a->min_speed = h->speed;
	if (h->lba_first >= 0) {
		struct range rg = {h->lba_first, h->lba_last, h->lba_unit, h->lba_start_only};

		add_range(a->ranges, &a->nranges, &rg);
	}
}

void ps_kmsg_acc_add(struct ps_kmsg_acc *acc, const struct ps_kmsg_record *r)
{
	struct ps_kmsg_hit h;

	if (!acc)
		return;
	acc->total++;
	keep_record(acc, r);
	/* Only the kernel's own records: anyone may write to /dev/kmsg, as "user". */
	if (r->facility == 0 && ps_kmsg_decode(r->text, &h))
		add_hit(acc, r, &h);
}

static void feed_one(struct ps_kmsg_acc *acc, const char *rec, size_t len)
{
	struct ps_kmsg_record *r = malloc(sizeof(*r));

	if (!r)
		return;
	if (ps_kmsg_parse(rec, len, r) == 0)
		ps_kmsg_acc_add(acc, r);
	free(r);
}

void ps_kmsg_acc_feed(struct ps_kmsg_acc *acc, const char *buf, size_t len)
{
	size_t start = 0;

	if (!acc || !len)
		return;
	/* A record starts at a line that does not begin with a space; its dictionary follows. */
	if (acc->partial_len && acc->partial[acc->partial_len - 1] == '\n' && buf[0] != ' ') {
		feed_one(acc, acc->partial, acc->partial_len - 1);
		acc->partial_len = 0;
	}
	for (size_t i = 0; i <= len; i++) {
		bool boundary = i == len || (buf[i] == '\n' && i + 1 < len && buf[i + 1] != ' ');

		if (i == len && acc->partial_len + (len - start) < sizeof(acc->partial)) {
			/* keep the unterminated tail for the next call */
			memcpy(acc->partial + acc->partial_len, buf + start, len - start);
			acc->partial_len += len - start;
			return;
		}
		if (!boundary)
			continue;
		if (acc->partial_len) {
			size_t n = i - start;

			if (acc->partial_len + n < sizeof(acc->partial)) {
				memcpy(acc->partial + acc->partial_len, buf + start, n);
				feed_one(acc, acc->partial, acc->partial_len + n);
			}
			acc->partial_len = 0;
		} else if (i > start) {
			feed_one(acc, buf + start, i - start);
		}
		start = i + 1;
	}
}

/* ---- mapping kernel names to the inventory's devices ---- */

struct target {
	enum ps_dev_kind kind;
	const char *id;	  /* NULL: no stable id */
	char subject[40]; /* the device's name for people */
	int lsec;	  /* logical sector size of a drive, 0 unknown */
	const struct ps_drive *drive;
	const struct ps_nic *nic;
};

static const char *id_or_null(const char *id)
{
	return id && id[0] ? id : NULL;
}

static void drive_target(struct target *t, const struct ps_drive *d)
{
	*t = (struct target){.kind = PS_DEV_DRIVE, .id = id_or_null(d->id), .drive = d};
	snprintf(t->subject, sizeof(t->subject), "%s", d->name);
	t->lsec = d->logical_sector > 0 ? d->logical_sector : 0;
}

static const struct ps_drive *drive_named(const struct ps_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->n_drives; i++)
		if (strcmp(inv->drives[i].name, name) == 0)
			return &inv->drives[i];
	return NULL;
}

/* sda1 -> sda, nvme0n1p2 -> nvme0n1, mmcblk0p1 -> mmcblk0: the disk of a partition. */
static const struct ps_drive *drive_of_block(const struct ps_inventory *inv, const char *name)
{
	const struct ps_drive *d = drive_named(inv, name);
	char disk[40];
	size_t n;

	if (d)
		return d;
	snprintf(disk, sizeof(disk), "%s", name);
	n = strlen(disk);
	while (n && isdigit((unsigned char)disk[n - 1]))
		n--;
	if (n == strlen(disk))
		return NULL;
	if (n > 1 && disk[n - 1] == 'p' && isdigit((unsigned char)disk[n - 2]))
		n--;
	disk[n] = '\0';
	return drive_named(inv, disk);
}

static const struct ps_nic *nic_by(const struct ps_inventory *inv, const char *name,
				   const char *pci)
{
	for (size_t i = 0; i < inv->n_nics; i++)
		if ((name && strcmp(inv->nics[i].name, name) == 0) ||
		    (pci && strcmp(inv->nics[i].pci_address, pci) == 0))
			return &inv->nics[i];
	return NULL;
}

/* Every device agg's kernel name stands for (an NVMe controller: each namespace). */
static size_t map_agg(const struct ps_kmsg_acc *acc, const struct agg *a,
		      const struct ps_inventory *inv, struct target *out, size_t max)
{
	const char *name = a->name;
	const struct ps_drive *d = NULL;
	const struct ps_nic *nic;
	size_t n = 0;

	if (a->ns == PS_KNS_SCSI)
		for (size_t i = 0; i < acc->nscsi; i++)
			if (strcmp(acc->scsi[i].addr, a->name) == 0)
				name = acc->scsi[i].disk;
	switch (a->ns) {
	case PS_KNS_ATA:
		for (size_t i = 0; i < inv->n_drives && !d; i++)
			if (inv->drives[i].ata_port == a->ata_port)
				d = &inv->drives[i];
		break;
	case PS_KNS_SCSI:
	case PS_KNS_BLOCK:
		d = drive_of_block(inv, name);
		break;
	case PS_KNS_NVME:
		for (size_t i = 0; i < inv->n_drives && n < max; i++)
			if (strcmp(inv->drives[i].nvme_ctrl, a->name) == 0)
				drive_target(&out[n++], &inv->drives[i]);
		return n;
	case PS_KNS_USB:
		for (size_t i = 0; i < inv->n_drives && !d; i++)
			if (inv->drives[i].usb_path[0] &&
			    strcmp(inv->drives[i].usb_path, a->name) == 0)
				d = &inv->drives[i];
		break;
	case PS_KNS_NETDEV:
	case PS_KNS_PCI:
		nic = a->ns == PS_KNS_NETDEV ? nic_by(inv, a->name, NULL)
					     : nic_by(inv, NULL, a->name);
		if (a->ns == PS_KNS_PCI && a->kind == PS_DEV_DRIVE) { /* an NVMe controller */
			for (size_t i = 0; i < inv->n_drives && n < max; i++)
				if (strcmp(inv->drives[i].pci_address, a->name) == 0)
					drive_target(&out[n++], &inv->drives[i]);
			return n;
		}
		if (nic) {
			out[0] = (struct target){
			    .kind = PS_DEV_NIC, .id = id_or_null(nic->id), .nic = nic};
			snprintf(out[0].subject, sizeof(out[0].subject), "%s", nic->name);
			return 1;
		}
		if (a->ns == PS_KNS_PCI)
			for (size_t i = 0; i < inv->n_pcie; i++)
				if (strcmp(inv->pcie[i].fn.address, a->name) == 0) {
					out[0] = (struct target){.kind = PS_DEV_LINK,
								 .id = id_or_null(inv->pcie[i].id)};
					snprintf(out[0].subject, sizeof(out[0].subject), "%s",
						 a->name);
					return 1;
				}
		break;
	default:
		break;
	}
	if (d) {
		drive_target(&out[0], d);
		return 1;
	}
	return 0;
}

/* ---- names through sysfs, when the runner has no typed inventory ---- */

static int link_under(const char *root, const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	ps_path(path, sizeof(path), root, "%s/%s", dir, name);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

/* The last path component that is "nvmeN", or a USB port path "2-1.4". */
static void component(const char *path, bool (*match)(const char *, size_t), char *out, size_t len)
{
	const char *p = path;

	out[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n && match(p, n))
			snprintf(out, len, "%.*s", (int)n, p);
		p += n;
		while (*p == '/')
			p++;
	}
}

static bool nvme_ctrl_name(const char *s, size_t n)
{
	if (n < 5 || strncmp(s, "nvme", 4) != 0)
		return false;
	for (size_t i = 4; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool usb_port_name(const char *s, size_t n)
{
	bool dash = false;

	if (!n || !isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '-')
			dash = true;
		else if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return false;
	}
	return dash;
}

static void sysfs_names(const char *root, struct ps_inventory *inv)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct dirent *e;
	DIR *dir;

	memset(inv, 0, sizeof(*inv));
	ps_path(path, sizeof(path), root, "/sys/class/block");
	if ((dir = opendir(path))) {
		while ((e = readdir(dir))) {
			struct ps_drive *d, *grown;
			uint64_t lsec;
			struct stat st;

			if (e->d_name[0] == '.' ||
			    link_under(root, "/sys/class/block", e->d_name, link, sizeof(link)) <
				0 ||
			    strstr(link, "/virtual/"))
				continue;
			/* partitions are found through their disk's name */
			ps_path(path, sizeof(path), root, "/sys/class/block/%s/partition",
				e->d_name);
			if (stat(path, &st) == 0)
				continue;
			grown = realloc(inv->drives, (inv->n_drives + 1) * sizeof(*grown));
			if (!grown)
				break;
			inv->drives = grown;
			d = &inv->drives[inv->n_drives++];
			memset(d, 0, sizeof(*d));
			snprintf(d->name, sizeof(d->name), "%.*s", (int)sizeof(d->name) - 1,
				 e->d_name);
			ps_drive_transport(link, &d->ata_port);
			ps_pci_ancestor(link, 0, d->pci_address, sizeof(d->pci_address));
			component(link, nvme_ctrl_name, d->nvme_ctrl, sizeof(d->nvme_ctrl));
			if (strstr(link, "/usb"))
				component(link, usb_port_name, d->usb_path, sizeof(d->usb_path));
			ps_path(path, sizeof(path), root,
				"/sys/class/block/%s/queue/logical_block_size", e->d_name);
			d->logical_sector = ps_read_u64(path, &lsec) == 0 ? (int)lsec : PS_UNKNOWN;
		}
		closedir(dir);
	}
	ps_path(path, sizeof(path), root, "/sys/class/net");
	if ((dir = opendir(path))) {
		while ((e = readdir(dir))) {
			struct ps_nic *n, *grown;

			if (e->d_name[0] == '.' ||
			    link_under(root, "/sys/class/net", e->d_name, link, sizeof(link)) < 0 ||
			    strstr(link, "/virtual/"))
				continue;
			grown = realloc(inv->nics, (inv->n_nics + 1) * sizeof(*grown));
			if (!grown)
				break;
			inv->nics = grown;
			n = &inv->nics[inv->n_nics++];
			memset(n, 0, sizeof(*n));
			snprintf(n->name, sizeof(n->name), "%.*s", (int)sizeof(n->name) - 1,
				 e->d_name);
			n->speed_mbps = PS_UNKNOWN;
			ps_pci_ancestor(link, 0, n->pci_address, sizeof(n->pci_address));
		}
		closedir(dir);
	}
}

/* ---- events ---- */

struct event {
	const char *rule;
	enum ps_kmsg_sev sev;
	struct target t;
	char kname[40]; /* the kernel's name when it is not the subject ("ata1.00") */
	uint64_t count;
	uint64_t first_usec, last_usec, last_seq;
	char what[96], last_what[96];
	char notes[NOTES_MAX][64];
	int nnotes;
	double min_speed;
	struct range ranges[RAW_RANGES_MAX]; /* device LBAs */
	int nranges;
};

static bool same_target(const struct event *e, const char *rule, const struct target *t)
{
	if (!e->rule || strcmp(e->rule, rule) != 0 || e->t.kind != t->kind)
		return false;
	if (e->t.drive || e->t.nic || t->drive || t->nic)
		return e->t.drive == t->drive && e->t.nic == t->nic;
	return strcmp(e->t.subject, t->subject) == 0;
}

static void merge(struct event *e, const struct agg *a, const struct target *t, bool fresh)
{
	if (fresh) {
		memset(e, 0, sizeof(*e));
		e->rule = a->rule;
		e->t = *t;
		e->first_usec = a->first_usec;
		e->min_speed = NAN;
		if (strcmp(a->name, t->subject) != 0)
			snprintf(e->kname, sizeof(e->kname), "%s", a->name);
	}
	if (a->sev > e->sev)
		e->sev = a->sev;
	e->count += a->count;
	if (a->first_usec < e->first_usec)
		e->first_usec = a->first_usec;
	if (a->last_usec > e->last_usec)
		e->last_usec = a->last_usec;
	if (a->last_seq >= e->last_seq && a->last_what[0]) {
		e->last_seq = a->last_seq;
		snprintf(e->last_what, sizeof(e->last_what), "%s", a->last_what);
	}
	if (!e->what[0])
		snprintf(e->what, sizeof(e->what), "%s", a->what);
	for (int i = 0; i < a->nnotes; i++)
		add_note(e->notes, &e->nnotes, a->notes[i]);
	if (!isnan(a->min_speed) && (isnan(e->min_speed) || a->min_speed < e->min_speed))
		e->min_speed = a->min_speed;
	for (int i = 0; i < a->nranges; i++) {
		struct range r = a->ranges[i];

		if (r.unit == PS_KLBA_512) { /* 512-byte sectors to the drive's LBAs */
			int per = t->lsec > 512 ? t->lsec / 512 : 1;

			r.first /= per;
			r.last /= per;
			r.unit = PS_KLBA_DEVICE;
		}
		add_range(e->ranges, &e->nranges, &r);
	}
}

static struct event *find_event(struct event *ev, size_t n, const char *rule,
				const struct target *t)
{
	for (size_t i = 0; i < n; i++)
		if (same_target(&ev[i], rule, t))
			return &ev[i];
	return NULL;
}

/*
 * A block-layer error names only the request's first sector: its length is
 * that of the failed command that started there (ATA taskfile, SCSI CDB,
 * NVMe), when the same device's records show one.
 */
static void complete_lengths(struct event *ev, size_t n)
{
	static const char *const cmd_rules[] = {"ata_error", "nvme_error", "io_error"};

	for (size_t i = 0; i < n; i++) {
		if (strcmp(ev[i].rule, "io_error") != 0)
			continue;
		for (int r = 0; r < ev[i].nranges; r++) {
			struct range *rg = &ev[i].ranges[r];

			for (size_t c = 0; rg->start_only && c < PS_ARRAY_SIZE(cmd_rules); c++) {
				const struct event *src = find_event(ev, n, cmd_rules[c], &ev[i].t);

				for (int s = 0; src && s < src->nranges && rg->start_only; s++)
					if (!src->ranges[s].start_only &&
					    src->ranges[s].first == rg->first) {
						rg->last = src->ranges[s].last;
						rg->start_only = false;
					}
			}
		}
	}
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Sorted, overlapping and adjacent ranges joined. */
static int merged_ranges(struct event *e)
{
	int n = 0;

	qsort(e->ranges, (size_t)e->nranges, sizeof(e->ranges[0]), cmp_range);
	for (int i = 0; i < e->nranges; i++) {
		if (n && e->ranges[i].first <= e->ranges[n - 1].last + 1) {
			if (e->ranges[i].last > e->ranges[n - 1].last)
				e->ranges[n - 1].last = e->ranges[i].last;
			continue;
		}
		e->ranges[n++] = e->ranges[i];
	}
	e->nranges = n;
	return n;
}

/* "SATA 6.0 Gb/s" -> 6.0 */
static double sata_gbps(const char *link)
{
	double v;

	return link && sscanf(link, "SATA %lf Gb/s", &v) == 1 ? v : NAN;
}

static void judge(struct event *ev, size_t n, uint64_t end_usec)
{
	char buf[96];

	for (size_t i = 0; i < n; i++) {
		struct event *e = &ev[i];

		if (strcmp(e->rule, "ata_link_speed") == 0 && e->t.drive && !isnan(e->min_speed) &&
		    e->min_speed + 0.01 < sata_gbps(e->t.drive->link)) {
			e->sev = PS_KMSG_WARN;
			snprintf(buf, sizeof(buf), "slower than the %s of the inventory",
				 e->t.drive->link);
			add_note(e->notes, &e->nnotes, buf);
		}
		if (strcmp(e->rule, "nic_link_up") == 0 && e->t.nic && !isnan(e->min_speed) &&
		    e->t.nic->speed_mbps > 0 && e->min_speed < e->t.nic->speed_mbps) {
			e->sev = PS_KMSG_WARN;
			snprintf(buf, sizeof(buf), "slower than the %d Mb/s of the inventory",
				 e->t.nic->speed_mbps);
			add_note(e->notes, &e->nnotes, buf);
		}
		/* A step that moves ports between namespaces takes links down on purpose, and a
		 * link needs seconds to come back: a link that came back is a note, one that
		 * stayed down long before the step ended a warning. */
		if (strcmp(e->rule, "nic_link_down") == 0) {
			const struct event *up = find_event(ev, n, "nic_link_up", &e->t);

			if (up && up->last_seq > e->last_seq) {
				e->sev = PS_KMSG_INFO;
				add_note(e->notes, &e->nnotes, "came back up");
			} else if (!end_usec || end_usec < e->last_usec + LINK_SETTLE_USEC) {
				e->sev = PS_KMSG_INFO;
				add_note(e->notes, &e->nnotes,
					 "went down just before the step ended: not judged");
			} else {
				snprintf(buf, sizeof(buf),
					 "still down %.0f s later, when the step ended",
					 (double)(end_usec - e->last_usec) / 1e6);
				add_note(e->notes, &e->nnotes, buf);
			}
		}
	}
}

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->sev != y->sev)
		return x->sev > y->sev ? -1 : 1;
	return x->first_usec < y->first_usec ? -1 : x->first_usec > y->first_usec;
}

static void message(const struct event *e, char *buf, size_t len)
{
	size_t o = 0;

#define PUT(...)                                                                                   \
	do {                                                                                       \
		if (o < len)                                                                       \
			o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                      \
	} while (0)
	/* The subject is the finding's own field: the message says what the kernel's name is. */
	if (e->kname[0])
		PUT("%s: ", e->kname);
	PUT("%s", e->what[0] ? e->what : e->rule);
	if (e->count > 1)
		PUT(", %llu times", (unsigned long long)e->count);
	if (e->count > 1 && e->last_what[0] && strcmp(e->last_what, e->what) != 0)
		PUT(" (last: %s)", e->last_what);
	for (int i = 0; i < e->nranges && i < 4; i++)
		PUT("%s%lld-%lld", i ? ", " : ", at LBA ", (long long)e->ranges[i].first,
		    (long long)e->ranges[i].last);
	if (e->nranges > 4)
		PUT(" and %d more ranges", e->nranges - 4);
	for (int i = 0; i < e->nnotes; i++)
		PUT("%s%s", i ? ", " : ": ", e->notes[i]);
#undef PUT
}

static json_object *event_json(struct event *e)
{
	json_object *o = json_object_new_object(), *ranges;
	char msg[512];

	merged_ranges(e);
	ps_json_set_str(o, "rule", e->rule);
	ps_json_set_str(o, "severity", ps_kmsg_sev_name(e->sev));
	ps_json_set_str(o, "kind",
			e->t.kind == PS_DEV_NONE ? "machine" : ps_dev_kind_name(e->t.kind));
	ps_json_set_str(o, "device", e->t.id);
	ps_json_set_str(o, "subject", e->t.subject[0] ? e->t.subject : NULL);
	ps_json_set_str(o, "kernel_name", e->kname);
	ps_json_set_count(o, "count", (int64_t)(e->count ? e->count : 1));
	ps_json_set_num(o, "first_seen", (double)e->first_usec / 1e6, 6);
	ps_json_set_num(o, "last_seen", (double)e->last_usec / 1e6, 6);
	message(e, msg, sizeof(msg));
	ps_json_set_str(o, "message", msg);
	if (e->nranges) {
		ps_json_set_count(o, "lba_first", e->ranges[0].first);
		ps_json_set_count(o, "lba_last", e->ranges[e->nranges - 1].last);
		ranges = json_object_new_array();
		for (int i = 0; i < e->nranges && i < PS_KMSG_RANGES_MAX; i++) {
			json_object *r = json_object_new_array();

			json_object_array_add(r, json_object_new_int64(e->ranges[i].first));
			json_object_array_add(r, json_object_new_int64(e->ranges[i].last));
			json_object_array_add(ranges, r);
		}
		ps_json_set(o, "lba_ranges", ranges);
	} else {
		ps_json_set(o, "lba_first", NULL);
		ps_json_set(o, "lba_last", NULL);
		ps_json_set(o, "lba_ranges", NULL);
	}
	return o;
}

/*
 * The targets of agg: through the inventory, else through names (what /sys
 * says: ata1 is sda) and back to the inventory's device of that name, whose
 * id the event then carries.
 */
static size_t map_both(const struct ps_kmsg_acc *acc, const struct agg *a,
		       const struct ps_inventory *inv, const struct ps_inventory *names,
		       struct target *out, size_t max)
{
	size_t n = map_agg(acc, a, inv, out, max);

	if (n || !names || names == inv)
		return n;
	n = map_agg(acc, a, names, out, max);
	for (size_t i = 0; i < n; i++) {
		const struct ps_drive *d =
		    out[i].drive ? drive_named(inv, out[i].drive->name) : NULL;
		const struct ps_nic *nic = out[i].nic ? nic_by(inv, out[i].nic->name, NULL) : NULL;

		if (d) {
			drive_target(&out[i], d);
		} else if (nic) {
			out[i].id = id_or_null(nic->id);
			out[i].nic = nic;
		} else { /* not in the inventory: its name, no id */
			out[i].drive = NULL;
			out[i].nic = NULL;
		}
	}
	return n;
}

static json_object *finish(struct ps_kmsg_acc *acc, const struct ps_inventory *inv,
			   const struct ps_inventory *names)
{
	json_object *o = json_object_new_object(), *records = json_object_new_array(), *events;
	struct ps_inventory none = {0};
	struct event *ev = calloc(acc->naggs * 8 + 1, sizeof(*ev));
	size_t nev = 0, shown = 0;

	if (!inv)
		inv = &none;
	ps_json_set(o, "available", json_object_new_boolean(1));
	for (size_t i = 0; i < acc->n; i++) {
		struct kept *k = &acc->keep[(acc->head + i) % PS_KMSG_KEEP_RECORDS];
		json_object *r = json_object_new_object();
		const char *fac = ps_kmsg_facility_name(k->facility);

		json_object_object_add(r, "seq", json_object_new_int64((int64_t)k->seq));
		ps_json_set_num(r, "time_s", (double)k->usec / 1e6, 6);
		ps_json_set_str(r, "priority", ps_kmsg_level_name(k->level));
		ps_json_set_str(r, "facility", fac);
		json_object_object_add(r, "text", ps_json_new_strn(k->text, k->len));
		json_object_array_add(records, r);
	}
	ps_json_set_count(o, "total", (int64_t)acc->total);
	ps_json_set_count(o, "kept", (int64_t)acc->n);
	ps_json_set_count(o, "dropped", (int64_t)acc->dropped);
	ps_json_set_count(o, "lost", (int64_t)acc->lost);
	ps_json_set_count(o, "ratelimited", (int64_t)acc->ratelimited);
	ps_json_set(o, "records", records);

	for (size_t i = 0; ev && i < acc->naggs; i++) {
		struct agg *a = &acc->aggs[i];
		struct target ts[8], self;
		size_t nt = map_both(acc, a, inv, names, ts, PS_ARRAY_SIZE(ts));

		if (!nt) { /* not in the inventory: the kernel's name, no id */
			self = (struct target){.kind = a->kind};
			snprintf(self.subject, sizeof(self.subject), "%s", a->name);
			ts[0] = self;
			nt = 1;
		}
		for (size_t t = 0; t < nt; t++) {
			struct event *e = NULL;

			for (size_t j = 0; j < nev && !e; j++)
				if (same_target(&ev[j], a->rule, &ts[t]))
					e = &ev[j];
			if (e)
				merge(e, a, &ts[t], false);
			else
				merge(&ev[nev++], a, &ts[t], true);
		}
	}
	complete_lengths(ev, nev);
	judge(ev, nev, acc->end_usec);
	if (ev)
		qsort(ev, nev, sizeof(*ev), cmp_event);
	events = json_object_new_array();
	for (size_t i = 0; i < nev && shown < PS_KMSG_EVENTS_MAX; i++, shown++)
		json_object_array_add(events, event_json(&ev[i]));
	ps_json_set(o, "events", events);
	ps_json_set_count(o, "events_dropped", (int64_t)(nev - shown + acc->aggs_dropped));
	free(ev);
	return o;
}

static void acc_free(struct ps_kmsg_acc *acc)
{
	for (size_t i = 0; i < acc->n; i++)
		free(acc->keep[(acc->head + i) % PS_KMSG_KEEP_RECORDS].text);
	free(acc->aggs);
	free(acc);
}

static json_object *acc_finish(struct ps_kmsg_acc *acc, const struct ps_inventory *inv,
			       const struct ps_inventory *names)
{
	json_object *o;

	if (!acc)
		return ps_kmsg_unavailable("out of memory");
	if (acc->partial_len) /* the last record fed, with or without its newline */
		feed_one(acc, acc->partial, acc->partial_len);
	acc->partial_len = 0;
	o = finish(acc, inv, names);
	acc_free(acc);
	return o;
}

json_object *ps_kmsg_acc_finish(struct ps_kmsg_acc *acc, const struct ps_inventory *inv)
{
	return acc_finish(acc, inv, NULL);
}

json_object *ps_kmsg_unavailable(const char *reason)
{
	json_object *o = json_object_new_object();

	ps_json_set(o, "available", json_object_new_boolean(0));
	ps_json_set_str(o, "reason", reason);
	return o;
}

/* ---- the recorder on /dev/kmsg ---- */

struct ps_kmsg {
	char root[PATH_MAX];
	char reason[PATH_MAX + 128];
	int fd;
	bool is_file; /* a regular file (fixture): read what was appended, at stop */
	struct ps_kmsg_acc *acc;
	uint64_t next_seq; /* 0: none read yet */
	int read_err;	   /* an error other than EAGAIN that stopped reading */
	pthread_t thread;
	bool thread_running;
	int stop_pipe[2];
	char buf[READ_BUF];
};

/* Every record readable now, one read() each; returns on EAGAIN. */
static void drain(struct ps_kmsg *k)
{
	struct ps_kmsg_record *r = malloc(sizeof(*r));

	if (!r)
		return;
	for (;;) {
		ssize_t n = read(k->fd, k->buf, sizeof(k->buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EPIPE) /* overwritten before we read it: the seq gap counts */
			continue;
		if (n < 0) {
			if (errno != EAGAIN)
				k->read_err = errno;
			break;
		}
		if (n == 0)
			break;
		if (ps_kmsg_parse(k->buf, (size_t)n, r) < 0)
			continue;
		if (k->next_seq && r->seq > k->next_seq)
			ps_kmsg_acc_lost(k->acc, r->seq - k->next_seq);
		k->next_seq = r->seq + 1;
		ps_kmsg_acc_add(k->acc, r);
	}
	free(r);
}

static void *drain_thread(void *arg)
{
	struct ps_kmsg *k = arg;
	struct pollfd p[2] = {{.fd = k->fd, .events = POLLIN},
			      {.fd = k->stop_pipe[0], .events = POLLIN}};

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[0].revents & POLLNVAL)
			break;
		if (p[0].revents & (POLLIN | POLLERR | POLLPRI))
			drain(k);
		if (k->read_err)
			break;
	}
	return NULL;
}

struct ps_kmsg *ps_kmsg_start(const char *root)
{
	struct ps_kmsg *k = calloc(1, sizeof(*k));
	char path[PATH_MAX];
	struct stat st;

	if (!k)
		return NULL;
	k->fd = -1;
	k->stop_pipe[0] = k->stop_pipe[1] = -1;
	snprintf(k->root, sizeof(k->root), "%s", root ? root : "");
	ps_path(path, sizeof(path), k->root, "/dev/kmsg");
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		snprintf(k->reason, sizeof(k->reason), "cannot read %s: %s", path, strerror(errno));
		return k;
	}
	if (!(k->acc = ps_kmsg_acc_new())) {
		close(k->fd);
		free(k);
		return NULL;
	}
	k->is_file = fstat(k->fd, &st) == 0 && S_ISREG(st.st_mode);
	/* On /dev/kmsg SEEK_END is "after the last record"; on a file its end. */
	if (lseek(k->fd, 0, SEEK_END) < 0 && !k->is_file) {
		snprintf(k->reason, sizeof(k->reason), "cannot seek %s: %s", path, strerror(errno));
		close(k->fd);
		k->fd = -1;
		return k;
	}
	if (!k->is_file && pipe2(k->stop_pipe, O_CLOEXEC) == 0)
		k->thread_running = pthread_create(&k->thread, NULL, drain_thread, k) == 0;
	return k;
}

static void read_file_tail(struct ps_kmsg *k)
{
	ssize_t n;

	while ((n = read(k->fd, k->buf, sizeof(k->buf))) > 0)
		ps_kmsg_acc_feed(k->acc, k->buf, (size_t)n);
}

json_object *ps_kmsg_stop(struct ps_kmsg *k, const struct ps_inventory *inv)
{
	struct ps_inventory names;
	json_object *o;

	if (!k)
		return ps_kmsg_unavailable("the kernel log recorder did not start (out of memory)");
	if (k->fd < 0) {
		o = ps_kmsg_unavailable(k->reason);
		free(k);
		return o;
	}
	if (k->thread_running) {
		if (write(k->stop_pipe[1], "x", 1) < 0) {
			/* the thread still ends at the next record; nothing else to do */
		}
		pthread_join(k->thread, NULL);
	}
	if (k->stop_pipe[0] >= 0) {
		close(k->stop_pipe[0]);
		close(k->stop_pipe[1]);
	}
	if (k->is_file) {
		read_file_tail(k);
	} else {
		drain(k);
		/* the log's clock is the time since boot, as CLOCK_MONOTONIC */
		ps_kmsg_acc_end(k->acc, (uint64_t)(ps_mono_now() * 1e6));
	}
	close(k->fd);
	/* /sys names what the inventory may not carry (an ATA port, an NVMe controller) */
	sysfs_names(k->root, &names);
	o = acc_finish(k->acc, inv ? inv : &names, &names);
	free(names.drives);
	free(names.nics);
	if (k->read_err)
		ps_json_set_str(o, "read_error", strerror(k->read_err));
	free(k);
	return o;
}

/* ---- the console's log level ---- */

#define SYSLOG_ACTION_CONSOLE_LEVEL 8
#define QUIET_LEVEL		    3 /* print only what is below KERN_ERR: emerg, alert, crit */

static int saved_console_level = -1;

/* The command line words with which /init leaves the console's level alone. */
static bool cmdline_wants_messages(void)
{
	char line[4096];
	const char *p = line;
	int n = ps_read_str("/proc/cmdline", line, sizeof(line));

	if (n < 0)
		return false;
	while (*p) {
		size_t w = strcspn(p, " \t\n");

		if ((w == 5 && strncmp(p, "debug", 5) == 0) ||
		    (w == 15 && strncmp(p, "ignore_loglevel", 15) == 0) ||
		    strncmp(p, "loglevel=", 9) == 0)
			return true;
		p += w;
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
	}
	return false;
}

int ps_kmsg_console_quiet(void)
{
	char buf[64];
	int cur;

	if (saved_console_level >= 0 || cmdline_wants_messages())
		return 0;
	if (ps_read_str("/proc/sys/kernel/printk", buf, sizeof(buf)) < 0)
		return -ENOENT;
	cur = atoi(buf);
	if (cur <= QUIET_LEVEL)
		return 0;
	if (klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, QUIET_LEVEL) < 0)
		return -errno;
	saved_console_level = cur;
	return 0;
}

int ps_kmsg_console_restore(void)
{
	int level = saved_console_level;

	if (level < 0)
		return 0;
	saved_console_level = -1;
	return klogctl(SYSLOG_ACTION_CONSOLE_LEVEL, NULL, level) < 0 ? -errno : 0;
}

/* ---- registered: the kernel log of every step, its errors as the step's findings ---- */

static void *kmsg_start(struct ps_rec_ctx *rc, void *plan)
{
	return ps_kmsg_start(rc->root);
}

static json_object *kmsg_stop(void *state, struct ps_rec_ctx *rc)
{
	return ps_kmsg_stop(state, rc->inv);
}

/*
 * The kernel's errors and warnings become findings of the step (kmsg.<rule>),
 * its information stays in steps[].kmsg; a rule another recorder counts from
 * the source itself while it runs (AER counters, the mce probe, EDAC, the
 * throttle counters) is that recorder's finding: one event, one finding.
 */
static void kmsg_findings(json_object *member, struct ps_rec_ctx *rc)
{
	json_object *events = ps_json_arr(member, "events");

	for (size_t i = 0; i < ps_json_len(events); i++) {
		json_object *e = ps_json_at(events, i);
		const char *sev = ps_json_str_or(e, "severity", "warn");

		if (strcmp(sev, "warn") != 0 && strcmp(sev, "fail") != 0)
			continue;
		if (rc->owned_elsewhere(rc, ps_json_str_or(e, "rule", "")))
			continue;
		rc->find(rc, "kmsg", sev, ps_json_str_or(e, "rule", "event"),
			 ps_json_str(e, "kind"), ps_json_str(e, "device"),
			 ps_json_str(e, "subject"), ps_json_str_or(e, "message", ""));
	}
}

static const struct ps_recorder_ops kmsg_recorder = {
    .abi = PS_RECORDER_ABI,
    .name = "kmsg",
    .order = 60,
    .show = 30,
    .view = &ps_kmsg_view,
    .start = kmsg_start,
    .stop = kmsg_stop,
    .findings = kmsg_findings,
};
PS_RECORDER_REGISTER(kmsg_recorder);
