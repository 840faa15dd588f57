#!/usr/bin/env bash
# Install, idempotently, every Debian package the build and the tests need,
# then fetch the kernel image that matches the installed kbuild headers.
# Usage: scripts/deps.sh CACHE_DIR
set -euo pipefail

cache=${1:?usage: deps.sh CACHE_DIR}

packages=(
	# build
	build-essential pkg-config libkmod-dev libjson-c-dev liburing-dev libmnl-dev libiperf-dev kmod
	linux-headers-amd64 linux-source-6.1 bc bison flex libelf-dev
	python3 python3-kconfiglib
	# initramfs and image
	busybox-static cpio zstd xz-utils syslinux syslinux-common mtools
	dosfstools fdisk grub-efi-amd64-bin grub-common
	# tests
	qemu-system-x86 ovmf seabios python3-jsonschema clang-format
	# tests/boot/test_module_cycle: ip netns in the guest (busybox ip has none)
	iproute2
	# make bench
	fio
)

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
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
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
