#!/usr/bin/env bash
# image/build.sh: the stick's layout (MBR, one bootable FAT32 partition at
# 1 MiB, syslinux and GRUB with the same entries and the right PARTUUID,
# syslinux's plain menu, Debian's signed UEFI chain), the manifest's hashes,
# and that two builds of the same inputs are identical.
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

# A fresh stick passes fsck.fat -n with nothing said: the boot sector's FAT32
# backup equals the one syslinux wrote, no dirty flag, no lost cluster.
part = os.path.join(t, "part.img")
with open(img, "rb") as f, open(part, "wb") as out:
    f.seek(2048 * 512)
    out.write(f.read())
r = subprocess.run(["fsck.fat", "-n", part], capture_output=True, text=True)
said = [l for l in (r.stdout + r.stderr).splitlines()
        if l and not l.startswith("fsck.fat ") and not re.search(r": \d+ files, \d+/\d+ clusters$", l)]
if r.returncode != 0 or said:
    bad.append("fsck.fat -n on the fresh FAT partition: exit %d: %s" % (r.returncode, " | ".join(said[:4])))
bk = int.from_bytes(vbr[50:52], "little")
with open(img, "rb") as f:
    f.seek((2048 + bk) * 512)
    if f.read(512) != vbr:
        bad.append("the FAT32 backup boot sector (sector %d) differs from the boot sector" % bk)

fat = img + "@@1M"
listing = mtools("mdir", "-/", "-a", "-b", "-i", fat, "::/").decode()
for path in ["::/vmlinuz", "::/initrd.img", "::/probestick.cfg", "::/manifest.json",
             "::/syslinux/ldlinux.sys", "::/syslinux/ldlinux.c32", "::/syslinux/syslinux.cfg",
             "::/syslinux/menu.txt", "::/EFI/BOOT/BOOTX64.EFI", "::/EFI/BOOT/grubx64.efi",
             "::/EFI/BOOT/mmx64.efi", "::/EFI/debian/grub.cfg", "::/memtest86+x64.bin",
             "::/memtest86+x64.efi", "::/tools/stress-ng/stress-ng"]:
    if path.lower() not in listing.lower():
        bad.append("%s is missing on the stick" % path)
# shim runs its fallback instead of GRUB when fbx64.efi sits beside it
for path in ["::/EFI/BOOT/fbx64.efi", "::/EFI/BOOT/grub.cfg", "::/syslinux/menu.c32"]:
    if path.lower() in listing.lower():
        bad.append("%s is on the stick but must not be" % path)
if "::/reports/" not in listing:
    bad.append("::/reports/ is missing")

manifest = json.loads(mtools("mtype", "-i", fat, "::/manifest.json"))
for name in ["vmlinuz", "initrd.img"]:
    got = hashlib.sha256(mtools("mtype", "-i", fat, "::/" + name)).hexdigest()
    entry = manifest["files"].get(name) or {}
    if entry.get("sha256") != got:
        bad.append("manifest sha256 of %s does not match the file on the stick" % name)
# The signed chain: shim signed by Microsoft's UEFI CA (what the firmware
# trusts), GRUB, MokManager and the kernel by Debian (what shim trusts).
efi_dir = os.path.join(t, "efi")
os.makedirs(efi_dir, exist_ok=True)
signers = {"EFI/BOOT/BOOTX64.EFI": "Microsoft Corporation UEFI CA 2011",
           "EFI/BOOT/grubx64.efi": "Debian Secure Boot CA", "EFI/BOOT/mmx64.efi": "Debian Secure Boot CA",
           "vmlinuz": "Debian Secure Boot CA"}
for name, issuer in signers.items():
    local = os.path.join(efi_dir, name.replace("/", "_"))
    with open(local, "wb") as f:
        f.write(mtools("mtype", "-i", fat, "::/" + name))
    out = subprocess.run(["sbverify", "--list", local], capture_output=True, text=True).stdout
    if "issuer:  /" not in out or issuer not in out:
        bad.append("%s is not signed by %s: %s" % (name, issuer, out.strip()[:200]))
    chain = (manifest.get("uefi_chain") or {}).get(name) or {}
    if not chain.get("package") or not chain.get("version"):
        bad.append("manifest uefi_chain has no package and version for %s" % name)
    entry = manifest["files"].get(name) or {}
    if entry.get("sha256") != sha(local):
        bad.append("manifest sha256 of %s does not match the file on the stick" % name)
