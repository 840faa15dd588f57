/* Host shim of <linux/slab.h>. */
#include <stdlib.h>
#define GFP_KERNEL 0
#define kmalloc(n, gfp)	   malloc(n)
#define kcalloc(n, s, gfp) calloc((n), (s))
#define kfree(p)	   free((void *)(p))
