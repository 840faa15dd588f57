/*
 * drivers.c - the devices no driver took, and why (hw/drivers.h): PCI
 * functions and USB devices from sysfs, names from pci.ids and usb.ids,
 * the module from the full kernel's modules.alias, and the evidence of what
 * went wrong from the image itself (its module tree, its driver families and
 * firmware list), coldplug's record and the kernel log since boot.
 */
#include "hw/drivers.h"
#include "lib/util.h"
#include "hw/hw_util.h"
#include "decode/kmsg.h"
#include "lib/json.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#define SHARE "/usr/share/probestick"

const char *const ps_nodrv_why_names[PS_NODRV_WHYS + 1] = {
    [PS_NODRV_NO_MODULE] = "no_module",
    [PS_NODRV_FAMILY_OFF] = "family_off",
    [PS_NODRV_NO_FAMILY] = "no_family",
    [PS_NODRV_DROPPED] = "dropped",
    [PS_NODRV_LOAD_FAILED] = "load_failed",
    [PS_NODRV_FIRMWARE_FAILED] = "firmware_failed",
    [PS_NODRV_FIRMWARE_OUT] = "firmware_left_out",
    [PS_NODRV_PROBE_FAILED] = "probe_failed",
    [PS_NODRV_NOT_LOADED] = "not_loaded",
    [PS_NODRV_NOT_BOUND] = "not_bound",
    [PS_NODRV_FIRMWARE_MODE] = "firmware_mode",
    [PS_NODRV_NOMODESET] = "nomodeset",
    [PS_NODRV_WHYS] = NULL,
};

const char *ps_nodrv_why_name(enum ps_nodrv_why w)
{
	return (unsigned int)w < PS_NODRV_WHYS ? ps_nodrv_why_names[w] : NULL;
}

/* ---------------------------------------------------------- the pure part -- */

/* Literal characters of a pattern: the more, the more specific the alias. */
static int literal_chars(const char *p, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i] != '*' && p[i] != '?')
			c++;
	return c;
}

static void list_add(char *list, size_t len, const char *word)
{
	size_t wl = strlen(word), at = 0;

	/* already there? */
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if (n == wl && strncmp(p, word, n) == 0)
			return;
		p += n;
		if (*p == ',')
			p++;
	}
	at = strlen(list);
	if (at + wl + 2 > len)
		return;
	if (at)
		list[at++] = ',';
	memcpy(list + at, word, wl + 1);
}

int ps_alias_match(const char *aliases, size_t len, const char *modalias, char *best,
		   size_t best_len, char *all, size_t all_len)
{
	const char *p = aliases, *end = aliases + len;
	int matches = 0, best_score = -1;

	if (best_len)
		best[0] = '\0';
	if (all_len)
		all[0] = '\0';
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *line = p, *sp;
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char pat[512], mod[64];

		p = nl ? nl + 1 : end;
		if (n > 6 && strncmp(line, "alias ", 6) == 0) {
			line += 6;
			n -= 6;
		}
		sp = memchr(line, ' ', n);
		if (!sp || (size_t)(sp - line) >= sizeof(pat) ||
		    n - (size_t)(sp - line) - 1 >= sizeof(mod) || sp == line)
			continue;
		memcpy(pat, line, (size_t)(sp - line));
		pat[sp - line] = '\0';
		memcpy(mod, sp + 1, n - (size_t)(sp - line) - 1);
		mod[n - (size_t)(sp - line) - 1] = '\0';
		if (fnmatch(pat, modalias, 0) != 0)
			continue;
		matches++;
		for (char *m = mod; *m; m++)
			if (*m == '-')
				*m = '_';
		list_add(all, all_len, mod);
		if (literal_chars(pat, strlen(pat)) > best_score) {
			best_score = literal_chars(pat, strlen(pat));
			ps_copy_str(best, best_len, mod);
		}
	}
	return matches;
}

/* Copies the rest of an ids line ("10ec  Realtek ...": after the two spaces). */
static void ids_name(const char *line, const char *end, char *out, size_t len)
{
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

	while (n && (line[n - 1] == '\r' || line[n - 1] == ' '))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(out, line, n);
	out[n] = '\0';
}

/* Finds "\n<prefix>" at or after p, before limit; returns what follows it. */
static const char *find_line(const char *p, const char *limit, const char *prefix)
{
	size_t pl = strlen(prefix);

	while (p && p < limit) {
		const char *hit = memmem(p, (size_t)(limit - p), prefix, pl);

		if (!hit)
			return NULL;
		if (hit == p || hit[-1] == '\n')
			return hit + pl;
		p = hit + 1;
	}
	return NULL;
}

/* The end of a top-level block: the next line that starts with no tab. */
static const char *block_end(const char *p, const char *end)
{
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl || nl + 1 >= end)
			return end;
		if (nl[1] != '\t' && nl[1] != '#')
			return nl + 1;
		p = nl + 1;
	}
	return end;
}

