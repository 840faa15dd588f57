#!/usr/bin/env bash
# Build the hybrid BIOS+UEFI stick image (MBR, one FAT32 partition labelled
# PROBESTICK) without root or loop devices. Usage: image/build.sh OUT_IMAGE
# Inputs: $OUT/vmlinuz, $OUT/initramfs.img (override: PS_VMLINUZ, PS_INITRD)
# and its firmware list (the initrd's work tree, firmware.json),
# $OUT/gen/config.mk, Debian's signed boot chain in $PS_CACHE/debs (make
# deps), and, when it exists, the machine-owner certificate of make mok
# ($PS_MOK_DIR/probestick-mok.der). Size: PS_IMAGE_MB (default: contents +
# margin, >= 256).
# UEFI: shim (signed by Microsoft) as EFI/BOOT/BOOTX64.EFI loads Debian's
# signed GRUB (grubx64.efi beside it), which reads EFI/debian/grub.cfg and
# boots Debian's signed kernel: the stick boots with Secure Boot on.
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
# cat.c32 (with the library it links) prints the menu list as the UI: text
# printed while syslinux reads its config reaches the screen only, not ttyS0.
syslinux_ui=("$syslinux_mods/cat.c32" "$syslinux_mods/libcom32.c32" "$syslinux_mods/libutil.c32")
for f in "$syslinux_mbr" "$syslinux_mods/ldlinux.c32" "${syslinux_ui[@]}"; do
	[ -e "$f" ] || die "$f is missing: run scripts/deps.sh (syslinux, syslinux-common)"
done
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
PS_MOK_DIR=${PS_MOK_DIR:-$HOME/.config/probestick/mok}
firmware_list=${PS_FIRMWARE_LIST:-${initrd%.img}/firmware.json}

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
# The list syslinux shows (DISPLAY): the entries' MENU LABELs, numbered as
# their LABELs, in plain text that reads the same on the screen and on a
# serial line.
{
	printf '\n  probestick %s (BIOS) - type a number and Enter\n\n' "$version"
	awk '$1 == "LABEL" { n = $2 } $1 == "MENU" && $2 == "LABEL" { sub(/^[ \t]*MENU LABEL /, ""); printf "    %s  %s\n", n, $0 }' \
		"$work/syslinux.cfg"
	printf '\n  %s starts in %s s; any key stops the count. F1 shows this list again.\n' \
		"$(sed -n 's/^DEFAULT //p' "$work/syslinux.cfg")" "$timeout"
} >"$work/menu.txt"

# UEFI: Debian's signed chain, taken from the packages make deps downloaded.
# shim's fallback (fbx64.efi) stays out: beside BOOTX64.EFI it would take over
# and write boot entries into the machine's firmware.
efi=$work/efi
scripts/signed-chain.sh "$PS_CACHE" "$efi" || die "Debian's signed boot chain is not there"
mapfile -t boot_chain <"$efi/versions"
cp "$efi/shimx64.efi" "$work/BOOTX64.EFI"
cp "$efi/mmx64.efi" "$efi/grubx64.efi" "$work/"
mok=$PS_MOK_DIR/probestick-mok.der
[ -s "$mok" ] || mok=
# memtest86+ (Debian's package, installed by make deps): the BIOS build for
# syslinux, the EFI build (unsigned: Secure Boot off) for GRUB's chainloader.
memtest_dir=${PS_MEMTEST_DIR:-/boot}
memtest_bin=$memtest_dir/memtest86+x64.bin
memtest_efi=$memtest_dir/memtest86+x64.efi
for f in "$memtest_bin" "$memtest_efi"; do
	[ -s "$f" ] || die "$f is missing: run scripts/deps.sh (memtest86+)"
