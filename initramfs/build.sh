#!/usr/bin/env bash
# Build the initramfs without root and reproducibly: a gen_init_cpio list
# (initramfs.list + generated entries), fixed mtime and owners, zstd -19.
# Usage: initramfs/build.sh OUTPUT.img
# Environment: OUT (inputs, default out), PS_CACHE, KVER, SOURCE_DATE_EPOCH
# (default: commit time of HEAD), PS_VERSION (default: git describe).
# The work tree (staged files, final list) is OUTPUT without its extension:
# out/initramfs.img keeps its list in out/initramfs/list.
set -euo pipefail
trap 'echo "initramfs: build.sh failed at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."

img=${1:?usage: initramfs/build.sh OUTPUT.img}
OUT=${OUT:-out}
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
KVER=${KVER:-$(scripts/kver.sh)}
work=${img%.img}
[ "$work" != "$img" ] || work=$img.d

die() {
	echo "initramfs: $*" >&2
	exit 1
}
note() { echo "initramfs: $*" >&2; }

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) ||
		die "SOURCE_DATE_EPOCH is unset and git cannot give HEAD's commit time"
fi
case $SOURCE_DATE_EPOCH in
'' | *[!0-9]*) die "SOURCE_DATE_EPOCH='$SOURCE_DATE_EPOCH' is not a number of seconds" ;;
esac
PS_VERSION=${PS_VERSION:-$(git describe --always --dirty 2>/dev/null || echo unknown)}

# ---------------------------------------------------------------- inputs --
config=$OUT/gen/config.mk
[ -s "$config" ] || die "$config is missing (make generates it from .config)"
# config.mk is make syntax: CONFIG_X=y, CONFIG_N=123, CONFIG_S="text".
config_value() {
	sed -n "s/^CONFIG_$1=//p" "$config" | tail -n 1
}

userland=$OUT/probestick
[ -x "$userland" ] || die "$userland is missing or not executable (make userland)"
kmod_ko=
if [ "$(config_value MODULE)" = y ]; then
	kmod_ko=$OUT/probestick.ko
	[ -s "$kmod_ko" ] || die "CONFIG_MODULE=y but $kmod_ko is missing (make module)"
fi
busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox is missing (Debian package busybox-static)"
# The static build: the dynamic one would drag in its libraries for nothing.
! LC_ALL=C ldd "$busybox" >/dev/null 2>&1 ||
	die "$busybox is dynamically linked: install busybox-static, not busybox"
kmods=$OUT/kernel/lib/modules/$KVER
[ -d "$kmods/kernel" ] || die "$kmods is missing (scripts/kernel.sh $KVER $PS_CACHE $OUT/kernel)"

# gen_init_cpio comes from the kernel source; only its one C file is needed.
gen_init_cpio=$OUT/host/gen_init_cpio
if [ ! -x "$gen_init_cpio" ]; then
	mkdir -p "$OUT/host"
	src=$PS_CACHE/linux-source-6.1/usr/gen_init_cpio.c
	if [ ! -s "$src" ]; then
		tarball=/usr/src/linux-source-6.1.tar.xz
		[ -s "$tarball" ] || die "neither $src nor $tarball exists (package linux-source-6.1)"
		note "extracting usr/gen_init_cpio.c from $tarball"
		src=$OUT/host/gen_init_cpio.c
		tar -xJOf "$tarball" linux-source-6.1/usr/gen_init_cpio.c >"$src.tmp"
		mv "$src.tmp" "$src"
	fi
	cc -O2 -o "$gen_init_cpio.tmp.$$" "$src"
	mv "$gen_init_cpio.tmp.$$" "$gen_init_cpio"
fi

rm -rf "$work"
mkdir -p "$work/root" "$work/gen"
root=$(cd "$work/root" && pwd)
entries=$work/gen/entries

