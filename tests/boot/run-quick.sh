#!/usr/bin/env bash
# `make run`: boot a copy of the stick image in QEMU with the quick plan and
# print the report it wrote. Usage: tests/boot/run-quick.sh IMAGE
# PS_FIRMWARE=bios|uefi (default bios), PS_BOOT_TIMEOUT seconds.
. "$(dirname "$0")/lib.sh"
img=${1:?usage: tests/boot/run-quick.sh IMAGE}
fw=${PS_FIRMWARE:-bios}
limit=${PS_BOOT_TIMEOUT:-$([ "$fw" = uefi ] && echo 360 || echo 240)}
work=$PS_TOP/${OUT:-out}/run
case $work in /*) ;; *) work=$PWD/$work ;; esac

ps_need_tools "$fw" >&2 || exit 1
ps_prepare "$img" "$work" quick poweroff || exit 1
ps_log "booting a copy of $img ($fw, quick plan); serial console in $work/serial.log"
# A single-threaded retry of a TCG hang boots a fresh copy of the stick.
reprepare() { ps_prepare "$img" "$work" quick poweroff; }
PS_RETRY_HOOK=reprepare ps_boot "$fw" "$work" "$limit" || exit 1
report=$(ps_fetch_reports "$work")
if [ -z "$report" ] || [ ! -s "$(dirname "$report")/report.txt" ]; then
	ps_log "no report on the stick after the boot. Last serial lines:"
	ps_serial_tail "$work" 50 >&2
	exit 1
fi
cat "$(dirname "$report")/report.txt"
ps_log "report: $(dirname "$report") (boot-to-banner ${PS_BANNER_S:-?} s)"
