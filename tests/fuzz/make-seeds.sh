#!/usr/bin/env bash
# Rebuild the seeds of tests/fuzz/corpus/ that come from tests/fixtures/ (fx-*),
# the hand-written ones (hand-*) and the reports the program writes from the
# fixture trees (run-*), and the report dictionary from the schema. Inputs
# that fuzzing added later (named by their sha1) are left alone.
# Needs out/probestick and the harnesses: make userland fuzz-build.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
fx=tests/fixtures
corpus=tests/fuzz/corpus
py=/usr/bin/python3
for b in "$OUT/probestick" "$OUT/fuzz/fuzz_sampler" "$OUT/fuzz/fuzz_kcapture"; do
	[ -x "$b" ] || {
		echo "make-seeds: needs $b: run make userland fuzz-build first" >&2
		exit 1
	}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for d in "$corpus"/*/; do
	rm -f "$d"fx-* "$d"hand-* "$d"run-*
done

# seed HARNESS NAME: stdin becomes one seed
seed() {
	mkdir -p "$corpus/$1"
	cat >"$corpus/$1/$2"
}
# seed_file HARNESS PREFIX FILE: a fixture file, named by prefix and content (duplicates once)
seed_file() {
	[ -s "$3" ] || return 0
	seed "$1" "fx-$2-$(sha1sum <"$3" | cut -c1-8)" <"$3"
}
sep=$'\n%%\n' # FUZZ_SEP of tests/fuzz/fuzz.h

# ---- probestick.cfg, kernel command line, console=
seed_file config windows "$fx/core/cfg/windows.cfg"
printf 'plan=menu           # quick | full | menu\nthen=menu           # after the plan: poweroff | reboot | menu | shell\nconsole=tty0,ttyS0  # terminals the menu and progress use\n' | seed config hand-readme
printf '\xef\xbb\xbfplan=full\r\nthen=reboot\r\nconsole=ttyS0,115200,tty0\r\n' | seed config hand-bom-crlf
printf 'plan=\nthen = shell\t# x\n=quick\nconsole=tty0,,ttyS0\nconsole=ttyS0,12345\nplan=quick\0junk\n' | seed config hand-bad
for f in "$fx"/*/proc/cmdline "$fx/core/cfg/cmdline"; do
	seed_file cmdline "$(basename "$(dirname "$(dirname "$f")")")" "$f"
done
printf 'BOOT_IMAGE=/vmlinuz initrd=/initrd.img probestick.plan=quick probestick.then=poweroff probestick.partuuid=5e1f0c2a-01\n' | seed cmdline hand-unattended
printf 'probestick.plan=menu console=tty0 console=ttyS0,115200 "probestick.console=tty0,ttyS0,115200" probestick.break=shell probestick.then\n' | seed cmdline hand-menu-serial
printf 'probestick.plan=fast probestick.then=reboot probestick.console=ttyS0,9600,ttyS1,57600 probestick.unknown=1 probestick."quoted value"\n' | seed cmdline hand-bad
printf 'tty0,ttyS0' | seed console_spec hand-default
printf 'ttyS0,115200' | seed console_spec hand-serial
printf 'tty0,ttyS0,115200,ttyS1,9600,ttyUSB0,hvc0,tty1,tty2' | seed console_spec hand-many
printf '115200,tty0,' | seed console_spec hand-bad

# ---- the array step's md files (a first byte picks the decoder), recorded in a guest
for f in "$fx"/md/mdstat-*; do
	{ printf '\0'; cat "$f"; } >"$tmp/md" && seed_file mdstat mdstat "$tmp/md"
done
{ printf '\1'; cat "$fx/md/sync_completed"; } >"$tmp/md" && seed_file mdstat sync "$tmp/md"
{ printf '\1'; cat "$fx/md/sync_speed"; } >"$tmp/md" && seed_file mdstat speed "$tmp/md"
printf '\2raid1, 5 ,6,10' | seed mdstat hand-levels
printf '\3512K' | seed mdstat hand-chunk

# ---- /proc/stat, /proc/interrupts and the sampler over consecutive samples
for f in "$fx"/proc/*/proc/stat "$fx"/proc/*/*/proc/stat; do
	[ -e "$f" ] && seed_file procstat stat "$f"
done
for f in "$fx"/proc/*/proc/interrupts "$fx"/proc/*/*/proc/interrupts; do
	[ -e "$f" ] && seed_file procinterrupts interrupts "$f"
done
# ---- the burnin step: stress-ng's log, /proc/interrupts' MCE line
for f in "$fx"/stress-ng/*.log; do
	seed_file stress log "$f"
done
printf 'stress-ng: info:  [7] dispatching hogs: 2 cpu\nstress-ng: metrc: [7] cpu 10 -1 0 0 nan inf\nstress-ng: fail:  [8] :\n' |
	seed stress hand-odd
for f in "$fx"/proc/*/proc/interrupts; do
	[ -e "$f" ] && seed_file stress interrupts "$f"
done
for series in host-2cpu qemu-q35-2cpu box-8cpu; do
	first=1
	for n in $(ls "$fx/proc/$series" | sort -n); do
		[ $first = 1 ] || printf '%s' "$sep"
		first=0
		cat "$fx/proc/$series/$n/proc/stat"
		printf '%s' "$sep"
		cat "$fx/proc/$series/$n/proc/interrupts"
	done | seed sampler "fx-$series"
done
{
	cat "$fx/proc/box-8cpu/0/proc/stat"
	printf '%s' "$sep"
	cat "$fx/proc/box-8cpu/0/proc/interrupts"
	printf '%s!%s!%s' "$sep" "$sep" "$sep"
	cat "$fx/proc/malformed/proc/stat"
	printf '%s' "$sep"
	cat "$fx/proc/malformed/proc/interrupts"
	printf '%s' "$sep"
	cat "$fx/proc/truncated/proc/stat"
	printf '%s' "$sep"
	cat "$fx/proc/truncated/proc/interrupts"
} | seed sampler fx-box-unreadable-malformed-truncated

