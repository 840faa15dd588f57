#!/usr/bin/env bash
# Nothing that was not measured is called pass (docs/rules.md, "Measured or
# not"): the quick plan's smart, nic_loop and mtu over the --root tree of a
# host whose only NIC is in use (tests/fixtures/sysroot-one-nic: enp2s0
# carries the default route in its /proc/net/route) and whose only drive
# gives smartctl no answer. Each step is skipped with its reason, each device
# is "untested" in the report with why, and report.txt's verdict block lists
# them as not tested, never "pass 1 nic".
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
[ -x "$OUT/probestick" ] || { echo "skip: $OUT/probestick is not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$OUT/probestick" --root tests/fixtures/sysroot-one-nic run --plan quick \
	--steps smart,nic_loop,mtu --out "$tmp" >"$tmp/console.txt" 2>&1
dir=$(dirname "$(find "$tmp" -name report.json | head -1)")
[ -f "$dir/report.json" ] || { cat "$tmp/console.txt"; echo "no report.json"; exit 1; }
python3 - "$dir/report.json" "$dir/report.txt" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
text = re.sub(r"\n +", " ", open(sys.argv[2]).read())
steps = {s["name"]: s for s in r["steps"]}
bad = []
for name, why in (("smart", r"no drive answered smartctl|smartctl is not installed"),
                  ("nic_loop", r"live system only"), ("mtu", r"live system only")):
    s = steps.get(name) or {}
    if s.get("status") != "skipped" or not re.search(why, s.get("reason") or ""):
        bad.append(f"{name}: status {s.get('status')!r}, reason {s.get('reason')!r}")
for name in ("nic_loop", "mtu"):
    v = [x for x in steps[name].get("verdicts", []) if x.get("subject") == "enp2s0"]
    if not v or v[0]["status"] != "untested" or v[0]["message"] != "in use: carries the default route":
        bad.append(f"{name}: enp2s0's verdict {v!r}")
if "smartctl is not installed" not in (steps["smart"].get("reason") or ""):
    v = [x for x in steps["smart"].get("verdicts", []) if x.get("subject") == "sda"]
    if not v or v[0]["status"] != "untested":
        bad.append(f"smart: sda's verdict {v!r}")
    if "NOT TESTED drive sda by smart: no SMART data" not in text:
        bad.append("report.txt does not list sda as not tested")
if any(v.get("status") == "pass" for s in r["steps"] for v in s.get("verdicts", [])
       if v.get("kind") in ("nic", "drive")):
    bad.append("a NIC or drive has a pass verdict")
if "pass 1 nic" in text or "NOT TESTED nic enp2s0 by nic_loop, mtu: in use: carries the default route" not in text:
    bad.append("report.txt's verdicts: " + text[text.find("Verdicts"):][:600])
if not re.search(r"NOT RUN [^\n]*nic_loop", text):
    bad.append("report.txt does not name the skipped steps")
for b in bad:
    print("not measured:", b)
print("not measured: smart, nic_loop and mtu skipped with their reasons; enp2s0 and sda untested" if not bad else "")
sys.exit(1 if bad else 0)
PY
