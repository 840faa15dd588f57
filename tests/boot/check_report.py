#!/usr/bin/python3
# Check a report.json from a QEMU boot against the machine tests/boot/lib.sh
# built. Usage: check_report.py REPORT_JSON EXPECT_JSON SCHEMA_JSON
# Prints every mismatch (not only the first); exit 1 if any.
import json
import os
import sys


def main():
    report_path, expect_path, schema_path = sys.argv[1:4]
    with open(report_path) as f:
        r = json.load(f)
    with open(expect_path) as f:
        want = json.load(f)
    bad = []

    if os.path.exists(schema_path):
        import jsonschema
        with open(schema_path) as f:
            schema = json.load(f)
        v = jsonschema.Draft202012Validator(schema) if "2020-12" in schema.get("$schema", "") \
            else jsonschema.validators.validator_for(schema)(schema)
        for e in sorted(v.iter_errors(r), key=lambda e: list(e.path)):
            bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message))
    else:
        print("note: %s is missing; schema check not done" % schema_path)

    def get(obj, *keys):
        for k in keys:
            if not isinstance(obj, dict):
                return None
            obj = obj.get(k)
        return obj

    if r.get("schema_version") != 1:
        bad.append("schema_version is %r, not 1" % r.get("schema_version"))
    if r.get("complete") is not True:
        bad.append("complete is %r: the plan did not finish" % r.get("complete"))
    if r.get("plan") != want["plan"]:
        bad.append("plan is %r, not %r" % (r.get("plan"), want["plan"]))

    drives = r.get("drives") or []
    for d in want["disks"]:
        found = [x for x in drives if (x.get("serial") or "").strip() == d["serial"]]
        if not found:
            bad.append("drive %s (%s, %d MiB) is missing; drives seen: %s" % (
                d["serial"], d["bus"], d["size"] >> 20,
                [(x.get("name"), x.get("serial")) for x in drives]))
            continue
        x = found[0]
        if x.get("size_bytes") != d["size"]:
            bad.append("drive %s: size_bytes %r, expected %d" % (d["serial"], x.get("size_bytes"), d["size"]))
        if x.get("boot_device") is not False:
            bad.append("drive %s: boot_device is %r, expected false" % (d["serial"], x.get("boot_device")))
    boot = [x for x in drives if x.get("boot_device") is True]
    if len(boot) != 1:
        bad.append("%d drives marked boot_device, expected exactly the stick" % len(boot))
    elif boot[0].get("size_bytes") != want["stick_size"]:
        bad.append("boot_device %s has size_bytes %r, the stick image is %d" % (
            boot[0].get("name"), boot[0].get("size_bytes"), want["stick_size"]))

    macs = {(n.get("mac") or "").lower(): n for n in (r.get("nics") or [])}
    for mac in want["macs"]:
        if mac.lower() not in macs:
            bad.append("NIC %s is missing; NICs seen: %s" % (mac, sorted(macs)))

    mem = get(r, "machine", "memory_bytes")
    lo, hi = want["mem"] * 3 // 4, want["mem"]
    if not isinstance(mem, int) or not lo <= mem <= hi:
        bad.append("machine.memory_bytes %r is not within [%d, %d]" % (mem, lo, hi))

    pcie = r.get("pcie") or []
    if not pcie:
        bad.append("pcie[] is empty")
    e1000e = [p for p in pcie if p.get("driver") == "e1000e"]
    if len(e1000e) != len(want["macs"]):
        bad.append("%d pcie functions with driver e1000e, expected %d" % (len(e1000e), len(want["macs"])))
    for p in e1000e:
        link = p.get("link") or {}
        if link.get("speed_gts") != 2.5 or link.get("width") != 1:
            bad.append("e1000e %s: link %r, expected 2.5 GT/s x1" % (p.get("address"), p.get("link")))
    if not [p for p in pcie if p.get("is_pcie") is False and p.get("link") is None]:
        bad.append("no conventional PCI function (is_pcie false, link null) in pcie[]")

    if get(r, "probestick", "module_abi") != want["module_abi"]:
        bad.append("probestick.module_abi is %r, expected %d (kmod/uapi/probestick.h)" % (
            get(r, "probestick", "module_abi"), want["module_abi"]))
    if get(r, "probestick", "module_status") != "loaded":
        bad.append("probestick.module_status is %r, expected \"loaded\"" % get(r, "probestick", "module_status"))

    if want.get("manifest") and get(r, "probestick", "image_manifest") != want["manifest"]:
        bad.append("probestick.image_manifest is not the stick's /manifest.json")

    txt = os.path.join(os.path.dirname(report_path), "report.txt")
    if not os.path.isfile(txt) or os.path.getsize(txt) == 0:
        bad.append("report.txt is missing or empty beside report.json")

    for b in bad:
        print("report: " + b)
    if bad:
        print("report: %d problem(s) in %s" % (len(bad), report_path))
        return 1
    print("report: all checks passed (%d drives, %d NICs, %d PCI functions)" % (
        len(drives), len(macs), len(pcie)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
