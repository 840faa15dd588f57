/* load_view.c - how a step's "load" object (the sampler's CPU and IRQ figures) is shown. */
#include "record/sampler.h"
#include "report/view.h"

static const struct ps_col total_cols[] = {
    {.path = "/duration_s", .title = "sampled", .unit = "s", .decimals = 1},
    {.path = "/total/busy",
     .title = "CPU busy",
     .unit = "%",
     .decimals = 1,
     .better = PS_BETTER_LOWER},
    {.path = "/total/user", .title = "user", .unit = "%", .decimals = 1},
    {.path = "/total/system", .title = "system", .unit = "%", .decimals = 1},
    {.path = "/total/irq", .title = "irq", .unit = "%", .decimals = 1},
    {.path = "/total/softirq", .title = "softirq", .unit = "%", .decimals = 1},
    {.path = "/total/iowait", .title = "iowait", .unit = "%", .decimals = 1},
    {.path = "/irq_total", .title = "interrupts", .decimals = 0},
    {.path = "/irqs_other/lines", .title = "lines not shown", .decimals = 0},
};

static const struct ps_col cpu_cols[] = {
    {.path = "/cpu", .title = "cpu", .flags = PS_COL_KEY},
    {.path = "/busy", .title = "busy", .unit = "%", .decimals = 1, .better = PS_BETTER_LOWER},
    {.path = "/user", .title = "user", .unit = "%", .decimals = 1},
    {.path = "/system", .title = "sys", .unit = "%", .decimals = 1},
    {.path = "/irq", .title = "irq", .unit = "%", .decimals = 1},
    {.path = "/softirq", .title = "soft", .unit = "%", .decimals = 1},
    {.path = "/iowait", .title = "iowait", .unit = "%", .decimals = 1},
    {.path = "/idle", .title = "idle", .unit = "%", .decimals = 1, .flags = PS_COL_OPTIONAL},
};

static const struct ps_col irq_cols[] = {
    {.path = "/irq", .title = "irq", .flags = PS_COL_KEY},
    {.path = "/total", .title = "count", .decimals = 0},
    {.path = "/per_cpu", .title = "per CPU"},
    {.path = "/name", .title = "name", .flags = PS_COL_WIDE},
};

static const struct ps_col note_cols[] = {
    {.path = "", .title = "note", .flags = PS_COL_KEY | PS_COL_WIDE},
};

static const struct ps_col unavailable_cols[] = {
    {.path = "/unavailable", .title = "not sampled"},
};

static const struct ps_col busy_cols[] = {
    {.path = "/none", .title = "cpu"},
    {.path = "/t", .title = "time", .unit = "s", .decimals = 1},
    {.path = "/busy",
     .title = "busy",
     .unit = "%",
     .decimals = 0,
     .better = PS_BETTER_LOWER,
     .flags = PS_COL_EACH},
};

static const struct ps_col series_cols[] = {
    {.path = "/none", .title = "load"},
    {.path = "/t", .title = "time", .unit = "s", .decimals = 1},
    {.path = "/irq_rate", .title = "interrupts/s", .decimals = 0},
};

static const struct ps_block blocks[] = {
    {.kind = PS_BLOCK_KV, .id = "unavailable", .rows = "", .cols = PS_COLS(unavailable_cols)},
    {.kind = PS_BLOCK_KV, .id = "total", .rows = "", .cols = PS_COLS(total_cols)},
    {.kind = PS_BLOCK_TABLE, .id = "cpus", .rows = "/cpus", .cols = PS_COLS(cpu_cols)},
    {.kind = PS_BLOCK_TABLE,
     .id = "irqs",
     .title = "busiest interrupt lines",
     .rows = "/irqs",
     .cols = PS_COLS(irq_cols)},
    {.kind = PS_BLOCK_TABLE, .id = "notes", .rows = "/notes", .cols = PS_COLS(note_cols)},
    {.kind = PS_BLOCK_SERIES,
     .id = "busy",
     .title = "CPU busy per core over the step",
     .rows = "",
     .nested = "/series",
     .cols = PS_COLS(busy_cols),
     .flags = PS_BLOCK_NO_TEXT},
    {.kind = PS_BLOCK_SERIES,
     .id = "irq_rate",
     .title = "Interrupts per second over the step",
     .rows = "",
     .nested = "/series",
     .cols = PS_COLS(series_cols),
     .flags = PS_BLOCK_NO_TEXT},
};

const struct ps_view ps_load_view = {
    .name = "load",
    .version = 1,
    .scope = PS_SCOPE_MEMBER,
    .blocks = PS_BLOCKS(blocks),
};
