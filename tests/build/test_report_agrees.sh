#!/usr/bin/env bash
# No contradictions in a report (issue 24): the quick plan run on the host
# over each fixture machine (tests/fixtures/sysroot-*) gives reports whose
# steps' status, their rows' verdicts and report.txt's verdict block agree
# (tests/lib/report_agrees.py; the boot tests run the same check on their
# guests' reports in check_report.py). The check has teeth: the recorded
# nic-peer-v2 report, from before the rows followed the step (every nic_loop
# row WARN under a passing step), fails it, and so does a copy of a fresh
# report with one row made worse than its step.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
[ -x "$bin" ] || { echo "needs $bin: run make first"; exit 77; }
fail() {
	echo "FAIL: $*"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
agrees=tests/lib/report_agrees.py

for root in tests/fixtures/sysroot-*; do
	name=${root##*/}
	timeout 300 "$bin" --root "$root" run --plan quick --out "$tmp/$name" </dev/null >"$tmp/$name.log" 2>&1 ||
		[ -n "$(find "$tmp/$name" -name report.json 2>/dev/null)" ] ||
		fail "$name: no report ($(tail -n 3 "$tmp/$name.log"))"
	python3 "$agrees" --text "$tmp/$name" || fail "$name: the report contradicts itself (above)"
done

out=$(python3 "$agrees" tests/fixtures/core/reports/nic-peer-v2.json) &&
	fail "the recorded WARN rows under a passing nic_loop were not caught"
grep -q "nic_loop: status pass, but 4 row(s) say warn" <<<"$out" || fail "not the nic_loop rows: $out"

# a fresh report, one step's verdict and one row made worse than the step, and
# report.txt's verdict block left without a FAIL the verdicts now hold
report=$(find "$tmp/sysroot-workstation" -name report.json | head -n 1)
python3 - "$report" "$tmp/bad/report.json" <<'PY' || fail "could not make the bad copy"
import json, os, sys
r = json.load(open(sys.argv[1]))
s = next(s for s in r["steps"] if s["status"] == "pass" and s.get("verdicts"))
s["verdicts"][0]["status"] = "fail"
s["data"] = {"rows": [{"verdict": "warn"}]}
os.makedirs(os.path.dirname(sys.argv[2]))
json.dump(r, open(sys.argv[2], "w"))
PY
cp "$(dirname "$report")/report.txt" "$tmp/bad/"
out=$(python3 "$agrees" --text "$tmp/bad/report.json") && fail "a made-up contradiction passed"
for want in "but a verdict says fail" "row(s) say warn" "the verdict block does not say so"; do
	grep -qF "$want" <<<"$out" || fail "not caught: $want ($out)"
done
echo "report_agrees: $(ls -d tests/fixtures/sysroot-* | wc -l) fixture machines' quick plans agree; 3 kinds of contradiction caught"
