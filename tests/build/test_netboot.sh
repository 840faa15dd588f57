#!/usr/bin/env bash
# make netboot's tree (scripts/netboot.sh) with a site's probestick.cfg and
# CA: the stick's own kernel and initramfs; every entry of the stick's
# menus in pxelinux's, GRUB's and the iPXE script, with the same words on
# the kernel command line but the stick's PARTUUID, and BOOTIF= and every
# initrd added; Debian's signed shim and GRUB netboot image, signatures
# intact; collect.img holding libcurl and each library it needs that the
# initramfs lacks; site.img holding the cfg (0600) and the CA; a manifest
# whose hashes match. And the program itself is not linked with libcurl
# (it loads it only with a collector), so a stick boot pays no RAM for it.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-out}
for f in "$OUT/vmlinuz" "$OUT/initramfs.img" "$OUT/probestick" "$OUT/host/gen_init_cpio"; do
	[ -e "$f" ] || { echo "skip: $f is missing (run make first)"; exit 77; }
done
for c in sbverify openssl zstd cpio; do
	command -v "$c" >/dev/null || { echo "skip: $c is not installed"; exit 77; }
done
[ -e /usr/lib/PXELINUX/pxelinux.0 ] || { echo "skip: pxelinux is not installed (scripts/deps.sh)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

printf 'plan=quick\nthen=poweroff\ncollect=https://collector.example/fleet/\ncollect_password=not-shown\n' >"$tmp/site.cfg"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=test CA" -keyout "$tmp/ca.key" \
	-out "$tmp/ca.pem" 2>/dev/null || { echo "FAIL: openssl"; exit 1; }
NETBOOT_CFG=$tmp/site.cfg NETBOOT_CA=$tmp/ca.pem NETBOOT_APPEND="quiet probestick.stream=serial" NETBOOT_ZSTD_LEVEL=3 \
	OUT=$OUT scripts/netboot.sh "$tmp/tree" >"$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: scripts/netboot.sh"; exit 1; }
t=$tmp/tree

cmp -s "$t/vmlinuz" "$OUT/vmlinuz" || fail "vmlinuz is not out/vmlinuz"
cmp -s "$t/initrd.img" "$OUT/initramfs.img" || fail "initrd.img is not out/initramfs.img"
for f in pxelinux.0 ldlinux.c32 cat.c32 menu.txt pxelinux.cfg/default bootx64.efi grubx64.efi mmx64.efi \
	grub/grub.cfg probestick.ipxe ipxe.efi undionly.kpxe collect.img site.img memtest86+x64.bin \
	memtest86+x64.efi manifest.json examples/dnsmasq.conf examples/nginx-site.conf examples/rsyslog-probestick.conf; do
	[ -s "$t/$f" ] || fail "$f is missing or empty"
done
for f in bootx64.efi grubx64.efi mmx64.efi; do
	sbverify --list "$t/$f" 2>/dev/null | grep -q '^signature 1' || fail "$f has no signature"
done

# The entries: the stick's titles, command lines without PARTUUID, plus BOOTIF and the initrds.
stick_titles=$(sed -n 's/^[[:space:]]*MENU LABEL //p' image/syslinux.cfg | sed 's/@SPEED@/115200/')
[ "$(sed -n 's/^[[:space:]]*MENU LABEL //p' "$t/pxelinux.cfg/default")" = "$stick_titles" ] ||
	fail "pxelinux's entries are not the stick's"
[ "$(sed -n 's/^item e[0-9]* //p' "$t/probestick.ipxe")" = "$stick_titles" ] ||
	fail "the iPXE script's entries are not the stick's"
grub_titles() { sed -n 's/^[[:space:]]*menuentry "\([^"]*\)".*/\1/p' "$1" | sed 's/@SPEED@/115200/'; }
[ "$(grub_titles "$t/grub/grub.cfg")" = "$(grub_titles image/grub.cfg)" ] || fail "GRUB's entries are not the stick's"
grep -q PARTUUID "$t/pxelinux.cfg/default" "$t/grub/grub.cfg" "$t/probestick.ipxe" &&
	fail "a netboot entry still names the stick's PARTUUID"
