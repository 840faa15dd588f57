# Boot-test library (sourced): the standard machine of the boot tests, on the
# launcher in tests/lib/qemu.sh; boots a COPY of the stick image in it and
# reads the report back.
# The guest: q35, 512 MiB, 2 CPUs, the stick on USB (xHCI), one SATA, one
# NVMe and one virtio disk of known sizes and serials, two e1000e NICs with
# known MACs on a QEMU hub. Sizes, serials and MACs below are what the
# scenarios check the report against.

PS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PS_PY=/usr/bin/python3
# shellcheck source=../lib/qemu.sh
. "$PS_TOP/tests/lib/qemu.sh"

# name bus serial size_mib
PS_DISKS=(
	"sata0 sata PS-SATA-0001 64"
	"nvme0 nvme PSNVME0001 96"
	"vd0 virtio PSVIRT0001 128"
)
PS_MACS=(52:54:00:50:00:01 52:54:00:50:00:02)
PS_MEM_MIB=512
# Options for scenarios other than the quick-plan boots (unset: no change):
#   PS_ACCEL     QEMU -accel value (default tcg)
#   PS_SILENCE   most seconds without serial output before the guest counts
#                as hung (default 120)
#   PS_NO_RETRY=1  no single-threaded retry of a TCG hang (make soak SOAK_RETRY=0)
#   PS_APPEND    words added to the kernel command line of every Linux entry
#                in the image copy (syslinux and GRUB)
#   PS_INITRD_PAD_MIB  N: the image copy's initrd carries N MiB more of
#                incompressible data (an uncompressed cpio appended: a file
#                /pad of random bytes, in RAM from the unpacking on), as if
#                the initramfs had grown by that much (tests/boot/minram.sh)
#   PS_INITRD_ADD  NAME=FILE ...: files added to the image copy's initrd the
#                same way (tests/boot/minram.sh profile)
#   PS_KERNEL, PS_INITRD, PS_CMDLINE   boot this kernel and initrd directly
#                (-kernel/-initrd/-append) instead of the stick's boot loader
#   PS_BLKDEBUG  NAME=CONF: put disk NAME (sata0, nvme0, vd0) behind QEMU's
#                blkdebug driver with config file CONF (injected I/O errors)
#   PS_STICK_CACHE  the stick drive's cache= mode (writethrough: the power
#                cut test, where what the guest saw written must be on the image)
#   PS_MACHINE_EXTRA  a function ps_machine calls last (qm_device ...: more devices)
#   PS_EXPECT_MODULE  "refused": the report must say probestick.ko did not load
#                (Secure Boot), its steps without probes; default "loaded"
#   PS_DISK_PROPS  NAME=PROPS ...: device properties added to disk NAME
#                (nvme0=smart_critical_warning=4), space separated

ps_log() { echo "boot: $*" >&2; }

# ps_prepare IMG WORKDIR PLAN THEN: copy the image (the original is never
# booted, so a test cannot change it), make the three target disks, and
# set probestick.cfg in the copy.
ps_prepare() {
	local img=$1 work=$2 plan=$3 then=$4 d name bus serial mib
	[ -s "$img" ] || { ps_log "$img is missing (make builds it)"; return 1; }
	mkdir -p "$work"
	cp --sparse=always "$img" "$work/stick.img"
	for d in "${PS_DISKS[@]}"; do
		read -r name bus serial mib <<<"$d"
		rm -f "$work/$name.raw"
		truncate -s "${mib}M" "$work/$name.raw"
	done
	printf '# set by tests/boot\nplan=%s\nthen=%s\nconsole=tty0,ttyS0\n' "$plan" "$then" >"$work/probestick.cfg"
	qm_stick_put "$work/stick.img" "$work/probestick.cfg" /probestick.cfg
	if [ -n "${PS_APPEND:-}" ]; then
		qm_stick_get "$work/stick.img" /syslinux/syslinux.cfg "$work/syslinux.cfg" || return 1
		sed -i "s|^\([[:space:]]*APPEND .*\)|\1 $PS_APPEND|" "$work/syslinux.cfg"
		qm_stick_put "$work/stick.img" "$work/syslinux.cfg" /syslinux/syslinux.cfg || return 1
		qm_stick_get "$work/stick.img" /EFI/debian/grub.cfg "$work/grub.cfg" || return 1
		sed -i "s|^\([[:space:]]*boot_probestick .*\)|\1 $PS_APPEND|" "$work/grub.cfg"
		qm_stick_put "$work/stick.img" "$work/grub.cfg" /EFI/debian/grub.cfg || return 1
		ps_log "kernel command line + '$PS_APPEND' (syslinux and GRUB)"
	fi
	if [ "${PS_INITRD_PAD_MIB:-0}" -gt 0 ] || [ -n "${PS_INITRD_ADD:-}" ]; then
		qm_stick_get "$work/stick.img" /initrd.img "$work/initrd.img" || return 1
		# shellcheck disable=SC2086 # one word per NAME=FILE
		$PS_PY - "$work/initrd.img" "${PS_INITRD_PAD_MIB:-0}" ${PS_INITRD_ADD:-} <<'PY' || return 1
import os, sys
path, mib = sys.argv[1], int(sys.argv[2])
def entry(name, mode, data):
    h = "070701" + "".join("%08x" % v for v in (0, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0,
                                                   len(name) + 1, 0))
    b = h.encode() + name.encode() + b"\0"
    b += b"\0" * (-len(b) % 4) + data
    return b + b"\0" * (-len(b) % 4)
files = b""
if mib:
    files += entry("pad", 0o100644, os.urandom(mib << 20))
for arg in sys.argv[3:]:
    name, src = arg.split("=", 1)
    mode = 0o100755 if os.access(src, os.X_OK) else 0o100644
    files += entry(name.lstrip("/"), mode, open(src, "rb").read())
with open(path, "ab") as f:
    f.write(b"\0" * (-f.tell() % 4))  # the kernel looks for a cpio on a 4-byte boundary
    f.write(files + entry("TRAILER!!!", 0, b""))
PY
		qm_stick_put "$work/stick.img" "$work/initrd.img" /initrd.img || return 1
		ps_log "initrd + ${PS_INITRD_PAD_MIB:-0} MiB of incompressible padding${PS_INITRD_ADD:+ + $PS_INITRD_ADD}"
	fi
}

