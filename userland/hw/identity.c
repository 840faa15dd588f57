/*
 * identity.c - the stable identities of devices, pure: what names a drive,
 * a NIC, a PCI function or a DIMM in findings, verdicts and across reports,
 * so that the same device gives the same id after a reboot.
 */
#include "hw/inventory.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/*
 * Append s to out as an id component: white space runs and anything outside
 * [A-Za-z0-9._-] (and ':' when colons) become one '_' (as udev's ID_SERIAL
 * does), so ':' stays the separator; trimmed at both ends.
 */
static void append_component(char *out, size_t len, const char *s, bool lower, bool colons)
{
	size_t n = strlen(out);
	bool pending = false;

	while (*s && isspace((unsigned char)*s))
		s++;
	for (; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '.' || c == '-' || c == '_' || (colons && c == ':')) {
			if (pending && n + 2 < len)
				out[n++] = '_';
			pending = false;
			out[n++] = (char)(lower ? tolower(c) : c);
		} else {
			pending = true; /* dropped at the end: trailing blanks leave no '_' */
		}
	}
	out[n] = '\0';
}

static bool blank(const char *s)
{
	if (!s)
		return true;
	while (*s && isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

void ps_drive_identity(const char *wwn, const char *model, const char *serial,
		       const char *fallback_path, char *out, size_t len)
{
	if (!len)
		return;
	out[0] = '\0';
	if (!blank(wwn)) {
		snprintf(out, len, "drive:wwn:");
		append_component(out, len, wwn, true, false);
	} else if (!blank(serial)) {
		/* a serial is unique only within its model (and cheap bridges repeat theirs) */
		snprintf(out, len, "drive:sn:");
		append_component(out, len, blank(model) ? "unknown" : model, false, false);
		snprintf(out + strlen(out), len - strlen(out), ":");
		append_component(out, len, serial, false, false);
	} else if (!blank(fallback_path)) {
		snprintf(out, len, "drive:path:");
		/* the last component: its colons (PCI addresses) separate nothing */
		append_component(out, len, fallback_path, false, true);
	}
}

/* A MAC that names a NIC: six octets, not all zero, not broadcast. */
static bool mac_meaningful(const char *mac)
{
	unsigned int b[6];
	char end;

	if (!mac || sscanf(mac, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
			   &b[5], &end) != 6)
		return false;
	return (b[0] | b[1] | b[2] | b[3] | b[4] | b[5]) != 0 &&
	       (b[0] & b[1] & b[2] & b[3] & b[4] & b[5]) != 0xff;
}

void ps_nic_identity(const char *perm_mac, const char *mac, char *out, size_t len)
{
	const char *m = mac_meaningful(perm_mac) ? perm_mac : mac_meaningful(mac) ? mac : NULL;

	if (!len)
		return;
	out[0] = '\0';
	if (m) {
		snprintf(out, len, "nic:%.17s", m);
		for (char *p = out; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
}

void ps_pcie_identity(const char *address, unsigned int vendor, unsigned int device, uint64_t dsn,
		      char *out, size_t len)
{
	int n;

	if (!len)
		return;
	out[0] = '\0';
	if (blank(address))
		return;
	if (vendor >= 0xffff || device >= 0xffff)
		n = snprintf(out, len, "pcie:%s", address);
	else
		n = snprintf(out, len, "pcie:%s:%04x:%04x", address, vendor, device);
	if (dsn && n > 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, ":%016llx", (unsigned long long)dsn);
}

void ps_dimm_identity(const char *locator, const char *serial, char *out, size_t len)
{
	if (!len)
		return;
	out[0] = '\0';
	if (blank(locator))
		return;
	snprintf(out, len, "dimm:");
	append_component(out, len, locator, false, false);
	/* placeholders ("Not Specified", "00000000", "SerialNumber") are not serials */
	if (ps_dmi_meaningful(serial)) {
		snprintf(out + strlen(out), len - strlen(out), ":");
		append_component(out, len, serial, false, false);
	}
}
