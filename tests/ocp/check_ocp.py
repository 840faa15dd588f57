#!/usr/bin/python3
"""Check OCP Test and Validation output (one artifact per line) against
tests/ocp/ocp-output.schema.json and the rules the schema cannot say:
sequence numbers 0, 1, 2, ... in order; schemaVersion first, then
testRunStart; every step started before its artifacts and ended once;
every series' elements counted by its end; every hardwareInfoId one the
DUT declared; testRunEnd last (when present).

Usage: check_ocp.py FILE [--serial] [--complete] [--steps N]
  --serial    FILE is a serial console log: the artifacts are the lines that
              start with '{' (after carriage returns and escape sequences)
  --complete  the run must end with testRunEnd
  --steps N   at least N test steps
Prints one line per problem and exits 1, or a summary and exits 0.
"""
import json
import os
import re
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def lines_of(path, serial):
    raw = open(path, "rb").read().decode("utf-8", errors="replace")
    if not serial:
        return [l for l in raw.split("\n") if l != ""]
    out = []
    for l in raw.replace("\r", "\n").split("\n"):
        l = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", l).strip()
        if l.startswith("{"):
            out.append(l)
    return out


def main():
    args = sys.argv[1:]
    serial = "--serial" in args
    complete = "--complete" in args
    min_steps = 0
    if "--steps" in args:
        min_steps = int(args[args.index("--steps") + 1])
    files = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--steps")]
    if len(files) != 1:
        print(__doc__)
        return 2
    schema = json.load(open(os.path.join(HERE, "ocp-output.schema.json")))
    validator = jsonschema.Draft202012Validator(schema)
    bad = []
    arts = []
    for n, line in enumerate(lines_of(files[0], serial), 1):
        try:
            a = json.loads(line)
        except ValueError as e:
            bad.append("line %d: not JSON (%s): %.80s" % (n, e, line))
            continue
        for err in validator.iter_errors(a):
            bad.append("line %d: %s at %s" % (n, err.message, "/".join(map(str, err.absolute_path))))
        if not RFC3339.match(str(a.get("timestamp", ""))):
            bad.append("line %d: timestamp %r is not RFC 3339" % (n, a.get("timestamp")))
        arts.append(a)
    if not arts:
        bad.append("no artifact at all")
    for i, a in enumerate(arts):
        if a.get("sequenceNumber") != i:
            bad.append("artifact %d has sequenceNumber %r" % (i, a.get("sequenceNumber")))
            break
    if arts and "schemaVersion" not in arts[0]:
        bad.append("the first artifact is not schemaVersion")
    if len(arts) > 1 and "testRunStart" not in arts[1].get("testRunArtifact", {}):
        bad.append("the second artifact is not testRunStart")
    hw = set()
    if len(arts) > 1:
        dut = arts[1].get("testRunArtifact", {}).get("testRunStart", {}).get("dutInfo", {})
        hw = {h["hardwareInfoId"] for h in dut.get("hardwareInfos", [])}
        if len(hw) != len(dut.get("hardwareInfos", [])):
            bad.append("two hardwareInfos share an id")
    started, ended, series, counts = set(), set(), {}, {}
    measurements = diagnoses = 0
    for i, a in enumerate(arts):
        s = a.get("testStepArtifact")
        r = a.get("testRunArtifact", {})
        if "testRunEnd" in r and i != len(arts) - 1:
            bad.append("testRunEnd is not the last artifact")
        if not s:
            continue
        sid = s.get("testStepId")
        if "testStepStart" in s:
            if sid in started:
                bad.append("step %s started twice" % sid)
            started.add(sid)
            continue
        if sid not in started:
            bad.append("artifact %d of step %s before its testStepStart" % (i, sid))
        if sid in ended:
            bad.append("artifact %d of step %s after its testStepEnd" % (i, sid))
        if "testStepEnd" in s:
            ended.add(sid)
        for kind in ("measurement", "diagnosis", "measurementSeriesStart"):
            h = s.get(kind, {}).get("hardwareInfoId")
            if h is not None and h not in hw:
                bad.append("artifact %d: hardwareInfoId %r is not in the DUT's hardwareInfos" % (i, h))
        measurements += "measurement" in s
        diagnoses += "diagnosis" in s
        if "measurementSeriesStart" in s:
            series[s["measurementSeriesStart"]["measurementSeriesId"]] = 0
        if "measurementSeriesElement" in s:
            e = s["measurementSeriesElement"]
            if e["measurementSeriesId"] not in series:
                bad.append("artifact %d: element of a series that did not start" % i)
            elif e["index"] != series[e["measurementSeriesId"]]:
                bad.append("artifact %d: series element index %d out of order" % (i, e["index"]))
            else:
                series[e["measurementSeriesId"]] += 1
        if "measurementSeriesEnd" in s:
            e = s["measurementSeriesEnd"]
            counts[e["measurementSeriesId"]] = e["totalCount"]
            if series.get(e["measurementSeriesId"]) != e["totalCount"]:
                bad.append("series %s: totalCount %d, %s elements" % (
                    e["measurementSeriesId"], e["totalCount"], series.get(e["measurementSeriesId"])))
    if started - ended and (complete or len(started - ended) > 0):
        bad.append("steps started but not ended: %s" % sorted(started - ended))
    if set(series) - set(counts):
        bad.append("series without an end: %s" % sorted(set(series) - set(counts)))
    if complete and (not arts or "testRunEnd" not in arts[-1].get("testRunArtifact", {})):
        bad.append("the run has no testRunEnd")
    if len(started) < min_steps:
        bad.append("%d test steps, expected at least %d" % (len(started), min_steps))
    for b in bad[:40]:
        print("ocp: " + b)
    if bad:
        print("ocp: %d problems in %d artifacts" % (len(bad), len(arts)))
        return 1
    print("ocp: %d artifacts valid: %d steps, %d measurements, %d series, %d diagnoses, %d devices" % (
        len(arts), len(started), measurements, len(series), diagnoses, len(hw)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
