#!/usr/bin/env bash
# make bench: boots out/vmlinuz with out/initramfs.img plus a bench cpio (fio,
# null_blk, tests/bench/init) in QEMU and prints the probes-overhead figures and
# our io_uring engine against fio; then, as root, the engine against fio
# natively on a loop device over a file in /dev/shm (BENCH_NATIVE=0 skips it).
# Every comparison runs its two tools in alternating pairs and judges the
# median pair ratio's 95 % interval against its goal (bench_judge.h): from
# BENCH_PAIRS pairs on, going on while undecided up to BENCH_CAP seconds.
# Environment: OUT (default out), BENCH_PAIRS (6), BENCH_SECONDS (5 in the
# guest, 3 natively), BENCH_CAP (300, per comparison),
# BENCH_FIO (1; 0 skips fio), BENCH_FIO_MAX_MB (200: larger fio closures are skipped),
# BENCH_CLOCK (tsc; hpet leaves the guest's clock source as TCG makes it),
# BENCH_MEM (1; 0 skips the memory bench: triad beside likwid-bench, in
# the guest and natively on this host), BENCH_NET (1; 0 skips the TCP bench:
# probestick vs iperf3 over veth, in the guest and natively here),
# BENCH_NET_SECONDS (3), BENCH_GUEST (1; 0 runs the native benches only).
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=${OUT:-out}
KVER=${KVER:-$(scripts/kver.sh)}
pairs=${BENCH_PAIRS:-6}
seconds=${BENCH_SECONDS:-5}
native_seconds=${BENCH_SECONDS:-3}
cap=${BENCH_CAP:-300}
want_fio=${BENCH_FIO:-1}
fio_max_mb=${BENCH_FIO_MAX_MB:-200}
want_mem=${BENCH_MEM:-1}
want_guest=${BENCH_GUEST:-1}
work=$OUT/bench

die() {
	echo "bench: $*" >&2
	exit 1
}
note() { echo "bench: $*" >&2; }

case $pairs$seconds$cap$want_mem$want_guest in *[!0-9]* | '') die "BENCH_PAIRS, BENCH_SECONDS, BENCH_CAP, BENCH_MEM and BENCH_GUEST take whole numbers" ;; esac
# What the figures were measured beside: a shared machine's load moves them.
load() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }
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
add_module veth
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

# iperf3 for the TCP bench (its library is the one probestick links already).
want_net=${BENCH_NET:-1}
net_seconds=${BENCH_NET_SECONDS:-3}
if [ "$want_net" = 1 ]; then
	if iperf3=$(command -v iperf3); then
		stage_exec "$iperf3" || note "iperf3 needs a library that is not installed: probestick alone"
	else
		note "iperf3 is not installed on the host (scripts/deps.sh): the TCP bench runs probestick alone"
	fi
fi

# ------------------------------------------------------ memory reference --
# likwid-bench (else stress-ng) beside our triad, in the guest and here.
mem_note=
if [ "$want_mem" = 1 ]; then
	for t in likwid-bench stress-ng; do
		p=$(command -v "$t" || true)
		if [ -n "$p" ] && stage_exec "$p"; then
			# likwid looks for its access daemon on PATH even when it reads no counter
			[ "$t" != likwid-bench ] || [ ! -x /usr/sbin/likwid-accessD ] ||
				stage_exec /usr/sbin/likwid-accessD
			# glibc dlopens libgcc_s for pthread_exit: ldd does not list it
			gcc_s=$(LC_ALL=C ldconfig -p | sed -n 's/.*libgcc_s.so.1 (libc6,x86-64) => //p' | head -n 1)
			if [ -n "$gcc_s" ]; then
				mkdir -p "$root$(dirname "$gcc_s")"
				cp -L "$gcc_s" "$root$gcc_s"
			fi
			note "memory reference in the guest: $t"
			break
		fi
	done
	note "memory bench natively on this host ($(load))"
	# Our triad asks for huge pages (MADV_HUGEPAGE); likwid-bench has no way
	# to, so with THP in its "madvise" mode it would run on 4 KiB pages and
	# pay a TLB miss per page that ours does not: both run with THP "always"
	# (as root), and the mode is put back after.
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null || true)
	if [ "$thp_was" = madvise ] && [ -w "$thp" ] && echo always >"$thp" 2>/dev/null; then
		note "transparent huge pages: always for the memory bench (was madvise)"
		trap '[ -z "$thp_was" ] || echo "$thp_was" >"$thp"' EXIT
	else
		thp_was=
	fi
	{
		echo "before: $(load)"
		"$OUT/probestick" bench mem --pairs "$pairs" --cap "$cap" --json "$work/mem-host.json"
	} >"$work/mem-host.txt" 2>&1 || mem_note="the native memory bench failed: $(tail -n 1 "$work/mem-host.txt")"
	[ -z "$thp_was" ] || echo "$thp_was" >"$thp"
	thp_was=
	trap - EXIT
	echo "after: $(load)" >>"$work/mem-host.txt"
fi