int ps_ids_lookup(const char *ids, size_t len, unsigned int vendor, int device, char *vname,
		  size_t vlen, char *dname, size_t dlen)
{
	const char *end = ids + len, *v, *vend, *d;
	char key[16];

	vname[0] = dname[0] = '\0';
	if (!ids)
		return -ENOENT;
	snprintf(key, sizeof(key), "%04x  ", vendor & 0xffff);
	v = find_line(ids, end, key);
	if (!v)
		return -ENOENT;
	ids_name(v, end, vname, vlen);
	if (device < 0)
		return 0;
	vend = block_end(v, end);
	snprintf(key, sizeof(key), "\t%04x  ", (unsigned int)device & 0xffff);
	d = find_line(v, vend, key);
	if (d)
		ids_name(d, end, dname, dlen);
	return 0;
}

int ps_ids_class(const char *ids, size_t len, unsigned int cls, int subclass, char *name,
		 size_t nlen)
{
	const char *end = ids + len, *c, *cend, *s;
	char key[16];

	name[0] = '\0';
	if (!ids)
		return -ENOENT;
	snprintf(key, sizeof(key), "C %02x  ", cls & 0xff);
	c = find_line(ids, end, key);
	if (!c)
		return -ENOENT;
	ids_name(c, end, name, nlen);
	if (subclass < 0)
		return 0;
	cend = block_end(c, end);
	snprintf(key, sizeof(key), "\t%02x  ", (unsigned int)subclass & 0xff);
	s = find_line(c, cend, key);
	if (s)
		ids_name(s, end, name, nlen);
	return 0;
}

bool ps_probe_failure(const char *text, char *drv, size_t drv_len, char *dev, size_t dev_len,
		      int *err)
{
	const char *a = strstr(text, ": probe of "), *b;
	size_t n;

	if (!a || a == text)
		return false;
	b = strstr(a + 11, " failed with error ");
	if (!b)
		return false;
	n = (size_t)(a - text);
	if (n >= drv_len || (size_t)(b - a - 11) >= dev_len || strchr(text, ' ') < a)
		return false;
	memcpy(drv, text, n);
	drv[n] = '\0';
	memcpy(dev, a + 11, (size_t)(b - a - 11));
	dev[b - a - 11] = '\0';
	*err = atoi(b + 19);
	return *err < 0;
}

/* ------------------------------------------------------------ the reading -- */

struct blob {
	char *p;
	size_t n;
};

static void blob_free(struct blob *b)
{
	free(b->p);
	b->p = NULL;
	b->n = 0;
}

static int unzstd(const char *in, size_t in_len, struct blob *out)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = {in, in_len, 0};
	size_t cap = in_len * 6 + 4096, ret = 1;

	if (!ds)
		return -ENOMEM;
	out->p = malloc(cap + 1);
	out->n = 0;
	while (out->p && ret != 0) {
		ZSTD_outBuffer ob = {out->p + out->n, cap - out->n, 0};

		ret = ZSTD_decompressStream(ds, &ob, &ib);
		out->n += ob.pos;
		if (ZSTD_isError(ret) || (ret != 0 && ib.pos == ib.size && ob.pos < ob.size)) {
			ZSTD_freeDStream(ds);
			blob_free(out);
			return -EINVAL;
		}
		if (ret != 0 && out->n == cap) {
			char *grown = realloc(out->p, cap * 2 + 1);

			if (!grown)
				break;
			out->p = grown;
			cap *= 2;
		}
	}
	ZSTD_freeDStream(ds);
	if (!out->p)
		return -ENOMEM;
	out->p[out->n] = '\0';
	return 0;
}

/* A data file: PATH.zst decompressed, else PATH as it is. */
static int read_data(const char *path, struct blob *b, char *source, size_t slen)
{
	char zpath[4200];
	char *raw;
	size_t n;
	int ret;

	b->p = NULL;
	b->n = 0;
	snprintf(zpath, sizeof(zpath), "%s.zst", path);
	if (ps_read_all(zpath, &raw, &n) == 0) {
		ret = unzstd(raw, n, b);
		free(raw);
		if (ret == 0)
			ps_copy_str(source, slen, zpath);
		return ret;
	}
	ret = ps_read_all(path, &b->p, &b->n);
	if (ret == 0)
		ps_copy_str(source, slen, path);
	return ret;
}

/* The first of the candidate files (below root) that can be read. */
static void read_first(const char *root, const char *const *rels, size_t n, struct blob *b,
		       char *source, size_t slen)
{
	char path[4096];

	source[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (read_data(ps_path(path, sizeof(path), root, "%s", rels[i]), b, source, slen) ==
		    0)
			return;
}

/* The kernel whose module tree to read: the running one, else (a fixture) the first. */
static void kernel_release(const char *root, char *out, size_t len)
{
	char dir[4096];
	struct utsname u;
	struct dirent *e;
	DIR *d;

	out[0] = '\0';
	if (!root[0] && uname(&u) == 0) {
		ps_copy_str(out, len, u.release);
		return;
	}
	d = opendir(ps_path(dir, sizeof(dir), root, "/lib/modules"));
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			ps_copy_str(out, len, e->d_name);
			break;
		}
	if (d)
		closedir(d);
}

