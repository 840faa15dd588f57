/*
 * result.c - a step's typed result around its run: the struct its field table
 * describes, made unknown everywhere before run() and written into data{}
 * once after it (the one place a converted step's data{} is written).
 */
#include "core/step_run.h"
#include "lib/fields.h"

#include <errno.h>
#include <stdlib.h>

int ps_step_result_begin(struct ps_ctx *ctx, const struct ps_step_ops *ops, json_object *data)
{
	ctx->result = NULL;
	ctx->data = data;
	if (!ops->result)
		return 0;
	ctx->data = NULL; /* a step with a result table never reads or writes data{} */
	ctx->result = malloc(ops->result->size);
	if (!ctx->result)
		return -ENOMEM;
	ps_fields_init(ops->result, ctx->result);
	return 0;
}

void ps_step_result_end(struct ps_ctx *ctx, const struct ps_step_ops *ops, json_object *data)
{
	if (!ops->result || !ctx->result)
		return;
	ps_fields_to(ops->result, ctx->result, data);
	ps_fields_free(ops->result, ctx->result);
	free(ctx->result);
	ctx->result = NULL;
	ctx->data = data;
}
