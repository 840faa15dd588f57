/*
 * kc_recording.h - reads a capture window recorded in a guest by
 * tests/boot/guest/kc-window ("kc-window dump SECONDS", saved by
 * tests/boot/test_module_cycle as recording.txt) back into what the
 * module's ioctls returned: the probe list, the snapshot and its records.
 */
#ifndef PS_KC_RECORDING_H
#define PS_KC_RECORDING_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <probestick.h>

struct kc_recording {
	struct probestick_kc_probe probes[PROBESTICK_KC_MAX_PROBES];
	unsigned int nprobes;
	struct probestick_kc_snapshot snap;
	struct probestick_kc_record *recs;
	unsigned int nrecs;
};

/* "-" is an empty name; '_' stood for white space and is kept as it is. */
static inline void kc_rec_word(char *dst, size_t len, const char *w)
{
	snprintf(dst, len, "%s", strcmp(w, "-") ? w : "");
}

/* 0, or -1 with a message on stderr when the file is not a whole recording. */
static inline int kc_recording_load(const char *path, struct kc_recording *r)
{
	FILE *f = fopen(path, "r");
	char line[16384], name[64], bus[64], reason[128];
	int ended = 0, version = 0;

	memset(r, 0, sizeof(*r));
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct probestick_kc_record *rec, *grown;
		unsigned long long a[8];
		unsigned int u[6];
		int off = 0, n;
		char *p;

		if (sscanf(line, "probestick-recording %d", &version) == 1)
			continue;
		if (sscanf(line, "snapshot %llu %u %u %u %u %u", &a[0], &u[0], &u[1], &u[2], &u[3],
			   &u[4]) == 6) {
			r->snap.window_ns = a[0];
			r->snap.nr_cpus = u[0];
			r->snap.mask = u[1];
			r->snap.attached = u[2];
			r->snap.state = u[3];
			r->snap.patched = u[4];
		} else if (sscanf(line, "drops %llu %llu %llu %llu %llu", &a[0], &a[1], &a[2],
				  &a[3], &a[4]) == 5) {
			r->snap.drops.keys_full = a[0];
			r->snap.drops.hists_full = a[1];
			r->snap.drops.rq_table_full = a[2];
			r->snap.drops.rq_unknown = a[3];
			r->snap.drops.rq_requeued = a[4];
		} else if (r->nprobes < PROBESTICK_KC_MAX_PROBES &&
			   sscanf(line, "probe %u %u %d %63s %127s", &u[0], &u[1],
				  &r->probes[r->nprobes].error, name, reason) == 5) {
			struct probestick_kc_probe *pr = &r->probes[r->nprobes++];

			pr->id = u[0];
			pr->flags = u[1];
			kc_rec_word(pr->name, sizeof(pr->name), name);
			kc_rec_word(pr->reason, sizeof(pr->reason), reason);
		} else if (sscanf(line,
				  "record %u %u %u %u %u %llu %llu %llu %llu %llu %63s %63s%n",
				  &u[0], &u[1], &u[2], &u[3], &u[4], &a[0], &a[1], &a[2], &a[3],
				  &a[4], name, bus, &off) == 12) {
			grown = realloc(r->recs, (r->nrecs + 1) * sizeof(*r->recs));
			if (!grown)
				break;
			r->recs = grown;
			rec = &r->recs[r->nrecs++];
			memset(rec, 0, sizeof(*rec));
			rec->probe = u[0];
			rec->metric = (__u16)u[1];
			rec->cpu = (__u16)u[2];
			rec->key = u[3];
			rec->dir = u[4];
			rec->count = a[0];
			rec->sum = a[1];
			rec->max = a[2];
			rec->extra[0] = a[3];
			rec->extra[1] = a[4];
			kc_rec_word(rec->name, sizeof(rec->name), name);
			kc_rec_word(rec->bus, sizeof(rec->bus), bus);
			for (p = line + off; sscanf(p, " %u:%llu%n", &u[5], &a[5], &n) == 2; p += n)
				if (u[5] < PROBESTICK_KC_BUCKETS)
					rec->buckets[u[5]] = a[5];
		} else if (strcmp(line, "end\n") == 0) {
			ended = 1;
		}
	}
	fclose(f);
	if (version != 1 || !ended) {
		fprintf(stderr, "%s: not a whole recording (version %d, %s)\n", path, version,
			ended ? "ended" : "no end line");
		return -1;
	}
	r->snap.count = r->nrecs;
	return 0;
}

static inline void kc_recording_free(struct kc_recording *r)
{
	free(r->recs);
	r->recs = NULL;
}

#endif
