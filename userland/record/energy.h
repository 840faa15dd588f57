/*
 * energy.h - the energy recorder: joules, average and peak watts of every
 * step from the CPU's RAPL counters (hw/rapl.h), read on the load
 * sampler's ticks; figures per watt where the step measures a rate; and
 * the run's power summary beside the wall meter's readings taken by hand.
 */
#ifndef PS_RECORD_ENERGY_H
#define PS_RECORD_ENERGY_H

#include "decode/wall.h"

#include <json-c/json.h>
#include <stdbool.h>

#define PS_ENERGY_SERIES_MAX 600 /* points of a step's power curve; longer steps are thinned */

struct ps_energy;
struct ps_view;

/* Finds root's RAPL zones; the first sample is the baseline. NULL only when out of memory. */
struct ps_energy *ps_energy_start(const char *root);
/* A sample now: the load sampler's hook (record/sampler.h). */
void ps_energy_sample(void *e);
/* A sample at t seconds of a monotonic clock (tests feed recorded trees this way). */
void ps_energy_sample_at(struct ps_energy *e, double t);
/*
 * The step's "energy" object (docs/report.md), with its figures per watt
 * from the rates the step's view calls better when higher (MB/s, GB/s,
 * Mbit/s, Gbit/s) in data; view and data may be NULL. Frees e.
 */
json_object *ps_energy_stop(struct ps_energy *e, const struct ps_view *view, json_object *data);

extern const struct ps_view ps_energy_view;

/* ---- the run's power: the wall meter by hand beside RAPL (power.c) ---- */

/*
 * report.power from the wall readings (NULL: keep those already there)
 * and the energy of the steps so far: the lowest 1-second figure RAPL
 * saw, the highest step mean (the load) and the peak. Call after every step.
 */
void ps_power_update(json_object *report, const struct ps_wall *wall);

#endif
