#!/bin/sh
# rdinit of tests/known/tracepoint-toggle: switches tracepoints on and off in
# a tight loop (tracefs, or probestick.ko capture windows) and prints
# KT_* markers on the console. Kernel command line:
#   kt.seconds=S    toggle for S seconds of guest time (default 90)
#   kt.mode=tracefs     events through tracefs, probestick.ko not loaded
#           tracefs-ko  the same with probestick.ko loaded (no window open)
#           module      probestick.ko capture windows (all probes) instead
#   kt.load=idle|busy  the other CPU idles, or runs a shell loop
#   kt.mode=syms kt.windows=HEX,...  no toggling: print the kernel symbols
#           whose address starts with one of the HEX prefixes (KT_KSYM lines)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null

finish() {
	echo "KT_TAINT $(cat /proc/sys/kernel/tainted)"
	echo "KT_END"
	sync
	poweroff -f
	while :; do sleep 60; done
}

seconds=90 mode=tracefs load=idle
for w in $(cat /proc/cmdline); do
	case $w in
	kt.seconds=*) seconds=${w#*=} ;;
	kt.mode=*) mode=${w#*=} ;;
	kt.load=*) load=${w#*=} ;;
	esac
done
# Every kernel message reaches the console, sysrq works from the monitor.
echo 8 >/proc/sys/kernel/printk
echo 1 >/proc/sys/kernel/sysrq
if [ "$mode" = syms ]; then
	for w in $(cat /proc/cmdline); do
		case $w in kt.windows=*) windows=$(echo "${w#*=}" | tr , ' ') ;; esac
	done
	for p in $windows; do
		grep "^$p" /proc/kallsyms | sed 's/^/KT_KSYM /'
	done
	finish
fi
echo "KT_START seconds $seconds mode $mode load $load cpus $(grep -c ^processor /proc/cpuinfo)"

ev=/sys/kernel/tracing/events
case $mode in
tracefs | tracefs-ko)
	for e in irq/enable irq_vectors/enable block/block_rq_issue/enable \
		block/block_rq_complete/enable napi/enable net/netif_receive_skb/enable; do
		[ -w "$ev/$e" ] || { echo "KT_FAIL no $ev/$e"; finish; }
	done
	;;
esac
case $mode in
tracefs-ko | module)
	modprobe probestick || { echo "KT_FAIL modprobe probestick"; finish; }
	;;
esac
case $mode in
module) [ -x /kt/kc-toggle ] || { echo "KT_FAIL no /kt/kc-toggle"; finish; } ;;
tracefs | tracefs-ko) ;;
*)
	echo "KT_FAIL unknown kt.mode=$mode"
	finish
	;;
esac
if [ "$load" = busy ]; then
	(while :; do :; done) &
fi

read -r start _ </proc/uptime
until=$((${start%.*} + seconds))
i=0
while :; do
	read -r now _ </proc/uptime
	[ "${now%.*}" -lt $until ] || break
	case $mode in
	tracefs | tracefs-ko)
		echo 1 >$ev/irq/enable
		echo 1 >$ev/block/block_rq_issue/enable
		echo 1 >$ev/block/block_rq_complete/enable
		echo 1 >$ev/napi/enable
		echo 0 >$ev/irq/enable
		echo 0 >$ev/block/block_rq_issue/enable
		echo 0 >$ev/block/block_rq_complete/enable
		echo 0 >$ev/napi/enable
		;;
	esac
	case $mode in
	module) /kt/kc-toggle 5 || { echo "KT_FAIL kc-toggle after $i"; finish; } ;;
	esac
	# A toggle: every event group (tracefs) or one capture window (module)
	# switched on and off once.
	case $mode in
	module) i=$((i + 5)) ;;
	*) i=$((i + 1)) ;;
	esac
	[ $((i % 20)) -eq 0 ] && echo "KT_PROGRESS $i"
done
echo "KT_DONE $i $(awk -v a="$start" -v b="$now" 'BEGIN { printf "%.1f", b - a }')"
finish
