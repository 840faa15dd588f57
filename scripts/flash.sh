#!/usr/bin/env bash
# Write the stick image to a real USB stick, after refusing every target that
# could be the wrong disk and asking the user to type the device name.
# Usage: scripts/flash.sh IMAGE DEV   (FORCE=1 allows a non-removable disk)
# After writing, the FAT partition is grown to the whole stick (GROW=0: not).
set -uo pipefail

img=${1:-}
dev=${2:-}
# Tests point this at a fake /sys and /proc tree; it is honoured only for
# device nodes that no real driver backs (see below), so it cannot be used to
# bypass the checks on a real disk.
sysroot=${PS_FLASH_SYSROOT:-}
sys=$sysroot/sys
proc=$sysroot/proc

refuse() {
	echo "flash: refusing: $*" >&2
	exit 1
}

[ -n "$img" ] || refuse "no image given. Usage: scripts/flash.sh IMAGE DEV (or: make flash DEV=/dev/sdX)"
[ -f "$img" ] && [ -s "$img" ] || refuse "image '$img' does not exist or is empty (run make first)"
[ -n "$dev" ] || refuse "no target device given. Usage: make flash DEV=/dev/sdX (lsblk lists the disks)"
[ -e "$dev" ] || refuse "'$dev' does not exist (lsblk lists the disks)"
[ -b "$dev" ] || refuse "'$dev' is not a block device; give the whole stick, e.g. /dev/sdb"

path=$(readlink -f -- "$dev")
name=$(basename -- "$path")
devnum=$(stat -L -c '%t:%T' -- "$path")
devnum=$(printf '%d:%d' "0x${devnum%:*}" "0x${devnum#*:}")
if [ -n "$sysroot" ] && [ -e "/sys/dev/block/$devnum" ]; then
	refuse "PS_FLASH_SYSROOT is for tests with driverless device nodes; $path ($devnum) is a real device"
fi
node=$sys/class/block/$name
[ -d "$node" ] || refuse "$path has no $node: not a disk this script knows how to check"
[ "$(cat "$node/dev" 2>/dev/null)" = "$devnum" ] || refuse "$path ($devnum) does not match $node/dev"
if [ -e "$node/partition" ]; then
	refuse "$path is a partition; give the whole disk ($(basename "$(dirname "$(readlink -f "$node")")"))"
fi

# Every name that stands for this disk's data: the disk, its partitions, and
# whatever is built on them (device-mapper, md), recursively.
related=()
related_nums=()
add_related() {
	local n=$1 d h
	for d in "${related[@]}"; do [ "$d" = "$n" ] && return; done
	related+=("$n")
	related_nums+=("$(cat "$sys/class/block/$n/dev" 2>/dev/null)")
	for h in "$sys/class/block/$n"/holders/*; do
		{ [ -e "$h" ] || [ -L "$h" ]; } && add_related "$(basename "$h")"
	done
}
add_related "$name"
for p in "$node"/"$name"*; do
	[ -e "$p/partition" ] && add_related "$(basename "$p")"
done
is_related() {
	local d
	for d in "${related[@]}"; do [ "$d" = "$1" ] && return 0; done
	return 1
}

rootnum=$(mountpoint -d / 2>/dev/null || true)
for n in "${related_nums[@]}"; do
	[ -n "$rootnum" ] && [ "$n" = "$rootnum" ] && refuse "$path holds the running root filesystem"
done
while read -r src mnt _; do
	case $src in /*) ;; *) continue ;; esac
	s=$(basename -- "$(readlink -f -- "$src" 2>/dev/null || echo "$src")")
	if is_related "$s"; then
		[ "$mnt" = / ] && refuse "$path holds the running root filesystem ($src on /)"
		refuse "$path is in use: $src is mounted on $(printf '%b' "$mnt"); unmount it first"
	fi
done <"$proc/mounts"
if [ -r "$proc/swaps" ]; then
	while read -r src _; do
		case $src in /*) ;; *) continue ;; esac
		s=$(basename -- "$(readlink -f -- "$src" 2>/dev/null || echo "$src")")
		is_related "$s" && refuse "$path is in use: $src is active swap"
	done <"$proc/swaps"
fi
for n in "${related[@]}"; do
	[ "$n" != "$name" ] && [ ! -e "$sys/class/block/$n/partition" ] &&
		refuse "$path is in use: $n (device-mapper or md) is built on it"
done

removable=$(cat "$node/removable" 2>/dev/null || echo 0)
if [ "$removable" != 1 ] && [ "${FORCE:-0}" != 1 ]; then
	refuse "$path is not a removable disk (some USB sticks and SSD enclosures say so too: check the model below, then FORCE=1)
$(lsblk -d -o NAME,SIZE,TRAN,MODEL "$path" 2>/dev/null)"
fi

sectors=$(cat "$node/size" 2>/dev/null || echo 0)
disk_bytes=$((sectors * 512))
img_bytes=$(stat -L -c %s -- "$img")
[ "$disk_bytes" -ge "$img_bytes" ] ||
	refuse "$path holds $disk_bytes bytes, smaller than the image ($img_bytes bytes)"

field() { tr -s ' ' 2>/dev/null <"$node/device/$1" | sed 's/^ //; s/ $//'; }
model="$(field vendor) $(field model)"
serial=$(field serial)
if [ -z "$serial" ] && [ -z "$sysroot" ] && command -v udevadm >/dev/null; then
	serial=$(udevadm info --query=property --name="$path" 2>/dev/null | sed -n 's/^ID_SERIAL_SHORT=//p')
fi
case $(readlink -f "$node") in */usb*) bus=USB ;; *) bus="not USB" ;; esac

cat >&2 <<MSG
flash: about to ERASE and overwrite the whole of this disk:
    device:    $path
    model:     ${model# }
    serial:    ${serial:-unknown}
    size:      $disk_bytes bytes ($((disk_bytes >> 20)) MiB), $bus, removable=$removable
    image:     $img ($img_bytes bytes)
Everything on it will be lost. Type the device name ($path) to go on:
MSG
answer=
read -r answer || true
[ "$answer" = "$path" ] || refuse "you typed '$answer', not '$path'; nothing was written"

echo "flash: writing $img to $path" >&2
if ! dd if="$img" of="$path" bs=4M oflag=direct conv=fsync status=progress; then
	echo "flash: writing to $path FAILED; the stick is not usable. Check dmesg, try another port or stick." >&2
	exit 1
fi
sync
echo "flash: reading back to verify" >&2
if ! dd if="$path" iflag=direct bs=4M count=$(((img_bytes + (4 << 20) - 1) / (4 << 20))) status=none |
	cmp -s -n "$img_bytes" "$img" -; then
	echo "flash: $path does not read back as written: the stick may be failing" >&2
	exit 1
fi
# Reports get the whole stick, not the image's few hundred MiB.
if [ "${GROW:-1}" != 0 ] && ! "$(dirname "$0")/grow-stick.sh" "$path"; then
	echo "flash: growing the FAT partition to the whole stick failed (see above): write the" >&2
	echo "flash: image again (make flash), or with GROW=0 to keep the image's size" >&2
	exit 1
fi
blockdev --rereadpt "$path" 2>/dev/null || partprobe "$path" 2>/dev/null ||
	echo "flash: note: the kernel did not re-read the partition table; replug the stick" >&2
echo "flash: done: $path holds the probestick image; it boots on BIOS and UEFI machines" >&2
