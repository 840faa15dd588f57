#!/usr/bin/env python3
"""The fleet test's checks (tests/fleet/run) on what reached the collector.

For each machine: one run folder below WORK/www/fleet/<machine-id>/, holding
exactly report.json, report.txt, report.html and report.ocp.jsonl and no
temporary file; report.json complete and valid against the schema; every
other file whole and equal to what `probestick show` renders from that
report.json (nothing half-written); the syslog receiver's lines equal to
report.ocp.jsonl; collect{} and warnings[] naming the three problems the
test made; the console saying the run was delivered; no password in any
file written, nor on the console. With --index-only: the fleet index lists
every machine. Timings and bytes go to the summary.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

FILES = ["report.json", "report.txt", "report.html", "report.ocp.jsonl"]
PROBLEMS = {
    "down": ("the collector down", "cannot reach https://"),
    "cert": ("a certificate of another CA",
             "is not the collector: its certificate is not signed by the CA"),
    "password": ("the password refused", "refused the user name or password (HTTP 401)"),
}


def console(work):
    """The serial log with wrapped lines joined (ps_ui_say wraps at 80 columns)."""
    with open(os.path.join(work, "serial.log"), "rb") as f:
        text = f.read().decode("utf-8", "replace").replace("\r", "")
    out = []
    for line in text.split("\n"):
        if line.startswith("  ") and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def show(out, run, fmt):
    text = subprocess.run([os.path.join(out, "probestick"), "show", run, "--format", fmt],
                          capture_output=True, check=True).stdout
    # show names the folder first: "Report DIR"
    if fmt == "text" and text.startswith(b"Report "):
        text = text.split(b"\n", 1)[1]
    return text


def validator(out):
    import jsonschema
    with open(os.path.join(out, "gen", "report-schema.json")) as f:
        schema = json.load(f)
    return jsonschema.Draft202012Validator(schema)


def access_log(work):
    rows = []
    with open(os.path.join(work, "access.log")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 8:
                rows.append({"t": float(w[0]), "method": w[2], "uri": w[3], "status": int(w[4]),
                             "in": int(w[5]), "out": int(w[6])})
    return rows


def check_machine(a, name, mwork, mac, wall0, said, recorded, schema, bad, summary):
    root = os.path.join(a.work, "www", "fleet")
    con = console(mwork)
    # the machine's folder: the one whose report names this machine's MAC
    runs = []
    for rj in glob.glob(os.path.join(root, "*", "*", "report.json")):
        with open(rj) as f:
            r = json.load(f)
        macs = [n.get("mac", "").lower() for n in r.get("nics") or []]
        if mac.lower() in macs:
            runs.append((os.path.dirname(rj), r))
    if len(runs) != 1:
        bad.append("%s: %d run folders on the collector name MAC %s, expected 1" % (name, len(runs), mac))
        return
    run, rep = runs[0]
    names = sorted(os.listdir(run))
    if names != sorted(FILES):
        bad.append("%s: %s holds %s, expected exactly %s (no temporary file)" % (name, run, names, FILES))
    if not rep.get("complete"):
        bad.append("%s: report.json on the collector is not complete" % name)
    if rep.get("plan") != "quick":
        bad.append("%s: the plan is %r, not quick" % (name, rep.get("plan")))
    for e in schema.iter_errors(rep):
        bad.append("%s: schema: /%s: %s" % (name, "/".join(map(str, e.path)), e.message))
    # each file whole: what probestick renders from the report.json beside it
    for fname, fmt in (("report.txt", "text"), ("report.html", "html"), ("report.ocp.jsonl", "ocp")):
        with open(os.path.join(run, fname), "rb") as f:
            have = f.read()
        want = show(a.out, run, fmt)
        if have != want:
            bad.append("%s: %s (%d bytes) is not what report.json renders (%d bytes): half-written?"
                       % (name, fname, len(have), len(want)))
    with open(os.path.join(run, "report.ocp.jsonl")) as f:
        ocp = [line.rstrip("\n") for line in f]
    for i, line in enumerate(ocp):
        try:
            json.loads(line)
        except ValueError:
            bad.append("%s: report.ocp.jsonl line %d is not JSON" % (name, i + 1))
    # the syslog receiver's copy of the stream
    machine, rname = run.split(os.sep)[-2:]
    sl = os.path.join(a.work, "syslog", machine, rname, "report.ocp.jsonl")
    if not os.path.exists(sl):
        bad.append("%s: rsyslog wrote no %s" % (name, sl))
    else:
        with open(sl) as f:
            lines = [line.rstrip("\n") for line in f]
        if lines != ocp:
            bad.append("%s: rsyslog's %d lines differ from report.ocp.jsonl's %d (first differing: %s)"
                       % (name, len(lines), len(ocp),
                          next((i + 1 for i, (x, y) in enumerate(zip(lines, ocp)) if x != y),
                               min(len(lines), len(ocp)) + 1)))
    # collect{}: where it went, the problems met, the boot port's address
    c = rep.get("collect") or {}
    if c.get("status") != "sending":
        bad.append("%s: the collector's copy says status %r, not sending" % (name, c.get("status")))
    if c.get("path") != "%s/%s/" % (machine, rname):
        bad.append("%s: collect.path is %r" % (name, c.get("path")))
    msgs = " | ".join(p.get("message", "") for p in c.get("problems") or [])
    warns = " | ".join(rep.get("warnings") or [])
    # the console says every problem; the collector's copy, written when the plan ended,
    # those met by then (the rest is in the machine's own copy, and was said)
    for key, (what, text) in PROBLEMS.items():
        if key in said and text not in con:
            bad.append("%s: the console did not say %s" % (name, what))
        if key not in said and text in con:
            bad.append("%s: the console says %s, which the test did not make" % (name, what))
        if key in recorded:
            if text not in msgs:
                bad.append("%s: collect.problems does not name %s (%r)" % (name, what, text))
            if text not in warns:
                bad.append("%s: warnings[] does not name %s" % (name, what))
        elif key not in said and text in msgs:
            bad.append("%s: collect.problems names %s, which the test did not make" % (name, what))
    net = c.get("network") or {}
    if net.get("how") != "dhcp" or net.get("found_by") != "BOOTIF" or net.get("mac") != mac.lower():
        bad.append("%s: collect.network is %r, expected DHCP on the BOOTIF port %s" % (name, net, mac))
    done = re.search(r"collect: delivered to https://collector\.fleet\.test:443/fleet/%s/%s/ at "
                     r"[^;]*; syslog [^;]*: (\d+) lines sent; (\d+) bytes sent"
                     % (re.escape(machine), re.escape(rname)), con)
    if not done:
        bad.append("%s: the console did not say the run was delivered" % name)
    elif int(done.group(1)) != len(ocp):
        bad.append("%s: the console says %s lines went to syslog, report.ocp.jsonl has %d"
                   % (name, done.group(1), len(ocp)))
    # no password anywhere it could leak
    pw = a.password.encode()
    for path in glob.glob(os.path.join(run, "*")) + [sl, os.path.join(mwork, "serial.log")]:
        if os.path.exists(path) and pw in open(path, "rb").read():
            bad.append("%s: the password is in %s" % (name, path))
    cmdline = (rep.get("machine") or {}).get("kernel_cmdline") or ""
    if "BOOTIF=01-" not in cmdline:
        bad.append("%s: the kernel command line has no BOOTIF= from the boot loader: %r" % (name, cmdline))
    # figures: first stream line, bytes
    log = access_log(a.work)
    mine = [r for r in log if r["uri"].startswith("/fleet/%s/" % machine)]
    first = next((r["t"] for r in mine if r["method"] == "MOVE" and "report.ocp.jsonl" in r["uri"]
                  and r["status"] < 300), None)
    sent = sum(r["in"] for r in mine if r["status"] < 300)
    all_in = sum(r["in"] for r in mine)
    up = (c.get("stream") or {}).get("first_line_uptime_s")
    summary.append("%s: run %s/%s; first stream line at the collector %.1f s after QEMU started "
                   "(%s s after the kernel); HTTP requests %d bytes (%d with the failed ones); "
                   "HTTP bodies and syslog frames %s bytes (the console's count)"
                   % (name, machine, rname, (first - wall0) if first else -1, up, sent, all_in,
                      done.group(2) if done else "?"))


def check_index(a, bad, summary):
    path = os.path.join(a.work, "www", "fleet", "index.html")
    if not os.path.exists(path):
        bad.append("probestick index wrote no %s" % path)
        return
    html = open(path, encoding="utf-8").read()
    machines = sorted(d for d in os.listdir(os.path.dirname(path))
                      if os.path.isdir(os.path.join(os.path.dirname(path), d)))
    if 'class="fleet"' not in html:
        bad.append("index.html has no fleet table (a row per machine)")
    for m in machines:
        if html.count(m) < 2:
            bad.append("index.html does not list machine %s in its fleet table and run list" % m)
    summary.append("fleet index: %d machines, %d bytes" % (len(machines), len(html)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--password", default="")
    ap.add_argument("--machine", nargs=6, action="append", default=[],
                    metavar=("NAME", "WORK", "MAC", "WALL0", "SAID", "RECORDED"),
                    help="SAID: the problems the console says (down,cert,password); RECORDED: "
                         "those in the collector's copy of report.json ('-' none)")
    ap.add_argument("--summary")
    ap.add_argument("--index-only", action="store_true")
    a = ap.parse_args()
    bad, summary = [], []
    if a.index_only:
        check_index(a, bad, summary)
    else:
        schema = validator(a.out)
        for name, mwork, mac, wall0, said, recorded in a.machine:
            check_machine(a, name, mwork, mac, float(wall0), said.split(","),
                          recorded.split(","), schema, bad, summary)
    if a.summary:
        with open(a.summary, "a") as f:
            for s in summary:
                f.write(s + "\n")
    for s in summary:
        print("fleet: " + s)
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
