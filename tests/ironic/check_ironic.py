#!/usr/bin/env python3
"""The Ironic test's checks (tests/ironic/run), against what QEMU was given.

inspection: each node's properties (cpus, memory_mb, cpu_arch, local_gb,
the boot_mode capability), its ports (the MAC), the inventory Ironic stores
from the introspection (every disk's serial and size, the interfaces' MACs,
the system vendor, memory, CPU count, boot mode and PXE port), the extra
data (probestick{}: the worst drive's verdict), and the README's rule:
exactly the node with the failing drive in maintenance, the drive's rule,
value and serial in the reason.

burnin: each node's runs at the collector: the ramdisk deploy's run names
its node (ironic.node, from probestick.ironic_node=), is the quick plan,
complete, valid against the schema, each file whole; the failing drive is
in it; the introspection's run names the node the inspector answered with
and says the inspector took it; the fleet index shows both nodes; no
password anywhere written.
"""
import argparse
import glob
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fleet"))
import check_fleet  # noqa: E402  (the fleet test's helpers: console, show, validator)

GIB = 1 << 30


class Node:
    def __init__(self, name, uuid, firmware, cpus, mem, disks, mac, failing):
        self.name, self.uuid, self.firmware = name, uuid, firmware
        self.cpus, self.mem, self.mac = int(cpus), int(mem), mac.lower()
        self.disks = {}
        for d in disks.split(","):
            serial, size = d.split(":")
            self.disks[serial] = int(size)
        self.failing = None if failing == "-" else failing

    def root_size(self):
        """The disk ironic-python-agent (and probestick) pick without hints: smallest >= 4 GiB."""
        big = sorted(s for s in self.disks.values() if s >= 4 * GIB)
        return big[0] if big else None


def get(url, headers):
    req = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def ironic(a, path):
    return get(a.api + path, {"X-OpenStack-Ironic-API-Version": "latest"})


def inspector(a, path):
    return get(a.inspector + path, {"X-OpenStack-Ironic-Inspector-API-Version": "1.18"})