# ---- sysfs and SMBIOS
for f in $(find "$fx" -path '*/dmi/entries/17-*/raw'); do
	seed_file smbios17 type17 "$f"
done
# real machines' memory devices and arrays (tests/realworld/dmi/): the first three of each
for m in tests/realworld/dmi/corpus/server-supermicro-29100dd815c0.dmi \
	tests/realworld/dmi/corpus/server-huawei-96aa82145898.dmi \
	tests/realworld/dmi/corpus/desktop-asustek-computer-2709540f36b5.dmi \
	tests/realworld/dmi/corpus/desktop-hewlett-packard-6951e18673da.dmi; do
	rm -rf "$tmp/dmi" && tests/realworld/dmi/dmidecode2root "$m" "$tmp/dmi"
	for f in "$tmp"/dmi/sys/firmware/dmi/entries/1[67]-[012]/raw; do
		seed_file smbios17 real "$f"
	done
done
for f in $(find "$fx" -name config -path '*/sys/devices/*'); do
	seed_file pcie_config config "$f"
done
printf '\x86\x80\x00\x15\x00\x00\x10\x00' | seed pcie_config hand-64-bytes-cut
for f in $(find "$fx" -name vpd_pg80); do
	seed_file vpd_pg80 vpd "$f"
done
printf '\x00\x80\x00\x0c    S1234567' | seed vpd_pg80 hand-sat-padded
for f in $(find "$fx" \( -name '*_link_speed' -o -name '*_link_width' -o -name sata_spd \
	-o -name hw_sata_spd_limit -o -path '*/dmi/id/*' \) -type f); do
	seed_file sysfs_text "$(basename "$f")" "$f"
done
for s in '8.0 GT/s PCIe' '2.5 GT/s' 'Unknown' '255' 'x16' '6.0 Gbps' '<unknown>' \
	'To be filled by O.E.M.' '03000200-0400-0500-0006-000700080009'; do
	printf '%s\n' "$s" | seed sysfs_text "hand-$(printf '%s' "$s" | sha1sum | cut -c1-8)"
done
for root in "$fx"/sysroot-*; do
	find "$root/sys/devices" -regex '.*/\(block\|net\)/[^/]*' -type d | sed "s|^$root||"
done | sort | while read -r p; do
	printf '%s' "$p" | seed sysfs_path "fx-$(printf '%s' "$p" | sha1sum | cut -c1-8)"
done
printf '/sys/devices/pci10000:00/10000:00:0e.0/nvme/nvme0/nvme0n1' | seed sysfs_path hand-vmd
printf '/sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1' | seed sysfs_path hand-subsys
printf '/sys/devices/platform/fe330000.mmc/mmc_host/mmc0/mmc0:0001/block/mmcblk0' | seed sysfs_path hand-mmc
printf '/sys/devices/pci0000:00/0000:00:04.0/virtio2/block/vda' | seed sysfs_path hand-virtio
for root in "$fx"/sysroot-*; do
	id=$root/sys/devices/virtual/dmi/id
	mac=$(cat "$root"/sys/devices/virtual/net/*/address "$root"/sys/devices/pci*/*/*/net/*/address 2>/dev/null | head -n1 || true)
	{
		cat "$id/product_uuid" 2>/dev/null || true
		printf '%s' "$sep"
		cat "$id/product_serial" 2>/dev/null || true
		printf '%s%s' "$sep" "$mac"
	} | seed machine_id "fx-$(basename "$root")"
done
printf '03000200-0400-0500-0006-000700080009%sDefault string%s00:00:00:00:00:00' "$sep" "$sep" | seed machine_id hand-placeholders
printf '%s.hidden/../serial%s' "$sep" "$sep" | seed machine_id hand-dot-serial
for f in $(find "$fx" \( -path '*/dmi/id/*' -o -name model -o -name serial \) -type f); do
	seed_file text_clean "$(basename "$f")" "$f"
done
printf 'Kingston \xe2\x84\xa2 A2000 \xf0\x9f\x92\xbe\x1b[2J\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\x7f\t\n' | seed text_clean hand-mixed

# ---- module histograms and capture records (struct layouts: fuzz_hist.c, fuzz_kcapture.c)
"$py" - "$corpus" <<'PY'
import struct, sys, os
corpus = sys.argv[1]
SUB_BITS, MAX_BITS = 4, 36
NB = (MAX_BITS - SUB_BITS + 1) * 16
def index(v):
    if v < 16: return v
    k = v.bit_length() - 1
    if k >= MAX_BITS: return NB - 1
    return (k - SUB_BITS + 1) * 16 + ((v >> (k - SUB_BITS)) & 15)
def put(h, name, data):
    os.makedirs(f"{corpus}/{h}", exist_ok=True)
    open(f"{corpus}/{h}/{name}", "wb").write(data)
def hist(values):
    b = [0] * NB
    for v, n in values: b[index(v)] += n
    last = max([i for i in range(NB) if b[i]] + [0])
    return b[:last + 1]
lat = [(5000, 30), (5200, 100), (9000, 10), (150000, 2)]
b = hist(lat)
put("hist", "hand-irq-latency", struct.pack("<QQ", 150000, sum(v * n for v, n in lat)) + struct.pack(f"<{len(b)}Q", *b))
put("hist", "hand-all-buckets", struct.pack("<QQ", 1 << 40, 1 << 50) + struct.pack(f"<{NB}Q", *([1] * NB)))
put("hist", "hand-empty", struct.pack("<QQ", 0, 0))
put("hist", "hand-huge", struct.pack("<QQQQ", (1 << 64) - 1, (1 << 64) - 1, (1 << 63), (1 << 63) + 5))

def probe(pid, flags, name, reason=b"", err=0):
    return struct.pack("<BBbB16s12s", pid, flags, err, 0, name, reason)
