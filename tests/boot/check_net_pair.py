#!/usr/bin/python3
# Check the client's report of tests/boot/test_nic_peer_pair (two guests, one
# serving) and the server's console. Usage: check_net_pair.py REPORT SERVER_SERIAL SCHEMA
# Prints every problem; exit 1 if any.
import json
import os
import re
import sys

PAIR = ["52:54:00:52:00:01", "52:54:00:52:00:02"]
ALONE, PEER, DOWN = "52:54:00:52:00:03", "52:54:00:52:00:04", "52:54:00:52:00:05"


def main():
    report, serial, schema_path = sys.argv[1:4]
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
    name = {n.get("mac"): n.get("name") for n in r.get("nics", [])}
    data = lambda s: (steps.get(s) or {}).get("data") or {}
    findings = lambda s: (steps.get(s) or {}).get("findings") or []

    if r.get("complete") is not True:
        bad.append("the client's plan did not complete")
    for s in ("nic_loop", "nic_peer", "mtu", "net_storage", "nic_link"):
        st = (steps.get(s) or {}).get("status")
        if st not in ("pass", "warn"):
            bad.append("%s: status %r (%s)" % (s, st, (steps.get(s) or {}).get("reason")))

    # nic_loop: the pair by probe frame, each way and both; the lone port unpaired.
    pairs = data("nic_loop").get("pairs") or []
    p = [x for x in pairs if sorted([x.get("a_mac") or "", x.get("b_mac") or ""]) == PAIR]
    if not p or p[0].get("found_by") != "probe frame":
        bad.append("nic_loop: no pair %s found by probe frame: %r" % (PAIR, pairs))
    else:
        t = p[0].get("tests") or []
        modes = sorted((x.get("from"), x.get("mode")) for x in t)
        if len(t) != 4 or not all((x.get("median_mbps") or 0) > 0 for x in t):
            bad.append("nic_loop: expected 4 rows with throughput (each way, both at once): %r" % t)
        print("nic_loop: %s" % ", ".join("%s %s %.0f Mbit/s" % (x.get("path"), x.get("mode"),
                                                              x.get("median_mbps") or 0) for x in t))
    ports = {x.get("name"): x for x in data("nic_loop").get("ports") or []}
    if (ports.get(name.get(ALONE)) or {}).get("state") != "unpaired":
        bad.append("nic_loop: the lone port %s is %r, not unpaired" % (name.get(ALONE), ports.get(name.get(ALONE))))
    if (ports.get(name.get(DOWN)) or {}).get("state") != "no link":
        bad.append("nic_loop: the port with its link down is %r" % ports.get(name.get(DOWN)))

    # nic_peer: found by discovery, a probestick, figures each way.
    peer = data("nic_peer").get("peer") or {}
    if peer.get("found_by") != "discovery" or peer.get("probestick") is not True or \
            peer.get("address") != "198.51.100.1":
        bad.append("nic_peer: peer %r" % peer)
    if (data("nic_peer").get("port") or {}).get("name") != name.get(PEER):
        bad.append("nic_peer: the port facing the peer is %r, not %s" % (data("nic_peer").get("port"), name.get(PEER)))
    t = data("nic_peer").get("tests") or []
    if len(t) != 4 or not all((x.get("median_mbps") or 0) > 0 for x in t):
        bad.append("nic_peer: expected 4 rows with throughput: %r" % t)
    print("nic_peer: %s" % ", ".join("%s %s %.0f Mbit/s" % (x.get("path"), x.get("mode"),
                                                          x.get("median_mbps") or 0) for x in t))

    # mtu: seed 003's case to the peer, and the pair measured.
    paths = data("mtu").get("paths") or []
    pp = [x for x in paths if x.get("kind") == "peer"]
    if not pp:
        bad.append("mtu: no path to the peer: %r" % paths)
    else:
        x = pp[0]
        print("mtu: peer path %s: here %s there %s out %s back %s path %s payload %s mismatch %s" % (
            x.get("path"), x.get("mtu_here"), x.get("mtu_there"), x.get("forward_mtu"),
            x.get("reverse_mtu"), x.get("path_mtu"), x.get("payload"), x.get("mismatch")))
        want = {"mtu_here": 4088, "mtu_there": 4074, "path_mtu": 4074, "payload": 4046, "mismatch": True}
        for k, v in want.items():
            if x.get(k) != v:
                bad.append("mtu: peer path %s is %r, expected %r" % (k, x.get(k), v))
        if not [f for f in findings("mtu") if f.get("rule") == "mtu.mismatch"]:
            bad.append("mtu: no mtu.mismatch finding")
    loop = [x for x in paths if x.get("kind") == "port to port"]
    if not loop or not (loop[0].get("path_mtu") or 0) > 1500:
        bad.append("mtu: the cabled pair's path MTU is missing or not jumbo: %r" % loop)

    # net_storage: three figures and the bottleneck named; the NBD device given back.
    figs = {x.get("what"): x.get("median_mbytes_s") for x in data("net_storage").get("figures") or []}
    print("net_storage: %s; bottleneck %r" % (figs, data("net_storage").get("bottleneck")))
    for k in ("local disk", "raw TCP", "end to end"):
        if not (figs.get(k) or 0) > 0:
            bad.append("net_storage: no %s figure: %r" % (k, figs))
    if not data("net_storage").get("bottleneck"):
        bad.append("net_storage: no bottleneck named")

    # Every step put back what it changed.
    for s in ("nic_loop", "nic_peer", "mtu", "net_storage"):
        for x in data(s).get("restored") or []:
            if x.get("restored") is not True:
                bad.append("%s: not restored: %r" % (s, x))
    if not [x for x in data("net_storage").get("restored") or [] if x.get("setting") == "nbd client"]:
        bad.append("net_storage: no record of the NBD device given back")

    # nic_link: the down port is a finding; no setting left changed; no unexplained flaps.
    lp = {x.get("name"): x for x in data("nic_link").get("ports") or []}
    d = lp.get(name.get(DOWN)) or {}
    if d.get("link") != "down" or not [f for f in findings("nic_link")
                                       if f.get("rule") == "nic_link.no_link" and f.get("subject") == name.get(DOWN)]:
        bad.append("nic_link: the port with its link down: %r, findings %r" % (d, findings("nic_link")))
    for n, x in lp.items():
        if x.get("changed"):
            bad.append("nic_link: %s left changed: %r" % (n, x.get("changed")))
        if x.get("carrier_changes_unexplained") not in (0, None):
            bad.append("nic_link: %s: %r carrier changes the steps did not cause" % (n, x.get("carrier_changes_unexplained")))

    # The server: it served, saw the client, and ended on the key.
    text = open(serial, "rb").read().decode("utf-8", "replace").replace("\r", "")
    for want in (r"serve: serving", r"serve: ending server mode: [1-9]\d* discovery answers, [1-9]\d* echo"):
        if not re.search(want, text):
            bad.append("server console: no line matching %r" % want)
    for b in bad:
        print("net_pair: " + b)
    if bad:
        print("net_pair: %d problem(s) in %s" % (len(bad), report))
        return 1
    print("net_pair: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
