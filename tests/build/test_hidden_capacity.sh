#!/usr/bin/env bash
# Hidden capacity in the inventory (issue 29), from a fixture tree: the
# recorded QEMU guest of sysroot-qemu whose two AHCI disks become drives that
# hide sectors (tests/fixtures/ata/make-capacity.py: IDENTIFY in vpd_pg89 and
# the answers SG_IO gave, in dev/sdX.ata/). `probestick --root` runs the
# inventory: report.json says what each hides and validates against the
# schema; report.txt shows the Hidden capacity table and a warning naming
# the drive by model and serial, the sectors and what shows and opens them,
# all within 80 columns; the drives QEMU gave (nothing recorded) say nothing.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-out}
bin=$OUT/probestick
[ -x "$bin" ] && [ -s "$OUT/gen/report-schema.json" ] || {
	echo "skip: $bin is missing (make userland)"
	exit 77
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a tests/fixtures/sysroot-qemu "$tmp/root"
cp -a tests/fixtures/ata/hidden-overlay/. "$tmp/root/"
"$bin" --root "$tmp/root" run --plan quick --steps inventory --out "$tmp/out" >"$tmp/run.log" 2>&1 ||
	{ cat "$tmp/run.log"; echo "FAIL: probestick run failed"; exit 1; }
report=$(find "$tmp/out" -name report.json | head -n 1)
txt=${report%.json}.txt
[ -s "$report" ] && [ -s "$txt" ] || { echo "FAIL: no report.json/report.txt"; exit 1; }

/usr/bin/python3 - "$report" "$txt" "$OUT/gen/report-schema.json" <<'PY'
import json, re, sys
import jsonschema
r = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
bad = []
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[3])))
for e in list(v.iter_errors(r))[:5]:
    bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message[:160]))
drives = {d["name"]: d for d in r.get("drives") or []}
want = {
    "sda": {"current_sectors": 78125000, "native_sectors": 78165360, "hpa": "set",
            "hpa_hidden_sectors": 40360, "dco": "none", "dco_sectors": 78165360,
            "hidden_sectors": 40360, "hidden_bytes": 40360 * 512,
            "native_command": "READ NATIVE MAX ADDRESS EXT", "dco_hidden_features": None},
    "sdb": {"current_sectors": 625142448, "native_sectors": 625142448, "hpa": "none",
            "dco": "restricts", "dco_sectors": 976773168, "dco_hidden_sectors": 351630720,
            "hidden_sectors": 351630720, "dco_hidden_features": "SMART self-test, Security"},
}
for name, fields in want.items():
    cap = (drives.get(name) or {}).get("capacity") or {}
    for k, val in fields.items():
        if cap.get(k) != val:
            bad.append("%s capacity.%s is %r, expected %r" % (name, k, cap.get(k), val))
for name in ("sdc", "nvme0n1", "vda", "sdd"):
    if name in drives and drives[name].get("capacity") is not None:
        bad.append("%s (not an ATA drive with recorded answers) has capacity %r" % (name, drives[name]["capacity"]))
inv = [s for s in r.get("steps") or [] if s.get("name") == "inventory"][0]
hid = [f for f in inv.get("findings") or [] if f.get("rule") == "inventory.hidden_capacity"]
if sorted(f.get("subject") for f in hid) != ["sda", "sdb"] or any(f.get("severity") != "warn" for f in hid):
    bad.append("hidden_capacity findings: %r" % [(f.get("subject"), f.get("severity")) for f in hid])
for f in hid:
    m = f.get("message", "")
    if f.get("subject") == "sda" and not ("ST340014AS (serial 5MQ3ABCD) shows 78125000 sectors but has 78165360" in m
                                          and "Host Protected Area hides 40360" in m and "hdparm -N p78165360" in m
                                          and "never changes" in m):
        bad.append("sda's message: %r" % m)
    if f.get("subject") == "sdb" and not ("WDC WD5000AAKX-001CA0 (serial WD-WCAYUM123456)" in m
                                          and "Device Configuration Overlay hides 351630720" in m
                                          and "--dco-restore" in m):
        bad.append("sdb's message: %r" % m)
    if f.get("value") is None or f.get("unit") != "sectors":
        bad.append("%s: value %r unit %r" % (f.get("subject"), f.get("value"), f.get("unit")))
feat = [f for f in inv.get("findings") or [] if f.get("rule") == "inventory.dco_features"]
if [f.get("subject") for f in feat] != ["sdb"] or "SMART self-test, Security" not in feat[0].get("message", ""):
    bad.append("dco_features findings: %r" % [(f.get("subject"), f.get("message")) for f in feat])
# the text view: the table with both drives, and every line within 80 columns
block = txt[txt.find("Hidden capacity"):]
block = block[:block.find("\n\n")]
if not re.search(r"^\s+sda\s+78125000\s+78165360\s+set\s+78165360\s+none\s+20\.7 MB$", block, re.M) or \
        not re.search(r"^\s+sdb\s+625142448\s+625142448\s+none\s+976773168\s+restricts\s+180 GB$", block, re.M):
    bad.append("report.txt's Hidden capacity table:\n" + block)
long = [l for l in txt.split("\n") if len(l) > 80]
if long:
    bad.append("report.txt has lines over 80 columns: %r" % long[:2])
for b in bad:
    print("FAIL: " + b)
print("hidden capacity: sda HPA 40360 sectors, sdb DCO 351630720 sectors and 2 features")
sys.exit(1 if bad else 0)
PY
