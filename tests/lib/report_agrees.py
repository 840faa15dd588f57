#!/usr/bin/python3
# Does a report contradict itself? (issue 24: every nic_loop row WARN while
# the step passed.) For each report.json given, or each report.json below a
# folder given:
#   - a step's status is its verdicts' worst (pass < warn < fail): a step that
#     passes has no warn or fail verdict, one that fails has a fail verdict;
#   - no row of a step's data (a member "verdict": pass|warn|fail) is worse
#     than the step's status;
#   - with --text: report.txt beside it puts every device whose worst verdict
#     is fail or warn in the verdict block under that word, and never names it
#     again on a "pass N drives: ..." line.
# Prints every contradiction; exit 1 if any. Usage:
#   report_agrees.py [--text] REPORT_JSON|DIR...
import json
import os
import re
import sys

RANK = {"pass": 0, "warn": 1, "fail": 2}
JUDGED = ("pass", "warn", "fail")


def rows_with_verdicts(obj, path=""):
    """(path, verdict) of every object below obj with a verdict member."""
    if isinstance(obj, dict):
        if obj.get("verdict") in RANK:
            yield path, obj["verdict"]
        for k, v in obj.items():
            yield from rows_with_verdicts(v, path + "/" + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from rows_with_verdicts(v, "%s/%d" % (path, i))


def step_problems(s):
    name, status = s.get("name", "?"), s.get("status")
    if status not in JUDGED:
        return []  # skipped, aborted, error: what was left out is the step's reason
    bad = []
    vs = [v.get("status") for v in s.get("verdicts") or [] if v.get("status") in RANK]
    worst = max(vs, key=RANK.get) if vs else None
    if worst and RANK[worst] > RANK[status]:
        bad.append("%s: status %s, but a verdict says %s" % (name, status, worst))
    if status == "fail" and vs and worst != "fail":
        bad.append("%s: status fail, but no verdict fails (worst %s)" % (name, worst))
    rows = [(p, v) for p, v in rows_with_verdicts(s.get("data")) if RANK[v] > RANK[status]]
    if rows:
        bad.append("%s: status %s, but %d row(s) say %s (first: data%s)" %
                   (name, status, len(rows), max((v for _, v in rows), key=RANK.get),
                    rows[0][0]))
    return bad


def worst_by_device(r):
    out = {}
    for s in r.get("steps") or []:
        for v in s.get("verdicts") or []:
            st = v.get("status")
            if st not in RANK:
                continue
            key = (v.get("kind"), v.get("subject"))
            if key not in out or RANK[st] > RANK[out[key]]:
                out[key] = st
    return out


def text_problems(r, text):
    """The verdict block of report.txt (up to the next heading) against the steps."""
    lines = text.splitlines()
    try:
        start = lines.index("Verdicts")
    except ValueError:
        return ["report.txt has no Verdicts block"]
    block, i = [], start + 2
    while i < len(lines) and not (i + 1 < len(lines) and re.fullmatch(r"-+", lines[i + 1])):
        block.append(lines[i])
        i += 1
    # a verdict line wraps with 5 blanks of indent: join it back
    joined = []
    for line in block:
        if line.startswith("     ") and joined:
            joined[-1] += " " + line.strip()
        else:
            joined.append(line)
    bad = []
    for (kind, subject), st in worst_by_device(r).items():
        if st == "pass" or not subject:
            continue
        # the line names the device by its label (report/label.c): the kernel name
        # in brackets ("QEMU HARDDISK S/N X (sda)") or, for a link, its address
        named = re.compile(r"^%s (?:.*\(%s\)|(?:\S+ )*%s)[ :]" % (
            re.escape(st.upper()), re.escape(subject), re.escape(subject)))
        if not any(named.match(line) for line in joined):
            bad.append("%s %s %s: its verdict is %s, the verdict block does not say so" %
                       (st.upper(), kind, subject, st))
        for line in joined:
            m = re.match(r"pass \d+ [A-Za-z]+: (.*)", line)
            if m and subject in [x.strip() for x in m.group(1).split(",")]:
                bad.append("%s %s: %s, yet listed on the line '%s'" % (kind, subject, st, line))
    return bad


def check(path, with_text):
    with open(path) as f:
        r = json.load(f)
    bad = []
    for s in r.get("steps") or []:
        bad += step_problems(s)
    txt = os.path.join(os.path.dirname(path), "report.txt")
    if with_text and os.path.exists(txt):
        with open(txt, encoding="utf-8", errors="replace") as f:
            bad += text_problems(r, f.read())
    return bad


def main(argv):
    with_text = "--text" in argv
    paths = []
    for a in (x for x in argv if x != "--text"):
        if os.path.isdir(a):
            for d, _, files in sorted(os.walk(a)):
                paths += [os.path.join(d, f) for f in sorted(files) if f == "report.json"]
        else:
            paths.append(a)
    if not paths:
        print("report_agrees: no report.json given")
        return 2
    failed = 0
    for p in paths:
        for b in check(p, with_text):
            print("%s: %s" % (p, b))
            failed += 1
    print("report_agrees: %d report(s), %d contradiction(s)" % (len(paths), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
