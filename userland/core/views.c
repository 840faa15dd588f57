/* views.c - every view a renderer needs: the registered steps' (and their older ones) and
 * the registered recorders'. */
#include "core/plan.h"
#include "core/recorders.h"

#include <limits.h>
#include <stdlib.h>

const struct ps_view_set *ps_views(void)
{
	static struct ps_view_set set;
	static const struct ps_view **list;

	if (!list) {
		size_t n;
		const struct ps_step_ops *const *steps = ps_registry(&n);

		size_t older = 0, nrec;
		const struct ps_recorder_ops *const *recs = ps_recorders(&nrec);

		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; steps[i]->older_views && steps[i]->older_views[k]; k++)
				older++;
		list = calloc(n + older + nrec + 1, sizeof(*list));
		if (!list)
			return &set;
		for (size_t i = 0; i < n; i++)
			list[set.n++] = steps[i]->view;
		/* after every current view: ps_view_find gives the current one */
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; steps[i]->older_views && steps[i]->older_views[k]; k++)
				list[set.n++] = steps[i]->older_views[k];
		/* the recorders' sections in the order a report shows them */
		for (int show = 0, next; show < INT_MAX; show = next) {
			next = INT_MAX;
			for (size_t i = 0; i < nrec; i++) {
				if (recs[i]->show == show)
					list[set.n++] = recs[i]->view;
				else if (recs[i]->show > show && recs[i]->show < next)
					next = recs[i]->show;
			}
		}
		set.v = list;
	}
	return &set;
}