PROBE_OF = {1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 3}  # metric -> the seeds' probe id
def rec(metric, cpu, key, d, name, vals, bus=b"", extra=(0, 0)):
    pid = PROBE_OF[metric]
    cnt = sum(n for v, n in vals); s = sum(v * n for v, n in vals)
    mx = max([v for v, n in vals] + [0])
    bk = [(index(v), n) for v, n in vals][:4]
    bk += [(0, 0)] * (4 - len(bk))
    return struct.pack("<HHIHBB32s12sQQQII", metric, cpu, key, d, pid, 0, name, bus, cnt, s, mx, *extra) + \
        b"".join(struct.pack("<HH", i, n) for i, n in bk)
probes = [probe(0, 3, b"hardirq"), probe(1, 1, b"softirq"), probe(2, 3, b"block"),
          probe(3, 0, b"nic", b"no napi_poll", -2)]
recs = [rec(1, 0, 24, 0, b"virtio1-req.0", [(5000, 30)]), rec(1, 1, 30, 0, b"nvme0q1", [(2000, 500)]),
        rec(1, 1, 24, 0, b"virtio1-req.0", [(9000, 10)]), rec(2, 0, 3, 0, b"", [(1200, 80)]),
        rec(3, 0xffff, 254 << 20, 0, b"vda", [(150000, 40)]), rec(4, 0xffff, 254 << 20, 0, b"vda", [(8000, 40)]),
        rec(3, 0xffff, 254 << 20, 1, b"vda", [(300000, 5)]), rec(3, 0xffff, 259 << 20, 0, b"nvme0n1", [(90000, 500)])]
hdr = struct.pack("<QIIBBxxI", 2500000000, 0x0f, 0x07, len(probes), len(recs), 2)
put("kcapture", "hand-window", hdr + b"".join(probes) + b"".join(recs))
nic = [probe(3, 3, b"nic")]
nrecs = [rec(5, 0xffff, 2, 0, b"enp0s2", [(20000, 300)], b"0000:00:02.0"),
         rec(6, 0xffff, 2, 64, b"enp0s2", [(12, 300)], b"0000:00:02.0"),
         rec(7, 0xffff, 2, 0, b"enp0s2", [], b"0000:00:02.0", (1000, 900)),
         rec(7, 0xffff, 2, 0, b"enp0s3", [], b"0000:00:03.0", (5, 7))]
put("kcapture", "hand-nic", struct.pack("<QIIBBxxI", 1000000000, 0x08, 0x08, 1, len(nrecs), 4) + b"".join(nic) + b"".join(nrecs))
PY

# ---- drive identity: IDENTIFY blocks, VPD pages, wwid (fuzz_ata_identify.c: a decoder byte first)
for f in "$fx"/ata/*.identify; do
	{ printf '\x00'; cat "$f"; } | seed ata_identify "fx-identify-$(basename "$f" .identify)"
done
n=0
for f in "$fx"/ata/*.vpd_pg89 $(find "$fx" -name vpd_pg89 -path '*/sys/*'); do
	{ printf '\x01'; cat "$f"; } | seed ata_identify "fx-pg89-$n"
	n=$((n + 1))
done
for f in "$fx"/ata/*.vpd_pgb1 $(find "$fx" -name vpd_pgb1 -path '*/sys/*'); do
	{ printf '\x02'; cat "$f"; } | seed ata_identify "fx-pgb1-$n"
	n=$((n + 1))
done
for f in "$fx"/ata/*.vpd_pg83 $(find "$fx" -name vpd_pg83 -path '*/sys/*'); do
	{ printf '\x03'; cat "$f"; } | seed ata_identify "fx-pg83-$n"
	n=$((n + 1))
done
for f in $(find "$fx" -name wwid -path '*/sys/*'); do
	{ printf '\x04'; cat "$f"; } | seed ata_identify "fx-wwid-$n"
	n=$((n + 1))
done

# ---- hidden capacity: sense data, DCO pages, IDENTIFY + native max + DCO (fuzz_ata_capacity.c:
# a part byte first; tests/fixtures/ata/make-capacity.py made the answers)
for f in $(find "$fx/ata" -name '*.sense'); do
	{ printf '\x00'; cat "$f"; } | seed ata_capacity "fx-sense-$(basename "$(dirname "$f")")-$(basename "$f" .sense)"
done
for f in $(find "$fx/ata" -name 'dco_identify.data'); do
	{ printf '\x01'; cat "$f"; } | seed ata_capacity "fx-dco-$(basename "$(dirname "$f")")"
done
for d in sda sdb; do
	pg89=$(find "$fx/ata/hidden-overlay/sys" -path "*/block/$d" -prune -o -name vpd_pg89 -print |
		grep "$([ $d = sda ] && echo ata1 || echo ata2)/")
	{
		printf '\x02'
		tail -c 512 "$pg89"
		$py -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' \
			"$([ $d = sda ] && echo 0000000004a8b56f0101 || echo 000000002542eaaf0101)"
		cat "$fx/ata/hidden-overlay/dev/$d.ata/dco_identify.data"
	} | seed ata_capacity "fx-judge-$d"
done

