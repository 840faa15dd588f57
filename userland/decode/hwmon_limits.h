/*
 * hwmon_limits.h - a board sensor judged by its own chip's limits (hwmon
 * in*_min/_max/_alarm, fan*_alarm): a voltage rail outside the window the
 * BIOS (or `sensors -s`) programmed, a fan at 0 rpm with its alarm set, a
 * temperature input with nothing connected; and the names people know the
 * Nuvoton and Winbond rails by. Pure.
 */
#ifndef PS_DECODE_HWMON_LIMITS_H
#define PS_DECODE_HWMON_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A rail's limits mean something only as a window: min below max, max
 * above 0. Boards leave most Super I/O limits unset: both 0, or both at
 * the register's full scale (2.04 V on Nuvoton chips), and the chip then
 * raises alarms that say nothing. NAN is an absent limit.
 */
bool ps_rail_window_set(double min, double max);

enum ps_rail_verdict {
	PS_RAIL_UNJUDGED = 0, /* no window, or no reading */
	PS_RAIL_OK,
	PS_RAIL_LOW,  /* a reading below min */
	PS_RAIL_HIGH, /* a reading above max */
};

/*
 * lo and hi are the lowest and highest readings over the samples (NAN
 * none), min and max the chip's limits: the verdict, and in *value and
 * *limit the reading furthest outside and the bound it crossed (NAN when
 * within). A reading exactly at a bound is within it.
 */
enum ps_rail_verdict ps_rail_judge(double lo, double hi, double min, double max, double *value,
				   double *limit);

/* A fan reading 0 rpm in a sample where its alarm is set (alarm 1; 0 or -1 unknown: not). */
bool ps_fan_stopped(double rpm, int alarm);

/*
 * A temperature an input gives when nothing is connected to it: 127 °C
 * and more (an open thermistor, 0x7f), -40 °C and less (-128: no
 * diode). Such an input is no reading of anything.
 */
bool ps_temp_unconnected(double celsius);

/*
 * The rail that input ("in3") is on a Nuvoton or Winbond monitor (hwmon
 * chip "nct6776", "w83627dhg", ...) where the driver gives no label, as
 * boards and lm-sensors name it ("+3.3V"); NULL when not known.
 */
const char *ps_rail_name(const char *chip, const char *input);

#endif
