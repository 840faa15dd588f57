#!/usr/bin/env bash
# make netboot: the tree a DHCP/TFTP (and HTTP) server serves so that a rack
# boots the stick's kernel and initramfs with the stick's boot entries, no
# stick needed. Usage: scripts/netboot.sh OUTDIR
# Environment: OUT (inputs, default out), PS_CACHE (Debian's signed boot
# chain), NETBOOT_CFG (a probestick.cfg for every machine: collect=, plan=,
# then=, credentials; goes into site.img, read before a stick's cfg and the
# command line), NETBOOT_CA (the collector's CA certificate, PEM: into
# site.img as /etc/probestick/collector-ca.pem), NETBOOT_APPEND (words added
# to every entry's kernel command line), SOURCE_DATE_EPOCH.
#
# The tree (README "A fleet"):
#   pxelinux.0 ldlinux.c32 ... pxelinux.cfg/default   BIOS (PXE): syslinux's
#       menu, the entries of image/syslinux.cfg, BOOTIF= from IPAPPEND 2
#   bootx64.efi grubx64.efi mmx64.efi grub/grub.cfg    UEFI, Secure Boot on:
#       Debian's signed shim, which loads Debian's signed GRUB netboot image
#       beside it, which reads grub/grub.cfg: the entries of image/grub.cfg
#   probestick.ipxe (and ipxe.efi, undionly.kpxe)       iPXE, over HTTP or TFTP
#   vmlinuz initrd.img     the stick's own kernel and initramfs, unchanged
#   collect.img            libcurl and its libraries (the collector's sender)
#   site.img               NETBOOT_CFG and NETBOOT_CA, when given
#   memtest86+x64.bin/.efi, manifest.json, examples/ (dnsmasq, nginx, rsyslog)
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
dst=${1:?usage: scripts/netboot.sh OUTDIR}
OUT=${OUT:-out}
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
case $dst in /*) ;; *) dst=$top/$dst ;; esac

die() {
	echo "netboot: $*" >&2
	exit 1
}

vmlinuz=$OUT/vmlinuz initrd=$OUT/initramfs.img bin=$OUT/probestick config=$OUT/gen/config.mk
for f in "$vmlinuz" "$initrd" "$bin" "$config"; do
	[ -s "$f" ] || die "$f is missing (make builds it)"
done
gen_init_cpio=$OUT/host/gen_init_cpio
[ -x "$gen_init_cpio" ] || die "$gen_init_cpio is missing (initramfs/build.sh builds it)"
pxelinux=/usr/lib/PXELINUX/pxelinux.0
bios_mods=/usr/lib/syslinux/modules/bios
for f in "$pxelinux" "$bios_mods/ldlinux.c32" "$bios_mods/cat.c32" "$bios_mods/libcom32.c32" \
	"$bios_mods/libutil.c32" /usr/lib/ipxe/ipxe.efi /usr/lib/ipxe/undionly.kpxe \
	/boot/memtest86+x64.bin /boot/memtest86+x64.efi; do
	[ -s "$f" ] || die "$f is missing (scripts/deps.sh: pxelinux, syslinux-common, ipxe, memtest86+)"
done
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || echo 0)
fi
export SOURCE_DATE_EPOCH
version=$(git describe --always --dirty 2>/dev/null || echo unknown)
config_value() {
	local v
	v=$(sed -n "s/^$1=//p" "$config" | tail -n 1)
	v=${v#\"}
	echo "${v%\"}"
}
speed=$(config_value CONFIG_SERIAL_SPEED)
timeout=$(config_value CONFIG_BOOT_TIMEOUT)
speed=${speed:-115200} timeout=${timeout:-5}
[[ $speed =~ ^[0-9]+$ && $timeout =~ ^[0-9]+$ ]] || die "serial speed '$speed' or timeout '$timeout' is not a number"
append=${NETBOOT_APPEND:-}
case $append in *'"'* | *'|'* | *'&'* | *'\'*) die "NETBOOT_APPEND holds a quote, '|', '&' or '\\'" ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/probestick-netboot.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/tree
mkdir -p "$tree/pxelinux.cfg" "$tree/grub" "$tree/examples"

# ------------------------------------------------------------- the images --
cp "$vmlinuz" "$tree/vmlinuz"
cp "$initrd" "$tree/initrd.img"
cp /boot/memtest86+x64.bin /boot/memtest86+x64.efi "$tree/"

# An initrd of our own files (reproducible: one mtime, owner 0:0), as
# initramfs/build.sh makes the main one. cpio DEST "NAME SOURCE MODE"...
cpio_img() {
	local dest=$1 list=$work/list.$$ stage=$work/stage.$RANDOM name src mode d
	shift
	mkdir -p "$stage"
	: >"$list"
	for e in "$@"; do
		read -r name src mode <<<"$e"
		d=$(dirname "$name")
		while [ "$d" != / ]; do
			echo "dir $d 0755 0 0" >>"$list"
			d=$(dirname "$d")
		done
		mkdir -p "$stage$(dirname "$name")"
		cp "$src" "$stage$name"
		echo "file $name $stage$name $mode 0 0" >>"$list"
	done
	find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	LC_ALL=C sort -u -k2,2 "$list" -o "$list"
	"$gen_init_cpio" -t "$SOURCE_DATE_EPOCH" "$list" | zstd "-${NETBOOT_ZSTD_LEVEL:-19}" -q -c >"$dest"
}

libs=$work/collect-libs
scripts/collect-libs.sh "$bin" "$libs"
entries=()
for f in "$libs"/*; do
	entries+=("/usr/lib/probestick/collect/$(basename "$f") $f 0755")
done
cpio_img "$tree/collect.img" "${entries[@]}"
initrds=(initrd.img collect.img)

site=()
if [ -n "${NETBOOT_CFG:-}" ]; then
	[ -s "$NETBOOT_CFG" ] || die "NETBOOT_CFG=$NETBOOT_CFG is missing or empty"
	# It may hold the collector's password: readable by root alone in the machine.
	site+=("/etc/probestick/probestick.cfg $NETBOOT_CFG 0600")
fi
if [ -n "${NETBOOT_CA:-}" ]; then
	openssl x509 -in "$NETBOOT_CA" -noout 2>/dev/null ||
		die "NETBOOT_CA=$NETBOOT_CA is not a PEM certificate"
	site+=("/etc/probestick/collector-ca.pem $NETBOOT_CA 0644")
fi
if [ ${#site[@]} -gt 0 ]; then
	cpio_img "$tree/site.img" "${site[@]}"
	initrds+=(site.img)
fi

# ---------------------------------------------------------- BIOS: pxelinux --
# The stick's entries (image/syslinux.cfg): no PARTUUID (no stick to find
# first), paths relative to pxelinux.0, every initrd, BOOTIF= of the port.
cp "$pxelinux" "$bios_mods/ldlinux.c32" "$bios_mods/cat.c32" "$bios_mods/libcom32.c32" \
	"$bios_mods/libutil.c32" "$tree/"
# Each Linux entry: no PARTUUID, NETBOOT_APPEND, every initrd, IPAPPEND 2.
awk -v speed="$speed" -v tds="$((timeout > 0 ? timeout * 10 : 1))" -v initrds="$(
	IFS=,
	echo "${initrds[*]}"
)" -v append="$append" '
	NR == 1 { print "# pxelinux: the stick'"'"'s entries (image/syslinux.cfg), made by scripts/netboot.sh" }
	/^[ \t]*#/ { next }
	{ gsub(/@SPEED@/, speed); gsub(/@TIMEOUT_DS@/, tds) }
	$1 == "LABEL" { linux = 0 }
	$1 == "LINUX" && $2 == "/vmlinuz" { linux = 1 }
	$1 == "UI" || $1 == "F1" { gsub(/\/syslinux\//, "") }
	$1 == "LINUX" { sub(/ \//, " ") }
	$1 == "APPEND" && linux {
		sub(/probestick.partuuid=@PARTUUID@ */, "")
		if (append != "")
			$0 = $0 " " append
	}
	$1 == "INITRD" { print "\tINITRD " initrds; print "\tIPAPPEND 2"; next }
	{ print }' image/syslinux.cfg >"$tree/pxelinux.cfg/default"
