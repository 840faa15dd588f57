#!/usr/bin/python3
"""Check the report of tests/boot/test_platform against what lspci -vv and
dmidecode -t 17 printed in the same guest, the SMBIOS structures the test
wrote, the PCIe verdicts its root ports call for, the memory step's
figures, and the AER error and machine check it injected while the memory
step ran. Usage: check_platform.py REPORT SERIAL_LOG TYPE17_JSON INJECTED
AER_PORT SCHEMA (INJECTED: bit 0 AER, bit 1 MCE). Prints every mismatch and
what it compared; exit 1 if any mismatch."""
import json
import os
import re
import sys

bad = []
compared = []


def fail(msg):
    bad.append(msg)


def dumps(serial, tag):
    """The lines the guest printed as TAG|line between PS_BEGIN/PS_END TAG."""
    out = []
    with open(serial, "rb") as f:
        for raw in f.read().decode("utf-8", "replace").replace("\r", "").split("\n"):
            if raw.startswith(tag + "|"):
                out.append(raw[len(tag) + 1:])
    return out


def gts(text):
    m = re.match(r"(\d+(?:\.\d+)?)GT/s", text)
    return float(m.group(1)) if m else None


def parse_lspci(lines):
    devs, cur = {}, None
    head = re.compile(r"^([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (.*?) \[([0-9a-f]{4})\]: "
                      r"(.*) \[([0-9a-f]{4}):([0-9a-f]{4})\]")
    for line in lines:
        m = head.match(line)
        if m:
            cur = devs[m.group(1)] = {"name": m.group(4), "vendor": m.group(5),
                                      "device": m.group(6), "express": False}
            continue
        if cur is None:
            continue
        s = line.strip()
        if "Capabilities:" in s and "Express" in s:
            cur["express"] = True
        elif s.startswith("LnkCap:"):
            m = re.search(r"Speed ([0-9.]+GT/s), Width x(\d+)", s)
            if m:
                cur["cap_speed"], cur["cap_width"] = gts(m.group(1)), int(m.group(2))
            m = re.search(r"ASPM ([^,]*)", s)
            if m:
                a = m.group(1).strip()
                cur["aspm_supported"] = "none" if a.startswith("not supported") else a
        elif s.startswith("LnkCtl:"):
            m = re.search(r"ASPM ([^;]*);", s)
            if m:
                a = m.group(1).strip()
                cur["aspm_enabled"] = "disabled" if a == "Disabled" else a.replace(" Enabled", "")
        elif s.startswith("LnkSta:"):
            m = re.search(r"Speed ([0-9.]+GT/s)[^,]*, Width x(\d+)", s)
            if m:
                cur["speed"], cur["width"] = gts(m.group(1)), int(m.group(2))
            cur["sta_next"] = True
        elif cur.get("sta_next") and "DLActive" in s:
            cur["dl_active"] = "DLActive+" in s
            cur["lbms"] = "BWMgmt+" in s.replace("ABWMgmt", "")
            cur["labs"] = "ABWMgmt+" in s
            cur["sta_next"] = False
        elif s.startswith("LnkCap2:"):
            m = re.search(r"Supported Link Speeds: ([0-9.]+)(?:-([0-9.]+))?GT/s", s)
            if m:
                lo, hi = float(m.group(1)), float(m.group(2) or m.group(1))
                cur["speeds"] = [x for x in (2.5, 5.0, 8.0, 16.0, 32.0, 64.0) if lo <= x <= hi]
        elif s.startswith("LnkCtl2:"):
            m = re.search(r"Target Link Speed: ([0-9.]+GT/s)", s)
            if m:
                cur["target"] = gts(m.group(1))
        elif s.startswith("Kernel driver in use:"):
            cur["driver"] = s.split(":", 1)[1].strip()
    return devs


def parse_dmidecode(lines):
    dimms, cur = {}, None
    for line in lines:
        m = re.match(r"Handle 0x([0-9A-Fa-f]+), DMI type 17", line)
        if m:
            cur = dimms[int(m.group(1), 16)] = {}
            continue
        if cur is None or ":" not in line or not line.startswith("\t"):
            continue
        k, v = line.strip().split(":", 1)
        cur[k.strip()] = v.strip()
    return dimms


def dmi_str(v):
    return None if v in (None, "Not Specified", "<BAD INDEX>", "Unknown", "") else v


def dmi_num(v, unit):
    m = re.match(r"(\d+)" + (" " + unit if unit else "") + "$", v or "")
    return int(m.group(1)) if m else None


