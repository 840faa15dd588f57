/*
 * memory_channel.c - which memory channel each SMBIOS memory device is on,
 * from the words its locator and bank locator use, read over the whole
 * table: socket, controller (or node) and channel kept, "" where the names
 * do not say. The naming families and why each reads as it does are in
 * docs/rules.md ("Memory channels"); tests/realworld/dmi/labels.tsv holds
 * real names with the channel their board makers mean. Pure.
 */
#include "decode/decode.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum family {
	FAM_NONE,
	FAM_WORD,	     /* CHANNEL A, ChannelA-DIMM0, CHAN A, CH_A, _Node0_Channel0 */
	FAM_LETTER_DIGIT,    /* DIMM_A1, P1-DIMMA1, DDR4_B2: channel letter, slot digit */
	FAM_CONTROLLER_ONLY, /* Controller0-DIMM1: Intel's controller is the DIMM channel */
};

/* What one string says about where its slot is. */
struct where {
	char socket[16];     /* "P0", "CPU1" */
	char controller[16]; /* "MC0", "NODE1" */
	char channel[8];     /* "A", "0", "A/B" */
	int slot;	     /* the slot's number on its channel, -1 unknown */
	int letter_slot;     /* FAM_LETTER_DIGIT: the number after the letter */
	enum family how;
};

static void upper(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++)
		out[i] = (char)toupper((unsigned char)in[i]);
	out[i] = '\0';
}

static bool sep(char c)
{
	return c == ' ' || c == '_' || c == '-' || c == '.' || c == ':' || c == '#';
}

static const char *skip_sep(const char *p)
{
	while (sep(*p))
		p++;
	return p;
}

/* p starts a word: the start of s, or after a character that is no letter or digit. */
static bool word_start(const char *s, const char *p)
{
	return p == s || !isalnum((unsigned char)p[-1]);
}

static bool not_alpha_after(const char *p)
{
	return !isalpha((unsigned char)*p);
}

/* Digits at p (after separators when skip): their value and the end, -1 when none. */
static int number_at(const char *p, bool skip, const char **end)
{
	char *e;
	long v;

	if (skip)
		p = skip_sep(p);
	if (!isdigit((unsigned char)*p))
		return -1;
	v = strtol(p, &e, 10);
	if (end)
		*end = e;
	return (int)(v % 1000); /* no table numbers its slots past hundreds */
}

/* "DIMM 0", "DIMM-1", "SLOT 2", "Slot-1", "DIMM0" somewhere from p: the number, -1 none. */
static int slot_word(const char *p)
{
	static const char *const words[] = {"DIMM", "SLOT"};

	for (size_t w = 0; w < 2; w++) {
		for (const char *q = strstr(p, words[w]); q; q = strstr(q + 1, words[w])) {
			int n = number_at(q + 4, true, NULL);

			if (n >= 0)
				return n;
		}
	}
	return -1;
}

/*
 * Socket and controller words anywhere in s: P0, CPU1, CPU_1, PROC 1, SOCKET 1;
 * Controller0, MC0, IMC0, NODE 1, Node0.
 */
static void socket_and_controller(const char *s, struct where *w)
{
	static const struct {
		const char *word, *name;
		bool socket;
	} words[] = {
	    {"SOCKET", "CPU", true},	 {"PROC", "CPU", true}, {"CPU", "CPU", true},
	    {"CONTROLLER", "MC", false}, {"IMC", "MC", false},	{"MC", "MC", false},
	    {"NODE", "NODE", false},
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		char *out = words[i].socket ? w->socket : w->controller;
		size_t n = strlen(words[i].word);

		if (out[0])
			continue;
		for (const char *p = strstr(s, words[i].word); p;
		     p = strstr(p + 1, words[i].word)) {
			int v;

			if (p > s && isalpha((unsigned char)p[-1]))
				continue; /* "PROCESSOR" stays, "DIMM" is not "MM" */
			v = number_at(p + n, true, NULL);
			if (v < 0)
				continue;
			snprintf(out, sizeof(w->socket), "%s%u", words[i].name,
				 (unsigned int)v % 1000u);
			break;
		}
	}
	/*
	 * P0, P1: a word of its own that starts the string or has more after
	 * it (DIMM_P0_A0); a last word DIMM_P1 is Intel's channel P, slot 1.
	 */
	for (const char *p = strchr(s, 'P'); p && !w->socket[0]; p = strchr(p + 1, 'P')) {
		const char *e;
		int v;

		if (!word_start(s, p) || (v = number_at(p + 1, false, &e)) < 0 ||
		    isalpha((unsigned char)*e) || (p != s && !*skip_sep(e)))
			continue;
		snprintf(w->socket, sizeof(w->socket), "P%u", (unsigned int)v % 1000u);
	}
}

