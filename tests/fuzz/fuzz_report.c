/*
 * fuzz_report.c - a report.json that a later `show` or `compare` reads: any
 * version of probestick, a stick pulled mid-write, a file edited by hand.
 * ps_report_parse, then the renderer over whatever parses, then over the
 * same report with a few members swapped for values of another type (what
 * another version's report holds), which byte mutations of JSON text
 * rarely reach deep down.
 */
// fuzz-sources: all
#include "fuzz.h"

#include "core/plan.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>

#define SWAPS 3

/* What `show`, `info` and the summary screen print, through every view the program has. */
static void render(json_object *report)
{
	static const unsigned int flags[] = {0, PS_TEXT_INVENTORY, PS_TEXT_VERDICTS};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char *text = ps_report_text(report, ps_views(), flags[i]);

		FUZZ_CHECK(text);
		free(text);
	}
}

static size_t count_values(json_object *o)
{
	size_t n = 1;

	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			n += count_values(json_object_array_get_idx(o, i));
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, val)
		{
			(void)key;
			n += count_values(val);
		}
	}
	return n;
}

/* A value of another kind than a report member usually has; kind picks it. */
static json_object *odd_value(unsigned int kind)
{
	switch (kind % 9) {
	case 0:
		return NULL;
	case 1:
		return json_object_new_int64(INT64_MIN);
	case 2:
		return json_object_new_int64(INT64_MAX);
	case 3:
		return json_object_new_double(kind & 16 ? NAN : -INFINITY);
	case 4:
		return json_object_new_double(1e300);
	case 5:
		return json_object_new_string("\x1b[2J\xff");
	case 6:
		return json_object_new_array();
	case 7:
		return json_object_new_object();
	default:
		return json_object_new_boolean(1);
	}
}

/* Replaces value number *k (pre-order, the root is 0 and stays) below o; true once done. */
static bool swap_nth(json_object *o, size_t *k, unsigned int kind)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			if ((*k)-- == 0) {
				json_object_array_put_idx(o, i, odd_value(kind));
				return true;
			}
			if (swap_nth(json_object_array_get_idx(o, i), k, kind))
				return true;
		}
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, val)
		{
			if ((*k)-- == 0) {
				json_object_object_add(o, key, odd_value(kind));
				return true;
			}
			if (swap_nth(val, k, kind))
				return true;
		}
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_object *report = (json_object *)&report; /* parse must set it either way */
	char err[512];
	uint64_t seed = 1469598103934665603ULL;
	int ret;

	err[0] = '\0';
	ret = ps_report_parse((const char *)data, size, &report, err, sizeof(err));
	if (ret < 0) {
		FUZZ_CHECK(ret == -EBADMSG || ret == -ENOMEM);
		FUZZ_CHECK(!report && err[0]);
		return 0;
	}
	FUZZ_CHECK(ret == 0 && report && json_object_is_type(report, json_type_object));
	render(report);

	/* The swaps follow from the input, so a crash they cause replays from it. */
	for (size_t i = 0; i < size; i++)
		seed = (seed ^ data[i]) * 1099511628211ULL;
	for (int s = 0; s < SWAPS; s++) {
		size_t n = count_values(report), k;

		if (n < 2)
			break;
		k = (size_t)(seed % (n - 1));
		swap_nth(report, &k, (unsigned int)(seed >> 32));
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	render(report);
	json_object_put(report);
	return 0;
}