# ---- ethtool netlink replies (fuzz_ethtool.c: 16-bit length, reply; in its parsers' order)
for dev in "$fx"/ethtool/*/; do
	[ -e "$dev/rtlink.bin" ] || continue
	for lm in linkmodes linkmodes-compact; do
		"$py" - "$dev" "$lm" <<'PY' | seed ethtool "fx-$(basename "$dev")-$lm"
import os, struct, sys
d, lm = sys.argv[1:]
out = b""
for q in (lm, "linkstate", "rings", "channels", "coalesce", "pause", "rtlink"):
    p = os.path.join(d, q + ".bin")
    b = open(p, "rb").read() if os.path.exists(p) else b""
    out += struct.pack("<H", len(b)) + b
sys.stdout.buffer.write(out)
PY
	done
done
"$py" - "$fx/ethtool/errors" <<'PY' | seed ethtool fx-errors-enodev
import struct, sys
lm = open(sys.argv[1] + "/enodev-linkmodes.bin", "rb").read()
rt = open(sys.argv[1] + "/enodev-rtlink.bin", "rb").read()
sys.stdout.buffer.write(b"".join(struct.pack("<H", len(b)) + b for b in (lm, lm, lm, lm, lm, lm, rt)))
PY

# ---- the inventory's readers over the QEMU tree (fuzz_inventory.c: a 16-bit file index first,
# the tree's regular files sorted by path as the harness lists them), one seed per file a decoder
# reads, cut to half
"$py" - "$fx/sysroot-qemu" "$corpus/inventory" <<'PY'
import os, struct, sys
root, out = sys.argv[1:]
files = []
for d, _, names in os.walk(root):
    files += [os.path.join(d, n) for n in names if n != ".keep" and os.path.isfile(os.path.join(d, n))
              and not os.path.islink(os.path.join(d, n))]
files.sort(key=lambda p: p.encode())
want = {"config", "raw", "vpd_pg80", "vpd_pg83", "vpd_pg89", "vpd_pgb1", "wwid", "max_link_speed",
        "current_link_speed", "max_link_width", "current_link_width", "sata_spd", "model", "serial",
        "speed", "address", "size", "meminfo", "cpuinfo", "product_uuid", "product_serial", "mountinfo"}
os.makedirs(out, exist_ok=True)
for i, p in enumerate(files):
    if os.path.basename(p) in want:
        rel = os.path.relpath(p, root).replace("/", "_")[-60:]
        # cut to half: the whole file would read as the tree does (no new coverage, dropped)
        data = open(p, "rb").read()
        open(f"{out}/fx-{i:03d}-{rel}", "wb").write(struct.pack("<H", i) + data[:len(data) // 2])
PY

# ---- the kernel log (fuzz_kmsg.c: a flag byte first: with the inventory, end known, cut)
for f in "$fx"/kmsg/*.kmsg; do
	{ printf '\x83'; cat "$f"; } | seed kmsg "fx-$(basename "$f" .kmsg)"
done
{ printf '\x00'; head -n 40 "$fx/kmsg/linux-6.1-formats.kmsg"; } | seed kmsg fx-formats-head-no-inventory
printf '\x03%s\n%s\n' '3,1,100,-;ata1.00: failed command: READ DMA' ' SUBSYSTEM=scsi' | seed kmsg hand-dictionary
printf '\x01%s' '6,2,18446744073709551615,-;\x5c\x0a\x00\xff' | seed kmsg hand-escapes-cut
# its dictionary: the literals the decoders match
"$py" - userland/decode/kmsg.c tests/fuzz/dict/kmsg.dict <<'PY'
import re, sys
lits = sorted(set(re.findall(r'"([ -!#-\[\]-~]{3,40})"', open(sys.argv[1]).read())))
with open(sys.argv[2], "w") as f:
    f.write("# /dev/kmsg records: the record syntax and the literals decode/kmsg.c matches\n"
            "# (written by tests/fuzz/make-seeds.sh)\n")
    for t in [",", ";", "\\x0a", "\\x5c", "\\x0a ", " SUBSYSTEM=", " DEVICE=", "3,", "4,", "6,"] + \
            [l for l in lits if "%" not in l]:
        f.write('"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"\n')
PY

# ---- reports: what the program writes from the fixture trees, with a step's
# load and probes from the harnesses' own JSON, then cut and damaged copies
for root in "$fx/sysroot-workstation" "$fx/sysroot-broken" "$fx/core/empty-root"; do
	name=$(basename "$root")
	"$OUT/probestick" --root "$root" run --plan quick --out "$tmp/r-$name" >/dev/null 2>&1 || true
	f=$(find "$tmp/r-$name" -name report.json | head -n1)
	[ -n "$f" ] && seed report "run-$name" <"$f"
done
FUZZ_DUMP=1 "$OUT/fuzz/fuzz_sampler" "$corpus/sampler/fx-box-8cpu" 2>/dev/null >"$tmp/load.json"
FUZZ_DUMP=1 "$OUT/fuzz/fuzz_kcapture" "$corpus/kcapture/hand-window" 2>/dev/null >"$tmp/probes.json"
seed_file report truncated "$fx/core/reports/truncated.json"
# The golden reports, with the probes' histogram buckets, and each step's kernel log records,
# load samples and interrupt lines, cut to four each (most of their size).
for f in full healthy-v2 nomodule-v2 nic-peer-v2; do
	"$py" - "$fx/core/reports/$f.json" <<'PY' | seed report "fx-$f"
import json, sys
CUT = ("buckets", "records", "samples", "lines")
def cut(o):
    if isinstance(o, dict):
        return {k: (cut(v[:4]) if k in CUT and isinstance(v, list) else cut(v)) for k, v in o.items()}
    return [cut(v) for v in o] if isinstance(o, list) else o
print(json.dumps(cut(json.load(open(sys.argv[1]))), separators=(",", ":")))
PY
done
"$py" - "$corpus/report" "$corpus/report/run-sysroot-workstation" "$tmp/load.json" "$tmp/probes.json" <<'PY'
import json, sys
out, base, load, probes = sys.argv[1:]
r = json.load(open(base))
step = r["steps"][0]
step["load"] = json.load(open(load))
step["probes"] = json.load(open(probes))
text = json.dumps(r)
open(f"{out}/run-with-load-probes", "w").write(text)
for frac in (3, 2):
    open(f"{out}/run-cut-{frac}", "w").write(text[: len(text) * (frac - 1) // frac])
# versions this probestick does not read: before the first, after the newest
small = json.load(open(f"{out}/run-empty-root"))
for v in (0, small["schema_version"] + 1):
    small["schema_version"] = v
    open(f"{out}/hand-schema-{v}", "w").write(json.dumps(small))
bad = {"hand-array": "[1, 2]", "hand-no-schema": '{"plan": "quick"}', "hand-extra": '{"schema_version": 1} {}',
       "hand-types": json.dumps({"schema_version": 1, "machine": [], "pcie": {}, "drives": [1, None, "x"],
                                 "nics": [{"mtu": "big", "carrier": 2}], "memory": {"dimms": {}},
                                 "steps": [{"name": 5, "load": [], "probes": {"available": True, "hardirq": []}}],
                                 "warnings": [None, 1], "coldplug": {"failed": "none"}})}
for k, v in bad.items():
    open(f"{out}/{k}", "w").write(v)
PY
printf '\x00\x01garbage\xff' | seed report hand-nul-garbage

# ---- what other hosts send the NIC steps (fuzz_net.c: a parser byte first), fsck.fat's output
printf '\0PSDISC1?\x11\x22\x33\x44\x55\x66\x77\x88' | seed net hand-request
printf '\1PSDISC1!\x11\x22\x33\x44\x55\x66\x77\x88name=525400500001\nversion=1.0\niperf=5201\necho=5210\nnbd=10809\nmtu=9000\nexport=probestick-ram\nexport_bytes=268435456\nexport_local_mbps=1234.5\nexport_kind=ram disk\naddr=198.51.100.1/24\naddr=169.254.230.221/16\n' | seed net hand-answer
printf '\1PSDISC1!\0\0\0\0\0\0\0\1iperf=70000\necho=-5\nnbd=1x\nmtu=12\naddr=192.0.2.7/99\nname=\x1b[2J\xff\n' | seed net hand-answer-odd
printf '\2lease ip=192.168.1.57 subnet=255.255.255.0 mask= router=192.168.1.1 192.168.1.2' | seed net hand-lease
printf '\3PSE1\x02\0\0\x07\0\0\x23\x28\0\0\x05\xdc' | seed net hand-echo
printf '\3\xff\xff\xff\xff\xff\xff\x52\x54\0\x12\x34\x56\x88\xb5PSPROBE1\x01\x02\x03\x04\x05\x06\x07\x08\0\x01' | seed net hand-probe-frame
printf '\4{"start":{},"end":{"sum_sent":{"bits_per_second":941000000,"retransmits":3},"sum_received":{"bits_per_second":940000000},"cpu_utilization_percent":{"host_total":12.5,"remote_total":30.1}}}' | seed net hand-iperf
printf '\4{"error":"unable to connect to server: Connection refused"}' | seed net hand-iperf-error
for f in "$fx"/fsck/*.txt; do seed_file fsck "$(basename "$f" .txt)" "$f"; done
printf 'fsck.fat 4.2 (2021-01-31)\nChecking file /REPORTS/\xff\x1b[2J (X)\nDirty bit is set.\n' | seed fsck hand-odd-name

# ---- smartctl -x --json=c: a transport byte (0 SATA, 1 NVMe, 2 SCSI, 3 USB, 4 virtio), the output
for f in "$fx"/smartctl/*.json /work/shared/fixtures/smartctl/*.json; do
	[ -e "$f" ] || continue
	case $(basename "$f") in
	*usb*) t='\x03' ;; *nvme*) t='\x01' ;; *scsi* | *megaraid*) t='\x02' ;; *virtio*) t='\x04' ;; *) t='\x00' ;;
	esac
	{
		printf "$t"
		cat "$f"
	} | seed smart "fx-$(basename "$f" .json)"
done
# the full plan (flag 0x08): -x, -t short, the polls; NVMe (0x01, 0x10: self-test announced) a log page
sm=$fx/smartctl
{
	printf '\x08'
	cat "$sm/qemu-ahci.json"
	printf '%s' "$sep"
	cat "$sm/qemu-ahci-selftest-start.json"
	printf '%s' "$sep"
	cat "$sm/qemu-ahci-selftest-done.json"
} | seed smart hand-full-ata-done
{
	printf '\x08'
	cat "$sm/qemu-ahci.json"
	printf '%s' "$sep"
	cat "$sm/qemu-ahci-selftest-start.json"
	printf '%s' "$sep"
	cat "$sm/qemu-ahci-selftest-start.json"
} | seed smart hand-full-ata-never-ends
for log in '\x00\x00\x00\x00\x10\x00\x00\x00\x10\x27' '\x01\x32\x00\x00\xff' \
	'\x00\x00\x00\x00\x17\x00\x02\x00\x10\x27\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x34\x12'; do
	{
		printf '\x19'
		cat "$sm/qemu-nvme-critical.json"
		printf '%s%s%s' "$sep" "$sep" "$sep"
		printf "$log"
	} | seed smart "hand-full-nvme-$(printf "$log" | sha1sum | cut -c1-8)"
done
"$py" - "$fx"/smartctl/*.json tests/fuzz/dict/smart.dict <<'PY'
import json, sys
names = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            names.add(k)
            walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
for f in sys.argv[1:-1]:
    try:
        walk(json.load(open(f)))
    except ValueError:
        pass
with open(sys.argv[-1], "w") as out:
    out.write("# smartctl -x --json=c: JSON tokens and the member names of tests/fixtures/smartctl\n"
              "# (written by tests/fuzz/make-seeds.sh)\n")
    for t in ['{', '}', '[', ']', ':', ',', 'null', 'true', 'false', '-1', '1e308', '\\"', '\\\\u0000',
              '\\\\u0001', '\\xff', '\\"ATA\\"', '\\"NVMe\\"', '\\"SCSI\\"']:
        out.write(f'"{t}"\n')
    for n in sorted(names):
        out.write(f'"\\"{n}\\":"\n')
PY

# ---- what an NBD server answers the net_storage step (big-endian, fixed newstyle),
# and an NVMe drive's Device Self-test log page (little-endian, 564 bytes)
"$py" - "$corpus" <<'PY'
import os, struct, sys
corpus = sys.argv[1]
def put(name, data, h="nbd"):
    os.makedirs(f"{corpus}/{h}", exist_ok=True)
    open(f"{corpus}/{h}/{name}", "wb").write(data)
greet = b"NBDMAGIC" + b"IHAVEOPT" + struct.pack(">H", 3)
def rep(typ, data=b"", opt=7):
    return struct.pack(">QIII", 0x3e889045565a9, opt, typ, len(data)) + data
ERR = 1 << 31
info = rep(3, struct.pack(">HQH", 0, 64 << 20, 0x0b)) + rep(3, struct.pack(">HIII", 3, 1, 4096, 1 << 25))
put("hand-go", greet + info + rep(1))
put("hand-unknown-export", greet + rep(6 | ERR, b"no such export"))
old = b"NBDMAGIC" + b"IHAVEOPT" + struct.pack(">H", 1)
put("hand-old-server", old + rep(1 | ERR) + struct.pack(">QH", 1 << 30, 3) + b"\0" * 124)
def dst(op, pct, entries):
    page = bytes([op, pct, 0, 0]) + b"".join(entries)
    return page + b"\xff" * (564 - len(page))  # unused entries: result 0xF
def entry(code, result, hours, lba=None):
    return struct.pack("<BBBBQIQBB2s", code << 4 | result, 1, 2 if lba is not None else 0, 0,
                       hours, 1, lba or 0, 0, 0, b"\0\0")
put("hand-running-short", dst(1, 40, [entry(1, 0, 1234)]), "nvme_dst")
put("hand-segment-failed", dst(0, 0, [entry(2, 7, 23456, 0x1d1c5970), entry(1, 0, 23400)]), "nvme_dst")
put("hand-never-run", dst(0, 0, []), "nvme_dst")
PY

# ---- the mce and aer probes' records (struct probestick_kc_record), AER counter files
"$py" - "$corpus" <<'PY'
import os, struct, sys
corpus = sys.argv[1]
BUCKETS = 528  # PROBESTICK_KC_BUCKETS
def rec(metric, cpu=0, key=0, dir=0, name=b"", count=1, sum=0, mx=0, extra0=1):
    r = struct.pack("<HHIII32s32sQQQQQ", metric, cpu, key, dir, 0, name, b"", count, sum, mx, extra0, 0)
    return r + b"\0" * (8 * BUCKETS)
def put(h, name, data):
    os.makedirs(f"{corpus}/{h}", exist_ok=True)
    open(f"{corpus}/{h}/{name}", "wb").write(data)
MCE, AER = 9, 8
put("mce", "hand-qemu-bank1", b"\x01" + rec(MCE, key=1, dir=0, sum=0x9400000000000090, mx=0x1234000))
put("mce", "hand-mixed", b"\x01" + rec(MCE, key=4, dir=1, sum=0xbe00000000800400) +
    rec(MCE, key=7, dir=3, sum=0x8c000040000010c2, extra0=12) + rec(MCE, key=2, sum=0xb200000000000911))
put("mce", "hand-not-captured", b"\x00")
sep = b"\n%%\n"
cor0 = b"RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n"
cor3 = b"RxErr 0\nBadTLP 2\nBadDLLP 0\nRollover 0\nTimeout 1\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 3\n"
nf0 = (b"Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\n"
       b"ECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\n"
       b"PoisonTLPBlocked 0\nTOTAL_ERR_NONFATAL 0\n")
nf1 = nf0.replace(b"CmpltTO 0", b"CmpltTO 1").replace(b"TOTAL_ERR_NONFATAL 0", b"TOTAL_ERR_NONFATAL 1")
fat0 = b"Undefined 0\nMalfTLP 0\nTOTAL_ERR_FATAL 0\n"
put("aer", "hand-corrected", sep.join([cor0, nf0, fat0, cor3, nf0, fat0]))
put("aer", "hand-nonfatal-event", sep.join([cor0, nf0, fat0, cor0, nf1, fat0]) + sep +
    rec(AER, dir=0, name=b"0000:00:1c.0", sum=0x4000, extra0=1) + rec(AER, dir=2, name=b"0000:00:1c.0", sum=0x41))
put("aer", "hand-totals-only", sep.join([b"TOTAL_ERR_COR 5\n", b"", b"", b"TOTAL_ERR_COR 9\n", b"", b""]))
put("aer", "hand-events-only", sep.join([b""] * 6) + sep + rec(AER, dir=1, name=b"0000:03:00.0", sum=0x40000))
PY
# dictionaries: libFuzzer's escapes are \xNN, \\ and \" only
d_sep='\x0a%%\x0a' d_at='\x0a%%\x0a@\x0a%%\x0a'
printf '# AER counter files: the kernel names (written by tests/fuzz/make-seeds.sh)\n' >tests/fuzz/dict/aer.dict
printf '"%s"\n' RxErr BadTLP BadDLLP Rollover Timeout NonFatalErr CorrIntErr HeaderOF TOTAL_ERR_COR \
	TOTAL_ERR_NONFATAL TOTAL_ERR_FATAL Undefined CmpltTO MalfTLP UnsupReq PoisonTLPBlocked "$d_sep" \
	' 18446744073709551615\x0a' >>tests/fuzz/dict/aer.dict

# ---- EDAC's mc/ and the sensors' hwmon, thermal_throttle, cpufreq and cpuinfo, as trees (fuzz_tree.h)
{
	printf 'mc0/mc_name\nSkylake Socket#0 IMC#0\n%s' "$sep"
	printf 'mc0/size_mb\n32768\n%smc0/ce_count\n1\n%smc0/ue_count\n0\n%s' "$sep" "$sep" "$sep"
	printf 'mc0/ce_noinfo_count\n0\n%smc0/ue_noinfo_count\n0\n%s' "$sep" "$sep"
	printf 'mc0/dimm0/dimm_label\nDIMM_A1\n%smc0/dimm0/dimm_location\nchannel 0 slot 0\n%s' "$sep" "$sep"
	printf 'mc0/dimm0/size\n16384\n%smc0/dimm0/dimm_mem_type\nRegistered-DDR4\n%s' "$sep" "$sep"
	printf 'mc0/dimm0/dimm_edac_mode\nSECDED\n%smc0/dimm0/dimm_ce_count\n1\n%s' "$sep" "$sep"
	printf 'mc0/dimm0/dimm_ue_count\n0\n%smc0/rank1/dimm_label\nCPU_SrcID#0_MC#0_Chan#1_DIMM#0\n%s' "$sep" "$sep"
	printf 'mc0/rank1/dimm_ce_count\n0\n%smc0/rank1/dimm_ue_count\n0\n%s@%s' "$sep" "$sep" "$sep"
	printf 'mc0/dimm0/dimm_ce_count\n4\n%smc0/rank1/dimm_ue_count\n1\n%smc0/ce_noinfo_count\n2\n' "$sep" "$sep"
} | seed edac hand-skx
printf 'mc1/ce_count\n0x10\n%smc1/ue_count\n-1\n%smc1/dimm3/dimm_ce_count\n18446744073709551615\n%s@%smc1/dimm3/dimm_ce_count\n0\n' \
	"$sep" "$sep" "$sep" "$sep" | seed edac hand-odd-counts
printf '# EDAC mc/ files (written by tests/fuzz/make-seeds.sh)\n' >tests/fuzz/dict/edac.dict
printf '"%s"\n' mc0/ mc1/ dimm0/ rank1/ 'mc_name\x0a' 'size_mb\x0a' 'ce_count\x0a' 'ue_count\x0a' \
	'ce_noinfo_count\x0a' 'ue_noinfo_count\x0a' 'dimm_label\x0a' 'dimm_location\x0a' 'size\x0a' \
	'dimm_mem_type\x0a' 'dimm_edac_mode\x0a' 'dimm_ce_count\x0a' 'dimm_ue_count\x0a' "$d_sep" "$d_at" \
	>>tests/fuzz/dict/edac.dict
{
	first=1
	for f in $(cd "$fx/sysroot-environment" && find sys/class/hwmon -type f | sort); do
		[ $first = 1 ] || printf '%s' "$sep"
		first=0
		printf '%s\n' "$f"
		cat "$fx/sysroot-environment/$f"
	done
} | seed sensors fx-environment
h=sys/class/hwmon c=sys/devices/system/cpu
{
	printf '%s/hwmon0/name\ncoretemp\n%s%s/hwmon0/temp1_label\nPackage id 0\n%s' "$h" "$sep" "$h" "$sep"
	printf '%s/hwmon0/temp1_input\n45000\n%s%s/hwmon0/temp1_max\n84000\n%s' "$h" "$sep" "$h" "$sep"
	printf '%s/hwmon0/temp1_crit\n100000\n%s%s/hwmon1/name\nnct6798\n%s' "$h" "$sep" "$h" "$sep"
	printf '%s/hwmon1/fan1_input\n1200\n%s%s/hwmon1/in0_input\n1096\n%s' "$h" "$sep" "$h" "$sep"
	printf '%s/hwmon1/in0_label\nVcore\n%s%s/hwmon2/device/temp1_input\n30000\n%s' "$h" "$sep" "$h" "$sep"
	for n in 0 1; do
		printf '%s/cpu%d/thermal_throttle/core_throttle_count\n0\n%s' "$c" $n "$sep"
		printf '%s/cpu%d/thermal_throttle/package_throttle_count\n7\n%s' "$c" $n "$sep"
		printf '%s/cpu%d/cpufreq/scaling_cur_freq\n3%d00000\n%s' "$c" $n $n "$sep"
	done
	printf '@%s%s/hwmon0/temp1_input\n101000\n%s%s/cpu1/thermal_throttle/core_throttle_count\n3\n' \
		"$sep" "$h" "$sep" "$c"
} | seed sensors hand-throttled
{
	printf '%s/cpu0/online\n1\n%s%s/cpu1/online\n1\n%s' "$c" "$sep" "$c" "$sep"
	printf 'proc/cpuinfo\nprocessor\t: 0\nmodel name\t: QEMU Virtual CPU\ncpu MHz\t\t: 2593.906\n\n'
	printf 'processor\t: 1\ncpu MHz\t\t: 800.000\n\n'
} | seed sensors hand-vm-cpuinfo
for f in "$fx"/*/proc/cpuinfo; do
	{
		printf '%s/cpu0/online\n1\n%sproc/cpuinfo\n' "$c" "$sep"
		cat "$f"
	} | seed sensors "fx-cpuinfo-$(sha1sum <"$f" | cut -c1-8)"
