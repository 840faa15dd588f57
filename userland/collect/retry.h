/*
 * retry.h - when to try a delivery again: exponential back-off from 1 s to
 * 30 s, with a jitter of the machine's own (a seed from its id), so that
 * twenty machines that lost the collector together do not all come back
 * in the same second. Pure.
 */
#ifndef PS_COLLECT_RETRY_H
#define PS_COLLECT_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#define PS_RETRY_BASE_S 1.0
#define PS_RETRY_CAP_S	30.0

struct ps_retry {
	uint32_t seed;
	unsigned int failed;	       /* failures in a row; 0 after a success */
	double next_at;		       /* monotonic seconds of the next try; 0: now */
	unsigned long tries, failures; /* totals */
};

/* A seed from text (the machine id): FNV-1a. */
uint32_t ps_retry_seed(const char *text);

/* The wait after the n-th failure in a row (n >= 1): 0.75 to 1.25 times min(30, 2^(n-1)) s. */
double ps_retry_delay(uint32_t seed, unsigned int n);

void ps_retry_init(struct ps_retry *r, uint32_t seed);
bool ps_retry_due(const struct ps_retry *r, double now);
/* A try that worked: the next one may go at once. */
void ps_retry_ok(struct ps_retry *r);
/* A try that failed at now: returns the wait before the next. */
double ps_retry_fail(struct ps_retry *r, double now);

#endif
