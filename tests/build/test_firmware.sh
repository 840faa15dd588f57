#!/usr/bin/env bash
# Firmware (issue 11): every file an included driver names (modinfo -F
# firmware of each module in the built initramfs) is in the initramfs under
# /lib/firmware, byte for byte the file of the Debian package the list says,
# or listed as left out with why; the image's manifest carries the same list
# with package and licence. The same modules with non-free firmware turned
# off ship no non-free file and say why each was left out.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-out}
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
img=$OUT/initramfs.img list=$OUT/initramfs/firmware.json
for f in "$img" "$list" "$OUT/initramfs/gen/module-families" "$OUT/gen/config.mk" "$OUT/probestick.manifest.json"; do
	[ -s "$f" ] || { echo "skip: $f is missing (run make first)"; exit 77; }
done
KVER=${KVER:-$(scripts/kver.sh)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/root"
zstd -dc -q "$img" | (cd "$tmp/root" && cpio -idm --quiet) || { echo "FAIL: cannot unpack $img"; exit 1; }

# The non-free-off variant: the same modules and config with FIRMWARE_NONFREE off.
sed 's/^CONFIG_FIRMWARE_NONFREE=y$/# CONFIG_FIRMWARE_NONFREE is not set/' "$OUT/gen/config.mk" >"$tmp/config-free.mk"
mkdir "$tmp/free"
/usr/bin/python3 initramfs/firmware.py "$OUT/initramfs/gen/module-families" "$OUT/kernel/lib/modules/$KVER" \
	"$tmp/config-free.mk" initramfs/firmware.conf "$PS_CACHE/debs" "$OUT/debs" "$tmp/free" "$tmp/free.json" \
	>/dev/null || { echo "FAIL: firmware.py with non-free off failed"; exit 1; }

/usr/bin/python3 - "$tmp/root" "$list" "$OUT/probestick.manifest.json" "$KVER" "$OUT/debs" \
	"$tmp/free.json" "$OUT/gen/config.mk" <<'PY'
import hashlib, json, os, re, subprocess, sys
root, list_path, manifest_path, kver, unpack, free_path, config_mk = sys.argv[1:8]
bad = []
doc = json.load(open(list_path))
shipped = {e["file"]: e for e in doc["files"]}
left = {e["file"]: e for e in doc["left_out"]}
cfg = dict(re.findall(r"^CONFIG_([A-Z0-9_]+)=(.*)$", open(config_mk).read(), re.M))

def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

# Every module of the archive (but probestick.ko) and the files it names.
mdir = os.path.join(root, "lib", "modules", kver)
named = {}
for top, _, files in os.walk(mdir):
    for f in files:
        mod = re.sub(r"\.ko(\.xz)?$", "", f)
        if mod != f and mod != "probestick":
            out = subprocess.run(["modinfo", "-F", "firmware", os.path.join(top, f)],
                                 capture_output=True, text=True, check=True).stdout.split()
            for n in out:
                named.setdefault(n, []).append(mod)
if not named:
    bad.append("no module of the initramfs names a firmware file: the test would prove nothing")
for name, mods in sorted(named.items()):
    fw = os.path.join(root, "lib", "firmware", name)
    if name in shipped:
        e = shipped[name]
        if not os.path.isfile(fw):
            bad.append("%s (%s) is listed as shipped but not in the initramfs" % (name, ", ".join(mods)))
            continue
        pkg_file = os.path.join(unpack, e["package"], "lib", "firmware", name)
        if sha(fw) != e["sha256"] or sha(fw) != sha(pkg_file):
            bad.append("%s differs from %s's file or from its listed sha256" % (name, e["package"]))
        for k in ("package", "version", "component", "license"):
            if not e.get(k):
                bad.append("%s: no %s in the list" % (name, k))
        if e["component"] == "non-free-firmware" and cfg.get("FIRMWARE_NONFREE") != "y":
            bad.append("%s is non-free but CONFIG_FIRMWARE_NONFREE is off" % name)
    elif name in left:
        if not left[name].get("reason"):
            bad.append("%s is left out without a reason" % name)
        if os.path.exists(fw):
            bad.append("%s is listed as left out but is in the initramfs" % name)
    else:
        bad.append("%s, named by %s, is neither in the initramfs nor listed as left out" % (name, ", ".join(mods)))
for name in shipped:
    if name not in named:
        bad.append("%s is shipped but no included driver names it" % name)
extra = []
for top, _, files in os.walk(os.path.join(root, "lib", "firmware")):
    for f in files:
        rel = os.path.relpath(os.path.join(top, f), os.path.join(root, "lib", "firmware"))
        if rel not in shipped:
            extra.append(rel)
if extra:
    bad.append("files in /lib/firmware that the list does not name: %s" % extra[:5])

# The manifest of the image lists the same files, with package and licence.
manifest = json.load(open(manifest_path))
if manifest.get("firmware") != doc:
    bad.append("the image's manifest.json firmware list is not the initramfs's firmware.json")
if (json.load(open(os.path.join(root, "usr", "share", "probestick", "firmware.json"))) != doc):
    bad.append("/usr/share/probestick/firmware.json in the initramfs is not the build's list")

# Non-free off: nothing non-free shipped, and each such file left out saying so.
free = json.load(open(free_path))
nonfree = [e["file"] for e in doc["files"] if e["component"] != "main"]
for e in free["files"]:
    if e["component"] != "main":
        bad.append("non-free off: %s (%s) still shipped" % (e["file"], e["component"]))
free_left = {e["file"]: e["reason"] for e in free["left_out"]}
for name in nonfree:
    if "CONFIG_FIRMWARE_NONFREE is off" not in free_left.get(name, ""):
        bad.append("non-free off: %s is not left out as non-free (%r)" % (name, free_left.get(name)))
if not [e for e in free["files"] if e["component"] == "main"] and [e for e in doc["files"] if e["component"] == "main"]:
    bad.append("non-free off: the free firmware (main) went too")

for b in bad:
    print("FAIL: " + b)
print("firmware: %d files named by %d drivers: %d shipped (%d bytes, %d non-free), %d left out; "
      "non-free off: %d shipped" % (len(named), len({m for v in named.values() for m in v}), len(shipped),
                                    sum(e["size"] for e in doc["files"]), len(nonfree), len(left), len(free["files"])))
for e in doc["left_out"]:
    print("  left out: %s (%s): %s" % (e["file"], ", ".join(e["modules"]), e["reason"]))
sys.exit(1 if bad else 0)
PY
