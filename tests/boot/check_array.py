#!/usr/bin/python3
"""Check the report and disk images of tests/boot/test_array.

Usage: check_array.py REPORT_JSON WORKDIR SCHEMA SERIALS LEVELS SCRATCH_IMAGE...

SERIALS are the confirmed scratch disks' serials, comma separated, LEVELS the array= levels; WORKDIR
holds keep0.sha256.before/.after (the disk that is not confirmed) and
stick.sha256.before/.after (the stick's boot files). Prints what it
compared, one line each, and every failure.
"""
import json
import struct
import sys

import jsonschema

from check_report import report_txt_problems

MD_MAGIC = 0xA92B4EFC


def md_superblocks(path):
    """Where an md superblock (0.90, 1.0, 1.1, 1.2) sits on the image, as a list of offsets."""
    found = []
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        # 1.1 at 0, 1.2 at 4 KiB, 1.0 at 8 KiB before the end (4 KiB aligned), 0.90 at 64 KiB before the end
        for off in (0, 4096, ((size - 8192) & ~4095), ((size & ~65535) - 65536)):
            f.seek(off)
            b = f.read(4)
            if len(b) == 4 and struct.unpack("<I", b)[0] == MD_MAGIC:
                found.append(off)
    return found


def pos(v):
    return isinstance(v, (int, float)) and v > 0


