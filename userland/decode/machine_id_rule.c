/*
 * machine_id_rule.c - the machine-id rule (docs: fields, machine.id), pure: it
 * names the report folder, so it must be stable and never a BIOS placeholder.
 */
#include "decode/decode.h"
#include "lib/util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Seen in the field on boards whose vendor never filled in DMI. */
static const char *const placeholders[] = {
    "To be filled by O.E.M.",
    "To be filled by O.E.M",
    "Default string",
    "Not Specified",
    "Not Applicable",
    "Not Available",
    "System Serial Number",
    "System Product Name",
    "Chassis Serial Number",
    "Base Board Serial Number",
    "Serial Number",
    "SerialNumber",
    "Type1Sku0",
    "OEM",
    "O.E.M.",
    "None",
    "N/A",
    "NA",
    "Unknown",
    "Invalid",
    "Empty",
    "0123456789",
    "123456789",
    "1234567890",
    "System Name",
};

/* Copy s without leading and trailing white space into buf. */
static void trim_copy(const char *s, char *buf, size_t len)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* "00000000", "FFFF-FFFF", "xxxxxxxx": one character repeated, separators aside. */
static bool one_char_repeated(const char *s)
{
	int first = 0;

	for (; *s; s++) {
		int c = tolower((unsigned char)*s);

		if (c == '-' || c == ' ' || c == ':' || c == '.')
			continue;
		if (!first)
			first = c;
		else if (c != first)
			return false;
	}
	return true;
}

bool ps_dmi_meaningful(const char *s)
{
	char buf[128];

	if (!s)
		return false;
	trim_copy(s, buf, sizeof(buf));
	if (buf[0] == '\0' || one_char_repeated(buf))
		return false;
	for (size_t i = 0; i < PS_ARRAY_SIZE(placeholders); i++)
		if (strcasecmp(buf, placeholders[i]) == 0)
			return false;
	return true;
}

bool ps_dmi_uuid_meaningful(const char *uuid)
{
	char buf[64];
	size_t hex = 0;

	if (!uuid)
		return false;
	trim_copy(uuid, buf, sizeof(buf));
	for (const char *p = buf; *p; p++) {
		if (isxdigit((unsigned char)*p))
			hex++;
		else if (*p != '-')
			return false;
	}
	if (hex != 32 || one_char_repeated(buf))
		return false;
	/* The UUID AMI's reference BIOS ships; thousands of boards share it. */
	return strcasecmp(buf, "03000200-0400-0500-0006-000700080009") != 0;
}

static void sanitize(const char *s, char *out, size_t len, bool lower)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (lower)
			c = (unsigned char)tolower(c);
		out[n++] = (isalnum(c) || c == '-' || c == '_' || c == '.') ? (char)c : '_';
	}
	out[n] = '\0';
	/* A folder name: never ".", ".." or hidden. */
	if (out[0] == '.')
		out[0] = '_';
}

int ps_machine_id_rule(const char *uuid, const char *serial, const char *mac, char *out, size_t len)
{
	char buf[128];

	if (len == 0)
		return -EINVAL;
	if (ps_dmi_uuid_meaningful(uuid)) {
		trim_copy(uuid, buf, sizeof(buf));
		sanitize(buf, out, len, true);
		return 0;
	}
	if (ps_dmi_meaningful(serial)) {
		trim_copy(serial, buf, sizeof(buf));
		sanitize(buf, out, len, false);
		return 0;
	}
	if (mac) {
		size_t n = 0;

		for (const char *p = mac; *p && n + 1 < sizeof(buf); p++)
			if (*p != ':' && *p != '-')
				buf[n++] = (char)tolower((unsigned char)*p);
		buf[n] = '\0';
		if (n > 0 && !one_char_repeated(buf)) {
			sanitize(buf, out, len, true);
			return 0;
		}
	}
	snprintf(out, len, "unknown");
	return -ENODATA;
}
