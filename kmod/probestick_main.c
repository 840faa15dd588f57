// SPDX-License-Identifier: GPL-2.0
/*
 * Entry of probestick.ko: registers /dev/probestick and dispatches its
 * ioctls (kmod/uapi/probestick.h) to the PCIe probe and the capture windows.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "dmi_memory.h"
#include "imc.h"
#include "kcapture.h"
#include "pcie_link.h"
#include "uapi/probestick.h"

#define PROBESTICK_RELEASE "0.4.0"

static long probestick_ioc_version(void __user *argp)
{
	struct probestick_version ver;

	memset(&ver, 0, sizeof(ver));
	ver.abi = PROBESTICK_ABI_VERSION;
	ver.nr_pci = probestick_pci_count();
	strscpy(ver.release, PROBESTICK_RELEASE, sizeof(ver.release));
	if (copy_to_user(argp, &ver, sizeof(ver)))
		return -EFAULT;
	return 0;
}

static long probestick_ioc_pcie_links(void __user *argp)
{
	struct probestick_pcie_table __user *utable = argp;
	struct probestick_pcie_table table;
	u32 present;
	int ret;

	if (copy_from_user(&table, utable, sizeof(table)))
		return -EFAULT;
	if (table.entry_size != sizeof(struct probestick_pcie_link) &&
	    table.entry_size != PROBESTICK_PCIE_LINK_V3_SIZE)
		return -EINVAL;
	if (table.count > PROBESTICK_PCIE_LINKS_MAX)
		return -EINVAL;
	if (table.count && !table.links)
		return -EFAULT;

	ret = probestick_pcie_links_copy(u64_to_user_ptr(table.links),
					 table.entry_size, table.count, &present);
	if (ret)
		return ret;
	if (put_user(present, &utable->count))
		return -EFAULT;
	return 0;
}

static long probestick_ioc_dmi_memory(void __user *argp)
{
	struct probestick_dimm_table __user *utable = argp;
	struct probestick_dimm_table table;
	u32 present = 0;
	int ret;

	if (copy_from_user(&table, utable, sizeof(table)))
		return -EFAULT;
	if (table.entry_size != sizeof(struct probestick_dimm) ||
	    table.count > PROBESTICK_DIMMS_MAX)
		return -EINVAL;
	if (table.count && !table.dimms)
		return -EFAULT;
	ret = probestick_dmi_memory_copy(u64_to_user_ptr(table.dimms), table.count, &present);
	if (ret)
		return ret;
	if (put_user(present, &utable->count))
		return -EFAULT;
	return 0;
}

static long probestick_ioc_imc(void __user *argp)
{
	struct probestick_imc *imc = kzalloc(sizeof(*imc), GFP_KERNEL);
	long ret = 0;

	if (!imc)
		return -ENOMEM;
	probestick_imc_read(imc);
	if (copy_to_user(argp, imc, sizeof(*imc)))
		ret = -EFAULT;
	kfree(imc);
	return ret;
}

static long probestick_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	/* The registers and the device list describe the whole machine. */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case PROBESTICK_IOC_VERSION:
		return probestick_ioc_version(argp);
	case PROBESTICK_IOC_PCIE_LINKS:
		return probestick_ioc_pcie_links(argp);
	case PROBESTICK_IOC_DMI_MEMORY:
		return probestick_ioc_dmi_memory(argp);
	case PROBESTICK_IOC_IMC:
		return probestick_ioc_imc(argp);
	default:
		if (ps_kc_is_ioctl(cmd))
			return ps_kc_ioctl(file, cmd, argp);
		return -ENOTTY;
	}
}

/* A plan that exits or crashes leaves no tracepoint attached. */
static int probestick_release(struct inode *inode, struct file *file)
{
	ps_kc_release(file);
	return 0;
}

static const struct file_operations probestick_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = probestick_ioctl,
	.release = probestick_release,
	/* Every struct has the same layout on 32 and 64 bits (pointers are __u64). */
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice probestick_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "probestick",
	.mode = 0600,
	.fops = &probestick_fops,
};

static int __init probestick_init(void)
{
	int ret;

	ret = ps_kc_init();
	if (ret) {
		pr_err("probestick: cannot set up capture windows: %d\n", ret);
		return ret;
	}
	ret = misc_register(&probestick_miscdev);
	if (ret) {
		pr_err("probestick: cannot register /dev/probestick: %d\n", ret);
		ps_kc_exit();
		return ret;
	}
	pr_info("probestick: %s loaded, ABI %d\n", PROBESTICK_RELEASE,
		PROBESTICK_ABI_VERSION);
	return 0;
}

static void __exit probestick_exit(void)
{
	/* No ioctl can run any more; then detach the probes and free. */
	misc_deregister(&probestick_miscdev);
	ps_kc_exit();
}

module_init(probestick_init);
module_exit(probestick_exit);

MODULE_DESCRIPTION("probestick: PCIe links, memory devices and controllers, interrupt-path and error probes for hardware triage");
MODULE_AUTHOR("probestick developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(PROBESTICK_RELEASE);
