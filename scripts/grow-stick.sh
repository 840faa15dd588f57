#!/usr/bin/env bash
# Give the whole stick to its FAT partition after the image was written: the
# image's FAT is a few hundred MiB, the stick may be 64 GB, and reports must
# never run out of room. FAT32 cannot grow in place (its table has a fixed
# size), so the file system is made again over the whole partition with the
# same label and volume id, the files copied back, and syslinux installed
# again; the MBR (boot code, disk id, hence the PARTUUID) stays.
# Usage: scripts/grow-stick.sh TARGET   (a block device, or an image file)
# Run by scripts/flash.sh right after writing and verifying the image.
set -euo pipefail

target=${1:?usage: scripts/grow-stick.sh TARGET}
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null

die() {
	echo "grow: $*" >&2
	exit 1
}

for t in sfdisk mkfs.fat mcopy mdir syslinux; do
	command -v "$t" >/dev/null || die "$t is missing (scripts/deps.sh installs it)"
done
if [ -b "$target" ]; then
	size=$(blockdev --getsize64 "$target")
else
	[ -f "$target" ] || die "$target is neither a block device nor an image file"
	size=$(stat -c %s "$target")
fi

# The image's one partition: where it starts and how long it is.
read -r start length < <(sfdisk --dump "$target" 2>/dev/null |
	sed -n 's/^[^:]*1 : start= *\([0-9]*\), size= *\([0-9]*\),.*/\1 \2/p')
[ -n "${start:-}" ] || die "$target has no first partition: is the probestick image on it?"
sectors=$((size / 512))
end=$(((sectors - start) / 2048 * 2048)) # whole MiB
if [ "$end" -le $((length + 16 * 2048)) ]; then
	echo "grow: $target: the partition already fills it ($((length / 2048)) MiB)" >&2
	exit 0
fi
off=$((start * 512))
img="$target@@$off"

# The volume's identity, kept so that the boot loaders still find it.
label=$(dd if="$target" bs=1 skip=$((off + 71)) count=11 status=none | tr -d '\0' | sed 's/ *$//')
volid=$(dd if="$target" bs=1 skip=$((off + 67)) count=4 status=none | od -An -tx4 | tr -d ' \n')
[ "$label" = PROBESTICK ] || die "$target's partition is labelled '$label', not PROBESTICK: not growing it"

work=$(mktemp -d "${TMPDIR:-/tmp}/probestick-grow.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/files"
mcopy -s -n -m -i "$img" '::/*' "$work/files/" || die "cannot read the files of $target's FAT"
# syslinux writes its loader again below, where it records its own sectors.
rm -f "$work/files/syslinux/ldlinux.sys"
before=$(cd "$work/files" && find . -type f | sort | xargs -d '\n' sha256sum)

echo "grow: $target: FAT partition from $((length / 2048)) MiB to $((end / 2048)) MiB" >&2
printf 'start=%d, size=%d, type=c, bootable\n' "$start" "$end" |
	sfdisk --quiet --no-reread --no-tell-kernel -N 1 "$target" 2>/dev/null ||
	die "cannot rewrite the partition table of $target"
mkfs.fat -F 32 -n "$label" -i "$volid" -h "$start" --offset "$start" "$target" $((end / 2)) >/dev/null ||
	die "mkfs.fat failed on $target: write the image again (make flash)"
(cd "$work/files" && mcopy -s -m -i "$img" ./* ::/) ||
	die "copying the files back to $target failed: write the image again (make flash)"
syslinux --install --offset "$off" --directory /syslinux "$target" ||
	die "syslinux could not be installed on $target: write the image again (make flash)"
# syslinux rewrote the boot sector only: its FAT32 backup (BPB_BkBootSec) must
# be the same, or fsck.fat (the check at every boot, any PC's) reports them.
bk=$(dd if="$target" bs=1 skip=$((off + 50)) count=2 status=none | od -An -tu2 | tr -d ' ')
[[ $bk =~ ^[0-9]+$ ]] && [ "$bk" -gt 0 ] || die "the new FAT32 boot sector names no backup sector"
dd if="$target" of="$target" bs=512 skip="$start" seek=$((start + bk)) count=1 conv=notrunc status=none ||
	die "cannot copy the boot sector to its backup on $target"
mkdir "$work/check"
mcopy -s -n -m -i "$img" '::/*' "$work/check/"
rm -f "$work/check/syslinux/ldlinux.sys"
# every file as it was (syslinux may add its ldlinux.c32 beside them)
(cd "$work/check" && sha256sum --check --quiet --strict <<<"$before") >&2 ||
	die "the files on $target differ after growing: write the image again"
sync
echo "grow: $target: done, $(mdir -i "$img" :: 2>/dev/null | sed -n 's/^ *\([0-9 ]*\) bytes free/\1/p' | tr -d ' ') bytes free" >&2
