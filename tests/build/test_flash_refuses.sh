#!/usr/bin/env bash
# scripts/flash.sh must refuse every unsafe target, and nothing may be written.
# Real cases: no image, no DEV, a missing path, a regular file, the disk that
# holds /. Fake-sysfs cases use a block node with no driver behind it (major
# 60, "local/experimental"), so even a wrong verdict cannot write anywhere.
set -uo pipefail
cd "$(dirname "$0")/../.."

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
img=$t/test.img
head -c $((1 << 20)) /dev/urandom >"$img"

# expect_refusal NAME EXPECTED_MESSAGE STDIN ARGS... (env via the caller)
expect_refusal() {
	local what=$1 want=$2 input=$3 rc
	shift 3
	printf '%s' "$input" | "$@" >"$t/out" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$t/out" && ! grep -q 'flash: writing' "$t/out"; then
		echo "ok: $what"
	elif [ $rc -ne 0 ] && [ "$want" = "FAILED" ] && grep -q -- "$want" "$t/out"; then
		echo "ok: $what"
	else
		echo "FAIL: $what: exit $rc, expected a refusal saying '$want', got:"
		sed 's/^/    /' "$t/out"
		fails=$((fails + 1))
	fi
}

F=scripts/flash.sh
expect_refusal "no arguments" "no image given" "" $F
expect_refusal "missing image" "does not exist or is empty" "" $F "$t/nope.img" /dev/null
expect_refusal "no DEV" "no target device" "" $F "$img" ""
expect_refusal "non-existent DEV" "does not exist" "" $F "$img" "$t/no-such-disk"
echo precious >"$t/regular"
expect_refusal "regular file as DEV" "not a block device" "$t/regular" $F "$img" "$t/regular"
[ "$(cat "$t/regular")" = precious ] || { echo "FAIL: the regular file was changed"; fails=$((fails + 1)); }
expect_refusal "character device as DEV" "not a block device" "/dev/null" $F "$img" /dev/null

# The disk under / (when / is on a block device at all).
rootnum=$(mountpoint -d / 2>/dev/null || true)
rootdisk=
if [ -n "$rootnum" ] && [ -e "/sys/dev/block/$rootnum" ]; then
	r=$(readlink -f "/sys/dev/block/$rootnum")
	[ -e "$r/partition" ] && r=$(dirname "$r")
	rootdisk=/dev/$(basename "$r")
fi
if [ -n "$rootdisk" ] && [ -b "$rootdisk" ]; then
	expect_refusal "root disk $rootdisk" "root filesystem\|is in use" "$rootdisk" env FORCE=1 $F "$img" "$rootdisk"
	for p in /sys/class/block/"$(basename "$rootdisk")"/"$(basename "$rootdisk")"*; do
		[ -e "$p/partition" ] || continue
		expect_refusal "partition /dev/$(basename "$p")" "is a partition" "" env FORCE=1 $F "$img" "/dev/$(basename "$p")"
		break
	done
	expect_refusal "fake sysfs over a real disk" "is a real device" "$rootdisk" \
		env PS_FLASH_SYSROOT="$t/root" $F "$img" "$rootdisk"
else
	echo "note: / is not on a block device here; root-disk case not run"
fi

# Fake disks: sysfs and /proc under $t/root, nodes with no driver.
if [ "$(id -u)" -ne 0 ]; then
	echo "note: not root, cannot mknod; fake-disk cases not run"
else
	R=$t/root
	mkdir -p "$R/proc" "$t/dev"
	: >"$R/proc/mounts"
	: >"$R/proc/swaps"
	minor=0
	# fakedisk NAME SIZE_SECTORS REMOVABLE [PARENT]
	fakedisk() {
		local name=$1 size=$2 rm=$3 parent=${4:-} d
		while [ -e "/sys/dev/block/60:$minor" ]; do minor=$((minor + 1)); done
		if [ -n "$parent" ]; then
			d=$R/sys/devices/fake/$parent/$name
			echo 1 >"$R/sys/devices/fake/$parent/$name.partition" 2>/dev/null
		else
			d=$R/sys/devices/fake/$name
		fi
		mkdir -p "$d/device" "$d/holders" "$R/sys/class/block"
		ln -sfn "$d" "$R/sys/class/block/$name"
		echo "60:$minor" >"$d/dev"
		echo "$size" >"$d/size"
		echo "$rm" >"$d/removable"
		[ -n "$parent" ] && echo 1 >"$d/partition"
		echo "FAKE    " >"$d/device/vendor"
		echo "Stick $name" >"$d/device/model"
		rm -f "$t/dev/$name"
		mknod "$t/dev/$name" b 60 "$minor"
		minor=$((minor + 1))
	}
	big=$((64 << 11))
	fakedisk sdx "$big" 1
	S="env PS_FLASH_SYSROOT=$R"
	expect_refusal "wrong confirmation" "nothing was written" "sdx\n" $S $F "$img" "$t/dev/sdx"
	expect_refusal "no confirmation (EOF)" "nothing was written" "" $S $F "$img" "$t/dev/sdx"
	grep -q "Stick sdx" "$t/out" || { echo "FAIL: the prompt did not show the model"; fails=$((fails + 1)); }
	# The right answer reaches dd, which fails on the driverless node: the
	# error must be reported, not hidden.
	expect_refusal "write error reported" "FAILED" "$t/dev/sdx
" $S $F "$img" "$t/dev/sdx"
	fakedisk sdy "$big" 0
	expect_refusal "not removable" "not a removable disk" "$t/dev/sdy
" $S $F "$img" "$t/dev/sdy"
	expect_refusal "not removable, FORCE=1, wrong answer" "nothing was written" "no
" $S FORCE=1 $F "$img" "$t/dev/sdy"
	fakedisk sdz 1024 1
	expect_refusal "smaller than the image" "smaller than the image" "$t/dev/sdz
" $S $F "$img" "$t/dev/sdz"
	fakedisk sdw "$big" 1
	fakedisk sdw1 "$((big - 2048))" 1 sdw
	echo "/dev/sdw1 /media/stick vfat rw 0 0" >"$R/proc/mounts"
	expect_refusal "mounted partition" "is mounted on /media/stick" "$t/dev/sdw
" $S $F "$img" "$t/dev/sdw"
	expect_refusal "partition as DEV" "is a partition" "$t/dev/sdw1
" $S $F "$img" "$t/dev/sdw1"
	: >"$R/proc/mounts"
	echo "/dev/sdw1 partition 1000 0 -2" >"$R/proc/swaps"
	expect_refusal "swap partition" "active swap" "$t/dev/sdw
" $S $F "$img" "$t/dev/sdw"
	: >"$R/proc/swaps"
	fakedisk dm-7 "$big" 0
	ln -s ../../dm-7 "$R/sys/devices/fake/sdw/sdw1/holders/dm-7"
	expect_refusal "device-mapper on top" "device-mapper or md" "$t/dev/sdw
" $S $F "$img" "$t/dev/sdw"
fi

[ $fails -eq 0 ] || { echo "$fails case(s) failed"; exit 1; }
echo "all refusals hold"
