/*
 * boot.c - how the machine booted and what its kernel lets load: UEFI or
 * BIOS, Secure Boot and setup mode (efivarfs), the kernel's lockdown mode
 * (securityfs), whether module signatures are enforced, and what became of
 * probestick.ko (loaded, signed, or refused, as coldplug recorded it).
 */
#include "lib/util.h"
#include "hw/boot.h"
#include "hw/hw_util.h"
#include "hw/inventory.h"
#include "lib/json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SIG_MARKER "~Module signature appended~\n"
/* struct module_signature: algo, hash, id_type, signer_len, key_id_len, pad[3], __be32 sig_len */
#define SIG_INFO_LEN 12

/* ---- the pure part ---- */

ps_tri ps_efivar_bool(const uint8_t *data, size_t len)
{
	if (!data || len != 5 || data[4] > 1)
		return PS_TRI_UNKNOWN;
	return (ps_tri)data[4];
}

int ps_lockdown_mode(const char *text, char *out, size_t len)
{
	const char *a = text ? strchr(text, '[') : NULL, *b = a ? strchr(a, ']') : NULL;
	size_t n;

	if (len)
		out[0] = '\0';
	if (!a || !b || b == a + 1)
		return -EINVAL;
	n = (size_t)(b - a - 1);
	if (n >= len)
		return -EINVAL;
	memcpy(out, a + 1, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (out[i] < 'a' || out[i] > 'z') {
			out[0] = '\0';
			return -EINVAL;
		}
	return 0;
}

ps_tri ps_module_signed(const uint8_t *tail, size_t tail_len, uint64_t file_len)
{
	size_t mlen = sizeof(SIG_MARKER) - 1;
	const uint8_t *info;
	uint32_t sig_len;

	if (!tail || tail_len < mlen + SIG_INFO_LEN || file_len < tail_len)
		return PS_TRI_UNKNOWN;
	if (memcmp(tail + tail_len - mlen, SIG_MARKER, mlen) != 0)
		return 0;
	info = tail + tail_len - mlen - SIG_INFO_LEN;
	sig_len =
	    (uint32_t)info[8] << 24 | (uint32_t)info[9] << 16 | (uint32_t)info[10] << 8 | info[11];
	/* a marker without a signature of a size that fits is not a signed module */
	if (sig_len == 0 || (uint64_t)sig_len + info[3] + info[4] + SIG_INFO_LEN + mlen > file_len)
		return 0;
	return 1;
}

/* ---- reading ---- */

static ps_tri efivar(const char *root, const char *name, const char *guid)
{
	char path[4096], *data;
	size_t len;
	ps_tri v;

	ps_path(path, sizeof(path), root, "/sys/firmware/efi/efivars/%s-%s", name, guid);
	if (ps_read_all(path, &data, &len) < 0)
		return PS_TRI_UNKNOWN;
	v = ps_efivar_bool((const uint8_t *)data, len);
	free(data);
	return v;
}

/* "Y"/"N" of a module parameter. */
static ps_tri param_yn(const char *root, const char *rel)
{
	char path[4096], v[8];

	if (ps_read_str(ps_path(path, sizeof(path), root, "%s", rel), v, sizeof(v)) <= 0)
		return PS_TRI_UNKNOWN;
	return v[0] == 'Y' || v[0] == '1' ? 1 : v[0] == 'N' || v[0] == '0' ? 0 : PS_TRI_UNKNOWN;
}

/* The installed probestick.ko: the running kernel's, else (a fixture tree) the first found. */
static int module_path(const char *root, char *path, size_t len)
{
	char dir[4096];
	struct utsname u;
	struct dirent *e;
	DIR *d;

	if (!root[0] && uname(&u) == 0) {
		ps_path(path, len, root, "/lib/modules/%s/extra/probestick.ko", u.release);
		return access(path, R_OK) == 0 ? 0 : -ENOENT;
	}
	d = opendir(ps_path(dir, sizeof(dir), root, "/lib/modules"));
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, len, "%s/%s/extra/probestick.ko", dir, e->d_name) < (int)len &&
		    access(path, R_OK) == 0) {
			closedir(d);
			return 0;
		}
	}
	if (d)
		closedir(d);
	return -ENOENT;
}

