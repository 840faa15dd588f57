/* Host shim of <linux/string.h>. */
#ifndef PS_SHIM_LINUX_STRING_H
#define PS_SHIM_LINUX_STRING_H
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	snprintf(dst, size, "%s", src);
	return n < size ? (ssize_t)n : -7;
}
#endif