def main():
    report_path, work, schema_path, serials, want_levels = sys.argv[1:6]
    images = sys.argv[6:]
    want_levels = [int(x) for x in want_levels.split(",")]
    serials = serials.split(",")
    bad = []
    r = json.load(open(report_path, encoding="utf-8"))
    schema = json.load(open(schema_path, encoding="utf-8"))
    for e in sorted(jsonschema.Draft202012Validator(schema).iter_errors(r), key=lambda e: list(e.path))[:10]:
        bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message[:200]))
    steps = {s.get("name"): s for s in r.get("steps") or []}
    names = [s.get("name") for s in r.get("steps") or []]
    if names != ["inventory", "array"]:
        bad.append("steps: expected inventory and array only (steps=array), got %r" % names)
    st = steps.get("array") or {}
    d = st.get("data") or {}
    print("array: status %s, reason %r" % (st.get("status"), st.get("reason")))
    if st.get("status") != "pass":
        bad.append("array: status %r (reason %r), expected pass" % (st.get("status"), st.get("reason")))
    drives = {x.get("serial"): x for x in d.get("drives") or []}
    for s in serials:
        if (drives.get(s) or {}).get("decision") != "ok":
            bad.append("array: scratch %s: decision %r, expected ok" % (s, (drives.get(s) or {}).get("decision")))
    keep = drives.get("PS-KEEP-0001") or {}
    if keep.get("decision") != "not_named":
        bad.append("array: the unconfirmed disk: decision %r, expected not_named" % keep.get("decision"))
    stick = [x for x in d.get("drives") or [] if x.get("decision") == "boot_stick"]
    if len(stick) != 1:
        bad.append("array: expected the stick refused as boot_stick, got %r" % [(x.get("name"), x.get("decision")) for x in d.get("drives") or []])
    levels = {x.get("level"): x for x in d.get("levels") or []}
    if sorted(levels) != sorted(want_levels):
        bad.append("array: levels %r, expected %r" % (sorted(levels), want_levels))
    print("RAID  write  read   dwrite dread  4Kw    4Kr    rebuild_s rebuild_MB/s  full_s  2TB_s  cpu_h cpu_d cpu_rb")
    for lv in want_levels:
        x = levels.get(lv) or {}
        h, g, rb = x.get("healthy") or {}, x.get("degraded") or {}, x.get("rebuild") or {}
        print("%-4s  %-6s %-6s %-6s %-6s %-6s %-6s %-9s %-13s %-7s %-6s %-5s %-5s %s" % (
            lv, h.get("seq_write_mbps"), h.get("seq_read_mbps"), g.get("seq_write_mbps"), g.get("seq_read_mbps"),
            h.get("rand_write_iops"), h.get("rand_read_iops"), rb.get("seconds"), rb.get("mbps"),
            rb.get("full_drive_s"), rb.get("extrapolated_s"), (h.get("cpu") or {}).get("busy_pct"),
            (g.get("cpu") or {}).get("busy_pct"), (rb.get("cpu") or {}).get("busy_pct")))
        if x.get("status") != "done":
            bad.append("RAID %d: status %r (%r)" % (lv, x.get("status"), x.get("reason")))
            continue
        if len(x.get("members") or []) != 4:
            bad.append("RAID %d: members %r, expected the four scratch disks" % (lv, x.get("members")))
        want_failed = {0: 0, 6: 2}.get(lv, 1)
        if len(x.get("failed") or []) != want_failed:
            bad.append("RAID %d: failed %r, expected %d" % (lv, x.get("failed"), want_failed))
        if lv == 0:
            # no redundancy: measured healthy only, neither degraded nor rebuilt
            if x.get("degraded") or x.get("rebuild") or not pos(h.get("seq_write_mbps")):
                bad.append("RAID 0: %r" % {k: x.get(k) for k in ("healthy", "degraded", "rebuild")})
            continue
        for phase, o in (("healthy", h), ("degraded", g)):
            for k in ("seq_write_mbps", "seq_read_mbps", "rand_write_iops", "rand_read_iops"):
                if not pos(o.get(k)):
                    bad.append("RAID %d %s: %s = %r" % (lv, phase, k, o.get(k)))
            if not pos((o.get("cpu") or {}).get("busy_pct")):
                bad.append("RAID %d %s: no CPU load %r" % (lv, phase, o.get("cpu")))
        comp = x.get("component_bytes") or 0
        # 64 MiB members less md's data offset
        if not (48 << 20) <= comp <= (64 << 20):
            bad.append("RAID %d: component_bytes %r" % (lv, comp))
        if not pos(rb.get("seconds")) or not pos(rb.get("mbps")) or rb.get("completed") is not True:
            bad.append("RAID %d: rebuild %r" % (lv, rb))
        else:
            # seconds is rounded to 0.01 in the report: a rebuild of 0.2 s is
            # known to +-2.5 % only, so the tolerances carry that rounding
            rnd = 0.005 / rb["seconds"]
            rate = comp / 1e6 / rb["seconds"]
            if abs(rate - rb["mbps"]) > (0.1 + rnd) * rate + 0.2:
                bad.append("RAID %d: rebuild %.1f MB/s, but %d bytes in %.2f s" % (lv, rb["mbps"], comp, rb["seconds"]))
            # the extrapolation to 2 TB members: seconds * 2e12 / component size
            want = rb["seconds"] * 2e12 / comp
            if not pos(rb.get("extrapolated_s")) or abs(rb["extrapolated_s"] - want) > (0.02 + rnd) * want + 1:
                bad.append("RAID %d: extrapolated_s %r, expected %.0f" % (lv, rb.get("extrapolated_s"), want))
            if rb.get("degraded_after") != 0:
                bad.append("RAID %d: degraded after the rebuild: %r" % (lv, rb.get("degraded_after")))
        if lv in (5, 6) and not pos(x.get("stripe_cache_size")):
            bad.append("RAID %d: stripe_cache_size %r" % (lv, x.get("stripe_cache_size")))
        if lv != 1 and x.get("chunk_bytes") != 65536:
            bad.append("RAID %d: chunk_bytes %r, expected 64K" % (lv, x.get("chunk_bytes")))
        if not (x.get("initial_sync") or {}).get("seconds"):
            bad.append("RAID %d: no initial sync timed: %r" % (lv, x.get("initial_sync")))
    c = d.get("cleanup") or {}
    mdstat = c.get("mdstat_after") or ""
    print("cleanup: clean=%r md_left=%r superblocks_left=%r" % (c.get("clean"), c.get("md_left"), c.get("superblocks_left")))
    print("guest /proc/mdstat at the end: %r" % mdstat)
    if c.get("clean") is not True or c.get("md_left") != [] or c.get("superblocks_left") != []:
        bad.append("cleanup: %r" % {k: c.get(k) for k in ("clean", "md_left", "superblocks_left", "stop_error")})
    if "Personalities" not in mdstat or any(l.startswith("md") for l in mdstat.splitlines()):
        bad.append("cleanup: /proc/mdstat at the end still lists an md device, or was not read: %r" % mdstat)
    if d.get("extrapolate_bytes") != 2000000000000:
        bad.append("extrapolate_bytes %r" % d.get("extrapolate_bytes"))
    for img in images:
        sb = md_superblocks(img)
        print("%s: md superblocks at %r" % (img.rsplit("/", 1)[-1], sb))
        if sb:
            bad.append("%s: an md superblock is left at %r" % (img, sb))
    for n in ("keep0", "stick"):
        b = open("%s/%s.sha256.before" % (work, n)).read()
        a = open("%s/%s.sha256.after" % (work, n)).read()
        print("%s: sha256 %s" % (n, "unchanged" if a == b else "CHANGED"))
        if a != b or not b.strip():
            bad.append("%s: sha256 changed (or was not taken)" % n)
    text = open(report_path.replace("report.json", "report.txt"), encoding="utf-8", errors="replace").read() \
        if __import__("os").path.exists(report_path.replace("report.json", "report.txt")) else ""
    if text and "md arrays on the confirmed scratch drives" not in text:
        bad.append("report.txt has no array table")
    # its wide tables (the md table's eight columns) fit 79 columns
    bad += report_txt_problems(report_path)
    for b in bad:
        print("FAIL: " + b)
    print("check_array: %s" % ("ok" if not bad else "%d problems" % len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