/* "\nname\n..." of the modules in a modules.dep or modules.builtin, '-' as '_'. */
static void module_names(const struct blob *b, struct blob *names)
{
	const char *p = b->p, *end = b->p + b->n;

	names->p = malloc(b->n + 2);
	names->n = 0;
	if (!names->p)
		return;
	names->p[names->n++] = '\n';
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop;
		const char *line_end = nl ? nl : end, *base = p, *ko;

		stop = memchr(p, ':', (size_t)(line_end - p));
		if (!stop)
			stop = line_end;
		for (const char *q = p; q < stop; q++)
			if (*q == '/')
				base = q + 1;
		ko = base;
		while (ko < stop && !(ko + 3 <= stop && strncmp(ko, ".ko", 3) == 0))
			ko++;
		if (ko > base && ko < stop) {
			for (const char *q = base; q < ko; q++)
				names->p[names->n++] = *q == '-' ? '_' : *q;
			names->p[names->n++] = '\n';
		}
		p = nl ? nl + 1 : end;
	}
	names->p[names->n] = '\0';
}

static bool has_name(const struct blob *names, const char *name)
{
	char key[80];

	if (!names->p)
		return false;
	snprintf(key, sizeof(key), "\n%s\n", name);
	return memmem(names->p, names->n, key, strlen(key)) != NULL;
}

/* The family line of a module in the image's families file: its status y, n, x. */
static char family_of(const struct blob *fam, const char *module, char *family, size_t len)
{
	const char *p = fam->p, *end = fam->p + fam->n;
	char best = 0;

	family[0] = '\0';
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char name[64], f[48], st[4];
		char line[160];
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%63s %47s %3s", name, f, st) == 3 &&
			    strcmp(name, module) == 0) {
				/* an enabled family wins, then a drop, then the first family that
				 * is off */
				int rank = st[0] == 'y' ? 3 : st[0] == 'x' ? 2 : 1;
				int have = best == 'y' ? 3 : best == 'x' ? 2 : best ? 1 : 0;

				if (rank > have) {
					best = st[0];
					ps_copy_str(family, len, f);
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return best;
}

static bool exists(const char *root, const char *fmt, const char *arg)
{
	char rel[512], path[4096];
	struct stat st;

	snprintf(rel, sizeof(rel), fmt, arg);
	return stat(ps_path(path, sizeof(path), root, "%s", rel), &st) == 0;
}

/* What the boot log says: firmware that did not load, probes that failed. */
struct bootlog {
	struct ps_fw_failure *fw;
	size_t n_fw, cap_fw;
	struct {
		char drv[32], dev[40];
		int err;
	} probe[64];
	size_t n_probe;
	struct {
		char dev[40];
		int count;
	} remapped[8]; /* ahci found NVMe drives remapped behind a RAID-mode controller */
	size_t n_remapped;
};

static void bootlog_record(struct bootlog *bl, const struct ps_kmsg_record *r)
{
	struct ps_kmsg_hit hit;
	char drv[32], dev[40];
	int err;

	if (r->facility != 0)
		return; /* only the kernel's own lines: anyone may write to /dev/kmsg */
	err = ps_ahci_remapped_nvme(r->text, dev, sizeof(dev));
	if (err > 0) {
		if (bl->n_remapped < PS_ARRAY_SIZE(bl->remapped)) {
			ps_copy_str(bl->remapped[bl->n_remapped].dev, sizeof(bl->remapped[0].dev),
				    dev);
			bl->remapped[bl->n_remapped++].count = err;
		}
		return;
	}
	if (ps_probe_failure(r->text, drv, sizeof(drv), dev, sizeof(dev), &err)) {
		if (bl->n_probe < PS_ARRAY_SIZE(bl->probe)) {
			ps_copy_str(bl->probe[bl->n_probe].drv, sizeof(bl->probe[0].drv), drv);
			ps_copy_str(bl->probe[bl->n_probe].dev, sizeof(bl->probe[0].dev), dev);
			bl->probe[bl->n_probe++].err = err;
		}
		return;
	}
	if (!ps_kmsg_decode(r->text, &hit) || strcmp(hit.rule, "firmware_missing") != 0 ||
	    !hit.note[0])
		return;
	for (size_t i = 0; i < bl->n_fw; i++)
		if (strcmp(bl->fw[i].device, hit.name) == 0 &&
		    strcmp(bl->fw[i].file, hit.note) == 0)
			return;
	if (bl->n_fw == bl->cap_fw) {
		size_t cap = bl->cap_fw ? bl->cap_fw * 2 : 8;
		struct ps_fw_failure *g = realloc(bl->fw, cap * sizeof(*g));

		if (!g)
			return;
		bl->fw = g;
		bl->cap_fw = cap;
	}
	memset(&bl->fw[bl->n_fw], 0, sizeof(bl->fw[0]));
	ps_copy_str(bl->fw[bl->n_fw].device, sizeof(bl->fw[0].device), hit.name);
	ps_copy_str(bl->fw[bl->n_fw].file, sizeof(bl->fw[0].file), hit.note);
	{
		const char *e = strstr(r->text, "failed with error ");
		const char *o = strstr(r->text, hit.note);

		if (e)
			sscanf(e + 18, "%15s", bl->fw[bl->n_fw].error);
		else if (o && (o = strchr(o, '(')))
			sscanf(o + 1, "%15[^)]", bl->fw[bl->n_fw].error);
	}
	bl->n_fw++;
}

/*
 * The kernel log from its start: the live /dev/kmsg one record per read
 * (non-blocking, until EAGAIN), a regular file (a fixture) split into records.
 */
static bool bootlog_read(const char *root, struct bootlog *bl)
{
	char path[4096], buf[PS_KMSG_TEXT_MAX * 2];
	struct ps_kmsg_record *rec = malloc(sizeof(*rec));
	struct stat st;
	int fd;

	if (!rec)
		return false;
	ps_path(path, sizeof(path), root, "/dev/kmsg");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		free(rec);
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		struct blob all = {0};
		const char *p, *end;

		close(fd);
		if (ps_read_all(path, &all.p, &all.n) < 0) {
			free(rec);
			return false;
		}
		p = all.p;
		end = all.p + all.n;
		while (p < end) {
			const char *q = p;

			/* a record's continuation lines (" KEY=VALUE") start with a space */
			while ((q = memchr(q, '\n', (size_t)(end - q))) && q + 1 < end &&
			       q[1] == ' ')
				q++;
			q = q ? q + 1 : end;
			if (ps_kmsg_parse(p, (size_t)(q - p), rec) == 0)
				bootlog_record(bl, rec);
			p = q;
		}
		blob_free(&all);
		free(rec);
		return true;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n < 0 && errno == EPIPE)
			continue; /* records overwritten before we read them */
		if (n <= 0)
			break;
		if (ps_kmsg_parse(buf, (size_t)n, rec) == 0)
			bootlog_record(bl, rec);
	}
	close(fd);
	free(rec);
	return true;
}

