#!/bin/sh
# rdinit of tests/boot/test_ioctl_fuzz: loads probestick.ko, runs kc-fuzz
# against /dev/probestick while a disk is read, and reports what the kernel
# said and how its kmalloc caches moved; prints PS_* markers on the console.
# Kernel command line: ps.seconds=N ps.seed=N
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp

finish() {
	kill $LOAD_PIDS 2>/dev/null
	echo "PS_TAINT_AFTER $(cat /proc/sys/kernel/tainted)"
	echo "PS_DMESG_BEGIN"
	dmesg -r
	echo "PS_DMESG_END"
	sync
	poweroff -f
}

seconds=30 seed=1
for w in $(cat /proc/cmdline); do
	case $w in
	ps.seconds=*) seconds=${w#ps.seconds=} ;;
	ps.seed=*) seed=${w#ps.seed=} ;;
	esac
done
echo "PS_TAINT_BEFORE $(cat /proc/sys/kernel/tainted)"

# Active objects of every kmalloc cache, "name count" per line.
kmalloc_objs() {
	awk '$1 ~ /^kmalloc-/ { print $1, $2 }' /proc/slabinfo | sort
}
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 2
}

# Something for the windows to record: the virtio disk, read in a loop.
LOAD_PIDS=""
if modprobe virtio_pci && modprobe virtio_blk; then
	for t in 1 2 3 4 5 6 7 8 9 10; do
		[ -b /dev/vda ] && break
		sleep 1
	done
fi
if [ -b /dev/vda ]; then
	(while :; do dd if=/dev/vda of=/dev/null bs=64k count=64 iflag=direct 2>/dev/null; done) &
	LOAD_PIDS=$!
else
	echo "PS_NOTE no virtio disk: the windows record interrupts of the idle guest only"
fi

settle
kmalloc_objs >/tmp/slab.unloaded
modprobe probestick || { echo "PS_FAIL modprobe probestick"; finish; }
settle
kmalloc_objs >/tmp/slab.before
start=$(cut -d' ' -f1 /proc/uptime)
/ps/kc-fuzz "$seconds" "$seed"
echo "PS_FUZZ_RC $?"
end=$(cut -d' ' -f1 /proc/uptime)
echo "PS_FUZZ_SECONDS $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
kill $LOAD_PIDS 2>/dev/null
LOAD_PIDS=""
settle
kmalloc_objs >/tmp/slab.after
# Every cache that grew, and the sum over all of them: TAG BEFORE AFTER.
grew() {
	awk -v tag="$1" 'NR == FNR { before[$1] = $2; next }
	{ b += before[$1]; a += $2; if ($2 > before[$1]) print "PS_SLAB_" tag "GREW", $1, before[$1] + 0, $2 }
	END { print "PS_SLAB_" tag "TOTAL", b, a }' "$2" "$3"
}
grew "" /tmp/slab.before /tmp/slab.after
rmmod probestick || echo "PS_FAIL rmmod probestick"
# What the module left behind when it was unloaded: against before it was loaded.
settle
kmalloc_objs >/tmp/slab.gone
grew UNLOAD_ /tmp/slab.unloaded /tmp/slab.gone
finish