done
printf '# hwmon, CPU and cpuinfo files (written by tests/fuzz/make-seeds.sh)\n' >tests/fuzz/dict/sensors.dict
printf '"%s"\n' sys/class/hwmon/hwmon0/ sys/devices/system/cpu/cpu0/ \
	'thermal_throttle/core_throttle_count\x0a' 'thermal_throttle/package_throttle_count\x0a' \
	'cpufreq/scaling_cur_freq\x0a' 'proc/cpuinfo\x0a' 'processor\x09: ' 'cpu MHz\x09\x09: ' 'name\x0a' \
	'temp1_input\x0a' 'temp1_label\x0a' 'temp1_max\x0a' 'temp1_crit\x0a' 'fan1_input\x0a' 'in0_input\x0a' \
	'in0_min\x0a' 'in0_max\x0a' 'in0_alarm\x0a' 'fan1_min\x0a' 'fan1_alarm\x0a' \
	device/ "$d_sep" "$d_at" >>tests/fuzz/dict/sensors.dict

# ---- power (fuzz_power.c): the recorded RAPL zones, hand-made wraps and a VM, cpuinfo,
# wall readings, a Super I/O bus whose data port reads 0xd4 (an ID, 0xd4d4, no table knows)
for r in "$fx"/power/powercap/*; do
	{
		first=1
		for f in $(cd "$r" && find sys -type f | sort); do
			[ $first = 1 ] || printf '%s' "$sep"
			first=0
			printf '%s\n' "$f"
			cat "$r/$f"
		done
		# a minute later at 40 W on every zone
		for z in $(cd "$r/sys/class/powercap" && ls -d intel-rapl:*); do
			printf '%s' "$sep"
			[ "$z" = "$(cd "$r/sys/class/powercap" && ls -d intel-rapl:* | head -1)" ] && printf '@%s' "$sep"
			printf 'sys/class/powercap/%s/energy_uj\n%s\n' "$z" \
				$(($(cat "$r/sys/class/powercap/$z/energy_uj") + 40000000))
		done
		printf '%sdata.json\n{"drives": [{"name": "sda", "runs": [{"bs": 1048576, "mbps": 530.1}]}], "total": {"mbps": 20, "tx": 941}}\n' "$sep"
	} | seed power "fx-$(basename "$r")"
done
p=sys/class/powercap
{
	printf '%s/intel-rapl:0/name\npackage-0\n%s%s/intel-rapl:0/max_energy_range_uj\n262143328850\n%s' "$p" "$sep" "$p" "$sep"
	printf '%s/intel-rapl:0/energy_uj\n262143000000\n%s%s/intel-rapl:0:0/name\ndram\n%s' "$p" "$sep" "$p" "$sep"
	printf '%s/intel-rapl:0:0/max_energy_range_uj\n65712999613\n%s%s/intel-rapl:0:0/energy_uj\n5\n%s' "$p" "$sep" "$p" "$sep"
	printf '@%s%s/intel-rapl:0/energy_uj\n30000000\n%s%s/intel-rapl:0:0/energy_uj\n65712999613\n' "$sep" "$p" "$sep" "$p"
} | seed power hand-wrap
{
	printf '%s/.keep\n\n%sproc/cpuinfo\nprocessor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 15\n' "$p" "$sep"
	printf 'model\t\t: 107\nflags\t\t: fpu de pse tsc msr hypervisor lahf_lm\n\n%swall\n105 W\n' "$sep"
} | seed power hand-vm
{
	printf 'ports\n'
	# the data port (0x2f, modulo the length) reads 0xd4 whatever the register
	"$py" -c 'import sys; b = bytearray(b"\xff" * 0x30); b[0x2f] = 0xd4; sys.stdout.buffer.write(bytes(b))'
	printf '%swall\n98.5\n' "$sep"
} | seed power hand-superio
printf '# powercap, cpuinfo, wall and ports files (written by tests/fuzz/make-seeds.sh)\n' >tests/fuzz/dict/power.dict
printf '"%s"\n' sys/class/powercap/intel-rapl:0/ sys/class/powercap/intel-rapl:0:0/ \
	sys/class/powercap/intel-rapl-mmio:0/ 'name\x0a' 'energy_uj\x0a' 'max_energy_range_uj\x0a' \
	'package-0' dram core uncore psys 262143328850 65532610987 'proc/cpuinfo\x0a' 'vendor_id\x09: ' \
	'cpu family\x09: ' 'model\x09\x09: ' hypervisor GenuineIntel AuthenticAMD 'wall\x0a' 'ports\x0a' \
	'data.json\x0a' '"mbps": ' '"tx": ' "$d_sep" "$d_at" >>tests/fuzz/dict/power.dict

# ---- the links recorder's sysfs (fuzz_tree.h below sys/bus/pci/devices): the QEMU tree's functions
{
	first=1
	for d in "$fx"/sysroot-qemu/sys/bus/pci/devices/*; do
		a=$(basename "$d")
		for f in config current_link_speed current_link_width; do
			[ -f "$d/$f" ] || continue
			[ $first = 1 ] || printf '%s' "$sep"
			first=0
			printf '%s/%s\n' "$a" "$f"
			cat "$d/$f"
		done
	done
} | seed links fx-qemu
{
	printf '0000:00:1c.0/current_link_width\n4\n%s0000:00:1c.0/current_link_speed\n8.0 GT/s PCIe\n' "$sep"
	printf '%s@%s0000:00:1c.0/current_link_width\n1\n%s' "$sep" "$sep" "$sep"
	printf '0000:00:1c.0/current_link_speed\n2.5 GT/s PCIe\n'
} | seed links hand-width-drop
printf '# the links recorder files (written by tests/fuzz/make-seeds.sh)\n' >tests/fuzz/dict/links.dict
printf '"%s"\n' '0000:00:1c.0/' '0000:01:00.0/' 'config\x0a' 'current_link_speed\x0a' 'current_link_width\x0a' \
	'2.5 GT/s PCIe' '8.0 GT/s PCIe' '32.0 GT/s PCIe' 'Unknown' "$d_sep" "$d_at" >>tests/fuzz/dict/links.dict

# The report dictionary: every member name of the schema, and JSON's own tokens.
"$py" - docs/report-schema.json tests/fuzz/dict/report.dict <<'PY'
import json, sys
names = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "properties" and isinstance(v, dict):
                names.update(v.keys())
            walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(json.load(open(sys.argv[1])))
with open(sys.argv[2], "w") as f:
    f.write("# report.json: JSON tokens and every member name of docs/report-schema.json\n"
            "# (written by tests/fuzz/make-seeds.sh)\n")
    for t in ['{', '}', '[', ']', ':', ',', 'null', 'true', 'false', '-1', '1e308', '\\"', '\\\\u0000',
              '\\"schema_version\\": 1']:
        f.write(f'"{t}"\n')
    for n in sorted(names):
        f.write(f'"\\"{n}\\":"\n')
PY
du -sh "$corpus"
