#!/usr/bin/python3
# Check the module's per-step probe histograms in a quick-plan report from a
# QEMU boot (tests/boot/test_probes_quick). Usage: check_probes.py REPORT EXPECT
# Prints the figures it compared and every problem; exit 1 if any.
import json
import sys

# A hardirq line is compared with /proc/interrupts when the probe counted at
# least this many interrupts on it: below that a single edge interrupt is
# already more than the tolerance.
MIN_COUNT = 100
# What is compared: the probe's handled invocations plus `unhandled` (those
# of a shared line whose handler returned IRQ_NONE: AHCI and NVMe register
# even their MSI vectors IRQF_SHARED, and QEMU raises about 4% of AHCI's
# interrupts with no work). For a line with one action that sum is exactly
# what /proc/interrupts counts.
# Why 5%: plan.c starts the /proc sampler just before the capture window and
# stops it just after, so load.irqs can only exceed the probe's count by the
# interrupts of the two edges (window attach and detach, tens of ms in which
# the step does no I/O of its own); in 10 runs every line agreed within 0.1%
# (NIC, virtio) to 1.7% (NVMe). A probe that misses a CPU, loses events while
# attached or pairs entry and exit wrongly is off by far more (half the count
# when one CPU of two is lost), so 5% separates the two.
TOLERANCE_PCT = 5.0


def tolerance(line_name, nic_names, deviation):
    """The bound for one line (the same for every line and direction)."""
    return TOLERANCE_PCT
# A NIC interrupt line that fired this often in the step must be in the probes.
MIN_NIC_LINE = 20


def get(obj, *keys):
    for k in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(k)
    return obj


def num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