done
memtest_version=$(dpkg-query -W -f='${Version}' memtest86+ 2>/dev/null || echo unknown)
# stress-ng (Debian's, make deps), the burnin step's stressors, with the
# shared libraries ldd names, in /tools/stress-ng on the stick: not in the
# initramfs, whose files stay in RAM (its 24 MiB, libIPSec_MB's 12 MiB
# among them, left a 256 MiB machine too little to unpack it). The step runs
# it from the stick with LD_LIBRARY_PATH=/stick/tools/stress-ng/lib.
stress=/usr/bin/stress-ng
[ -x "$stress" ] || die "$stress is missing: run scripts/deps.sh (stress-ng)"
mkdir -p "$work/stress-ng/lib"
cp "$stress" "$work/stress-ng/stress-ng"
while read -r lib path; do
	cp -L "$path" "$work/stress-ng/lib/$lib" || die "cannot copy $path (stress-ng's $lib)"
done < <(ldd "$stress" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
stress_version=$(dpkg-query -W -f='${Version}' stress-ng 2>/dev/null || echo unknown)
# Debian's libcurl and its libraries, /tools/collect/lib on the stick: what
# the collector's sender loads when probestick.cfg sets collect= (a stick
# boot without one never loads them; netboot carries them as collect.img).
scripts/collect-libs.sh "$OUT/probestick" "$work/collect/lib"
collect_bytes=$(du -cb "$work/collect" | tail -n 1 | cut -f1)
collect_files=$(find "$work/collect" -type f | wc -l)
curl_version=$(dpkg-query -W -f='${Version}' libcurl4 2>/dev/null || echo unknown)
stress_bytes=$(du -cb "$work/stress-ng" | tail -n 1 | cut -f1)
stress_files=$(find "$work/stress-ng" -type f | wc -l)

# Manifest: what this stick was built from.
mok_subject=
[ -z "$mok" ] || mok_subject=$(openssl x509 -inform DER -in "$mok" -noout -subject -nameopt RFC2253 2>/dev/null | sed 's/^subject=//')
[ -z "$mok" ] || [ -n "$mok_subject" ] || die "$mok is not a DER X.509 certificate (make mok writes one)"
PS_BOOT_CHAIN="${boot_chain[*]}" PS_MOK="$mok" PS_MOK_SUBJECT="$mok_subject" \
	/usr/bin/python3 - "$work/manifest.json" "$firmware_list" <<PY
import hashlib, json, os, sys
def entry(path):
    if not path or not os.path.isfile(path):
        return None
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"sha256": h.hexdigest(), "size": os.path.getsize(path)}
# The firmware list of the initramfs (initramfs/build.sh): what went in and
# what was left out, with why; null for an initrd built without one.
firmware = None
if os.path.isfile(sys.argv[2]):
    with open(sys.argv[2]) as f:
        firmware = json.load(f)
chain = dict(w.split("=", 1) for w in os.environ["PS_BOOT_CHAIN"].split())
mok = os.environ["PS_MOK"]
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
        "EFI/BOOT/grubx64.efi": entry("$work/grubx64.efi"),
        "EFI/BOOT/mmx64.efi": entry("$work/mmx64.efi"),
        "probestick-mok.der": entry(mok),
        "memtest86+x64.bin": entry("$memtest_bin"),
        "memtest86+x64.efi": entry("$memtest_efi"),
    },
    # Debian's memtest86+, the boot menus' firmware-level memory test.
    "memtest86+": {"package": "memtest86+", "version": "$memtest_version", "signed": False},
    # Debian's stress-ng and its libraries, /tools/stress-ng (the burnin step).
    "stress_ng": {"package": "stress-ng", "version": "$stress_version", "dir": "tools/stress-ng",
                  "files": $stress_files, "bytes": $stress_bytes},
    # Debian's libcurl and its libraries, /tools/collect/lib (loaded only with collect=).
    "collect_libs": {"package": "libcurl4", "version": "$curl_version", "dir": "tools/collect/lib",
                     "files": $collect_files, "bytes": $collect_bytes},
    # Debian's signed UEFI chain: which package and version each file is.
    "uefi_chain": {
        "EFI/BOOT/BOOTX64.EFI": {"package": "shim-signed", "version": chain["shim-signed"], "file": "shimx64.efi.signed"},
        "EFI/BOOT/mmx64.efi": {"package": "shim-helpers-amd64-signed", "version": chain["shim-helpers-amd64-signed"], "file": "mmx64.efi.signed"},
        "EFI/BOOT/grubx64.efi": {"package": "grub-efi-amd64-signed", "version": chain["grub-efi-amd64-signed"], "file": "grubx64.efi.signed"},
        "vmlinuz": {"package": "linux-image-$kver", "version": "$kpkg"},
    },
    # make mok's certificate, for MokManager to enrol: the key that signed probestick.ko.
    "mok_certificate": {"file": "probestick-mok.der", "subject": os.environ["PS_MOK_SUBJECT"]} if mok else None,
    "firmware": firmware,
}
with open(sys.argv[1], "w") as f:
    json.dump(manifest, f, indent=2, sort_keys=True)
    f.write("\n")
