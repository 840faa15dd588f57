#!/usr/bin/env bash
# The stick store's remounts for real, on the host: a small tmpfs mounted
# read-only stands in for the stick as /init leaves it. probestick boot
# writes the plan's report through the store (read-write only for each
# write), and the stick is read-only again afterwards, with every report
# readable. The vfat write order itself is tested in a guest
# (tests/boot/test_powercut).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
[ -x "$bin" ] || { echo "needs $bin: run make first"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skip: mounting a tmpfs needs root"; exit 77; }
mnt=$(mktemp -d)
mount -t tmpfs -o size=8m,nosuid,nodev tmpfs "$mnt" || { echo "skip: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
opts() { awk -v m="$mnt" '$2 == m { print $4 }' /proc/mounts; }

printf 'plan=quick\nthen=poweroff\n' >"$mnt/probestick.cfg"
mount -o remount,ro "$mnt" || fail "cannot remount the tmpfs read-only"
case ,$(opts), in *,ro,*) ;; *) fail "not read-only: $(opts)" ;; esac
touch "$mnt/x" 2>/dev/null && fail "a read-only tmpfs took a write"

"$bin" --root tests/fixtures/sysroot-workstation boot --stick "$mnt" >"$OUT/store-remount.out" 2>&1 ||
	fail "boot exited $?: $(tail -n 5 "$OUT/store-remount.out")"
[ "$(tail -n 1 "$OUT/store-remount.out")" = "then=poweroff" ] || fail "the plan did not end"
case ,$(opts), in
*,ro,*) echo "store: the stick is read-only again after the plan ($(opts))" ;;
*) fail "the stick was left read-write: $(opts)" ;;
esac
case ,$(opts), in *,nosuid,*nodev,* | *,nodev,*nosuid,*) ;; *) fail "the remounts dropped nosuid/nodev: $(opts)" ;; esac
report=$(find "$mnt/reports" -name report.json)
[ -n "$report" ] || fail "no report on the stick"
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["complete"] is True' "$report" ||
	fail "the report is not a complete one"
! find "$mnt" -name '.*.tmp' | grep -q . || fail "temporary files left: $(find "$mnt" -name '.*.tmp')"
grep -q "probestick report: plan quick, complete" "${report%.json}.txt" || fail "report.txt"
echo "ok"
