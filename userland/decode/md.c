/* md.c - md RAID levels, sizes, progress files and /proc/mdstat (decode/md.h). Pure. */
#include "decode/md.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

int ps_md_level_min_drives(int level)
{
	switch (level) {
	case 0:
	case 1:
		return 2;
	case 5:
		return 3;
	case 6:
	case 10:
		return 4;
	default:
		return -1;
	}
}

int ps_md_level_redundancy(int level)
{
	switch (level) {
	case 0:
		return 0;
	case 1:
	case 5:
	case 10:
		return 1;
	case 6:
		return 2;
	default:
		return -1;
	}
}

int ps_md_levels_parse(const char *csv, struct ps_md_levels *out, char *why, size_t whylen)
{
	const char *p = csv ? csv : "";

	out->n = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		char tok[24], *end;
		const char *t;
		long v;

		if (len >= sizeof(tok)) {
			snprintf(why, whylen, "'%.20s...' is not a RAID level", p);
			return -EINVAL;
		}
		memcpy(tok, p, len);
		tok[len] = 0;
		for (size_t e = len; e && (tok[e - 1] == ' ' || tok[e - 1] == '\t');)
			tok[--e] = 0;
		t = skip_blanks(tok);
		if (!strncasecmp(t, "raid", 4))
			t += 4;
		if (!*t) {
			snprintf(why, whylen, "an empty level in the list");
			return -EINVAL;
		}
		errno = 0;
		v = strtol(t, &end, 10);
		if (*end || errno || !isdigit((unsigned char)*t) ||
		    ps_md_level_min_drives((int)v) < 0) {
			snprintf(why, whylen, "'%s' is not one of the levels 0, 1, 5, 6, 10", tok);
			return -EINVAL;
		}
		for (size_t i = 0; i < out->n; i++)
			if (out->level[i] == (int)v) {
				snprintf(why, whylen, "level %ld is named twice", v);
				return -EINVAL;
			}
		if (out->n >= PS_MD_MAX_LEVELS) {
			snprintf(why, whylen, "more than %d levels", PS_MD_MAX_LEVELS);
			return -EINVAL;
		}
		out->level[out->n++] = (int)v;
		p += len;
		if (*p == ',') {
			p++;
			if (!*p) {
				snprintf(why, whylen, "an empty level in the list");
				return -EINVAL;
			}
		}
	}
	return 0;
}

int ps_md_size_parse(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = {
	    {"", 1},
	    {"b", 1},
	    {"k", 1e3},
	    {"kb", 1e3},
	    {"m", 1e6},
	    {"mb", 1e6},
	    {"g", 1e9},
	    {"gb", 1e9},
	    {"t", 1e12},
	    {"tb", 1e12},
	    {"p", 1e15},
	    {"pb", 1e15},
	    {"kib", 1024.0},
	    {"mib", 1048576.0},
	    {"gib", 1073741824.0},
	    {"tib", 1099511627776.0},
	    {"pib", 1125899906842624.0},
	};
	char *end;
	double v;

	if (!s || !isdigit((unsigned char)*skip_blanks(s)))
		return -EINVAL;
	errno = 0;
	v = strtod(skip_blanks(s), &end);
	if (errno || !isfinite(v) || v < 0)
		return -EINVAL;
	{
		char unit[8];
		size_t n = 0;
		const char *p = skip_blanks(end);

		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && n < sizeof(unit) - 1)
			unit[n++] = (char)tolower((unsigned char)*p++);
		unit[n] = 0;
		if (*skip_blanks(p) && *skip_blanks(p) != '\n')
			return -EINVAL;
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(unit, units[i].unit) == 0) {
				double b = v * units[i].mult;

				if (b >= 18446744073709551615.0)
					return -EINVAL;
				*out = (uint64_t)(b + 0.5);
				return 0;
			}
		}
	}
	return -EINVAL;
}

