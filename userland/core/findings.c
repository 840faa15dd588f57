/*
 * findings.c - what a step found (findings with their rule, value and limit),
 * which devices it examined, and from both the step's verdict per device.
 */
#include "core/step.h"
#include "core/step_run.h"
#include "lib/stats.h"
#include "lib/util.h"
#include "lib/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *ps_severity_name(enum ps_severity s)
{
	switch (s) {
	case PS_SEV_FAIL:
		return "fail";
	case PS_SEV_WARN:
		return "warn";
	default:
		return "info";
	}
}

static int severity_of(const char *s)
{
	if (!s)
		return -1;
	if (strcmp(s, "fail") == 0)
		return PS_SEV_FAIL;
	if (strcmp(s, "warn") == 0)
		return PS_SEV_WARN;
	if (strcmp(s, "info") == 0)
		return PS_SEV_INFO;
	return -1;
}

void ps_finding_add_json(json_object *findings, const char *severity, const char *rule,
			 const char *kind, const char *device, const char *subject,
			 const char *message, double value, double limit, const char *unit)
{
	json_object *f = json_object_new_object();

	ps_json_set_str(f, "severity", severity);
	ps_json_set_str(f, "rule", rule);
	ps_json_set_str(f, "kind", kind);
	ps_json_set_str(f, "device", device);
	ps_json_set_str(f, "subject", subject);
	ps_json_set_str(f, "message", message);
	/* Figures keep the precision they were measured with: 4 decimals is plenty. */
	ps_json_set_num(f, "value", value, 4);
	ps_json_set_num(f, "limit", limit, 4);
	ps_json_set_str(f, "unit", isnan(value) && isnan(limit) ? NULL : unit);
	json_object_array_add(findings, f);
}

/* "<step>.<rule>": one naming scheme for the documentation and the report. */
static void rule_name(const struct ps_ctx *ctx, const char *rule, char *buf, size_t len)
{
	const char *step = ctx->run && ctx->run->ops ? ctx->run->ops->name : "plan";

	snprintf(buf, len, "%s.%s", step, rule && *rule ? rule : "unnamed");
}

static void add(struct ps_ctx *ctx, const struct ps_finding *f, const char *fmt, va_list ap)
{
	char msg[1024], rule[96];
	enum ps_severity sev = f->severity;

	if (!ctx || !ctx->run || !ctx->run->findings)
		return;
	if (sev != PS_SEV_INFO && sev != PS_SEV_WARN && sev != PS_SEV_FAIL)
		sev = PS_SEV_WARN; /* a step bug must not make the report invalid */
	vsnprintf(msg, sizeof(msg), fmt, ap);
	rule_name(ctx, f->rule, rule, sizeof(rule));
	ps_finding_add_json(ctx->run->findings, ps_severity_name(sev), rule,
			    ps_dev_kind_name(f->dev.kind), f->dev.id, f->dev.name, msg, f->value,
			    f->limit, f->unit);
}

void ps_find(struct ps_ctx *ctx, const struct ps_finding *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add(ctx, f, fmt, ap);
	va_end(ap);
}

void ps_findf(struct ps_ctx *ctx, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
	      const char *fmt, ...)
{
	struct ps_finding f = {
	    .severity = sev, .dev = dev, .rule = rule, .value = PS_NO_VALUE, .limit = PS_NO_VALUE};
	va_list ap;

	va_start(ap, fmt);
	add(ctx, &f, fmt, ap);
	va_end(ap);
}

void ps_find_hook(void *ctx, enum ps_severity sev, struct ps_dev_ref dev, const char *rule,
		  const char *message)
{
	ps_findf(ctx, sev, dev, rule, "%s", message);
}

void ps_not_tested_hook(void *ctx, struct ps_dev_ref dev, const char *why)
{
	ps_not_tested(ctx, dev, "%s", why);
}

static void examined(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *rule, bool tested,
		     const char *fmt, va_list ap)
{
	char msg[512], name[96];
	json_object *e;

	if (!ctx || !ctx->run || !ctx->run->examined || dev.kind == PS_DEV_NONE)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	rule_name(ctx, rule, name, sizeof(name));
	e = json_object_new_object();
	ps_json_set_str(e, "kind", ps_dev_kind_name(dev.kind));
	ps_json_set_str(e, "device", dev.id);
	ps_json_set_str(e, "subject", dev.name);
	ps_json_set_str(e, "rule", name);
	ps_json_set_str(e, "message", msg);
	if (!tested)
		ps_json_set(e, "tested", json_object_new_boolean(false));
	json_object_array_add(ctx->run->examined, e);
}

void ps_examined(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	examined(ctx, dev, rule, true, fmt, ap);
	va_end(ap);
}

void ps_not_tested(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	examined(ctx, dev, "not_tested", false, fmt, ap);
	va_end(ap);
}

