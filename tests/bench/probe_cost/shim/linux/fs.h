/* Host shim of <linux/fs.h>. */
struct file;