int ps_md_chunk_parse(const char *s, uint64_t *bytes, char *why, size_t whylen)
{
	uint64_t b;

	/* a chunk is a binary size whatever it is written as: 512K is 512 KiB to md */
	if (ps_md_size_parse(s, &b) < 0) {
		snprintf(why, whylen, "'%.20s' is not a size (512K, 64K, 1M)", s ? s : "");
		return -EINVAL;
	}
	{
		char *end;
		double v = strtod(skip_blanks(s), &end);
		char u = (char)tolower((unsigned char)*skip_blanks(end));

		if (u == 'k')
			b = (uint64_t)(v * 1024);
		else if (u == 'm')
			b = (uint64_t)(v * 1048576);
		else if (u == 'g')
			b = (uint64_t)(v * 1073741824.0);
	}
	if (b < 4096 || b > (64ULL << 20) || (b & (b - 1))) {
		snprintf(why, whylen, "chunk %.20s is not a power of two from 4K to 64M", s);
		return -EINVAL;
	}
	*bytes = b;
	return 0;
}

int ps_md_sync_completed_parse(const char *text, struct ps_md_sync *out)
{
	unsigned long long done, total;
	char tail[4];
	const char *p = skip_blanks(text ? text : "");

	*out = (struct ps_md_sync){0};
	if (!strncmp(p, "none", 4) && (!p[4] || p[4] == '\n')) {
		out->state = PS_MD_SYNC_NONE;
		return 0;
	}
	if (!strncmp(p, "delayed", 7) && (!p[7] || p[7] == '\n')) {
		out->state = PS_MD_SYNC_DELAYED;
		return 0;
	}
	if (sscanf(p, "%llu / %llu%3s", &done, &total, tail) != 2 || !isdigit((unsigned char)*p) ||
	    total == 0 || done > total)
		return -EINVAL;
	out->state = PS_MD_SYNC_RUNNING;
	out->done = done;
	out->total = total;
	return 0;
}

int ps_md_sync_speed_parse(const char *text, int64_t *kib_s)
{
	const char *p = skip_blanks(text ? text : "");
	char *end;
	long long v;

	if (!strncmp(p, "none", 4) && (!p[4] || p[4] == '\n')) {
		*kib_s = -1;
		return 0;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || (*end && *end != '\n' && *end != ' '))
		return -EINVAL;
	*kib_s = v;
	return 0;
}

double ps_md_sync_eta_s(const struct ps_md_sync *sync, int64_t kib_s)
{
	if (sync->state != PS_MD_SYNC_RUNNING || kib_s <= 0)
		return NAN;
	return (double)(sync->total - sync->done) * 512.0 / 1024.0 / (double)kib_s;
}

double ps_md_extrapolate_s(double seconds, uint64_t from_bytes, uint64_t to_bytes)
{
	if (!isfinite(seconds) || seconds < 0 || from_bytes == 0 || to_bytes == 0)
		return NAN;
	return seconds * (double)to_bytes / (double)from_bytes;
}

/* "vdb[0](F)" -> name vdb, faulty */
static void add_member(struct ps_mdstat_array *a, const char *tok, size_t len)
{
	size_t n = 0;

	if (a->n_members >= PS_MD_MAX_MEMBERS)
		return;
	while (n < len && tok[n] != '[' && n < sizeof(a->members[0]) - 1)
		n++;
	memcpy(a->members[a->n_members], tok, n);
	a->members[a->n_members][n] = 0;
	a->faulty[a->n_members] = memmem(tok, len, "(F)", 3) != NULL;
	a->spare[a->n_members] = memmem(tok, len, "(S)", 3) != NULL;
	a->n_members++;
}

static void parse_head(struct ps_mdstat_array *a, const char *line, size_t len)
{
	const char *p = line, *e = line + len;
	int word = 0;

	/* "md0 : active raid1 vdc[1] vdb[0]" or "md127 : inactive vdb[0](S)" */
	p = memchr(line, ':', len);
	if (!p)
		return;
	p++;
	while (p < e) {
		const char *w;
		size_t wl;

		while (p < e && *p == ' ')
			p++;
		w = p;
		while (p < e && *p != ' ')
			p++;
		wl = (size_t)(p - w);
		if (!wl)
			break;
		if (word == 0) {
			a->active = wl == 6 && !strncmp(w, "active", 6);
		} else if (*w == '(') {
			continue; /* (auto-read-only), (read-only) */
		} else if (memchr(w, '[', wl)) {
			add_member(a, w, wl);
		} else if (a->active && !a->level[0] && wl < sizeof(a->level)) {
			memcpy(a->level, w, wl);
			a->level[wl] = 0;
		}
		word++;
	}
}

