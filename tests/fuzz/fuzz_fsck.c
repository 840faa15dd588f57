/*
 * fuzz_fsck.c - fsck.fat's output about the stick, through the boot check's
 * decoder (boot/stick_check.c ps_fsck_decode): a damaged FAT puts any bytes
 * in the file names it prints. The record must stay a valid report object.
 */
// fuzz-sources: boot/stick_check.c lib/store.c lib/json.c lib/util.c
#include "fuzz.h"

#include "boot/stick_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	json_object *d = ps_fsck_decode(text);

	FUZZ_CHECK(d && json_object_is_type(d, json_type_object));
	fuzz_check_strings(d);
	json_object_put(d);
	free(text);
	return 0;
}
