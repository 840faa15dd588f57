#!/usr/bin/env bash
# Unpack Debian's kernel image package (vmlinuz and modules) for the image,
# after checking that it is exactly the version of the kbuild headers.
# Usage: scripts/kernel.sh KVER CACHE_DIR OUTDIR
set -euo pipefail
kver=${1:?usage: kernel.sh KVER CACHE OUTDIR} cache=${2:?} out=${3:?}

hver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
deb="$cache/linux-image-${kver}_${hver}_amd64.deb"
if [ ! -s "$deb" ]; then
	echo "kernel: $deb is missing (make deps fetches it)" >&2
	exit 1
fi
iver=$(dpkg-deb -f "$deb" Version)
if [ "$iver" != "$hver" ]; then
	echo "kernel: image package $iver does not match headers $hver: the module would not load" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out"
dpkg-deb -x "$deb" "$out"
test -s "$out/boot/vmlinuz-$kver"
test -d "$out/lib/modules/$kver/kernel"
# The UEFI path boots through shim with Secure Boot on: the kernel must carry
# Debian's signature (linux-image-$kver from linux-signed-amd64, not -unsigned).
if ! sbverify --list "$out/boot/vmlinuz-$kver" 2>/dev/null | grep -q '^signature 1'; then
	echo "kernel: $out/boot/vmlinuz-$kver has no Authenticode signature: Secure Boot would refuse it." >&2
	echo "kernel: use Debian's signed linux-image-$kver (remove $deb; make deps fetches it again)" >&2
	exit 1
fi
echo "$hver" >"$out/version"
