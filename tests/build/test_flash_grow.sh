#!/usr/bin/env bash
# make flash gives the whole stick to the FAT partition (scripts/grow-stick.sh,
# run by scripts/flash.sh after writing). A 2 GiB sparse file stands in for
# the stick: after growing, the partition reaches its end, the file system is
# clean (fsck.fat -n says nothing) with the image's label and volume id, every file of the image is
# there unchanged, syslinux is installed again, and the MBR's disk id (the
# PARTUUID the boot entries name) is the image's. Growing again changes
# nothing; a partition that is not probestick's is refused.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
img=$OUT/probestick.img
[ -s "$img" ] || { echo "skip: needs $img: run make first"; exit 77; }
for t in sfdisk mkfs.fat mcopy syslinux fsck.fat; do
	command -v $t >/dev/null || { echo "skip: $t is not installed (scripts/deps.sh)"; exit 77; }
done
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
t=$(mktemp -d "${TMPDIR:-/tmp}/probestick-grow-test.XXXXXX")
trap 'rm -rf "$t"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

stick=$t/stick.raw
truncate -s 2G "$stick"
dd if="$img" of="$stick" bs=4M conv=notrunc,sparse status=none
label_id() { sfdisk --dump "$1" | sed -n 's/^label-id: //p'; }
serial() { minfo -i "$1@@1M" :: 2>/dev/null | sed -n 's/.*serial number: *//Ip' | head -n 1; }
list() { # IMAGE: every file with its checksum, but syslinux's own loader
	rm -rf "$t/l" && mkdir "$t/l" && mcopy -s -n -m -i "$1@@1M" '::/*' "$t/l/" &&
		(cd "$t/l" && find . -type f ! -path ./syslinux/ldlinux.sys | sort | xargs -d '\n' sha256sum)
}
want_files=$(list "$img")
want_id=$(label_id "$img")
want_serial=$(serial "$img")

scripts/grow-stick.sh "$stick" 2>"$t/grow.log" || fail "grow-stick.sh: $(cat "$t/grow.log")"
cat "$t/grow.log"
read -r start size < <(sfdisk --dump "$stick" | sed -n 's/^[^:]*1 : start= *\([0-9]*\), size= *\([0-9]*\),.*/\1 \2/p')
total=$(($(stat -c %s "$stick") / 512))
[ "$start" = 2048 ] || fail "the partition moved: starts at $start"
[ $((start + size)) -le "$total" ] && [ $((total - start - size)) -lt 2048 ] ||
	fail "the partition ends at $((start + size)) of $total sectors"
sfdisk --dump "$stick" | grep -q 'type=c, bootable' || fail "the partition is no longer bootable FAT32 (LBA)"
[ "$(label_id "$stick")" = "$want_id" ] || fail "disk id $(label_id "$stick"), the image's is $want_id"
[ "$(serial "$stick")" = "$want_serial" ] || fail "volume id $(serial "$stick"), the image's is $want_serial"
minfo -i "$stick@@1M" :: | grep -q 'disk type="FAT32' || fail "not FAT32"
mdir -i "$stick@@1M" :: | grep -q 'Volume in drive : is PROBESTICK' || fail "label is not PROBESTICK"
free=$(mdir -i "$stick@@1M" :: | sed -n 's/^ *\([0-9 ]*\) bytes free/\1/p' | tr -d ' ')
[ "${free:-0}" -gt $((1900 << 20)) ] || fail "only ${free:-0} bytes free on a 2 GiB stick"
[ "$(list "$stick")" = "$want_files" ] || fail "the files differ from the image's"
mdir -a -i "$stick@@1M" ::/syslinux | grep -q '^ldlinux  *sys' || fail "syslinux's loader is missing"
dd if="$stick" bs=512 skip=2048 count=1 status=none | grep -aq SYSLINUX || fail "no syslinux boot sector"
dd if="$stick" bs=512 count=1 status=none | cmp -s -n 440 - "$img" || fail "the MBR boot code changed"
dd if="$stick" of="$t/part.raw" bs=1M skip=1 conv=sparse status=none
fsck.fat -n "$t/part.raw" >"$t/fsck.log" 2>&1 || fail "fsck.fat: $(cat "$t/fsck.log")"
# clean means nothing said (the boot's check repairs anything else it says)
grep -v -e '^fsck\.fat ' -e ': [0-9]* files, [0-9]*/[0-9]* clusters$' "$t/fsck.log" | grep -q . &&
	fail "fsck.fat -n has something to say on the grown stick: $(cat "$t/fsck.log")"
rm -f "$t/part.raw"
# again: nothing to do
scripts/grow-stick.sh "$stick" 2>"$t/again.log" || fail "a second grow failed"
grep -q "already fills it" "$t/again.log" || fail "a second grow did something: $(cat "$t/again.log")"

# someone else's FAT: refused, untouched
other=$t/other.raw
truncate -s 128M "$other"
printf 'label: dos\nstart=2048, type=c\n' | sfdisk --quiet "$other"
mkfs.fat -F 32 -n OTHERSTICK --offset 2048 "$other" 129024 >/dev/null 2>&1
echo precious >"$t/p.txt" && mcopy -i "$other@@1M" "$t/p.txt" ::/p.txt
truncate -s 1G "$other"
if scripts/grow-stick.sh "$other" 2>"$t/other.log"; then
	fail "grew a partition labelled OTHERSTICK"
fi
grep -q "labelled 'OTHERSTICK', not PROBESTICK" "$t/other.log" || fail "no reason given: $(cat "$t/other.log")"
[ "$(mtype -i "$other@@1M" ::/p.txt)" = precious ] || fail "the other stick's file changed"

[ $fails -eq 0 ] || { echo "$fails problem(s)"; exit 1; }
echo "grown: $((size / 2048)) MiB FAT partition on a 2 GiB stick, $free bytes free, files and ids kept"
