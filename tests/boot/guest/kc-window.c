/*
 * kc-window - test_module_cycle's guest helper: starts a capture window of
 * probestick.ko and exits leaving it running, or snapshots the running one.
 *   kc-window start       all probes; every available probe must attach
 *   kc-window snapshot    the window must be running and hold records
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <probestick.h>

/* The probes this kernel can attach, as a PROBESTICK_KC_* mask. */
static int available_mask(int fd, unsigned int *mask)
{
	struct probestick_kc_probe probes[PROBESTICK_KC_NR_PROBES];
	struct probestick_kc_probes req = {
	    .count = PROBESTICK_KC_NR_PROBES,
	    .entry_size = sizeof(probes[0]),
	    .probes = (unsigned long)probes,
	};

	if (ioctl(fd, PROBESTICK_IOC_KC_PROBES, &req) < 0)
		return -errno;
	*mask = 0;
	for (unsigned int i = 0; i < req.count && i < PROBESTICK_KC_NR_PROBES; i++) {
		if (probes[i].flags & PROBESTICK_KC_PROBE_AVAILABLE)
			*mask |= 1U << probes[i].id;
		else
			printf("kc-window: probe %s unavailable: %s\n", probes[i].name,
			       probes[i].reason);
	}
	return 0;
}

static int start(int fd)
{
	struct probestick_kc_start st = {.mask = PROBESTICK_KC_ALL};
	unsigned int avail;
	int ret = available_mask(fd, &avail);

	if (ret < 0) {
		fprintf(stderr, "kc-window: KC_PROBES: %s\n", strerror(-ret));
		return 1;
	}
	if (ioctl(fd, PROBESTICK_IOC_KC_START, &st) < 0) {
		perror("kc-window: KC_START");
		return 1;
	}
	printf("kc-window: started, available 0x%x attached 0x%x\n", avail, st.attached);
	if (avail == 0 || st.attached != avail) {
		fprintf(stderr, "kc-window: attached 0x%x, expected every available probe 0x%x\n",
			st.attached, avail);
		return 1;
	}
	return 0;
}

static int snapshot(int fd)
{
	struct probestick_kc_snapshot s = {
	    .version = PROBESTICK_KC_RECORD_VERSION,
	    .record_size = sizeof(struct probestick_kc_record),
	};
	struct probestick_kc_record *recs;
	unsigned int room, bad = 0;

	if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, &s) < 0) {
		perror("kc-window: KC_SNAPSHOT (count)");
		return 1;
	}
	/* Records can appear between the two calls: room for some more. */
	room = s.count + 64;
	recs = calloc(room, sizeof(*recs));
	if (!recs) {
		fprintf(stderr, "kc-window: out of memory\n");
		return 1;
	}
	s.count = room;
	s.records = (unsigned long)recs;
	if (ioctl(fd, PROBESTICK_IOC_KC_SNAPSHOT, &s) < 0) {
		perror("kc-window: KC_SNAPSHOT");
		free(recs);
		return 1;
	}
	for (unsigned int i = 0; i < s.count && i < room; i++)
		if (recs[i].metric < PROBESTICK_KC_M_HARDIRQ ||
		    recs[i].metric > PROBESTICK_KC_M_NIC_PKTS)
			bad++;
	printf("kc-window: snapshot state %u window %llu us records %u attached 0x%x%s\n", s.state,
	       (unsigned long long)s.window_ns / 1000, s.count, s.attached,
	       bad ? " (bad metrics)" : "");
	free(recs);
	if (s.state != PROBESTICK_KC_RUNNING || s.count == 0 || bad) {
		fprintf(stderr,
			"kc-window: expected a running window with records (state %u, %u records, "
			"%u with an unknown metric)\n",
			s.state, s.count, bad);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fd, ret;

	if (argc != 2 || (strcmp(argv[1], "start") && strcmp(argv[1], "snapshot"))) {
		fprintf(stderr, "usage: kc-window start|snapshot\n");
		return 2;
	}
	fd = open(PROBESTICK_DEVICE, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "kc-window: %s: %s\n", PROBESTICK_DEVICE, strerror(errno));
		return 1;
	}
	ret = strcmp(argv[1], "start") ? snapshot(fd) : start(fd);
	close(fd);
	return ret;
}
