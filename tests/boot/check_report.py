#!/usr/bin/python3
# Check a report.json from a QEMU boot against the machine tests/boot/lib.sh
# built. Usage: check_report.py REPORT_JSON EXPECT_JSON SCHEMA_JSON
# Prints every mismatch (not only the first); exit 1 if any.
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import report_agrees  # noqa: E402



def skipped_as_expected(name, s):
    """A step the standard machine cannot run, skipped with the reason it gives:
    disk_write without a confirmed scratch drive, the peer steps without a peer
    (every port with link is cabled to another port of the same machine)."""
    if s.get("status") != "skipped":
        return False
    reason = s.get("reason") or ""
    if name == "disk_write":
        return "scratch drive" in reason
    if name in ("nic_peer", "net_storage"):
        return "cabled to another port" in reason or "server mode" in reason
    return False

def report_txt_problems(report_path):
    """report.txt beside report.json: there, and within an 80-column console
    (79: some terminals wrap at 80)."""
    txt = os.path.join(os.path.dirname(report_path), "report.txt")
    if not os.path.isfile(txt) or os.path.getsize(txt) == 0:
        return ["report.txt is missing or empty beside report.json"]
    with open(txt, encoding="utf-8", errors="replace") as f:
        wide = [l.rstrip("\n") for l in f if len(l.rstrip("\n")) > 79]
    return ["report.txt: a line of %d columns: %s" % (len(l), l) for l in wide[:3]]


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

    if r.get("schema_version") != 2:
        bad.append("schema_version is %r, not 2" % r.get("schema_version"))
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

    # "refused": Secure Boot keeps the unsigned module out; the steps go on without probes.
    module_loaded = want.get("module", "loaded") == "loaded"
    if module_loaded and get(r, "probestick", "module_abi") != want["module_abi"]:
        bad.append("probestick.module_abi is %r, expected %d (kmod/uapi/probestick.h)" % (
            get(r, "probestick", "module_abi"), want["module_abi"]))
    if module_loaded and get(r, "probestick", "module_status") != "loaded":
        bad.append("probestick.module_status is %r, expected \"loaded\"" % get(r, "probestick", "module_status"))
    if not module_loaded and get(r, "probestick", "module_status") == "loaded":
        bad.append("probestick.module_status is \"loaded\", expected the module refused")

    if want.get("manifest") and get(r, "probestick", "image_manifest") != want["manifest"]:
        bad.append("probestick.image_manifest is not the stick's /manifest.json")

    for mac, n in macs.items():
        if n.get("carrier") is not True:
            bad.append("NIC %s (%s): carrier %r; both ports sit on one QEMU hub, so /init's "
                       "link wait should have seen carrier" % (n.get("name"), mac, n.get("carrier")))

    # The quick plan's steps, each timed and sampled (load from /proc, probes from the module).
    steps = {s.get("name"): s for s in (r.get("steps") or [])}
    for name in want.get("steps", []):
        s = steps.get(name)
        if not s:
            bad.append("step %s is missing; steps run: %s" % (name, sorted(steps)))
            continue
        if skipped_as_expected(name, s):
            continue
        if s.get("status") not in ("pass", "warn"):
            bad.append("step %s: status %r (%s)" % (name, s.get("status"), s.get("reason")))
        if (get(s, "load", "samples") or 0) < 2:
            bad.append("step %s: load has %r samples, expected >= 2" % (name, get(s, "load", "samples")))
        if module_loaded and get(s, "probes", "available") is not True:
            bad.append("step %s: module probes unavailable: %r" % (name, get(s, "probes", "reason")))

    if "disk_read" in steps:
        by_name = {d.get("name"): d for d in get(steps["disk_read"], "data", "drives") or []}
        for d in want["disks"]:
            name = next((x.get("name") for x in drives if (x.get("serial") or "").strip() == d["serial"]), None)
            res = (by_name.get(name) or {}).get("results") or []
            if not res or not all((x.get("median_mbps") or 0) > 0 for x in res):
                bad.append("disk_read: drive %s (%s) has no measured throughput: %r" % (
                    name, d["serial"], by_name.get(name)))
        for b in boot:
            entry = by_name.get(b.get("name")) or {}
            if entry.get("results") or "boot stick" not in (entry.get("skipped_reason") or ""):
                bad.append("disk_read: the boot stick %s was not skipped: %r" % (b.get("name"), entry))

    if "nic_loop" in steps:
        pairs = get(steps["nic_loop"], "data", "pairs") or []
        # the standard machine's two ports are one pair; a machine with more
        # hubs says which ports share one (expect.json "pairs")
        for want_pair in want.get("pairs") or [want["macs"]]:
            want_macs = sorted(m.lower() for m in want_pair)
            pair = [p for p in pairs if sorted([(p.get("a_mac") or "").lower(), (p.get("b_mac") or "").lower()]) == want_macs]
            if not pair or pair[0].get("found_by") != "probe frame":
                bad.append("nic_loop: no pair of %s found by probe frame: %r" % (want_macs, pairs))
                continue
            tests = pair[0].get("tests") or []
            # each way, and both at once (a row per direction)
            if len(tests) != 4 or not all((x.get("median_mbps") or 0) > 0 for x in tests):
                bad.append("nic_loop: expected four rows with throughput, got %r" % tests)
            if not all(isinstance(x.get("cost"), dict) for x in tests):
                bad.append("nic_loop: a row without its CPU cost: %r" % tests)
        restored = get(steps["nic_loop"], "data", "restored") or []
        for n in macs.values():
            rows = [x for x in restored if x.get("port") == n.get("name")]
            mtu = [x for x in rows if x.get("setting") == "mtu"]
            if not mtu or mtu[0].get("now") != str(n.get("mtu")) or not all(x.get("restored") for x in rows):
                bad.append("nic_loop: port %s not restored as the inventory saw it: %r" % (n.get("name"), rows))
    if "nic_link" in steps:
        ports = {p.get("name"): p for p in get(steps["nic_link"], "data", "ports") or []}
        for n in macs.values():
            p = ports.get(n.get("name"))
            if not p:
                bad.append("nic_link: port %s is missing" % n.get("name"))
                continue
            if p.get("changed"):
                bad.append("nic_link: the plan left %s of %s changed" % (p.get("changed"), n.get("name")))
            if p.get("carrier_changes_unexplained") not in (0, None):
                bad.append("nic_link: %s: %r carrier changes the plan's steps did not cause" % (
                    n.get("name"), p.get("carrier_changes_unexplained")))
            if p.get("speed_mbps") != n.get("speed_mbps"):
                bad.append("nic_link: %s at %r Mb/s, the inventory said %r" % (
                    n.get("name"), p.get("speed_mbps"), n.get("speed_mbps")))

    # QEMU gives its guests no RAPL: every step's energy is null with the reason, never 0,
    # and the run's power summary says the same; no wall reading was entered.
    for name, st in steps.items():
        e = st.get("energy")
        if "load" not in st:
            continue  # a skipped step: no recorder ran around it
        if not isinstance(e, dict):
            bad.append("%s: no energy recorder in the step" % name)
        elif e.get("available") is not False or "virtual machine" not in (e.get("reason") or ""):
            bad.append("%s: energy under QEMU should be unavailable as a virtual machine's: %r" % (
                name, {k: e.get(k) for k in ("available", "reason")}))
        elif any(e.get(k) is not None for k in ("joules", "avg_w", "peak_w")):
            bad.append("%s: energy figures without RAPL: %r" % (name, e))
    power = r.get("power") or {}
    if get(power, "rapl", "available") is not False or not get(power, "rapl", "reason"):
        bad.append("power.rapl should be unavailable with a reason: %r" % power.get("rapl"))
    if get(power, "wall", "idle_w") is not None or get(power, "wall", "source") is not None:
        bad.append("power.wall has readings nobody entered: %r" % power.get("wall"))
    # the Super I/O chip's ID: QEMU decodes neither 0x2e nor 0x4e, so no chip and no driver;
    # under lockdown (Secure Boot) the kernel refuses /dev/port and every driver was tried by
    # name, found nothing and left nothing behind
    sio = get(r, "coldplug", "superio") or {}
    locked = get(r, "boot", "lockdown") not in (None, "none")
    want_method = "by_name" if locked else "chip_id"
    if sio.get("method") != want_method or sio.get("chips") != [] or sio.get("claims") != []:
        bad.append("coldplug.superio: expected %s with no chip under QEMU: %r" % (want_method, sio))
    if locked and "lockdown" not in (sio.get("reason") or ""):
        bad.append("coldplug.superio: the reason should name the lockdown: %r" % sio.get("reason"))
    if locked:
        # a driver that found no chip is unloaded again, with the helpers its load pulled in
        nct = [d for d in sio.get("drivers") or [] if d.get("module") == "nct6775"]
        if not nct or "unloaded" not in (nct[0].get("result") or "") or \
                "nct6775_core" not in (nct[0].get("unloaded") or []):
            bad.append("coldplug.superio: nct6775 found no chip but its helpers stayed: %r" % nct)
    for d in sio.get("drivers") or []:
        if d.get("result") == "claimed":
            bad.append("coldplug.superio: %s claimed a chip QEMU does not have" % d.get("module"))

    bad += report_txt_problems(report_path)
    # no contradictions: steps' status, their rows and the verdict block agree
    bad += ["contradiction: " + b for b in report_agrees.check(report_path, True)]

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
