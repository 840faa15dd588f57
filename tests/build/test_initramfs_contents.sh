#!/usr/bin/env bash
# The built initramfs holds what boot needs (init, busybox, the userland and
# its libraries, the modules of every enabled family, probestick.ko, depmod
# indexes), every entry owned by 0:0 with the one fixed mtime.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-out}
img=$OUT/initramfs.img
config=$OUT/gen/config.mk

for f in "$img" "$config" "$OUT/probestick"; do
	if [ ! -s "$f" ]; then
		echo "skip: $f is missing (run make first)"
		exit 77
	fi
done
KVER=${KVER:-$(scripts/kver.sh)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

zstd -t -q "$img" || {
	echo "FAIL: $img is not a valid zstd frame"
	exit 1
}
zstd -dc -q "$img" >"$tmp/cpio" || exit 1

# One line per entry: name type mode uid gid mtime size rdev target-or-sha256,
# read from the newc headers themselves so nothing is lost in a listing.
/usr/bin/python3 - "$tmp/cpio" >"$tmp/entries" <<'EOF' || { echo "FAIL: cannot read the cpio archive"; exit 1; }
import hashlib, stat, sys
data = open(sys.argv[1], 'rb').read()
pos = 0
while True:
    h = data[pos:pos + 110]
    if h[:6] not in (b'070701', b'070702'):
        sys.exit('bad cpio header at offset %d' % pos)
    f = [int(h[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
    ino, mode, uid, gid, nlink, mtime, size, dmaj, dmin, rmaj, rmin, namesize, _ = f
    pos += 110
    name = data[pos:pos + namesize - 1].decode()
    pos = (pos + namesize + 3) & ~3
    body = data[pos:pos + size]
    pos = (pos + size + 3) & ~3
    if name == 'TRAILER!!!':
        break
    kind = {stat.S_IFREG: 'file', stat.S_IFDIR: 'dir', stat.S_IFLNK: 'slink',
            stat.S_IFCHR: 'chr', stat.S_IFBLK: 'blk'}.get(stat.S_IFMT(mode), 'other')
    extra = body.rstrip(b"\0").decode() if kind == 'slink' else hashlib.sha256(body).hexdigest()
    print('/' + name.lstrip('/'), kind, '%o' % stat.S_IMODE(mode), uid, gid, mtime, size,
          '%d:%d' % (rmaj, rmin), extra)
EOF

fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
entry() { awk -v n="$1" '$1 == n' "$tmp/entries"; }
has_file() { # NAME [TYPE...]: present, as one of the types (default file)
	local name=$1 e
	shift
	e=$(entry "$name")
	[ -n "$e" ] || {
		fail "$name is missing"
		return 1
	}
	for t in "${@:-file}"; do
		[ "$(cut -d' ' -f2 <<<"$e")" = "$t" ] && return 0
	done
	fail "$name is a $(cut -d' ' -f2 <<<"$e"), expected ${*:-file}"
}
sha_of() { sha256sum "$1" | cut -d' ' -f1; }

echo "entries: $(wc -l <"$tmp/entries")"

# Owners and the fixed mtime: the same for every entry, the one recorded.
bad_owner=$(awk '$4 != 0 || $5 != 0' "$tmp/entries")
[ -z "$bad_owner" ] || fail "entries not owned by 0:0: $(head -3 <<<"$bad_owner")"
mtimes=$(awk '{ print $6 }' "$tmp/entries" | sort -u)
[ "$(wc -l <<<"$mtimes")" -eq 1 ] || fail "entries have $(wc -l <<<"$mtimes") different mtimes"
release=$(awk '$1 == "/etc/probestick-release" { print $9 }' "$tmp/entries")
epoch=$(/usr/bin/python3 - "$tmp/cpio" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
i = data.find(b'SOURCE_DATE_EPOCH=')
print(data[i + 18:data.index(b'\n', i)].decode() if i >= 0 else '')
EOF
)
[ -n "$release" ] && [ -n "$epoch" ] || fail "/etc/probestick-release with SOURCE_DATE_EPOCH is missing"
[ "$mtimes" = "$epoch" ] || fail "mtime $mtimes is not the recorded SOURCE_DATE_EPOCH $epoch"

# Fixed parts.
has_file /init && [ "$(entry /init | cut -d' ' -f3)" = 755 ] || fail "/init is not mode 755"
[ "$(entry /init | cut -d' ' -f9)" = "$(sha_of initramfs/init)" ] || fail "/init differs from initramfs/init"
has_file /dev/console chr && [ "$(entry /dev/console | cut -d' ' -f8)" = 5:1 ] || fail "/dev/console is not c 5 1"
has_file /tmp dir

# busybox and its applets, not shadowing what we ship.
has_file /bin/busybox
[ "$(entry /bin/busybox | cut -d' ' -f9)" = "$(sha_of /bin/busybox)" ] || fail "/bin/busybox differs from the host's"
for a in /bin/sh /bin/mount /sbin/poweroff /usr/bin/setsid /bin/cttyhack /sbin/findfs /usr/bin/od /usr/bin/tee; do
	[ "$(entry "$a" | cut -d' ' -f2,9)" = "slink /bin/busybox" ] || fail "$a is not a link to /bin/busybox"
done

# kmod's module tools in place of busybox's, which cannot read .ko.xz.
has_file /bin/kmod && { [ "$(entry /bin/kmod | cut -d' ' -f9)" = "$(sha_of /bin/kmod)" ] || fail "/bin/kmod differs from the host's"; }
for a in /sbin/modprobe /sbin/insmod /sbin/rmmod /sbin/lsmod /sbin/modinfo; do
	[ "$(entry "$a" | cut -d' ' -f2,9)" = "slink /bin/kmod" ] || fail "$a is not a link to /bin/kmod"
done

# dosfstools' checker, which /init runs on the stick before mounting it.
has_file /sbin/fsck.fat &&
	{ [ "$(entry /sbin/fsck.fat | cut -d' ' -f9)" = "$(sha_of "$(readlink -f "$(command -v fsck.fat)")")" ] ||
		fail "/sbin/fsck.fat differs from the host's fsck.fat"; }

# The userland, its libraries as ldd names them, the dynamic loader.
# without its debug sections (the initramfs stays in RAM)
has_file /usr/bin/probestick
objcopy --strip-debug "$OUT/probestick" "$tmp/probestick.stripped"
[ "$(entry /usr/bin/probestick | cut -d' ' -f9)" = "$(sha_of "$tmp/probestick.stripped")" ] ||
	fail "/usr/bin/probestick is not $OUT/probestick without its debug sections (stale initramfs?)"
libs=$( (LC_ALL=C ldd "$OUT/probestick" 2>/dev/null || true) | sed -n 's|.*=> \(/[^ ]*\).*|\1|p; s|^[[:space:]]*\(/[^ ]*\) (.*|\1|p')
grep -q ld-linux <<<"$libs" || fail "ldd $OUT/probestick names no dynamic loader"
for lib in $libs; do
	has_file "$lib" file slink || continue
	if [ "$(entry "$lib" | cut -d' ' -f2)" = slink ]; then
		target=$(dirname "$lib")/$(entry "$lib" | cut -d' ' -f9)
		has_file "$target" || continue
		real=$target
	else
		real=$lib
	fi
	[ "$(entry "$real" | cut -d' ' -f9)" = "$(sha_of "$(readlink -f "$lib")")" ] || fail "$real differs from the host's $lib"
done
for lib in libkmod.so.2 libjson-c.so.5 libc.so.6; do
	grep -q "/$lib\$" <<<"$libs" || fail "$OUT/probestick is not linked with $lib (ldd: $(tr '\n' ' ' <<<"$libs"))"
done
has_file /lib64/ld-linux-x86-64.so.2
# PCIe device names: libpci and pci.ids (gzip, as libpci reads it)
grep -q "/libpci.so.3\$" <<<"$libs" || fail "$OUT/probestick is not linked with libpci.so.3"
has_file /usr/share/misc/pci.ids.gz
[ "$(entry /usr/share/misc/pci.ids.gz | cut -d' ' -f9)" = "$(gzip -9 -n -c /usr/share/misc/pci.ids | sha256sum | cut -d' ' -f1)" ] ||
	fail "/usr/share/misc/pci.ids.gz is not the host's pci.ids"

# Modules: depmod indexes, one module or more of each enabled family.
mdir=/lib/modules/$KVER
for f in modules.dep modules.dep.bin modules.alias modules.alias.bin modules.symbols.bin \
	modules.builtin modules.builtin.bin modules.softdep; do
	has_file "$mdir/$f"
done
# What triage meets (issue 11): the SAS/RAID HBAs, the common NICs, USB NICs,
# USB 1.1-3 hosts and UAS.
declare -A family=(
	[DRV_ATA]="ahci ata_piix libahci sd_mod" [DRV_NVME]="nvme nvme_core vmd"
	[DRV_SCSI]="sd_mod sg ses mpt3sas megaraid_sas megaraid_mbox aacraid hpsa smartpqi mvsas isci"
	[DRV_FC]="qla2xxx lpfc scsi_transport_fc"
	[DRV_USB_STORAGE]="xhci_pci ehci_pci ohci_pci uhci_hcd usb_storage uas"
	[DRV_USB_NIC]="r8152 ax88179_178a cdc_ether"
	[DRV_HID]="usbhid hid_generic" [DRV_VIRTIO]="virtio_pci virtio_blk virtio_net virtio_scsi"
	[DRV_NIC_INTEL]="e100 e1000 e1000e igb igc ixgbe i40e ice" [DRV_NIC_REALTEK]=r8169
	[DRV_NIC_BROADCOM]="tg3 bnx2 bnx2x bnxt_en b44" [DRV_NIC_MELLANOX]="mlx4_en mlx5_core"
	[DRV_NIC_EMULEX]=be2net [DRV_NIC_AQUANTIA]=atlantic [DRV_NIC_DESKTOP]="alx atl1c sky2 sis900 natsemi"
	[DRV_MD]="md_mod raid1 raid456" [DRV_FS]="vfat fat exfat nls_cp437 nls_utf8"
	[DRV_DISPLAY_SERVER]="ast mgag200 drm"
)
mods=$(awk -v d="$mdir/" 'index($1, d) == 1 && $1 ~ /\.ko(\.xz)?$/ { n = $1; sub(/.*\//, "", n); sub(/\.ko(\.xz)?$/, "", n); gsub(/-/, "_", n); print n }' "$tmp/entries" | sort -u)
echo "modules: $(wc -l <<<"$mods")"
grep -qx vfat <<<"$mods" || fail "vfat (the stick's file system) is missing"
grep -qx efivarfs <<<"$mods" || fail "efivarfs (the report's Secure Boot state) is missing"
# Board fans and temperatures: the Super I/O monitors coldplug loads by name.
for m in drivetemp nct6775 nct6683 it87 f71882fg w83627ehf asus_atk0110 asus_wmi_sensors; do
	grep -qx "$m" <<<"$mods" || fail "$m (hardware monitoring) is missing"
done
# The energy recorder's RAPL counters: coldplug loads intel_rapl_common by the CPU's
# modalias (Intel models, AMD family 17h/19h), then intel_rapl_msr by the platform
# device it creates.
for m in intel_rapl_common intel_rapl_msr; do
	grep -qx "$m" <<<"$mods" || fail "$m (RAPL energy counters) is missing"
done
# What the drivers step reads (initramfs/drivers-data.py).
for f in modules.alias.zst pci.ids.zst usb.ids.zst families firmware.json; do
	has_file "/usr/share/probestick/$f"
done
for f in $(sed -n 's/^CONFIG_\(DRV_[A-Z0-9_]*\)=y$/\1/p' "$config"); do
	[ -n "${family[$f]:-}" ] || fail "this test does not know the family $f: add it to the table"
	for m in ${family[$f]:-}; do
		grep -qx "$m" <<<"$mods" || fail "$f is enabled but module $m is missing"
	done
done
# Every dependency that modules.dep names is in the archive.
zstd -dc -q "$img" | (cd "$tmp" && mkdir x && cd x && cpio -idm --quiet "lib/modules/$KVER/modules.dep")
missing_deps=$(tr ' ' '\n' <"$tmp/x/lib/modules/$KVER/modules.dep" | sed -n 's/:$//; /\.ko\(\.xz\)\?$/p' | sort -u |
	while read -r rel; do entry "$mdir/$rel" | grep -q . || echo "$rel"; done)
[ -z "$missing_deps" ] || fail "modules.dep names modules not in the archive: $missing_deps"
# The kernel's modules are xz-compressed as the kernel's own module compression
# makes them (CRC32: what libkmod and the kernel check), each the package's file.
plain=$(awk -v d="$mdir/kernel/" 'index($1, d) == 1 && $2 == "file" && $1 !~ /\.ko\.xz$/' "$tmp/entries")
[ -z "$plain" ] || fail "kernel modules not xz-compressed: $(head -3 <<<"$plain" | cut -d' ' -f1)"
zstd -dc -q "$img" | (cd "$tmp/x" && cpio -idm --quiet "lib/modules/$KVER/kernel/*")
kmods=$OUT/kernel/lib/modules/$KVER
for rel in kernel/fs/fat/vfat.ko kernel/drivers/gpu/drm/ast/ast.ko kernel/drivers/nvme/host/nvme.ko; do
	[ -s "$tmp/x/lib/modules/$KVER/$rel.xz" ] || { fail "$rel.xz is missing"; continue; }
	xz -t --single-stream "$tmp/x/lib/modules/$KVER/$rel.xz" 2>/dev/null &&
		[ "$(xz -lv "$tmp/x/lib/modules/$KVER/$rel.xz" | sed -n 's/^ *Check: *//p' | head -1)" = CRC32 ] ||
		fail "$rel.xz is not one xz stream with a CRC32 check"
	[ ! -s "$kmods/$rel" ] || [ "$(xz -dc "$tmp/x/lib/modules/$KVER/$rel.xz" | sha256sum | cut -d' ' -f1)" = "$(sha_of "$kmods/$rel")" ] ||
		fail "$rel.xz does not unpack to $kmods/$rel"
done
if grep -q '^CONFIG_MODULE=y$' "$config"; then
	has_file "$mdir/extra/probestick.ko"
	[ "$(entry "$mdir/extra/probestick.ko" | cut -d' ' -f9)" = "$(sha_of "$OUT/probestick.ko")" ] ||
		fail "extra/probestick.ko differs from $OUT/probestick.ko"
	grep -q '^extra/probestick.ko:' "$tmp/x/lib/modules/$KVER/modules.dep" || fail "modules.dep does not list extra/probestick.ko"
fi

echo "initramfs: $(stat -c %s "$img") bytes compressed, $(stat -c %s "$tmp/cpio") bytes cpio"
[ $fails -eq 0 ] || {
	echo "$fails check(s) failed"
	exit 1
}
echo "all checks passed"
