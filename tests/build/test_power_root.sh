#!/usr/bin/env bash
# Power and board sensors through --root, as /init runs probestick (boot --stick):
# a workstation tree with a recorded desktop board (tests/fixtures/power/hwmon:
# NCT6776F, Vbat above its window, fans stopped with their alarms) and recorded
# RAPL zones (tests/fixtures/power/powercap/i5-13500: no DRAM zone), and
# probestick.cfg's wall meter readings. The report validates; the readings are
# in report.txt, report.html and report.ocp.jsonl beside RAPL's figures; the
# sensors view shows fans and voltages; the rail and the fans are findings.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
schema=$OUT/gen/report-schema.json
if [ ! -x "$bin" ] || [ ! -s "$schema" ]; then
	echo "needs $bin and $schema: run make first"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

mkdir -p "$tmp/root" "$tmp/stick"
cp -r tests/fixtures/sysroot-workstation/. "$tmp/root"
cp -r tests/fixtures/power/hwmon/nct6776-asrock-970-extrem4/. "$tmp/root"
cp -r tests/fixtures/power/powercap/i5-13500/. "$tmp/root"
printf 'plan=quick\nthen=shell\nsteps=inventory\nwall_idle=105\nwall_load=205 W\n' \
	>"$tmp/stick/probestick.cfg"
"$bin" --root "$tmp/root" boot --stick "$tmp/stick" >"$tmp/boot.out" 2>&1 ||
	fail "boot: $(tail -n 5 "$tmp/boot.out")"
json=$(find "$tmp/stick/reports" -name report.json)
[ -n "$json" ] || fail "no report.json: $(tail -n 5 "$tmp/boot.out")"
dir=$(dirname "$json")

/usr/bin/python3 - "$schema" "$json" <<'PY' || fail "report.json"
import json, sys, jsonschema
schema, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator(schema).validate(r)
p = r["power"]
assert p["wall"] == {"idle_w": 105, "load_w": 205, "source": "probestick.cfg", "entered": None}, p["wall"]
assert r["probestick"]["config"]["wall_load"] == "205 W"
step = r["steps"][0]
e = step["energy"]
# the recorded zones: the package alone is the total, no DRAM zone on a desktop part
assert e["available"] is True and e["covers"] == "package-0", e
assert [d["name"] for d in e["domains"]] == ["package-0", "core", "uncore"], e["domains"]
assert p["rapl"]["available"] is True and p["rapl"]["load_step"] == "inventory", p["rapl"]
rules = sorted(f["rule"] for f in step["findings"] if f["rule"].startswith("sensors."))
assert rules == ["sensors.fan_stopped", "sensors.rail_out_of_range"], rules
rail = [f for f in step["findings"] if f["rule"] == "sensors.rail_out_of_range"][0]
assert rail["subject"] == "nct6776 Vbat (in8)" and rail["value"] == 3.344 and rail["limit"] == 3.296, rail
kinds = [s["kind"] for s in step["sensors"]["sensors"]]
assert kinds.count("fan") == 5 and kinds.count("in") == 8, kinds
print("report.json: valid; wall 105/205 W beside RAPL (package-0, no DRAM zone); Vbat and 5 fans judged")
PY

txt=$dir/report.txt
for want in "wall, idle        105.0 W" "wall, full load   205.0 W" "RAPL load in step inventory" \
	"Fans during the step" "Voltages during the step" "Vbat (in8)   3.344" \
	"nct6776 Vbat (in8): read 3.344 V" "[sensors.rail_out_of_range]" "[sensors.fan_stopped]"; do
	grep -qF -- "$want" "$txt" || fail "report.txt lacks '$want'"
done
awk 'length($0) > 80 { print FILENAME ": " length($0) ": " $0; bad = 1 } END { exit bad }' "$txt" ||
	fail "report.txt has lines over 80 columns"
for want in "wall, idle" "Voltages during the step" "Fans during the step" "rail_out_of_range"; do
	grep -qF "$want" "$dir/report.html" || fail "report.html lacks '$want'"
done
/usr/bin/python3 - "$dir/report.ocp.jsonl" <<'PY' || fail "report.ocp.jsonl"
import json, sys
m = {}
for line in open(sys.argv[1]):
    a = json.loads(line)
    x = a.get("testStepArtifact", {}).get("measurement")
    if x:
        m[x["name"]] = x
idle = [v for k, v in m.items() if k.endswith("power.wall.idle_w")]
load = [v for k, v in m.items() if k.endswith("power.wall.load_w")]
rapl = [v for k, v in m.items() if k.endswith("power.rapl.load_w")]
assert idle and idle[0]["value"] == 105 and idle[0]["unit"] == "W", idle
assert load and load[0]["value"] == 205, load
assert rapl, sorted(m)
print("report.ocp.jsonl: the wall's 105 and 205 W beside RAPL's load as measurements")
PY
echo "power_root: passed"
