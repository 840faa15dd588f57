/*
 * fuzz_inventory.c - the inventory's sysfs and /proc readers (hw/) over
 * the QEMU fixture tree with one of its files replaced by the input: PCI
 * config spaces, VPD pages, wwid, DMI tables and strings, link speeds and
 * widths, block and net attributes, meminfo, cpuinfo. ps_inventory_take()
 * reads the whole tree as the inventory step does (no module, no live
 * ethtool), then ps_inventory_json() writes report.json's sections.
 * Input: two bytes (little-endian) choosing the file among the tree's
 * regular files (sorted by path, modulo their number), then its content.
 * The tree is copied once per process below $TMPDIR; each input's file is
 * put back after the run.
 */
// fuzz-sources: hw/inventory.c hw/inventory_json.c hw/identity.c hw/machine.c hw/pcie.c
// fuzz-sources: hw/edac.c decode/memory_channel.c hw/pci_names.c lib/store.c decode/memory_array.c
// fuzz-sources: lib/redact.c
// fuzz-sources: hw/drives.c hw/nics.c hw/memory.c hw/environment.c hw/ethtool.c hw/hw_util.c
// fuzz-sources: decode/sysfs_path.c decode/pcie.c decode/ata_identify.c decode/ata_link.c
// fuzz-sources: decode/machine_id_rule.c decode/smbios17.c lib/json.c lib/util.c
// fuzz-sources: decode/ata_capacity.c hw/ata_native.c
#include "fuzz.h"

#include "hw/inventory.h"

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#define FIXTURE_ROOT "tests/fixtures/sysroot-qemu"
#define MAX_FILES    1024

static char root[64];
static char *files[MAX_FILES]; /* paths below root, sorted */
static size_t nfiles;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	if (type == FTW_F && S_ISREG(st->st_mode) && strcmp(base, ".keep") != 0 &&
	    nfiles < MAX_FILES)
		files[nfiles++] = strdup(path);
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_inventory: could not remove %s\n", root);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char cmd[256];

	snprintf(root, sizeof(root), "%s/ps-fuzz-inventory-XXXXXX", tmp);
	FUZZ_CHECK(mkdtemp(root));
	atexit(remove_tree);
	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s'", FIXTURE_ROOT, root);
	FUZZ_CHECK(system(cmd) == 0); /* run from the top of the tree, as make fuzz does */
	FUZZ_CHECK(nftw(root, add_file, 16, FTW_PHYS) == 0 && nfiles > 0);
	qsort(files, nfiles, sizeof(files[0]), by_path);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	FUZZ_CHECK(f && buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	FUZZ_CHECK(f);
	FUZZ_CHECK(fwrite(data, 1, len, f) == len);
	FUZZ_CHECK(fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_inventory inv;
	struct ps_inventory_opts o = {.module_fd = -1};
	const char *path;
	char *orig;
	size_t orig_len;
	json_object *report;

	if (!nfiles)
		setup();
	if (size < 2)
		return 0;
	path = files[((size_t)data[0] | (size_t)data[1] << 8) % nfiles];
	if (getenv("FUZZ_DUMP"))
		fprintf(stderr, "fuzz_inventory: %s\n", path + strlen(root));
	orig = slurp(path, &orig_len);
	put(path, data + 2, size - 2);

	o.root = root;
	FUZZ_CHECK(ps_inventory_take(&inv, &o) == 0);
	report = json_object_new_object();
	ps_inventory_json(&inv, report);
	fuzz_dump(report);
	fuzz_check_strings(report);
	json_object_put(report);
	ps_inventory_free(&inv);

	put(path, orig, orig_len);
	free(orig);
	return 0;
}
