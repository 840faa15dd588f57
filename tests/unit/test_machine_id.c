/* test_machine_id.c - the machine-id rule and the DMI placeholder filter. */
#include "check.h"
#include "decode/decode.h"

#include <errno.h>

static void test_meaningful(void)
{
	static const char *const placeholders[] = {
	    "To be filled by O.E.M.",
	    "To Be Filled By O.E.M.",
	    "Default string",
	    "Not Specified",
	    "System Serial Number",
	    "0",
	    "00000000",
	    "FFFFFFFF",
	    "  ",
	    "",
	    "0123456789",
	    "None",
	    "xxxxxxxx",
	    " Not Specified ",
	};

	for (size_t i = 0; i < sizeof(placeholders) / sizeof(placeholders[0]); i++)
		CHECK(!ps_dmi_meaningful(placeholders[i]));
	CHECK(!ps_dmi_meaningful(NULL));
	CHECK(ps_dmi_meaningful("PF2MZ4QX"));
	CHECK(ps_dmi_meaningful("CZC1234XYZ"));
	CHECK(ps_dmi_meaningful("10"));
}

static void test_uuid(void)
{
	CHECK(ps_dmi_uuid_meaningful("4c4c4544-0042-3510-8052-b4c04f4b4d32"));
	CHECK(ps_dmi_uuid_meaningful("4C4C4544-0042-3510-8052-B4C04F4B4D32"));
	CHECK(!ps_dmi_uuid_meaningful("00000000-0000-0000-0000-000000000000"));
	CHECK(!ps_dmi_uuid_meaningful("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"));
	CHECK(!ps_dmi_uuid_meaningful("03000200-0400-0500-0006-000700080009"));
	CHECK(!ps_dmi_uuid_meaningful("not-a-uuid"));
	CHECK(!ps_dmi_uuid_meaningful("4c4c4544-0042-3510-8052"));
	CHECK(!ps_dmi_uuid_meaningful(""));
	CHECK(!ps_dmi_uuid_meaningful(NULL));
}

static void test_rule(void)
{
	static const struct {
		const char *uuid, *serial, *mac, *id;
		int ret;
	} t[] = {
	    {"4C4C4544-0042-3510-8052-B4C04F4B4D32", "PF2MZ4QX", "68:05:ca:12:34:56",
	     "4c4c4544-0042-3510-8052-b4c04f4b4d32", 0},
	    {"00000000-0000-0000-0000-000000000000", "PF2MZ4QX", "68:05:ca:12:34:56", "PF2MZ4QX",
	     0},
	    {"03000200-0400-0500-0006-000700080009", "Default string", "68:05:CA:12:34:56",
	     "6805ca123456", 0},
	    {NULL, "To be filled by O.E.M.", "00:e0:4c:81:39:01", "00e04c813901", 0},
	    {NULL, "SN 1234/56", NULL, "SN_1234_56", 0},
	    {NULL, "../../etc", NULL, "_._.._etc", 0},
	    {NULL, ".hidden", NULL, "_hidden", 0},
	    {NULL, NULL, "00:00:00:00:00:00", "unknown", -ENODATA},
	    {NULL, NULL, NULL, "unknown", -ENODATA},
	    {"", "", "", "unknown", -ENODATA},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char id[64];

		CHECK_INT(ps_machine_id_rule(t[i].uuid, t[i].serial, t[i].mac, id, sizeof(id)),
			  t[i].ret);
		CHECK_STR(id, t[i].id);
	}
}

int main(void)
{
	test_meaningful();
	test_uuid();
	test_rule();
	return check_done("test_machine_id");
}
