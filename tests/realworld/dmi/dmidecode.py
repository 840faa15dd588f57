"""dmidecode's text output read back into records: the part of the replay
corpus's tools (sample, dmidecode2root, replay) that knows dmidecode's
layout. A record is one "Handle 0x.., DMI type N, L bytes" block: its type,
formatted-area length, handle, title and fields in order (a field's value
is the text after "Key: " exactly as printed, trailing blanks kept; a field
followed by tab-tab lines also has them as a list)."""
import re

HEADER = re.compile(r"^Handle 0x([0-9A-Fa-f]+), DMI type (\d+), (\d+) bytes")


class Record:
    def __init__(self, handle, dmi_type, length):
        self.handle, self.type, self.length = handle, dmi_type, length
        self.title = None
        self.fields = []  # (key, value, [sub-lines])
        self.lines = []  # the record's text as printed

    def get(self, key, default=None):
        for k, v, _ in self.fields:
            if k == key:
                return v
        return default

    def sub(self, key):
        for k, _, s in self.fields:
            if k == key:
                return s
        return []

    def has(self, key):
        return any(k == key for k, _, _ in self.fields)


def parse(text):
    """(preamble lines, [Record]) of one dmidecode text."""
    pre, recs, cur = [], [], None
    for line in text.split("\n"):
        m = HEADER.match(line)
        if m:
            cur = Record(int(m.group(1), 16), int(m.group(2)), int(m.group(3)))
            cur.lines.append(line)
            recs.append(cur)
            continue
        if cur is None:
            pre.append(line)
            continue
        if line == "":
            cur = None
            continue
        cur.lines.append(line)
        if not line.startswith("\t"):
            if cur.title is None:
                cur.title = line
            continue
        if line.startswith("\t\t"):
            if cur.fields:
                cur.fields[-1][2].append(line[2:])
            continue
        body = line[1:]
        if ": " in body:
            k, v = body.split(": ", 1)
        elif body.endswith(":"):
            k, v = body[:-1], ""
        else:
            k, v = body, ""
        cur.fields.append((k, v, []))
    return pre, recs


def trimmed(text, keep):
    """The text with only the records whose type is in keep (the preamble kept)."""
    pre, recs = parse(text)
    while pre and pre[-1] == "":
        pre.pop()
    out = pre + [""]
    for r in recs:
        if r.type in keep:
            out += r.lines + [""]
    return "\n".join(out)


NOT_SPECIFIED = "Not Specified"  # dmidecode's text for string number 0
BAD_INDEX = "<BAD INDEX>"  # a string number past the structure's table


def number(value, units):
    """The leading number of "2400 MT/s" when its unit is one of units, else None."""
    m = re.match(r"^\s*(\d+)\s*(\S+)?\s*$", value or "")
    if not m or (m.group(2) or "") not in units:
        return None
    return int(m.group(1))


def size_kib(value):
    """A type 17 or 16 size as KiB: 0 for no module, None for unknown."""
    v = (value or "").strip()
    if v in ("No Module Installed", "Not Installed", "None"):
        return 0
    m = re.match(r"^(\d+)\s*(bytes|kB|KB|MB|GB|TB)$", v)
    if not m:
        return None
    mult = {"bytes": None, "kB": 1, "KB": 1, "MB": 1 << 10, "GB": 1 << 20, "TB": 1 << 30}
    if mult[m.group(2)] is None:
        return int(m.group(1)) // 1024
    return int(m.group(1)) * mult[m.group(2)]


