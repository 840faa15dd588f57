#!/usr/bin/python3
# Checks of the Secure Boot boot (test_secure_boot) beside check_report.py:
# boot{} says UEFI, Secure Boot on, lockdown, probestick.ko refused; one
# inventory.module_refused finding; the inventory from sysfs; and the drivers
# step names the device the machine has no driver for.
# Usage: check_secure.py REPORT_JSON EXPECT_JSON  (PS_NODRV_MODULE: the module)
import json
import os
import sys


def main():
    with open(sys.argv[1]) as f:
        r = json.load(f)
    bad = []
    boot = r.get("boot") or {}
    want = {"firmware": "uefi", "secure_boot": True, "setup_mode": False, "module_loaded": False}
    for k, v in want.items():
        if boot.get(k) != v:
            bad.append("boot.%s is %r, expected %r" % (k, boot.get(k), v))
    if boot.get("lockdown") not in ("integrity", "confidentiality"):
        bad.append("boot.lockdown is %r, expected integrity (Debian's kernel under Secure Boot)" %
                   boot.get("lockdown"))
    if not boot.get("module_refused"):
        bad.append("boot.module_refused is %r, expected the kernel's error" % boot.get("module_refused"))
    steps = {s.get("name"): s for s in r.get("steps") or []}
    inv = steps.get("inventory") or {}
    refused = [f for f in inv.get("findings") or [] if f.get("rule") == "inventory.module_refused"]
    if len(refused) != 1:
        bad.append("%d inventory.module_refused findings, expected 1" % len(refused))
    elif "Secure Boot is on" not in refused[0].get("message", ""):
        bad.append("inventory.module_refused does not say Secure Boot is on: %r" % refused[0].get("message"))
    pcie = r.get("pcie") or []
    if not pcie:
        bad.append("pcie[] is empty: the inventory did not fall back to sysfs")
    src = (inv.get("data") or {}).get("pcie_source")
    if src != "sysfs":
        bad.append("the PCIe inventory came from %r, expected sysfs" % src)
    mod = os.environ.get("PS_NODRV_MODULE", "")
    if mod:
        dr = ((steps.get("drivers") or {}).get("data") or {}).get("devices") or []
        hit = [d for d in dr if d.get("module") == mod]
        if not hit:
            bad.append("drivers: no device names module %s: %r" % (mod, [(d.get("address"), d.get("module"), d.get("why")) for d in dr]))
        else:
            d = hit[0]
            print("drivers: %s" % d.get("message"))
            if not d.get("name"):
                bad.append("drivers: the device has no name from pci.ids: %r" % d)
            found = [f for f in (steps.get("drivers") or {}).get("findings") or []
                     if f.get("rule") == "drivers.no_driver" and mod in f.get("message", "")]
            if not found:
                bad.append("drivers: no drivers.no_driver finding names %s" % mod)
    for b in bad:
        print("FAIL: " + b)
    print("secure boot: boot=%s" % json.dumps(boot))
    sys.exit(1 if bad else 0)


main()
