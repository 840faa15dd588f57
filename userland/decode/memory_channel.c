/*
 * memory_channel.c - which memory channel an SMBIOS slot is on, from the
 * words its locator and bank locator use. Pure; unknown stays "".
 */
#include "decode/decode.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void upper(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++)
		out[i] = (char)toupper((unsigned char)in[i]);
	out[i] = '\0';
}

static bool sep(char c)
{
	return c == ' ' || c == '_' || c == '-' || c == '/' || c == '.' || c == ':';
}

/* "CPU0", "P1", "NODE1", "SOCKET 0" at the start of s: the socket, "" without. */
static void socket_of(const char *s, char *out, size_t len)
{
	static const struct {
		const char *word, *name;
	} words[] = {{"CPU", "CPU"}, {"SOCKET", "CPU"}, {"NODE", "NODE"}, {"P", "P"}};

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word), d;
		const char *p = s + n;

		if (strncmp(s, words[i].word, n) != 0)
			continue;
		if (*p == ' ' && n > 1)
			p++;
		d = strspn(p, "0123456789");
		if (!d || (p[d] && !sep(p[d])))
			continue;
		snprintf(out, len, "%s%.*s", words[i].name, (int)d, p);
		return;
	}
}

/* The channel a string names: "CHANNEL A", "CHANNELA", "CH A", "CH1", "DIMM_A1", "A1_DIMM". */
static bool channel_of(const char *s, char *out, size_t len)
{
	const char *p;

	for (p = strstr(s, "CHANNEL"); p; p = strstr(p + 1, "CHANNEL")) {
		const char *q = p + 7;

		while (sep(*q))
			q++;
		if (isalnum((unsigned char)*q)) {
			size_t n = strspn(q, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

			if (n > 2)
				n = isdigit((unsigned char)q[0]) ? strspn(q, "0123456789") : 1;
			snprintf(out, len, "%.*s", (int)n, q);
			return true;
		}
	}
	for (p = strstr(s, "CH"); p; p = strstr(p + 1, "CH")) {
		const char *q = p + 2;

		if (p > s && isalpha((unsigned char)p[-1]))
			continue;
		while (sep(*q))
			q++;
		if (isupper((unsigned char)*q) && !isalnum((unsigned char)q[1])) {
			snprintf(out, len, "%c", *q);
			return true;
		}
		if (isdigit((unsigned char)*q)) {
			snprintf(out, len, "%.*s", (int)strspn(q, "0123456789"), q);
			return true;
		}
	}
	/* DIMM_A1, DIMMA1, DIMM A2: a letter for the channel, a digit for the slot on it */
	for (p = strstr(s, "DIMM"); p; p = strstr(p + 1, "DIMM")) {
		const char *q = p + 4;

		while (sep(*q))
			q++;
		if (q[0] >= 'A' && q[0] <= 'H' && isdigit((unsigned char)q[1])) {
			snprintf(out, len, "%c", q[0]);
			return true;
		}
	}
	/* A1_DIMM0, B2-DIMM: the same written the other way round */
	for (p = s; *p; p++) {
		if ((p == s || sep(p[-1])) && p[0] >= 'A' && p[0] <= 'H' &&
		    isdigit((unsigned char)p[1]) && sep(p[2]) && strncmp(p + 3, "DIMM", 4) == 0) {
			snprintf(out, len, "%c", p[0]);
			return true;
		}
	}
	return false;
}

void ps_dimm_channel(const char *locator, const char *bank, char *out, size_t len)
{
	char loc[PS_DMI_STR], bnk[PS_DMI_STR], ch[16] = "", sock[16] = "";
	bool found;

	upper(locator, loc, sizeof(loc));
	upper(bank, bnk, sizeof(bnk));
	out[0] = '\0';
	/* the bank locator first: "P0 CHANNEL A" there, "DIMM 0" in the locator */
	found = channel_of(bnk, ch, sizeof(ch)) || channel_of(loc, ch, sizeof(ch));
	if (!found)
		return;
	socket_of(bnk, sock, sizeof(sock));
	if (!sock[0])
		socket_of(loc, sock, sizeof(sock));
	if (sock[0])
		snprintf(out, len, "%s %s", sock, ch);
	else
		snprintf(out, len, "%s", ch);
}
