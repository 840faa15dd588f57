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
# The initramfs lives in RAM for the whole run: the program goes in without
# its debug sections (out/probestick keeps them), 3.5 -> 1 MB.
objcopy --strip-debug "$userland" "$work/gen/probestick"
add_exec /usr/bin/probestick "$work/gen/probestick"
add_exec /bin/busybox "$busybox"
# Server mode exports a RAM disk with Debian's nbd-server (and its libraries).
nbd_server=/usr/bin/nbd-server
[ -x "$nbd_server" ] || die "$nbd_server is missing (Debian package nbd-server; make deps)"
add_exec /usr/bin/nbd-server "$nbd_server"
# Programs of the list ("exec NAME SOURCE"): each with its libraries, as above.
while read -r kind name src; do
	[ "$kind" = exec ] || continue
	[ -x "$src" ] || die "initramfs.list: $src is missing or not executable (make deps installs it)"
	add_exec "$name" "$src"
done < <(grep -E '^exec[[:space:]]' initramfs/initramfs.list)
# dosfstools' checker: /init checks the stick with it before mounting it.
fsck_fat=$(command -v fsck.fat || true)
[ -n "$fsck_fat" ] || die "fsck.fat is missing (Debian package dosfstools)"
add_exec /sbin/fsck.fat "$(readlink -f "$fsck_fat")"

# pci.ids for the inventory's device names: libpci reads it gzip-compressed,
# which keeps it small in RAM too (gzip -n: no name or time, reproducible).
pciids=/usr/share/misc/pci.ids
[ -s "$pciids" ] || die "$pciids is missing (Debian package pci.ids)"
gzip -9 -n -c "$pciids" >"$work/gen/pci.ids.gz"
add_file /usr/share/misc/pci.ids.gz "$work/gen/pci.ids.gz" 0644

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
enabled=" ALWAYS "
for f in $(sed -n 's/^CONFIG_\(DRV_[A-Z0-9_]*\)=y$/\1/p' "$config"); do
	grep -q "^${f}[[:space:]]" initramfs/modules.conf ||
		die "$f is enabled in .config but initramfs/modules.conf has no line for it"
	enabled+="$f "
done

# Every family, enabled or not, resolved to module names: "NAME FAMILY y|n|x"
# (x: dropped by a !name), so that the drivers step can tell which family
# would have brought a driver this image lacks.
families=$work/gen/families
: >"$families"
dropped=()
for f in $(awk '!/^[[:space:]]*(#|$)/ && !seen[$1]++ { print $1 }' initramfs/modules.conf); do
	on=n
	case $enabled in *" $f "*) on=y ;; esac
	for word in $(sed -n "s/^${f}[[:space:]]\+//p" initramfs/modules.conf); do
		word=$(normalize <<<"$word")
		case $word in
		!*)
			echo "${word#!} $f x" >>"$families"
			[ $on = n ] || dropped+=("${word#!}")
			;;
		*[*?[]*)
			matched=0
			for n in $all_names; do
				# shellcheck disable=SC2254 # $word is a glob on purpose
				case $n in $word)
					echo "$n $f $on" >>"$families"
					matched=1
					;;
				esac
			done
			[ $matched = 1 ] || die "modules.conf: $f: no module matches '$word'"
			;;
		*)
			grep -qx "$word" <<<"$all_names$(printf '\n%s' $builtin_names)" ||
				die "modules.conf: $f names '$word', which kernel $KVER does not have"
			echo "$word $f $on" >>"$families"
			;;
		esac
	done
done
for d in "${dropped[@]}"; do
	sed -i "/^$d [A-Z0-9_]* y\$/d" "$families"
done

