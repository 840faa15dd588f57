/*
 * kc-toggle - tests/known/tracepoint-toggle's guest helper: starts and stops
 * probestick.ko capture windows (all probes) N times in a row, so that the
 * module attaches and detaches its tracepoints as fast as the guest can.
 *   kc-toggle N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <probestick.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
	int fd;

	if (n <= 0) {
		fprintf(stderr, "usage: kc-toggle N (N > 0)\n");
		return 2;
	}
	fd = open(PROBESTICK_DEVICE, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "kc-toggle: %s: %s\n", PROBESTICK_DEVICE, strerror(errno));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		struct probestick_kc_start st = {.mask = PROBESTICK_KC_ALL};

		if (ioctl(fd, PROBESTICK_IOC_KC_START, &st) < 0) {
			fprintf(stderr, "kc-toggle: KC_START %ld: %s\n", i, strerror(errno));
			return 1;
		}
		if (ioctl(fd, PROBESTICK_IOC_KC_STOP) < 0) {
			fprintf(stderr, "kc-toggle: KC_STOP %ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
}
