/*
 * kmsg.c - pure parsers of the kernel log: one /dev/kmsg record into
 * its fields, and one record's text into what it says about a device (the
 * printk formats of Linux 6.1, with the older forms still seen in the field).
 */
#include "decode/kmsg.h"
#include "decode/decode.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- records ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s)) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s++ - '0');
	}
	*p = s;
	*v = x;
	return true;
}

int ps_kmsg_parse(const char *buf, size_t len, struct ps_kmsg_record *r)
{
	const char *p = buf, *end = buf + len, *semi = memchr(buf, ';', len);
	uint64_t pri, seq, usec;
	size_t o = 0;

	memset(r, 0, sizeof(*r));
	if (!semi || !parse_u64(&p, semi, &pri) || p >= semi || *p++ != ',' ||
	    !parse_u64(&p, semi, &seq) || p >= semi || *p++ != ',' || !parse_u64(&p, semi, &usec) ||
	    p >= semi || *p != ',')
		return -EINVAL;
	r->level = (int)(pri & 7);
	r->facility = (int)((pri >> 3) & 0xff);
	r->seq = seq;
	r->usec = usec;
	/* The text runs to the first newline; " KEY=value" lines after it are the dictionary. */
	for (p = semi + 1; p < end && *p != '\n' && o + 1 < sizeof(r->text); p++) {
		int hi, lo;

		if (*p == '\\' && end - p >= 4 && p[1] == 'x' && (hi = hexval(p[2])) >= 0 &&
		    (lo = hexval(p[3])) >= 0) {
			r->text[o++] = (char)(hi * 16 + lo);
			p += 3;
		} else {
			r->text[o++] = *p;
		}
	}
	r->text[o] = '\0';
	r->len = o;
	return 0;
}

const char *ps_kmsg_level_name(int level)
{
	static const char *const names[] = {"emerg",   "alert",	 "crit", "err",
					    "warning", "notice", "info", "debug"};

	return level >= 0 && level < 8 ? names[level] : NULL;
}

const char *ps_kmsg_facility_name(int facility)
{
	static const char *const names[] = {
	    "kern", "user", "mail",	"daemon", "auth", "syslog",   "lpr",	 "news",
	    "uucp", "cron", "authpriv", "ftp",	  "ntp",  "security", "console", "solaris-cron"};
	static const char *const local[] = {"local0", "local1", "local2", "local3",
					    "local4", "local5", "local6", "local7"};

	if (facility >= 0 && facility < 16)
		return names[facility];
	if (facility >= 16 && facility < 24)
		return local[facility - 16];
	return NULL;
}

const char *ps_kmsg_sev_name(enum ps_kmsg_sev s)
{
	return s == PS_KMSG_FAIL ? "fail" : s == PS_KMSG_WARN ? "warn" : "info";
}

/* ---- small text helpers ---- */

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	return n >= m && strncmp(s + n - m, suffix, m) == 0;
}

/* The text after needle's first occurrence in s, or NULL. */
static const char *after(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);

	return p ? p + strlen(needle) : NULL;
}

static void copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	/* one line of the record, trimmed */
	n = strcspn(dst, "\n");
	dst[n] = '\0';
	while (n && isspace((unsigned char)dst[n - 1]))
		dst[--n] = '\0';
}

static void setf(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void setf(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* The text from s up to (not including) the first character of stop, trimmed. */
static void upto(char *dst, size_t len, const char *s, const char *stop)
{
	copy(dst, len, s, strcspn(s, stop));
}

static bool hexnum(const char *s, uint64_t *v)
{
	char *end;

	if (!s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 16);
	return end != s && errno == 0;
}

static bool decnum(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return end != s && errno == 0;
}

static bool is_pci(const char *s)
{
	return ps_is_pci_address(s, strlen(s));
}

/* "2:0:0:0" */
static bool is_scsi_addr(const char *s)
{
	int colons = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s == ':')
			colons++;
		else if (!isdigit((unsigned char)*s))
			return false;
	}
	return colons == 3;
}

/* "2-1", "2-1.4": a USB device's port path */
static bool is_usb_path(const char *s)
{
	const char *dash = strchr(s, '-');

	if (!dash || dash == s)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '-' && *p != '.')
			return false;
	return isdigit((unsigned char)dash[1]);
}

/*
 * The device prefix of dev_printk and netdev_printk: "DRIVER DEVNAME: msg"
 * or "DRIVER BUSID IFNAME[ (state)]: msg", or a single word ("nvme0n1:").
 * Fills up to 3 words and returns the message after ": ", or NULL when the
 * first ": " is too far in to be a prefix.
 */
struct prefix {
	char w[3][48];
	int n;
};

static const char *split_prefix(const char *t, struct prefix *px)
{
	const char *colon = strstr(t, ": ");
	const char *p = t;

	memset(px, 0, sizeof(*px));
	if (!colon || colon - t > 96 || colon == t)
		return NULL;
	while (p < colon && px->n < 3) {
		size_t n = strcspn(p, " ");

		if (p + n > colon)
			n = (size_t)(colon - p);
		if (*p == '(') /* "(unregistering)" */
			break;
		copy(px->w[px->n++], sizeof(px->w[0]), p, n);
		p += n;
		while (p < colon && *p == ' ')
			p++;
	}
	return colon + 2;
}

