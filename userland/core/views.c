/* views.c - every view a renderer needs: the registered steps' and the recorders'. */
#include "core/plan.h"
#include "record/kcapture.h"
#include "record/kmsg.h"
#include "record/platform.h"
#include "record/sampler.h"

#include <stdlib.h>

const struct ps_view_set *ps_views(void)
{
	static struct ps_view_set set;
	static const struct ps_view **list;

	if (!list) {
		size_t n;
		const struct ps_step_ops *const *steps = ps_registry(&n);

		size_t older = 0;

		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; steps[i]->older_views && steps[i]->older_views[k]; k++)
				older++;
		list = calloc(n + older + 8, sizeof(*list));
		if (!list)
			return &set;
		for (size_t i = 0; i < n; i++)
			list[set.n++] = steps[i]->view;
		/* after every current view: ps_view_find gives the current one */
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; steps[i]->older_views && steps[i]->older_views[k]; k++)
				list[set.n++] = steps[i]->older_views[k];
		list[set.n++] = &ps_load_view;
		list[set.n++] = &ps_probes_view;
		list[set.n++] = &ps_kmsg_view;
		list[set.n++] = &ps_sensors_view;
		list[set.n++] = &ps_links_view;
		list[set.n++] = &ps_aer_view;
		list[set.n++] = &ps_mce_view;
		list[set.n++] = &ps_edac_view;
		set.v = list;
	}
	return &set;
}
