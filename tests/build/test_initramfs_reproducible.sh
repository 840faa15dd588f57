#!/usr/bin/env bash
# Same inputs give the same initramfs bytes: build it twice from one snapshot
# of the inputs, into different work directories and with the inputs' own
# mtimes changed in between, and compare the sha256 of the two images.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
KVER=${KVER:-$(scripts/kver.sh)}

config=$OUT/gen/config.mk
need=("$config" "$OUT/probestick" "$OUT/kernel/lib/modules/$KVER/modules.order")
grep -q '^CONFIG_MODULE=y$' "$config" 2>/dev/null && need+=("$OUT/probestick.ko")
for f in "${need[@]}"; do
	if [ ! -e "$f" ]; then
		echo "skip: $f is missing (run make first)"
		exit 77
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A snapshot, so that a rebuild of out/ by someone else cannot change the
# inputs between the two builds; the kernel tree is large and read-only here.
snap=$tmp/in
mkdir -p "$snap/gen"
cp "$config" "$snap/gen/config.mk"
cp "$OUT/probestick" "$snap/probestick"
[ ! -e "$OUT/probestick.ko" ] || cp "$OUT/probestick.ko" "$snap/probestick.ko"
ln -s "$(cd "$OUT/kernel" && pwd)" "$snap/kernel"
[ ! -x "$OUT/host/gen_init_cpio" ] || { mkdir -p "$snap/host" && cp "$OUT/host/gen_init_cpio" "$snap/host/"; }

# zstd at level 3, not the image's 19: the cpio archive is where reproducibility
# is won or lost, single-threaded zstd is deterministic at every level, and 19
# costs about a minute of CPU per build.
export PS_ZSTD_LEVEL=${PS_ZSTD_LEVEL:-3}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
export PS_VERSION=${PS_VERSION:-$(git describe --always --dirty 2>/dev/null || echo unknown)}

OUT=$snap initramfs/build.sh "$tmp/a/initramfs.img"
touch -d '2001-02-03 04:05:06' "$snap/probestick" "$snap/gen/config.mk" "$snap"/probestick.ko 2>/dev/null || true
OUT=$snap initramfs/build.sh "$tmp/b/other-name.img"

a=$(sha256sum <"$tmp/a/initramfs.img" | cut -d' ' -f1)
b=$(sha256sum <"$tmp/b/other-name.img" | cut -d' ' -f1)
echo "first:  $a"
echo "second: $b"
if [ "$a" != "$b" ]; then
	echo "FAIL: two builds from the same inputs differ"
	cmp "$tmp/a/initramfs/initramfs.cpio" "$tmp/b/other-name/initramfs.cpio" | head -1 || true
	diff <(sed "s|$tmp/a/initramfs/|WORK/|" "$tmp/a/initramfs/list") \
		<(sed "s|$tmp/b/other-name/|WORK/|" "$tmp/b/other-name/list") | head -20 || true
	exit 1
fi
echo "identical: $(stat -c %s "$tmp/a/initramfs.img") bytes"