# ------------------------------------------------------- userland, libs --
# A binary and its shared libraries the way initramfs-tools' copy_exec does:
# the real file under the path ldd names, plus a symlink for the soname.
add_file() { # NAME SOURCE MODE
	echo "file $1 $2 $3 0 0" >>"$entries"
}
add_slink() { # NAME TARGET
	echo "slink $1 $2 0777 0 0" >>"$entries"
}
add_exec() { # NAME SOURCE
	local name=$1 src=$2 out line lib real dir
	add_file "$name" "$src" 0755
	if ! out=$(LC_ALL=C ldd "$src" 2>&1); then
		case $out in
		*'not a dynamic executable'* | *'statically linked'*) return 0 ;;
		esac
		die "ldd $src failed: $out"
	fi
	while read -r line; do
		case $line in
		*'=> not found'*) die "$src needs ${line%% *}, which is not installed" ;;
		*'=> /'*) lib=${line#*=> } ;;
		/*) lib=$line ;;
		*) continue ;; # linux-vdso.so.1 and statically linked
		esac
		lib=${lib%% (*}
		real=$(readlink -f "$lib")
		dir=$(dirname "$lib")
		add_file "$dir/$(basename "$real")" "$real" 0755
		[ "$(basename "$real")" = "$(basename "$lib")" ] ||
			add_slink "$lib" "$(basename "$real")"
	done <<<"$out"
}

: >"$entries"
add_exec /usr/bin/probestick "$userland"
add_exec /bin/busybox "$busybox"

printf 'PS_VERSION=%s\nKVER=%s\nSOURCE_DATE_EPOCH=%s\n' "$PS_VERSION" "$KVER" "$SOURCE_DATE_EPOCH" \
	>"$work/gen/probestick-release"
add_file /etc/probestick-release "$work/gen/probestick-release" 0644

# ----------------------------------------------------------- kernel modules --
# Resolve the closure against the whole module tree (depmod on a shadow tree
# that links to out/kernel, so out/kernel stays as unpacked), then stage only
# the closure and run depmod there for modules.dep(.bin), modules.alias(.bin)...
mkdir -p "$work/modtree/lib/modules/$KVER"
modtree=$(cd "$work/modtree" && pwd) # modprobe prints absolute paths
ln -s "$(cd "$kmods/kernel" && pwd)" "$modtree/lib/modules/$KVER/kernel"
cp "$kmods/modules.order" "$kmods/modules.builtin" "$kmods/modules.builtin.modinfo" \
	"$modtree/lib/modules/$KVER/"
depmod -b "$modtree" "$KVER"

normalize() { tr '-' '_'; }
all_names=$(sed 's|.*/||; s|\.ko.*$||' "$kmods/modules.order" | normalize | sort -u)
builtin_names=$(sed 's|.*/||; s|\.ko.*$||' "$kmods/modules.builtin" | normalize | sort -u)

# Enabled families: ALWAYS plus every DRV_<F> that .config sets to y; every
# DRV_ family in config.mk must have a line in modules.conf.
families=ALWAYS
for f in $(sed -n 's/^CONFIG_\(DRV_[A-Z0-9_]*\)=y$/\1/p' "$config"); do
	grep -q "^${f}[[:space:]]" initramfs/modules.conf ||
		die "$f is enabled in .config but initramfs/modules.conf has no line for it"
	families="$families $f"
done

wanted=() dropped=()
for f in $families; do
	for word in $(sed -n "s/^${f}[[:space:]]\+//p" initramfs/modules.conf); do
		word=$(normalize <<<"$word")
		case $word in
		!*) dropped+=("${word#!}") ;;
		*[*?[]*)
			matched=0
			for n in $all_names; do
				# shellcheck disable=SC2254 # $word is a glob on purpose
				case $n in $word) wanted+=("$n") matched=1 ;; esac
			done
			[ $matched = 1 ] || die "modules.conf: $f: no module matches '$word'"
			;;
		*) wanted+=("$word") ;;
		esac
	done
done

closure=$work/gen/modules
: >"$closure"
for name in $(printf '%s\n' "${wanted[@]}" | sort -u); do
	for d in "${dropped[@]}"; do [ "$name" != "$d" ] || continue 2; done
	if grep -qx "$name" <<<"$builtin_names"; then
		note "module $name is built into $KVER: nothing to copy"
		continue
	fi
	grep -qx "$name" <<<"$all_names" ||
		die "modules.conf names '$name', which kernel $KVER does not have"
	deps=$(modprobe -d "$modtree" -S "$KVER" --show-depends "$name" 2>&1) ||
		die "cannot resolve the dependencies of $name: $deps"
	sed -n "s|^insmod $modtree/lib/modules/$KVER/\([^ ]*\).*|\1|p" <<<"$deps" >>"$closure"
