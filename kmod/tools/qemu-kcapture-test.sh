#!/usr/bin/env bash
# Capture windows of probestick.ko on the shipped kernel in QEMU (TCG):
# reads on virtio, NVMe and AHCI disks and ping traffic between two
# e1000e NICs (each in its own network namespace) on a QEMU hub, checked
# against /proc/interrupts; then 50 load/unload cycles under load.
# Usage: kmod/tools/qemu-kcapture-test.sh [KVER]   (needs make -C kmod first)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kmod=$(cd "$here/.." && pwd)
repo=$(cd "$kmod/.." && pwd)
kver=${1:-$("$repo/scripts/kver.sh")}
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
deb=$PS_CACHE/linux-image-${kver}_${hver}_amd64.deb
ko=$kmod/probestick.ko
LOOPS=${LOOPS:-50}

die() {
	echo "qemu-kcapture-test: $*" >&2
	exit 1
}

[ -s "$deb" ] || die "$deb is missing (scripts/deps.sh fetches it)"
[ -s "$ko" ] || die "$ko is missing: run make -C kmod KVER=$kver first"
[ -x /bin/busybox ] || die "/bin/busybox is missing: install busybox-static"
[ -x /sbin/ip ] || die "/sbin/ip is missing: install iproute2 (busybox ip has no netns)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$work/k" "$root"/{bin,dev,proc,sys,run,tmp,lib64,sbin}
m=./lib/modules/$kver/kernel
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/k" "./boot/vmlinuz-$kver" \
	"$m/drivers/ata" "$m/drivers/scsi" "$m/drivers/nvme" "$m/drivers/block" \
	"$m/drivers/virtio" "$m/drivers/net/ethernet/intel/e1000e" "$m/lib" "$m/crypto" \
	"$m/block" "./lib/modules/$kver/modules.order" "./lib/modules/$kver/modules.builtin"
mkdir -p "$root/lib/modules"
cp -a "$work/k/lib/modules/$kver" "$root/lib/modules/"
depmod -b "$root" "$kver" 2>/dev/null || die "depmod failed"

cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static -I"$repo/userland" \
	-I"$kmod/uapi" -o "$root/bin/kcapture-check" "$here/kcapture-check.c" \
	"$repo/userland/kcapture.c" "$repo/userland/kcapture_text.c" \
	"$repo/userland/hist_decode.c" -ljson-c
cp /bin/busybox "$root/bin/busybox"
cp "$ko" "$root/probestick.ko"
# iproute2's ip, with its libraries, for network namespaces.
cp /sbin/ip "$root/sbin/ip"
for lib in $(ldd /sbin/ip | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done

cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
# busybox sh prefers its own applets: iproute2 by full path.
IP=/sbin/ip
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
for m in virtio_pci virtio_blk nvme ahci sd_mod e1000e; do modprobe \$m || echo "PS_MODPROBE_FAIL \$m"; done
sleep 3
cat /proc/partitions
# One NIC per namespace, so the traffic crosses the hub.
\$IP netns add a && \$IP netns add b || echo PS_NETNS_FAIL
\$IP link set eth0 netns a && \$IP link set eth1 netns b || echo PS_NETNS_FAIL
\$IP -n a addr add 10.9.0.1/24 dev eth0 && \$IP -n a link set eth0 up && \$IP -n a link set lo up
\$IP -n b addr add 10.9.0.2/24 dev eth1 && \$IP -n b link set eth1 up && \$IP -n b link set lo up
sleep 4
\$IP netns exec a ping -c 3 10.9.0.2 >/dev/null && echo PS_PING_OK
insmod /probestick.ko && echo PS_INSMOD_OK
cat >/tmp/work.sh <<'W'
#!/bin/sh
/sbin/ip netns exec a ping -c 100 -i 0.02 10.9.0.2 >/dev/null &
dd if=/dev/vda of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null &
dd if=/dev/nvme0n1 of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null &
dd if=/dev/sda of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null &
wait
W
chmod +x /tmp/work.sh
kcapture-check run --disk vda --disk nvme0n1 --disk sda --nic eth0 --nic eth1 -- /tmp/work.sh
rmmod probestick && echo PS_RMMOD1_OK
# Load and unload under load, with a window left running each time.
(while :; do dd if=/dev/vda of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null; done) &
(while :; do dd if=/dev/nvme0n1 of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null; done) &
(\$IP netns exec a ping -i 0.01 10.9.0.2 >/dev/null) &
ok=0
for i in \$(seq 1 $LOOPS); do
	insmod /probestick.ko || break
	kcapture-check start >/dev/null || break
	sleep 0.2
	rmmod probestick || break
	ok=\$((ok + 1))
done
echo "PS_LOOPS \$ok"
kill %1 %2 %3 2>/dev/null
dmesg | grep -E 'probestick|BUG|WARNING|Oops|RIP:|general protection' | grep -v taint | tail -n 20
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 >"$work/initrd.gz")

for d in vda nvme sata; do
	truncate -s 64M "$work/$d.img"
done
# Single-threaded TCG: under multi-threaded TCG the guest hangs while the
# kernel patches tracepoint call sites under load, with or without this
# module (toggling the same events through tracefs hangs it the same way).
timeout 900 qemu-system-x86_64 -accel "${PS_KC_ACCEL:-tcg,thread=single}" -M q35 -smp 2 -m 1024 -nographic -nodefaults \
	-serial stdio -no-reboot \
	-kernel "$work/k/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 ${PS_KC_APPEND:-loglevel=4} panic=-1" \
	-drive "if=none,id=d1,file=$work/vda.img,format=raw" -device virtio-blk-pci,drive=d1 \
	-drive "if=none,id=d2,file=$work/nvme.img,format=raw" -device nvme,drive=d2,serial=pskc1 \
	-drive "if=none,id=d3,file=$work/sata.img,format=raw" -device ide-hd,drive=d3,bus=ide.0 \
	-netdev hubport,id=n1,hubid=0 -device e1000e,netdev=n1 \
	-netdev hubport,id=n2,hubid=0 -device e1000e,netdev=n2 \
	${PS_KC_MONITOR:+-monitor unix:$PS_KC_MONITOR,server,nowait} \
	</dev/null >"$work/console.log" 2>&1 || true
tr -d '\r' <"$work/console.log" | sed -n '/PS_/p;/Interrupt-path/,/PS_CHECK/p;/probestick/p' | grep -v '^PS_JSON' | uniq
[ -n "${PS_KC_LOG:-}" ] && cp "$work/console.log" "$PS_KC_LOG"

grep -q PS_INSMOD_OK "$work/console.log" || die "insmod failed"
grep -q 'PS_CHECK OK' "$work/console.log" || die "the capture window check failed"
grep -q PS_RMMOD1_OK "$work/console.log" || die "rmmod after the window failed"
grep -q "PS_LOOPS $LOOPS" "$work/console.log" || die "load/unload loop did not finish $LOOPS cycles"
if grep -qE 'BUG|WARNING:|Oops|general protection' "$work/console.log"; then
	die "the kernel logged a BUG, WARNING or Oops"
fi
echo "qemu-kcapture-test: passed"
