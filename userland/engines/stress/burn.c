/*
 * burn.c - stress-ng's log, the MCE count and the burn-in verdict (burn.h).
 */
#include "engines/stress/burn.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line "stress-ng: TAG: [PID] rest": TAG and rest; false for any other line. */
static bool split_line(const char *line, size_t len, char *tag, size_t tlen, const char **rest,
		       size_t *rlen)
{
	const char *p = line, *end = line + len, *t;

	if (len < 11 || strncmp(line, "stress-ng: ", 11) != 0)
		return false;
	p += 11;
	t = p;
	while (p < end && *p != ':')
		p++;
	if (p >= end || (size_t)(p - t) >= tlen)
		return false;
	memcpy(tag, t, (size_t)(p - t));
	tag[p - t] = '\0';
	p++;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '[') { /* [PID] */
		while (p < end && *p != ']')
			p++;
		if (p < end)
			p++;
	}
	while (p < end && *p == ' ')
		p++;
	*rest = p;
	*rlen = (size_t)(end - p);
	return true;
}

static struct ps_stressor_result *stressor(struct ps_stress_run *r, const char *name, size_t len)
{
	struct ps_stressor_result *s;

	if (!len || len >= sizeof(r->s[0].name))
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->s[i].name) == len && strncmp(r->s[i].name, name, len) == 0)
			return &r->s[i];
	if (r->n >= PS_STRESS_MAX)
		return NULL;
	s = &r->s[r->n++];
	memset(s, 0, sizeof(*s));
	memcpy(s->name, name, len);
	s->bogo_ops = -1;
	s->real_s = s->usr_s = s->sys_s = s->ops_per_s = NAN;
	return s;
}

/* "cpu   2491   5.01   1.43   0.00   497.22  1745.68  14.24  6596": one stressor's metrics. */
static void metrics_row(struct ps_stress_run *r, const char *rest, size_t len)
{
	char buf[256], name[32];
	long long ops;
	double real, usr, sys, rate;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, rest, len);
	buf[len] = '\0';
	/* counts and times are never negative, "nan" or "inf": such a row is not metrics */
	if (sscanf(buf, "%31s %lld %lf %lf %lf %lf", name, &ops, &real, &usr, &sys, &rate) == 6 &&
	    isalpha((unsigned char)name[0]) && ops >= 0 && real >= 0 && real < HUGE_VAL &&
	    usr >= 0 && usr < HUGE_VAL && sys >= 0 && sys < HUGE_VAL && rate >= 0 &&
	    rate < HUGE_VAL) {
		struct ps_stressor_result *s = stressor(r, name, strlen(name));

		if (!s)
			return;
		s->bogo_ops = ops;
		s->real_s = real;
		s->usr_s = usr;
		s->sys_s = sys;
		s->ops_per_s = rate;
	}
}

int ps_stress_parse_log(const char *text, struct ps_stress_run *r)
{
	const char *line = text;
	bool any = false;

	memset(r, 0, sizeof(*r));
	r->completed = -1;
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *rest;
		size_t len = nl ? (size_t)(nl - line) : strlen(line), rlen;
		char tag[16];

		if (len > 20 && strncmp(line, "stress-ng, version ", 19) == 0) {
			sscanf(line + 19, "%23s", r->version);
			any = true;
		} else if (split_line(line, len, tag, sizeof(tag), &rest, &rlen)) {
			any = true;
			if (strcmp(tag, "metrc") == 0) {
				metrics_row(r, rest, rlen);
			} else if (strcmp(tag, "fail") == 0) {
				/* "vm: detected memory error ...": the stressor's name first */
				const char *c = memchr(rest, ':', rlen);
				struct ps_stressor_result *s =
				    c ? stressor(r, rest, (size_t)(c - rest)) : NULL;

				r->fails++;
				if (s)
					s->fails++;
				if (r->n_fail_lines < PS_STRESS_FAIL_KEEP) {
					snprintf(r->fail_lines[r->n_fail_lines],
						 sizeof(r->fail_lines[0]), "%.*s",
						 (int)(rlen < 159 ? rlen : 159), rest);
					r->n_fail_lines++;
				}
			} else if (strcmp(tag, "error") == 0) {
				r->errors++;
			} else if (strcmp(tag, "info") == 0) {
				if (rlen >= 27 &&
				    strncmp(rest, "successful run completed", 24) == 0)
					r->completed = 1;
				else if (rlen >= 26 &&
					 strncmp(rest, "unsuccessful run completed", 26) == 0)
					r->completed = 0;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return any ? 0 : -EINVAL;
}

bool ps_stress_dispatched(const char *text, size_t len)
{
	static const char tag[] = "] dispatching hogs:";
	const char *line = text, *end = text + len;

	/* "stress-ng: info:  [1234] dispatching hogs: 2 cpu, 1 vm" */
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);

		if (n > 10 && strncmp(line, "stress-ng:", 10) == 0 &&
		    memmem(line, n, tag, sizeof(tag) - 1))
			return true;
		line = nl ? nl + 1 : end;
	}
	return false;
}

