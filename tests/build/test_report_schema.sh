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

# The full schema: docs/report-schema.json with each step's //schema: fragment.
schema=$OUT/gen/report-schema.json
[ -s "$schema" ] || fail "no $schema: run make first"

# 1. a full hand-checked report, and reports from fixture trees, validate
for root in tests/fixtures/sysroot-workstation tests/fixtures/sysroot-broken tests/fixtures/core/empty-root; do
	name=$(basename "$root")
	"$bin" --root "$root" run --plan quick --out "$tmp/reports-$name" >"$tmp/run-$name.log" 2>&1 ||
		fail "run on $root: $(cat "$tmp/run-$name.log")"
done
mapfile -t reports < <(find "$tmp" -name report.json | sort)
[ ${#reports[@]} -eq 3 ] || fail "expected 3 reports, found ${#reports[@]}"
validate "$schema" tests/fixtures/core/reports/*-v2.json "${reports[@]}" || fail "schema"
echo "schema: ${#reports[@]} fixture runs and the recorded reports valid"

# report.txt beside each report.json, complete, every line within 80 columns
for r in "${reports[@]}"; do
	txt=${r%.json}.txt
	[ -s "$txt" ] || fail "no $txt"
	grep -q '^probestick report: plan quick, complete$' "$txt" || fail "$txt: header"
	awk 'length($0) > 80 { print FILENAME ": " length($0) ": " $0; bad = 1 } END { exit bad }' "$txt" ||
		fail "lines over 80 columns"
done

# 2. the validator itself rejects a broken report (so the check above can fail)
"$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["steps"][0]["status"] = "fine"
del r["machine_id"]
json.dump(r, open(sys.argv[2], "w"))' "${reports[0]}" "$tmp/invalid.json"
# and a step whose data breaks its own fragment (disk_read without drives[])
"$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["steps"]:
    if s["name"] == "disk_read":
        del s["data"]["drives"]
json.dump(r, open(sys.argv[2], "w"))' tests/fixtures/core/reports/healthy-v2.json "$tmp/invalid-data.json"
if validate "$schema" "$tmp/invalid-data.json" >"$tmp/invalid-data.log"; then
	fail "a step whose data lacks a required field passed the schema"
fi
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
# show takes the stick's root and its reports folder as well as a run folder
"$bin" show "$tmp/stick" >"$tmp/show-stick.txt" || fail "show of the stick's root"
"$bin" show "$tmp/stick/reports" >"$tmp/show-reports.txt" || fail "show of the reports folder"
cmp -s "$tmp/show-stick.txt" "$tmp/show-reports.txt" || fail "show of the stick and its reports differ"

# 4b. the next boot on that stick: the first run made to look cut off during
# nic_tput, the stick checked by fsck.fat with a dirty flag and a lost cluster
# (check-stick on a small image); the run gets marked, the new report says
# what the check found and what was recovered, and both validate.
first=$boot_report
"$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
r["complete"] = False
r["running_step"] = "nic_tput"
r["probestick"]["boot_id"] = "an-earlier-boot"
open(sys.argv[1], "w").write(json.dumps(r) + "\n")' "$first"
if command -v fsck.fat >/dev/null && command -v mkfs.fat >/dev/null; then
	truncate -s 64M "$tmp/fat.img"
	mkfs.fat -F 32 "$tmp/fat.img" >/dev/null
	printf '\001' | dd of="$tmp/fat.img" bs=1 seek=65 conv=notrunc status=none
	"$py" tests/fixtures/fsck/fatpoke.py lost "$tmp/fat.img" 5000
	cp -r tests/fixtures/sysroot-workstation "$tmp/root"
	mkdir -p "$tmp/root/proc/sys/kernel/random"
	echo this-boot >"$tmp/root/proc/sys/kernel/random/boot_id"
	"$bin" check-stick "$tmp/fat.img" --json "$tmp/root/run/probestick/stick-check.json" >"$tmp/check.out" ||
		fail "check-stick: $(cat "$tmp/check.out")"
	grep -q "repaired: clean now" "$tmp/check.out" || fail "check-stick said: $(cat "$tmp/check.out")"
	root2=$tmp/root
else
	echo "no dosfstools here: the second boot runs without a stick check"
	root2=tests/fixtures/sysroot-workstation
fi
sleep 1 # a new folder name
"$bin" --root "$root2" boot --stick "$tmp/stick" >"$tmp/boot2.out" 2>&1 || fail "second boot: $(cat "$tmp/boot2.out")"
grep -q "stick: .*: the run stopped during nic_tput" "$tmp/boot2.out" ||
	fail "the second boot did not say it found the cut-off run: $(head -20 "$tmp/boot2.out")"
second=$(find "$tmp/stick/reports" -name report.json | sort | tail -n 1)
[ "$second" != "$first" ] || fail "the second boot wrote no report"
validate "$schema" "$first" "$second" || fail "schema of the marked report or the next one"
"$py" - "$first" "$second" "$root2" <<'PY' || fail "marked run or stick{} of the next report"
import json, sys
first, second = (json.load(open(p)) for p in sys.argv[1:3])
cut = first["interrupted"]
assert cut["during"] == "nic_tput", cut
# the boot id tells a power cut from a program that ended; the plain fixture has none
assert cut["cause"] == ("power_lost" if sys.argv[3] != "tests/fixtures/sysroot-workstation" else None), cut
rec = second["stick"]["recovered"]
assert any(x["action"] == "marked" for x in rec), rec
chk = second["stick"]["check"]
if sys.argv[3] != "tests/fixtures/sysroot-workstation":
    assert chk["clean"] is False and chk["clean_after"] is True, chk
    assert {p["kind"] for p in chk["problems"]} == {"dirty", "lost_clusters"}, chk["problems"]
PY
head -n 2 "${first%.json}.txt" | grep -q "INCOMPLETE: stopped during nic_tput (power lost\|INCOMPLETE: stopped during nic_tput (cut off" ||
	fail "the marked run's report.txt: $(head -n 2 "${first%.json}.txt")"
grep -q "^stick   checked at boot (fsck.fat" "${second%.json}.txt" ||
	[ "$root2" = tests/fixtures/sysroot-workstation ] || fail "the next report.txt does not show the stick check"
echo "next boot: the cut-off run marked, the check and the recovery in the next report"

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
