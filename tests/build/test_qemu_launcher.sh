#!/usr/bin/env bash
# The QEMU launcher (tests/lib/qemu.sh) without booting anything:
# - the standard machine of the quick-plan boots is the checked-in one
#   (tests/fixtures/qemu/standard-*.args): a change to it is deliberate;
# - machines described with the launcher's functions come out as asked;
# - with a fake QEMU that replays recorded consoles, qm_run passes a guest
#   that powers off, stops a hung or silent one with the last 50 lines, and
#   retries a TCG-signature hang once under -accel tcg,thread=single (and
#   no other hang).
set -uo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok    $*"; }
bad() {
	echo "FAIL  $*"
	fail=1
}
. tests/boot/lib.sh

# ------------------------------------------------ the standard machine --
for fw in bios uefi; do
	work=$tmp/std-$fw
	ps_qemu_cmd "$fw" "$work" || bad "ps_qemu_cmd $fw failed"
	printf '%s\n' "${PS_QEMU[@]}" | sed "s|$work|@WORK@|g" >"$tmp/$fw.cmd"
	if diff -u "tests/fixtures/qemu/standard-$fw.args" "$tmp/$fw.cmd" >"$tmp/diff"; then
		ok "standard $fw machine as checked in"
	else
		bad "standard $fw machine differs from tests/fixtures/qemu/standard-$fw.args:"
		sed 's/^/    /' "$tmp/diff"
	fi
