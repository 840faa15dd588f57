#!/usr/bin/env bash
# Build the hybrid BIOS+UEFI stick image (MBR, one FAT32 partition labelled
# PROBESTICK) without root or loop devices. Usage: image/build.sh OUT_IMAGE
# Inputs: $OUT/vmlinuz, $OUT/initramfs.img (override: PS_VMLINUZ, PS_INITRD),
# $OUT/gen/config.mk. Size: PS_IMAGE_MB (default: contents + margin, >= 256).
set -euo pipefail

target=${1:?usage: image/build.sh OUT_IMAGE}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
OUT=${OUT:-out}
case $OUT in /*) ;; *) OUT=$top/$OUT ;; esac
case $target in /*) ;; *) target=$PWD/$target ;; esac
cd "$top"

die() {
	echo "image: $*" >&2
	exit 1
}

vmlinuz=${PS_VMLINUZ:-$OUT/vmlinuz}
initrd=${PS_INITRD:-$OUT/initramfs.img}
[ -s "$vmlinuz" ] || die "$vmlinuz is missing (make builds it from the Debian kernel package)"
[ -s "$initrd" ] || die "$initrd is missing (initramfs/build.sh makes it)"

syslinux_mbr=/usr/lib/syslinux/mbr/mbr.bin
syslinux_mods=/usr/lib/syslinux/modules/bios
grub_mods=/usr/lib/grub/x86_64-efi
for f in "$syslinux_mbr" "$syslinux_mods/menu.c32" "$syslinux_mods/libutil.c32" "$grub_mods/linux.mod"; do
	[ -e "$f" ] || die "$f is missing: run scripts/deps.sh (syslinux, syslinux-common, grub-efi-amd64-bin)"
done

# Build configuration: only the few keys the boot loaders need.
config_value() {
	local v
	v=$(sed -n "s/^$1=//p" "$OUT/gen/config.mk" 2>/dev/null | tail -n 1)
	v=${v#\"}
	v=${v%\"}
	echo "${v:-$2}"
}
speed=$(config_value CONFIG_SERIAL_SPEED 115200)
timeout=$(config_value CONFIG_BOOT_TIMEOUT 5)
default_plan=$(config_value CONFIG_DEFAULT_PLAN menu)
[[ $speed =~ ^[0-9]+$ ]] || die "CONFIG_SERIAL_SPEED '$speed' is not a number"
[[ $timeout =~ ^[0-9]+$ ]] || die "CONFIG_BOOT_TIMEOUT '$timeout' is not a number"
# syslinux counts tenths of a second and treats 0 as "wait for ever".
timeout_ds=$((timeout * 10))
[ "$timeout_ds" -gt 0 ] || timeout_ds=1

version=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
kver=$(scripts/kver.sh 2>/dev/null || echo unknown)
kpkg=$(cat "$OUT/kernel/version" 2>/dev/null || echo unknown)

work=$(mktemp -d "${TMPDIR:-/tmp}/probestick-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Fixed identifiers derived from the inputs: the same inputs give the same
# PARTUUID (written into the boot entries) and FAT volume id.
ids=$(cat <(sha256sum <"$vmlinuz") <(sha256sum <"$initrd") <(echo "$version $SOURCE_DATE_EPOCH") | sha256sum)
disk_id=${PS_DISK_ID:-${ids:0:8}}
vol_id=${ids:8:8}
[[ $disk_id =~ ^[0-9a-f]{8}$ ]] || die "PS_DISK_ID '$disk_id' is not 8 lower-case hex digits"
[ "$disk_id" != 00000000 ] || disk_id=00000001
partuuid=$disk_id-01
vol_uuid="${vol_id:0:4}-${vol_id:4:4}"
vol_uuid=${vol_uuid^^}

fill() {
	sed -e "s|@SPEED@|$speed|g" -e "s|@TIMEOUT@|$timeout|g" -e "s|@TIMEOUT_DS@|$timeout_ds|g" \
		-e "s|@PARTUUID@|$partuuid|g" -e "s|@VOLUUID@|$vol_uuid|g" -e "s|@VERSION@|$version|g" \
		-e "s|@DEFAULT_PLAN@|$default_plan|g" "$1"
}
fill image/syslinux.cfg >"$work/syslinux.cfg"
fill image/grub.cfg >"$work/grub.cfg"
fill image/probestick.cfg >"$work/probestick.cfg"

# UEFI loader: what grub-mkstandalone does (every module in a memdisk, the
# embedded config as the memdisk's grub.cfg), but with a tar made with fixed
# times and order, since grub-mkstandalone stamps the build time into it.
md=$work/memdisk
mkdir -p "$md/boot/grub/x86_64-efi"
cp "$grub_mods"/*.mod "$grub_mods"/*.lst "$md/boot/grub/x86_64-efi/"
fill image/grub-embed.cfg >"$md/boot/grub/grub.cfg"
tar -C "$md" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --owner=0 --group=0 --numeric-owner \
	--format=ustar -cf "$work/memdisk.tar" boot
grub-mkimage -O x86_64-efi -m "$work/memdisk.tar" -p '(memdisk)/boot/grub' -o "$work/BOOTX64.EFI" \
	memdisk tar part_msdos fat search search_fs_uuid search_label normal configfile linux \
	echo serial terminal test sleep all_video efi_gop

# Manifest: what this stick was built from.
/usr/bin/python3 - "$work/manifest.json" <<PY
import hashlib, json, os, sys
def entry(path):
    if not os.path.isfile(path):
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"sha256": h.hexdigest(), "size": os.path.getsize(path)}
manifest = {
    "probestick_version": "$version",
    "kernel": {"release": "$kver", "package_version": "$kpkg"},
    "source_date_epoch": int("$SOURCE_DATE_EPOCH"),
    "partuuid": "$partuuid",
    "fat_volume_id": "$vol_uuid",
    "boot": {"serial_speed": $speed, "timeout_seconds": $timeout},
    "files": {
        "vmlinuz": entry("$vmlinuz"),
        "initrd.img": entry("$initrd"),
        "probestick.ko": entry("$OUT/probestick.ko"),
        "probestick": entry("$OUT/probestick"),
        ".config": entry("$top/.config"),
        "EFI/BOOT/BOOTX64.EFI": entry("$work/BOOTX64.EFI"),
    },
}
with open(sys.argv[1], "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
PY

# Size: what goes on the stick, plus room for reports, in 64 MiB steps.
content=$(du -cb "$vmlinuz" "$initrd" "$work/BOOTX64.EFI" "$syslinux_mods"/{ldlinux,menu,libutil}.c32 | tail -n 1 | cut -f1)
content_mb=$(((content + (1 << 20) - 1) >> 20))
if [ -n "${PS_IMAGE_MB:-}" ]; then
	image_mb=$PS_IMAGE_MB
	[ "$image_mb" -ge $((content_mb + 40)) ] || die "PS_IMAGE_MB=$image_mb is too small for ${content_mb} MiB of files (need $((content_mb + 40)))"
else
	image_mb=$(((content_mb * 2 + 64 + 63) / 64 * 64))
	[ "$image_mb" -ge 256 ] || image_mb=256
fi
fat_mb=$((image_mb - 1))

# The FAT file system, built in its own file and moved into the partition last.
fat=$work/fat.img
truncate -s "${fat_mb}M" "$fat"
mkfs.fat --invariant -F 32 -n PROBESTICK -i "$vol_id" -h 2048 "$fat" >/dev/null
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
mmd -i "$fat" ::/syslinux ::/EFI ::/EFI/BOOT ::/reports
syslinux --install --directory /syslinux "$fat"
mcopy -i "$fat" "$syslinux_mods/menu.c32" "$syslinux_mods/libutil.c32" "$work/syslinux.cfg" ::/syslinux/
mcopy -i "$fat" "$work/BOOTX64.EFI" "$work/grub.cfg" ::/EFI/BOOT/
mcopy -i "$fat" "$vmlinuz" ::/vmlinuz
mcopy -i "$fat" "$initrd" ::/initrd.img
mcopy -i "$fat" "$work/probestick.cfg" "$work/manifest.json" ::/
/usr/bin/python3 image/fat-settime.py "$fat" 0 "$SOURCE_DATE_EPOCH"
fsck.fat -n "$fat" >/dev/null || die "the new FAT file system does not pass fsck.fat"

# The disk: MBR with syslinux's boot code and one bootable FAT32 (LBA) partition at 1 MiB.
img=$work/probestick.img
truncate -s "${image_mb}M" "$img"
sfdisk --quiet --no-reread --no-tell-kernel --wipe never "$img" <<SF
label: dos
label-id: 0x$disk_id
unit: sectors
start=2048, size=$((fat_mb * 2048)), type=c, bootable
SF
dd if="$syslinux_mbr" of="$img" bs=440 count=1 conv=notrunc status=none
dd if="$fat" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none

mkdir -p "$(dirname "$target")"
mv "$img" "$target"
cp "$work/manifest.json" "${target%.img}.manifest.json"
echo "image: $target: ${image_mb} MiB (files ${content_mb} MiB), PARTUUID $partuuid, FAT volume id $vol_uuid"