# ps_machine FIRMWARE WORKDIR: the standard machine of the boot tests, on
# the launcher (tests/lib/qemu.sh). A test that needs more devices calls
# ps_machine, then qm_disk/qm_nic/qm_device..., then qm_run.
ps_machine() {
	local fw=$1 work=$2 d name bus serial mib i p props
	qm_new "$work"
	QM_MEM=$PS_MEM_MIB
	QM_STICK_CACHE=${PS_STICK_CACHE:-}
	qm_firmware "$fw" || return 1
	qm_smbios17 "loc_pfx=DIMM,bank=BANK,manufacturer=probestick,serial=PSDIMM0001,part=PS-QEMU-RAM,speed=3200"
	if [ -n "${PS_KERNEL:-}" ]; then
		qm_kernel "$PS_KERNEL" "$PS_INITRD" "${PS_CMDLINE:-}"
	fi
	# PCIe devices each behind their own root port, as on real boards, so
	# that each has a link of its own.
	qm_stick "$QM_WORK/stick.img" $([ -n "${PS_KERNEL:-}" ] || echo boot)
	[ -z "${PS_BLKDEBUG:-}" ] || qm_blkdebug "${PS_BLKDEBUG%%=*}" "${PS_BLKDEBUG#*=}"
	for d in "${PS_DISKS[@]}"; do
		read -r name bus serial mib <<<"$d"
		props=""
		for p in ${PS_DISK_PROPS:-}; do
			[ "${p%%=*}" != "$name" ] || props=${p#*=}
		done
		qm_disk "$name" "$bus" "$serial" "$mib" "" "$props" || return 1
	done
	for i in "${!PS_MACS[@]}"; do
		qm_nic "${PS_MACS[$i]}" e1000e hub || return 1
	done
	# PS_MACHINE_EXTRA: a function that adds devices to the standard machine.
	[ -z "${PS_MACHINE_EXTRA:-}" ] || "$PS_MACHINE_EXTRA" || return 1
}

# ps_qemu_cmd FIRMWARE WORKDIR: fills the array PS_QEMU with the command
# line of the standard machine (for callers that only want to see it).
ps_qemu_cmd() {
	ps_machine "$1" "$2" || return 1
	qm_cmd || return 1
	PS_QEMU=("${QM_CMD[@]}")
}

# ps_boot FIRMWARE WORKDIR TIMEOUT_S [SILENCE_S]: boots the standard machine,
# waits for the guest to power off. Sets PS_BANNER_S (seconds from QEMU
# start to the first line starting with "probestick" or "init: probestick"
# after the kernel started: /init's banner; "" if none) and PS_KERNEL_S (the
# kernel's first message on the serial line). The guest is stopped early
# when it hangs (a lockup or RCU stall line, or SILENCE_S, default
# PS_SILENCE or 120 s, without console output); a TCG hang is retried once
# single-threaded (tests/lib/qemu.sh). Returns 0 when QEMU exited by itself
# after a power-off, 1 otherwise.
ps_boot() {
	local fw=$1 work=$2 limit=$3 silence=${4:-${PS_SILENCE:-120}}
	ps_machine "$fw" "$work" || return 1
	# The first kernel message with a timestamp: on UEFI the serial console
	# does not always replay the "Linux version" line.
	QM_MARKS=('kernel=^\[ *[0-9]*\.[0-9]*\] ' 'banner=^(init: *)?probestick[ :]')
	QM_RETRY_HOOK=${PS_RETRY_HOOK:-}
	[ "${PS_NO_RETRY:-0}" = 0 ] || QM_RETRY_SINGLE=0
	PS_BANNER_S="" PS_KERNEL_S=""
	qm_run "$limit" "$silence" || {
		ps_log "$fw: the boot failed: $QM_STATUS$([ "$QM_RETRIED" = 1 ] && echo ", also on the single-threaded retry")"
		return 1
	}
	PS_KERNEL_S=$QM_MARK_kernel PS_BANNER_S=$QM_MARK_banner
	ps_log "$fw: powered off after $QM_ELAPSED s; kernel at ${PS_KERNEL_S:-?} s, banner at ${PS_BANNER_S:-?} s; longest console silence $QM_MAX_GAP s$([ "$QM_RETRIED" = 1 ] && echo "; on the single-threaded TCG retry")"
	return 0
}

# ps_fetch_reports WORKDIR: copies /reports from the image copy to
# WORKDIR/reports; prints the newest report.json path (empty if none).
ps_fetch_reports() {
	local work=$1
	rm -rf "$work/reports"
	mkdir -p "$work/reports"
	qm_stick_get "$work/stick.img" '/reports/*' "$work/reports/" -s 2>/dev/null || true
	find "$work/reports" -name report.json -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-
}

# ps_serial_tail WORKDIR [N]: the last N lines the guest printed, readable.
ps_serial_tail() { qm_serial_tail "${2:-50}" "$1"; }

# ps_expect_json WORKDIR PLAN: what check_report.py compares the report with.
ps_expect_json() {
	local work=$1 plan=$2 d name bus serial mib disks="" macs="" abi steps
	for d in "${PS_DISKS[@]}"; do
		read -r name bus serial mib <<<"$d"
		disks+="${disks:+,}{\"bus\":\"$bus\",\"serial\":\"$serial\",\"size\":$((mib << 20))}"
	done
	for d in "${PS_MACS[@]}"; do macs+="${macs:+,}\"$d\""; done
	qm_stick_get "$work/stick.img" /manifest.json "$work/manifest.json" 2>/dev/null ||
		echo null >"$work/manifest.json"
	# The module and the userland are built from the same uapi header.
	abi=$(sed -n 's/^#define PROBESTICK_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$PS_TOP/kmod/uapi/probestick.h")
	# The steps the plan must have run: those compiled in for it, as the program lists them.
	steps=$("$PS_TOP/${OUT:-out}/probestick" steps 2>/dev/null |
		awk -v plan="$plan" 'NR > 1 && ("," $2 ",") ~ ("," plan ",") {printf "%s\"%s\"", n++ ? "," : "", $1}')
	printf '{"plan":"%s","disks":[%s],"macs":[%s],"mem":%d,"stick_size":%d,"manifest":%s,"module_abi":%d,"module":"%s","steps":[%s]}\n' \
		"$plan" "$disks" "$macs" $((PS_MEM_MIB << 20)) "$(stat -c %s "$work/stick.img")" \
		"$(cat "$work/manifest.json")" "${abi:-0}" "${PS_EXPECT_MODULE:-loaded}" "$steps"
}

ps_need_tools() { qm_need_tools "$@"; }

ps_scenario_reprepare() { ps_prepare "$PS_SC_IMG" "$PS_SC_WORK" quick poweroff; }

# ps_scenario FIRMWARE TIMEOUT_S NAME [CHECK]: boot the built image with the
# quick plan and power-off, then check the report it left on the stick; with
# CHECK (a Python script), also run CHECK REPORT_JSON EXPECT_JSON.
ps_scenario() {
	local fw=$1 limit=$2 name=$3 extra=${4:-} rc
	local img=${PS_IMAGE:-$PS_TOP/${OUT:-out}/probestick.img}
	local work=$PS_TOP/${OUT:-out}/boot-tests/$name report
	case $work in /*) ;; *) work=$PWD/$work ;; esac
	ps_need_tools "$fw" || return $?
	ps_prepare "$img" "$work" quick poweroff || return 1
	# A retry boots a fresh copy of the stick and fresh disks.
	PS_SC_IMG=$img PS_SC_WORK=$work
	PS_RETRY_HOOK=ps_scenario_reprepare ps_boot "$fw" "$work" "$limit" || return 1
	report=$(ps_fetch_reports "$work")
	if [ -z "$report" ]; then
		ps_log "$fw: the guest powered off but left no report.json in /reports on the stick. Serial tail:"
		ps_serial_tail "$work" 50 >&2
		return 1
	fi
	ps_expect_json "$work" quick >"$work/expect.json"
	$PS_PY "$PS_TOP/tests/boot/check_report.py" "$report" "$work/expect.json" "$PS_TOP/${OUT:-out}/gen/report-schema.json"
	rc=$?
	if [ -n "$extra" ]; then
		$PS_PY "$extra" "$report" "$work/expect.json" || rc=1
	fi
	echo "boot-to-banner ($fw): ${PS_BANNER_S:-none} s (kernel started at ${PS_KERNEL_S:-?} s)"
	if [ $rc -ne 0 ]; then
		ps_log "$fw: report check failed; serial tail:"
		ps_serial_tail "$work" 30 >&2
		return 1
	fi
	if [ -z "$PS_BANNER_S" ]; then
		ps_log "$fw: no line starting with 'probestick' on the serial console after the kernel started"
		return 1
	fi
	return 0
}