grep -q '@' "$tree/pxelinux.cfg/default" && die "image/syslinux.cfg has a field this script does not fill"
{
	printf '\n  probestick %s (BIOS, network) - type a number and Enter\n\n' "$version"
	awk '$1 == "LABEL" { n = $2 } $1 == "MENU" && $2 == "LABEL" { sub(/^[ \t]*MENU LABEL /, ""); printf "    %s  %s\n", n, $0 }' \
		"$tree/pxelinux.cfg/default"
	printf '\n  1 starts in %s s; any key stops the count. F1 shows this list again.\n' "$timeout"
} >"$tree/menu.txt"

# ---------------------------------------------- UEFI: shim and GRUB netboot --
# Debian's signed shim loads grubx64.efi from the folder it came from; the
# signed GRUB netboot image reads grub/grub.cfg from the TFTP root. Under
# Secure Boot it boots Debian's signed kernel, as on the stick.
efi=$work/efi
scripts/signed-chain.sh "$PS_CACHE" "$efi" || die "Debian's signed boot chain is not there"
cp "$efi/shimx64.efi" "$tree/bootx64.efi"
cp "$efi/mmx64.efi" "$tree/mmx64.efi"
cp "$efi/grubnetx64.efi" "$tree/grubx64.efi"
grub_initrds=$(printf ' /%s' "${initrds[@]}")
sed -e "s|@SPEED@|$speed|g" -e "s|@TIMEOUT@|$timeout|g" \
	-e 's|probestick.partuuid=@PARTUUID@ *||' \
	-e "s|^\([[:space:]]*linux /vmlinuz\)\(.*\)|\1 BOOTIF=01-\$net_default_mac\2${append:+ $append}|" \
	-e "s|initrd /initrd.img|initrd$grub_initrds|" \
	-e '/^[[:space:]]*#/d' image/grub.cfg >"$tree/grub/grub.cfg"