static ps_tri module_signed(const char *root)
{
	char path[4096];
	uint8_t tail[64];
	struct stat st;
	ssize_t n;
	int fd;

	if (module_path(root, path, sizeof(path)) < 0)
		return PS_TRI_UNKNOWN;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PS_TRI_UNKNOWN;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(tail)) {
		close(fd);
		return PS_TRI_UNKNOWN;
	}
	n = pread(fd, tail, sizeof(tail), st.st_size - (off_t)sizeof(tail));
	close(fd);
	return n == (ssize_t)sizeof(tail)
		   ? ps_module_signed(tail, sizeof(tail), (uint64_t)st.st_size)
		   : PS_TRI_UNKNOWN;
}

/* The error coldplug recorded for probestick (/run/probestick/coldplug.json). */
static void module_refused(const char *root, char *out, size_t len)
{
	char path[4096], *data;
	json_object *doc, *failed;
	size_t n;

	out[0] = '\0';
	ps_path(path, sizeof(path), root, "/run/probestick/coldplug.json");
	if (ps_read_all(path, &data, &n) < 0)
		return;
	doc = json_tokener_parse(data);
	free(data);
	failed = ps_json_get(doc, "failed");
	for (size_t i = 0; failed && i < json_object_array_length(failed); i++) {
		json_object *f = json_object_array_get_idx(failed, i);
		const char *m = ps_json_str(f, "module"), *err = ps_json_str(f, "error");

		if (m && err && strcmp(m, "probestick") == 0)
			ps_copy_str(out, len, err);
	}
	json_object_put(doc);
}

int ps_boot_read(const char *root, struct ps_boot *b)
{
	char path[4096], text[128];
	struct stat st;

	root = root ? root : "";
	memset(b, 0, sizeof(*b));
	b->secure_boot = b->setup_mode = b->sig_enforce = PS_TRI_UNKNOWN;
	b->module_loaded = b->module_signed = PS_TRI_UNKNOWN;
	/* Without /sys/firmware at all (a bare fixture tree) the firmware is not known. */
	if (stat(ps_path(path, sizeof(path), root, "/sys/firmware/efi"), &st) == 0)
		ps_copy_str(b->firmware, sizeof(b->firmware), "uefi");
	else if (stat(ps_path(path, sizeof(path), root, "/sys/firmware"), &st) == 0)
		ps_copy_str(b->firmware, sizeof(b->firmware), "bios");
	/* Legacy BIOS has no SecureBoot variable to read: secure_boot stays unknown (null). */
	if (strcmp(b->firmware, "uefi") == 0) {
		b->secure_boot = efivar(root, "SecureBoot", PS_EFI_GLOBAL_GUID);
		b->setup_mode = efivar(root, "SetupMode", PS_EFI_GLOBAL_GUID);
	}
	if (ps_read_str(ps_path(path, sizeof(path), root, "/sys/kernel/security/lockdown"), text,
			sizeof(text)) > 0)
		ps_lockdown_mode(text, b->lockdown, sizeof(b->lockdown));
	b->sig_enforce = param_yn(root, "/sys/module/module/parameters/sig_enforce");
	if (stat(ps_path(path, sizeof(path), root, "/sys/module"), &st) == 0)
		b->module_loaded =
		    stat(ps_path(path, sizeof(path), root, "/sys/module/probestick"), &st) == 0;
	b->module_signed = module_signed(root);
	if (b->module_loaded != 1)
		module_refused(root, b->module_refused, sizeof(b->module_refused));
	b->read = true;
	return 0;
}

void ps_boot_json(const struct ps_boot *b, json_object *report)
{
	json_object *o;

	if (!b->read) {
		ps_json_set(report, "boot", NULL);
		return;
	}
	o = ps_json_reset_obj(report, "boot");
	ps_json_set_str(o, "firmware", b->firmware);
	ps_json_set_tri(o, "secure_boot", b->secure_boot);
	ps_json_set_tri(o, "setup_mode", b->setup_mode);
	ps_json_set_str(o, "lockdown", b->lockdown);
	ps_json_set_tri(o, "module_sig_enforce", b->sig_enforce);
	ps_json_set_tri(o, "module_loaded", b->module_loaded);
	ps_json_set_tri(o, "module_signed", b->module_signed);
	ps_json_set_str(o, "module_refused", b->module_refused);
}
