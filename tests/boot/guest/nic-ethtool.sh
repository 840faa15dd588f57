#!/bin/sh
# rdinit of tests/boot/test_nic_ethtool: Debian's ethtool(8) and probestick
# on the same two e1000e ports of one guest. ethtool speaks first (the
# ports' settings as they are), then probestick runs nic_selftest and
# nic_link (the full plan's self-test, every port's link and settings),
# then ethtool speaks again: its own offline self-test, and the settings
# after probestick's (which must be as before). Everything goes to the
# serial console between PS_* markers; tests/boot/check_nic_ethtool.py
# compares. Kernel command line: ps.ports=eth0,eth1
export PATH=/ps:/usr/sbin:/usr/bin:/sbin:/bin
export LD_LIBRARY_PATH=/ps/lib

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp

ports=eth0,eth1
for w in $(cat /proc/cmdline); do
	case $w in
	ps.ports=*) ports=${w#ps.ports=} ;;
	esac
done
ports=$(echo "$ports" | tr , ' ')

settings() { # TAG: what ethtool says of every port's settings
	for p in $ports; do
		for opt in "" -i -P -k -c -g -l -a; do
			echo "== $1 ethtool $opt $p"
			ethtool $opt "$p" 2>&1
		done
	done
}

probestick coldplug --settle 5 >/dev/null 2>&1
for p in $ports; do ip link set "$p" up; done
# autonegotiation on the QEMU hub: up to a few seconds
for _ in 1 2 3 4 5 6 7 8 9 10; do
	n=0
	for p in $ports; do [ "$(cat /sys/class/net/$p/carrier 2>/dev/null)" = 1 ] && n=$((n + 1)); done
	[ "$n" -eq "$(echo $ports | wc -w)" ] && break
	sleep 1
done

echo "PS_ETHTOOL_BEGIN before"
settings before
echo "PS_ETHTOOL_END before"

probestick run --plan full --steps nic_selftest,nic_link --out /tmp/r >/tmp/run.log 2>&1
echo "PS_RUN_RC $?"
r=$(find /tmp/r -name report.json | head -n 1)
echo "PS_REPORT_BEGIN"
cat "$r"
echo
echo "PS_REPORT_END"

echo "PS_ETHTOOL_BEGIN after"
settings after
for p in $ports; do
	echo "== after ethtool -t $p"
	ethtool -t "$p" offline 2>&1
done
echo "PS_ETHTOOL_END after"
sync
poweroff -f
