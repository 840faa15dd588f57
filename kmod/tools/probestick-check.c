// probestick-check: exercise /dev/probestick from user space (load tests,
// bring-up on a new machine): prints every link and checks the ioctls' errors.
// Usage: probestick-check [DEVICE]   Exit 0 when every check passed.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../uapi/probestick.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int failures;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failures++;
}

static const char *speed_name(unsigned int s)
{
	static const char *const names[] = {"?",      "2.5GT/s", "5GT/s", "8GT/s",
					    "16GT/s", "32GT/s",	 "64GT/s"};

	return s < ARRAY_SIZE(names) ? names[s] : "?";
}

static void print_link(const struct probestick_pcie_link *l)
{
	printf("%04x:%02x:%02x.%u %04x:%04x class %06x", l->domain, l->bus, l->devfn >> 3,
	       l->devfn & 7, l->vendor, l->device, l->class);
	if (!(l->flags & PROBESTICK_LINK_IS_PCIE)) {
		printf(" conventional PCI\n");
		return;
	}
	printf(" type %u", l->port_type);
	if (!(l->flags & PROBESTICK_LINK_HAS_LINK)) {
		printf(" no link\n");
		return;
	}
	printf(" cap %s x%u sta %s x%u", speed_name(l->cap_speed), l->cap_width,
	       speed_name(l->sta_speed), l->sta_width);
	if (l->flags & PROBESTICK_LINK_HAS_UP)
		printf(" up %s x%u", speed_name(l->up_cap_speed), l->up_cap_width);
	printf(" speeds 0x%02x lnkcap 0x%08x lnksta 0x%04x lnkcap2 0x%08x%s%s\n", l->cap2_speeds,
	       l->lnkcap, l->lnksta, l->lnkcap2,
	       l->flags & PROBESTICK_LINK_TRAINING ? " TRAINING" : "",
	       l->flags & PROBESTICK_LINK_DOWNGRADED ? " DOWNGRADED" : "");
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PROBESTICK_DEVICE;
	struct probestick_version ver;
	struct probestick_pcie_table table;
	struct probestick_pcie_link *links;
	uint32_t present;
	int fd, rc;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "probestick-check: cannot open %s: %s (is probestick.ko loaded?)\n",
			path, strerror(errno));
		return 1;
	}

	memset(&ver, 0, sizeof(ver));
	rc = ioctl(fd, PROBESTICK_IOC_VERSION, &ver);
	check(rc == 0, "VERSION succeeds");
	printf("abi %u, release '%s', %u PCI functions\n", ver.abi, ver.release, ver.nr_pci);
	check(ver.abi == PROBESTICK_ABI_VERSION, "VERSION abi matches the header");
	check(memchr(ver.release, '\0', sizeof(ver.release)) && ver.release[0],
	      "release is a NUL-terminated string");

	memset(&table, 0, sizeof(table));
	table.entry_size = sizeof(struct probestick_pcie_link);
	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
	check(rc == 0 && table.count == ver.nr_pci,
	      "PCIE_LINKS with no room counts every function");
	present = table.count;

	links = calloc(present + 1, sizeof(*links));
	if (!links)
		return 1;
	memset(links, 0xa5, (present + 1) * sizeof(*links));
	table.count = present + 1;
	table.links = (uintptr_t)links;
	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
	check(rc == 0 && table.count == present, "PCIE_LINKS fills the table");
	check(links[present].flags == 0xa5a5a5a5,
	      "PCIE_LINKS writes no entry beyond those present");
	for (uint32_t i = 0; rc == 0 && i < table.count; i++)
		print_link(&links[i]);

	if (present > 1) {
		memset(links, 0, (present + 1) * sizeof(*links));
		table.count = 1;
		rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
		check(rc == 0 && table.count == present && links[1].vendor == 0,
		      "PCIE_LINKS with room for 1 fills 1 and counts all");
	}

	table.count = present;
	table.entry_size = sizeof(struct probestick_pcie_link) - 4;
	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
	check(rc == -1 && errno == EINVAL, "wrong entry_size gives EINVAL");

	table.entry_size = sizeof(struct probestick_pcie_link);
	table.count = PROBESTICK_PCIE_LINKS_MAX + 1;
	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
	check(rc == -1 && errno == EINVAL, "count above PROBESTICK_PCIE_LINKS_MAX gives EINVAL");

	table.count = present;
	table.links = 16;
	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, &table);
	check(rc == -1 && errno == EFAULT, "bad links pointer gives EFAULT");

	rc = ioctl(fd, PROBESTICK_IOC_PCIE_LINKS, (void *)16);
	check(rc == -1 && errno == EFAULT, "bad table pointer gives EFAULT");

	rc = ioctl(fd, _IOR(PROBESTICK_IOC_MAGIC, 0x7f, uint32_t), &present);
	check(rc == -1 && errno == ENOTTY, "unknown ioctl gives ENOTTY");

	if (getuid() == 0 && fork() == 0) {
		/* Drop every capability with the uid: the module must say no. */
		if (setuid(65534) != 0)
			_exit(2);
		rc = ioctl(fd, PROBESTICK_IOC_VERSION, &ver);
		_exit(rc == -1 && errno == EPERM ? 0 : 1);
	} else if (getuid() == 0) {
		int status = 1;

		wait(&status);
		check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "non-root caller gets EPERM");
	}

	free(links);
	close(fd);
	printf("probestick-check: %d failed\n", failures);
	return failures ? 1 : 0;
}
