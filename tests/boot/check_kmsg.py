#!/usr/bin/python3
"""Check a report and serial log of tests/boot/test_drives_full (disk_read on a disk with read errors).

Usage: check_kmsg.py REPORT_JSON SERIAL_LOG SCHEMA SECTOR...

SECTORs are the 512-byte sectors of the SATA disk (serial PS-SATA-0001,
logical sectors of 512 bytes in QEMU) where blkdebug fails every read. Its
name is the one the guest gave it: sda or sdb, as the AHCI ports of the
SATA disk and the scratch disk happen to be probed.
"""
import json
import re
import sys

import jsonschema


def ranges_of(event):
    return [tuple(r) for r in (event.get("lba_ranges") or [])]


def union(rs):
    """Ranges of sectors merged where they overlap or touch."""
    out = []
    for a, b in sorted(rs):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def covers(rs, s):
    return any(a <= s <= b for a, b in rs)


def main():
    report_path, serial_path, schema_path = sys.argv[1:4]
    sectors = [int(x) for x in sys.argv[4:]]
    bad = []
    with open(report_path, encoding="utf-8") as f:
        r = json.load(f)
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    for e in sorted(jsonschema.Draft202012Validator(schema).iter_errors(r), key=lambda e: list(e.path))[:10]:
        bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message[:200]))

    steps = {s.get("name"): s for s in r.get("steps") or []}
    for name, s in steps.items():
        k = s.get("kmsg") or {}
        if k.get("available") is not True:
            bad.append("step %s: kmsg unavailable: %r" % (name, k.get("reason")))
            continue
        recs = k.get("records") or []
        if len(recs) != k.get("kept") or k.get("total") != k.get("kept", 0) + k.get("dropped", 0):
            bad.append("step %s: kmsg counts disagree: total %r kept %r dropped %r, %d records" % (
                name, k.get("total"), k.get("kept"), k.get("dropped"), len(recs)))
        if len(recs) > 256 or sum(len(x.get("text") or "") for x in recs) > 64 * 1024:
            bad.append("step %s: kmsg keeps more than 256 records or 64 KiB" % name)

    sda = next((d for d in r.get("drives") or [] if (d.get("serial") or "").strip() == "PS-SATA-0001"), None)
    if not sda or not sda.get("name"):
        bad.append("drives[]: no drive with the SATA disk's serial PS-SATA-0001: %r" % [
            (d.get("name"), d.get("serial")) for d in r.get("drives") or []])
    name = (sda or {}).get("name")
    print("kmsg: the SATA disk with the failing sectors is %s" % name)
    ds = steps.get("disk_read")
    if not ds:
        bad.append("no disk_read step")
    else:
        if ds.get("status") != "fail":
            bad.append("disk_read: status %r, expected fail (read errors)" % ds.get("status"))
        k = ds.get("kmsg") or {}
        events = k.get("events") or []
        by = {(e.get("rule"), e.get("subject")): e for e in events}
        # disk_read's own view of the bad blocks: data.errors and the read_error findings
        d = next((x for x in (ds.get("data") or {}).get("drives") or [] if x.get("name") == name), {})
        own = [(e["lba"], e["lba"] + e["lba_count"] - 1) for e in d.get("errors") or []]
        own_span = union(own)
        read_errors = [f for f in ds.get("findings") or []
                       if (f.get("rule") or "").split(".")[-1] == "read_error" and f.get("subject") == name]
        found = [tuple(map(int, m)) for f in read_errors
                 for m in re.findall(r"at LBA (\d+)-(\d+)", f.get("message") or "")]
        # the drive's stable id, as disk_read's own findings name it (the inventory's)
        sda_id = next((f.get("device") for f in read_errors if f.get("device")), None) or (sda or {}).get("id")
        for rule in ("io_error", "ata_error"):
            e = by.get((rule, name))
            if not e:
                bad.append("disk_read kmsg: no %s event for %s; events: %s" % (
                    rule, name, [(x.get("rule"), x.get("subject")) for x in events]))
                continue
            if e.get("severity") != "fail" or e.get("kind") != "drive":
                bad.append("disk_read kmsg %s: severity %r kind %r" % (rule, e.get("severity"), e.get("kind")))
            if sda_id is not None and e.get("device") != sda_id:
                bad.append("disk_read kmsg %s: device %r, not %s's id %r" % (rule, e.get("device"), name, sda_id))
            # the runner's finding from the event, on the same device
            if not any(f.get("rule") == "kmsg." + rule and f.get("subject") == name and
                       f.get("device") == e.get("device") for f in ds.get("findings") or []):
                bad.append("disk_read: no finding kmsg.%s on %s" % (rule, name))
            rs = ranges_of(e)
            for s in sectors:
                if not covers(rs, s):
                    bad.append("disk_read kmsg %s: LBA ranges %s miss the failing sector %d" % (rule, rs, s))
            # Every range the block layer failed lies inside a read disk_read
            # reported as failed. Not so libata's: with NCQ one failed command
            # aborts every command in the queue, and each is printed as failed
            # before the retries one by one succeed (a run saw LBA 7680-13311
            # for the bad sector 8192, with only 8192's reads failing).
            # The block layer merges adjacent reads into one request, so a
            # failed request may span two of disk_read's failed reads (a CI
            # run saw 8184-8447 over disk_read's 8184-8191 and 8192-12287):
            # it must lie inside their union.
            for a, b in rs if rule == "io_error" else []:
                if not any(x <= a and b <= y for x, y in own_span):
                    bad.append("disk_read kmsg %s: LBA %d-%d is in none of disk_read's errors %s" % (rule, a, b, own))
            if e.get("lba_first") != min(a for a, _ in rs or [(None, None)]) or \
                    e.get("lba_last") != max(b for _, b in rs or [(None, None)]):
                bad.append("disk_read kmsg %s: lba_first/last %r/%r disagree with %s" % (
                    rule, e.get("lba_first"), e.get("lba_last"), rs))
            if "LBA %d-%d" % rs[0] not in (e.get("message") or ""):
                bad.append("disk_read kmsg %s: message does not give the LBAs: %r" % (rule, e.get("message")))
        for s in sectors:
            if not covers(own, s):
                bad.append("disk_read data.errors %s miss the failing sector %d" % (own, s))
            if not covers(found, s):
                bad.append("disk_read read_error findings %s miss the failing sector %d" % (found, s))
        for e in events:
            if e.get("subject") != name:
                bad.append("disk_read kmsg: an event about another device: %r" % e)
    nt = steps.get("nic_loop")
    if nt:
        for e in (nt.get("kmsg") or {}).get("events") or []:
            if e.get("severity") != "info":
                bad.append("nic_loop kmsg: %s event on a healthy port: %r" % (e.get("severity"), e.get("message")))

    # The console during the plan: the steps' lines, no kernel messages.
    with open(serial_path, "rb") as f:
        text = f.read().decode("utf-8", "replace").replace("\r", "")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    m = re.search(r"probestick: plan (?:quick|full).*?(?:probestick: report in|Report:) [^\n]*", text, re.S)
    if not m:
        bad.append("serial: no plan between 'probestick: plan quick/full' and its report line")
    else:
        plan = m.group(0)
        kern = re.findall(r"\[ *\d+\.\d+\] [^\n]*", plan)
        if kern:
            bad.append("serial: %d kernel lines while the plan ran, e.g. %r" % (len(kern), kern[:3]))
        # the kernel's own wording (probestick's result lines say it otherwise)
        for word in ("failed command: ", "I/O error, dev "):
            if word in plan:
                bad.append("serial: the kernel's %r on the console while the plan ran" % word)
        if not re.search(r"\[\d+/\d+\] disk_read\b[^\n]*\b(?:FAIL|fail)\b", plan):
            bad.append("serial: no result line '[N/M] disk_read ... FAIL': %r" % plan[:400])

    for b in bad:
        print("kmsg: " + b)
    if bad:
        print("kmsg: %d problem(s) in %s" % (len(bad), report_path))
        return 1
    print("kmsg: all checks passed; disk_read: %d kernel records, %s" % (
        ds["kmsg"]["total"], "; ".join(x["message"] for x in ds["kmsg"]["events"][:2])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