# The closure of the enabled families' modules; "PATH FAMILY" in modfam says
# which family brought each module (a dependency: the family of what needs it).
closure=$work/gen/modules modfam=$work/gen/module-families
: >"$closure"
: >"$modfam"
for name in $(awk '$3 == "y" { print $1 }' "$families" | sort -u); do
	if grep -qx "$name" <<<"$builtin_names"; then
		note "module $name is built into $KVER: nothing to copy"
		continue
	fi
	deps=$(modprobe -d "$modtree" -S "$KVER" --show-depends "$name" 2>&1) ||
		die "cannot resolve the dependencies of $name: $deps"
	rels=$(sed -n "s|^insmod $modtree/lib/modules/$KVER/\([^ ]*\).*|\1|p" <<<"$deps")
	[ -n "$rels" ] || continue
	echo "$rels" >>"$closure"
	for fam in $(awk -v n="$name" '$1 == n && $3 == "y" { print $2 }' "$families"); do
		sed "s/\$/ $fam/" <<<"$rels" >>"$modfam"
	done
done
sort -u -o "$closure" "$closure"
sort -u -o "$modfam" "$modfam"
[ -s "$closure" ] || die "no module resolved from modules.conf (modprobe -d $modtree gave no insmod lines)"

mdir=$root/lib/modules/$KVER
mkdir -p "$mdir"
# The kernel's modules go in xz-compressed as the kernel's own module
# compression makes them (CONFIG_MODULE_COMPRESS_XZ: CRC32, 1 MiB dictionary):
# the initramfs is unpacked into RAM and stays there, and 38 MB of modules
# became 8 MB (issue 29: a 256 MiB UEFI machine could not unpack it at all).
# Debian's 6.1 kernel cannot decompress a module itself, so libkmod (the
# coldplug, and kmod's modprobe, shipped for /init) decompresses it in memory
# and hands it to init_module, signature and all.
while read -r rel; do
	mkdir -p "$mdir/$(dirname "$rel")"
	xz -T1 --check=crc32 --lzma2=dict=1MiB -c "$kmods/$rel" >"$mdir/$rel.xz"
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

# --------------------------------------------------------------- firmware --
# The files the included drivers name, from the Debian packages of their
# family (initramfs/firmware.conf, CONFIG_FIRMWARE_*); $work/firmware.json
# lists every named file, shipped (package, licence, hash) or left out (why),
# for the image's manifest and the drivers step.
fwlist=$(/usr/bin/python3 initramfs/firmware.py "$modfam" "$kmods" "$config" initramfs/firmware.conf \
	"$PS_CACHE/debs" "$OUT/debs" "$root" "$work/firmware.json") || die "the firmware could not be staged"
for rel in $fwlist; do
	add_file "/$rel" "$root/$rel" 0644
done
nfw=$(wc -w <<<"$fwlist")

# What the drivers step reads to name a device without a driver and say why.
for f in /usr/share/misc/pci.ids /usr/share/misc/usb.ids; do
	[ -s "$f" ] || die "$f is missing (packages pci.ids and usb.ids; make deps)"
done
for rel in $(/usr/bin/python3 initramfs/drivers-data.py "$root" "$modtree/lib/modules/$KVER/modules.alias" \
	/usr/share/misc/pci.ids /usr/share/misc/usb.ids "$families" "$work/firmware.json"); do
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
grep -vE '^[[:space:]]*(#|$)|^exec[[:space:]]' "$template" | cat - "$entries" >"$all"

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
# PS_ZSTD_LEVEL: tests that build throw-away initramfs images use a fast level.
zstd "-${PS_ZSTD_LEVEL:-19}" -q --no-progress -f -o "$img.tmp" "$work/initramfs.cpio"
mv "$img.tmp" "$img"

nfiles=$(grep -c '^file ' "$list")
nmods=$(grep -cE '^file .*\.ko(\.xz)? ' "$list")
printf 'initramfs: %s: %d bytes (cpio %d bytes, %d entries, %d files, %d modules, %d firmware files), mtime %s\n' \
	"$img" "$(stat -c %s "$img")" "$(stat -c %s "$work/initramfs.cpio")" \
	"$(wc -l <"$list")" "$nfiles" "$nmods" "$nfw" "$SOURCE_DATE_EPOCH"