/* Everything the explanations need, read once. */
struct facts {
	const char *root;
	struct blob aliases, pci_ids, usb_ids, image_mods, builtin, families;
	json_object *coldplug_failed; /* [{module, error}] */
	json_object *firmware;	      /* firmware.json */
	struct bootlog log;
	bool nomodeset;
};

static const char *coldplug_error(const struct facts *f, const char *module)
{
	for (size_t i = 0; i < ps_json_len(f->coldplug_failed); i++) {
		json_object *e = ps_json_at(f->coldplug_failed, i);
		const char *m = ps_json_str(e, "module");

		if (m && strcmp(m, module) == 0)
			return ps_json_str(e, "error");
	}
	return NULL;
}

/* firmware.json: a file the module names that the image left out, and why. */
static json_object *firmware_left_out(const struct facts *f, const char *module, const char *file)
{
	json_object *left = ps_json_arr(f->firmware, "left_out");

	for (size_t i = 0; i < ps_json_len(left); i++) {
		json_object *e = ps_json_at(left, i), *mods = ps_json_arr(e, "modules");
		const char *name = ps_json_str(e, "file");

		if (file) {
			if (name && strcmp(name, file) == 0)
				return e;
			continue;
		}
		for (size_t k = 0; k < ps_json_len(mods); k++)
			if (strcmp(json_object_get_string(ps_json_at(mods, k)), module) == 0)
				return e;
	}
	return NULL;
}

/* The kernel's name of the device matches: "2-1" for its interfaces "2-1:1.0". */
static bool same_device(const char *kernel_name, const char *address)
{
	size_t n = strlen(address);

	return strncmp(kernel_name, address, n) == 0 &&
	       (kernel_name[n] == '\0' || kernel_name[n] == ':');
}

static bool pci_class_matters(unsigned int cls)
{
	unsigned int base = cls >> 16, sub = (cls >> 8) & 0xff;

	return base == 0x01 || base == 0x02 || (base == 0x0c && (sub == 0x03 || sub == 0x04));
}

static bool usb_class_matters(unsigned int cls)
{
	return cls == 0x08 || cls == 0x02 || cls == 0x0a;
}

/*
 * A device no module claims, or one whose firmware setting hides it (RST
 * RAID mode) or that has no storage of its own (AMT IDE-R): true when it is
 * one of those, its why and what set.
 */
