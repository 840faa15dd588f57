/*
 * test_sysfs_num.c - a sysfs attribute's text as a number (ps_parse_u64,
 * ps_parse_s64, what ps_read_u64/_s64 use): trailing white space, hex for
 * the unsigned one, "-1" for the signed one, empty, junk, out of range,
 * a NUL inside, and the file readers over the same texts.
 */
#include "check.h"
#include "tree.h"

#include "lib/util.h"

#include <errno.h>
#include <limits.h>

int main(void)
{
	char *root = tree_new("test_sysfs_num"), path[PATH_MAX];
	uint64_t u = 7;
	int64_t s = 7;

	CHECK_INT(ps_parse_u64("42\n", &u), 0);
	CHECK_INT(u, 42);
	CHECK_INT(ps_parse_u64("0x1f \t\n", &u), 0);
	CHECK_INT(u, 31);
	CHECK_INT(ps_parse_u64("18446744073709551615", &u), 0);
	CHECK(u == UINT64_MAX);
	u = 7;
	CHECK_INT(ps_parse_u64("18446744073709551616", &u), -EINVAL);
	CHECK_INT(ps_parse_u64("12 apples", &u), -EINVAL);
	CHECK_INT(ps_parse_u64("", &u), -ENODATA);
	CHECK_INT(ps_parse_u64(" \n", &u), -ENODATA);
	CHECK_INT(u, 7);
	CHECK_INT(ps_parse_s64("-1\n", &s), 0);
	CHECK_INT(s, -1);
	CHECK_INT(ps_parse_s64("-9223372036854775808", &s), 0);
	CHECK(s == INT64_MIN);
	CHECK_INT(ps_parse_s64("9223372036854775808", &s), -EINVAL);
	CHECK_INT(ps_parse_s64("0x10", &s), -EINVAL); /* decimal only */
	/* only the first 63 bytes count, as ps_read_str reads them */
	CHECK_INT(ps_parse_u64("000000000000000000000000000000000000000000000000000000000000001"
			       "2",
			       &u),
		  0);
	CHECK_INT(u, 1);

	/* the file readers: the same answers, a NUL ends the text */
	tree_write(root, "/a", "  27\n", 0);
	tree_write(root, "/b", "5\0junk", 6);
	tree_write(root, "/c", "\n", 0);
	CHECK_INT(ps_read_u64(ps_path(path, sizeof(path), root, "/a"), &u), 0);
	CHECK_INT(u, 27);
	CHECK_INT(ps_read_s64(ps_path(path, sizeof(path), root, "/b"), &s), 0);
	CHECK_INT(s, 5);
	CHECK_INT(ps_read_u64(ps_path(path, sizeof(path), root, "/c"), &u), -ENODATA);
	CHECK_INT(ps_read_u64(ps_path(path, sizeof(path), root, "/none"), &u), -ENOENT);
	tree_done(root);
	return check_done("test_sysfs_num");
}
