#!/usr/bin/env bash
# make mok (issue 11): scripts/mok.sh makes a key pair outside the clone (and
# refuses a directory inside it), signs probestick.ko with it (the kernel's
# sign-file: modinfo names the signer), leaves it unsigned without a key;
# image/build.sh puts the public certificate, never the private key, on the
# stick, names it in manifest.json, and the UEFI menu offers MokManager.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-out}
for f in kmod/probestick.ko "$OUT/initramfs.img" "$OUT/vmlinuz" "$OUT/gen/config.mk"; do
	[ -s "$f" ] || { echo "skip: $f is missing (run make first)"; exit 77; }
done
command -v openssl >/dev/null || { echo "skip: openssl is missing (make deps)"; exit 77; }
command -v mdir >/dev/null || { echo "skip: mtools is missing (make deps)"; exit 77; }
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

PS_MOK_DIR=$PWD/$OUT/mok-test scripts/mok.sh key >"$tmp/inside.out" 2>&1 && bad "mok.sh made a key inside the clone"
[ ! -e "$OUT/mok-test" ] || bad "mok.sh created $OUT/mok-test inside the clone"

export PS_MOK_DIR=$tmp/none
scripts/mok.sh sign kmod/probestick.ko "$tmp/unsigned.ko" >/dev/null || bad "mok.sh sign without a key failed"
[ -z "$(modinfo -F signer "$tmp/unsigned.ko" 2>/dev/null)" ] || bad "the module was signed without a key"

export PS_MOK_DIR=$tmp/mok
scripts/mok.sh key >"$tmp/key.out" 2>&1 || { cat "$tmp/key.out"; bad "mok.sh key failed"; }
[ "$(stat -c %a "$PS_MOK_DIR/probestick-mok.key" 2>/dev/null)" = 600 ] || bad "the private key is not mode 600"
fp=$(openssl x509 -inform DER -in "$PS_MOK_DIR/probestick-mok.der" -noout -fingerprint -sha256 2>/dev/null)
scripts/mok.sh key >/dev/null 2>&1 || bad "mok.sh key failed the second time"
[ "$fp" = "$(openssl x509 -inform DER -in "$PS_MOK_DIR/probestick-mok.der" -noout -fingerprint -sha256)" ] ||
	bad "a second make mok replaced the key (machines that enrolled it would refuse the module)"
scripts/mok.sh sign kmod/probestick.ko "$tmp/signed.ko" >/dev/null || bad "mok.sh sign failed"
signer=$(modinfo -F signer "$tmp/signed.ko" 2>/dev/null)
case $signer in "probestick module key"*) ;; *) bad "modinfo -F signer says '$signer'" ;; esac
[ "$(modinfo -F sig_hashalgo "$tmp/signed.ko")" = sha256 ] || bad "not signed with sha256"
echo "signed: $signer ($(stat -c %s kmod/probestick.ko) -> $(stat -c %s "$tmp/signed.ko") bytes)"

image/build.sh "$tmp/stick.img" >"$tmp/image.out" 2>&1 || { tail -5 "$tmp/image.out"; bad "image/build.sh failed"; }
if [ -s "$tmp/stick.img" ]; then
	mdir -b -i "$tmp/stick.img@@1M" ::/ >"$tmp/ls" 2>&1
	grep -q '^::/probestick-mok.der$' "$tmp/ls" || bad "no /probestick-mok.der on the stick"
	mdir -b -s -i "$tmp/stick.img@@1M" ::/ 2>/dev/null | grep -qi '\.key$' && bad "a private key is on the stick"
	mcopy -n -i "$tmp/stick.img@@1M" ::/probestick-mok.der "$tmp/on-stick.der" &&
		cmp -s "$tmp/on-stick.der" "$PS_MOK_DIR/probestick-mok.der" || bad "the stick's certificate is not make mok's"
	mcopy -n -i "$tmp/stick.img@@1M" ::/manifest.json "$tmp/manifest.json"
	/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); c=m.get("mok_certificate") or {}; sys.exit(0 if c.get("file")=="probestick-mok.der" and "probestick module key" in (c.get("subject") or "") else 1)' \
		"$tmp/manifest.json" || bad "manifest.json does not name the certificate"
	mcopy -n -i "$tmp/stick.img@@1M" ::/EFI/debian/grub.cfg "$tmp/grub.cfg" &&
		grep -q 'chainloader /EFI/BOOT/mmx64.efi' "$tmp/grub.cfg" || bad "the UEFI menu has no MokManager entry"
	mdir -b -i "$tmp/stick.img@@1M" ::/EFI/BOOT/ 2>/dev/null | grep -qi 'mmx64.efi$' || bad "no MokManager (EFI/BOOT/mmx64.efi) on the stick"
fi
[ $fail -eq 0 ] && echo "ok: make mok's key, signature and certificate"
exit $fail
