#!/usr/bin/env bash
# make bench: boots out/vmlinuz with out/initramfs.img plus a bench cpio (fio,
# null_blk, tests/bench/init) in QEMU and prints the probes-overhead figures.
# Environment: OUT (default out), BENCH_RUNS (6), BENCH_SECONDS (5),
# BENCH_FIO (1; 0 skips fio), BENCH_FIO_MAX_MB (200: larger fio closures are skipped),
# BENCH_CLOCK (tsc; hpet leaves the guest's clock source as TCG makes it).
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=${OUT:-out}
KVER=${KVER:-$(scripts/kver.sh)}
runs=${BENCH_RUNS:-6}
seconds=${BENCH_SECONDS:-5}
want_fio=${BENCH_FIO:-1}
fio_max_mb=${BENCH_FIO_MAX_MB:-200}
work=$OUT/bench
log=$work/serial.log

die() {
	echo "bench: $*" >&2
	exit 1
}
note() { echo "bench: $*" >&2; }

case $runs$seconds in *[!0-9]* | '') die "BENCH_RUNS and BENCH_SECONDS take whole numbers" ;; esac
for f in "$OUT/vmlinuz" "$OUT/initramfs.img" "$OUT/probestick.ko" "$OUT/probestick"; do
	[ -s "$f" ] || die "$f is missing (make bench builds it)"
done
kmods=$OUT/kernel/lib/modules/$KVER
[ -d "$kmods/kernel" ] || die "$kmods is missing (scripts/kernel.sh)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed (scripts/deps.sh)"

# Minutes in QEMU are wasted if the command is broken: a few seconds on the host first.
tests/bench/selftest.sh "$OUT/probestick" || die "the host self-test of 'probestick bench' failed"

rm -rf "$work"
mkdir -p "$work/root/bench"
root=$work/root

# ---------------------------------------------------------------- modules --
# The image's module tree plus null_blk and what it needs; depmod over the
# union, and the later archive's modules.* files replace the image's ones.
mods=$work/mods
mkdir -p "$mods"
zstd -dc "$OUT/initramfs.img" | (cd "$mods" && cpio -idm --quiet 'lib/modules/*')
[ -d "$mods/lib/modules/$KVER" ] || die "$OUT/initramfs.img holds no lib/modules/$KVER"
mdir=$mods/lib/modules/$KVER
add_module() { # NAME: copy it and, first, its dependencies from the kernel tree
	local name=$1 rel dep
	rel=$(grep -E "(^|/)$name\.ko(\.[a-z]+)?$" "$kmods/modules.order" | head -n 1) ||
		die "kernel $KVER has no module $name"
	[ -e "$mdir/$rel" ] && return 0
	for dep in $(modinfo -F depends "$kmods/$rel" | tr ',' ' '); do
		add_module "$dep"
	done
	mkdir -p "$mdir/$(dirname "$rel")" "$root/lib/modules/$KVER/$(dirname "$rel")"
	cp "$kmods/$rel" "$mdir/$rel"
	cp "$kmods/$rel" "$root/lib/modules/$KVER/$rel"
	echo "$rel" >>"$mdir/modules.order"
}
add_module null_blk
# The module as built now, whether or not .config put it in the image.
mkdir -p "$mdir/extra" "$root/lib/modules/$KVER/extra"
cp "$OUT/probestick.ko" "$mdir/extra/probestick.ko"
cp "$OUT/probestick.ko" "$root/lib/modules/$KVER/extra/probestick.ko"
grep -qx extra/probestick.ko "$mdir/modules.order" || echo extra/probestick.ko >>"$mdir/modules.order"
depmod -b "$mods" "$KVER"
cp "$mdir"/modules.* "$root/lib/modules/$KVER/"

