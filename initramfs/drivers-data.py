#!/usr/bin/python3
# What the drivers step needs to name a device without a driver and say why
# it has none, staged in ROOT/usr/share/probestick/:
#   modules.alias.zst  the PCI and USB aliases of the FULL kernel (not only
#                      the image's modules): which module would drive it
#   pci.ids.zst        vendor, device and class names (subsystems dropped)
#   usb.ids.zst        vendor, device and class names (the other tables dropped)
#   families           "MODULE FAMILY y|n|x" for every module of modules.conf
#   firmware.json      the firmware list of this initramfs (shipped, left out)
# Compressed with zstd (the program reads them with libzstd), so the tables
# cost about 0.5 MB of the small machine's RAM instead of 2.5 MB.
# Usage: drivers-data.py ROOT MODULES_ALIAS PCI_IDS USB_IDS FAMILIES FIRMWARE_JSON
# Prints the staged files, one path below ROOT per line.
import os
import shutil
import subprocess
import sys


def zst(text, path):
    data = subprocess.run(["zstd", "-19", "-q", "-c"], input=text.encode("utf-8"), check=True,
                          capture_output=True).stdout
    with open(path, "wb") as f:
        f.write(data)


def aliases(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(("alias pci:", "alias usb:")):
                out.append(line[len("alias "):])
    return "".join(out)


def pci_ids(path):
    """Vendors and devices (no subsystem lines), then the class tables."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#") or not line.strip() or line.startswith("\t\t"):
                continue
            out.append(line)
    return "".join(out)


def usb_ids(path):
    """Vendors and devices, and the class table (C ...); not AT, HID, R, BIAS, PHY, HUT, L, HCC, VT."""
    out, keep = [], True
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if not line[0].isspace():
                head = line.split(" ", 1)[0]
                # a vendor line starts with 4 hex digits; a table with its tag
                keep = (len(head) == 4 and all(c in "0123456789abcdef" for c in head)) or head == "C"
            if keep and not line.startswith("\t\t\t"):
                out.append(line)
    return "".join(out)


def main():
    root, alias_path, pci_path, usb_path, families, firmware = sys.argv[1:7]
    share = os.path.join(root, "usr", "share", "probestick")
    os.makedirs(share, exist_ok=True)
    zst(aliases(alias_path), os.path.join(share, "modules.alias.zst"))
    zst(pci_ids(pci_path), os.path.join(share, "pci.ids.zst"))
    zst(usb_ids(usb_path), os.path.join(share, "usb.ids.zst"))
    shutil.copyfile(families, os.path.join(share, "families"))
    shutil.copyfile(firmware, os.path.join(share, "firmware.json"))
    for name in sorted(os.listdir(share)):
        print(os.path.join("usr", "share", "probestick", name))


if __name__ == "__main__":
    main()
