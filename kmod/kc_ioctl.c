// SPDX-License-Identifier: GPL-2.0
/*
 * The capture ioctls of /dev/probestick (PROBESTICK_IOC_KC_* in
 * uapi/probestick.h): checks what user space passes, keeps the attachment
 * and its windows with the file that made them (kc_window.c decides), and
 * has the core attach, record and copy out.
 */
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "kc_window.h"
#include "kcapture.h"

static DEFINE_MUTEX(ps_kc_lock);
static struct ps_window ps_win;

/* Ends the attachment of owner, if it has one: its window stops, the probes detach. */
static void ps_kc_close(const void *owner)
{
	if (ps_window_release(&ps_win, owner, ktime_get_ns()))
		ps_core_detach();
}

static int ps_kc_attach(struct file *file, struct probestick_kc_attach __user *uarg)
{
	struct probestick_kc_attach arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	ret = ps_window_check_attach(&ps_win, file, arg.mask, arg.flags, arg.reserved,
				     ps_reg.valid);
	if (ret)
		return ret;
	arg.attached = ps_core_attach(arg.mask);
	ps_window_attached(&ps_win, file, arg.mask, arg.attached, false);
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		/* The caller cannot learn what it got: nothing happened. */
		ps_kc_close(file);
		return -EFAULT;
	}
	return 0;
}

static int ps_kc_detach(struct file *file)
{
	int ret = ps_window_check_detach(&ps_win, file);

	if (ret)
		return ret;
	ps_kc_close(file);
	return 0;
}

static int ps_kc_start(struct file *file, struct probestick_kc_start __user *uarg)
{
	struct probestick_kc_start arg;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	ret = ps_window_check_start(&ps_win, file, arg.mask, arg.flags, arg.reserved,
				    ps_reg.valid);
	if (ret)
		return ret;
	if (ps_window_needs_attach(&ps_win, file))
		ps_window_attached(&ps_win, file, arg.mask, ps_core_attach(arg.mask), true);
	arg.attached = ps_window_started(&ps_win, arg.mask, ktime_get_ns());
	ps_core_begin(arg.attached);
	if (copy_to_user(uarg, &arg, sizeof(arg))) {
		ps_core_end();
		if (ps_window_stop(&ps_win, ktime_get_ns()))
			ps_core_detach();
		return -EFAULT;
	}
	return 0;
}

static int ps_kc_stop(struct file *file)
{
	int ret = ps_window_check_stop(&ps_win, file);

	if (ret)
		return ret;
	ps_core_end();
	if (ps_window_stop(&ps_win, ktime_get_ns()))
		ps_core_detach();
	return 0;
}

static int ps_kc_snapshot(struct probestick_kc_snapshot __user *uarg)
{
	struct probestick_kc_snapshot arg;
	u32 present;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.version != PROBESTICK_KC_RECORD_VERSION ||
	    arg.record_size != sizeof(struct probestick_kc_record) ||
	    arg.count > PROBESTICK_KC_RECORDS_MAX)
		return -EINVAL;
	if (arg.count && !arg.records)
		return -EFAULT;
	ret = ps_window_check_snapshot(&ps_win);
	if (ret)
		return ret;
	ret = ps_core_snapshot(u64_to_user_ptr(arg.records), arg.count, ps_win.attached,
			       &present);
	if (ret)
		return ret;
	arg.count = present;
	arg.state = ps_win.state;
	arg.window_ns = ps_window_elapsed(&ps_win, ktime_get_ns());
	arg.mask = ps_win.mask;
	arg.attached = ps_win.attached;
	arg.nr_cpus = nr_cpu_ids;
	arg.patched = ps_core_patched();
	ps_core_drops(&arg.drops);
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return 0;
}

static int ps_kc_probes(struct probestick_kc_probes __user *uarg)
{
	struct probestick_kc_probes arg;
	u32 count;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.entry_size != sizeof(struct probestick_kc_probe) ||
	    arg.count > PROBESTICK_KC_RECORDS_MAX)
		return -EINVAL;
	if (arg.count && !arg.probes)
		return -EFAULT;
	ret = ps_core_probes(u64_to_user_ptr(arg.probes), arg.count, &count);
	if (ret)
		return ret;
	if (put_user(count, &uarg->count))
		return -EFAULT;
	return 0;
}

bool ps_kc_is_ioctl(unsigned int cmd)
{
	switch (cmd) {
	case PROBESTICK_IOC_KC_PROBES:
	case PROBESTICK_IOC_KC_START:
	case PROBESTICK_IOC_KC_STOP:
	case PROBESTICK_IOC_KC_SNAPSHOT:
	case PROBESTICK_IOC_KC_ATTACH:
	case PROBESTICK_IOC_KC_DETACH:
		return true;
	default:
		return false;
	}
}

long ps_kc_ioctl(struct file *file, unsigned int cmd, void __user *argp)
{
	long ret;

	mutex_lock(&ps_kc_lock);
	switch (cmd) {
	case PROBESTICK_IOC_KC_PROBES:
		ret = ps_kc_probes(argp);
		break;
	case PROBESTICK_IOC_KC_ATTACH:
		ret = ps_kc_attach(file, argp);
		break;
	case PROBESTICK_IOC_KC_DETACH:
		ret = ps_kc_detach(file);
		break;
	case PROBESTICK_IOC_KC_START:
		ret = ps_kc_start(file, argp);
		break;
	case PROBESTICK_IOC_KC_STOP:
		ret = ps_kc_stop(file);
		break;
	case PROBESTICK_IOC_KC_SNAPSHOT:
		ret = ps_kc_snapshot(argp);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&ps_kc_lock);
	return ret;
}

/* The file that attached is closed (or its program died): nothing stays attached. */
void ps_kc_release(struct file *file)
{
	mutex_lock(&ps_kc_lock);
	ps_kc_close(file);
	mutex_unlock(&ps_kc_lock);
}

int ps_kc_init(void)
{
	return ps_core_init();
}

void ps_kc_exit(void)
{
	mutex_lock(&ps_kc_lock);
	/* No file can be open at unload; whatever is attached goes anyway. */
	if (ps_win.owner)
		ps_kc_close(ps_win.owner);
	ps_core_exit();
	mutex_unlock(&ps_kc_lock);
}