# ---------------------------------------------------------------- initrd --
install -m 0755 tests/bench/init "$root/bench/init"
# A second compressed cpio after the image's own: the kernel unpacks both in
# turn, so the image's files stay as built and ours are added or replace.
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	zstd -3 -q -T2 >"$work/bench.cpio.zst"
cat "$OUT/initramfs.img" "$work/bench.cpio.zst" >"$work/initrd.img"
note "initrd: $(($(stat -c %s "$work/initrd.img") >> 20)) MB ($OUT/initramfs.img + bench $(($(stat -c %s "$work/bench.cpio.zst") >> 20)) MB)"

# ------------------------------------------------------------------ boot --
guest() {
	local tools=2 pair_s io_s mem_s net_s limit silence clock fio_flag start elapsed booted=0 rc
	[ -z "$fio_note" ] || tools=1
	# A comparison runs its first BENCH_PAIRS pairs whatever the cap, then on
	# up to the cap; a pair under TCG costs its two runs plus fio's slow start.
	pair_s=$((2 * (seconds + 20)))
	io_s=$(((cap > pairs * pair_s ? cap : pairs * pair_s) + 2 * pair_s))
	# the triad's passes under TCG: minutes a pair
	mem_s=$((want_mem == 1 ? (cap > pairs * 480 ? cap : pairs * 480) + 4 * 480 : 0))
	net_s=$((want_net == 1 ? (cap > pairs * 2 * (net_seconds + 15) ? cap : pairs * 2 * (net_seconds + 15)) + 120 : 0))
	# probes on/off per tool, and the engine's two cases when fio is there
	limit=$((240 + tools * io_s + (tools - 1) * 2 * io_s + mem_s + net_s))
	# The probes read the clock at every event. TCG's CPU model has no invariant
	# TSC, so the guest would pick hpet, whose every read is an emulated device
	# access costing microseconds; real machines read the TSC. BENCH_CLOCK=hpet
	# keeps the guest's own choice.
	clock="clocksource=tsc tsc=reliable"
	[ "${BENCH_CLOCK:-tsc}" = tsc ] || clock=
	fio_flag=1
	[ -z "$fio_note" ] || fio_flag=0
	# The guest prints a line per pair, between runs: the longest silence is
	# one memory pair under TCG.
	silence=$((600 + 2 * (seconds + 20)))
	. tests/lib/qemu.sh
	qm_new "$work"
	QM_MEM=1024 QM_VGA=none
	qm_kernel "$OUT/vmlinuz" "$work/initrd.img" \
		"console=ttyS0 rdinit=/bench/init panic=-1 loglevel=3 $clock bench.pairs=$pairs bench.seconds=$seconds bench.cap=$cap bench.fio=$fio_flag bench.mem=$want_mem bench.net=$want_net bench.net_seconds=$net_seconds"
	log=$QM_WORK/serial.log
	note "booting QEMU (TCG, 2 CPUs): pairs of $seconds s runs, $pairs at least and up to $cap s per comparison, at most $limit s in all"
	start=$SECONDS
	qm_run "$limit" "$silence" && booted=1
	elapsed=$((SECONDS - start))

	clean=$work/serial.txt
	# The console's reset sequences can share a line with the first marker.
	tr -d '\r' <"$log" | sed 's/.*=== PROBESTICK-BENCH /=== PROBESTICK-BENCH /' >"$clean"
	if [ "$booted" = 0 ]; then
		note "the guest did not power off: $QM_STATUS after $elapsed s (the launcher's messages are above)"
		return 1
	fi
	if ! grep -q '^=== PROBESTICK-BENCH END' "$clean"; then
		note "the guest powered off after $elapsed s without the bench's end marker"
		[ ! -s "$work/qemu.out" ] || sed 's/^/    qemu: /' "$work/qemu.out" >&2
		tail_log
		return 1
	fi

	echo "================ probestick bench (QEMU TCG guest, $elapsed s) ================"
	echo "QEMU runs without KVM here (TCG: every guest instruction is emulated), so the"
	echo "absolute IOPS mean nothing; only the ratios (on/off, probestick/fio) do."
	echo "host during the guest's runs: $(load) at the end"
	[ -z "$fio_note" ] || echo "note: $fio_note"
	[ "$QM_RETRIED" = 0 ] || echo "note: measured on the launcher's retry under single-threaded TCG (the first boot hung)"
	echo
	sed -n '/^=== PROBESTICK-BENCH BEGIN/,/^=== PROBESTICK-BENCH \(JSON\|ENGINE\|NET BEGIN\|END\)/p' "$clean" |
		grep -v '^=== PROBESTICK-BENCH'
	sed -n '/^=== PROBESTICK-BENCH JSON/,/^=== PROBESTICK-BENCH \(ENGINE\|MEMJSON\|NET BEGIN\|END\)/p' "$clean" |
		grep -v '^=== PROBESTICK-BENCH' >"$work/result.json" || true
	echo "JSON: $work/result.json"
	if grep -q '^=== PROBESTICK-BENCH ENGINE ===' "$clean"; then
		echo
		echo "================ engine against fio (QEMU TCG guest, null_blk) ================"
		sed -n '/^=== PROBESTICK-BENCH ENGINE ===/,/^=== PROBESTICK-BENCH \(ENGINE-JSON\|MEMJSON\|NET BEGIN\|END\)/p' "$clean" |
			grep -v '^=== PROBESTICK-BENCH'
		sed -n '/^=== PROBESTICK-BENCH ENGINE-JSON/,/^=== PROBESTICK-BENCH \(MEMJSON\|NET BEGIN\|END\)/p' "$clean" |
			grep -v '^=== PROBESTICK-BENCH' >"$work/engine-guest.json" || true
		echo "JSON: $work/engine-guest.json"
	fi
	if [ "$want_mem" = 1 ]; then
		sed -n '/^=== PROBESTICK-BENCH MEMJSON/,/^=== PROBESTICK-BENCH \(NET BEGIN\|END\)/p' "$clean" |
			grep -v '^=== PROBESTICK-BENCH' >"$work/mem-guest.json" || true
		echo "JSON: $work/mem-guest.json (memory, guest)"
	fi
	if [ "$want_net" = 1 ]; then
		echo
		echo "---------------- TCP over veth: probestick vs iperf3, in the guest ----------------"
		sed -n '/^=== PROBESTICK-BENCH NET BEGIN/,/^=== PROBESTICK-BENCH NET END/p' "$clean" |
			grep -v '^=== PROBESTICK-BENCH' | sed '/^{/,$d'
	fi
	rc=$(sed -n 's/^=== PROBESTICK-BENCH END rc=\([0-9]*\).*/\1/p' "$clean" | tail -n 1)
	if [ "${rc:-1}" != 0 ]; then
		note "probestick bench ended with status ${rc:-?} in the guest"
		tail_log
		return 1
	fi
}

