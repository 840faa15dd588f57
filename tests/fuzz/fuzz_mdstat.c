/* fuzz_mdstat.c - /proc/mdstat and /sys/block/mdX/md/sync_completed, sync_speed through the
 * array step's decoders (decode/md.c): the first byte picks which; levels and sizes of its keys. */
// fuzz-sources: decode/md.c
#include "fuzz.h"

#include "decode/md.h"

#include <errno.h>
#include <math.h>

static void check_mdstat(const char *text, size_t len)
{
	struct ps_mdstat st;
	int ret = ps_mdstat_parse(text, len, &st);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(st.n <= PS_MD_MAX_ARRAYS);
	FUZZ_CHECK(memchr(st.personalities, 0, sizeof(st.personalities)) != NULL);
	for (size_t i = 0; i < st.n; i++) {
		const struct ps_mdstat_array *a = &st.a[i];

		FUZZ_CHECK(memchr(a->name, 0, sizeof(a->name)) != NULL);
		FUZZ_CHECK(memchr(a->level, 0, sizeof(a->level)) != NULL);
		FUZZ_CHECK(memchr(a->action, 0, sizeof(a->action)) != NULL);
		FUZZ_CHECK(a->n_members <= PS_MD_MAX_MEMBERS);
		for (size_t m = 0; m < a->n_members; m++) {
			FUZZ_CHECK(memchr(a->members[m], 0, sizeof(a->members[m])) != NULL);
			FUZZ_CHECK(ps_mdstat_member_of(&st, a->members[m]) != NULL ||
				   !a->members[m][0]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	/* the files are read into NUL-terminated buffers (ps_read_str); mdstat by length */
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 4) {
	case 0:
		check_mdstat(text, size - 1);
		break;
	case 1: {
		struct ps_md_sync s;
		int64_t kib = 1000;

		if (ps_md_sync_completed_parse(text, &s) == 0) {
			FUZZ_CHECK(s.state != PS_MD_SYNC_RUNNING || (s.total && s.done <= s.total));
			FUZZ_CHECK(isnan(ps_md_sync_eta_s(&s, kib)) ||
				   ps_md_sync_eta_s(&s, kib) >= 0);
		}
		if (ps_md_sync_speed_parse(text, &kib) == 0)
			FUZZ_CHECK(kib >= -1);
		break;
	}
	case 2: {
		struct ps_md_levels l;
		char why[128];

		if (ps_md_levels_parse(text, &l, why, sizeof(why)) == 0) {
			FUZZ_CHECK(l.n <= PS_MD_MAX_LEVELS);
			for (size_t i = 0; i < l.n; i++)
				FUZZ_CHECK(ps_md_level_min_drives(l.level[i]) >= 2);
		} else {
			FUZZ_CHECK(memchr(why, 0, sizeof(why)) != NULL);
		}
		break;
	}
	default: {
		uint64_t b;
		char why[128];

		(void)ps_md_size_parse(text, &b);
		if (ps_md_chunk_parse(text, &b, why, sizeof(why)) == 0)
			FUZZ_CHECK(b >= 4096 && b <= (64ULL << 20) && !(b & (b - 1)));
		break;
	}
	}
	free(text);
	return 0;
}
