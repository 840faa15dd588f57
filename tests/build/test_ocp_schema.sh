#!/usr/bin/env bash
# Every line of report.ocp.jsonl validates against tests/ocp/ocp-output.schema.json
# (the OCP Test and Validation output spec 2.0, written from its field
# definitions) with the ordering rules of tests/ocp/check_ocp.py: for
# recorded reports, for a plan run with stream=serial (the serial stream and
# the file hold the same lines), and the checker refuses broken lines.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
py=/usr/bin/python3
check=tests/ocp/check_ocp.py
[ -x "$bin" ] || { echo "skip: needs $bin: run make first"; exit 77; }
$py -c 'import jsonschema' 2>/dev/null || { echo "skip: python3-jsonschema is not installed"; exit 77; }
t=$OUT/ocp-test
rm -rf "$t" && mkdir -p "$t"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

for f in healthy-v2 nomodule-v2 full; do
	mkdir -p "$t/$f"
	cp "tests/fixtures/core/reports/$f.json" "$t/$f/report.json"
	"$bin" show "$t/$f" --format ocp >"$t/$f.jsonl" || fail "show --format ocp $f"
	$py $check "$t/$f.jsonl" --complete --steps 2 || fail "$f.jsonl"
done

# A plan with the stream on: the serial line gets the file's lines as each step ends.
root=$t/root stick=$t/stick
cp -r tests/fixtures/sysroot-workstation "$root"
mkdir -p "$root/dev" "$stick"
: >"$root/dev/ttyS0"
printf 'plan=quick\nthen=poweroff\nconsole=ttyS0\nstream=serial\n' >"$stick/probestick.cfg"
"$bin" --root "$root" boot --stick "$stick" >"$t/boot.out" 2>&1 || fail "boot: $(tail -n 3 "$t/boot.out")"
file=$(find "$stick/reports" -name report.ocp.jsonl | head -n 1)
[ -s "$file" ] || fail "no report.ocp.jsonl beside report.json"
$py $check "$file" --complete --steps 2 || fail "report.ocp.jsonl of the run"
$py $check "$root/dev/ttyS0" --serial --complete --steps 2 || fail "the serial stream"
tr -d '\r' <"$root/dev/ttyS0" | grep '^{' >"$t/stream.jsonl"
cmp -s "$t/stream.jsonl" "$file" || fail "the stream and report.ocp.jsonl differ"

# The checker can fail: a line without a timestamp, an unknown diagnosis type,
# a missing step end, a sequence out of order, a line that is not JSON.
good=$t/healthy-v2.jsonl
expect_bad() { # NAME SED-EXPRESSION
	sed "$2" "$good" >"$t/bad.jsonl"
	if $py $check "$t/bad.jsonl" --complete >"$t/bad.out" 2>&1; then
		fail "the checker accepted $1"
	else
		echo "ok: refused $1: $(head -n 1 "$t/bad.out" | cut -c1-120)"
	fi
}
expect_bad "no timestamp" '3s/"timestamp":"[^"]*",//'
expect_bad "a diagnosis type MAYBE" '0,/"type":"PASS"/s//"type":"MAYBE"/'
expect_bad "a step without its end" '/"testStepId":"1","testStepEnd"/d'
expect_bad "sequence numbers out of order" '5s/"sequenceNumber":4,/"sequenceNumber":40,/'
expect_bad "a line that is not JSON" '7s/$/,/'
expect_bad "two artifacts in one line" '2s/"testRunArtifact"/"schemaVersion":{"major":2,"minor":0},"testRunArtifact"/'
expect_bad "an unknown hardwareInfoId" '0,/"hardwareInfoId":"drive:sn:QEMU_HARDDISK:PS-SATA-0001","metadata"/s//"hardwareInfoId":"drive:nope","metadata"/'

[ $fails -eq 0 ] || { echo "$fails problem(s)"; exit 1; }
echo "OCP output valid: $(wc -l <"$good") artifacts of the healthy quick plan, the stream equals the file"
