#!/bin/sh
# rdinit of tests/boot/test_platform: loads the drivers, prints what lspci
# -vv and dmidecode -t 17 say on the console (one prefixed line each, for
# tests/boot/check_platform.py to hold the report against), shortens the
# machine-check polling interval so that an injected corrected MCE is seen
# within a second, then hands over to the image's /init, which runs the plan
# from the stick as on any boot.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

mount -t proc proc /proc
mount -t sysfs sys /sys
# no devtmpfs: /init mounts it, and ours would stay busy under the console
mount -t tmpfs run /run
mkdir -p /run/probestick
probestick coldplug --settle 10 >/dev/null 2>&1

# The kernel's own lines would cut into ours on the console.
read -r printk </proc/sys/kernel/printk
echo 1 >/proc/sys/kernel/printk
dump() { # TAG COMMAND...: every line of the command's output as "TAG|line"
	tag=$1
	shift
	echo "PS_BEGIN $tag"
	LD_LIBRARY_PATH=/ps/lib "$@" 2>&1 | while IFS= read -r line; do
		echo "$tag|$line"
	done
	echo "PS_END $tag"
}
dump LSPCI /ps/bin/lspci -vv -nn -D -i /usr/share/misc/pci.ids.gz
dump DMI /ps/bin/dmidecode -t 17
echo "${printk%% *}" >/proc/sys/kernel/printk

# MCE: the kernel polls the banks every 5 min (300 s) by default; the test
# injects a corrected error while a step runs and wants to see it in it.
for m in /sys/devices/system/machinecheck/machinecheck*/check_interval; do
	echo 1 >"$m" 2>/dev/null && break
done
echo "PS_MCE_INTERVAL $(cat /sys/devices/system/machinecheck/machinecheck0/check_interval 2>/dev/null)"

umount /run

umount /sys
umount /proc
exec /init
