/* check.h - the few assertion macros the host unit tests share. */
#ifndef PS_CHECK_H
#define PS_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		check_count++;                                                                     \
		if (!(cond)) {                                                                     \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *check_a_ = (a), *check_b_ = (b);                                       \
		check_count++;                                                                     \
		if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                   \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,        \
				__LINE__, #a, check_a_ ? check_a_ : "(null)",                      \
				check_b_ ? check_b_ : "(null)");                                   \
		}                                                                                  \
	} while (0)

#define CHECK_INT(a, b)                                                                            \
	do {                                                                                       \
		long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
		check_count++;                                                                     \
		if (check_a_ != check_b_) {                                                        \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__,  \
				#a, check_a_, check_b_);                                           \
		}                                                                                  \
	} while (0)

/* Call last in main(): prints the tally, returns the exit code. */
static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
	return check_failures ? 1 : 0;
}

#endif
