#!/usr/bin/env python3
"""check_powercut.py - the stick after a power cut (or after the boot that follows one).

  check_powercut.py --image STICK.img --state STATE.json --serial SERIAL.log
                    [--cut "cut: ... dirty=N ..." | --hung REASON] [--final] [--result FILE]

Checks, with the stick image as QEMU left it:
  - fsck.fat -n on the FAT partition: clean (nothing said) when the cut came
    between writes (dirty flag clear); a cut inside a write (dirty flag set)
    may leave what a cut write leaves, which the next boot must repair;
  - every report.json on the stick parses, and every report.txt is there;
  - every file of a run that was on the stick before this boot is
    byte-identical, except the report of the run the previous boot left cut
    off (reports/index.html is rebuilt by every run: it must list that run
    as cut off, power lost);
  - that run is now marked: interrupted{} with the step it stopped in and
    cause power_lost, its report.txt says so, and (when this boot wrote a
    report) this boot's report lists it in stick.recovered;
  - after a cut inside a write, this boot's report records the check
    (stick.check: not clean, repaired, clean after);
  - the run this boot left: incomplete, stopped at a step of the plan
    (final: complete, and nothing left to mark).
A boot the serial watcher stopped (--hung: the guest locked up or went
silent) is to the stick a power cut at a moment nobody chose: it is checked
as one, its dirty flag read from the image, so that the next boot is judged
on what this one left (a hung boot may already have marked the run before).
STATE.json carries the files, runs and expectations from one boot to the next.
Appends one JSON line per boot to --result.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from powercut_wait import dirty  # noqa: E402  the FAT dirty flag, read one way

# the quick plan (`probestick steps`), when a report does not name its plan's steps
STEPS = ["inventory", "drivers", "smart", "disk_read", "memory", "disk_write", "nic_loop", "nic_peer",
         "mtu", "net_storage", "nic_link"]


def plan_steps(report):
    """The steps the run's plan was to run, in order (probestick.plan_steps)."""
    steps = ((report or {}).get("probestick") or {}).get("plan_steps")
    return steps if isinstance(steps, list) and steps else STEPS
MT = {"MTOOLS_SKIP_CHECK": "1", "MTOOLSRC": "/dev/null"}


def fat_partition(image, dest):
    with open(image, "rb") as src, open(dest, "wb") as out:
        src.seek(1 << 20)
        while True:
            block = src.read(1 << 20)
            if not block:
                break
            if block.count(0) == len(block):
                out.seek(len(block), 1)
            else:
                out.write(block)
        out.truncate()


def fsck(part):
    r = subprocess.run(["fsck.fat", "-n", part], capture_output=True, text=True)
    said = [l for l in (r.stdout + r.stderr).splitlines()
            if l and not l.startswith("fsck.fat ") and not re.search(r": \d+ files, \d+/\d+ clusters$", l)]
    return r.returncode, said


def stick_files(part, dest):
    env = dict(os.environ, **MT)
    subprocess.run(["mcopy", "-s", "-n", "-i", part, "::/reports", dest], env=env,
                   capture_output=True)
    files = {}
    base = os.path.join(dest, "reports")
    for root, _, names in os.walk(base):
        for n in names:
            p = os.path.join(root, n)
            with open(p, "rb") as f:
                files[os.path.relpath(p, base)] = hashlib.sha256(f.read()).hexdigest()
    return base, files


def run_of(path):
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) >= 3 else None


