/* scratch.c - the scratch-drive confirmation and refusals (scratch.h). Pure. */
#include "core/scratch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *ps_scratch_verdict_name(enum ps_scratch_verdict v)
{
	switch (v) {
	case PS_SCRATCH_OK:
		return "ok";
	case PS_SCRATCH_NOT_NAMED:
		return "not_named";
	case PS_SCRATCH_NO_SERIAL:
		return "no_serial";
	case PS_SCRATCH_BOOT:
		return "boot_stick";
	case PS_SCRATCH_MOUNTED:
		return "mounted";
	case PS_SCRATCH_SWAP:
		return "swap";
	case PS_SCRATCH_HELD:
		return "in_use";
	default:
		return "unread";
	}
}

static size_t trimmed(const char **s, size_t n)
{
	while (n && (**s == ' ' || **s == '\t')) {
		(*s)++;
		n--;
	}
	while (n && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
		n--;
	return n;
}

int ps_scratch_parse(const char *csv, struct ps_scratch_list *l, char *why, size_t whylen)
{
	const char *p = csv;

	memset(l, 0, sizeof(*l));
	if (!csv || !*csv)
		return 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		const char *s = p;
		size_t len = trimmed(&s, n);

		if (len == 0) {
			snprintf(why, whylen, "an empty serial in the list");
			return -EINVAL;
		}
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
				snprintf(why, whylen, "a control byte in serial %zu", l->n + 1);
				return -EINVAL;
			}
		if (len >= PS_SCRATCH_SERIAL) {
			snprintf(why, whylen, "serial %zu is longer than %d characters", l->n + 1,
				 PS_SCRATCH_SERIAL - 1);
			return -EINVAL;
		}
		if (l->n == PS_SCRATCH_MAX) {
			snprintf(why, whylen, "more than %d serials", PS_SCRATCH_MAX);
			return -EINVAL;
		}
		memcpy(l->serial[l->n], s, len);
		l->serial[l->n][len] = '\0';
		l->n++;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

bool ps_scratch_named(const struct ps_config *cfg)
{
	return cfg && cfg->scratch_list.n > 0;
}

bool ps_scratch_listed(const struct ps_scratch_list *l, const char *serial)
{
	const char *s = serial;
	size_t len = serial ? trimmed(&s, strlen(serial)) : 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->serial[i]) == len && memcmp(l->serial[i], s, len) == 0)
			return true;
	return false;
}

size_t ps_scratch_split(const struct ps_scratch_list *named, const struct ps_drive *drives,
			size_t n, struct ps_scratch_list *found, struct ps_scratch_list *missing)
{
	*found = (struct ps_scratch_list){0};
	*missing = (struct ps_scratch_list){0};
	for (size_t i = 0; i < named->n; i++) {
		struct ps_scratch_list one = {.n = 1};
		bool here = false;

		memcpy(one.serial[0], named->serial[i], sizeof(one.serial[0]));
		for (size_t k = 0; k < n && !here; k++)
			here = ps_scratch_listed(&one, drives[k].serial) ||
			       ps_scratch_listed(&one, drives[k].sysfs_serial);
		memcpy((here ? found : missing)->serial[(here ? found : missing)->n++],
		       named->serial[i], sizeof(one.serial[0]));
	}
	return missing->n;
}

enum ps_scratch_verdict ps_scratch_decide(const struct ps_drive *d, const struct ps_drive_use *use,
					  const struct ps_scratch_list *named, char *why,
					  size_t whylen)
{
	if (d->boot_device) {
		snprintf(why, whylen, "the boot stick probestick runs from: never written");
		return PS_SCRATCH_BOOT;
	}
	if (use && use->mounted) {
		snprintf(why, whylen, "a filesystem on it is mounted at %s: unmount it first",
			 use->mount_point);
		return PS_SCRATCH_MOUNTED;
	}
	if (use && use->swap) {
		snprintf(why, whylen, "swap is active on %s", use->swap_dev);
		return PS_SCRATCH_SWAP;
	}
	if (use && use->held) {
		snprintf(why, whylen,
			 "an active array or volume member: %s; stop the array or volume first",
			 use->holder);
		return PS_SCRATCH_HELD;
	}
	if (!d->serial[0]) {
		snprintf(why, whylen, "it reports no serial, so no confirmation can name it");
		return PS_SCRATCH_NO_SERIAL;
	}
	if (!named || !ps_scratch_listed(named, d->serial)) {
		snprintf(why, whylen,
			 "no confirmation named serial %s (scratch=, --scratch or the menu)",
			 d->serial);
		return PS_SCRATCH_NOT_NAMED;
	}
	if (!use || !use->probed) {
		snprintf(why, whylen, "what it holds could not be read%s%s, so it was not shown",
			 use && use->probe_error ? ": " : "",
			 use && use->probe_error ? strerror(-use->probe_error) : "");
		return PS_SCRATCH_UNREAD;
	}
	snprintf(why, whylen, "confirmed by serial %s", d->serial);
	return PS_SCRATCH_OK;
}