static void hit_init(struct ps_kmsg_hit *h)
{
	memset(h, 0, sizeof(*h));
	h->lba_first = h->lba_last = -1;
	h->count = 1;
	h->speed = NAN;
}

static bool set(struct ps_kmsg_hit *h, const char *rule, enum ps_kmsg_sev sev,
		enum ps_dev_kind kind)
{
	h->rule = rule;
	h->severity = sev;
	h->kind = kind;
	return true;
}

static void name_ns(struct ps_kmsg_hit *h, enum ps_kmsg_ns ns, const char *name)
{
	h->ns = ns;
	copy(h->name, sizeof(h->name), name, strlen(name));
}

/* The device a dev_printk prefix names: a PCI function, a netdev, or another bus's device. */
static void prefix_device(struct ps_kmsg_hit *h, const struct prefix *px)
{
	if (px->n >= 3)
		name_ns(h, PS_KNS_NETDEV, px->w[2]);
	else if (px->n == 2 && is_pci(px->w[1]))
		name_ns(h, PS_KNS_PCI, px->w[1]);
	else if (px->n == 2 && is_usb_path(px->w[1]))
		name_ns(h, PS_KNS_USB, px->w[1]);
	else if (px->n == 2)
		name_ns(h, PS_KNS_OTHER, px->w[1]);
}

/* ---- ATA (libata-eh.c, libata-core.c, libata-sata.c) ---- */

/* The LBA and sector count of a taskfile "cmd CC/FF:NN:L0:L1:L2/HF:HN:H0:H1:H2/DD". */
/*
 * count sectors from first as the hit's range, when it fits the report's
 * int64 numbers: a 64-bit LBA past 2^63 (READ(16), a log line's decimal) is
 * no sector of any disk, so no range.
 */
static bool set_range(int64_t *out_first, int64_t *out_last, uint64_t first, uint64_t count)
{
	if (!count || first > INT64_MAX || count - 1 > (uint64_t)INT64_MAX - first)
		return false;
	*out_first = (int64_t)first;
	*out_last = (int64_t)(first + count - 1);
	return true;
}

static bool ata_cmd_range(const char *s, int64_t *first, int64_t *last)
{
	unsigned int c, f, n, l0, l1, l2, hf, hn, h0, h1, h2, d;
	uint64_t lba, count;

	if (sscanf(s, "%2x/%2x:%2x:%2x:%2x:%2x/%2x:%2x:%2x:%2x:%2x/%2x", &c, &f, &n, &l0, &l1, &l2,
		   &hf, &hn, &h0, &h1, &h2, &d) != 12)
		return false;
	switch (c) {
	case 0x60: /* READ FPDMA QUEUED, WRITE FPDMA QUEUED: the count is in the features */
	case 0x61:
		count = f | hf << 8;
		if (!count)
			count = 65536;
		break;
	case 0x24: /* READ SECTOR(S) EXT, READ DMA EXT, READ MULTIPLE EXT, READ VERIFY EXT */
	case 0x25:
	case 0x29:
	case 0x42:
	case 0x34: /* WRITE SECTOR(S) EXT, WRITE DMA EXT, WRITE MULTIPLE EXT (+FUA) */
	case 0x35:
	case 0x39:
	case 0x3d:
	case 0xce:
		count = n | hn << 8;
		if (!count)
			count = 65536;
		break;
	case 0x20: /* 28-bit: READ SECTOR(S), READ DMA, READ MULTIPLE, READ VERIFY, writes */
	case 0xc8:
	case 0xc4:
	case 0x40:
	case 0x30:
	case 0xca:
	case 0xc5:
		count = n ? n : 256;
		lba = l0 | l1 << 8 | l2 << 16 | (uint64_t)(d & 0x0f) << 24;
		*first = (int64_t)lba;
		*last = (int64_t)(lba + count - 1);
		return true;
	default:
		return false;
	}
	lba =
	    l0 | l1 << 8 | l2 << 16 | (uint64_t)h0 << 24 | (uint64_t)h1 << 32 | (uint64_t)h2 << 40;
	*first = (int64_t)lba;
	*last = (int64_t)(lba + count - 1);
	return true;
}

/* "{ UNC ABRT }" -> "UNC ABRT" */
static void braces(char *dst, size_t len, const char *s)
{
	const char *open = strchr(s, '{');

	if (!open) {
		copy(dst, len, s, strlen(s));
		return;
	}
	open++;
	while (*open == ' ')
		open++;
	upto(dst, len, open, "}");
}