int64_t ps_proc_mce_count(const char *text)
{
	const char *p = text;

	while (p && *p) {
		while (*p == ' ')
			p++;
		if (strncmp(p, "MCE:", 4) == 0) {
			int64_t sum = 0;
			size_t counts = 0;
			char *end;

			p += 4;
			for (;;) {
				unsigned long long v;

				while (*p == ' ' || *p == '\t')
					p++;
				if (*p == '-' || *p == '+')
					return -1; /* a sign: not the kernel's count */
				if (!isdigit((unsigned char)*p))
					break; /* the words after the counts */
				errno = 0;
				v = strtoull(p, &end, 10);
				/* the kernel prints each CPU's count as an unsigned int */
				if (errno || v > UINT32_MAX)
					return -1;
				sum += (int64_t)v;
				counts++;
				p = end;
			}
			return counts ? sum : -1;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/* last - first of a cumulative counter, -1 when either end is unknown; and when it first grew. */
static int64_t grew(const struct ps_burn_sample *s, size_t n, size_t off, double *at)
{
	int64_t first = -1, prev;

	*at = NAN;
	for (size_t i = 0; i < n; i++) {
		int64_t v = *(const int64_t *)((const char *)&s[i] + off);

		if (v < 0)
			continue;
		if (first < 0) {
			first = prev = v;
			continue;
		}
		if (v > prev && isnan(*at))
			*at = s[i].t;
		prev = v;
	}
	if (first < 0)
		return -1;
	return prev - first;
}

static void hit(struct ps_burn_hit *hits, size_t max, size_t *n, enum ps_burn_sev sev,
		const char *rule, double value, double limit, const char *unit, double at,
		const char *fmt, ...) __attribute__((format(printf, 10, 11)));

static void hit(struct ps_burn_hit *hits, size_t max, size_t *n, enum ps_burn_sev sev,
		const char *rule, double value, double limit, const char *unit, double at,
		const char *fmt, ...)
{
	va_list ap;
	struct ps_burn_hit *h;

	if (*n >= max)
		return;
	h = &hits[(*n)++];
	h->sev = sev;
	h->rule = rule;
	h->value = value;
	h->limit = limit;
	h->unit = unit;
	h->at_s = at;
	va_start(ap, fmt);
	vsnprintf(h->msg, sizeof(h->msg), fmt, ap);
	va_end(ap);
}

#define OFF(f) offsetof(struct ps_burn_sample, f)

size_t ps_burn_verdict(const struct ps_burn_sample *s, size_t n, const struct ps_stress_run *r,
		       struct ps_burn_hit *hits, size_t max)
{
	size_t k = 0, worst_i = 0;
	double at, worst = INFINITY;
	int64_t d;

	if (r && r->fails) {
		unsigned int named = 0;

		for (size_t i = 0; i < r->n; i++) {
			if (!r->s[i].fails)
				continue;
			named += r->s[i].fails;
			hit(hits, max, &k, PS_BURN_FAIL, "computation_error", r->s[i].fails, 0,
			    "errors", NAN,
			    "stress-ng's %s stressor failed its own verification %u times "
			    "(first: %s): the CPU or memory computed a wrong result",
			    r->s[i].name, r->s[i].fails,
			    r->n_fail_lines ? r->fail_lines[0] : "no message");
		}
		if (named < r->fails)
			hit(hits, max, &k, PS_BURN_FAIL, "computation_error", r->fails - named, 0,
			    "errors", NAN, "stress-ng reported %u failures (first: %s)",
			    r->fails - named, r->n_fail_lines ? r->fail_lines[0] : "no message");
	}
	if ((d = grew(s, n, OFF(mce), &at)) > 0)
		hit(hits, max, &k, PS_BURN_FAIL, "machine_check", (double)d, 0, "events", at,
		    "%lld machine check exceptions during the burn-in (the first %.0f s in): the "
		    "CPU or its memory path reported a hardware error",
		    (long long)d, at);
	if ((d = grew(s, n, OFF(edac_ue), &at)) > 0)
		hit(hits, max, &k, PS_BURN_FAIL, "uncorrected_error", (double)d, 0, "errors", at,
		    "%lld uncorrected memory errors (EDAC) during the burn-in, the first %.0f s in",
		    (long long)d, at);
	if ((d = grew(s, n, OFF(aer_uncor), &at)) > 0)
		hit(hits, max, &k, PS_BURN_FAIL, "uncorrected_error", (double)d, 0, "errors", at,
		    "%lld uncorrected PCIe errors (AER non-fatal or fatal) during the burn-in, the "
		    "first %.0f s in",
		    (long long)d, at);
	if ((d = grew(s, n, OFF(kmsg_oops), &at)) > 0 || (n && s[0].kmsg_oops > 0)) {
		d = n ? s[n - 1].kmsg_oops : d;
		hit(hits, max, &k, PS_BURN_FAIL, "oops", (double)d, 0, "oopses", at,
		    "the kernel logged %lld oops or BUG reports during the burn-in", (long long)d);
	}
	if ((d = grew(s, n, OFF(throttle), &at)) > 0)
		hit(hits, max, &k, PS_BURN_WARN, "throttled", (double)d, 0, "events", at,
		    "the CPUs throttled %lld times for heat (the first %.0f s in): check the "
		    "cooler, its paste and the case's airflow",
		    (long long)d, at);
	if ((d = grew(s, n, OFF(edac_ce), &at)) > 0)
		hit(hits, max, &k, PS_BURN_WARN, "corrected_errors", (double)d, 0, "errors", at,
		    "%lld corrected memory errors (EDAC) during the burn-in, the first %.0f s in: "
		    "the edac recorder names the DIMM",
		    (long long)d, at);
	if ((d = grew(s, n, OFF(aer_cor), &at)) > 0)
		hit(hits, max, &k, PS_BURN_WARN, "corrected_errors", (double)d, 0, "errors", at,
		    "%lld corrected PCIe errors (AER) during the burn-in, the first %.0f s in: the "
		    "aer recorder names the device",
		    (long long)d, at);
	for (size_t i = 0; i < n; i++)
		if (!isnan(s[i].temp_margin_c) && s[i].temp_margin_c < worst) {
			worst = s[i].temp_margin_c;
			worst_i = i;
		}
	if (isfinite(worst) && worst <= PS_BURN_NEAR_CRIT_C)
		hit(hits, max, &k, PS_BURN_WARN, "near_critical", worst, PS_BURN_NEAR_CRIT_C, "C",
		    s[worst_i].t,
		    "%s came within %.1f C of its critical temperature (%.0f s in): the machine "
		    "runs too hot under load",
		    s[worst_i].temp_label[0] ? s[worst_i].temp_label : "a sensor", worst,
		    s[worst_i].t);
	return k;
}