done
sort -u -o "$closure" "$closure"
[ -s "$closure" ] || die "no module resolved from modules.conf (modprobe -d $modtree gave no insmod lines)"

mdir=$root/lib/modules/$KVER
mkdir -p "$mdir"
while read -r rel; do
	mkdir -p "$mdir/$(dirname "$rel")"
	cp "$kmods/$rel" "$mdir/$rel"
done <"$closure"
# modules.order keeps the kernel's order so depmod writes modules.dep the same way.
grep -Fxf "$closure" "$kmods/modules.order" >"$mdir/modules.order"
if [ -n "$kmod_ko" ]; then
	mkdir -p "$mdir/extra"
	cp "$kmod_ko" "$mdir/extra/probestick.ko"
	echo extra/probestick.ko >>"$mdir/modules.order"
fi
cp "$kmods/modules.builtin" "$kmods/modules.builtin.modinfo" "$mdir/"
depmod -b "$root" "$KVER"
(cd "$root" && find lib/modules -type f) | sort | while read -r rel; do
	add_file "/$rel" "$root/$rel" 0644
done

# ------------------------------------------------------------ busybox links --
# Every applet gets a link, except where the list already ships a file under
# that path or a program of the same name in another bin directory.
template=initramfs/initramfs.list
shipped_bins=$( (grep -hE '^(file|slink) ' "$template" "$entries" || true) |
	awk '$2 ~ /^\/(usr\/)?s?bin\// { n = $2; sub(/.*\//, "", n); print n }' | sort -u)
shipped_paths=$( (grep -hE '^(file|slink|dir|nod|pipe|sock) ' "$template" "$entries" || true) |
	awk '{ print $2 }' | sort -u)
for applet in $("$busybox" --list-full); do
	name=/$applet
	grep -qxF "$name" <<<"$shipped_paths" && continue
	grep -qxF "$(basename "$name")" <<<"$shipped_bins" && continue
	add_slink "$name" /bin/busybox
done

# ------------------------------------------------------------ final list --
# Template + generated entries; every parent directory gets an entry; every
# file is staged under the work tree with the fixed mtime (gen_init_cpio takes
# a file's mtime from the file, -t only covers dirs, nodes and links).
list=$work/list
all=$work/gen/all
grep -vE '^[[:space:]]*(#|$)' "$template" | cat - "$entries" >"$all"

dup=$(awk '{ print $2 }' "$all" | sort | uniq -d)
if [ -n "$dup" ]; then
	for n in $dup; do
		[ "$(awk -v n="$n" '$2 == n' "$all" | sort -u | wc -l)" -eq 1 ] ||
			die "two different entries for $n: $(awk -v n="$n" '$2 == n' "$all" | tr '\n' ';')"
	done
fi

awk '{ print $2 }' "$all" | LC_ALL=C sort -u >"$work/gen/names"
while read -r name; do
	d=${name%/*}
	while [ -n "$d" ]; do
		echo "$d"
		d=${d%/*}
	done
done <"$work/gen/names" | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$work/gen/names" |
	sed 's/.*/dir & 0755 0 0/' | cat - "$all" | LC_ALL=C sort -u >"$work/gen/merged"

while read -r type name rest; do
	if [ "$type" = file ]; then
		read -r src mode uid gid <<<"$rest"
		staged=$root$name
		if [ "$src" != "$staged" ]; then
			mkdir -p "$(dirname "$staged")"
			cp "$src" "$staged"
		fi
		echo "file $name $staged $mode $uid $gid"
	else
		echo "$type $name $rest"
	fi
done <"$work/gen/merged" | LC_ALL=C sort -k2,2 >"$list"

find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

"$gen_init_cpio" -t "$SOURCE_DATE_EPOCH" "$list" >"$work/initramfs.cpio"
zstd -19 -q --no-progress -f -o "$img.tmp" "$work/initramfs.cpio"
mv "$img.tmp" "$img"

nfiles=$(grep -c '^file ' "$list")
nmods=$(grep -c '^file .*\.ko ' "$list")
printf 'initramfs: %s: %d bytes (cpio %d bytes, %d entries, %d files, %d modules), mtime %s\n' \
	"$img" "$(stat -c %s "$img")" "$(stat -c %s "$work/initramfs.cpio")" \
	"$(wc -l <"$list")" "$nfiles" "$nmods" "$SOURCE_DATE_EPOCH"
