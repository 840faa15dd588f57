/*
 * kc-window - guest helper of tests/boot/test_module_cycle: capture windows
 * of probestick.ko from the outside.
 *   kc-window hold        attach every available probe, start a window,
 *                         print "kc-window: holding" and wait to be killed
 *   kc-window start       start a window with its own attachment and exit
 *                         (closing the file must close the window)
 *   kc-window snapshot    the window must be running and hold records
 *   kc-window gone        no window may run and nothing be patched in, and
 *                         this process can attach (the owner is gone)
 *   kc-window dump SECS   a window of SECS seconds, printed as a recording
 *                         (tests/unit/kc_recording.h reads it)
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <probestick.h>

static struct probestick_kc_probe probes[PROBESTICK_KC_MAX_PROBES];
static unsigned int nprobes;

/* The probes the module lists; the mask of those this kernel can attach. */
static int list_probes(int fd, unsigned int *avail, unsigned int *attached)
{
	struct probestick_kc_probes req = {
	    .count = PROBESTICK_KC_MAX_PROBES,
	    .entry_size = sizeof(probes[0]),
	    .probes = (unsigned long)probes,
	};

	if (ioctl(fd, PROBESTICK_IOC_KC_PROBES, &req) < 0)
		return -errno;
	nprobes = req.count < PROBESTICK_KC_MAX_PROBES ? req.count : PROBESTICK_KC_MAX_PROBES;
	*avail = *attached = 0;
	for (unsigned int i = 0; i < nprobes; i++) {
		if (probes[i].id >= PROBESTICK_KC_MAX_PROBES)
			continue;
		if (probes[i].flags & PROBESTICK_KC_PROBE_AVAILABLE)
			*avail |= 1U << probes[i].id;
		if (probes[i].flags & PROBESTICK_KC_PROBE_ATTACHED)
			*attached |= 1U << probes[i].id;
	}
	return 0;
}

static int snap(int fd, struct probestick_kc_snapshot *s, struct probestick_kc_record **recs)
{
	unsigned int room;

	memset(s, 0, sizeof(*s));
	s->version = PROBESTICK_KC_RECORD_VERSION;
	s->record_size = sizeof(struct probestick_kc_record);
	*recs = NULL;
	if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, s) < 0)
		return -errno;
	/* Records can appear between the two calls: room for some more. */
	room = s->count + 64;
	*recs = calloc(room, sizeof(**recs));
	if (!*recs)
		return -ENOMEM;
	s->count = room;
	s->records = (unsigned long)*recs;
	if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, s) < 0)
		return -errno;
	if (s->count > room)
		s->count = room;
	return 0;
}

static int start_window(int fd, int attach_first)
{
	struct probestick_kc_attach at = {0};
	struct probestick_kc_start st = {0};
	unsigned int avail, attached;
	int ret = list_probes(fd, &avail, &attached);

	if (ret < 0) {
		fprintf(stderr, "kc-window: KC_PROBES: %s\n", strerror(-ret));
		return 1;
	}
	for (unsigned int i = 0; i < nprobes; i++)
		if (!(probes[i].flags & PROBESTICK_KC_PROBE_AVAILABLE))
			printf("kc-window: probe %s unavailable: %s\n", probes[i].name,
			       probes[i].reason);
	if (!avail) {
		fprintf(stderr, "kc-window: no probe is available\n");
		return 1;
	}
	if (attach_first) {
		at.mask = avail;
		if (ioctl(fd, PROBESTICK_IOC_KC_ATTACH, &at) < 0) {
			perror("kc-window: KC_ATTACH");
			return 1;
		}
	}
	st.mask = avail;
	if (ioctl(fd, PROBESTICK_IOC_KC_START, &st) < 0) {
		perror("kc-window: KC_START");
		return 1;
	}
	printf("kc-window: started, available 0x%x attached 0x%x\n", avail, st.attached);
	if (st.attached != avail) {
		fprintf(stderr, "kc-window: attached 0x%x, expected every available probe 0x%x\n",
			st.attached, avail);
		return 1;
	}
	return 0;
}

static int check_snapshot(int fd)
{
	struct probestick_kc_snapshot s;
	struct probestick_kc_record *recs;
	unsigned int bad = 0;
	int ret = snap(fd, &s, &recs);

	if (ret < 0) {
		fprintf(stderr, "kc-window: KC_SNAPSHOT: %s\n", strerror(-ret));
		free(recs);
		return 1;
	}
	for (unsigned int i = 0; i < s.count; i++)
		if (recs[i].metric < PROBESTICK_KC_M_HARDIRQ ||
		    recs[i].metric > PROBESTICK_KC_M_NIC_PKTS || recs[i].probe >= nprobes)
			bad++;
	printf("kc-window: snapshot state %u window %llu us records %u attached 0x%x patched "
	       "0x%x%s\n",
	       s.state, (unsigned long long)s.window_ns / 1000, s.count, s.attached, s.patched,
	       bad ? " (bad records)" : "");
	free(recs);
	if (s.state != PROBESTICK_KC_RUNNING || s.count == 0 || bad || !s.patched) {
		fprintf(stderr,
			"kc-window: expected a running window with records and patched probes "
			"(state %u, %u records, %u bad, patched 0x%x)\n",
			s.state, s.count, bad, s.patched);
		return 1;
	}
	return 0;
}

