/* views.c - every view a renderer needs: the registered steps' and the recorders'. */
#include "core/plan.h"
#include "core/util.h"
#include "record/energy.h"
#include "record/kcapture.h"
#include "record/kmsg.h"
#include "record/platform.h"
#include "record/sampler.h"

#include <stdlib.h>

/* The recorders every step carries, in the order their sections appear. */
static const struct ps_view *const recorders[] = {
    &ps_load_view, &ps_probes_view, &ps_kmsg_view, &ps_sensors_view, &ps_links_view,
    &ps_aer_view,  &ps_mce_view,    &ps_edac_view, &ps_energy_view,
};

const struct ps_view_set *ps_views(void)
{
	static struct ps_view_set set;
	static const struct ps_view **list;

	if (!list) {
		size_t n;
		const struct ps_step_ops *const *steps = ps_registry(&n);

		list = calloc(n + PS_ARRAY_SIZE(recorders), sizeof(*list));
		if (!list)
			return &set;
		for (size_t i = 0; i < n; i++)
			list[set.n++] = steps[i]->view;
		for (size_t i = 0; i < PS_ARRAY_SIZE(recorders); i++)
			list[set.n++] = recorders[i];
		set.v = list;
	}
	return &set;
}
