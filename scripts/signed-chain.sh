#!/usr/bin/env bash
# Debian's signed UEFI boot chain, from the packages make deps downloaded
# into CACHE/debs: shim (signed by Microsoft), MokManager, GRUB for a disk
# (the stick) and GRUB's netboot image (make netboot), each checked for its
# signature. Writes OUTDIR/shimx64.efi, mmx64.efi, grubx64.efi,
# grubnetx64.efi and OUTDIR/versions ("package=version" per line).
# Usage: scripts/signed-chain.sh CACHE OUTDIR
set -euo pipefail
cache=${1:?usage: signed-chain.sh CACHE OUTDIR}
out=${2:?usage: signed-chain.sh CACHE OUTDIR}
die() {
	echo "signed-chain: $*" >&2
	exit 1
}
mkdir -p "$out/x"
: >"$out/versions"
for pkg in shim-signed shim-helpers-amd64-signed grub-efi-amd64-signed; do
	deb=$cache/debs/$pkg.deb
	[ -s "$deb" ] || die "$deb is missing (make deps downloads Debian's signed boot chain)"
	dpkg-deb -x "$deb" "$out/x"
	echo "$pkg=$(dpkg-deb -f "$deb" Version)" >>"$out/versions"
done
cp "$out/x/usr/lib/shim/shimx64.efi.signed" "$out/shimx64.efi"
cp "$out/x/usr/lib/shim/mmx64.efi.signed" "$out/mmx64.efi"
cp "$out/x/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" "$out/grubx64.efi"
cp "$out/x/usr/lib/grub/x86_64-efi-signed/grubnetx64.efi.signed" "$out/grubnetx64.efi"
rm -rf "$out/x"
for f in shimx64.efi mmx64.efi grubx64.efi grubnetx64.efi; do
	sbverify --list "$out/$f" 2>/dev/null | grep -q '^signature 1' ||
		die "$f from Debian's packages has no signature (sbsigntool's sbverify)"
done
