/*
 * fuzz_sysfs_path.c - a resolved /sys/devices path (realpath of a block or
 * net device): ps_drive_transport, ps_pci_ancestor, ps_is_pci_address.
 */
// fuzz-sources: decode/sysfs_path.c
#include "fuzz.h"

#include "decode/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *path = fuzz_cstr(data, size), pci[16], small[5];
	int ata = -2;
	enum ps_transport t = ps_drive_transport(path, &ata);

	FUZZ_CHECK(ps_transport_name(t) != NULL);
	FUZZ_CHECK(ata != -2); /* always set: ataN's N, or -1 */
	for (int skip = 0; skip < 3; skip++) {
		if (ps_pci_ancestor(path, skip, pci, sizeof(pci)) == 0)
			FUZZ_CHECK(ps_is_pci_address(pci, strlen(pci)));
		else
			FUZZ_CHECK(pci[0] == '\0');
	}
	(void)ps_pci_ancestor(path, 0, small, sizeof(small));
	FUZZ_CHECK(strnlen(small, sizeof(small)) < sizeof(small));
	(void)ps_is_pci_address(path, strlen(path));
	free(path);
	return 0;
}
