/* pattern.c - LBA-stamped write data and its verification (pattern.h). Pure. */
#include "engines/io/pattern.h"

#include <stdbool.h>
#include <string.h>

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* splitmix64: the filler word i of a sector, from its LBA, pass and tag */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static void sector(const struct ps_pattern *p, unsigned char *s, uint64_t lba)
{
	uint64_t seed = mix(lba ^ mix(p->pass ^ mix(p->tag)));

	put64(s, PS_PATTERN_MAGIC);
	put64(s + 8, lba);
	put64(s + 16, p->pass);
	put64(s + 24, p->tag);
	for (unsigned int i = 32; i + 8 <= p->lsec; i += 8)
		put64(s + i, mix(seed + i));
}

void ps_pattern_fill(const struct ps_pattern *p, unsigned char *buf, uint64_t off, size_t len)
{
	for (size_t o = 0; o + p->lsec <= len; o += p->lsec)
		sector(p, buf + o, (off + o) / p->lsec);
}

void ps_pattern_check_init(struct ps_pattern_check *c)
{
	memset(c, 0, sizeof(*c));
	c->first_bad_lba = c->found_lba = UINT64_MAX;
}

void ps_pattern_verify(const struct ps_pattern *p, const unsigned char *buf, uint64_t off,
		       size_t len, struct ps_pattern_check *c)
{
	unsigned char want[4096];

	for (size_t o = 0; o + p->lsec <= len; o += p->lsec) {
		const unsigned char *s = buf + o;
		uint64_t lba = (off + o) / p->lsec, claims;
		bool bad = true;

		c->sectors++;
		if (p->lsec > sizeof(want) || get64(s) != PS_PATTERN_MAGIC) {
			c->foreign++;
		} else if (get64(s + 24) != p->tag) {
			c->foreign++;
		} else if (get64(s + 16) != p->pass) {
			c->stale++;
		} else if ((claims = get64(s + 8)) != lba) {
			c->misdirected++;
			if (c->found_lba == UINT64_MAX)
				c->found_lba = claims;
		} else {
			sector(p, want, lba);
			if (memcmp(want, s, p->lsec) == 0) {
				c->ok++;
				bad = false;
			} else {
				c->corrupt++;
			}
		}
		if (bad && c->first_bad_lba == UINT64_MAX)
			c->first_bad_lba = lba;
	}
}

uint64_t ps_pattern_tag(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}
