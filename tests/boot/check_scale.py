#!/usr/bin/env python3
"""check_scale.py REPORT_12 REPORT_3 EXPECT: the 12-drive chassis against the
standard 3-drive machine (tests/boot/test_scale_chassis says what it boots).

Prints the quick plan's time and peak memory of both; fails when the plan's
time grew faster than the data drives' count, when the first screen (24 lines)
of report.txt does not show every verdict, or when disk_aggregate did not read
every drive together beside its figure alone and name the limited PCIe link
above the second AHCI controller with its four drives."""
import json
import os
import re
import sys

SCREEN = 24


def plan_figures(r):
    steps = r.get("steps") or []
    seconds = sum(s.get("duration_s") or 0 for s in steps)
    rss = max([s.get("max_rss_kib") or 0 for s in steps] or [0])
    data = [d for d in r.get("drives") or [] if not d.get("boot_device")]
    return seconds, rss, len(data), {s.get("name"): s.get("duration_s") or 0 for s in steps}


def worst_verdicts(r):
    """Each device's verdicts over the steps: what the first screen must account for."""
    rank = {"pass": 0, "untested": 1, "warn": 2, "fail": 3}
    out = {}
    for s in r.get("steps") or []:
        for v in s.get("verdicts") or []:
            key = (v.get("kind"), v.get("subject"))
            st = v.get("status")
            if key not in out or rank.get(st, 0) > rank.get(out[key], 0):
                out[key] = st
    return out


def main():
    big_path, small_path, expect_path = sys.argv[1:4]
    big, small = json.load(open(big_path)), json.load(open(small_path))
    want = json.load(open(expect_path))
    bad = []

    t12, m12, n12, d12 = plan_figures(big)
    t3, m3, n3, d3 = plan_figures(small)
    print("scale: quick plan, %d data drives: %.1f s, peak %d KiB (%s)" % (
        n3, t3, m3, ", ".join("%s %.1f" % kv for kv in d3.items())))
    print("scale: quick plan, %d data drives: %.1f s, peak %d KiB (%s)" % (
        n12, t12, m12, ", ".join("%s %.1f" % kv for kv in d12.items())))
    if n12 != 12:
        bad.append("%d data drives in the chassis report, expected 12" % n12)
    if not m12 or not m3:
        bad.append("steps[].max_rss_kib missing: peak memory unknown")
    if n3 and t3 > 0 and t12 / t3 > n12 / n3:
        bad.append("the plan's time grew %.2fx for %.2fx the drives" % (t12 / t3, n12 / n3))
    if n3 and m3 and m12 / m3 > n12 / n3:
        bad.append("peak memory grew %.2fx for %.2fx the drives" % (m12 / m3, n12 / n3))

    # The first screen: every warn/fail and untested device named, every pass counted.
    txt = os.path.join(os.path.dirname(big_path), "report.txt")
    screen = open(txt, encoding="utf-8", errors="replace").read().splitlines()[:SCREEN]
    first = "\n".join(screen)
    print("scale: first screen of report.txt:\n" + first)
    verdicts = worst_verdicts(big)
    passes = {}
    for (kind, subject), st in verdicts.items():
        if st == "pass":
            passes[kind] = passes.get(kind, 0) + 1
        elif subject and subject not in first:
            bad.append("first screen: the %s verdict of %s %s is not on it" % (st, kind, subject))
    plural = {"drive": "drives", "nic": "NICs", "link": "links", "dimm": "DIMMs", "machine": "machine"}
    for kind, n in passes.items():
        word = kind if n == 1 else plural.get(kind, kind)
        if not re.search(r"^pass %d %s:" % (n, re.escape(word)), first, re.M):
            bad.append("first screen: no 'pass %d %s' line" % (n, word))
    if any(len(l) > 80 for l in screen):
        bad.append("first screen: a line wider than 80 columns")

    # disk_aggregate: every data drive together beside alone; the limited link named.
    steps = {s.get("name"): s for s in big.get("steps") or []}
    agg = steps.get("disk_aggregate")
    if not agg:
        bad.append("disk_aggregate did not run")
    else:
        data = agg.get("data") or {}
        names = {d.get("serial"): d.get("name") for d in big.get("drives") or []}
        rows = {d.get("name"): d for d in data.get("drives") or []}
        together = [d for d in rows.values() if not d.get("left_out")]
        if len(together) != 12:
            bad.append("disk_aggregate read %d drives together, expected 12: %r" % (
                len(together), [(d.get("name"), d.get("left_out")) for d in rows.values()]))
        for d in together:
            for pat in ("seq", "rand"):
                f = d.get(pat) or {}
                if not (f.get("alone") or 0) > 0 or not (f.get("median_together") or 0) > 0:
                    bad.append("disk_aggregate: %s %s has no figure alone or together: %r" % (
                        d.get("name"), pat, f))
        for t in data.get("totals") or []:
            print("disk_aggregate: %s %d drives: alone %.0f, together %.0f (%.0f%%), cpu %s%%, "
                  "ceiling %s: %s" % (t.get("pattern"), t.get("drives"), t.get("alone_sum") or 0,
                                      t.get("median_together") or 0, t.get("pct_of_alone") or 0,
                                      t.get("cpu_busy_pct"), t.get("ceiling"), t.get("ceiling_why")))
        if len(data.get("totals") or []) != 2:
            bad.append("disk_aggregate: totals %r, expected seq and rand" % data.get("totals"))
        slow = sorted(names.get(s) or "?" for s in want.get("limited_serials", []))
        links = [l for l in data.get("limits") or [] if l.get("kind") == "pcie_link"]
        for l in data.get("limits") or []:
            print("disk_aggregate: shared %s %s (%s) capacity %s MB/s, seq together %s MB/s: %s" % (
                l.get("kind"), l.get("what"), l.get("detail"), l.get("capacity_mbps"),
                l.get("seq_together_mbps"), l.get("drives")))
        hit = [l for l in links if sorted((l.get("drives") or "").split(", ")) == slow]
        if not hit:
            bad.append("disk_aggregate: no shared PCIe link carrying exactly %s: %r" % (slow, links))
        elif not (str(hit[0].get("detail") or "").startswith("2.5 GT/s x1")
                  and abs((hit[0].get("capacity_mbps") or 0) - 250) < 1):
            bad.append("disk_aggregate: the limited link is %r, expected 2.5 GT/s x1, 250 MB/s" % hit[0])
        view = open(txt, encoding="utf-8", errors="replace").read()
        if hit and hit[0].get("what") not in view:
            bad.append("report.txt does not name the shared link %s" % hit[0].get("what"))
        ctrls = [l for l in data.get("limits") or [] if l.get("kind") == "controller"]
        if len(ctrls) < 2:
            bad.append("disk_aggregate: %d shared controllers, expected both AHCIs" % len(ctrls))

    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
