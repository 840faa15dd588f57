/* Host shim of <linux/module.h>. */
#define module_param(name, type, perm)
#define MODULE_PARM_DESC(name, text)
