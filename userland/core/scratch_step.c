/*
 * scratch_step.c - the scratch decision as a writing step records it: what
 * the drive holds read, the pure decision (scratch.c), and the finding a
 * refused named drive is worth (scratch.h, ps_scratch_decide_for). Apart
 * from scratch.c, which stays pure for the command-line fuzz harness.
 */
#include "core/scratch.h"
#include "core/step.h"

#include <stdio.h>

enum ps_scratch_verdict ps_scratch_decide_for(struct ps_ctx *ctx, const struct ps_drive *d,
					      const char *path, const char *held_by,
					      struct ps_drive_use *use, char *why, size_t whylen)
{
	/* scratch= was parsed once, by the core (a list it refused names no drive) */
	const struct ps_scratch_list none = {0};
	const struct ps_scratch_list *named = ctx->cfg ? &ctx->cfg->scratch_list : &none;
	enum ps_scratch_verdict v;

	ps_drive_use_read(ctx->root, d->name, path, use);
	v = ps_scratch_decide(d, use, named, why, whylen);
	if (v == PS_SCRATCH_OK && held_by) {
		v = PS_SCRATCH_HELD;
		snprintf(why, whylen,
			 "a member of %s, an array that was there before this step: left alone",
			 held_by);
	}
	if (v != PS_SCRATCH_OK && v != PS_SCRATCH_NOT_NAMED && ps_scratch_listed(named, d->serial))
		ps_findf(ctx, PS_SEV_WARN, (struct ps_dev_ref){0}, "refused",
			 "%s (serial %s) was named as scratch but is refused: %s", d->name,
			 d->serial, why);
	return v;
}
