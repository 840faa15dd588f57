/* retry.c - back-off with a per-machine jitter for deliveries to the collector. */
#include "collect/retry.h"

uint32_t ps_retry_seed(const char *text)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)text; p && *p; p++) {
		h ^= *p;
		h *= 16777619u;
	}
	return h;
}

double ps_retry_delay(uint32_t seed, unsigned int n)
{
	double d = PS_RETRY_BASE_S;
	uint32_t x = seed ^ (n * 2654435761u);

	for (unsigned int i = 1; i < n && d < PS_RETRY_CAP_S; i++)
		d *= 2;
	if (d > PS_RETRY_CAP_S)
		d = PS_RETRY_CAP_S;
	/* one round of xorshift: the same machine and failure count, the same wait */
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return d * (0.75 + 0.5 * (double)(x % 1000) / 1000.0);
}

void ps_retry_init(struct ps_retry *r, uint32_t seed)
{
	r->seed = seed;
	r->failed = 0;
	r->next_at = 0;
	r->tries = r->failures = 0;
}

bool ps_retry_due(const struct ps_retry *r, double now)
{
	return now >= r->next_at;
}

void ps_retry_ok(struct ps_retry *r)
{
	r->tries++;
	r->failed = 0;
	r->next_at = 0;
}

double ps_retry_fail(struct ps_retry *r, double now)
{
	double d;

	r->tries++;
	r->failures++;
	if (r->failed < 1000)
		r->failed++;
	d = ps_retry_delay(r->seed, r->failed);
	r->next_at = now + d;
	return d;
}
