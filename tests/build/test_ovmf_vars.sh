#!/usr/bin/env bash
# tests/lib/ovmf_vars.py, the OVMF variable store tool of
# test_secure_boot_mok: it finds PK, KEK, db and dbx (live, time-based
# authenticated, in the image security database or global GUID) in Debian's
# OVMF_VARS_4M.ms.fd and none of them in the blank OVMF_VARS_4M.fd; adding
# MokList round-trips (read back live, NV+BS, the certificate out of its
# signature list), leaves every byte outside the new variable as it was,
# refuses a second MokList and a store that is not one.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ms=/usr/share/OVMF/OVMF_VARS_4M.ms.fd blank=/usr/share/OVMF/OVMF_VARS_4M.fd
[ -r "$ms" ] && [ -r "$blank" ] || { echo "skip: OVMF is not installed (scripts/deps.sh: ovmf)"; exit 77; }
exec /usr/bin/python3 - "$ms" "$blank" <<'PY'
import os
import sys
import tempfile

sys.path.insert(0, "tests/lib")
import ovmf_vars as ov

ms_path, blank_path = sys.argv[1], sys.argv[2]
bad = []
ms = open(ms_path, "rb").read()
vs = ov.VarStore(ms)
names = {(v.name, v.guid): v for v in vs.live()}
for n, g in (("PK", ov.EFI_GLOBAL_VARIABLE), ("KEK", ov.EFI_GLOBAL_VARIABLE),
             ("db", ov.IMAGE_SECURITY_DATABASE), ("dbx", ov.IMAGE_SECURITY_DATABASE)):
    v = names.get((n, g))
    if not v:
        bad.append("%s (%s) not found in %s" % (n, g, ms_path))
    elif v.attributes != ov.NV | ov.BS | ov.RT | ov.TIME_AUTH:
        bad.append("%s has attributes %s, expected NV+BS+RT+TIME_AUTH" % (n, ov.attr_text(v.attributes)))
# db holds X.509 certificates (Microsoft's): the signature-list parser reads them.
db = names.get(("db", ov.IMAGE_SECURITY_DATABASE))
if db:
    # A time-authenticated variable's data is the plain signature list in the store.
    certs = [p for t, _o, p in ov.parse_signature_lists(db.data) if t == ov.EFI_CERT_X509_GUID]
    if not certs or not all(c[:1] == b"\x30" for c in certs):
        bad.append("db: no DER certificates in its signature lists (%d)" % len(certs))
print("%s: %d variables (%d live); PK, KEK, db (%d certificates), dbx found" %
      (ms_path, len(vs.variables), len(vs.live()), len(certs) if db else 0))
bl = ov.VarStore(open(blank_path, "rb").read())
if any(v.name in ("PK", "KEK", "db", "dbx") for v in bl.live()):
    bad.append("the blank store has Secure Boot keys")

# Round trip: the certificate of db's first entry stands in for a MOK.
der = certs[0] if db and certs else b"\x30\x03\x02\x01\x01"
with tempfile.TemporaryDirectory() as d:
    cert, out = os.path.join(d, "c.der"), os.path.join(d, "out.fd")
    open(cert, "wb").write(der)
    rc = ov.main(["add-mok", ms_path, out, cert])
    new = open(out, "rb").read()
if rc != 0 or len(new) != len(ms):
    bad.append("add-mok: exit %d, %d bytes (the input has %d)" % (rc, len(new), len(ms)))
else:
    vs2 = ov.VarStore(new)
    mok = vs2.find("MokList", ov.SHIM_LOCK_GUID)
    if not mok:
        bad.append("MokList is not found after add-mok")
    else:
        if mok.attributes != ov.NV | ov.BS or mok.state != ov.VAR_ADDED:
            bad.append("MokList: attributes %s state 0x%x, expected NV+BS, 0x3F" % (ov.attr_text(mok.attributes), mok.state))
        sl = ov.parse_signature_lists(mok.data)
        if sl != [(ov.EFI_CERT_X509_GUID, ov.SHIM_LOCK_GUID, der)]:
            bad.append("MokList's signature list does not give the certificate back: %r" % [(t, o, len(p)) for t, o, p in sl])
        if mok.offset != vs.free:
            bad.append("MokList at 0x%x, expected at the old end of the store 0x%x" % (mok.offset, vs.free))
        if len(vs2.variables) != len(vs.variables) + 1:
            bad.append("%d variables after add-mok, expected %d" % (len(vs2.variables), len(vs.variables) + 1))
        if new[:vs.free] != ms[:vs.free] or new[vs2.free:] != ms[vs2.free:]:
            bad.append("add-mok changed bytes outside the new variable")
        print("MokList: %d bytes of data at 0x%x; store free %d -> %d bytes" %
              (len(mok.data), mok.offset, vs.end - vs.free, vs2.end - vs2.free))
    try:
        vs2.add(ov.Variable("MokList", ov.SHIM_LOCK_GUID, ov.NV | ov.BS, b"x"))
        bad.append("a second MokList was accepted")
    except ov.VarsError as e:
        print("second MokList refused: %s" % e)
for junk, what in ((bytes(4096), "zeros"), (ms[:0x48] + bytes(4096), "no store header")):
    try:
        ov.VarStore(junk)
        bad.append("a file of %s parsed as a variable store" % what)
    except (ov.VarsError, Exception) as e:
        if not isinstance(e, ov.VarsError):
            bad.append("a file of %s: %s instead of a VarsError" % (what, type(e).__name__))
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