void ps_step_reason(struct ps_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (!ctx || !ctx->run)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->run->reason, sizeof(ctx->run->reason), fmt, ap);
	va_end(ap);
}

bool ps_should_abort(const struct ps_ctx *ctx)
{
	return ctx && ctx->abort_flag && *ctx->abort_flag;
}

int ps_findings_worst(json_object *findings)
{
	int worst = -1;

	for (size_t i = 0; i < ps_json_len(findings); i++) {
		int s = severity_of(ps_json_str(ps_json_at(findings, i), "severity"));

		if (s > PS_SEV_INFO && s > worst)
			worst = s;
	}
	return worst;
}

static bool same_device(json_object *a, json_object *b)
{
	const char *ia = ps_json_str(a, "device"), *ib = ps_json_str(b, "device");
	const char *ka = ps_json_str(a, "kind"), *kb = ps_json_str(b, "kind");
	const char *sa = ps_json_str(a, "subject"), *sb = ps_json_str(b, "subject");

	if (ia && ib)
		return strcmp(ia, ib) == 0;
	return ka && kb && sa && sb && strcmp(ka, kb) == 0 && strcmp(sa, sb) == 0;
}

static json_object *verdict_for(json_object *verdicts, json_object *dev)
{
	for (size_t i = 0; i < ps_json_len(verdicts); i++)
		if (same_device(ps_json_at(verdicts, i), dev))
			return ps_json_at(verdicts, i);
	return NULL;
}

static json_object *new_verdict(json_object *verdicts, json_object *from)
{
	json_object *v = json_object_new_object();

	ps_json_set_str(v, "kind", ps_json_str(from, "kind"));
	ps_json_set_str(v, "device", ps_json_str(from, "device"));
	ps_json_set_str(v, "subject", ps_json_str(from, "subject"));
	ps_json_set_str(v, "status", ps_json_bool(from, "tested") == 0 ? "untested" : "pass");
	ps_json_set_str(v, "rule", ps_json_str(from, "rule"));
	ps_json_set_str(v, "message", ps_json_str(from, "message"));
	json_object_array_add(verdicts, v);
	return v;
}

json_object *ps_step_verdicts(json_object *findings, json_object *examined)
{
	json_object *verdicts = json_object_new_array();

	for (size_t i = 0; i < ps_json_len(examined); i++) {
		json_object *e = ps_json_at(examined, i), *v = verdict_for(verdicts, e);

		if (!v)
			new_verdict(verdicts, e);
		else if (ps_json_bool(e, "tested") != 0 &&
			 !strcmp(ps_json_str_or(v, "status", ""), "untested")) {
			/* measured after all in this step: that is its verdict */
			ps_json_set_str(v, "status", "pass");
			ps_json_set_str(v, "rule", ps_json_str(e, "rule"));
			ps_json_set_str(v, "message", ps_json_str(e, "message"));
		}
	}
	for (size_t i = 0; i < ps_json_len(findings); i++) {
		json_object *f = ps_json_at(findings, i), *v;
		int sev = severity_of(ps_json_str(f, "severity"));
		double num;

		if (sev <= PS_SEV_INFO || !ps_json_str(f, "kind"))
			continue;
		v = verdict_for(verdicts, f);
		if (!v)
			v = new_verdict(verdicts, f);
		if (severity_of(ps_json_str(v, "status")) >= sev)
			continue; /* the first finding of the worst severity decides */
		ps_json_set_str(v, "status", ps_severity_name((enum ps_severity)sev));
		ps_json_set_str(v, "rule", ps_json_str(f, "rule"));
		ps_json_set_str(v, "message", ps_json_str(f, "message"));
		ps_json_set(v, "value",
			    ps_json_num(f, "value", &num) ? ps_json_new_num(num, 4) : NULL);
		ps_json_set(v, "limit",
			    ps_json_num(f, "limit", &num) ? ps_json_new_num(num, 4) : NULL);
		ps_json_set_str(v, "unit", ps_json_str(f, "unit"));
	}
	return verdicts;
}

bool ps_find_unstable(struct ps_ctx *ctx, struct ps_dev_ref dev, const char *rule,
		      const struct ps_figure *f, const char *unit, int decimals, const char *what,
		      const char *why)
{
	struct ps_finding fi = {.severity = PS_SEV_INFO,
				.dev = dev,
				.rule = rule,
				.value = f->cv_pct,
				.limit = PS_UNSTABLE_CV_PCT,
				.unit = "%"};

	if (f->n < 2 || isnan(f->cv_pct) || f->cv_pct <= PS_UNSTABLE_CV_PCT || ps_should_abort(ctx))
		return false;
	ps_find(ctx, &fi, "%s varied by %.0f%% between runs (%.*f-%.*f %s%s): %s", what, f->cv_pct,
		decimals, f->min, decimals, f->max, unit,
		isnan(f->warmup) ? "" : ", after a warm-up run", why);
	return true;
}
