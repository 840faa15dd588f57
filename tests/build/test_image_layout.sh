#!/usr/bin/env bash
# image/build.sh: the stick's layout (MBR, one bootable FAT32 partition at
# 1 MiB, syslinux and GRUB with the same entries and the right PARTUUID), the
# manifest's hashes, and that two builds of the same inputs are identical.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
export OUT MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null

for f in "$OUT/vmlinuz" "${PS_INITRD:-$OUT/initramfs.img}"; do
	[ -s "$f" ] || { echo "skip: $f is not built yet (make)"; exit 77; }
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
image/build.sh "$t/a.img" || { echo "FAIL: image/build.sh failed"; exit 1; }
sleep 1 # a build that stamps the time would now differ
image/build.sh "$t/b.img" >/dev/null || { echo "FAIL: second build failed"; exit 1; }

/usr/bin/python3 - "$t" <<'PY'
import hashlib, json, os, re, subprocess, sys
t = sys.argv[1]
img = os.path.join(t, "a.img")
bad = []
def mtools(*args):
    return subprocess.run(args, check=True, capture_output=True).stdout

def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

if sha(img) != sha(os.path.join(t, "b.img")):
    bad.append("two builds of the same inputs differ")

pt = json.loads(subprocess.run(["sfdisk", "-J", img], check=True, capture_output=True).stdout)["partitiontable"]
parts = pt["partitions"]
if pt["label"] != "dos" or len(parts) != 1:
    bad.append("expected an MBR with one partition, got %s with %d" % (pt["label"], len(parts)))
p = parts[0]
if p["start"] != 2048 or p["type"] != "c" or not p.get("bootable"):
    bad.append("partition: %r (expected start 2048, type c, bootable)" % p)
partuuid = "%s-01" % pt["id"][2:].lower()
with open(img, "rb") as f:
    mbr = f.read(512)
    f.seek(2048 * 512)
    vbr = f.read(512)
with open("/usr/lib/syslinux/mbr/mbr.bin", "rb") as f:
    if mbr[:440] != f.read()[:440]:
        bad.append("MBR boot code is not syslinux's mbr.bin")
if mbr[510:512] != b"\x55\xaa" or vbr[510:512] != b"\x55\xaa":
    bad.append("missing boot signature")
if vbr[82:90] != b"FAT32   " or vbr[71:82] != b"PROBESTICK ":
    bad.append("partition is not FAT32 labelled PROBESTICK: %r %r" % (vbr[82:90], vbr[71:82]))
if int.from_bytes(vbr[28:32], "little") != 2048:
    bad.append("FAT hidden sectors is not 2048 (syslinux would not find itself)")

fat = img + "@@1M"
listing = mtools("mdir", "-/", "-a", "-b", "-i", fat, "::/").decode()
for path in ["::/vmlinuz", "::/initrd.img", "::/probestick.cfg", "::/manifest.json",
             "::/syslinux/ldlinux.sys", "::/syslinux/ldlinux.c32", "::/syslinux/menu.c32",
             "::/syslinux/libutil.c32", "::/syslinux/syslinux.cfg", "::/EFI/BOOT/BOOTX64.EFI",
             "::/EFI/BOOT/grub.cfg"]:
    if path.lower() not in listing.lower():
        bad.append("%s is missing on the stick" % path)
if "::/reports/" not in listing:
    bad.append("::/reports/ is missing")

manifest = json.loads(mtools("mtype", "-i", fat, "::/manifest.json"))
for name in ["vmlinuz", "initrd.img"]:
    got = hashlib.sha256(mtools("mtype", "-i", fat, "::/" + name)).hexdigest()
    entry = manifest["files"].get(name) or {}
    if entry.get("sha256") != got:
        bad.append("manifest sha256 of %s does not match the file on the stick" % name)
for key in ["probestick_version", "kernel", "source_date_epoch", "partuuid", "files"]:
    if key not in manifest:
        bad.append("manifest has no %s" % key)
if manifest.get("partuuid") != partuuid:
    bad.append("manifest partuuid %r, partition table says %r" % (manifest.get("partuuid"), partuuid))

def entries(text, start, title_re, cmd_re):
    out = []
    for block in re.split(start, text)[1:]:
        title = re.search(title_re, block).group(1)
        cmd = re.search(cmd_re, block).group(1).split()
        out.append((title, cmd))
    return out

sl = mtools("mtype", "-i", fat, "::/syslinux/syslinux.cfg").decode()
gr = mtools("mtype", "-i", fat, "::/EFI/BOOT/grub.cfg").decode()
if not sl.lstrip().split("\n")[0].startswith("#") or not re.search(r"^SERIAL 0 \d+$", sl, re.M):
    bad.append("syslinux.cfg has no SERIAL line")
if sl.split("\n")[[i for i, l in enumerate(sl.split("\n")) if l and not l.startswith("#")][0]].split()[0] != "SERIAL":
    bad.append("SERIAL is not the first syslinux directive")
s_entries = entries(sl, r"\nLABEL ", r"MENU LABEL (.*)", r"APPEND (.*)")
g_entries = [(t, c[1:]) for t, c in entries(gr, r"\nmenuentry ", r'^"(.*)"', r"linux (.*)")]
if s_entries != g_entries:
    bad.append("syslinux and GRUB entries differ:\n  %r\n  %r" % (s_entries, g_entries))
titles = [t for t, _ in s_entries]
want = ["Start as probestick.cfg says", "Interactive", "Interactive on serial (ttyS0,", "Unattended quick plan, then power off", "Unattended full plan, then power off"]
if len(titles) != 5 or any(not t.startswith(w) for t, w in zip(titles, want)):
    bad.append("boot entries are %r" % titles)
for t_, cmd in s_entries:
    if "probestick.partuuid=" + partuuid not in cmd:
        bad.append("entry %r lacks probestick.partuuid=%s" % (t_, partuuid))
if "terminal_output console serial" not in gr:
    bad.append("grub.cfg does not output on serial")
cfg = mtools("mtype", "-i", fat, "::/probestick.cfg").decode()
keys = dict(l.split("#")[0].strip().split("=", 1) for l in cfg.splitlines() if l.split("#")[0].strip())
if set(keys) != {"plan", "then", "console"}:
    bad.append("probestick.cfg keys: %r" % keys)
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "image layout ok, builds reproducible"
exit $rc