want_append=$(sed -n 's/^[[:space:]]*APPEND probestick.partuuid=@PARTUUID@ *//p' image/syslinux.cfg | sed 's/@SPEED@/115200/g')
have_append=$(sed -n 's/^[[:space:]]*APPEND \(.*\) quiet probestick.stream=serial$/\1/p; s/^[[:space:]]*APPEND quiet probestick.stream=serial$//p' "$t/pxelinux.cfg/default")
[ "$have_append" = "$want_append" ] || fail "pxelinux's command lines are not the stick's plus NETBOOT_APPEND: $have_append"
[ "$(grep -c 'IPAPPEND 2' "$t/pxelinux.cfg/default")" -eq 6 ] || fail "not every Linux entry of pxelinux has IPAPPEND 2 (BOOTIF=)"
[ "$(grep -c 'INITRD initrd.img,collect.img,site.img$' "$t/pxelinux.cfg/default")" -eq 6 ] || fail "pxelinux's entries do not load the three initrds"
[ "$(grep -c 'linux /vmlinuz BOOTIF=01-\$net_default_mac .*quiet probestick.stream=serial$' "$t/grub/grub.cfg")" -eq 6 ] ||
	fail "GRUB's Linux entries lack BOOTIF= or NETBOOT_APPEND"
[ "$(grep -c 'initrd /initrd.img /collect.img /site.img$' "$t/grub/grub.cfg")" -eq 6 ] || fail "GRUB's entries do not load the three initrds"
grep -q 'set args BOOTIF=01-${netX/mac:hexhyp} quiet probestick.stream=serial' "$t/probestick.ipxe" || fail "the iPXE script sets no BOOTIF="
[ "$(grep -c '^initrd site.img' "$t/probestick.ipxe")" -eq 6 ] || fail "the iPXE script's entries do not load site.img"

# collect.img: libcurl and what it needs beyond the initramfs; site.img: the cfg and the CA.
zstd -dc "$t/collect.img" | (mkdir -p "$tmp/c" && cd "$tmp/c" && cpio -idm --quiet) || fail "collect.img is not a zstd cpio"
[ -s "$tmp/c/usr/lib/probestick/collect/libcurl.so.4" ] || fail "collect.img has no libcurl.so.4"
have=$(LC_ALL=C ldd "$OUT/probestick" | awk '$2 == "=>" { print $1 }')
for lib in $(LC_ALL=C ldd /usr/lib/x86_64-linux-gnu/libcurl.so.4 | awk '$2 == "=>" { print $1 }'); do
	grep -qxF "$lib" <<<"$have" && continue
	case $lib in libc.so.* | libm.so.*) continue ;; esac
	[ -s "$tmp/c/usr/lib/probestick/collect/$lib" ] || fail "collect.img lacks $lib, which libcurl needs"
done
zstd -dc "$t/site.img" | (mkdir -p "$tmp/s" && cd "$tmp/s" && cpio -idm --quiet) || fail "site.img is not a zstd cpio"
cmp -s "$tmp/s/etc/probestick/probestick.cfg" "$tmp/site.cfg" || fail "site.img's probestick.cfg is not NETBOOT_CFG"
[ "$(zstd -dc "$t/site.img" | cpio -tv --quiet 2>/dev/null | awk '$NF == "etc/probestick/probestick.cfg" { print $1 }')" = "-rw-------" ] ||
	fail "site.img's probestick.cfg (it may hold a password) is not readable by root alone"
cmp -s "$tmp/s/etc/probestick/collector-ca.pem" "$tmp/ca.pem" || fail "site.img's collector-ca.pem is not NETBOOT_CA"

# The manifest names every file with its hash.
/usr/bin/python3 - "$t" <<'PY' || fail "manifest.json does not match the tree"
import hashlib, json, os, sys
t = sys.argv[1]
m = json.load(open(os.path.join(t, "manifest.json")))
names = sorted(os.path.relpath(os.path.join(d, f), t) for d, _, fs in os.walk(t) for f in fs)
names.remove("manifest.json")
assert sorted(m["files"]) == names, (sorted(m["files"]), names)
for n, e in m["files"].items():
    assert hashlib.sha256(open(os.path.join(t, n), "rb").read()).hexdigest() == e["sha256"], n
assert m["initrds"] == ["initrd.img", "collect.img", "site.img"], m["initrds"]
PY

# No libcurl in the program's own links: it costs a stick boot nothing.
LC_ALL=C ldd "$OUT/probestick" | grep -q libcurl && fail "out/probestick is linked with libcurl (it must load it only when collect= is set)"

echo "netboot: $(du -sh "$t" | cut -f1) tree, collect.img $(stat -c %s "$t/collect.img") bytes ($(du -sb "$tmp/c" | cut -f1) unpacked)"
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
