#!/usr/bin/python3
"""Check the report and disk images of tests/boot/test_drives_full.

Usage: check_drives.py REPORT_JSON WORKDIR SCHEMA SCRATCH_SERIAL SECTOR...

WORKDIR holds the disk images NAME.raw and their sha256 before and after the
boot (NAME.sha256.before/.after); SECTORs are the 512-byte sectors of the
SATA disk that blkdebug fails. Prints what it compared, one line each.
"""
import json
import os
import struct
import sys

import jsonschema

MAGIC = b"PPSWRIT1"


def main():
    report_path, work, schema_path, scratch = sys.argv[1:5]
    sectors = sorted(int(x) for x in sys.argv[5:])
    bad = []
    r = json.load(open(report_path, encoding="utf-8"))
    schema = json.load(open(schema_path, encoding="utf-8"))
    for e in sorted(jsonschema.Draft202012Validator(schema).iter_errors(r), key=lambda e: list(e.path))[:10]:
        bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message[:200]))
    steps = {s.get("name"): s for s in r.get("steps") or []}
    drives = {d.get("name"): d for d in r.get("drives") or []}
    by_serial = {(d.get("serial") or "").strip(): d for d in drives.values()}
    sda = by_serial.get("PS-SATA-0001", {}).get("name")
    nvme = by_serial.get("PSNVME0001", {}).get("name")
    vda = by_serial.get("PSVIRT0001", {}).get("name")
    usb = by_serial.get("PSUSB00001", {}).get("name")
    scr = by_serial.get(scratch, {}).get("name")
    stick = [d.get("name") for d in drives.values() if d.get("boot_device") is True]
    if not all([sda, nvme, vda, usb, scr]) or len(stick) != 1:
        bad.append("drives[]: expected the SATA, NVMe, virtio, USB and scratch disks and one stick: %r"
                   % sorted((d.get("name"), d.get("serial"), d.get("boot_device")) for d in drives.values()))
    print("drives: sda=%s nvme=%s vda=%s usb=%s scratch=%s stick=%s" % (sda, nvme, vda, usb, scr, stick))

    def sdata(step):
        return {d.get("name"): d for d in ((steps.get(step) or {}).get("data") or {}).get("drives") or []}

    def findings(step, rule, subject=None):
        return [f for f in (steps.get(step) or {}).get("findings") or []
                if f.get("rule") == rule and (subject is None or f.get("subject") == subject)]

    # ---- smart ----
    sm = sdata("smart")
    a = sm.get(sda) or {}
    if a.get("protocol") != "ata" or a.get("verdict") != "pass":
        bad.append("smart %s: protocol %r verdict %r, expected ata pass" % (sda, a.get("protocol"), a.get("verdict")))
    if (a.get("smartctl") or {}).get("model_name") != "QEMU HARDDISK":
        bad.append("smart %s: smartctl's JSON is not kept (model_name %r)" % (sda, (a.get("smartctl") or {}).get("model_name")))
    n = sm.get(nvme) or {}
    crit = findings("smart", "smart.nvme_critical_warning", nvme)
    if n.get("verdict") != "fail" or not crit or crit[0].get("value") != 4 or crit[0].get("limit") != 0 \
            or crit[0].get("severity") != "fail":
        bad.append("smart %s: expected fail by smart.nvme_critical_warning value 4 limit 0: verdict %r, %r"
                   % (nvme, n.get("verdict"), crit))
    else:
        print("smart: %s FAIL %s (value %s, limit %s): %s" % (nvme, crit[0]["rule"], crit[0]["value"],
                                                          crit[0]["limit"], crit[0]["message"]))
    verdict = {(v.get("subject"), v.get("status")) for v in (steps.get("smart") or {}).get("verdicts") or []}
    if (nvme, "fail") not in verdict or (sda, "pass") not in verdict:
        bad.append("smart verdicts: %r" % sorted(verdict))
    for name in (sda, nvme):
        d, idn = drives.get(name) or {}, (sm.get(name) or {}).get("identity") or {}
        sc = (sm.get(name) or {}).get("smartctl") or {}
        got = (d.get("model"), d.get("serial"), d.get("firmware"))
        want = (sc.get("model_name"), sc.get("serial_number"), sc.get("firmware_version"))
        print("identity %s: report %r, smartctl %r, used %r" % (name, got, want, idn.get("used")))
        if got != want:
            bad.append("identity %s: the report says %r, smartctl %r" % (name, got, want))
        if a.get("power_on_hours") is None and name == sda:
            bad.append("smart %s: no power-on hours" % name)
    st = (sm.get(sda) or {}).get("self_test") or {}
    print("smart: %s short self-test: started %r passed %r result %r in %r s" % (
        sda, st.get("started"), st.get("passed"), st.get("result"), st.get("waited_s")))
    if st.get("started") is not True or st.get("passed") is not True:
        bad.append("smart %s: the short self-test did not run and pass: %r" % (sda, st))
    nst = (sm.get(nvme) or {}).get("self_test") or {}
    if nst.get("started") is not False or "OACS" not in (nst.get("reason") or ""):
        bad.append("smart %s: QEMU's NVMe has no self-test; the report says %r" % (nvme, nst))
    u = sm.get(usb) or {}
    types = [x.get("type") for x in u.get("attempts") or []]
    print("smart: %s (USB) tried %s; no SMART: %s" % (usb, types, u.get("no_smart_reason")))
    if types != ["auto", "sat", "sntjmicron", "sntrealtek", "sntasmedia"] or not u.get("no_smart_reason"):
        bad.append("smart %s: the bridge types were not tried in turn: %r" % (usb, u.get("attempts")))
    if not (sm.get(vda) or {}).get("no_smart_reason"):
        bad.append("smart %s: a virtio disk must say it has no SMART: %r" % (vda, sm.get(vda)))
    if "boot stick" not in ((sm.get(stick[0] if stick else "") or {}).get("skipped_reason") or ""):
        bad.append("smart: the boot stick was not skipped")

    # ---- disk_read ----
    dr = sdata("disk_read")
    for name in (sda, nvme, vda, usb, scr):
        res = (dr.get(name) or {}).get("results") or []
        pts = sorted((x.get("pattern"), x.get("bs"), x.get("qd")) for x in res)
        want = sorted([("seq", 1 << 20, 8), ("seq", 1 << 20, 1), ("seq", 256 << 10, 1), ("seq", 64 << 10, 1),
                       ("seq", 16 << 10, 1), ("seq", 4 << 10, 1), ("rand", 4 << 10, 32), ("rand", 4 << 10, 1)])
        if pts != want:
            bad.append("disk_read %s: the full matrix was not measured: %r" % (name, pts))
        cvs = ["%s%s/%d:%.0f%%" % (x["pattern"][0], x["bs"] >> 10, x["qd"], x["cv_pct"]) for x in res]
        ul = (dr.get(name) or {}).get("user_latency") or {}
        print("disk_read %s: seq 1M QD8 %s MB/s, rand 4K QD32 %s IOPS; CV %s; user p50 %s ns of %s requests"
              % (name, (dr.get(name) or {}).get("seq_mbps"), (dr.get(name) or {}).get("rand_iops"),
                 " ".join(cvs), ul.get("p50"), ul.get("count")))

    # ---- surface ----
    sf = sdata("surface")
    s = sf.get(sda) or {}
    got = [(x.get("lba_first"), x.get("lba_last")) for x in s.get("bad_ranges") or []]
    print("surface %s: unreadable %s, buckets %s, recovered %s, %s of the drive in %s s" % (
        sda, got, s.get("buckets"), s.get("recovered"), s.get("coverage_pct"), s.get("seconds")))
    if got != [(x, x) for x in sectors]:
        bad.append("surface %s: unreadable ranges %r, expected exactly %r" % (sda, got, sectors))
    if (s.get("buckets") or {}).get("error") != len(sectors) or s.get("complete") is not True:
        bad.append("surface %s: %r failed reads (expected %d), complete %r" % (
            sda, (s.get("buckets") or {}).get("error"), len(sectors), s.get("complete")))
    unread = findings("surface", "surface.unreadable", sda)
    if sorted(int(f.get("value") or 0) for f in unread) != [1] * len(sectors):
        bad.append("surface: findings %r" % unread)
    for name in (nvme, vda, usb, scr):
        x = sf.get(name) or {}
        if x.get("bad_sectors") != 0 or x.get("complete") is not True or not x.get("map"):
            bad.append("surface %s: expected a clean, complete scan with a map: %r" % (
                name, {k: x.get(k) for k in ("bad_sectors", "complete", "skipped_reason")}))
    if (steps.get("surface") or {}).get("status") != "fail":
        bad.append("surface: status %r, expected fail" % (steps.get("surface") or {}).get("status"))

    # ---- disk_write ----
    dw = sdata("disk_write")
    w = dw.get(scr) or {}
    v = w.get("verify") or {}
    print("disk_write %s: decision %r, seq %s MB/s, rand %s IOPS, verify clean %r (%s of %s sectors ok)" % (
        scr, w.get("decision"), w.get("seq_mbps"), w.get("rand_iops"), v.get("clean"), v.get("ok"), v.get("sectors")))
    if w.get("decision") != "ok" or v.get("clean") is not True:
        bad.append("disk_write %s: decision %r verify %r" % (scr, w.get("decision"), v))
    for name in (sda, nvme, vda, usb):
        if (dw.get(name) or {}).get("decision") != "not_named" or (dw.get(name) or {}).get("results"):
            bad.append("disk_write %s: expected not_named, untouched: %r" % (name, dw.get(name)))
    if stick and (dw.get(stick[0]) or {}).get("decision") != "boot_stick":
        bad.append("disk_write: the stick's decision is %r" % (dw.get(stick[0]) or {}).get("decision"))
    # scratch=...,PS-NOT-THERE: the serial no drive carries is an error at boot, before
    # the menu, in the report's warnings; it is dropped and the plan goes on without it
    said = [w for w in r.get("warnings") or []
            if w.startswith("error: scratch=") and "PS-NOT-THERE" in w]
    if not said and not findings("disk_write", "disk_write.not_found"):
        bad.append("disk_write: the serial that matches no drive (PS-NOT-THERE) is not said: "
                   "no 'error: scratch=' warning, no disk_write.not_found finding")

    # ---- the images: only the scratch disk changed, and it holds the pattern ----
    for n_ in ("sata0", "nvme0", "vd0", "usb0", "scr0"):
        before = open(os.path.join(work, n_ + ".sha256.before")).read().strip()
        after = open(os.path.join(work, n_ + ".sha256.after")).read().strip()
        print("sha256 %-5s before %s after %s %s" % (n_, before[:16], after[:16], "same" if before == after else "CHANGED"))
        if n_ == "scr0":
            if before == after:
                bad.append("scr0: the scratch disk was not written")
        elif before != after:
            bad.append("%s: the image changed in a plan that may only write the scratch disk" % n_)
    img = open(os.path.join(work, "scr0.raw"), "rb").read()
    stamped = 0
    for reg in v.get("regions") or []:
        for lba in range(reg["lba_first"], reg["lba_last"] + 1):
            sec = img[lba * 512:(lba + 1) * 512]
            if sec[:8] != MAGIC or struct.unpack("<Q", sec[8:16])[0] != lba:
                bad.append("scr0: LBA %d does not hold its own stamp after the verify pass" % lba)
                break
            stamped += 1
    print("scr0: %d sectors in %d verify regions hold their own LBA" % (stamped, len(v.get("regions") or [])))
    if stamped == 0 or stamped != v.get("sectors"):
        bad.append("scr0: %d stamped sectors, the report says %r" % (stamped, v.get("sectors")))

    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("drives: all checks passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