tail_log() {
	echo "bench: last 50 lines of the serial console ($log):" >&2
	qm_serial_tail 50 >&2
}

# ---------------------------------------------------------------- native --
# TCG distorts user-space cost, so the engine against fio also runs on this
# machine: a loop device over a file in /dev/shm (memory, no drive's noise).
native_engine() {
	local file loop rc=0
	if [ "${BENCH_NATIVE:-1}" = 0 ]; then
		note "native engine bench skipped (BENCH_NATIVE=0)"
		return 0
	fi
	if [ "$(id -u)" != 0 ] || ! command -v losetup >/dev/null || [ -z "$fio" ]; then
		note "native engine bench skipped: it needs root, losetup and fio"
		return 0
	fi
	file=$(mktemp /dev/shm/probestick-bench.XXXXXX)
	truncate -s "${BENCH_NATIVE_MB:-2048}M" "$file"
	# written once, so that reads come from memory pages, not holes
	dd if=/dev/zero of="$file" bs=1M count="${BENCH_NATIVE_MB:-2048}" conv=notrunc status=none
	if ! loop=$(losetup -f --show "$file"); then
		note "native engine bench skipped: losetup could not attach $file"
		rm -f "$file"
		return 0
	fi
	echo
	echo "================ engine against fio (native, $loop over $file) ================"
	echo "host: $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "before: $(load)"
	"$OUT/probestick" bench engine --dev "$loop" --pairs "$pairs" --seconds "$native_seconds" \
		--cap "$cap" --json "$work/engine-native.json" || rc=$?
	echo "after: $(load)"
	echo "JSON: $work/engine-native.json"
	losetup -d "$loop"
	rm -f "$file"
	return $rc
}

native_net() {
	[ "$want_net" = 1 ] || return 0
	echo
	echo "---------------- TCP over veth: probestick vs iperf3, natively on this machine ----"
	if [ "$(id -u)" -ne 0 ]; then
		echo "not run natively: namespaces and veth need root"
		return 0
	fi
	if ! command -v iperf3 >/dev/null; then
		echo "not run natively: iperf3 is not installed (scripts/deps.sh)"
		return 0
	fi
	echo "before: $(load)"
	"$OUT/probestick" bench net --pairs "$pairs" --seconds "$net_seconds" --cap "$cap" \
		--json "$work/net-native.json" || note "the native TCP bench failed"
	echo "after: $(load)"
}

# The probes' cost per event where it can be timed: their code built for this
# host (the guest's on/off ratio under TCG says little about a real machine).
native_probe_cost() {
	echo
	echo "---------------- the probes' cost per event, natively on this machine ----------------"
	echo "before: $(load)"
	tests/bench/probe_cost.sh || note "the probe cost bench failed"
	echo "after: $(load)"
}

failed=0
if [ "$want_guest" = 1 ]; then
	guest || failed=1
fi
if [ "$want_mem" = 1 ]; then
	echo
	echo "---------------- memory bandwidth natively on this host (not in QEMU) ----------------"
	if [ -n "$mem_note" ]; then echo "  $mem_note"; else sed 's/^/  /' "$work/mem-host.txt"; fi
	echo "JSON: $work/mem-host.json"
fi
native_probe_cost
native_net
native_engine || failed=1
exit $failed