def dmi_size(v):
    if v == "No Module Installed":
        return 0
    m = re.match(r"(\d+) (kB|MB|GB|TB)", v or "")
    if not m:
        return None
    return int(m.group(1)) << {"kB": 10, "MB": 20, "GB": 30, "TB": 40}[m.group(2)]


def check_pcie(r, lspci):
    pcie = {p["address"]: p for p in r.get("pcie") or []}
    if set(pcie) != set(lspci):
        fail("functions: the report has %s, lspci %s" % (sorted(pcie), sorted(lspci)))
    n = 0
    for addr, l in sorted(lspci.items()):
        p = pcie.get(addr)
        if not p:
            continue
        # lspci: "Vendor Device", with "Device" for what pci.ids does not name
        name = " ".join(x for x in (p.get("vendor_name"), p.get("device_name") or "Device") if x)
        if name != l["name"]:
            fail("%s: the report names it %r, lspci %r" % (addr, name, l["name"]))
        if (p.get("vendor_id"), p.get("device_id")) != (l["vendor"], l["device"]):
            fail("%s: ids %s:%s, lspci %s:%s" % (addr, p.get("vendor_id"), p.get("device_id"),
                                                l["vendor"], l["device"]))
        if p.get("driver") != l.get("driver"):
            fail("%s: driver %r, lspci %r" % (addr, p.get("driver"), l.get("driver")))
        if p.get("is_pcie") != l["express"]:
            fail("%s: is_pcie %r, lspci shows %s Express capability" % (
                addr, p.get("is_pcie"), "an" if l["express"] else "no"))
        link = p.get("link")
        if "cap_speed" not in l:
            if link is not None:
                fail("%s: lspci shows no LnkCap, the report a link" % addr)
            continue
        if link is None:
            fail("%s: lspci shows LnkCap, the report no link" % addr)
            continue
        pairs = [("cap_speed_gts", "cap_speed"), ("cap_width", "cap_width"),
                 ("speed_gts", "speed"), ("width", "width"),
                 ("aspm_supported", "aspm_supported"), ("aspm_enabled", "aspm_enabled"),
                 ("supported_speeds_gts", "speeds"), ("target_speed_gts", "target"),
                 ("dl_active", "dl_active"), ("lbms", "lbms"), ("labs", "labs")]
        for rk, lk in pairs:
            if lk not in l:
                continue
            rv, lv = link.get(rk), l[lk]
            if rv is None and rk in ("dl_active", "lbms", "labs", "target_speed_gts"):
                continue  # the report says null where the port does not report the bit
            if rv != lv:
                fail("%s: link.%s is %r, lspci %r" % (addr, rk, rv, lv))
        n += 1
    compared.append("pcie: %d functions, %d links field by field against lspci -vv" % (len(lspci), n))


def check_verdicts(r, aer_port):
    pcie = {p["address"]: p for p in r.get("pcie") or []}

    def below(port):
        return [p for p in pcie.values() if (p.get("upstream") or {}).get("address") == port]

    def port_with(speed, width):
        for p in pcie.values():
            link = p.get("link") or {}
            if p.get("port_type") == "root_port" and link.get("cap_speed_gts") == speed and \
                    link.get("cap_width") == width:
                yield p

    # each end its own verdict (docs/rules.md): the port held by the weaker end is limited,
    # the weaker end itself, at all it can do, ok
    for speed, width, wants in ((8.0, 4, ("limited", "ok")), (2.5, 1, ("ok", "ok"))):
        ports = list(port_with(speed, width))
        if len(ports) != 1:
            fail("%d root ports at %s GT/s x%d, expected 1" % (len(ports), speed, width))
            continue
        port = ports[0]
        eps = below(port["address"])
        if len(eps) != 1:
            fail("%s: %d functions below it, expected the virtio-rng" % (port["address"], len(eps)))
            continue
        for p, want in zip((port, eps[0]), wants):
            if p.get("verdict") != want:
                fail("%s (%s): verdict %r, expected %r" % (p["address"], p.get("device_name"),
                                                           p.get("verdict"), want))
            if p.get("lost_gbps") is not None:
                fail("%s: lost_gbps %r for a %s link" % (p["address"], p.get("lost_gbps"), want))
    p = pcie.get(aer_port)
    if not p or below(aer_port):
        fail("the empty root port %s is %s" % (aer_port, "missing" if not p else "not empty"))
    elif p.get("verdict") is not None:
        fail("%s (empty slot): verdict %r, expected none" % (aer_port, p.get("verdict")))
    conv = [p for p in pcie.values() if p.get("device_id") == "0005" and p.get("vendor_id") == "1b36"]
    if len(conv) != 1:
        fail("%d pci-testdev functions, expected 1" % len(conv))
    elif conv[0].get("is_pcie") or conv[0].get("link") is not None or conv[0].get("verdict"):
        fail("pci-testdev %s: is_pcie %r, link %r, verdict %r: conventional PCI has no link" % (
            conv[0]["address"], conv[0].get("is_pcie"), conv[0].get("link"), conv[0].get("verdict")))
    degraded = [p["address"] for p in pcie.values() if p.get("verdict") == "degraded"]
    if degraded:
        fail("degraded links where QEMU trains every link at its best: %s" % degraded)
    compared.append("verdicts: Gen3 x4 port limited by its Gen1 x1 endpoint (ok), Gen1 x1 port + "
                    "endpoint ok, empty port and conventional PCI none")