done
for d in sata0:64 nvme0:96 vd0:128; do
	[ "$(stat -c %s "$tmp/std-bios/${d%:*}.raw")" = $((${d#*:} << 20)) ] ||
		bad "disk ${d%:*} is not ${d#*:} MiB"
done

# ------------------------------------------------- described machines --
qm_new "$tmp/m"
qm_firmware uefi-secure
qm_kernel /k /i "console=ttyS0"
qm_rootport 8 4
port=$QM_PORT
qm_disk d0 nvme SER0 8 "" "logical_block_size=4096"
qm_disk d1 sata SER1 8
qm_disk d2 sata SER2 8
qm_nic 52:54:00:00:00:01 e1000e listen:40001
qm_nic 52:54:00:00:00:02 e1000e connect:40001
qm_nic 52:54:00:00:00:03 virtio-net-pci dgram:40002:40003
qm_nic 52:54:00:00:00:04 e1000 hub:1
qm_device "pci-testdev"
qm_cmd
args=$(printf '%s\n' "${QM_CMD[@]}")
expect_arg() {
	if grep -qxF -- "$1" <<<"$args"; then ok "argument $1"; else bad "no argument '$1' in: $(echo $args)"; fi
}
expect_arg "pcie-root-port,id=$port,bus=pcie.0,chassis=1,addr=0x10,x-speed=8,x-width=4"
expect_arg "nvme,bus=rp2,drive=d0,serial=SER0,logical_block_size=4096"
expect_arg "ide-hd,bus=ide.0,drive=d1,serial=SER1"
expect_arg "ide-hd,bus=ide.1,drive=d2,serial=SER2"
expect_arg "socket,id=n0,listen=127.0.0.1:40001"
expect_arg "socket,id=n1,connect=127.0.0.1:40001"
expect_arg "dgram,id=n2,local.type=inet,local.host=127.0.0.1,local.port=40002,remote.type=inet,remote.host=127.0.0.1,remote.port=40003"
expect_arg "hubport,id=n3,hubid=1"
expect_arg "e1000,bus=rp6,netdev=n3,mac=52:54:00:00:00:04"
expect_arg "pci-testdev"
expect_arg "if=pflash,format=raw,unit=0,readonly=on,file=$QM_OVMF_SB_CODE"
expect_arg "smm=on"
expect_arg "-kernel"
grep -q -- '-accel tcg ' "$QM_WORK/qemu.cmd" && ok "TCG by default" || bad "no '-accel tcg' in $QM_WORK/qemu.cmd"
if grep -Eq 'tap|bridge|user,' <<<"$args"; then bad "a host network back-end in: $(echo $args)"; else ok "no tap, bridge or user networking"; fi
qm_nic 52:54:00:00:00:05 e1000e user 2>/dev/null && bad "qm_nic accepted a user-mode back-end" || ok "qm_nic refuses other back-ends"

# ------------------------------------------------------- the watcher --
# The fake QEMU writes FAKE_<ACCEL>_LOG into its -serial file, then exits 0
# (FAKE_<ACCEL>_END=exit) or waits to be killed (=hang); a second start gets
# FAKE_SECOND_LOG and FAKE_SECOND_END when they are set.
cat >"$tmp/fake-qemu" <<'EOF'
#!/usr/bin/env bash
serial="" accel=""
while [ $# -gt 0 ]; do
	case $1 in
	-serial) serial=${2#file:}; shift ;;
	-accel) accel=$2; shift ;;
	esac
	shift
done
case $accel in tcg) k=MULTI ;; tcg,thread=single) k=SINGLE ;; *) exit 3 ;; esac
[ -z "${FAKE_SECOND_LOG:-}" ] || [ ! -s "$FAKE_ACCELS" ] || k=SECOND
log=FAKE_${k}_LOG end=FAKE_${k}_END
echo "$accel" >>"$FAKE_ACCELS"
cat "${!log}" >"$serial"
[ "${!end}" = exit ] && exit 0
exec sleep 300
EOF
chmod +x "$tmp/fake-qemu"
export QM_QEMU=$tmp/fake-qemu FAKE_ACCELS=$tmp/accels
fx=$top/tests/fixtures/serial

run_case() { # NAME MULTI_LOG MULTI_END SINGLE_LOG SINGLE_END SILENCE
	export FAKE_MULTI_LOG=$2 FAKE_MULTI_END=$3 FAKE_SINGLE_LOG=$4 FAKE_SINGLE_END=$5
	: >"$FAKE_ACCELS"
	qm_new "$tmp/$1"
	QM_MARKS=('kernel=^\[ *[0-9]*\.[0-9]*\] ' 'banner=^(init: *)?probestick[ :]')
	retry_hook_ran=0
	QM_RETRY_HOOK=note_retry
	start=$SECONDS
	qm_run 60 "$6" 2>"$tmp/$1.err"
	rc=$?
	took=$((SECONDS - start))
}
note_retry() { retry_hook_ran=1; }

run_case poweroff "$fx/bios-quick.log" exit /dev/null exit 30
[ $rc -eq 0 ] && [ "$QM_STATUS" = poweroff ] && [ "$QM_RETRIED" = 0 ] &&
	ok "a guest that powers off passes" || bad "poweroff: rc $rc, status $QM_STATUS: $(cat "$tmp/poweroff.err")"
[ -n "$QM_MARK_kernel" ] && [ -n "$QM_MARK_banner" ] && ok "kernel and banner marks set" ||
	bad "marks: kernel '$QM_MARK_kernel' banner '$QM_MARK_banner'"

run_case tcg "$fx/tcg-stall.log" hang "$fx/bios-quick.log" exit 30
[ $rc -eq 0 ] && [ "$QM_RETRIED" = 1 ] && [ "$(paste -sd' ' "$FAKE_ACCELS")" = "tcg tcg,thread=single" ] &&
	[ $retry_hook_ran = 1 ] && ok "a TCG hang is retried once single-threaded, and passes (${took} s)" ||
	bad "tcg: rc $rc, retried $QM_RETRIED, accels $(paste -sd' ' "$FAKE_ACCELS"), hook $retry_hook_ran"
grep -q 'Retrying once under -accel tcg,thread=single' "$tmp/tcg.err" && ok "the retry says so" ||
	bad "no retry message in: $(cat "$tmp/tcg.err")"
[ -s "$tmp/tcg/hang-1/serial.log" ] && ok "the hung attempt's log is kept" || bad "no $tmp/tcg/hang-1/serial.log"

# The kernel's boot-time timer check failing (arch/x86/kernel/apic/io_apic.c's panic text)
{
	head -n 40 "$fx/bios-quick.log"
	printf '%s\n' "[    0.412345] Kernel panic - not syncing: IO-APIC + timer doesn't work!  Boot with apic=debug and send a report.  Then try booting with the 'noapic' option."
} >"$tmp/ioapic.log"
export FAKE_SECOND_LOG=$fx/bios-quick.log FAKE_SECOND_END=exit
run_case ioapic "$tmp/ioapic.log" exit /dev/null exit 30
unset FAKE_SECOND_LOG FAKE_SECOND_END
[ $rc -eq 0 ] && [ "$QM_RETRIED" = 1 ] && [ "$QM_FIRST_STATUS" = panic ] &&
	[ "$QM_FIRST_SIGNATURE" = ioapic-timer-check ] && [ "$(paste -sd' ' "$FAKE_ACCELS")" = "tcg tcg" ] &&
	ok "the timer check's panic is booted once more, with the same accelerator, and passes" ||
	bad "ioapic: rc $rc, retried $QM_RETRIED, first $QM_FIRST_STATUS/$QM_FIRST_SIGNATURE, accels $(paste -sd' ' "$FAKE_ACCELS")"
grep -q "Retrying once: the kernel panicked in its boot-time timer check" "$tmp/ioapic.err" && ok "that retry says so" ||
	bad "no retry message in: $(cat "$tmp/ioapic.err")"
head -n 40 "$fx/bios-quick.log" >"$tmp/panic.log"
echo "[    9.100000] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100" >>"$tmp/panic.log"
run_case panic "$tmp/panic.log" exit "$fx/bios-quick.log" exit 30
[ $rc -ne 0 ] && [ "$QM_STATUS" = panic ] && [ "$QM_RETRIED" = 0 ] && [ "$(wc -l <"$FAKE_ACCELS")" = 1 ] &&
	ok "another panic fails without a retry" || bad "panic: rc $rc, status $QM_STATUS, retried $QM_RETRIED"

run_case tcg-twice "$fx/tcg-lockup.log" hang "$fx/tcg-lockup.log" hang 30
[ $rc -ne 0 ] && [ "$QM_RETRIED" = 1 ] && [ "$QM_STATUS" = lockup ] && [ "$(wc -l <"$FAKE_ACCELS")" = 2 ] &&
	ok "a hang on the retry too fails, after one retry" || bad "tcg-twice: rc $rc, retried $QM_RETRIED, status $QM_STATUS"

run_case genuine "$fx/spin-stall.log" hang /dev/null exit 30
[ $rc -ne 0 ] && [ "$QM_STATUS" = rcu_stall ] && [ "$QM_RETRIED" = 0 ] && [ "$(wc -l <"$FAKE_ACCELS")" = 1 ] &&
	ok "a hang without the TCG signature fails without a retry (${took} s)" ||
	bad "genuine: rc $rc, status $QM_STATUS, retried $QM_RETRIED"
n=$(sed -n '/last 50 serial lines/,$p' "$tmp/genuine.err" | tail -n +2 | wc -l)
[ "$n" = 50 ] && ok "the failure shows the last 50 console lines" || bad "$n console lines shown: $(cat "$tmp/genuine.err")"
[ $took -lt 30 ] && ok "stopped without waiting out the limit" || bad "took $took s"

head -n 200 "$fx/bios-quick.log" >"$tmp/cut.log"
run_case silent "$tmp/cut.log" hang /dev/null exit 3
[ $rc -ne 0 ] && [ "$QM_STATUS" = silence ] && [ "$QM_RETRIED" = 0 ] && [ $took -lt 15 ] &&
	ok "a silent guest is stopped after its silence limit (${took} s)" ||
	bad "silent: rc $rc, status $QM_STATUS, $took s"

# qm_kill: the power cut of tests/boot/test_powercut, SIGKILL to QEMU itself
export FAKE_MULTI_LOG=$tmp/cut.log FAKE_MULTI_END=hang
qm_new "$tmp/kill"
start=$SECONDS
qm_start 60 30
sleep 1
qm_kill && [ "$QM_STATUS" = killed ] && [ $((SECONDS - start)) -lt 15 ] &&
	ok "qm_kill cuts a running guest (status killed)" || bad "qm_kill: status $QM_STATUS: $QM_REASON"
grep -q -- "file=x.img -device usb-storage" <(qm_new "$tmp/k2"; qm_stick x.img; qm_cmd; printf '%s ' "${QM_CMD[@]}") &&
	ok "the stick has QEMU's default cache mode unless asked" || bad "qm_stick without QM_STICK_CACHE"
grep -q -- "file=x.img,cache=writethrough -device usb-storage" <(qm_new "$tmp/k3"; QM_STICK_CACHE=writethrough; qm_stick x.img; qm_cmd; printf '%s ' "${QM_CMD[@]}") &&
	ok "QM_STICK_CACHE sets the stick's cache mode" || bad "qm_stick with QM_STICK_CACHE=writethrough"

[ $fail -eq 0 ] && echo "qemu launcher: all checks passed"
exit $fail
