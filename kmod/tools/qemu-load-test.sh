#!/usr/bin/env bash
# Load probestick.ko into the shipped Debian kernel in a QEMU q35 guest with
# a known PCIe topology and run probestick-check against /dev/probestick.
# Usage: kmod/tools/qemu-load-test.sh [KVER]   (needs make -C kmod first)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kmod=$(cd "$here/.." && pwd)
kver=${1:-$("$kmod/../scripts/kver.sh")}
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
deb=$PS_CACHE/linux-image-${kver}_${hver}_amd64.deb
ko=$kmod/probestick.ko

die() {
	echo "qemu-load-test: $*" >&2
	exit 1
}

[ -s "$deb" ] || die "$deb is missing (scripts/deps.sh fetches it)"
[ -s "$ko" ] || die "$ko is missing: run make -C kmod KVER=$kver first"
[ -x /bin/busybox ] || die "/bin/busybox is missing: install busybox-static"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/k" "$work/root/bin" "$work/root/dev" "$work/root/proc" "$work/root/sys"
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/k" "./boot/vmlinuz-$kver"
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -static \
	-o "$work/root/bin/probestick-check" "$here/probestick-check.c"
cp /bin/busybox "$work/root/bin/busybox"
cp "$ko" "$work/root/probestick.ko"
cat >"$work/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
insmod /probestick.ko && echo PS_INSMOD_OK
probestick-check && echo PS_CHECK_OK
rmmod probestick && echo PS_RMMOD_OK
dmesg | grep -E 'probestick|BUG|WARNING' | grep -v taint
poweroff -f
INIT
chmod +x "$work/root/init"
(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip -1 >"$work/initrd.gz")

# The topology each case of the link decoder meets: a root port limited to
# 8 GT/s x4 with an NVMe, a switch (upstream + downstream) with a PCIe NIC,
# an RC integrated NIC, and a conventional NIC behind a PCI bridge.
timeout 300 qemu-system-x86_64 -accel tcg -M q35 -m 512 -nographic -nodefaults \
	-serial stdio -no-reboot \
	-kernel "$work/k/boot/vmlinuz-$kver" -initrd "$work/initrd.gz" \
	-append "console=ttyS0 quiet panic=-1" \
	-device pcie-root-port,id=rp1,chassis=1,slot=1,x-speed=8,x-width=4 \
	-device nvme,serial=probestick1,bus=rp1 \
	-device pcie-root-port,id=rp2,chassis=2,slot=2 \
	-device x3130-upstream,id=up1,bus=rp2 \
	-device xio3130-downstream,id=dn1,bus=up1,chassis=3,slot=3 \
	-device e1000e,bus=dn1 \
	-device e1000e,bus=pcie.0 \
	-device pci-bridge,id=pb,chassis_nr=5,bus=pcie.0 \
	-device e1000,bus=pb </dev/null >"$work/console.log" 2>&1 || true
sed -n '/PS_INSMOD_OK/,$p' "$work/console.log" | tr -d '\r'

grep -q PS_INSMOD_OK "$work/console.log" || die "insmod failed"
grep -q PS_CHECK_OK "$work/console.log" || die "probestick-check failed"
grep -q PS_RMMOD_OK "$work/console.log" || die "rmmod failed"
# What the topology above must decode to.
grep -q '^0000:01:00.0 1b36:0010 .* type 0 cap 2.5GT/s x1 sta 2.5GT/s x1 up 8GT/s x4 ' \
	"$work/console.log" || die "NVMe behind the 8 GT/s x4 root port not decoded as expected"
grep -q '^0000:00:03.0 8086:10d3 .* type 9 no link' "$work/console.log" ||
	die "RC integrated e1000e not reported as a function without link"
grep -q '^0000:05:00.0 8086:100e .* conventional PCI' "$work/console.log" ||
	die "e1000 behind the PCI bridge not reported as conventional PCI"
if grep -qE 'BUG|WARNING:' "$work/console.log"; then
	die "the kernel logged a BUG or WARNING"
fi
echo "qemu-load-test: passed"