/*
 * The channel after a channel word: a letter standing alone ("A", "A0",
 * "ADimm0", "A/B") or a number. Then the slot: digits right after a
 * letter, or after separators, or a DIMM/SLOT word's number.
 */
static bool channel_token(const char *q, bool concatenated, struct where *w)
{
	const char *e = q;
	int v;

	q = skip_sep(q);
	if (isupper((unsigned char)q[0]) && q[1] == '/' && isupper((unsigned char)q[2]) &&
	    not_alpha_after(q + 3)) {
		snprintf(w->channel, sizeof(w->channel), "%c/%c", q[0], q[2]);
		e = q + 3;
	} else if (isupper((unsigned char)q[0]) &&
		   (not_alpha_after(q + 1) || (concatenated && (strncmp(q + 1, "DIMM", 4) == 0 ||
								strncmp(q + 1, "SLOT", 4) == 0)))) {
		snprintf(w->channel, sizeof(w->channel), "%c", q[0]);
		e = q + 1;
	} else if ((v = number_at(q, false, &e)) >= 0) {
		snprintf(w->channel, sizeof(w->channel), "%u", (unsigned int)v % 1000u);
	} else {
		return false;
	}
	w->slot = number_at(e, true, NULL);
	if (w->slot < 0)
		w->slot = slot_word(e);
	w->how = FAM_WORD;
	return true;
}

/* CHANNEL A, ChannelA-DIMM0, Controller1ChannelADimm0, CanalB (Spanish), CHAN A, CHA1, DDR4_CH0 */
static bool channel_word(const char *s, struct where *w)
{
	static const char *const long_words[] = {"CHANNEL", "CANAL", "CHAN"};

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(long_words[i]);

		for (const char *p = strstr(s, long_words[i]); p;
		     p = strstr(p + 1, long_words[i])) {
			if (i == 2 && strncmp(p, "CHANNEL", 7) == 0)
				continue;
			if (p > s && isalpha((unsigned char)p[-1]) && i != 0)
				continue;
			if (channel_token(p + n, true, w))
				return true;
		}
	}
	for (const char *p = strstr(s, "CH"); p; p = strstr(p + 1, "CH")) {
		if (p > s && isalpha((unsigned char)p[-1]))
			continue;
		if (channel_token(p + 2, false, w))
			return true;
	}
	return false;
}

/* DIMM_A1, DIMMA1, DIMM A2, P1-DIMMB1, CPU1_DIMM_C2, DIMM_P0_A0, DDR4_A1, DDR5-B2. */
static bool letter_digit(const char *s, struct where *w)
{
	for (const char *p = strchr(s, 'D'); p; p = strchr(p + 1, 'D')) {
		const char *q, *e;
		int v;

		if (strncmp(p, "DIMM", 4) == 0)
			q = p + 4;
		else if (strncmp(p, "DDR", 3) == 0 && isdigit((unsigned char)p[3]))
			q = p + 4;
		else
			continue;
		q = skip_sep(q);
		/* DIMM_P0_A0: the socket first */
		if (q[0] == 'P' && isdigit((unsigned char)q[1])) {
			const char *r = q + 1;

			while (isdigit((unsigned char)*r))
				r++;
			if (sep(*r))
				q = skip_sep(r);
		}
		if (!isupper((unsigned char)q[0]) || (v = number_at(q + 1, false, &e)) < 0 ||
		    isalpha((unsigned char)*e))
			continue;
		snprintf(w->channel, sizeof(w->channel), "%c", q[0]);
		w->letter_slot = w->slot = v;
		w->how = FAM_LETTER_DIGIT;
		return true;
	}
	return false;
}