def console_step(serial):
    try:
        text = open(serial, "rb").read().replace(b"\r", b"")
    except OSError:
        return None
    text = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", text)
    found = re.findall(rb"\[\d+/\d+\] (\w+)[: ]", text)
    return found[-1].decode() if found else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--image", required=True)
    p.add_argument("--state", required=True)
    p.add_argument("--serial", required=True)
    p.add_argument("--cut", default="")
    p.add_argument("--final", action="store_true")
    p.add_argument("--hung", default="", help="the watcher stopped this boot: why")
    p.add_argument("--result")
    p.add_argument("--fresh", action="store_true", help="a stick never booted: fsck.fat -n only")
    a = p.parse_args()
    if a.fresh:
        with tempfile.TemporaryDirectory() as t:
            part = os.path.join(t, "part.img")
            fat_partition(a.image, part)
            rc, said = fsck(part)
        print("fresh stick: fsck.fat -n exit %d%s" % (rc, ": " + " | ".join(said[:3]) if said else ", nothing to say"))
        return 0 if rc == 0 and not said else 1
    state = {"files": {}, "runs": {}, "pending": None, "repair_due": False, "boot": 0}
    if os.path.exists(a.state):
        state = json.load(open(a.state))
    state["boot"] += 1
    bad = []
    note = ""
    if a.hung:
        a.final = False
        a.cut = "hung (%s), stopped by the watcher; dirty=%d" % (a.hung, dirty(a.image))
    m = re.search(r"dirty=(\d)", a.cut)
    in_write = bool(m and m.group(1) == "1")

    with tempfile.TemporaryDirectory() as t:
        part = os.path.join(t, "part.img")
        fat_partition(a.image, part)
        rc, said = fsck(part)
        clean = rc == 0 and not said
        base, files = stick_files(part, t)
        if not clean and not in_write:
            bad.append("fsck.fat -n after a cut between writes: exit %d: %s" % (rc, " | ".join(said[:3])))
        reports = {}
        for path in files:
            if not path.endswith("report.json") or os.path.basename(path) != "report.json":
                continue
            try:
                reports[run_of(path)] = json.load(open(os.path.join(base, path)))
            except (OSError, ValueError) as e:
                bad.append("%s does not parse: %s" % (path, e))
        for run in reports:
            if run + "/report.txt" not in files:
                bad.append("%s has report.json but no report.txt" % run)

        # Earlier files: untouched, but for the run the previous boot left cut off.
        for path, digest in state["files"].items():
            if run_of(path) == state["pending"]:
                continue
            if run_of(path) is None:
                continue  # index.html: rebuilt from the tree by every run (checked below)
            if path not in files:
                bad.append("%s was on the stick before this boot and is gone" % path)
            elif files[path] != digest:
                bad.append("%s changed although its run had ended before this boot" % path)

        new_runs = sorted(r for r in reports if r not in state["runs"])
        mine = new_runs[-1] if new_runs else None
        if len(new_runs) > 1:
            bad.append("this boot made %d report folders: %s" % (len(new_runs), new_runs))

        pending = state["pending"]
        if pending:
            r = reports.get(pending)
            cut = (r or {}).get("interrupted")
            if not r:
                bad.append("the run cut off before, %s, has no readable report" % pending)
            elif not cut:
                bad.append("%s (cut off by the previous cut) is not marked interrupted" % pending)
            else:
                if cut.get("cause") != "power_lost":
                    bad.append("%s: interrupted.cause is %r, not power_lost" % (pending, cut.get("cause")))
                if cut.get("during") != r.get("running_step"):
                    bad.append("%s: interrupted.during %r is not running_step %r" %
                               (pending, cut.get("during"), r.get("running_step")))
                txt = open(os.path.join(base, pending, "report.txt"), errors="replace").readline()
                if "INCOMPLETE" not in txt or "(power lost)" not in txt:
                    bad.append("%s/report.txt does not say it was cut off: %r" % (pending, txt.strip()))
                # the stick's index, rebuilt by the boot that marked it, says so
                try:
                    idx = open(os.path.join(base, "index.html"), errors="replace").read()
                except OSError:
                    idx = ""
                row = idx[idx.find(pending.split("/")[1]):] if pending.split("/")[1] in idx else ""
                row = row[:row.find("</tr>")]
                want = "cut off during %s: power lost" % cut.get("during")
                if want not in row:
                    bad.append("reports/index.html does not list %s as %r" % (pending, want))
                if mine and reports[mine].get("stick") is not None:
                    rec = reports[mine]["stick"].get("recovered") or []
                    if not any(x.get("path") == pending and x.get("action") == "marked" for x in rec):
                        bad.append("this boot's report does not list %s as marked in stick.recovered" % pending)
        if state["repair_due"] and mine:
            chk = (reports[mine].get("stick") or {}).get("check") or {}
            if chk.get("clean") is not False or chk.get("clean_after") is not True:
                bad.append("the cut before left the stick mid-write, but this boot's stick.check "
                           "is %s" % json.dumps({k: chk.get(k) for k in ("clean", "repaired", "clean_after")}))
            elif not any(p.get("kind") == "dirty" for p in chk.get("problems", [])):
                bad.append("stick.check after a cut mid-write does not name the dirty flag")
        unverified = state["repair_due"] and not mine
        if pending and (reports.get(pending) or {}).get("interrupted"):
            pending = None
        repair_due = False

        step_seen = console_step(a.serial)
        if a.final:
            r = reports.get(mine)
            if not r or r.get("complete") is not True or "running_step" in r:
                bad.append("the final boot's report is not complete: %s" % (mine,))
            if pending:
                bad.append("%s is still not marked after the final boot" % pending)
            if not clean:
                bad.append("fsck.fat -n after the final boot: exit %d: %s" % (rc, " | ".join(said[:3])))
        elif mine and reports[mine].get("complete") is True:
            # the cut came after the plan's last write (while the summary showed or
            # the machine powered off): a complete run, nothing to mark
            # (the final write comes before the console's end of the plan: the
            # console must have shown the last step ended, its status line)
            r = reports[mine]
            serial = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", open(a.serial, errors="replace").read())
            last = plan_steps(r)[-1]
            if "running_step" in r or not re.search(r"\[\d+/\d+\] %s +(pass|warn|fail|skip)" % last, serial):
                bad.append("%s says complete but the console never showed its last step end" % mine)
            note = "the cut came after the plan's last write"
        elif mine:
            r = reports[mine]
            rs = r.get("running_step")
            steps = plan_steps(r)
            if r.get("complete") is not False:
                bad.append("%s: the run was cut off but says complete" % mine)
            elif rs not in steps:
                bad.append("%s: running_step %r is not a step of the plan" % (mine, rs))
            else:
                if len(r.get("steps", [])) != steps.index(rs):
                    bad.append("%s: running_step %s but %d steps" % (mine, rs, len(r.get("steps", []))))
                if step_seen in steps and abs(steps.index(rs) - steps.index(step_seen)) > 1:
                    bad.append("%s: running_step %s, the console was at %s" % (mine, rs, step_seen))
            pending = mine
        if not a.final:
            repair_due = repair_due or in_write

        print("boot %d: %s; fsck.fat -n %s%s; %d reports parse; run %s%s" % (
            state["boot"], a.cut or ("final boot" if a.final else "no cut"),
            "clean" if clean else "NOT clean",
            "" if clean else " (%s)" % "; ".join(said[:4]), len(reports), mine or "-",
            ", marked the one before" if state["pending"] and not pending == state["pending"] else ""))
        if note:
            print("note: " + note)
        if unverified:
            print("note: this boot wrote no report, so its record of the repair could not be read")
        for b in bad:
            print("FAIL: " + b)
        if a.result:
            with open(a.result, "a") as f:
                f.write(json.dumps({"boot": state["boot"], "cut": a.cut, "final": a.final,
                                    "hung": a.hung or None,
                                    "in_write": in_write, "fsck_clean": clean, "fsck": said[:12],
                                    "reports": len(reports), "run": mine,
                                    "running_step": (reports.get(mine) or {}).get("running_step"),
                                    "run_complete": (reports.get(mine) or {}).get("complete") is True,
                                    "failures": bad}) + "\n")
        state.update(files=files, pending=pending, repair_due=repair_due,
                     runs={r: True for r in reports})
        json.dump(state, open(a.state, "w"), indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