static bool explain_unclaimed(const struct facts *f, struct ps_nodrv_dev *d, char *what, size_t len)
{
	bool pci = strcmp(d->bus, "pci") == 0, in_image;

	if (!d->module[0] && f->aliases.p && pci &&
	    ps_storage_firmware_mode(d->vendor, d->device, d->class)) {
		d->why = PS_NODRV_FIRMWARE_MODE;
		snprintf(what, len, "%s", ps_storage_firmware_mode(d->vendor, d->device, d->class));
		return true;
	}
	if (pci && ps_storage_amt_ider(d->vendor, d->device, d->class)) {
		d->matters = false; /* no storage of its own: a note, not a warning */
		in_image = has_name(&f->image_mods, d->module) || has_name(&f->builtin, d->module);
		d->why = PS_NODRV_NO_MODULE;
		if (d->module[0])
			d->why = in_image ? PS_NODRV_NOT_BOUND : PS_NODRV_NO_FAMILY;
		snprintf(what, len, "%s", ps_storage_amt_ider(d->vendor, d->device, d->class));
		return true;
	}
	if (d->module[0])
		return false;
	d->why = PS_NODRV_NO_MODULE;
	snprintf(what, len, "%s",
		 f->aliases.p ? "no driver of this kernel claims it (modules.alias)"
			      : "the kernel's module aliases could not be read to find its driver");
	return true;
}

/* A module the image does not ship: dropped, its family left out, or in no family. */
static void explain_not_in_image(const struct facts *f, struct ps_nodrv_dev *d, char *what,
				 size_t len)
{
	char st = family_of(&f->families, d->module, d->family, sizeof(d->family));

	d->matters = d->matters || st;
	if (st == 'x') {
		d->why = PS_NODRV_DROPPED;
		snprintf(what, len,
			 "%s would drive it, but initramfs/modules.conf drops it from %s",
			 d->module, d->family);
	} else if (st == 'n') {
		d->why = PS_NODRV_FAMILY_OFF;
		snprintf(what, len,
			 "%s would drive it, but it is in driver family %s, which this image's "
			 ".config leaves out (make menuconfig: Kernel driver families)",
			 d->module, d->family);
	} else {
		d->why = PS_NODRV_NO_FAMILY;
		snprintf(what, len,
			 "%s would drive it, but no driver family of probestick includes it "
			 "(initramfs/modules.conf)",
			 d->module);
	}
}

/* A display whose KMS driver (ast, mgag200, ...) nomodeset holds back: asked for, so said,
 * not warned. True when that is why. */
static bool explain_nomodeset(const struct facts *f, struct ps_nodrv_dev *d, char *what, size_t len)
{
	if (!f->nomodeset || strcmp(d->bus, "pci") != 0 || d->class >> 16 != 0x03)
		return false;
	d->why = PS_NODRV_NOMODESET;
	d->matters = false;
	snprintf(what, len,
		 "%s would drive it, but nomodeset (the Safe graphics boot entry) holds "
		 "display drivers back: the console stays on what the firmware set up",
		 d->module);
	return true;
}

/* What the boot log says of a shipped module and the device: true when it says why. */
static bool explain_from_log(const struct facts *f, struct ps_nodrv_dev *d, char *what, size_t len)
{
	const char *err = coldplug_error(f, d->module);

	if (err) {
		d->why = PS_NODRV_LOAD_FAILED;
		ps_copy_str(d->detail, sizeof(d->detail), err);
		snprintf(what, len, "%s is in the image but did not load: %s", d->module, err);
		return true;
	}
	for (size_t i = 0; i < f->log.n_fw; i++) {
		const struct ps_fw_failure *fw = &f->log.fw[i];
		json_object *left;

		if (!same_device(fw->device, d->address))
			continue;
		d->why = PS_NODRV_FIRMWARE_FAILED;
		ps_copy_str(d->firmware, sizeof(d->firmware), fw->file);
		left = firmware_left_out(f, d->module, fw->file);
		ps_copy_str(d->detail, sizeof(d->detail), left ? ps_json_str(left, "reason") : "");
		snprintf(what, len, "%s is loaded, but its firmware %s did not load (error %s)%s%s",
			 d->module, fw->file, fw->error[0] ? fw->error : "?",
			 d->detail[0] ? ": the image left it out: " : "", d->detail);
		return true;
	}
	for (size_t i = 0; i < f->log.n_probe; i++) {
		if (!same_device(f->log.probe[i].dev, d->address))
			continue;
		d->why = PS_NODRV_PROBE_FAILED;
		snprintf(d->detail, sizeof(d->detail), "%s: error %d", f->log.probe[i].drv,
			 f->log.probe[i].err);
		snprintf(what, len, "%s took it, but its probe failed (error %d, kernel log)",
			 f->log.probe[i].drv, f->log.probe[i].err);
		return true;
	}
	return false;
}

/* A shipped module that did not take the device: not loaded, firmware left out, or silent. */
static void explain_not_bound(const struct facts *f, struct ps_nodrv_dev *d, char *what, size_t len)
{
	json_object *left;

	if (!exists(f->root, "/sys/module/%s", d->module)) {
		d->why = PS_NODRV_NOT_LOADED;
		snprintf(what, len, "%s is in the image but was not loaded", d->module);
		return;
	}
	left = firmware_left_out(f, d->module, NULL);
	if (left) {
		d->why = PS_NODRV_FIRMWARE_OUT;
		ps_copy_str(d->firmware, sizeof(d->firmware), ps_json_str(left, "file"));
		ps_copy_str(d->detail, sizeof(d->detail), ps_json_str(left, "reason"));
		snprintf(what, len,
			 "%s is loaded but did not take it; it names firmware the image left "
			 "out: %s (%s)",
			 d->module, d->firmware, d->detail);
		return;
	}
	d->why = PS_NODRV_NOT_BOUND;
	snprintf(what, len,
		 "%s is loaded but did not take it, and the kernel log says nothing about it",
		 d->module);
}

