#!/usr/bin/python3
"""Read and add UEFI variables in an OVMF variable store file (OVMF_VARS*.fd).

The boot tests use it to start a machine in the state MokManager leaves
behind after a user enrolled probestick's key: the variable MokList holding
the certificate, written into a copy of Debian's OVMF_VARS_4M.ms.fd. Only
what that needs is here: list the variables, append one, build a signature
list of X.509 certificates. The layout (edk2's
MdePkg/Include/Pi/PiFirmwareVolume.h, MdeModulePkg/Include/Guid/
VariableFormat.h and its authenticated variant) is:

  EFI_FIRMWARE_VOLUME_HEADER at offset 0
    ZeroVector[16] FileSystemGuid[16] FvLength:u64 Signature "_FVH":u32
    Attributes:u32 HeaderLength:u16 Checksum:u16 ExtHeaderOffset:u16
    Reserved:u8 Revision:u8 BlockMap[] (NumBlocks:u32 Length:u32, ends 0,0)
  VARIABLE_STORE_HEADER at HeaderLength
    Signature[16] (the authenticated-variable GUID: each variable has the
    authenticated header below) Size:u32 (the store, this header included)
    Format:u8 (0x5A: formatted) State:u8 (0xFE: healthy) Reserved:u16
    Reserved1:u32
  variables from the next 4-byte boundary, one after another, each
    AUTHENTICATED_VARIABLE_HEADER (60 bytes):
      StartId:u16 (0x55AA) State:u8 Reserved:u8 Attributes:u32
      MonotonicCount:u64 TimeStamp:EFI_TIME(16) PubKeyIndex:u32
      NameSize:u32 DataSize:u32 VendorGuid[16]
    then the name (UTF-16LE with its NUL, NameSize bytes), then at once
    the data (DataSize bytes): edk2's ALIGNMENT is 1 on x86, so no padding
    between them (GET_PAD_SIZE is 0). The next header starts at the next
    4-byte boundary (HEADER_ALIGNMENT); the gap stays erased. The store ends
    at the first header whose StartId is not 0x55AA (erased flash: 0xFF).
  State is a byte that flash writes can only clear bits of: 0x3F is a live
  variable (VAR_ADDED), 0x3E one being replaced whose new copy did not land
  yet (still live), anything else (0x3D deleted, 0x7F header only) is dead.

The firmware volume header's checksum does not change (the header does not);
the variable store itself has no checksum. What follows the store in the
file (the fault-tolerant-write area) is left as it is.

Usage:
  ovmf_vars.py list VARS.fd
  ovmf_vars.py add-mok VARS.fd OUT.fd CERT.der   MokList = [CERT] (NV+BS)
"""
import struct
import sys
import uuid

FVH_SIGNATURE = b"_FVH"
# EFI_SYSTEM_NV_DATA_FV_GUID: the file system of a variable firmware volume.
NV_DATA_FV_GUID = uuid.UUID("fff12b8d-7696-4c8b-a985-2747075b4f50")
AUTH_VAR_STORE_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
VAR_STORE_GUID = uuid.UUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
EFI_GLOBAL_VARIABLE = uuid.UUID("8be4df61-93ca-11d2-aa0d-00e098032b8c")
IMAGE_SECURITY_DATABASE = uuid.UUID("d719b2cb-3d3a-4596-a3bc-dad00e67656f")
# shim's vendor GUID: MokList, MokListRT, MokSBState ...
SHIM_LOCK_GUID = uuid.UUID("605dab50-e046-4300-abb6-3dd810dd8b23")
EFI_CERT_X509_GUID = uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072")

VAR_START_ID = 0x55AA
VAR_ADDED = 0x3F
VAR_IN_DELETED_TRANSITION = 0xFE
LIVE_STATES = (VAR_ADDED, VAR_ADDED & VAR_IN_DELETED_TRANSITION)
STORE_FORMATTED, STORE_HEALTHY = 0x5A, 0xFE

NV, BS, RT = 0x1, 0x2, 0x4
TIME_AUTH = 0x20

FV_HEADER = struct.Struct("<16s16sQ4sIHHHBB")
STORE_HEADER = struct.Struct("<16sIBBHI")
VAR_HEADER = struct.Struct("<HBBIQ16sIII16s")


class VarsError(Exception):
    pass


def align4(n):
    return (n + 3) & ~3


class Variable:
    def __init__(self, name, guid, attributes, data, state=VAR_ADDED, offset=None):
        self.name, self.guid, self.attributes, self.data = name, guid, attributes, data
        self.state, self.offset = state, offset

    @property
    def live(self):
        return self.state in LIVE_STATES

    def encode(self):
        """The variable as it sits in the store (header, name, data, padding)."""
        name = (self.name + "\0").encode("utf-16-le")
        head = VAR_HEADER.pack(VAR_START_ID, self.state, 0, self.attributes, 0, bytes(16), 0,
                               len(name), len(self.data), self.guid.bytes_le)
        body = head + name + self.data
        return body + b"\xff" * (align4(len(body)) - len(body))