/* A command that failed: which, its LBAs, how (the error mask, the status bits). */
static bool ata_command(const char *msg, bool dev, struct ps_kmsg_hit *h)
{
	if (starts(msg, "failed command: ")) {
		char cmd[64];

		upto(cmd, sizeof(cmd), msg + strlen("failed command: "), "\n");
		setf(h->what, sizeof(h->what), "failed command %s", cmd);
		return set(h, "ata_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if (starts(msg, "cmd ")) {
		const char *em = NULL, *q = msg;

		const char *res = strstr(msg, "res ");
		unsigned int status = 0;

		h->detail = true;
		ata_cmd_range(msg + 4, &h->lba_first, &h->lba_last);
		/* the result's "Emask 0x1 (device error)" names the kind of failure */
		while ((q = strstr(q, "Emask 0x")))
			em = q++;
		if (em && (em = strchr(em, '(')))
			upto(h->note, sizeof(h->note), em + 1, ")");
		/* A "device error" whose status has no ERR bit is a command that failed with
		 * the queue (NCQ, when the drive's error log does not say which tag was at
		 * fault): its sectors are not the bad ones. */
		if (res && sscanf(res + 4, "%2x", &status) == 1 && !(status & 0x01) &&
		    strcmp(h->note, "device error") == 0)
			h->lba_first = h->lba_last = -1;
		return set(h, "ata_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if (starts(msg, "error: {")) {
		h->detail = true;
		braces(h->note, sizeof(h->note), msg);
		return set(h, "ata_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if (starts(msg, "exception Emask")) {
		if (dev) { /* the failed commands that follow are counted */
			h->detail = true;
			return set(h, "ata_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
		}
		upto(h->what, sizeof(h->what), msg, "\n");
		return set(h, "ata_link_error", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	return false;
}

/* The SATA link: errors, resets, its speed, down. */
static bool ata_link(const char *msg, struct ps_kmsg_hit *h)
{
	const char *v;

	if (starts(msg, "SError: {")) {
		h->detail = true;
		braces(h->note, sizeof(h->note), msg);
		return set(h, "ata_link_error", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (strstr(msg, "resetting link")) {
		upto(h->what, sizeof(h->what), msg, "\n");
		return set(h, "ata_link_reset", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (starts(msg, "COMRESET failed") || starts(msg, "link is slow to respond")) {
		h->detail = true;
		upto(h->note, sizeof(h->note), msg, "(,\n");
		return set(h, "ata_link_reset", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (starts(msg, "reset failed, giving up")) {
		h->detail = true;
		upto(h->note, sizeof(h->note), msg, "\n");
		return set(h, "ata_link_reset", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if ((v = after(msg, "SATA link up ")) || (v = after(msg, "limiting SATA link speed to "))) {
		bool limit = starts(msg, "limiting");

		h->speed = strtod(v, NULL);
		if (h->speed <= 0)
			h->speed = NAN;
		upto(h->note, sizeof(h->note), v, "(\n");
		setf(h->what, sizeof(h->what), "%s %s",
		     limit ? "link speed limited to" : "link up at", h->note);
		h->note[0] = '\0';
		return set(h, "ata_link_speed", limit ? PS_KMSG_WARN : PS_KMSG_INFO, PS_DEV_DRIVE);
	}
	if (starts(msg, "SATA link down")) {
		setf(h->what, sizeof(h->what), "SATA link down");
		return set(h, "ata_link_down", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	return false;
}

/* What libata made of the device: a slower mode, NCQ off, configured, disabled. */
static bool ata_mode(const char *msg, bool dev, struct ps_kmsg_hit *h)
{
	const char *v;

	if ((v = after(msg, "limiting speed to ")) && starts(msg, "limiting speed")) {
		upto(h->note, sizeof(h->note), v, "\n");
		setf(h->what, sizeof(h->what), "transfer mode limited to %s", h->note);
		h->note[0] = '\0';
		return set(h, "ata_speed_down", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (starts(msg, "NCQ disabled due to excessive errors")) {
		setf(h->what, sizeof(h->what), "NCQ disabled after excessive errors");
		return set(h, "ata_speed_down", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if ((v = after(msg, "configured for ")) && starts(msg, "configured for")) {
		upto(h->note, sizeof(h->note), v, "\n");
		setf(h->what, sizeof(h->what), "configured for %s", h->note);
		h->note[0] = '\0';
		return set(h, "ata_configured", PS_KMSG_INFO, PS_DEV_DRIVE);
	}
	if (starts(msg, "disable device") || starts(msg, "revalidation failed") ||
	    (dev && ends(msg, ", disabled"))) {
		upto(h->what, sizeof(h->what), msg, "\n");
		return set(h, "ata_disabled", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	return false;
}

static bool decode_ata(const char *t, struct ps_kmsg_hit *h)
{
	const char *p = t + 3, *msg;
	bool dev = false;
	char name[16];

	if (!starts(t, "ata") || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2])) {
		dev = true;
		p += 3;
	}
	if (p[0] != ':' || p[1] != ' ')
		return false;
	copy(name, sizeof(name), t, (size_t)(p - t));
	msg = p + 2;
	name_ns(h, PS_KNS_ATA, name);
	return ata_command(msg, dev, h) || ata_link(msg, h) || ata_mode(msg, dev, h);
}

/* ---- the block layer (blk-mq.c, buffer.c) ---- */

static bool decode_block(const char *t, struct ps_kmsg_hit *h)
{
	const char *v, *e;
	char status[48], op[24] = "";
	uint64_t sector;

	if ((v = after(t, "Buffer I/O error on dev "))) {
		char name[40];

		upto(name, sizeof(name), v, ", \n");
		name_ns(h, PS_KNS_BLOCK, name);
		h->detail = true;
		return set(h, "io_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	/* "<status> error, dev sda, sector N op 0x0:(READ) flags ..." after an optional
	 * "blk_update_request: " or "print_req_error: " of older kernels */
	if (!(e = strstr(t, " error, dev ")))
		return false;
	v = e + strlen(" error, dev ");
	{
		/* the status is what precedes " error, dev ", after an older kernel's "func: " */
		const char *s = t;

		for (const char *c = strstr(t, ": "); c && c < e; c = strstr(c + 2, ": "))
			s = c + 2;
		copy(status, sizeof(status), s, (size_t)(e - s));
	}
	{
		char name[40];

		upto(name, sizeof(name), v, ", \n");
		name_ns(h, PS_KNS_BLOCK, name);
	}
	if ((v = after(t, "op 0x")) && (v = strchr(v, '(')))
		upto(op, sizeof(op), v + 1, ")");
	if ((v = after(t, ", sector ")) && decnum(v, &sector) &&
	    (!op[0] || strcmp(op, "READ") == 0 || strcmp(op, "WRITE") == 0) &&
	    set_range(&h->lba_first, &h->lba_last, sector, 1)) {
		h->lba_unit = PS_KLBA_512;
		h->lba_start_only = true;
	}
	setf(h->what, sizeof(h->what), "%s error%s%s", status, op[0] ? " on " : "", op);
	if (strcmp(status, "operation not supported") == 0 ||
	    strcmp(status, "nonblocking retry") == 0)
		return set(h, "io_error", PS_KMSG_INFO, PS_DEV_DRIVE);
	return set(h, "io_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
}

/* ---- SCSI (scsi_logging.c, sd.c, scsi_error.c) ---- */

/* LBA and length of a READ/WRITE CDB as hex bytes "28 00 00 00 20 00 00 01 00 00". */
static bool cdb_range(const char *s, int64_t *first, int64_t *last)
{
	unsigned int b[16];
	int n = 0;
	uint64_t lba = 0, len = 0;

	while (n < 16) {
		while (*s == ' ')
			s++;
		if (hexval(s[0]) < 0 || hexval(s[1]) < 0 || (s[2] && s[2] != ' ' && s[2] != '\n'))
			break;
		b[n++] = (unsigned int)(hexval(s[0]) * 16 + hexval(s[1]));
		s += 2;
	}
	if (n < 6)
		return false;
	switch (b[0]) {
	case 0x08: /* READ(6), WRITE(6) */
	case 0x0a:
		lba = (b[1] & 0x1f) << 16 | b[2] << 8 | b[3];
		len = b[4] ? b[4] : 256;
		break;
	case 0x28: /* READ(10), WRITE(10), VERIFY(10) */
	case 0x2a:
	case 0x2f:
		if (n < 10)
			return false;
		lba = (uint64_t)b[2] << 24 | b[3] << 16 | b[4] << 8 | b[5];
		len = b[7] << 8 | b[8];
		break;
	case 0x88: /* READ(16), WRITE(16), VERIFY(16) */
	case 0x8a:
	case 0x8f:
		if (n < 16)
			return false;
		for (int i = 2; i < 10; i++)
			lba = lba << 8 | b[i];
		len = (uint64_t)b[10] << 24 | b[11] << 16 | b[12] << 8 | b[13];
		break;
	default:
		return false;
	}
	return set_range(first, last, lba, len);
}

static bool decode_scsi(const char *t, const struct prefix *px, const char *msg,
			struct ps_kmsg_hit *h)
{
	const char *v;

	if (px->n != 2 || (strcmp(px->w[0], "sd") != 0 && strcmp(px->w[0], "scsi") != 0) ||
	    !is_scsi_addr(px->w[1]))
		return false;
	/* "[sda] tag#12 " */
	if (msg[0] == '[') {
		char disk[40];

		upto(disk, sizeof(disk), msg + 1, "]");
		name_ns(h, PS_KNS_BLOCK, disk);
		copy(h->scsi, sizeof(h->scsi), px->w[1], strlen(px->w[1]));
		msg += strcspn(msg, "]");
		if (*msg)
			msg++;
		while (*msg == ' ')
			msg++;
	} else {
		name_ns(h, PS_KNS_SCSI, px->w[1]);
	}
	if (starts(msg, "tag#")) {
		msg += strcspn(msg, " ");
		while (*msg == ' ')
			msg++;
	}
	if ((v = after(msg, "Sense Key : ")) && starts(msg, "Sense Key")) {
		char key[48];

		upto(key, sizeof(key), v, "[\n");
		if (strcmp(key, "Recovered Error") == 0) {
			setf(h->what, sizeof(h->what),
			     "recovered error (sense key Recovered Error)");
			return set(h, "scsi_recovered", PS_KMSG_WARN, PS_DEV_DRIVE);
		}
		if (strcmp(key, "Unit Attention") == 0 || strcmp(key, "Illegal Request") == 0 ||
		    strcmp(key, "No Sense") == 0)
			return false;
		h->detail = true;
		snprintf(h->note, sizeof(h->note), "%s", key);
		return set(h, "io_error",
			   strcmp(key, "Medium Error") == 0 || strcmp(key, "Hardware Error") == 0
			       ? PS_KMSG_FAIL
			       : PS_KMSG_WARN,
			   PS_DEV_DRIVE);
	}
	if ((v = after(msg, "Add. Sense: ")) && starts(msg, "Add. Sense")) {
		h->detail = true;
		upto(h->note, sizeof(h->note), v, "\n");
		return set(h, "io_error", PS_KMSG_INFO, PS_DEV_DRIVE);
	}
	if ((v = after(msg, "CDB: ")) && starts(msg, "CDB")) {
		const char *bytes = strchr(v, ')');

		h->detail = true;
		if (bytes && cdb_range(bytes + 1, &h->lba_first, &h->lba_last))
			h->lba_unit = PS_KLBA_DEVICE;
		return set(h, "io_error", PS_KMSG_INFO, PS_DEV_DRIVE);
	}
	if ((v = after(msg, "hostbyte=")) && starts(msg, "FAILED Result")) {
		char host[32];

		h->detail = true;
		upto(host, sizeof(host), v, " \n");
		if (strcmp(host, "DID_OK") != 0)
			snprintf(h->note, sizeof(h->note), "%s", host);
		return set(h, "io_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if (starts(msg, "rejecting I/O to offline device") || strstr(msg, "Device offlined") ||
	    strstr(msg, "Offlining disk")) {
		upto(h->what, sizeof(h->what), msg, "\n");
		return set(h, "drive_offline", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	if (starts(msg, "timing out command")) {
		upto(h->what, sizeof(h->what), msg, "\n");
		return set(h, "scsi_timeout", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	return false;
}

/* ---- NVMe (nvme/host/core.c, pci.c) ---- */

static bool decode_nvme(const char *t, const struct prefix *px, const char *msg,
			struct ps_kmsg_hit *h)
{
	const char *v;

	/* "nvme0n1: I/O Cmd(0x2) @ LBA 1234, 8 blocks, I/O Error (sct 0x2 / sc 0x81) DNR" */
	if (px->n == 1 && starts(px->w[0], "nvme") && strstr(msg, "(sct 0x")) {
		const char *lba = after(msg, " @ LBA ");
		char cmd[48], status[64];
		uint64_t first, blocks;

		upto(cmd, sizeof(cmd), msg, "(,");
		v = lba ? after(lba, " blocks, ") : after(msg, "), ");
		upto(status, sizeof(status), v ? v : "", "(\n");
		snprintf(h->note, sizeof(h->note), "%s", status);
		if (lba) {
			char *end;

			name_ns(h, PS_KNS_BLOCK, px->w[0]);
			if (decnum(lba, &first) && (end = strchr(lba, ',')) &&
			    decnum(end + 2, &blocks) &&
			    set_range(&h->lba_first, &h->lba_last, first, blocks))
				h->lba_unit = PS_KLBA_DEVICE;
			setf(h->what, sizeof(h->what), "%s command failed", cmd);
			return set(h, "nvme_error", PS_KMSG_FAIL, PS_DEV_DRIVE);
		}
		name_ns(h, PS_KNS_NVME, px->w[0]);
		setf(h->what, sizeof(h->what), "admin command %s failed", cmd);
		return set(h, "nvme_admin_error", PS_KMSG_INFO, PS_DEV_DRIVE);
	}
	if (px->n != 2 || strcmp(px->w[0], "nvme") != 0)
		return false;
	if (is_pci(px->w[1]))
		name_ns(h, PS_KNS_PCI, px->w[1]);
	else
		name_ns(h, PS_KNS_NVME, px->w[1]);
	if (starts(msg, "I/O ") && (v = strstr(msg, "timeout"))) {
		/* "I/O 12 QID 3 timeout, reset controller" -> "I/O timeout, reset controller" */
		setf(h->what, sizeof(h->what), "I/O timeout%.*s", (int)strcspn(v + 7, "\n"), v + 7);
		return set(h, "nvme_timeout", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (starts(msg, "Abort status")) {
		h->detail = true;
		upto(h->note, sizeof(h->note), msg, "\n");
		return set(h, "nvme_timeout", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (strstr(msg, "resetting controller") || starts(msg, "controller is down")) {
		upto(h->what, sizeof(h->what), msg, ":;\n");
		return set(h, "nvme_reset", PS_KMSG_WARN, PS_DEV_DRIVE);
	}
	if (starts(msg, "Removing after probe failure") || starts(msg, "Device not ready") ||
	    starts(msg, "Disabling device after reset failure")) {
		upto(h->what, sizeof(h->what), msg, ";\n");
		return set(h, "nvme_failed", PS_KMSG_FAIL, PS_DEV_DRIVE);
	}
	return false;
}

/* ---- NICs (e1000e, igb, ixgbe, phylib/r8169, tg3; the netdev watchdog) ---- */

/* "1000 Mbps", "10 Gbps", "1Gbps/Full", "2.5Gbps" -> Mb/s */
static double nic_speed(const char *s)
{
	char *end;
	double v;

	while (*s == ' ' || *s == '-')
		s++;
	if (starts(s, "at "))
		s += 3;
	v = strtod(s, &end);
	if (end == s || v <= 0)
		return NAN;
	while (*end == ' ')
		end++;
	if (starts(end, "Gbps") || starts(end, "Gb/s"))
		return v * 1000;
	if (starts(end, "Mbps") || starts(end, "Mb/s"))
		return v;
	return NAN;
}

static bool decode_nic(const char *t, const struct prefix *px, const char *msg,
		       struct ps_kmsg_hit *h)
{
	const char *v, *link;
	char ifname[40] = "";

	if (px->n >= 3)
		copy(ifname, sizeof(ifname), px->w[2], strlen(px->w[2]));
	else if (px->n == 1)
		copy(ifname, sizeof(ifname), px->w[0], strlen(px->w[0]));
	/* "igb: eth0 NIC Link is Up", old e1000e "e1000e: eth0 NIC Link is Down" */
	if ((link = strstr(msg, "NIC Link is ")) && link > msg) {
		const char *w = msg;

		if (starts(w, "igb: "))
			w += 5;
		if (link > w && link[-1] == ' ' && !memchr(w, ' ', (size_t)(link - w - 1)))
			copy(ifname, sizeof(ifname), w, (size_t)(link - w - 1));
	}
	if (!link && (starts(msg, "Link is ") || starts(msg, "link is ") || starts(msg, "Link ")))
		link = msg;
	if ((v = after(t, "NETDEV WATCHDOG: "))) {
		if (!starts(
			v, "CPU:")) /* before 6.x: "NETDEV WATCHDOG: eth0 (e1000e): transmit ..." */
			upto(ifname, sizeof(ifname), v, " :");
		if (!ifname[0])
			return false;
		name_ns(h, PS_KNS_NETDEV, ifname);
		setf(h->what, sizeof(h->what), "transmit queue timed out (watchdog reset)");
		return set(h, "nic_tx_timeout", PS_KMSG_WARN, PS_DEV_NIC);
	}
	if (!ifname[0] || strchr(ifname, ':') || px->n == 2)
		return false;
	if (link) {
		const char *state = strstr(link, "is ") ? strstr(link, "is ") + 3 : link + 5;

		if (strncasecmp(state, "down", 4) == 0) {
			name_ns(h, PS_KNS_NETDEV, ifname);
			setf(h->what, sizeof(h->what), "link down");
			return set(h, "nic_link_down", PS_KMSG_WARN, PS_DEV_NIC);
		}
		if (strncasecmp(state, "up", 2) == 0) {
			name_ns(h, PS_KNS_NETDEV, ifname);
			h->speed = nic_speed(state + 2);
			upto(h->note, sizeof(h->note), state + 2, ",\n");
			{
				/* " 1000 Mbps Full Duplex", " - 1Gbps/Full - flow control rx/tx" */
				const char *n = h->note;
				char *cut;

				while (*n == ' ' || *n == '-')
					n++;
				if (starts(n, "at "))
					n += 3;
				setf(h->what, sizeof(h->what), "link up%s%s", *n ? " at " : "", n);
				if ((cut = strstr(h->what, " - ")))
					*cut = '\0';
			}
			h->note[0] = '\0';
			return set(h, "nic_link_up", PS_KMSG_INFO, PS_DEV_NIC);
		}
		return false;
	}
	if (starts(msg, "Reset adapter") || starts(msg, "Detected Hardware Unit Hang") ||
	    starts(msg, "Detected Tx Unit Hang") || starts(msg, "tx hang") ||
	    starts(msg, "TX timeout")) {
		name_ns(h, PS_KNS_NETDEV, ifname);
		upto(h->what, sizeof(h->what), msg, ":\n");
		return set(h, "nic_reset", PS_KMSG_WARN, PS_DEV_NIC);
	}
	return false;
}

/* ---- firmware (firmware_loader/main.c and drivers' own words) ---- */

static bool decode_firmware(const char *t, const struct prefix *px, const char *msg,
			    struct ps_kmsg_hit *h)
{
	const char *v;
	char file[64] = "", err[16] = "";

	if ((v = after(t, "Direct firmware load for "))) {
		upto(file, sizeof(file), v, " \n");
		if ((v = after(v, "failed with error ")))
			upto(err, sizeof(err), v, " \n");
	} else if ((v = after(t, "firmware: failed to load "))) {
		upto(file, sizeof(file), v, " \n");
		if ((v = strchr(v, '(')))
			upto(err, sizeof(err), v + 1, ")");
	} else if (!strcasestr(t, "failed to load firmware") &&
		   !strcasestr(t, "unable to load firmware") &&
		   !strcasestr(t, "firmware load failed")) {
		return false;
	}
	if (px->n > 0 && msg)
		prefix_device(h, px);
	if (file[0]) {
		snprintf(h->note, sizeof(h->note), "%s", file);
		setf(h->what, sizeof(h->what), "firmware %s not loaded%s%s%s", file,
		     err[0] ? " (error " : "", err, err[0] ? ")" : "");
	} else {
		upto(h->what, sizeof(h->what), msg ? msg : t, "\n");
	}
	return set(h, "firmware_missing", PS_KMSG_WARN,
		   h->ns == PS_KNS_NETDEV ? PS_DEV_NIC
		   : h->ns == PS_KNS_PCI  ? PS_DEV_LINK
					  : PS_DEV_MACHINE);
}

/* ---- PCIe AER, DPC, hotplug (pcie/aer.c, dpc.c, hotplug/pciehp_ctrl.c) ---- */

static bool decode_pcie(const char *t, const struct prefix *px, const char *msg,
			struct ps_kmsg_hit *h)
{
	const char *v;

	if (px->n != 2 || !is_pci(px->w[1]))
		return false;
	if (starts(msg, "AER: "))
		msg += 5;
	if ((v = after(msg, "PCIe Bus Error: severity="))) {
		char sev[32], type[40] = "";
		const char *ty = after(v, "type=");

		upto(sev, sizeof(sev), v, ",\n");
		if (ty)
			upto(type, sizeof(type), ty, ",\n");
		name_ns(h, PS_KNS_PCI, px->w[1]);
		setf(h->what, sizeof(h->what), "%s PCIe error%s%s%s",
		     strcmp(sev, "Corrected") == 0 ? "corrected" : sev, type[0] ? " (" : "", type,
		     type[0] ? ")" : "");
		return set(h, "aer", strcmp(sev, "Corrected") == 0 ? PS_KMSG_WARN : PS_KMSG_FAIL,
			   PS_DEV_LINK);
	}
	/* "Corrected error message received from 0000:01:00.0"; before 5.x
	 * "Corrected error received: 0000:01:00.0" (possibly "Multiple ...") */
	if ((v = after(msg, "error message received from ")) ||
	    (v = after(msg, "error received: "))) {
		char src[32];

		upto(src, sizeof(src), v, " \n");
		if (!is_pci(src))
			return false;
		name_ns(h, PS_KNS_PCI, src);
		h->detail = true;
		return set(h, "aer", strstr(msg, "Corrected") ? PS_KMSG_WARN : PS_KMSG_FAIL,
			   PS_DEV_LINK);
	}
	/* "   [ 0] RxErr                  (First)" */
	v = msg;
	while (*v == ' ')
		v++;
	if (*v == '[' && (v = strchr(v, ']'))) {
		v++;
		while (*v == ' ')
			v++;
		name_ns(h, PS_KNS_PCI, px->w[1]);
		h->detail = true;
		upto(h->note, sizeof(h->note), v, " \n");
		return h->note[0] && set(h, "aer", PS_KMSG_INFO, PS_DEV_LINK);
	}
	if (strstr(msg, "DPC: containment event") || strstr(msg, "containment event, status")) {
		name_ns(h, PS_KNS_PCI, px->w[1]);
		setf(h->what, sizeof(h->what), "DPC containment event (link disabled)");
		return set(h, "pcie_dpc", PS_KMSG_FAIL, PS_DEV_LINK);
	}
	if ((v = after(msg, "pciehp: Slot(")) &&
	    (strstr(v, "Link Down") || strstr(v, "Card not present"))) {
		name_ns(h, PS_KNS_PCI, px->w[1]);
		upto(h->what, sizeof(h->what), strstr(v, ": ") ? strstr(v, ": ") + 2 : v, "\n");
		return set(h, "pcie_link_down", PS_KMSG_WARN, PS_DEV_LINK);
	}
	return false;
}

/* ---- the machine: MCE, thermal throttling, EDAC, kernel warnings and oopses ---- */

/* "[Hardware Error]: ..." (v: after it): a machine check, corrected or not. */
static bool machine_check(const char *v, struct ps_kmsg_hit *h)
{
	uint64_t status;
	const char *bank;

	if (starts(v, "CPU ") && (bank = after(v, " Bank ")) && strstr(v, "Machine Check")) {
		unsigned int cpu = (unsigned int)strtoul(v + 4, NULL, 10);
		unsigned int b = (unsigned int)strtoul(bank, NULL, 10);
		const char *st = after(bank, ": ");
		bool uc = hexnum(st, &status) && (status & (1ULL << 61));

		setf(h->what, sizeof(h->what), "%s machine check on CPU %u bank %u",
		     uc ? "uncorrected" : "corrected", cpu, b);
		if (st)
			setf(h->note, sizeof(h->note), "status 0x%.*s", (int)strcspn(st, " \n"),
			     st);
		return set(h, "mce", uc ? PS_KMSG_FAIL : PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (starts(v, "Machine check events logged")) {
		setf(h->what, sizeof(h->what),
		     "machine check events logged (corrected errors: read them with "
		     "rasdaemon or mcelog)");
		return set(h, "mce", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	h->detail = true;
	if (starts(v, "Machine check: ")) {
		upto(h->note, sizeof(h->note), v + strlen("Machine check: "), "\n");
		return set(h, "mce", PS_KMSG_FAIL, PS_DEV_MACHINE);
	}
	if (strstr(v, "Uncorrected")) {
		upto(h->note, sizeof(h->note), v, ".,\n");
		return set(h, "mce", PS_KMSG_FAIL, PS_DEV_MACHINE);
	}
	if (strstr(v, "Corrected error") || strstr(v, "Deferred error")) {
		upto(h->note, sizeof(h->note), v, ".,\n");
		return set(h, "mce", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	return set(h, "mce", PS_KMSG_INFO, PS_DEV_MACHINE);
}

/* "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 ...)" */
static bool edac_error(const char *t, const char *v, struct ps_kmsg_hit *h)
{
	uint64_t n;
	const char *kind;
	bool ue;

	if (!decnum(v, &n) || !(kind = strchr(v, ' ')))
		return false;
	kind++;
	ue = starts(kind, "UE ");
	if (!ue && !starts(kind, "CE "))
		return false;
	upto(h->name, sizeof(h->name), t + 5, ":");
	h->count = n > 0 && n < 1000000 ? (unsigned int)n : 1;
	if ((v = after(kind, " on ")))
		upto(h->note, sizeof(h->note), v, " (\n");
	setf(h->what, sizeof(h->what), "%s memory error%s", ue ? "uncorrected" : "corrected",
	     h->count > 1 ? "s" : "");
	return set(h, ue ? "edac_ue" : "edac_ce", ue ? PS_KMSG_FAIL : PS_KMSG_WARN, PS_DEV_MACHINE);
}

static bool decode_machine(const char *t, struct ps_kmsg_hit *h)
{
	const char *v;

	h->ns = PS_KNS_NONE;
	if ((v = after(t, "[Hardware Error]: ")))
		return machine_check(v, h);
	if (strstr(t, "CMCI storm detected")) {
		setf(h->what, sizeof(h->what), "CMCI storm: corrected machine checks too frequent");
		return set(h, "mce", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (strstr(t, "temperature above threshold")) {
		const char *cpu = strstr(t, "CPU");
		char who[16] = "";

		if (cpu)
			upto(who, sizeof(who), cpu, ": ");
		setf(h->what, sizeof(h->what),
		     "%s%s%s temperature above threshold, clock throttled", who, who[0] ? ": " : "",
		     strstr(t, "Package") ? "package" : "core");
		return set(h, "cpu_throttle", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (starts(t, "EDAC MC") && (v = after(t, ": ")))
		return edac_error(t, v, h);
	if (starts(t, "WARNING: ")) {
		const char *at = after(t, " at ");

		setf(h->what, sizeof(h->what), "kernel warning");
		if (at)
			upto(h->note, sizeof(h->note), at, " \n");
		return set(h, "kernel_warning", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (strstr(t, "soft lockup - CPU#") || strstr(t, "hard LOCKUP") ||
	    strstr(t, "BUG: workqueue lockup") ||
	    (starts(t, "INFO: task ") && strstr(t, "blocked for more than")) ||
	    ((starts(t, "rcu: INFO: ") || starts(t, "INFO: rcu")) && strstr(t, "stall"))) {
		upto(h->what, sizeof(h->what), starts(t, "watchdog: ") ? t + 10 : t, "\n");
		return set(h, "kernel_stall", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (starts(t, "BUG: ") || starts(t, "kernel BUG at ") || starts(t, "Oops: ") ||
	    starts(t, "Oops ") || starts(t, "general protection fault") ||
	    starts(t, "Kernel panic - not syncing") || starts(t, "Unable to handle kernel")) {
		upto(h->what, sizeof(h->what), t, "\n");
		return set(h, "kernel_oops", PS_KMSG_FAIL, PS_DEV_MACHINE);
	}
	return false;
}

/* ---- USB (usb/core/hub.c) ---- */

static bool decode_usb(const struct prefix *px, const char *msg, struct ps_kmsg_hit *h)
{
	if (px->n != 2 || strcmp(px->w[0], "usb") != 0 || !is_usb_path(px->w[1]))
		return false;
	if (starts(msg, "reset ") && strstr(msg, "USB device number")) {
		name_ns(h, PS_KNS_USB, px->w[1]);
		upto(h->what, sizeof(h->what), msg, "\n");
		{
			char *n = strstr(h->what, " number");

			if (n)
				*n = '\0';
		}
		return set(h, "usb_reset", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	if (starts(msg, "USB disconnect")) {
		name_ns(h, PS_KNS_USB, px->w[1]);
		setf(h->what, sizeof(h->what), "USB device disconnected");
		return set(h, "usb_disconnect", PS_KMSG_WARN, PS_DEV_MACHINE);
	}
	return false;
}

bool ps_kmsg_decode(const char *text, struct ps_kmsg_hit *hit)
{
	struct prefix px;
	const char *msg, *v;

	hit_init(hit);
	if (!text || !*text)
		return false;
	/* "blk_print_req_error: 3 callbacks suppressed": the kernel's rate limit hid lines */
	if ((v = strstr(text, " callbacks suppressed"))) {
		const char *n = v;
		uint64_t count;

		while (n > text && isdigit((unsigned char)n[-1]))
			n--;
		if (n < v && decnum(n, &count)) {
			hit->count = count < 1000000000 ? (unsigned int)count : 1000000000;
			hit->rule = "ratelimited";
			hit->detail = true;
			return true;
		}
	}
	if (decode_ata(text, hit) || decode_block(text, hit))
		return true;
	hit_init(hit);
	msg = split_prefix(text, &px);
	if (msg && (decode_scsi(text, &px, msg, hit) || decode_nvme(text, &px, msg, hit) ||
		    decode_usb(&px, msg, hit)))
		return true;
	hit_init(hit);
	if (decode_firmware(text, &px, msg, hit))
		return true;
	hit_init(hit);
	if (msg && (decode_pcie(text, &px, msg, hit) || decode_nic(text, &px, msg, hit)))
		return true;
	hit_init(hit);
	if (decode_machine(text, hit))
		return true;
	hit_init(hit);
	return false;
}
