#!/bin/sh
# rdinit of tests/boot/test_module_cycle: loads and unloads probestick.ko N
# times, a capture window running each time whose program is killed or exits
# without stopping it, while the test disks are read and the two NICs ping
# each other; prints PS_* markers on the console.
# Kernel command line: ps.cycles=N ps.disks=SERIAL,... ps.macs=MAC,...
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# iproute2's ip from the host (busybox ip has no netns), with its libraries.
IP="env LD_LIBRARY_PATH=/ps/lib /ps/ip"

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp

fail() {
	echo "PS_FAIL $*"
	finish
}
finish() {
	kill $LOAD_PIDS 2>/dev/null
	echo "PS_TAINT_AFTER $(cat /proc/sys/kernel/tainted)"
	echo "PS_DMESG_BEGIN"
	dmesg -r
	echo "PS_DMESG_END"
	sync
	poweroff -f
}

cycles=50 disks="" macs=""
for w in $(cat /proc/cmdline); do
	case $w in
	ps.cycles=*) cycles=${w#ps.cycles=} ;;
	ps.disks=*) disks=$(echo "${w#ps.disks=}" | tr , ' ') ;;
	ps.macs=*) macs=$(echo "${w#ps.macs=}" | tr , ' ') ;;
	esac
done
echo "PS_TAINT_BEFORE $(cat /proc/sys/kernel/tainted)"

# Only the drivers of the test disks and NICs: the boot stick (USB) stays
# invisible, so it cannot be read by mistake.
for m in virtio_pci virtio_blk nvme ahci sd_mod e1000e; do
	modprobe "$m" || fail "modprobe $m"
done

# A disk by its serial: virtio and NVMe expose it in sysfs, ATA in VPD 0x80.
disk_of() {
	for b in /sys/block/*; do
		for f in "$b/serial" "$b/device/serial" "$b/device/vpd_pg80"; do
			[ -r "$f" ] && grep -aq -- "$1" "$f" && {
				basename "$b"
				return 0
			}
		done
	done
	return 1
}
nic_of() {
	for n in /sys/class/net/*; do
		[ "$(cat "$n/address")" = "$1" ] && {
			basename "$n"
			return 0
		}
	done
	return 1
}

devs="" nics=""
for t in $(seq 1 20); do
	devs="" nics="" missing=""
	for s in $disks; do
		d=$(disk_of "$s") && devs="$devs $d" || missing="$missing $s"
	done
	for m in $macs; do
		n=$(nic_of "$m") && nics="$nics $n" || missing="$missing $m"
	done
	[ -z "$missing" ] && break
	sleep 1
done
[ -n "$missing" ] && fail "not found after 20 s:$missing"
set -- $nics
[ $# -eq 2 ] || fail "expected two NICs, got: $nics"
echo "PS_DEVICES disks$devs nics $nics"

# One NIC per namespace, so the pings cross the QEMU hub.
$IP netns add a && $IP netns add b || fail "ip netns add"
$IP link set "$1" netns a && $IP link set "$2" netns b || fail "ip link set netns"
$IP -n a addr add 10.77.0.1/24 dev "$1" && $IP -n a link set "$1" up || fail "set up $1"
$IP -n b addr add 10.77.0.2/24 dev "$2" && $IP -n b link set "$2" up || fail "set up $2"
for t in $(seq 1 15); do
	$IP netns exec a ping -c 1 -W 1 10.77.0.2 >/dev/null 2>&1 && break
	[ "$t" = 15 ] && fail "no ping between the NICs after 15 s"
done

# The interrupt lines of the disks and NICs: their counts before and after
# show that they were busy through every cycle.
irq_sum() {
	awk -v pat="$1" '$1 ~ /^[0-9]+:$/ && $0 ~ pat {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}
irq0_disk=$(irq_sum "virtio|nvme|ahci") irq0_nic=$(irq_sum "$1|$2")

LOAD_PIDS=""
for d in $devs; do
	(while :; do dd if=/dev/$d of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null ||
		{ echo "PS_DD_FAIL $d"; sleep 1; }; done) &
	LOAD_PIDS="$LOAD_PIDS $!"
done
$IP netns exec a ping -q -i 0.01 -s 1000 10.77.0.2 >/dev/null 2>&1 &
LOAD_PIDS="$LOAD_PIDS $!"
$IP netns exec b ping -q -i 0.01 -s 1000 10.77.0.1 >/dev/null 2>&1 &
LOAD_PIDS="$LOAD_PIDS $!"
sleep 1

start=$(cut -d' ' -f1 /proc/uptime)
done_n=0
for i in $(seq 1 "$cycles"); do
	modprobe probestick || { echo "PS_CYCLE_FAIL $i modprobe"; break; }
	if [ $((i % 2)) = 1 ]; then
		# A program holds the probes with a window running, and is killed.
		# Its words come through a FIFO: the read returns when it holds (or died).
		rm -f /tmp/hold.fifo
		mkfifo /tmp/hold.fifo
		/ps/kc-window hold >/tmp/hold.fifo 2>&1 &
		holder=$!
		held=0
		while read -r line; do
			echo "$line"
			[ "$line" = "kc-window: holding" ] && { held=1; break; }
		done </tmp/hold.fifo
		[ $held = 1 ] || { echo "PS_CYCLE_FAIL $i hold"; break; }
		sleep 0.2
		/ps/kc-window snapshot || { echo "PS_CYCLE_FAIL $i snapshot"; break; }
		# The open file pins the module: no unload under a running window.
		rmmod probestick 2>/dev/null && { echo "PS_CYCLE_FAIL $i unloaded while held"; break; }
		kill -9 "$holder"
		wait "$holder" 2>/dev/null
		echo "PS_HOLDER_KILLED $i"
	else
		# A window with its own attachment, its program exits without stopping it.
		/ps/kc-window start || { echo "PS_CYCLE_FAIL $i start"; break; }
	fi
	# Either way the file's release closed the window and detached the probes.
	/ps/kc-window gone || { echo "PS_CYCLE_FAIL $i window outlived its file"; break; }
	rmmod probestick || { echo "PS_CYCLE_FAIL $i rmmod"; break; }
	grep -q '^probestick ' /proc/modules && { echo "PS_CYCLE_FAIL $i still loaded"; break; }
	done_n=$i
	echo "PS_CYCLE $i ok"
done
end=$(cut -d' ' -f1 /proc/uptime)
echo "PS_BUSY disk_irqs $(($(irq_sum "virtio|nvme|ahci") - irq0_disk)) nic_irqs $(($(irq_sum "$1|$2") - irq0_nic))"
echo "PS_SUMMARY cycles $done_n/$cycles seconds $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
# One window of the busy machine, recorded for the unit tests' fixtures
# (tests/fixtures/kcapture/): disks and NICs are still loaded.
# Three more readers per disk with 1 MiB requests queue several at once,
# which is when QEMU's AHCI and NVMe raise interrupts with no work in them
# (IRQ_NONE on their shared-flagged vectors).
if modprobe probestick; then
	more=""
	for d in $devs; do
		for k in 1 2 3; do
			(while :; do dd if=/dev/$d of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null; done) &
			more="$more $!"
		done
	done
	echo "PS_RECORDING_BEGIN"
	/ps/kc-window dump 3
	echo "PS_RECORDING_END"
	kill $more 2>/dev/null
	rmmod probestick
fi
finish