grep -q '@' "$tree/grub/grub.cfg" && die "image/grub.cfg has a field this script does not fill"

# ------------------------------------------------------------------- iPXE --
# For fleets that boot iPXE (or chain into it: ipxe.efi, undionly.kpxe from
# Debian's package): the same entries, fetched relative to the script's URL.
cp /usr/lib/ipxe/ipxe.efi /usr/lib/ipxe/undionly.kpxe "$tree/"
awk -v initrds="${initrds[*]}" -v speed="$speed" -v timeout="$timeout" -v append="$append" -v version="$version" '
	BEGIN {
		n = split(initrds, ird, " ")
		print "#!ipxe"
		print "# probestick " version ": the stick'\''s boot entries (scripts/netboot.sh from"
		print "# image/syslinux.cfg). Chain to it: chain http://SERVER/PATH/probestick.ipxe"
		print "set args BOOTIF=01-${netX/mac:hexhyp}" (append == "" ? "" : " " append)
		print "menu probestick " version " (network) || goto e1"
	}
	$1 == "LABEL" { label = $2 }
	$1 == "MENU" && $2 == "LABEL" { sub(/^[ \t]*MENU LABEL /, ""); title[label] = $0; order[++count] = label }
	$1 == "APPEND" { sub(/^[ \t]*APPEND /, ""); sub(/probestick.partuuid=@PARTUUID@ */, ""); gsub(/@SPEED@/, speed); args[label] = $0 }
	$1 == "LINUX" { kernel[label] = $2; sub(/^\//, "", kernel[label]) }
	END {
		for (i = 1; i <= count; i++) {
			l = order[i]; t = title[l]; gsub(/@SPEED@/, speed, t)
			print "item e" l " " t
		}
		print "choose --default e1 --timeout " timeout * 1000 " entry || goto e1"
		print "goto ${entry}"
		for (i = 1; i <= count; i++) {
			l = order[i]
			print ":e" l
			if (kernel[l] ~ /memtest/) {
				print "iseq ${platform} efi && goto e" l "efi ||"
				print "kernel " kernel[l] " " args[l] " || goto failed"
				print "boot || goto failed"
				print ":e" l "efi"
				print "chain memtest86+x64.efi " args[l] " || goto failed"
				continue
			}
			# initrd= names them for the kernel'"'"'s EFI stub (iPXE on UEFI); BIOS ignores it
			names = ""
			for (k = 1; k <= n; k++)
				names = names " initrd=" ird[k]
			print "kernel " kernel[l] names " ${args} " args[l] " || goto failed"
			for (k = 1; k <= n; k++)
				print "initrd " ird[k] " || goto failed"
			print "boot || goto failed"
		}
		print ":failed"
		print "echo probestick: the boot failed; a shell follows (exit: reboot)"
		print "shell"
	}' image/syslinux.cfg >"$tree/probestick.ipxe"

# --------------------------------------------------------------- examples --
cp docs/fleet/* "$tree/examples/"

# --------------------------------------------------------------- manifest --
(cd "$tree" && find . -type f ! -name manifest.json -printf '%P\n' | LC_ALL=C sort |
	while read -r f; do
		printf '%s %s %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "$f"
	done) >"$work/files"
/usr/bin/python3 - "$work/files" "$tree/manifest.json" "$version" "$SOURCE_DATE_EPOCH" "${initrds[*]}" <<'PY'
import json, sys
files = {}
for line in open(sys.argv[1]):
    h, size, name = line.rstrip("\n").split(" ", 2)
    files[name] = {"sha256": h, "size": int(size)}
doc = {"probestick_version": sys.argv[3], "source_date_epoch": int(sys.argv[4]),
       "initrds": sys.argv[5].split(), "files": files}
with open(sys.argv[2], "w") as f:
    json.dump(doc, f, indent=2, sort_keys=True)
    f.write("\n")
PY
find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

rm -rf "$dst.tmp"
mkdir -p "$(dirname "$dst")"
cp -a "$tree" "$dst.tmp"
rm -rf "$dst"
mv "$dst.tmp" "$dst"
echo "netboot: $dst: $(du -sh "$dst" | cut -f1), initrds ${initrds[*]} ($(stat -c %s "$dst/collect.img") bytes of collect.img)"