# SMBIOS 3.7 (DSP0134) code tables, spelled as dmidecode 3.x prints them.
MEMORY_TYPES = {
    "Other": 0x01, "Unknown": 0x02, "DRAM": 0x03, "EDRAM": 0x04, "VRAM": 0x05,
    "SRAM": 0x06, "RAM": 0x07, "ROM": 0x08, "Flash": 0x09, "EEPROM": 0x0A,
    "FEPROM": 0x0B, "EPROM": 0x0C, "CDRAM": 0x0D, "3DRAM": 0x0E, "SDRAM": 0x0F,
    "SGRAM": 0x10, "RDRAM": 0x11, "DDR": 0x12, "DDR2": 0x13, "DDR2 FB-DIMM": 0x14,
    "Reserved": 0x15, "DDR3": 0x18, "FBD2": 0x19, "DDR4": 0x1A, "LPDDR": 0x1B,
    "LPDDR2": 0x1C, "LPDDR3": 0x1D, "LPDDR4": 0x1E,
    "Logical non-volatile device": 0x1F, "HBM": 0x20, "HBM2": 0x21, "DDR5": 0x22,
    "LPDDR5": 0x23, "HBM3": 0x24,
}
FORM_FACTORS = {
    "Other": 0x01, "Unknown": 0x02, "SIMM": 0x03, "SIP": 0x04, "Chip": 0x05,
    "DIP": 0x06, "ZIP": 0x07, "Proprietary Card": 0x08, "DIMM": 0x09, "TSOP": 0x0A,
    "Row Of Chips": 0x0B, "RIMM": 0x0C, "SODIMM": 0x0D, "SRIMM": 0x0E,
    "FB-DIMM": 0x0F, "Die": 0x10, "CAMM": 0x11,
}
TYPE_DETAIL_BITS = [
    "Other", "Unknown", "Fast-paged", "Static Column", "Pseudo-static", "RAMBus",
    "Synchronous", "CMOS", "EDO", "Window DRAM", "Cache DRAM", "Non-Volatile",
    "Registered (Buffered)", "Unbuffered (Unregistered)", "LRDIMM",
]  # bits 1..15
MEMORY_TECHNOLOGIES = {
    "Other": 0x01, "Unknown": 0x02, "DRAM": 0x03, "NVDIMM-N": 0x04, "NVDIMM-F": 0x05,
    "NVDIMM-P": 0x06, "Intel Optane DC persistent memory": 0x07,
    "Intel Optane persistent memory": 0x07,
}
ARRAY_LOCATIONS = {
    "Other": 0x01, "Unknown": 0x02, "System Board Or Motherboard": 0x03,
    "ISA Add-on Card": 0x04, "EISA Add-on Card": 0x05, "PCI Add-on Card": 0x06,
    "MCA Add-on Card": 0x07, "PCMCIA Add-on Card": 0x08,
    "Proprietary Add-on Card": 0x09, "NuBus": 0x0A, "PC-98/C20 Add-on Card": 0xA0,
    "PC-98/C24 Add-on Card": 0xA1, "PC-98/E Add-on Card": 0xA2,
    "PC-98/Local Bus Add-on Card": 0xA3, "CXL Add-on Card": 0xA4,
}
ARRAY_USES = {
    "Other": 0x01, "Unknown": 0x02, "System Memory": 0x03, "Video Memory": 0x04,
    "Flash Memory": 0x05, "Non-volatile RAM": 0x06, "Cache Memory": 0x07,
}
ARRAY_ECC = {
    "Other": 0x01, "Unknown": 0x02, "None": 0x03, "Parity": 0x04,
    "Single-bit ECC": 0x05, "Multi-bit ECC": 0x06, "CRC": 0x07,
}
CHASSIS_TYPES = [
    "Other", "Unknown", "Desktop", "Low Profile Desktop", "Pizza Box", "Mini Tower",
    "Tower", "Portable", "Laptop", "Notebook", "Hand Held", "Docking Station",
    "All In One", "Sub Notebook", "Space-saving", "Lunch Box", "Main Server Chassis",
    "Expansion Chassis", "Sub Chassis", "Bus Expansion Chassis", "Peripheral Chassis",
    "RAID Chassis", "Rack Mount Chassis", "Sealed-case PC", "Multi-system",
    "CompactPCI", "AdvancedTCA", "Blade", "Blade Enclosing", "Tablet", "Convertible",
    "Detachable", "IoT Gateway", "Embedded PC", "Mini PC", "Stick PC",
]  # codes 1..36

# Memory device types that name a ROM chip, not RAM (SMBIOS 7.18.2).
ROM_TYPES = {"ROM", "Flash", "EEPROM", "FEPROM", "EPROM"}