class Checker:
    def __init__(self, report):
        self.r = report
        self.bad = []
        self.steps = {s.get("name"): s for s in report.get("steps") or []}

    def fail(self, msg):
        self.bad.append(msg)
        print("probes: PROBLEM: " + msg)

    def step(self, name):
        s = self.steps.get(name)
        if s is None:
            self.fail("step %s is not in the report (steps: %s)" % (name, sorted(self.steps)))
            return None
        p = s.get("probes")
        if not isinstance(p, dict) or p.get("available") is not True:
            self.fail("step %s: the module's probes are unavailable (%s; probestick.module_status %r)"
                      % (name, get(p, "reason") or "no probes object",
                         get(self.r, "probestick", "module_status")))
            return None
        for probe in ("hardirq", "softirq", "block", "nic"):
            if get(p, probe, "captured") is not True:
                self.fail("step %s: probe %s was not captured (%s)"
                          % (name, probe, get(p, probe, "reason") or get(p, probe)))
        drops = p.get("drops") or {}
        for k in ("keys_full", "hists_full", "rq_table_full"):
            if num(drops.get(k)):
                self.fail("step %s: %d events lost (drops.%s)" % (name, drops[k], k))
        return s

    def disk_read(self, want):
        s = self.step("disk_read")
        if s is None:
            return
        drives = self.r.get("drives") or []
        data = {d.get("name"): d for d in get(s, "data", "drives") or []}
        blocks = get(s, "probes", "block", "disks") or []
        for d in want["disks"]:
            found = [x for x in drives if (x.get("serial") or "").strip() == d["serial"]]
            if not found:
                self.fail("disk_read: no drive with serial %s in drives[]" % d["serial"])
                continue
            name = found[0].get("name")
            dd = data.get(name) or {}
            if dd.get("skipped_reason") or not dd.get("results"):
                self.fail("disk_read: %s (%s) was not read: %s"
                          % (name, d["serial"], dd.get("skipped_reason") or "no results"))
            read_bytes = sum(num(x.get("bytes")) for x in dd.get("results") or [])
            rec = [b for b in blocks if b.get("disk") == name and b.get("dir") == "read"]
            if not rec:
                self.fail("disk_read: probes.block has no read histogram for %s (%s); disks there: %s"
                          % (name, d["serial"], sorted({(b.get("disk"), b.get("dir")) for b in blocks})))
                continue
            lat, irq = rec[0].get("latency") or {}, rec[0].get("irq_to_complete") or {}
            print("probes: disk_read %-8s %-13s read %d MiB: requests %d latency p50 %d ns p99 %d ns; "
                  "irq->complete %d p50 %d ns"
                  % (name, d["serial"], read_bytes >> 20, num(lat.get("count")), num(lat.get("p50")),
                     num(lat.get("p99")), num(irq.get("count")), num(irq.get("p50"))))
            if not num(lat.get("count")) > 0 or not num(lat.get("p50")) > 0:
                self.fail("disk_read: %s read latency histogram is empty (count %r, p50 %r)"
                          % (name, lat.get("count"), lat.get("p50")))
            if not num(irq.get("count")) > 0 or not num(irq.get("p50")) > 0:
                self.fail("disk_read: %s has no irq->completion figures (count %r, p50 %r)"
                          % (name, irq.get("count"), irq.get("p50")))
        # The stick is never read by disk_read; its block entries (if any)
        # come from the report writes, so only the step's own word is checked.
        for x in drives:
            if x.get("boot_device") is True:
                why = (data.get(x.get("name")) or {}).get("skipped_reason")
                print("probes: disk_read boot stick %s skipped: %r" % (x.get("name"), why))
                if not why:
                    self.fail("disk_read: the boot stick %s is not marked skipped in the step's data"
                              % x.get("name"))

    def nic_irqs(self, step, nic):
        """IRQ numbers of a NIC from the step's load.irqs: the action name is
        the netdev's (e1000e: eth0, eth0-rx-0, eth0-tx-0) or the MSI hwirq
        names its PCI function (x86 PCI-MSI: domain << 27 | bus << 19 |
        devfn << 11 | vector)."""
        name, addr = nic.get("name") or "", nic.get("pci_address") or ""
        bdf = None
        try:
            dom, bus, rest = addr.split(":")
            dev, fn = rest.split(".")
            bdf = (int(dom, 16) << 16) | (int(bus, 16) << 8) | (int(dev, 16) << 3) | int(fn, 16)
        except ValueError:
            pass
        lines = {}
        for line in get(step, "load", "irqs") or []:
            if not str(line.get("irq", "")).isdigit():
                continue
            action = line.get("name") or ""
            by_name = name and any(a == name or a.startswith(name + "-") for a in action.split(","))
            by_msi = False
            hw = str(line.get("hwirq") or "").split("-")[0]
            if bdf is not None and str(line.get("chip") or "").startswith("PCI-MSI") and hw.isdigit():
                h = int(hw)
                by_msi = ((h >> 27) << 16 | ((h >> 11) & 0xffff)) == bdf
            if by_name or by_msi:
                lines[int(line["irq"])] = line
        return lines

    def nic_loop(self, want):
        s = self.step("nic_loop")
        if s is None:
            return
        nics = {(n.get("mac") or "").lower(): n for n in self.r.get("nics") or []}
        devs = get(s, "probes", "nic", "devices") or []
        hard = {x.get("irq"): x for x in get(s, "probes", "hardirq", "lines") or []}
        for mac in want["macs"]:
            nic = nics.get(mac.lower())
            if not nic:
                self.fail("nic_loop: no NIC with MAC %s in nics[]" % mac)
                continue
            name = nic.get("name")
            rec = [d for d in devs if d.get("name") == name]
            if not rec:
                self.fail("nic_loop: probes.nic has no device %s (%s); devices there: %s"
                          % (name, mac, [d.get("name") for d in devs]))
            else:
                d = rec[0]
                lat, work = d.get("irq_to_poll") or {}, d.get("poll_work") or {}
                print("probes: nic_loop %-6s %s bus %s: rx %d tx %d packets; irq->poll %d p50 %d ns; "
                      "polls %d work p50 %d budget %s"
                      % (name, mac, d.get("bus"), num(d.get("rx_packets")), num(d.get("tx_packets")),
                         num(lat.get("count")), num(lat.get("p50")), num(work.get("count")),
                         num(work.get("p50")), work.get("budget")))
                if nic.get("pci_address") and d.get("bus") != nic.get("pci_address"):
                    self.fail("nic_loop: probes.nic %s has bus %r, nics[] says %r"
                              % (name, d.get("bus"), nic.get("pci_address")))
                for k in ("rx_packets", "tx_packets"):
                    if not num(d.get(k)) > 0:
                        self.fail("nic_loop: %s %s is %r, expected > 0" % (name, k, d.get(k)))
                if not num(lat.get("count")) > 0:
                    self.fail("nic_loop: %s has no irq->poll figures (count %r)" % (name, lat.get("count")))
                if not num(work.get("count")) > 0:
                    self.fail("nic_loop: %s has no poll work figures (count %r)" % (name, work.get("count")))
            lines = self.nic_irqs(s, nic)
            if not lines:
                self.fail("nic_loop: no interrupt line of %s (%s) fired in load.irqs" % (name, mac))
                continue
            total = 0
            for irq, line in sorted(lines.items()):
                p = num(get(hard.get(irq), "count"))
                total += p
                print("probes: nic_loop %-6s irq %d %-10s probe %d /proc %d"
                      % (name, irq, line.get("name"), p, num(line.get("total"))))
                if num(line.get("total")) >= MIN_NIC_LINE and p == 0:
                    self.fail("nic_loop: %s irq %d (%s) fired %d times but has no hardirq line in the probes"
                              % (name, irq, line.get("name"), line.get("total")))
            if total == 0:
                self.fail("nic_loop: the probes counted no interrupt on %s's lines %s" % (name, sorted(lines)))

    def consistency(self):
        """Every busy hardirq line of every step against /proc/interrupts."""
        worst = (0.0, "")
        compared = {}
        nic_names = [n.get("name") for n in self.r.get("nics") or [] if n.get("name")]
        for s in self.r.get("steps") or []:
            name = s.get("name")
            p = s.get("probes") or {}
            if p.get("available") is not True:
                continue
            load = s.get("load") or {}
            cpu_ids = load.get("cpu_ids") or []
            by_irq = {int(x["irq"]): x for x in load.get("irqs") or [] if str(x.get("irq", "")).isdigit()}
            for line in get(p, "hardirq", "lines") or []:
                # Interrupts the line took: handled plus IRQ_NONE (see above).
                n = num(line.get("count")) + num(line.get("unhandled"))
                if n < MIN_COUNT:
                    continue
                irq = line.get("irq")
                ld = by_irq.get(irq)
                if ld is None:
                    self.fail("%s: irq %s (%s): probe counted %d, but load.irqs has no such line%s"
                              % (name, irq, line.get("name"), n,
                                 " (%d lines beyond the 32 listed)" % get(load, "irqs_other", "lines")
                                 if num(get(load, "irqs_other", "lines")) else ""))
                    continue
                t = num(ld.get("total"))
                dev = 100.0 * (n - t) / t if t else 100.0
                # Per CPU too: each CPU's count is exact in both sources.
                # per_cpu counts the handled calls, unhandled_per_cpu the IRQ_NONE ones.
                upc = line.get("unhandled_per_cpu") or []
                pc = [num(h) + (num(upc[i]) if i < len(upc) else 0)
                      for i, h in enumerate(line.get("per_cpu") or [])]
                lc = ld.get("per_cpu") or []
                cpus = []
                for i, cpu in enumerate(cpu_ids):
                    a = num(pc[cpu]) if cpu < len(pc) else 0
                    b = num(lc[i]) if i < len(lc) else 0
                    cpus.append("cpu%d %d/%d" % (cpu, a, b))
                    if max(a, b) >= MIN_COUNT:
                        d = 100.0 * (a - b) / b if b else 100.0
                        tol = tolerance(line.get("name"), nic_names, d)
                        if abs(d) > tol:
                            self.fail("%s: irq %s (%s) on cpu%d: probe %d, /proc/interrupts %d (%+.1f%%, "
                                      "more than %.0f%%)" % (name, irq, line.get("name"), cpu, a, b, d,
                                                             tol))
                tol = tolerance(line.get("name"), nic_names, dev)
                ok = abs(dev) <= tol
                print("probes: %-9s irq %-3s %-20s probe %6d /proc %6d %+6.2f%% (%s)%s"
                      % (name, irq, line.get("name"), n, t, dev, ", ".join(cpus), "" if ok else "  MISMATCH"))
                compared[name] = compared.get(name, 0) + 1
                if abs(dev) > abs(worst[0]):
                    worst = (dev, "%s irq %s" % (name, irq))
                if not ok:
                    self.fail("%s: irq %s (%s): probe counted %d, /proc/interrupts %d over the step: %+.1f%%, "
                              "more than %.0f%%" % (name, irq, line.get("name"), n, t, dev, tol))
        if not compared.get("nic_loop") and get(self.steps.get("nic_loop"), "probes", "available") is True:
            self.fail("nic_loop: no hardirq line reached %d interrupts: nothing to compare with /proc/interrupts"
                      % MIN_COUNT)
        print("probes: %d lines compared with /proc/interrupts (%s), largest deviation %+.2f%% (%s)"
              % (sum(compared.values()), ", ".join("%s %d" % kv for kv in compared.items()),
                 worst[0], worst[1] or "-"))


def main():
    report_path, expect_path = sys.argv[1:3]
    with open(report_path) as f:
        r = json.load(f)
    with open(expect_path) as f:
        want = json.load(f)
    c = Checker(r)
    c.disk_read(want)
    c.nic_loop(want)
    c.consistency()
    if c.bad:
        print("probes: %d problem(s) in %s" % (len(c.bad), report_path))
        return 1
    print("probes: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