def check_inspection(a, nodes, bad, summary):
    for n in nodes:
        node = ironic(a, "/v1/nodes/%s" % n.uuid)
        props = node.get("properties") or {}
        root = n.root_size()
        want = {"cpus": str(n.cpus), "memory_mb": str(n.mem), "cpu_arch": "x86_64",
                "local_gb": str(root // GIB - 1 if root else 0)}
        for k, v in want.items():
            if str(props.get(k)) != v:
                bad.append("%s: properties.%s is %r, QEMU was given %s" % (n.name, k, props.get(k), v))
        caps = dict(c.split(":", 1) for c in (props.get("capabilities") or "").split(",") if ":" in c)
        if caps.get("boot_mode") != n.firmware:
            bad.append("%s: capabilities boot_mode is %r, QEMU booted %s" % (n.name, caps.get("boot_mode"),
                                                                          n.firmware))
        ports = ironic(a, "/v1/ports?node=%s&fields=address,pxe_enabled" % n.uuid)["ports"]
        if sorted(p["address"].lower() for p in ports) != [n.mac]:
            bad.append("%s: ports %s, QEMU's NIC is %s" % (n.name, [p["address"] for p in ports], n.mac))
        # what Ironic stored from the introspection (API 1.81): the agent's inventory format
        stored = ironic(a, "/v1/nodes/%s/inventory" % n.uuid)
        inv = stored.get("inventory") or {}
        disks = {d.get("serial"): d.get("size") for d in inv.get("disks") or []}
        if disks != n.disks:
            bad.append("%s: inventory disks %s, QEMU's %s" % (n.name, disks, n.disks))
        macs = sorted((i.get("mac_address") or "").lower() for i in inv.get("interfaces") or [])
        if macs != [n.mac]:
            bad.append("%s: inventory interfaces %s, QEMU's NIC %s" % (n.name, macs, n.mac))
        cpu, mem = inv.get("cpu") or {}, inv.get("memory") or {}
        if cpu.get("count") != n.cpus or cpu.get("architecture") != "x86_64":
            bad.append("%s: inventory cpu %s, QEMU's %d x86_64" % (n.name, cpu, n.cpus))
        if mem.get("physical_mb") != n.mem:
            bad.append("%s: inventory memory %s, QEMU's %d MiB" % (n.name, mem, n.mem))
        boot = inv.get("boot") or {}
        if boot.get("current_boot_mode") != n.firmware or (boot.get("pxe_interface") or "").lower() != n.mac:
            bad.append("%s: inventory boot %s, QEMU booted %s from %s" % (n.name, boot, n.firmware, n.mac))
        vendor = inv.get("system_vendor") or {}
        if vendor.get("manufacturer") != "QEMU" or not (vendor.get("product_name") or "").startswith("Standard PC"):
            bad.append("%s: inventory system_vendor %s, not QEMU's" % (n.name, vendor))
        # the extra data, as the inspector stored it for its rules
        data = inspector(a, "/v1/introspection/%s/data" % n.uuid)
        ps = data.get("probestick") or {}
        rd = data.get("root_disk") or {}
        if root and rd.get("size") != root:
            bad.append("%s: root_disk %s, the smallest disk of 4 GiB or more is %d bytes" % (n.name, rd, root))
        worst = (ps.get("worst") or {}).get("drive") or {}
        if not ps.get("complete") or ps.get("plan") != "quick":
            bad.append("%s: probestick{} is not the complete quick plan: %s" % (n.name, {k: ps.get(k) for k in ("plan", "complete")}))
        if n.failing:
            if worst.get("status") != "fail" or worst.get("rule") != "disk_read.read_error" or \
                    n.failing not in (worst.get("reason") or ""):
                bad.append("%s: probestick.worst.drive is %s, expected disk_read.read_error on %s"
                           % (n.name, worst, n.failing))
        elif worst.get("status") == "fail":
            bad.append("%s: a drive FAILs where none should: %s" % (n.name, worst.get("reason")))
        # the README's rule: maintenance exactly where a drive fails, the finding as the reason
        extra = node.get("extra") or {}
        reason = extra.get("probestick_reason") or ""
        if n.failing:
            if node.get("maintenance") is not True:
                bad.append("%s: not in maintenance, though its drive %s FAILs" % (n.name, n.failing))
            for part in ("disk_read.read_error", n.failing, "sectors", "limit 0"):
                if part not in reason:
                    bad.append("%s: the reason %r does not name %r" % (n.name, reason, part))
        else:
            if node.get("maintenance") or reason:
                bad.append("%s: in maintenance (%r) though no drive fails" % (n.name, reason))
        summary.append("%s: introspected as cpus %s, memory_mb %s, local_gb %s, cpu_arch %s, boot_mode %s, "
                       "port %s, disks %s; verdict %s (%s); maintenance %s%s"
                       % (n.name, props.get("cpus"), props.get("memory_mb"), props.get("local_gb"),
                          props.get("cpu_arch"), caps.get("boot_mode"), n.mac,
                          ", ".join("%s %d" % kv for kv in sorted(disks.items())), ps.get("verdict"),
                          ", ".join("%s %s" % kv for kv in (ps.get("counts") or {}).items()),
                          node.get("maintenance"), (": " + reason) if reason else ""))


def runs_of(a, uuid):
    out = []
    for rj in glob.glob(os.path.join(a.work, "www", "fleet", "*", "*", "report.json")):
        with open(rj) as f:
            r = json.load(f)
        if (r.get("ironic") or {}).get("node") == uuid:
            out.append((os.path.dirname(rj), r))
    return out


def check_burnin(a, nodes, bad, summary):
    schema = check_fleet.validator(a.out)
    index = open(os.path.join(a.work, "www", "fleet", "index.html"), encoding="utf-8").read()
    for n in nodes:
        runs = runs_of(a, n.uuid)
        deploy = [(d, r) for d, r in runs if r["ironic"].get("node_from") == "ironic_node"]
        inspect = [(d, r) for d, r in runs if r["ironic"].get("node_from") == "inspector"]
        if len(deploy) != 1 or len(inspect) != 1:
            bad.append("%s: %d deploy and %d introspection runs at the collector name node %s, expected 1 each"
                       % (n.name, len(deploy), len(inspect), n.uuid))
            continue
        for what, (run, rep) in (("deploy", deploy[0]), ("introspection", inspect[0])):
            names = sorted(os.listdir(run))
            if names != sorted(check_fleet.FILES):
                bad.append("%s: the %s run %s holds %s" % (n.name, what, run, names))
            if not rep.get("complete") or rep.get("plan") != "quick":
                bad.append("%s: the %s run is not the complete quick plan" % (n.name, what))
            for e in schema.iter_errors(rep):
                bad.append("%s: %s run: schema: /%s: %s" % (n.name, what, "/".join(map(str, e.path)), e.message))
            for fname, fmt in (("report.txt", "text"), ("report.html", "html"), ("report.ocp.jsonl", "ocp")):
                with open(os.path.join(run, fname), "rb") as f:
                    if f.read() != check_fleet.show(a.out, run, fmt):
                        bad.append("%s: the %s run's %s is not what its report.json renders" % (n.name, what, fname))
            for path in glob.glob(os.path.join(run, "*")):
                if a.password.encode() in open(path, "rb").read():
                    bad.append("%s: the password is in %s" % (n.name, path))
            macs = [(x.get("mac") or "").lower() for x in rep.get("nics") or []]
            if n.mac not in macs:
                bad.append("%s: the %s run's NICs %s do not hold %s" % (n.name, what, macs, n.mac))
        ins = (inspect[0][1]["ironic"].get("inspector") or {})
        if ins.get("status") != "delivered" or ins.get("http_status") != 200:
            bad.append("%s: the introspection run's ironic.inspector is %s" % (n.name, ins))
        run, rep = deploy[0]
        dr = next((s for s in rep.get("steps") or [] if s.get("name") == "disk_read"), {})
        errs = [f for f in dr.get("findings") or [] if f.get("rule") == "disk_read.read_error"]
        if n.failing and not (dr.get("status") == "fail" and errs):
            bad.append("%s: the burn-in's disk_read is %r without its read errors" % (n.name, dr.get("status")))
        if not n.failing and errs:
            bad.append("%s: read errors where none were injected: %s" % (n.name, errs[0].get("message")))
        con = check_fleet.console(os.path.join(a.work, "%s-deploy" % n.name))
        if "collect: delivered to https://" not in con:
            bad.append("%s: the burn-in's console did not say its run was delivered" % n.name)
        if a.password in con:
            bad.append("%s: the password is on the console" % n.name)
        if ("Ironic node " + n.uuid) not in index:
            bad.append("%s: the fleet index does not show Ironic node %s" % (n.name, n.uuid))
        machine, rname = run.split(os.sep)[-2:]
        summary.append("%s: burn-in run %s/%s (Ironic node %s): %s; introspection run %s"
                       % (n.name, machine, rname, n.uuid,
                          ", ".join("%s %s" % (s.get("name"), s.get("status")) for s in rep.get("steps") or []),
                          os.path.basename(inspect[0][0])))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("phase", choices=["inspection", "burnin"])
    ap.add_argument("--api", required=True)
    ap.add_argument("--inspector")
    ap.add_argument("--work")
    ap.add_argument("--out")
    ap.add_argument("--password", default="")
    ap.add_argument("--summary")
    ap.add_argument("--node", nargs=8, action="append", default=[],
                    metavar=("NAME", "UUID", "FIRMWARE", "CPUS", "MEM_MIB", "SERIAL:BYTES,...", "MAC",
                             "FAILING_SERIAL"))
    a = ap.parse_args()
    nodes = [Node(*x) for x in a.node]
    bad, summary = [], []
    if a.phase == "inspection":
        check_inspection(a, nodes, bad, summary)
    else:
        check_burnin(a, nodes, bad, summary)
    if a.summary:
        with open(a.summary, "a") as f:
            for s in summary:
                f.write(s + "\n")
    for s in summary:
        print("ironic: " + s)
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