/* Inspur's CPU0_C1D0: channel 1, DIMM 0 (a C alone before a number and D is a CPU: C0_DIMM0). */
static bool c_d(const char *s, struct where *w)
{
	for (const char *p = strchr(s, 'C'); p; p = strchr(p + 1, 'C')) {
		const char *e, *f;
		int ch, slot;

		if (!word_start(s, p) || (ch = number_at(p + 1, false, &e)) < 0 || *e != 'D' ||
		    (slot = number_at(e + 1, false, &f)) < 0 || isalnum((unsigned char)*f))
			continue;
		snprintf(w->channel, sizeof(w->channel), "%u", (unsigned int)ch % 1000u);
		w->slot = slot;
		w->how = FAM_WORD;
		return true;
	}
	return false;
}

static void parse(const char *text, struct where *w)
{
	char s[PS_DMI_STR];

	memset(w, 0, sizeof(*w));
	w->slot = w->letter_slot = -1;
	upper(text, s, sizeof(s));
	socket_and_controller(s, w);
	if (channel_word(s, w) || letter_digit(s, w) || c_d(s, w))
		return;
	/* Intel's Controller0-DIMM1 (12th gen on, DDR5): the controller drives one DIMM channel */
	if (strncmp(w->controller, "MC", 2) == 0 && strstr(s, "CONTROLLER") &&
	    (w->slot = slot_word(s)) >= 0)
		w->how = FAM_CONTROLLER_ONLY;
}

/* The slot's place: the string that names the channel, its socket and controller from either. */
static void place(const char *locator, const char *bank, struct where *out)
{
	struct where loc, bnk, *other;

	parse(locator, &loc);
	parse(bank, &bnk);
	if (bnk.how != FAM_NONE && bnk.how != FAM_CONTROLLER_ONLY) {
		*out = bnk;
		other = &loc;
	} else {
		*out = loc;
		other = &bnk;
	}
	if (!out->socket[0])
		memcpy(out->socket, other->socket, sizeof(out->socket));
	if (!out->controller[0])
		memcpy(out->controller, other->controller, sizeof(out->controller));
	if (out->slot < 0)
		out->slot = other->slot;
	if (out->slot < 0) { /* "Bottom-Slot 1(left)" beside the bank's "CHANNEL A" */
		char s[PS_DMI_STR];

		upper(other == &loc ? locator : bank, s, sizeof(s));
		out->slot = slot_word(s);
	}
}

static void name_of(const struct where *w, char *out, size_t len)
{
	const char *parts[3] = {w->socket, w->controller, w->channel};
	size_t used = 0;

	out[0] = '\0';
	if (w->how == FAM_NONE)
		return;
	for (int i = 0; i < 3; i++) {
		int n;

		if (!parts[i][0])
			continue;
		n = snprintf(out + used, len - used, "%s%s", used ? " " : "", parts[i]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

void ps_dimm_channels(struct ps_slot_names *slots, size_t n)
{
	struct where *w = calloc(n ? n : 1, sizeof(*w));
	int most = -1;

	if (!w) {
		for (size_t i = 0; i < n; i++)
			slots[i].channel[0] = '\0';
		return;
	}
	for (size_t i = 0; i < n; i++) {
		place(slots[i].locator, slots[i].bank, &w[i]);
		if (w[i].how == FAM_LETTER_DIGIT && w[i].letter_slot > most)
			most = w[i].letter_slot;
	}
	/*
	 * DIMM_A1..A12 (Dell PowerEdge): past three slots a letter is a
	 * processor, not a channel; no DDR channel takes more than three.
	 */
	for (size_t i = 0; i < n; i++) {
		if (most > 3 && w[i].how == FAM_LETTER_DIGIT)
			w[i].how = FAM_NONE;
		name_of(&w[i], slots[i].channel, sizeof(slots[i].channel));
	}
	/* Two slots at one place of one channel: the names lack a socket or controller. */
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < i; k++) {
			if (!slots[i].channel[0] ||
			    strcmp(slots[i].channel, slots[k].channel) != 0 ||
			    w[i].slot != w[k].slot)
				continue;
			for (size_t j = 0; j < n; j++)
				slots[j].channel[0] = '\0';
			free(w);
			return;
		}
	}
	free(w);
}

void ps_dimm_channel(const char *locator, const char *bank, char *out, size_t len)
{
	struct ps_slot_names one = {.locator = locator, .bank = bank};

	ps_dimm_channels(&one, 1);
	snprintf(out, len, "%s", one.channel);
}