class VarStore:
    """An OVMF variable file in memory: parse, list, append, save."""

    def __init__(self, image):
        self.image = bytearray(image)
        zero, fsguid, fvlen, sig, _attr, hdrlen, _ck, _ext, _res, _rev = FV_HEADER.unpack_from(self.image, 0)
        if sig != FVH_SIGNATURE:
            raise VarsError("no firmware volume header (_FVH) at offset 0: not an OVMF variable file")
        if uuid.UUID(bytes_le=fsguid) != NV_DATA_FV_GUID:
            raise VarsError("the firmware volume is not a variable store (file system %s)" %
                            uuid.UUID(bytes_le=fsguid))
        if fvlen > len(self.image):
            raise VarsError("the firmware volume says %d bytes, the file has %d" % (fvlen, len(self.image)))
        self.store = hdrlen
        sguid, size, fmt, state, _r0, _r1 = STORE_HEADER.unpack_from(self.image, hdrlen)
        sguid = uuid.UUID(bytes_le=sguid)
        if sguid == VAR_STORE_GUID:
            raise VarsError("the store has the plain variable format; only the authenticated one is handled")
        if sguid != AUTH_VAR_STORE_GUID:
            raise VarsError("unknown variable store signature %s" % sguid)
        if fmt != STORE_FORMATTED or state != STORE_HEALTHY:
            raise VarsError("the variable store is not formatted and healthy (format 0x%x, state 0x%x)" % (fmt, state))
        self.end = hdrlen + size
        if self.end > fvlen:
            raise VarsError("the variable store (%d bytes) overruns the firmware volume" % size)
        self.first = align4(hdrlen + STORE_HEADER.size)
        self.variables, self.free = self._walk()

    def _walk(self):
        out, off = [], self.first
        while off + VAR_HEADER.size <= self.end:
            start, state, _res, attr, _mc, _ts, _pk, nsize, dsize, guid = VAR_HEADER.unpack_from(self.image, off)
            if start != VAR_START_ID:
                break
            name_off = off + VAR_HEADER.size
            data_off = name_off + nsize
            nxt = align4(data_off + dsize)
            if nxt > self.end:
                raise VarsError("the variable at 0x%x runs past the end of the store" % off)
            name = bytes(self.image[name_off:name_off + nsize]).decode("utf-16-le").rstrip("\0")
            out.append(Variable(name, uuid.UUID(bytes_le=guid), attr,
                                bytes(self.image[data_off:data_off + dsize]), state, off))
            off = nxt
        return out, off

    def live(self):
        return [v for v in self.variables if v.live]

    def find(self, name, guid):
        for v in self.live():
            if v.name == name and v.guid == guid:
                return v
        return None

    def add(self, var):
        """Append VAR at the end of the store (there must be no live one of the same name)."""
        if self.find(var.name, var.guid):
            raise VarsError("%s (%s) is already set; replacing is not supported" % (var.name, var.guid))
        if var.attributes & TIME_AUTH:
            raise VarsError("time-based authenticated variables need a signed payload; not supported")
        blob = var.encode()
        if self.free + len(blob) > self.end:
            raise VarsError("no room for %s: %d bytes free, %d needed" % (var.name, self.end - self.free, len(blob)))
        if any(b != 0xFF for b in self.image[self.free:self.free + len(blob)]):
            raise VarsError("the free space at 0x%x is not erased (0xFF)" % self.free)
        self.image[self.free:self.free + len(blob)] = blob
        var.offset = self.free
        self.variables.append(var)
        self.free += len(blob)


def x509_signature_list(ders, owner=SHIM_LOCK_GUID):
    """An EFI_SIGNATURE_LIST of type EFI_CERT_X509_GUID with one
    EFI_SIGNATURE_DATA (owner GUID + DER) per certificate. All entries of one
    list have one size, so certificates of different sizes go in lists of
    their own, one after another, as MokManager writes them."""
    out = b""
    for der in ders:
        sig_size = 16 + len(der)
        out += EFI_CERT_X509_GUID.bytes_le + struct.pack("<III", 28 + sig_size, 0, sig_size)
        out += owner.bytes_le + der
    return out


def parse_signature_lists(data):
    """[(type GUID, owner GUID, payload)] of a run of EFI_SIGNATURE_LISTs."""
    out, off = [], 0
    while off + 28 <= len(data):
        stype = uuid.UUID(bytes_le=data[off:off + 16])
        lsize, hsize, ssize = struct.unpack_from("<III", data, off + 16)
        if lsize < 28 + hsize or ssize < 16 or off + lsize > len(data):
            raise VarsError("bad EFI_SIGNATURE_LIST at %d" % off)
        p = off + 28 + hsize
        while p + ssize <= off + lsize:
            out.append((stype, uuid.UUID(bytes_le=data[p:p + 16]), data[p + 16:p + ssize]))
            p += ssize
        off += lsize
    return out


def attr_text(a):
    names = [(NV, "NV"), (BS, "BS"), (RT, "RT"), (0x8, "HW_ERR"), (0x10, "AUTH_WRITE"),
             (TIME_AUTH, "TIME_AUTH"), (0x40, "APPEND")]
    return "+".join(n for bit, n in names if a & bit) or "0"


def main(argv):
    if len(argv) >= 2 and argv[0] == "list":
        with open(argv[1], "rb") as f:
            vs = VarStore(f.read())
        for v in vs.variables:
            print("%-5s %-36s %-20s %6d %s" % ("live" if v.live else "dead", v.guid, attr_text(v.attributes),
                                               len(v.data), v.name))
        print("store: %d bytes, %d used, %d free" % (vs.end - vs.store, vs.free - vs.store, vs.end - vs.free))
        return 0
    if len(argv) == 4 and argv[0] == "add-mok":
        with open(argv[1], "rb") as f:
            vs = VarStore(f.read())
        with open(argv[3], "rb") as f:
            der = f.read()
        # What MokManager leaves after an enrolment: MokList, non-volatile and
        # boot-services only (shim refuses a MokList that is runtime-visible).
        vs.add(Variable("MokList", SHIM_LOCK_GUID, NV | BS, x509_signature_list([der])))
        with open(argv[2], "wb") as f:
            f.write(vs.image)
        return 0
    print(__doc__.split("Usage:")[1].rstrip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, VarsError) as e:
        print("ovmf_vars: %s" % e, file=sys.stderr)
        sys.exit(1)