static void explain(const struct facts *f, struct ps_nodrv_dev *d)
{
	char subject[320], what[640];

	ps_alias_match(f->aliases.p, f->aliases.n, d->modalias, d->module, sizeof(d->module),
		       d->candidates, sizeof(d->candidates));
	/* "MegaRAID SAS 1078 (LSI Logic / Symbios Logic, 1000:0060, RAID bus controller)" */
	snprintf(subject, sizeof(subject), "%s (%s%s%04x:%04x%s%s)",
		 d->device_name[0] ? d->device_name : "an unknown device",
		 d->vendor_name[0] ? d->vendor_name : "", d->vendor_name[0] ? ", " : "", d->vendor,
		 d->device, d->class_name[0] ? ", " : "", d->class_name);
	d->matters =
	    strcmp(d->bus, "pci") == 0 ? pci_class_matters(d->class) : usb_class_matters(d->class);
	if (explain_unclaimed(f, d, what, sizeof(what))) {
		/* decided */
	} else if (!has_name(&f->image_mods, d->module) && !has_name(&f->builtin, d->module)) {
		explain_not_in_image(f, d, what, sizeof(what));
	} else {
		d->matters =
		    d->matters || family_of(&f->families, d->module, d->family, sizeof(d->family));
		if (!explain_nomodeset(f, d, what, sizeof(what)) &&
		    !explain_from_log(f, d, what, sizeof(what)))
			explain_not_bound(f, d, what, sizeof(what));
	}
	snprintf(d->message, sizeof(d->message), "%s has no driver: %s", subject, what);
}

