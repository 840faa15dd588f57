#!/usr/bin/env python3
"""SMBIOS type 17 structures for tests/boot/test_platform, one file each for
QEMU's -smbios file=: populated DDR4 slots (one with the extended size field
and the SMBIOS 3.3 extended speeds), empty slots, and an empty slot whose
string indexes point past its string table. Usage: smbios17.py OUTDIR
(writes OUTDIR/type17-N.bin and OUTDIR/type17.json, what was written)."""
import json
import os
import struct
import sys

# locator, bank, populated, size MiB, ext size MiB, speed, conf, ext speed, ext conf,
# rank, total, data, manufacturer, serial, part, length, string indexes (loc, bank, man, ser, asset, part)
SLOTS = [
    dict(locator="ChannelA-DIMM0", bank="BANK 0", size=0x2000, speed=3200, conf=2933, rank=2,
         total=72, data=64, type=0x1a, man="Samsung", serial="A1B2C3D4",
         part="M393A1K43BB1-CTD", length=0x28, voltage=1200),
    dict(locator="ChannelA-DIMM1", bank="BANK 1", size=0, speed=0, conf=0, rank=0,
         total=0xffff, data=0xffff, type=0x02, man="NO DIMM", serial="NO DIMM",
         part="NO DIMM", length=0x28, voltage=0),
    dict(locator="ChannelB-DIMM0", bank="BANK 2", size=0x7fff, ext_size=32768, speed=0xffff,
         conf=0xffff, ext_speed=3200, ext_conf=2933, rank=1, total=72, data=64, type=0x1a,
         man="Micron", serial="12345678", part="MTA18ASF4G72PDZ-3G2", length=0x5c,
         voltage=1200),
    dict(locator="ChannelB-DIMM1", bank="BANK 3", size=0, speed=0, conf=0, rank=0,
         total=0xffff, data=0xffff, type=0x02, man=None, serial=None, part=None,
         length=0x28, voltage=0, missing=True),
]


def build(i, s):
    strings = [s["locator"], s["bank"]]
    idx = {"loc": 1, "bank": 2, "man": 0, "ser": 0, "part": 0}
    for key, field in (("man", "man"), ("ser", "serial"), ("part", "part")):
        if s.get(field):
            strings.append(s[field])
            idx[key] = len(strings)
    if s.get("missing"):
        idx.update(man=5, ser=6, part=7)  # past the two strings the table has
    b = bytearray(s["length"])
    b[0], b[1] = 17, s["length"]
    struct.pack_into("<H", b, 2, 0x1100 + i)
    struct.pack_into("<HHHHH", b, 4, 0x1000, 0xfffe, s["total"], s["data"], s["size"])
    b[0x0e] = 0x09  # DIMM
    b[0x0f] = 0
    b[0x10], b[0x11], b[0x12] = idx["loc"], idx["bank"], s["type"]
    struct.pack_into("<H", b, 0x13, 0x0080 if s["size"] else 0x0002)  # synchronous / unknown
    struct.pack_into("<H", b, 0x15, s["speed"])
    b[0x17], b[0x18], b[0x19], b[0x1a] = idx["man"], idx["ser"], 0, idx["part"]
    b[0x1b] = s["rank"]
    struct.pack_into("<I", b, 0x1c, s.get("ext_size", 0))
    struct.pack_into("<H", b, 0x20, s["conf"])
    struct.pack_into("<HHH", b, 0x22, 0, 0, s["voltage"])
    if s["length"] >= 0x5c:
        struct.pack_into("<II", b, 0x54, s.get("ext_speed", 0), s.get("ext_conf", 0))
    tail = b"".join(x.encode() + b"\0" for x in strings) + b"\0"
    return bytes(b) + tail


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    want = []
    for i, s in enumerate(SLOTS):
        with open(os.path.join(out, "type17-%d.bin" % i), "wb") as f:
            f.write(build(i, s))
        populated = s["size"] != 0
        size = 0
        if s["size"] == 0x7fff:
            size = s["ext_size"] << 20
        elif s["size"]:
            size = s["size"] << 20
        want.append(dict(handle=0x1100 + i, locator=s["locator"], bank=s["bank"],
                         populated=populated, size_bytes=size,
                         speed_mts=(s.get("ext_speed") if s["speed"] == 0xffff else s["speed"]) or None,
                         configured_speed_mts=(s.get("ext_conf") if s["conf"] == 0xffff else s["conf"]) or None,
                         rank=s["rank"] or None, manufacturer=s["man"], serial=s["serial"],
                         part_number=s["part"],
                         channel=s["locator"][7]))  # ChannelA-DIMM0: "A", populated or not
    with open(os.path.join(out, "type17.json"), "w") as f:
        json.dump(want, f, indent=1)


if __name__ == "__main__":
    main()
