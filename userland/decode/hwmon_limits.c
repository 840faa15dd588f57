/*
 * hwmon_limits.c - judging a board sensor by its own chip's limits: the
 * rules behind sensors.rail_out_of_range and sensors.fan_stopped, and the
 * plausibility of a temperature input. Pure.
 */
#include "decode/hwmon_limits.h"

#include <math.h>
#include <string.h>

bool ps_rail_window_set(double min, double max)
{
	return isfinite(min) && isfinite(max) && max > 0 && min < max;
}

enum ps_rail_verdict ps_rail_judge(double lo, double hi, double min, double max, double *value,
				   double *limit)
{
	double below, above;

	*value = *limit = NAN;
	if (!ps_rail_window_set(min, max) || !isfinite(lo) || !isfinite(hi))
		return PS_RAIL_UNJUDGED;
	below = min - lo;
	above = hi - max;
	if (below <= 0 && above <= 0)
		return PS_RAIL_OK;
	/* the reading furthest outside, relative to the bound it crossed */
	if (above > 0 && (below <= 0 || above / max >= below / (min > 0 ? min : max))) {
		*value = hi;
		*limit = max;
		return PS_RAIL_HIGH;
	}
	*value = lo;
	*limit = min;
	return PS_RAIL_LOW;
}

bool ps_fan_stopped(double rpm, int alarm)
{
	return alarm == 1 && rpm == 0;
}

bool ps_temp_unconnected(double celsius)
{
	return !isfinite(celsius) || celsius >= 127.0 || celsius <= -40.0;
}

/*
 * The inputs every Winbond W83627EHF/DHG/W83667HG and Nuvoton NCT6775F to
 * NCT6799D wire alike (their datasheets' CPUVCORE, AVCC or AVSB, 3VCC,
 * 3VSB and VBAT pins), named as lm-sensors' configuration names them; the
 * other inputs depend on the board. NCT6106D and NCT6116D wire otherwise.
 */
static const struct {
	const char *input, *name;
} nuvoton_rails[] = {
    {"in0", "Vcore"}, {"in2", "AVCC"}, {"in3", "+3.3V"}, {"in7", "3VSB"}, {"in8", "Vbat"},
};

static bool nuvoton_layout(const char *chip)
{
	static const char *const prefixes[] = {"w83627ehf", "w83627dhg", "w83667hg", "nct6775",
					       "nct6776",   "nct6779",	 "nct679"};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(chip, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

const char *ps_rail_name(const char *chip, const char *input)
{
	if (!chip || !input || !nuvoton_layout(chip))
		return NULL;
	for (size_t i = 0; i < sizeof(nuvoton_rails) / sizeof(nuvoton_rails[0]); i++)
		if (strcmp(input, nuvoton_rails[i].input) == 0)
			return nuvoton_rails[i].name;
	return NULL;
}