bool ps_cmdline_has(const char *cmdline, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = cmdline; n && (p = strstr(p, word)); p += n)
		if ((p == cmdline || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return true;
	return false;
}

static int grow(struct ps_drivers *out, size_t *cap)
{
	if (out->n < *cap)
		return 0;
	{
		size_t c = *cap ? *cap * 2 : 16;
		struct ps_nodrv_dev *g = realloc(out->devs, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		out->devs = g;
		*cap = c;
	}
	return 0;
}

/* A hex attribute: PCI's "0x10ec", USB's "10ec" (no prefix); 0 when unreadable. */
static unsigned int hex_file(const char *root, const char *dir, const char *name)
{
	char path[4096], buf[32], *end;
	unsigned long v;

	if (ps_read_str(ps_path(path, sizeof(path), root, "%s/%s", dir, name), buf, sizeof(buf)) <=
	    0)
		return 0;
	v = strtoul(buf, &end, 16);
	return *end == '\0' ? (unsigned int)v : 0;
}

static void pci_names(const struct facts *f, struct ps_nodrv_dev *d)
{
	ps_ids_lookup(f->pci_ids.p, f->pci_ids.n, d->vendor, (int)d->device, d->vendor_name,
		      sizeof(d->vendor_name), d->device_name, sizeof(d->device_name));
	ps_ids_class(f->pci_ids.p, f->pci_ids.n, d->class >> 16, (int)((d->class >> 8) & 0xff),
		     d->class_name, sizeof(d->class_name));
}

/* NVMe drives the kernel log says ahci found remapped behind the controller at address. */
static int remapped_behind(const struct facts *f, const char *address)
{
	for (size_t i = 0; i < f->log.n_remapped; i++)
		if (same_device(f->log.remapped[i].dev, address))
			return f->log.remapped[i].count;
	return 0;
}

/*
 * The drives hidden behind a controller in RST RAID mode: listed under the
 * controller (which has its driver) as storage without one.
 */
static void add_remapped(const struct facts *f, const char *rel, const char *address,
			 const char *driver, struct ps_nodrv_dev *d)
{
	int n = remapped_behind(f, address);

	memset(d, 0, sizeof(*d));
	ps_copy_str(d->bus, sizeof(d->bus), "pci");
	ps_copy_str(d->address, sizeof(d->address), address);
	d->vendor = hex_file(f->root, rel, "vendor");
	d->device = hex_file(f->root, rel, "device");
	d->class = hex_file(f->root, rel, "class");
	pci_names(f, d);
	ps_copy_str(d->module, sizeof(d->module), driver);
	d->why = PS_NODRV_FIRMWARE_MODE;
	d->matters = true;
	snprintf(d->detail, sizeof(d->detail), "%d remapped NVMe drive%s", n, n == 1 ? "" : "s");
	snprintf(d->message, sizeof(d->message),
		 "%d NVMe drive%s behind %s (%04x:%04x, %s) %s no driver: %s", n, n == 1 ? "" : "s",
		 d->device_name[0] ? d->device_name : "the SATA controller", d->vendor, d->device,
		 driver, n == 1 ? "has" : "have", ps_rst_remapped_advice());
}

static int read_pci(const struct facts *f, const struct ps_inventory *inv, struct ps_drivers *out,
		    size_t *cap)
{
	char dir[4096], path[4096], link[64];
	struct ps_dirlist l = {0};

	if (ps_dir_list(ps_path(dir, sizeof(dir), f->root, "/sys/bus/pci/devices"), &l) < 0)
		return 0;
	for (size_t i = 0; i < l.n; i++) {
		char rel[320];
		struct ps_nodrv_dev *d;
		const struct ps_pcie_dev *p = inv ? ps_inventory_pcie(inv, l.names[i]) : NULL;

		snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s", l.names[i]);
		out->pci_total++;
		if (ps_link_name(ps_path(path, sizeof(path), f->root, "%s/driver", rel), link,
				 sizeof(link)) >= 0) {
			out->pci_bound++;
			if (remapped_behind(f, l.names[i]) > 0) {
				if (grow(out, cap) < 0) {
					ps_dir_free(&l);
					return -ENOMEM;
				}
				add_remapped(f, rel, l.names[i], link, &out->devs[out->n++]);
			}
			continue;
		}
		if (grow(out, cap) < 0) {
			ps_dir_free(&l);
			return -ENOMEM;
		}
		d = &out->devs[out->n++];
		memset(d, 0, sizeof(*d));
		ps_copy_str(d->bus, sizeof(d->bus), "pci");
		ps_copy_str(d->address, sizeof(d->address), l.names[i]);
		d->id = p && p->id[0] ? p->id : NULL;
		d->vendor = hex_file(f->root, rel, "vendor");
		d->device = hex_file(f->root, rel, "device");
		d->class = hex_file(f->root, rel, "class");
		if (ps_read_str(ps_path(path, sizeof(path), f->root, "%s/modalias", rel),
				d->modalias, sizeof(d->modalias)) < 0)
			d->modalias[0] = '\0';
		pci_names(f, d);
		explain(f, d);
	}
	ps_dir_free(&l);
	return 0;
}

static int read_usb(const struct facts *f, struct ps_drivers *out, size_t *cap)
{
	char dir[4096], path[4096], link[64];
	struct ps_dirlist l = {0};

	if (ps_dir_list(ps_path(dir, sizeof(dir), f->root, "/sys/bus/usb/devices"), &l) < 0)
		return 0;
	for (size_t i = 0; i < l.n; i++) {
		const char *dev = l.names[i];
		size_t dl = strlen(dev);
		int unbound = -1, ifaces = 0;
		struct ps_nodrv_dev *d;
		char rel[320];

		/* devices ("1-2"), not interfaces ("1-2:1.0") nor root hubs ("usb1") */
		if (strchr(dev, ':') || strncmp(dev, "usb", 3) == 0)
			continue;
		out->usb_total++;
		for (size_t k = 0; k < l.n; k++) {
			if (strncmp(l.names[k], dev, dl) != 0 || l.names[k][dl] != ':')
				continue;
			ifaces++;
			snprintf(rel, sizeof(rel), "/sys/bus/usb/devices/%s/driver", l.names[k]);
			if (unbound < 0 &&
			    ps_link_name(ps_path(path, sizeof(path), f->root, "%s", rel), link,
					 sizeof(link)) < 0)
				unbound = (int)k;
		}
		if (unbound < 0 || !ifaces) {
			out->usb_bound++;
			continue;
		}
		if (grow(out, cap) < 0) {
			ps_dir_free(&l);
			return -ENOMEM;
		}
		d = &out->devs[out->n++];
		memset(d, 0, sizeof(*d));
		ps_copy_str(d->bus, sizeof(d->bus), "usb");
		ps_copy_str(d->address, sizeof(d->address), dev);
		snprintf(rel, sizeof(rel), "/sys/bus/usb/devices/%s", dev);
		d->vendor = hex_file(f->root, rel, "idVendor");
		d->device = hex_file(f->root, rel, "idProduct");
		snprintf(rel, sizeof(rel), "/sys/bus/usb/devices/%s", l.names[unbound]);
		d->class = hex_file(f->root, rel, "bInterfaceClass");
		if (ps_read_str(ps_path(path, sizeof(path), f->root, "%s/modalias", rel),
				d->modalias, sizeof(d->modalias)) < 0)
			d->modalias[0] = '\0';
		ps_ids_lookup(f->usb_ids.p, f->usb_ids.n, d->vendor, (int)d->device, d->vendor_name,
			      sizeof(d->vendor_name), d->device_name, sizeof(d->device_name));
		if (!d->device_name[0]) {
			/* not in usb.ids: what the device calls itself */
			snprintf(rel, sizeof(rel), "/sys/bus/usb/devices/%s/product", dev);
			if (ps_read_str(ps_path(path, sizeof(path), f->root, "%s", rel),
					d->device_name, sizeof(d->device_name)) < 0)
				d->device_name[0] = '\0';
		}
		ps_ids_class(f->usb_ids.p, f->usb_ids.n, d->class, -1, d->class_name,
			     sizeof(d->class_name));
		explain(f, d);
	}
	ps_dir_free(&l);
	return 0;
}

static json_object *read_json(const char *root, const char *rel)
{
	char path[4096], *data;
	size_t n;
	json_object *o;

	if (ps_read_all(ps_path(path, sizeof(path), root, "%s", rel), &data, &n) < 0)
		return NULL;
	o = json_tokener_parse(data);
	free(data);
	return o;
}

int ps_drivers_read(const char *root, const struct ps_inventory *inv, struct ps_drivers *out)
{
	static const char *const pci_ids[] = {SHARE "/pci.ids", "/usr/share/misc/pci.ids",
					      "/usr/share/hwdata/pci.ids"};
	static const char *const usb_ids[] = {SHARE "/usb.ids", "/usr/share/misc/usb.ids",
					      "/var/lib/usbutils/usb.ids"};
	struct facts f = {.root = root ? root : ""};
	struct blob dep = {0}, builtin = {0};
	json_object *coldplug;
	char rel[256], ignored[8];
	size_t cap = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	kernel_release(f.root, out->release, sizeof(out->release));
	{
		/* the image's copy of the full kernel's aliases, else the installed kernel's own */
		const char *const rels[] = {SHARE "/modules.alias", rel};

		snprintf(rel, sizeof(rel), "/lib/modules/%s/modules.alias", out->release);
		read_first(f.root, rels, 2, &f.aliases, out->alias_source,
			   sizeof(out->alias_source));
	}
	read_first(f.root, pci_ids, PS_ARRAY_SIZE(pci_ids), &f.pci_ids, out->pci_ids_source,
		   sizeof(out->pci_ids_source));
	read_first(f.root, usb_ids, PS_ARRAY_SIZE(usb_ids), &f.usb_ids, out->usb_ids_source,
		   sizeof(out->usb_ids_source));
	snprintf(rel, sizeof(rel), "/lib/modules/%s/modules.dep", out->release);
	read_first(f.root, (const char *const[]){rel}, 1, &dep, ignored, sizeof(ignored));
	module_names(&dep, &f.image_mods);
	snprintf(rel, sizeof(rel), "/lib/modules/%s/modules.builtin", out->release);
	read_first(f.root, (const char *const[]){rel}, 1, &builtin, ignored, sizeof(ignored));
	module_names(&builtin, &f.builtin);
	blob_free(&dep);
	blob_free(&builtin);
	read_first(f.root, (const char *const[]){SHARE "/families"}, 1, &f.families, ignored,
		   sizeof(ignored));
	coldplug = read_json(f.root, "/run/probestick/coldplug.json");
	f.coldplug_failed = ps_json_arr(coldplug, "failed");
	f.firmware = read_json(f.root, SHARE "/firmware.json");
	out->kmsg_read = bootlog_read(f.root, &f.log);
	{
		char path[4096], cmdline[4096];

		f.nomodeset = ps_read_str(ps_path(path, sizeof(path), f.root, "/proc/cmdline"),
					  cmdline, sizeof(cmdline)) > 0 &&
			      ps_cmdline_has(cmdline, "nomodeset");
		out->nomodeset = f.nomodeset;
	}

	ret = read_pci(&f, inv, out, &cap);
	if (ret == 0)
		ret = read_usb(&f, out, &cap);
	/* firmware that failed for a device that has its driver anyway */
	for (size_t i = 0; ret == 0 && i < f.log.n_fw; i++) {
		bool listed = false;

		for (size_t k = 0; k < out->n; k++)
			listed = listed || same_device(f.log.fw[i].device, out->devs[k].address);
		if (listed)
			continue;
		{
			struct ps_fw_failure *g = realloc(out->fw, (out->n_fw + 1) * sizeof(*g));
			json_object *left;

			if (!g) {
				ret = -ENOMEM;
				break;
			}
			out->fw = g;
			out->fw[out->n_fw] = f.log.fw[i];
			left = firmware_left_out(&f, "", f.log.fw[i].file);
			ps_copy_str(out->fw[out->n_fw].detail, sizeof(out->fw[0].detail),
				    left ? ps_json_str(left, "reason") : "");
			out->n_fw++;
		}
	}
	blob_free(&f.aliases);
	blob_free(&f.pci_ids);
	blob_free(&f.usb_ids);
	blob_free(&f.image_mods);
	blob_free(&f.builtin);
	blob_free(&f.families);
	json_object_put(coldplug);
	json_object_put(f.firmware);
	free(f.log.fw);
	if (ret < 0)
		ps_drivers_free(out);
	return ret;
}

void ps_drivers_free(struct ps_drivers *d)
{
	free(d->devs);
	free(d->fw);
	d->devs = NULL;
	d->fw = NULL;
	d->n = d->n_fw = 0;
}
