#!/usr/bin/env bash
# Reports that out/probestick writes match docs/report-schema.json; show, boot and the
# CLI give clear messages on damaged reports and bad arguments.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
py=/usr/bin/python3
if [ ! -x "$bin" ]; then
	echo "needs $bin: run make first"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

validate() { # validate SCHEMA FILE...: fails on the first invalid document
	"$py" - "$@" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for p in sys.argv[2:]:
    for e in sorted(v.iter_errors(json.load(open(p))), key=lambda e: list(e.path))[:10]:
        print(f"{p}: /{'/'.join(map(str, e.path))}: {e.message[:200]}")
        bad = 1
sys.exit(bad)
PY
}
fail() {
	echo "FAIL: $*"
	exit 1
}

schema=docs/report-schema.json

# 1. a full hand-checked report, and reports from fixture trees, validate
for root in tests/fixtures/sysroot-workstation tests/fixtures/sysroot-broken tests/fixtures/core/empty-root; do
	name=$(basename "$root")
	"$bin" --root "$root" run --plan quick --out "$tmp/reports-$name" >"$tmp/run-$name.log" 2>&1 ||
		fail "run on $root: $(cat "$tmp/run-$name.log")"
done
mapfile -t reports < <(find "$tmp" -name report.json | sort)
[ ${#reports[@]} -eq 3 ] || fail "expected 3 reports, found ${#reports[@]}"
validate "$schema" tests/fixtures/core/reports/full.json "${reports[@]}" || fail "schema"
echo "schema: ${#reports[@]} fixture runs and full.json valid"

# report.txt beside each report.json, complete, every line within 80 columns
for r in "${reports[@]}"; do
	txt=${r%.json}.txt
	[ -s "$txt" ] || fail "no $txt"
	grep -q '^probestick report  plan quick  complete$' "$txt" || fail "$txt: header"
	awk 'length($0) > 80 { print FILENAME ": " length($0) ": " $0; bad = 1 } END { exit bad }' "$txt" ||
		fail "lines over 80 columns"
done

# 2. the validator itself rejects a broken report (so the check above can fail)
"$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["steps"][0]["status"] = "fine"
del r["machine_id"]
json.dump(r, open(sys.argv[2], "w"))' tests/fixtures/core/reports/full.json "$tmp/invalid.json"
if validate "$schema" "$tmp/invalid.json" >"$tmp/invalid.log"; then
	fail "an invalid report passed the schema"
fi
grep -q "machine_id" "$tmp/invalid.log" || fail "no message for the missing machine_id"

# 3. show: a good report prints, a damaged one gives a clear message and exit 1
ws=$(dirname "$(find "$tmp/reports-sysroot-workstation" -name report.json)")
"$bin" show "$ws" >"$tmp/show.txt" || fail "show of a good report"
grep -q "PCI functions" "$tmp/show.txt" || fail "show printed no PCI table"
"$bin" show "$tmp/reports-sysroot-workstation" >"$tmp/show-latest.txt" || fail "show of a reports root"
cmp -s "$tmp/show.txt" "$tmp/show-latest.txt" || fail "show of the root is not the latest report"
mkdir -p "$tmp/damaged"
head -c 300 "$ws/report.json" >"$tmp/damaged/report.json"
if "$bin" show "$tmp/damaged" >"$tmp/show-bad.out" 2>"$tmp/show-bad.err"; then
	fail "show of a damaged report exited 0"
fi
grep -q "report.json is not valid JSON (unexpected end at byte 300 of 300)" "$tmp/show-bad.err" ||
	fail "show message: $(cat "$tmp/show-bad.err")"
echo "show: $(cat "$tmp/show-bad.err")"

# 4. boot: probestick.cfg written on Windows, reports on the stick, then= last
mkdir -p "$tmp/stick"
printf 'plan=quick\r\nthen=poweroff\r\ncolour=blue\r\n' >"$tmp/stick/probestick.cfg"
"$bin" --root tests/fixtures/sysroot-workstation boot --stick "$tmp/stick" >"$tmp/boot.out" 2>&1 ||
	fail "boot: $(cat "$tmp/boot.out")"
[ "$(tail -n 1 "$tmp/boot.out")" = "then=poweroff" ] || fail "boot last line: $(tail -n 1 "$tmp/boot.out")"
boot_report=$(find "$tmp/stick/reports" -name report.json)
[ -n "$boot_report" ] || fail "boot wrote no report on the stick"
validate "$schema" "$boot_report" || fail "boot report schema"
grep -q "line 3: unknown key 'colour'" "$boot_report" || fail "config warning not in the report"
grep -q "console tty0" "$boot_report" || fail "missing console not reported"

# 5. usage errors are clear and exit 2
set +e
"$bin" run --plan medium >/dev/null 2>"$tmp/e1"
[ $? -eq 2 ] && grep -q "unknown plan 'medium'" "$tmp/e1" || fail "bad plan: $(cat "$tmp/e1")"
"$bin" --root tests/fixtures/core/empty-root run --steps inventory,nosuch --out "$tmp/x" >"$tmp/e2" 2>&1
[ $? -eq 2 ] && grep -q "no step named 'nosuch'" "$tmp/e2" || fail "bad step: $(cat "$tmp/e2")"
"$bin" frobnicate >/dev/null 2>"$tmp/e3"
[ $? -eq 2 ] && grep -q "unknown command 'frobnicate'" "$tmp/e3" || fail "bad command"
set -e
echo "ok"