# -------------------------------------------------------------------- fio --
# fio and its libraries where ldd finds them (librbd, libceph-common: ~85 MB).
fio_note=
stage_exec() { # PATH
	local src=$1 line lib real
	mkdir -p "$root$(dirname "$src")"
	cp "$src" "$root$src"
	while read -r line; do
		case $line in
		*'=> not found'*) return 1 ;;
		*'=> /'*) lib=${line#*=> } ;;
		/*) lib=$line ;;
		*) continue ;;
		esac
		lib=${lib%% (*}
		real=$(readlink -f "$lib")
		mkdir -p "$root$(dirname "$lib")"
		cp "$real" "$root$(dirname "$lib")/$(basename "$real")"
		[ "$(basename "$real")" = "$(basename "$lib")" ] ||
			ln -sf "$(basename "$real")" "$root$lib"
	done < <(LC_ALL=C ldd "$src")
}
fio=$(command -v fio || true)
if [ "$want_fio" = 0 ]; then
	fio_note="fio skipped (BENCH_FIO=0)"
elif [ -z "$fio" ]; then
	fio_note="fio is not installed on the host (scripts/deps.sh installs it): our engine only"
else
	mb=$(LC_ALL=C ldd "$fio" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p' | xargs readlink -f |
		xargs du -cb "$fio" | tail -n 1 | awk '{ print int($1 / 1048576) }')
	if [ "$mb" -gt "$fio_max_mb" ]; then
		fio_note="fio with its libraries is $mb MB, above BENCH_FIO_MAX_MB=$fio_max_mb: skipped"
	elif ! stage_exec "$fio"; then
		fio_note="fio needs a library that is not installed: skipped"
		rm -f "$root$fio"
	else
		note "fio and its libraries: $mb MB"
	fi
fi
[ -z "$fio_note" ] || note "$fio_note"

# ---------------------------------------------------------------- initrd --
install -m 0755 tests/bench/init "$root/bench/init"
# A second compressed cpio after the image's own: the kernel unpacks both in
# turn, so the image's files stay as built and ours are added or replace.
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	zstd -3 -q -T2 >"$work/bench.cpio.zst"
cat "$OUT/initramfs.img" "$work/bench.cpio.zst" >"$work/initrd.img"
note "initrd: $(($(stat -c %s "$work/initrd.img") >> 20)) MB ($OUT/initramfs.img + bench $(($(stat -c %s "$work/bench.cpio.zst") >> 20)) MB)"

# ------------------------------------------------------------------ boot --
tools=2
[ -z "$fio_note" ] || tools=1
# Boot and fio's start under TCG are slow; a run costs its seconds plus a margin.
limit=$((240 + runs * 2 * tools * (seconds + 20)))
# The probes read the clock at every event. TCG's CPU model has no invariant
# TSC, so the guest would pick hpet, whose every read is an emulated device
# access costing microseconds; real machines read the TSC. BENCH_CLOCK=hpet
# keeps the guest's own choice.
clock="clocksource=tsc tsc=reliable"
[ "${BENCH_CLOCK:-tsc}" = tsc ] || clock=
fio_flag=1
[ -z "$fio_note" ] || fio_flag=0
qemu=(qemu-system-x86_64 -M q35 -accel tcg -m 1024 -smp 2 -nographic -nodefaults -no-reboot
	-monitor none -serial "file:$log" -nic none
	-kernel "$OUT/vmlinuz" -initrd "$work/initrd.img"
	-append "console=ttyS0 rdinit=/bench/init panic=-1 loglevel=3 $clock bench.runs=$runs bench.seconds=$seconds bench.fio=$fio_flag")
printf '%q ' "${qemu[@]}" >"$work/qemu.cmd"
echo >>"$work/qemu.cmd"
: >"$log"
note "booting QEMU (TCG, 2 CPUs): $runs runs x $seconds s per mode and tool, at most $limit s"
start=$SECONDS
"${qemu[@]}" </dev/null >"$work/qemu.out" 2>&1 &
pid=$!
timed_out=0
while kill -0 "$pid" 2>/dev/null; do
	if [ $((SECONDS - start)) -ge "$limit" ]; then
		timed_out=1
		kill "$pid" 2>/dev/null || true
		sleep 1
		kill -9 "$pid" 2>/dev/null || true
		break
	fi
	sleep 1
done
wait "$pid" 2>/dev/null && qrc=0 || qrc=$?
elapsed=$((SECONDS - start))

tail_log() {
	echo "bench: last 50 lines of the serial console ($log):" >&2
	tr -d '\r' <"$log" | tail -n 50 | sed 's/^/    /' >&2
}
clean=$work/serial.txt
# The console's reset sequences can share a line with the first marker.
tr -d '\r' <"$log" | sed 's/.*=== PROBESTICK-BENCH /=== PROBESTICK-BENCH /' >"$clean"
if [ "$timed_out" = 1 ]; then
	note "no power-off within $limit s: QEMU killed"
	tail_log
	exit 1
fi
if ! grep -q '^=== PROBESTICK-BENCH END' "$clean"; then
	note "QEMU exited (status $qrc) after $elapsed s without the bench's end marker"
	[ ! -s "$work/qemu.out" ] || sed 's/^/    qemu: /' "$work/qemu.out" >&2
	tail_log
	exit 1
fi

echo "================ probestick bench (QEMU TCG guest, $elapsed s) ================"
echo "QEMU runs without KVM here (TCG: every guest instruction is emulated), so the"
echo "absolute IOPS mean nothing; only the ratios (on/off, probestick/fio) do."
[ -z "$fio_note" ] || echo "note: $fio_note"
echo
sed -n '/^=== PROBESTICK-BENCH BEGIN/,/^=== PROBESTICK-BENCH \(JSON\|END\)/p' "$clean" |
	grep -v '^=== PROBESTICK-BENCH'
sed -n '/^=== PROBESTICK-BENCH JSON/,/^=== PROBESTICK-BENCH END/p' "$clean" |
	grep -v '^=== PROBESTICK-BENCH' >"$work/result.json" || true
echo "JSON: $work/result.json"
rc=$(sed -n 's/^=== PROBESTICK-BENCH END rc=\([0-9]*\).*/\1/p' "$clean" | tail -n 1)
if [ "${rc:-1}" != 0 ]; then
	note "probestick bench ended with status ${rc:-?} in the guest"
	tail_log
	exit 1
fi