def check_dimms(r, dmi, wrote):
    mem = r.get("memory") or {}
    dimms = {d.get("handle"): d for d in mem.get("dimms") or []}
    if mem.get("source") != "module":
        fail("memory.source is %r: the module's dmi_walk() table was not used" % mem.get("source"))
    if set(dimms) != set(dmi):
        fail("type 17 handles: report %s, dmidecode %s" % (sorted(dimms), sorted(dmi)))
    for h, x in sorted(dmi.items()):
        d = dimms.get(h)
        if not d:
            continue
        # dmidecode stops after Type Detail for an empty slot: only what it printed is compared
        keys = {"locator": "Locator", "bank": "Bank Locator", "size_bytes": "Size", "type": "Type",
                "speed_mts": "Speed", "configured_speed_mts": "Configured Memory Speed",
                "rank": "Rank", "manufacturer": "Manufacturer", "serial": "Serial Number",
                "part_number": "Part Number", "total_width": "Total Width",
                "data_width": "Data Width"}
        want = {
            "locator": dmi_str(x.get("Locator")), "bank": dmi_str(x.get("Bank Locator")),
            "size_bytes": dmi_size(x.get("Size")), "type": dmi_str(x.get("Type")),
            "speed_mts": dmi_num(x.get("Speed"), "MT/s"),
            "configured_speed_mts": dmi_num(x.get("Configured Memory Speed"), "MT/s"),
            "rank": dmi_num(x.get("Rank"), ""), "manufacturer": dmi_str(x.get("Manufacturer")),
            "serial": dmi_str(x.get("Serial Number")), "part_number": dmi_str(x.get("Part Number")),
            "total_width": dmi_num(x.get("Total Width"), "bits"),
            "data_width": dmi_num(x.get("Data Width"), "bits"),
        }
        if not d.get("populated"):
            # an empty slot has no type, speed, rank or widths in the report (null)
            for k in ("type", "speed_mts", "configured_speed_mts", "rank", "total_width",
                      "data_width"):
                want[k] = None
        for k, v in want.items():
            if keys[k] not in x:
                continue
            if d.get(k) != v:
                fail("DIMM 0x%x %s: %s is %r, dmidecode says %r" % (h, x.get("Locator"), k, d.get(k), v))
    for w in wrote:
        d = dimms.get(w["handle"])
        for k in ("locator", "bank", "populated", "size_bytes", "speed_mts",
                  "configured_speed_mts", "rank", "manufacturer", "serial", "part_number",
                  "channel"):
            if d is not None and d.get(k) != w[k]:
                fail("DIMM 0x%x: %s is %r, the test wrote %r" % (w["handle"], k, d.get(k), w[k]))
    if mem.get("slots_total") != 4 or mem.get("slots_populated") != 2:
        fail("memory: %r slots, %r populated, expected 4 and 2" % (mem.get("slots_total"),
                                                                mem.get("slots_populated")))
    if mem.get("channels_smbios") != 2:
        fail("memory.channels_smbios is %r, expected 2 (ChannelA, ChannelB)" % mem.get("channels_smbios"))
    imc = mem.get("imc") or {}
    if not imc.get("reason") or imc.get("channels"):
        fail("memory.imc: %r, expected no reader for QEMU's CPU, with the reason" % imc)
    compared.append("dimms: %d type 17 structures against dmidecode -t 17 and the bytes written" % len(dmi))


def step(r, name):
    for s in r.get("steps") or []:
        if s.get("name") == name:
            return s
    return None


def rules(s):
    return [f.get("rule") for f in s.get("findings") or []]