for key in ["probestick_version", "kernel", "source_date_epoch", "partuuid", "files", "firmware"]:
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
gr = mtools("mtype", "-i", fat, "::/EFI/debian/grub.cfg").decode()
menu = mtools("mtype", "-i", fat, "::/syslinux/menu.txt").decode("ascii", "replace")
if not sl.lstrip().split("\n")[0].startswith("#") or not re.search(r"^SERIAL 0 \d+$", sl, re.M):
    bad.append("syslinux.cfg has no SERIAL line")
if sl.split("\n")[[i for i, l in enumerate(sl.split("\n")) if l and not l.startswith("#")][0]].split()[0] != "SERIAL":
    bad.append("SERIAL is not the first syslinux directive")
# memtest86+ is an entry of its own on both (no kernel, no partuuid): it is
# checked below, the probestick entries here.
sl_blocks = re.split(r"\nLABEL ", sl)[1:]
s_entries = entries("\n" + "\n".join("LABEL " + b for b in sl_blocks if "LINUX /memtest86+" not in b),
                    r"\nLABEL ", r"MENU LABEL (.*)", r"APPEND (.*)")
s_memtest = [b for b in sl_blocks if "LINUX /memtest86+" in b]
if len(s_memtest) != 1 or not re.search(r"^\s*LINUX /memtest86\+x64\.bin$", s_memtest[0], re.M) or \
        not re.search(r"^\s*APPEND .*console=ttyS0,\d+", s_memtest[0], re.M):
    bad.append("syslinux.cfg has no memtest86+ entry (LINUX /memtest86+x64.bin, APPEND console=ttyS0,SPEED): %r" % s_memtest)
g_blocks = re.split(r"\n\s*menuentry ", gr)[1:]
# Every Linux entry calls boot_probestick (issue 29): the kernel chainloaded
# as an EFI application with initrd= for the stub, linux/initrd only when the
# firmware refuses that.
g_entries = [(re.search(r'^"(.*)"', b).group(1), re.search(r"^\s*boot_probestick (.*)", b, re.M).group(1).split())
             for b in g_blocks if re.search(r"^\s*boot_probestick ", b, re.M)]
fn = re.search(r"^function boot_probestick \{\n(.*?)^\}", gr, re.M | re.S)
if not fn or not re.search(r'^\s*if chainloader /vmlinuz initrd=/initrd\.img nokaslr "\$@"; then\n\s*boot\n\s*fi\n'
                           r'\s*linux /vmlinuz "\$@"\n\s*initrd /initrd\.img\n', fn.group(1), re.M):
    bad.append("grub.cfg has no boot_probestick function (chainloader /vmlinuz initrd=/initrd.img nokaslr, then linux/initrd): %r"
               % (fn.group(1) if fn else None))
if any(re.search(r"^\s*(linux|initrd) ", b, re.M) for b in g_blocks):
    bad.append("a GRUB entry loads the kernel itself instead of through boot_probestick")
if not any("chainloader /EFI/BOOT/mmx64.efi" in b for b in g_blocks):
    bad.append("grub.cfg has no MokManager entry")
g_memtest = [b for b in g_blocks if "memtest86+" in b.split("\n")[0]]
if len(g_memtest) != 1 or not re.search(r"^\s*chainloader /memtest86\+x64\.efi console=ttyS0,\d+$", g_memtest[0], re.M) or \
        "Secure Boot must be off" not in g_memtest[0].split("\n")[0] or "--hotkey=m" not in g_memtest[0].split("\n")[0]:
    bad.append("grub.cfg has no memtest86+ entry (chainloader /memtest86+x64.efi console=ttyS0,SPEED, "
               "--hotkey=m, 'Secure Boot must be off' in its title): %r" % g_memtest)
sn = manifest.get("stress_ng") or {}
libs = mtools("mdir", "-b", "-i", fat, "::/tools/stress-ng/lib").decode().split()
if not sn.get("version") or sn.get("dir") != "tools/stress-ng" or not any("libc.so.6" in l for l in libs):
    bad.append("stress-ng on the stick: manifest %r, libraries %r" % (sn, libs[:5]))
mt = manifest.get("memtest86+") or {}
if not mt.get("version") or mt.get("signed") is not False:
    bad.append("manifest names no memtest86+ package version (unsigned): %r" % mt)