static void parse_status(struct ps_mdstat_array *a, const char *line, size_t len)
{
	char buf[256];
	const char *b;
	int x, y;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = 0;
	/* "[4/3] [UUU_]" on the blocks line */
	for (b = strchr(buf, '['); b; b = strchr(b + 1, '['))
		if (sscanf(b, "[%d/%d]", &x, &y) == 2) {
			a->raid_disks = x;
			a->working = y;
			break;
		}
	/* "[=>...]  recovery =  8.3% (5440/65536) finish=0.1min speed=5440K/sec" */
	{
		static const char *const actions[] = {"resync", "recovery", "reshape", "check",
						      "repair"};

		for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
			const char *q = strstr(buf, actions[i]);
			double pct;

			if (!q)
				continue;
			q += strlen(actions[i]);
			q = skip_blanks(q);
			if (*q != '=')
				continue;
			snprintf(a->action, sizeof(a->action), "%s", actions[i]);
			q = skip_blanks(q + 1);
			if (sscanf(q, "%lf%%", &pct) == 1)
				a->progress_pct = pct;
			break;
		}
	}
	if ((b = strstr(buf, "finish=")) != NULL)
		a->finish_min = strtod(b + 7, NULL);
	if ((b = strstr(buf, "speed=")) != NULL)
		a->speed_kib_s = strtoll(b + 6, NULL, 10);
}

int ps_mdstat_parse(const char *text, size_t len, struct ps_mdstat *out)
{
	const char *p = text, *e = text + len;
	struct ps_mdstat_array *cur = NULL;
	bool seen = false;

	memset(out, 0, sizeof(*out));
	while (p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(e - p);

		if (l >= 14 && !strncmp(p, "Personalities", 13)) {
			const char *c = memchr(p, ':', l);

			seen = true;
			if (c) {
				size_t n = l - (size_t)(c + 1 - p);

				c = skip_blanks(c + 1);
				n = l - (size_t)(c - p);
				while (n && (c[n - 1] == ' ' || c[n - 1] == '\r'))
					n--;
				if (n >= sizeof(out->personalities))
					n = sizeof(out->personalities) - 1;
				memcpy(out->personalities, c, n);
				out->personalities[n] = 0;
			}
		} else if (l > 2 && !strncmp(p, "md", 2) && memchr(p, ':', l)) {
			size_t nl2 = strcspn(p, " :");

			seen = true;
			cur = NULL;
			if (out->n < PS_MD_MAX_ARRAYS && nl2 < sizeof(out->a[0].name)) {
				cur = &out->a[out->n++];
				memcpy(cur->name, p, nl2);
				cur->name[nl2] = 0;
				cur->raid_disks = cur->working = -1;
				cur->progress_pct = NAN;
				cur->finish_min = NAN;
				cur->speed_kib_s = -1;
				parse_head(cur, p, l);
			}
		} else if (l && (*p == ' ' || *p == '\t') && cur) {
			parse_status(cur, p, l);
		} else if (l >= 6 && !strncmp(p, "unused", 6)) {
			seen = true;
			cur = NULL;
		} else if (!l) {
			cur = NULL;
		}
		p += l + 1;
	}
	return seen ? 0 : -EINVAL;
}

const struct ps_mdstat_array *ps_mdstat_member_of(const struct ps_mdstat *st, const char *disk)
{
	size_t dl = strlen(disk);

	for (size_t i = 0; i < st->n; i++)
		for (size_t m = 0; m < st->a[i].n_members; m++) {
			const char *n = st->a[i].members[m];

			if (!strcmp(n, disk))
				return &st->a[i];
			/* a partition: vdb1, nvme0n1p1 */
			if (!strncmp(n, disk, dl) &&
			    (isdigit((unsigned char)n[dl]) ||
			     (n[dl] == 'p' && isdigit((unsigned char)n[dl + 1]))))
				return &st->a[i];
		}
	return NULL;
}
