#!/usr/bin/python3
# Checks of the Secure Boot boot with probestick's key enrolled
# (test_secure_boot_mok) beside check_report.py: boot{} says UEFI, Secure
# Boot on, lockdown (signatures enforced), probestick.ko signed and loaded,
# nothing refused; no inventory.module_refused finding; the PCIe inventory
# came from the module. Under lockdown a module that fails its signature
# check is refused, never loaded with the E taint, so "loaded" means
# "verified". From the kernel log on the serial line (PS_SERIAL_LOG): the
# kernel read shim's MokListRT and loaded the certificate whose subject is
# PS_MOK_SUBJECT; no "module verification failed" line.
# Usage: check_mok.py REPORT_JSON EXPECT_JSON
import json
import os
import re
import sys


def main():
    with open(sys.argv[1]) as f:
        r = json.load(f)
    bad = []
    boot = r.get("boot") or {}
    want = {"firmware": "uefi", "secure_boot": True, "setup_mode": False,
            "module_sig_enforce": True, "module_loaded": True, "module_signed": True}
    for k, v in want.items():
        if boot.get(k) != v:
            bad.append("boot.%s is %r, expected %r" % (k, boot.get(k), v))
    if boot.get("lockdown") not in ("integrity", "confidentiality"):
        bad.append("boot.lockdown is %r, expected integrity (Debian's kernel under Secure Boot)" %
                   boot.get("lockdown"))
    if boot.get("module_refused"):
        bad.append("boot.module_refused is %r, expected nothing refused" % boot.get("module_refused"))
    steps = {s.get("name"): s for s in r.get("steps") or []}
    inv = steps.get("inventory") or {}
    refused = [f for f in inv.get("findings") or [] if f.get("rule") == "inventory.module_refused"]
    if refused:
        bad.append("an inventory.module_refused finding: %r" % refused[0].get("message"))
    src = (inv.get("data") or {}).get("pcie_source")
    if src != "module":
        bad.append("the PCIe inventory came from %r, expected the module" % src)
    if (r.get("probestick") or {}).get("module_status") != "loaded":
        bad.append("probestick.module_status is %r" % (r.get("probestick") or {}).get("module_status"))

    log = os.environ.get("PS_SERIAL_LOG", "")
    if log:
        with open(log, "rb") as f:
            text = f.read().decode("utf-8", "replace").replace("\r", "")
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
        kern = [l for l in text.split("\n") if re.search(r"integrity|MokList|keyring|X\.509|taint|module verification|probestick: ", l)]
        for l in kern:
            print("kernel: " + l.strip())
        if not re.search(r"Loading X\.509 certificate: UEFI:MokListRT", text):
            bad.append("the kernel log shows no 'Loading X.509 certificate: UEFI:MokListRT': shim did not pass MokList on")
        subj = os.environ.get("PS_MOK_SUBJECT", "")
        # RFC 2253: "CN=probestick module key (host\\, date)", commas escaped.
        cn = re.search(r"CN=((?:\\.|[^,\\])*)", subj)
        cn = re.sub(r"\\(.)", r"\1", cn.group(1)) if cn else ""
        if not cn:
            bad.append("PS_MOK_SUBJECT %r has no CN" % subj)
        elif not re.search(r"Loaded X\.509 cert '%s: " % re.escape(cn), text):
            bad.append("the kernel log shows no 'Loaded X.509 cert' for %r" % cn)
        if "module verification failed" in text:
            bad.append("a module failed its signature check and tainted the kernel (E)")
    for b in bad:
        print("FAIL: " + b)
    print("secure boot with MOK: boot=%s" % json.dumps(boot))
    sys.exit(1 if bad else 0)


main()