def check_memory_step(r):
    s = step(r, "memory")
    if not s:
        fail("no memory step")
        return None
    d = s.get("data") or {}
    ks = {k.get("kernel"): k for k in d.get("kernels") or []}
    if sorted(ks) != ["add", "copy", "scale", "triad"]:
        fail("memory kernels: %s" % sorted(ks))
    # data version 2: each kernel's passes are the standard figure (max_gbps is STREAM's best)
    if s.get("data_version") != 2:
        fail("memory: data_version %r, expected 2" % s.get("data_version"))
    for k in ks.values():
        if not (isinstance(k.get("max_gbps"), (int, float)) and 0.01 <= k["max_gbps"] <= 5000):
            fail("memory %s: max_gbps %r is not plausible" % (k.get("kernel"), k.get("max_gbps")))
        runs = k.get("runs_gbps") or []
        if not runs or max(runs) != k["max_gbps"] or min(runs) != k.get("min_gbps") or \
                not min(runs) <= (k.get("median_gbps") or -1) <= max(runs):
            fail("memory %s: min %r, median %r, max %r do not match the passes %r" % (
                k.get("kernel"), k.get("min_gbps"), k.get("median_gbps"), k.get("max_gbps"), runs))
    if d.get("triad_gbps") != (ks.get("triad") or {}).get("max_gbps"):
        fail("memory: triad_gbps %r differs from the triad kernel" % d.get("triad_gbps"))
    if d.get("verified") is not True:
        fail("memory: the arrays were not verified")
    if not d.get("threads") or d["threads"] != (r.get("machine") or {}).get("cpu_logical"):
        fail("memory: %r threads, %r CPUs" % (d.get("threads"), (r.get("machine") or {}).get("cpu_logical")))
    if (d.get("arrays_total_bytes") or 0) > 256 << 20:
        fail("memory: arrays of %r bytes, above 256 MiB" % d.get("arrays_total_bytes"))
    lat = [x for x in d.get("latency") or [] if isinstance(x.get("ns"), (int, float))]
    if len(lat) < 8 or lat[0]["bytes"] != 4096:
        fail("memory latency: %d sizes from %r" % (len(lat), lat[0]["bytes"] if lat else None))
    elif not lat[-1]["ns"] > 1.5 * lat[0]["ns"]:
        fail("memory latency: %r ns at %d bytes, %r ns at 4 KiB: no cache step" % (
            lat[-1]["ns"], lat[-1]["bytes"], lat[0]["ns"]))
    ch = d.get("channels") or {}
    if ch.get("configured_mts") != 2933 or ch.get("populated") != 2 or \
            ch.get("populated_source") != "smbios" or ch.get("channel_width_bits") != 64:
        fail("memory channels: %r MT/s, %r populated per %r, %r bits wide; expected 2933, 2, "
             "smbios, 64" % (ch.get("configured_mts"), ch.get("populated"),
                             ch.get("populated_source"), ch.get("channel_width_bits")))
    eff = ch.get("effective_channels")
    if not isinstance(eff, (int, float)) or abs(eff - d["triad_gbps"] / 23.464) > 0.011:
        fail("memory: effective_channels %r is not triad / 23.464 GB/s" % eff)
    # TCG's memory is far slower than one DDR4-2933 channel: the rule must fire, naming the slots
    if ch.get("judged") is not True or ch.get("verdict") != "mismatch":
        fail("memory channels: judged %r, verdict %r; expected a mismatch" % (ch.get("judged"),
                                                                             ch.get("verdict")))
    f = [x for x in s.get("findings") or [] if x.get("rule") == "memory.channels_mismatch"]
    if len(f) != 1 or f[0].get("severity") != "warn" or \
            "ChannelA-DIMM0" not in f[0].get("message", "") or \
            "ChannelB-DIMM0" not in f[0].get("message", ""):
        fail("memory.channels_mismatch: %r" % f)
    compared.append("memory: 4 kernels, %d latency sizes (%.1f to %.1f ns), triad %.3f GB/s = %.3f "
                    "channels of 2 populated" % (len(lat), lat[0]["ns"] if lat else 0,
                                                 lat[-1]["ns"] if lat else 0, d.get("triad_gbps") or 0,
                                                 eff or 0))
    return s


# The step the test injects its errors in (tests/boot/test_platform): the
# quick plan's longest one here; the memory step lasts about 2 s, less than
# the recorders' start and the monitor's two commands take.
INJECT_STEP = "nic_loop"


