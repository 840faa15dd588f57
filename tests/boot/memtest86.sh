#!/usr/bin/env bash
# memtest86.sh bios|uefi: one boot of the stick (SeaBIOS or OVMF without
# Secure Boot) driven over the serial line only: the boot loader's menu
# offers memtest86+, its key starts it (syslinux: "7" + Enter; GRUB: the
# entry's hotkey "m"), and memtest86+ draws on ttyS0 (its entry passes
# console=ttyS0): its banner "Memtest86+ v6..." and then a running test
# (its number and name, "#0  [Address test, ..."). QEMU is stopped there:
# memtest86+ never ends by itself. Sourced by tests/boot/test_memtest86_bios and _uefi.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
fw=${1:?usage: memtest86.sh bios|uefi}
name=memtest86_$fw
out=$PS_TOP/${OUT:-out}
work=$out/boot-tests/$name
ps_need_tools "$fw" || exit $?
[ -s "$out/probestick.img" ] || { echo "skip: $out/probestick.img is missing (make)"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

PS_MEM_MIB=256
ps_prepare "$out/probestick.img" "$work" quick poweroff || exit 1
ps_machine "$fw" "$work" || exit 1
QM_SERIAL_IN=1
QM_MARKS=()
t0=$SECONDS
qm_start "${PS_BOOT_TIMEOUT:-300}" "${PS_SILENCE:-120}" || exit 1
log() { tr -d '\r' 2>/dev/null <"$work/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1b[()][0B]//g'; }
expect() { # REGEX TIMEOUT: waits for REGEX in the readable serial log
	local until=$((SECONDS + $2))
	while [ $SECONDS -lt $until ]; do
		log | grep -aqE -- "$1" && return 0
		kill -0 "$QM_PID" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}
if [ "$fw" = bios ]; then
	menu_rx='^    7  Memory test: memtest86\+' keys='7\r' prompt_rx='^boot: '
else
	menu_rx='Memory test: memtest86\+ \(Secure Boot must be off' keys='m' prompt_rx=$menu_rx
fi
ok=0
if ! expect "$prompt_rx" 120; then
	bad "no boot menu prompt ('$prompt_rx') on the serial line"
elif ! log | grep -aqE -- "$menu_rx"; then
	bad "the boot menu shows no memtest86+ entry ('$menu_rx')"
else
	menu_s=$((SECONDS - t0))
	qm_serial_send "$keys"
	if ! expect 'Memtest86\+ v[0-9]' 120; then
		bad "memtest86+ printed no banner on ttyS0 after '$keys'"
	else
		banner_s=$((SECONDS - t0))
		# The banner and an empty status screen come first; a test that runs
		# shows its number and name.
		if expect '#[0-9]+ +\[[A-Z][a-z]+ ' 120; then
			ok=1
			run_s=$((SECONDS - t0))
		else
			bad "memtest86+ showed its banner but no running test (a test number and name, '#0  [Address test, ...')"
		fi
	fi
fi
qm_kill || true
log >"$work/serial.txt"
echo "memtest86+ ($fw): menu at ${menu_s:-?} s, banner at ${banner_s:-?} s, a test running at ${run_s:-?} s; $((SECONDS - t0)) s in all"
if [ $ok = 1 ]; then
	grep -aoE 'Memtest86\+ v[0-9.]+' "$work/serial.txt" | head -n 1
	grep -aoE '#[0-9]+ +\[[^]]*\]' "$work/serial.txt" | sort -u | head -n 8 | sed 's/^/    /'
else
	echo "serial tail:"
	tail -n 30 "$work/serial.txt" | sed 's/^/    /'
fi
exit $fail
