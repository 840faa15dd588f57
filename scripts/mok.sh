#!/usr/bin/env bash
# Machine-owner key (MOK) for probestick.ko under Secure Boot.
#   scripts/mok.sh key            create the key pair in PS_MOK_DIR unless it exists
#   scripts/mok.sh sign SRC DEST  copy the module SRC to DEST without its debug
#                                 sections, signed with that key
#                                 when it exists (unsigned otherwise: the build
#                                 never needs the key)
# PS_MOK_DIR (default ~/.config/probestick/mok) must be outside the clone: the
# private key is never committed and never goes on the stick. Only the public
# certificate, probestick-mok.der, does (image/build.sh), for shim's MokManager
# to enrol (README.md, "Secure Boot").
set -euo pipefail
cd "$(dirname "$0")/.."
PS_MOK_DIR=${PS_MOK_DIR:-$HOME/.config/probestick/mok}
KVER=${KVER:-$(scripts/kver.sh)}
key=$PS_MOK_DIR/probestick-mok.key
cert=$PS_MOK_DIR/probestick-mok.der

die() {
	echo "mok: $*" >&2
	exit 1
}

sign_file() {
	local f
	for f in "${KDIR:-/usr/src/linux-headers-$KVER}/scripts/sign-file" /usr/lib/linux-kbuild-"${KVER%%.*}".*/scripts/sign-file; do
		[ -x "$f" ] && echo "$f" && return 0
	done
	return 1
}

case ${1:-} in
key)
	top=$(pwd -P)
	dir=$(realpath -m "$PS_MOK_DIR")
	case $dir/ in "$top"/*) die "PS_MOK_DIR=$PS_MOK_DIR is inside the clone: put the key elsewhere (it must never be committed)" ;; esac
	mkdir -p "$dir"
	if [ -s "$key" ] && [ -s "$cert" ]; then
		echo "mok: using the key pair in $dir"
	else
		command -v openssl >/dev/null || die "openssl is missing (make deps)"
		# The extensions shim and the kernel want of a module-signing key.
		umask 077
		openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 36500 \
			-subj "/CN=probestick module key ($(hostname -s 2>/dev/null || echo host), $(date -u +%Y-%m-%d))/" \
			-addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=digitalSignature" \
			-addext "extendedKeyUsage=codeSigning" \
			-keyout "$key" -outform DER -out "$cert" 2>/dev/null ||
			die "openssl could not create the key pair in $dir"
		chmod 600 "$key"
		chmod 644 "$cert"
		echo "mok: created $key (private: keep it, never share or commit it) and $cert (public: goes on the stick)"
	fi
	openssl x509 -inform DER -in "$cert" -noout -subject -fingerprint -sha256 | sed 's/^/mok: /'
	;;
sign)
	src=${2:?usage: scripts/mok.sh sign SRC DEST} dst=${3:?usage: scripts/mok.sh sign SRC DEST}
	# The stick carries the module without its debug sections (2.3 MB -> 0.1 MB
	# in an initramfs that lives in RAM); kmod/probestick.ko keeps them.
	# Stripped before signing: the signature covers what is shipped.
	objcopy --strip-debug "$src" "$dst.tmp"
	if [ -s "$key" ] && [ -s "$cert" ]; then
		sf=$(sign_file) || die "the kernel's scripts/sign-file is missing (linux-headers-$KVER, make deps)"
		"$sf" sha256 "$key" "$cert" "$dst.tmp" || die "sign-file could not sign $dst with $key"
		echo "mok: signed $dst with $cert"
	fi
	mv "$dst.tmp" "$dst"
	;;
*) die "usage: scripts/mok.sh key | sign SRC DEST" ;;
esac
