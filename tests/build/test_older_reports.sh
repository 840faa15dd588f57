#!/usr/bin/env bash
# Reports keep their meaning across the step kit: a report written by
# probestick 2009b3e (before typed results; tests/fixtures/core/reports/
# workstation-2009b3e, the quick plan on the workstation fixture tree) and the
# recorded v2 reports still validate against this build's schema, show every
# step through a view of their data version (memory's version 1 through the
# view the step keeps) and compare against a run of this build, figure by
# figure (memory's kernels matched across the rename of best_gbps to max_gbps).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
schema=$OUT/gen/report-schema.json
if [ ! -x "$bin" ] || [ ! -s "$schema" ]; then
	echo "needs $bin and $schema: run make first"
	exit 77
fi
fail() {
	echo "FAIL: $*"
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
old=tests/fixtures/core/reports/workstation-2009b3e

/usr/bin/python3 - "$schema" "$old/report.json" tests/fixtures/core/reports/*-v2.json <<'PY' || fail "older reports against the schema"
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = 0
for p in sys.argv[2:]:
    for e in list(v.iter_errors(json.load(open(p))))[:5]:
        print(f"{p}: /{'/'.join(map(str, e.path))}: {e.message[:160]}")
        bad = 1
sys.exit(bad)
PY

"$bin" show "$old" >"$tmp/show.txt" 2>&1 || fail "show $old: $(head -3 "$tmp/show.txt")"
grep -q 'see report.json' "$tmp/show.txt" && fail "a step of $old is not shown: $(grep 'see report.json' "$tmp/show.txt")"
grep -q 'triad' "$tmp/show.txt" || fail "memory's kernels of $old are not shown"

"$bin" --root tests/fixtures/sysroot-workstation run --plan quick --out "$tmp/new" >"$tmp/run.log" 2>&1 ||
	fail "run: $(tail -3 "$tmp/run.log")"
new=$(dirname "$(find "$tmp/new" -name report.json)")
"$bin" compare "$old" "$new" >"$tmp/compare.txt" 2>&1 || fail "compare: $(head -5 "$tmp/compare.txt")"
for k in copy scale add triad; do
	for what in "best GB/s" "median GB/s"; do
		line=$(grep -E "^  $k $what " "$tmp/compare.txt" || true)
		[ -n "$line" ] || fail "compare has no row '$k $what'"
		case $line in *"(none)"*) fail "compare did not match '$k $what' across versions: $line" ;; esac
	done
done
echo "older reports: 2009b3e's report and the recorded v2 reports validate, show and compare"
