#!/bin/sh
# The memory of a boot, for tests/boot/minram.sh profile: started as rdinit
# (`rdinit=/sbin/memprofile`), it leaves probestick's /init to run as always
# and, once /init has mounted /proc and /dev, writes to the second serial
# port (ttyS1) every 0.25 s a line "M <uptime> <step> MemAvailable=... |
# <pid>:<comm> rss=... hwm=... pin=..." and, between them, the kernel log.
sample() {
	while [ ! -r /proc/meminfo ] || [ ! -c /dev/ttyS1 ]; do
		sleep 0.1
	done
	exec >/dev/ttyS1 2>&1
	cat /dev/kmsg &
	while :; do
		read -r up _ </proc/uptime
		step=$(grep -o '\[[0-9]*/[0-9]*\] [a-z_]*' /run/probestick/init-out 2>/dev/null | tail -n 1)
		line="M $up ${step#* }"
		while read -r k v _; do
			case $k in
			MemFree: | MemAvailable: | Cached: | Shmem: | AnonPages: | Mlocked: | Slab: | SUnreclaim: | PageTables: | VmallocUsed:)
				line="$line ${k%:}=$v" ;;
			esac
		done </proc/meminfo
		for p in $(pidof probestick smartctl mdadm nbd-server fsck.fat stress-ng); do
			rss= hwm= pin=
			while read -r k v _; do
				case $k in VmRSS:) rss=$v ;; VmHWM:) hwm=$v ;; VmPin:) pin=$v ;; esac
			done </proc/"$p"/status 2>/dev/null
			line="$line | $p:$(cat /proc/"$p"/comm 2>/dev/null) rss=$rss hwm=$hwm pin=$pin"
		done
		echo "$line"
		sleep 0.25
	done
}
sample &
exec /init "$@"
