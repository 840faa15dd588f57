#!/usr/bin/env bash
# A stick with too little room and a probestick.cfg of random bytes: the plan
# completes, report.json parses as UTF-8 JSON, report.txt renders exactly that
# report.json, and the console said what happened (too little room before the
# plan; which files hold the record after it). A small tmpfs stands in for
# the nearly full stick.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
py=/usr/bin/python3
[ -x "$bin" ] || { echo "needs $bin: run make first"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "skip: mounting a small tmpfs needs root"; exit 77; }
mnt=$(mktemp -d)
mount -t tmpfs -o size=52k tmpfs "$mnt" || { echo "skip: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$mnt"; rmdir "$mnt"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

# 20 kB of random bytes, then the two lines that matter
head -c 20000 /dev/urandom >"$mnt/probestick.cfg"
printf '\nplan=quick\nthen=poweroff\n' >>"$mnt/probestick.cfg"
"$bin" --root tests/fixtures/sysroot-workstation boot --stick "$mnt" >"$OUT/small-stick.out" 2>&1 ||
	fail "boot exited $?: $(tail -n 5 "$OUT/small-stick.out")"
out=$OUT/small-stick.out
[ "$(tail -n 1 "$out")" = "then=poweroff" ] || fail "the plan did not end: $(tail -n 3 "$out")"
grep -q "WARNING: only [0-9]* KiB free where the report goes" "$out" || fail "no word about the room"
grep -qE "^Saved: report.json( and report.txt)? with [0-9]+ steps? only, marked incomplete" "$out" ||
	fail "the summary does not say which files hold the record: $(grep -A1 '^Saved' "$out")"
awk 'length($0) > 80 { bad = 1; print "long: " $0 } END { exit bad }' "$out" || fail "console lines over 80"
if LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f]' "$out"; then
	fail "control bytes reached the console"
fi
# warnings of the random file are capped, with a count of the rest
n=$(grep -c "^warning: $mnt/probestick.cfg" "$out")
[ "$n" -le 24 ] || fail "$n config warnings on the console"
grep -qE "more lines|warning: [0-9]+ more: every warning is in each report" "$out" || fail "no count of the capped warnings"

dir=$(dirname "$(find "$mnt/reports" -name report.json)")
[ -d "$dir" ] || fail "no report.json on the stick"
"$py" - "$dir/report.json" <<'PY' || fail "report.json"
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")  # strict: every string is valid UTF-8
r = json.loads(raw)
assert r["complete"] is False, "a report that could not be finished says complete: false"
assert len(r["steps"]) >= 1
PY
# report.txt is the rendering of the report.json beside it, not of a later state
# (show prints WRITE-FAILED.txt first, when it fits, then "Report DIR" and the text)
"$bin" show "$dir" | sed -n '/^Report /,$p' | tail -n +2 >"$OUT/small-stick.show"
if [ -e "$dir/report.txt" ]; then
	cmp -s "$OUT/small-stick.show" "$dir/report.txt" || fail "report.txt and report.json disagree"
	grep -q "INCOMPLETE" "$dir/report.txt" || fail "report.txt does not say it is incomplete"
fi
echo "small stick: $(grep '^Saved' "$out")"
