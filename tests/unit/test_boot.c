/*
 * test_boot.c - the boot section over small sysfs trees: legacy BIOS, where
 * no SecureBoot variable exists and secure_boot is unknown (null in the
 * report, as docs/report.md says), UEFI with Secure Boot on and off, and a
 * tree without /sys/firmware at all.
 */
#include "check.h"
#include "hw/boot.h"
#include "hw/inventory.h"
#include "lib/json.h"
#include "tree.h"

#include <json-c/json.h>

/* efivarfs: 4 bytes of attributes, then the value. */
static void efivar(const char *root, const char *name, int value)
{
	char path[256];
	const unsigned char data[5] = {0x06, 0, 0, 0, (unsigned char)value};

	snprintf(path, sizeof(path), "/sys/firmware/efi/efivars/%s-%s", name, PS_EFI_GLOBAL_GUID);
	tree_write(root, path, data, sizeof(data));
}

/* report.boot.secure_boot: 1 true, 0 false, -1 null, -2 missing. */
static int secure_boot_json(const struct ps_boot *b)
{
	json_object *r = json_object_new_object(), *boot, *v;
	int ret = -2;

	ps_boot_json(b, r);
	boot = ps_json_get(r, "boot");
	if (boot && json_object_object_get_ex(boot, "secure_boot", &v))
		ret = v ? json_object_get_boolean(v) : -1;
	json_object_put(r);
	return ret;
}

static void test_bios_secure_boot_null(void)
{
	char *root = tree_new("ps-boot-bios");
	struct ps_boot b;

	tree_write(root, "/sys/firmware/acpi/tables/DSDT", "x", 0);
	CHECK_INT(ps_boot_read(root, &b), 0);
	CHECK_STR(b.firmware, "bios");
	CHECK_INT(b.secure_boot, PS_TRI_UNKNOWN);
	CHECK_INT(secure_boot_json(&b), -1);
	tree_done(root);
}

static void test_uefi_secure_boot_read(void)
{
	char *root = tree_new("ps-boot-uefi");
	struct ps_boot b;

	efivar(root, "SecureBoot", 1);
	efivar(root, "SetupMode", 0);
	CHECK_INT(ps_boot_read(root, &b), 0);
	CHECK_STR(b.firmware, "uefi");
	CHECK_INT(b.secure_boot, 1);
	CHECK_INT(b.setup_mode, 0);
	CHECK_INT(secure_boot_json(&b), 1);
	efivar(root, "SecureBoot", 0);
	CHECK_INT(ps_boot_read(root, &b), 0);
	CHECK_INT(secure_boot_json(&b), 0);
	tree_done(root);
}

/* UEFI whose efivarfs is not mounted: the variable cannot be read, so unknown. */
static void test_uefi_unreadable_null(void)
{
	char *root = tree_new("ps-boot-noefivars");
	struct ps_boot b;

	tree_write(root, "/sys/firmware/efi/systab", "ACPI20=0x7ffe0014\n", 0);
	CHECK_INT(ps_boot_read(root, &b), 0);
	CHECK_STR(b.firmware, "uefi");
	CHECK_INT(secure_boot_json(&b), -1);
	tree_done(root);
}

static void test_no_firmware_dir(void)
{
	char *root = tree_new("ps-boot-empty");
	struct ps_boot b;

	CHECK_INT(ps_boot_read(root, &b), 0);
	CHECK_STR(b.firmware, "");
	CHECK_INT(secure_boot_json(&b), -1);
	tree_done(root);
}

int main(void)
{
	test_bios_secure_boot_null();
	test_uefi_secure_boot_read();
	test_uefi_unreadable_null();
	test_no_firmware_dir();
	return check_done("test_boot");
}
