#!/usr/bin/env bash
# Install, idempotently, every Debian package the build and the tests need,
# then fetch the kernel image that matches the installed kbuild headers.
# Usage: scripts/deps.sh CACHE_DIR
set -euo pipefail

cache=${1:?usage: deps.sh CACHE_DIR}

packages=(
	# build
	build-essential pkg-config libkmod-dev libjson-c-dev liburing-dev libmnl-dev libiperf-dev kmod
	# PCIe device names: libpci and pci.ids (both in the image)
	libpci-dev pci.ids
	linux-headers-amd64 linux-source-6.1 bc bison flex libelf-dev
	python3 python3-kconfiglib
	# initramfs and image
	busybox-static cpio zstd xz-utils syslinux syslinux-common mtools
	dosfstools fdisk
	# the signed boot chain and the kernel are checked for their signatures
	sbsigntool
	# make mok: the key pair and sign-file (from linux-headers) need openssl
	openssl
	# the drivers step: device names and the full kernel's module aliases
	pci.ids usb.ids libzstd-dev
	# server mode's NBD export (copied into the initramfs)
	nbd-server
	# tests
	qemu-system-x86 ovmf seabios python3-jsonschema clang-format
	# tests/fuzz: libFuzzer harnesses (clang-14 with ASan, UBSan and the fuzzer runtime)
	clang clang-14 libclang-rt-14-dev
	# tests/build/test_html_browser.sh: report.html in a real browser, headless
	chromium
	# tests/boot/test_module_cycle: ip netns in the guest (busybox ip has none)
	iproute2
	# make known: tests/known/tcg-site-rewrite drives QEMU's gdbstub
	gdb
	# steps/smart: smartctl and its drive database go into the initramfs
	smartmontools
	# steps/array: mdadm goes into the initramfs (md RAID on scratch drives)
	mdadm
	# steps/disk_write: what a scratch drive holds (libblkid)
	libblkid-dev
	# tests/boot/test_platform: lspci and dmidecode in the guest, beside the report
	pciutils dmidecode
	# tests/boot/test_nic_ethtool: Debian's ethtool in the guest, beside the NIC steps
	ethtool
	# make bench; interop tests against Debian's iperf3 (client and server)
	fio iperf3
	# make bench: the memory reference (likwid-bench's stream kernels; stress-ng otherwise)
	likwid stress-ng
	# image/build.sh: memtest86+ (BIOS .bin and UEFI .efi in /boot) on the stick's boot menus
	memtest86+
	# the collector's sender (userland/collect/): libcurl's headers to build, Debian's libcurl
	# and its libraries into the netboot tree's collect.img and the stick's tools/collect
	libcurl4-openssl-dev libcurl4
	# make netboot: pxelinux for BIOS PXE, iPXE (ipxe.efi, undionly.kpxe); the signed shim
	# and GRUB netboot image come from the debs below
	pxelinux ipxe
	# make fleet-test: DHCP/TFTP, the collector (WebDAV) and the syslog receiver (RFC 5425)
	dnsmasq-base nginx rsyslog rsyslog-gnutls
)