PY

# Size: what goes on the stick, plus room for reports, in 64 MiB steps.
content=$(du -cb "$vmlinuz" "$initrd" "$work"/{BOOTX64.EFI,grubx64.efi,mmx64.efi} "$syslinux_mods/ldlinux.c32" "${syslinux_ui[@]}" "$memtest_bin" "$memtest_efi" "$work/stress-ng" "$work/collect" | tail -n 1 | cut -f1)
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
mmd -i "$fat" ::/syslinux ::/EFI ::/EFI/BOOT ::/EFI/debian ::/reports ::/tools
syslinux --install --directory /syslinux "$fat"
# syslinux writes its boot code into the primary boot sector only; the
# backup (FAT32's BPB_BkBootSec, sector 6) keeps mkfs.fat's, and fsck.fat
# (the check at every boot, any PC's) reports the two as different.
# The backup becomes a copy of the primary.
bk=$(od -An -tu2 -j 50 -N 2 "$fat" | tr -d ' ')
[[ $bk =~ ^[0-9]+$ ]] && [ "$bk" -gt 0 ] || die "the FAT32 boot sector names no backup sector (BPB_BkBootSec '$bk')"
dd if="$fat" of="$fat" bs=512 count=1 seek="$bk" conv=notrunc status=none
mcopy -i "$fat" "$work/syslinux.cfg" "$work/menu.txt" "${syslinux_ui[@]}" ::/syslinux/
mcopy -i "$fat" "$work/BOOTX64.EFI" "$work/grubx64.efi" "$work/mmx64.efi" ::/EFI/BOOT/
# Where Debian's signed GRUB looks first: its prefix, /EFI/debian, on the
# partition it was loaded from (a search of other disks comes only after).
mcopy -i "$fat" "$work/grub.cfg" ::/EFI/debian/
[ -z "$mok" ] || mcopy -i "$fat" "$mok" ::/probestick-mok.der
mcopy -i "$fat" "$vmlinuz" ::/vmlinuz
mcopy -i "$fat" "$initrd" ::/initrd.img
mcopy -i "$fat" "$work/probestick.cfg" "$work/manifest.json" ::/
mcopy -i "$fat" "$memtest_bin" "$memtest_efi" ::/
mcopy -s -i "$fat" "$work/stress-ng" "$work/collect" ::/tools/
/usr/bin/python3 image/fat-settime.py "$fat" 0 "$SOURCE_DATE_EPOCH"
# Clean means fsck.fat says nothing at all: it exits 0 on a boot sector that
# differs from its backup, but says so.
fsck_out=$(fsck.fat -n "$fat" 2>&1) || die "the new FAT file system does not pass fsck.fat: $fsck_out"
[ "$(echo "$fsck_out" | grep -vc -e '^fsck\.fat ' -e ': [0-9]* files, [0-9]*/[0-9]* clusters$')" = 0 ] ||
	die "fsck.fat reports something on the new FAT file system: $fsck_out"

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
