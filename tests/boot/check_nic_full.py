#!/usr/bin/python3
# Check the report of tests/boot/test_nic_full_plan: self-test, coalescing
# sweep, aggregate and bond on four e1000e ports, everything put back.
# Usage: check_nic_full.py REPORT SCHEMA
import json
import re
import os
import sys


def main():
    report, schema_path = sys.argv[1:3]
    r = json.load(open(report))
    bad = []
    # a C string that was NULL printed with %s: a message with a hole in it
    if "(null)" in json.dumps(r):
        bad.append("the report holds '(null)': %s" % re.findall(r'[^"]{0,80}\(null\)[^"]{0,20}', json.dumps(r))[:3])
    if os.path.exists(schema_path):
        import jsonschema
        schema = json.load(open(schema_path))
        v = jsonschema.validators.validator_for(schema)(schema)
        for e in sorted(v.iter_errors(r), key=lambda e: list(e.path)):
            bad.append("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message))
    steps = {s["name"]: s for s in r.get("steps", [])}
    data = lambda s: (steps.get(s) or {}).get("data") or {}
    nics = {n["name"]: n for n in r.get("nics", [])}
    if r.get("complete") is not True:
        bad.append("the plan did not complete")
    for s in ("nic_selftest", "nic_coalesce", "nic_aggregate", "nic_link"):
        st = (steps.get(s) or {}).get("status")
        if st not in ("pass", "warn", "fail"):
            bad.append("%s: status %r (%s)" % (s, st, (steps.get(s) or {}).get("reason")))

    # self-test: every port ran the driver's tests offline; named and judged.
    ports = data("nic_selftest").get("ports") or []
    if len(ports) != 4:
        bad.append("nic_selftest: %d ports, expected 4" % len(ports))
    for p in ports:
        names = [t.get("name") for t in p.get("tests") or []]
        print("nic_selftest: %s %s offline=%s in %ss: %s" % (p.get("name"), p.get("result"), p.get("offline"),
                                                            p.get("seconds"), [(t.get("name"), t.get("code")) for t in p.get("tests") or []]))
        if p.get("result") not in ("pass", "fail") or len(names) < 3 or p.get("offline") is not True:
            bad.append("nic_selftest: %s: %r" % (p.get("name"), p))
    for x in data("nic_selftest").get("restored") or []:
        if x.get("restored") is not True:
            bad.append("nic_selftest: not as it was: %r" % x)

    # coalescing: rx-usecs swept on both pairs, figures at each value, 3 put back.
    pairs = data("nic_coalesce").get("pairs") or []
    if len(pairs) != 2:
        bad.append("nic_coalesce: %d pairs, expected 2" % len(pairs))
    for p in pairs:
        sw = p.get("sweep") or []
        print("nic_coalesce: %s<->%s %s (was %s): %s" % (p.get("a"), p.get("b"), p.get("setting"), p.get("original"),
                                                       [(x.get("value"), x.get("mbps"), x.get("rr_p50_us")) for x in sw]))
        if p.get("setting") != "rx-usecs" or p.get("original") != "3":
            bad.append("nic_coalesce: setting %r original %r, expected rx-usecs 3" % (p.get("setting"), p.get("original")))
        good = [x for x in sw if (x.get("mbps") or 0) > 0 and (x.get("rr_p50_us") or 0) > 0]
        if len(good) < 4:
            bad.append("nic_coalesce: fewer than 4 settings measured: %r" % sw)
    rest = data("nic_coalesce").get("restored") or []
    rx = [x for x in rest if x.get("setting") == "rx-usecs"]
    if len(rx) != 4 or not all(x.get("restored") is True and x.get("now") == "3" for x in rx):
        bad.append("nic_coalesce: rx-usecs not put back to 3 on all four ports: %r" % rx)

    # aggregate: two pairs alone and together, the ceiling named, the bond measured and gone.
    d = data("nic_aggregate")
    print("nic_aggregate: alone %s, together %s (%s%%), ceiling %s: %s; bond %s" % (
        d.get("sum_alone_mbps"), d.get("together_mbps"), d.get("together_pct_of_sum"), d.get("ceiling"),
        d.get("ceiling_why"), {k: (d.get("bond") or {}).get(k) for k in ("mode", "a", "b", "mbps", "error")}))
    if len(d.get("pairs") or []) != 2 or not (d.get("together_mbps") or 0) > 0 or not d.get("ceiling"):
        bad.append("nic_aggregate: %r" % {k: d.get(k) for k in ("pairs", "together_mbps", "ceiling")})
    b = d.get("bond") or {}
    if b.get("mode") != "balance-rr" or not (b.get("mbps") or 0) > 0 or len(b.get("a") or []) != 2:
        bad.append("nic_aggregate: bond %r" % b)
    for x in d.get("restored") or []:
        if x.get("restored") is not True:
            bad.append("nic_aggregate: not restored: %r" % x)

    # nic_link: nothing left changed; speeds and MTUs as at the start.
    for p in data("nic_link").get("ports") or []:
        n = nics.get(p.get("name")) or {}
        if p.get("changed"):
            bad.append("nic_link: %s left changed: %r" % (p.get("name"), p.get("changed")))
        if p.get("mtu") != n.get("mtu") or (p.get("coalesce") or {}).get("rx_usecs") != 3:
            bad.append("nic_link: %s mtu %r rx_usecs %r" % (p.get("name"), p.get("mtu"), (p.get("coalesce") or {}).get("rx_usecs")))
        if p.get("carrier_changes_unexplained") not in (0, None):
            bad.append("nic_link: %s: %r unexplained carrier changes" % (p.get("name"), p.get("carrier_changes_unexplained")))
    for b_ in bad:
        print("nic_full: " + b_)
    if bad:
        print("nic_full: %d problem(s) in %s" % (len(bad), report))
        return 1
    print("nic_full: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