for name in ["memtest86+x64.bin", "memtest86+x64.efi"]:
    entry = manifest["files"].get(name) or {}
    if entry.get("sha256") != hashlib.sha256(mtools("mtype", "-i", fat, "::/" + name)).hexdigest():
        bad.append("manifest sha256 of %s does not match the file on the stick" % name)
if not any(re.search(r"^\s*fwsetup", b, re.M) for b in g_blocks):
    bad.append("grub.cfg has no firmware setup entry")
if s_entries != g_entries:
    bad.append("syslinux and GRUB entries differ:\n  %r\n  %r" % (s_entries, g_entries))
titles = [t for t, _ in s_entries]
want = ["Start as probestick.cfg says", "Interactive", "Interactive on serial (ttyS0,", "Unattended quick plan, then power off", "Unattended full plan, then power off", "Server mode: the peer of another stick", "Safe graphics: "]
if len(titles) != 7 or any(not t.startswith(w) for t, w in zip(titles, want)):
    bad.append("boot entries are %r" % titles)
# Safe graphics (issue 29): as the default entry, without kernel mode setting.
default_cmd = dict(s_entries).get("Start as probestick.cfg says") or []
safe = [cmd for t_, cmd in s_entries if t_.startswith("Safe graphics: ")]
if not safe or sorted(safe[0]) != sorted(default_cmd + ["nomodeset"]):
    bad.append("the Safe graphics entry is not the default entry with nomodeset: %r" % safe)
if not re.search(r"^ +8 +Safe graphics: ", menu, re.M):
    bad.append("menu.txt does not list Safe graphics as 8")
for t_, cmd in s_entries:
    if "probestick.partuuid=" + partuuid not in cmd:
        bad.append("entry %r lacks probestick.partuuid=%s" % (t_, partuuid))
    # a serial user sees every entry but the screen-only one at work
    if t_ != "Interactive" and not [w for w in cmd if w.startswith("console=ttyS0,")]:
        bad.append("entry %r has no console=ttyS0" % t_)
# The BIOS menu: syslinux's plain prompt (no menu.c32), its list in menu.txt
# printed by cat.c32 (on the screen and ttyS0: DISPLAY text never reaches the
# serial line), naming every entry by its LABEL, plain ASCII within 80 columns;
# the count-down boots the default.
if not re.search(r"^PROMPT 1$", sl, re.M):
    bad.append("syslinux.cfg does not use syslinux's plain prompt (PROMPT 1)")
if not re.search(r"^UI /syslinux/cat.c32 /syslinux/menu.txt$", sl, re.M):
    bad.append("syslinux.cfg does not print /syslinux/menu.txt with cat.c32 (UI)")
if not re.search(r"^ONTIMEOUT 1$", sl, re.M):
    bad.append("syslinux.cfg has no ONTIMEOUT 1: the count-down would run the UI again")
for path in ["::/syslinux/cat.c32", "::/syslinux/libcom32.c32"]:
    if path.lower() not in listing.lower():
        bad.append("%s is missing on the stick" % path)
labels = [b.split("\n")[0].strip() for b in sl_blocks if "LINUX /memtest86+" not in b]
for label, (t_, _) in zip(labels, s_entries):
    if not re.search(r"^ +%s +%s$" % (re.escape(label), re.escape(t_)), menu, re.M):
        bad.append("menu.txt does not list %s as %s" % (t_, label))
if any(ord(c) > 126 or (ord(c) < 32 and c not in "\n") for c in menu) or max(map(len, menu.split("\n"))) > 79:
    bad.append("menu.txt is not plain ASCII within 80 columns")
if not re.search(r"^ +7 +Memory test: memtest86\+", menu, re.M):
    bad.append("menu.txt does not list memtest86+ as 7")
if "terminal_output console serial" not in gr:
    bad.append("grub.cfg does not output on serial")
cfg = mtools("mtype", "-i", fat, "::/probestick.cfg").decode()
keys = dict(l.split("#")[0].strip().split("=", 1) for l in cfg.splitlines() if l.split("#")[0].strip())
if set(keys) != {"plan", "then", "console", "surface"}:
    bad.append("probestick.cfg keys: %r" % keys)
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY
rc=$?
[ $rc -eq 0 ] && echo "image layout ok, builds reproducible"
exit $rc