# Debian's firmware for the NICs and HBAs of the driver families lives in the
# non-free-firmware component (and a little in main): add that component for
# the same archive and suite as main, once, in a file of our own.
fw_sources=/etc/apt/sources.list.d/probestick-non-free-firmware.sources
if ! apt-cache policy 2>/dev/null | grep -q '/non-free-firmware amd64 Packages'; then
	. /etc/os-release
	uri=$(apt-cache policy 2>/dev/null |
		sed -n "s|^ *[0-9]* \([a-z]*://[^ ]*\) $VERSION_CODENAME/main amd64 Packages\$|\1|p" | head -n 1)
	if [ -z "$uri" ]; then
		echo "deps: no apt source for $VERSION_CODENAME/main: cannot add non-free-firmware next to it" >&2
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: the non-free-firmware component is not in apt's sources and adding it needs root" >&2
		exit 1
	fi
	echo "deps: adding $uri $VERSION_CODENAME non-free-firmware to apt ($fw_sources)"
	printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free-firmware\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" "$VERSION_CODENAME" >"$fw_sources"
	apt-get update -qq
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: these packages are missing and installing them needs root: ${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# nginx, rsyslog (and dnsmasq's package, were it the full one) start their service
	# when installed: the fleet test runs its own in a namespace of its own, so nothing
	# of theirs is started on this machine's interfaces (policy-rc.d: "101, not now").
	policy=/usr/sbin/policy-rc.d own_policy=
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\n# scripts/deps.sh: no service starts while it installs\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		own_policy=1
		trap 'rm -f "$policy"' EXIT
	fi
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
	[ -z "$own_policy" ] || { rm -f "$policy"; trap - EXIT; }
fi

# The image kernel is exactly the version of the headers the module builds
# against: linux-headers-amd64 names the ABI, its version pins the package.
kver=$(scripts/kver.sh)
hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
mkdir -p "$cache"
deb="$cache/linux-image-${kver}_${hver}_amd64.deb"
if [ ! -s "$deb" ]; then
	echo "deps: fetching linux-image-$kver=$hver"
	(cd "$cache" && apt-get download -q "linux-image-$kver=$hver" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
	if [ ! -s "$deb" ]; then
		echo "deps: linux-image-$kver version $hver (the headers' version) is not in the archive;" >&2
		echo "deps: run 'apt-get update' and upgrade linux-headers-amd64 so both match" >&2
		exit 1
	fi
fi

# Packages the image takes files from but that are never installed here:
# the signed boot chain (shim, MokManager, GRUB) and the firmware packages
# that initramfs/firmware.conf names. Each is downloaded at the version apt
# offers into $cache/debs, and $cache/debs/<package>.deb points at it, so a
# build uses exactly one version of each (the manifest records it).
debs=(shim-signed shim-helpers-amd64-signed grub-efi-amd64-signed)
mapfile -t -O ${#debs[@]} debs < <(sed -e 's/#.*//' initramfs/firmware.conf | awk 'NF > 1 { for (i = 2; i <= NF; i++) print $i }' | sort -u)
mkdir -p "$cache/debs"
# Asking apt costs a second: only when its lists changed since the last check.
all_there=1
for p in "${debs[@]}"; do [ -e "$cache/debs/$p.deb" ] || all_there=0; done
if [ $all_there = 1 ] && [ -e "$cache/debs/.checked" ] && [ ! /var/lib/apt/lists -nt "$cache/debs/.checked" ] &&
	[ ! initramfs/firmware.conf -nt "$cache/debs/.checked" ]; then
	exit 0
fi
want=$(apt-cache policy "${debs[@]}" 2>/dev/null | awk '/^[^ ].*:$/ { p = substr($1, 1, length($1) - 1) } /^  Candidate:/ { print p, $2 }')
for p in "${debs[@]}"; do
	v=$(awk -v p="$p" '$1 == p { print $2 }' <<<"$want")
	if [ -z "$v" ] || [ "$v" = "(none)" ]; then
		echo "deps: package $p is not in apt's sources (is non-free-firmware in them? apt-get update)" >&2
		exit 1
	fi
	f=$(find "$cache/debs" -maxdepth 1 -name "${p}_${v//:/%3a}_*.deb" | head -n 1)
	if [ -z "$f" ]; then
		echo "deps: fetching $p=$v"
		(cd "$cache/debs" && apt-get download -q "$p=$v" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
		f=$(find "$cache/debs" -maxdepth 1 -name "${p}_${v//:/%3a}_*.deb" | head -n 1)
		[ -n "$f" ] || { echo "deps: apt-get download $p=$v failed" >&2; exit 1; }
	fi
	[ "$(readlink "$cache/debs/$p.deb" 2>/dev/null)" = "$(basename "$f")" ] ||
		ln -sfn "$(basename "$f")" "$cache/debs/$p.deb"
done
touch "$cache/debs/.checked"