/* The holder was killed: its window stopped, nothing patched, anyone may attach. */
static int check_gone(int fd)
{
	struct probestick_kc_attach at = {0};
	struct probestick_kc_snapshot s;
	struct probestick_kc_record *recs;
	unsigned int avail, attached;
	int ret = snap(fd, &s, &recs);

	free(recs);
	if (ret < 0 && ret != -ENODATA) {
		fprintf(stderr, "kc-window: KC_SNAPSHOT: %s\n", strerror(-ret));
		return 1;
	}
	if (list_probes(fd, &avail, &attached) < 0) {
		perror("kc-window: KC_PROBES");
		return 1;
	}
	printf("kc-window: after the owner: state %u patched 0x%x attached 0x%x\n", s.state,
	       s.patched, attached);
	if (s.state == PROBESTICK_KC_RUNNING || s.patched || attached) {
		fprintf(stderr,
			"kc-window: the window outlived its file (state %u, patched 0x%x, "
			"probes attached 0x%x)\n",
			s.state, s.patched, attached);
		return 1;
	}
	at.mask = avail;
	if (ioctl(fd, PROBESTICK_IOC_KC_ATTACH, &at) < 0 ||
	    ioctl(fd, PROBESTICK_IOC_KC_DETACH) < 0) {
		perror("kc-window: attach after the owner's death");
		return 1;
	}
	return 0;
}

/* A word of a name for the recording: "-" when empty, no white space. */
static void word(const char *s, size_t len, char *out)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++)
		out[i] = isspace((unsigned char)s[i]) || !isprint((unsigned char)s[i]) ? '_' : s[i];
	out[i] = '\0';
	if (!i)
		strcpy(out, "-");
}

static int dump(int fd, unsigned int seconds)
{
	struct probestick_kc_snapshot s;
	struct probestick_kc_record *recs;
	char name[64], bus[64], reason[128];
	int ret;

	if (start_window(fd, 1))
		return 1;
	sleep(seconds);
	if (ioctl(fd, PROBESTICK_IOC_KC_STOP) < 0) {
		perror("kc-window: KC_STOP");
		return 1;
	}
	ret = snap(fd, &s, &recs);
	if (ret < 0) {
		fprintf(stderr, "kc-window: KC_SNAPSHOT: %s\n", strerror(-ret));
		free(recs);
		return 1;
	}
	printf("probestick-recording 1\n");
	printf("snapshot %llu %u %u %u %u %u\n", (unsigned long long)s.window_ns, s.nr_cpus, s.mask,
	       s.attached, s.state, s.patched);
	printf("drops %llu %llu %llu %llu %llu\n", (unsigned long long)s.drops.keys_full,
	       (unsigned long long)s.drops.hists_full, (unsigned long long)s.drops.rq_table_full,
	       (unsigned long long)s.drops.rq_unknown, (unsigned long long)s.drops.rq_requeued);
	for (unsigned int i = 0; i < nprobes; i++) {
		word(probes[i].name, sizeof(probes[i].name), name);
		word(probes[i].reason, sizeof(probes[i].reason), reason);
		printf("probe %u %u %d %s %s\n", probes[i].id, probes[i].flags, probes[i].error,
		       name, reason);
	}
	for (unsigned int i = 0; i < s.count; i++) {
		const struct probestick_kc_record *r = &recs[i];

		word(r->name, sizeof(r->name), name);
		word(r->bus, sizeof(r->bus), bus);
		printf("record %u %u %u %u %u %llu %llu %llu %llu %llu %s %s", r->probe, r->metric,
		       r->cpu, r->key, r->dir, (unsigned long long)r->count,
		       (unsigned long long)r->sum, (unsigned long long)r->max,
		       (unsigned long long)r->extra[0], (unsigned long long)r->extra[1], name, bus);
		for (unsigned int b = 0; b < PROBESTICK_KC_BUCKETS; b++)
			if (r->buckets[b])
				printf(" %u:%llu", b, (unsigned long long)r->buckets[b]);
		printf("\n");
	}
	printf("end\n");
	free(recs);
	return ioctl(fd, PROBESTICK_IOC_KC_DETACH) < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc >= 2 ? argv[1] : "";
	int fd, ret;

	if ((argc != 2 && !(argc == 3 && !strcmp(cmd, "dump"))) ||
	    (strcmp(cmd, "hold") && strcmp(cmd, "start") && strcmp(cmd, "snapshot") &&
	     strcmp(cmd, "gone") && strcmp(cmd, "dump"))) {
		fprintf(stderr, "usage: kc-window hold|start|snapshot|gone|dump SECONDS\n");
		return 2;
	}
	fd = open(PROBESTICK_DEVICE, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "kc-window: %s: %s\n", PROBESTICK_DEVICE, strerror(errno));
		return 1;
	}
	if (!strcmp(cmd, "hold")) {
		ret = start_window(fd, 1);
		if (ret)
			return ret;
		printf("kc-window: holding\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(cmd, "start"))
		ret = start_window(fd, 0);
	else if (!strcmp(cmd, "snapshot"))
		ret = list_probes(fd, &(unsigned int){0}, &(unsigned int){0}) < 0
			  ? 1
			  : check_snapshot(fd);
	else if (!strcmp(cmd, "gone"))
		ret = check_gone(fd);
	else
		ret = dump(fd, (unsigned int)atoi(argv[2]));
	close(fd);
	return ret;
}