def check_errors(r, injected, aer_port):
    for s in r.get("steps") or []:
        name = s.get("name")
        if s.get("status") == "skipped":
            continue  # a step that did not run has no recorders
        aer, mce, links = s.get("aer") or {}, s.get("mce") or {}, s.get("links") or {}
        if not links.get("available") or not links.get("watched"):
            fail("%s: links not watched: %r" % (name, links.get("reason")))
        if links.get("changed"):
            fail("%s: %r links changed: %s" % (name, links.get("changed"),
                                              [x for x in links.get("links") or [] if x.get("change")]))
        if aer.get("available") is not True or aer.get("probe") is not True:
            fail("%s: aer available %r, probe %r (%r)" % (name, aer.get("available"), aer.get("probe"),
                                                         aer.get("probe_reason")))
        if mce.get("available") is not True:
            fail("%s: mce not available: %r" % (name, mce.get("reason")))
        for k in ("links", "aer", "mce", "edac", "sensors"):
            if "findings" in (s.get(k) or {}):
                fail("%s.%s still holds its findings" % (name, k))
        owned = [x for x in rules(s) if x in ("kmsg.aer", "kmsg.mce")]
        if owned:
            fail("%s: %s: the kernel log's copies of events the recorders count" % (name, owned))
        if name == INJECT_STEP:
            continue
        if aer.get("devices") or aer.get("events") or mce.get("events"):
            fail("%s: AER %r / MCE %r outside the %s step" % (name, INJECT_STEP, aer.get("devices"),
                                                                  mce.get("events")))
    s = step(r, INJECT_STEP) or {}
    aer, mce = s.get("aer") or {}, s.get("mce") or {}
    if injected & 1:
        devs = [x for x in aer.get("devices") or [] if x.get("address") == aer_port]
        if len(devs) != 1 or devs[0].get("nonfatal") != 1 or \
                (devs[0].get("counters") or {}).get("nonfatal", {}).get("UnsupReq") != 1:
            fail("%s.aer.devices: %r, expected %s with one non-fatal UnsupReq" % (
                INJECT_STEP, aer.get("devices"), aer_port))
        ev = [x for x in aer.get("events") or [] if x.get("address") == aer_port]
        if len(ev) != 1 or ev[0].get("severity") != "nonfatal" or ev[0].get("errors") != "UnsupReq" \
                or ev[0].get("count") != 1:
            fail("%s.aer.events: %r" % (INJECT_STEP, aer.get("events")))
        if "aer.nonfatal" not in rules(s) or s.get("status") != "fail":
            fail("%s: findings %s, status %r; expected aer.nonfatal, fail" % (INJECT_STEP, rules(s),
                                                                           s.get("status")))
        compared.append("aer: the injected UnsupReq at %s, counted in sysfs and by the aer_event probe, "
                        "in the %s step only" % (aer_port, INJECT_STEP))
    else:
        fail("the AER error was not injected")
    if injected & 2:
        ev = mce.get("events") or []
        if len(ev) != 1 or ev[0].get("bank") != 1 or ev[0].get("status") != "9400000000000090" or \
                ev[0].get("uncorrected") is not False or ev[0].get("address") != "0000000001234000" or \
                ev[0].get("error") != "memory controller read, channel 0":
            fail("%s.mce.events: %r" % (INJECT_STEP, ev))
        if "mce.corrected" not in rules(s):
            fail("%s: no mce.corrected finding (%s)" % (INJECT_STEP, rules(s)))
        compared.append("mce: the injected corrected error, bank 1, decoded, in the %s step only" % INJECT_STEP)
    else:
        fail("the machine check was not injected")


def main():
    report, serial, wrote_path, injected, aer_port, schema_path = sys.argv[1:7]
    with open(report) as f:
        r = json.load(f)
    with open(wrote_path) as f:
        wrote = json.load(f)
    if os.path.exists(schema_path):
        import jsonschema
        with open(schema_path) as f:
            schema = json.load(f)
        v = jsonschema.Draft202012Validator(schema)
        for e in sorted(v.iter_errors(r), key=lambda e: list(e.path)):
            fail("schema: /%s: %s" % ("/".join(map(str, e.path)), e.message))
    if r.get("complete") is not True:
        fail("the report is not complete")
    if (r.get("probestick") or {}).get("module_status") != "loaded":
        fail("module_status %r" % (r.get("probestick") or {}).get("module_status"))
    lspci = parse_lspci(dumps(serial, "LSPCI"))
    dmi = parse_dmidecode(dumps(serial, "DMI"))
    if not lspci:
        fail("no lspci output on the console")
    if not dmi:
        fail("no dmidecode output on the console")
    check_pcie(r, lspci)
    check_verdicts(r, aer_port)
    check_dimms(r, dmi, wrote)
    check_memory_step(r)
    check_errors(r, int(injected), aer_port)
    for c in compared:
        print("compared: " + c)
    for b in bad:
        print("MISMATCH: " + b)
    print("platform: %d mismatches" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
