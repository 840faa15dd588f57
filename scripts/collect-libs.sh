#!/usr/bin/env bash
# Copy Debian's libcurl and the shared libraries it needs that the
# initramfs does not hold already (those of the probestick program) into
# OUTDIR, each under its soname: what the collector loads when collect= is
# set (userland/collect/curl.c). The netboot tree carries them as
# collect.img, the stick in tools/collect/lib; a stick boot without a
# collector never loads them, so they cost its RAM nothing.
# Usage: scripts/collect-libs.sh PROBESTICK_BINARY OUTDIR
set -euo pipefail
bin=${1:?usage: collect-libs.sh PROBESTICK_BINARY OUTDIR}
out=${2:?usage: collect-libs.sh PROBESTICK_BINARY OUTDIR}
curl=/usr/lib/x86_64-linux-gnu/libcurl.so.4
[ -e "$curl" ] || { echo "collect-libs: $curl is missing (Debian package libcurl4; make deps)" >&2; exit 1; }

libs_of() { # FILE -> "soname path" per line
	LC_ALL=C ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
}
have=$(libs_of "$bin" | awk '{ print $1 }')
mkdir -p "$out"
cp -L "$curl" "$out/libcurl.so.4"
libs_of "$curl" | while read -r soname path; do
	grep -qxF "$soname" <<<"$have" && continue
	case $soname in ld-linux* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.*) continue ;; esac
	cp -L "$path" "$out/$soname"
done
