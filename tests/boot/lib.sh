# Boot-test library (sourced): the one place that builds the QEMU machine,
# boots a COPY of the stick image in it and reads the report back.
# The guest: q35, 512 MiB, 2 CPUs, the stick on USB (xHCI), one SATA, one
# NVMe and one virtio disk of known sizes and serials, two e1000e NICs with
# known MACs on a QEMU hub. Sizes, serials and MACs below are what the
# scenarios check the report against.

PS_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PS_PY=/usr/bin/python3
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null

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
#   PS_APPEND    words added to the kernel command line of every syslinux
#                entry in the image copy (BIOS only)
#   PS_KERNEL, PS_INITRD, PS_CMDLINE   boot this kernel and initrd directly
#                (-kernel/-initrd/-append) instead of the stick's boot loader
OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd

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
	mcopy -o -i "$work/stick.img@@1M" "$work/probestick.cfg" ::/probestick.cfg
	if [ -n "${PS_APPEND:-}" ]; then
		mcopy -n -i "$work/stick.img@@1M" ::/syslinux/syslinux.cfg "$work/syslinux.cfg" || return 1
		sed -i "s|^\([[:space:]]*APPEND .*\)|\1 $PS_APPEND|" "$work/syslinux.cfg"
		mcopy -o -i "$work/stick.img@@1M" "$work/syslinux.cfg" ::/syslinux/syslinux.cfg || return 1
		ps_log "kernel command line + '$PS_APPEND' (syslinux)"
	fi
}

# ps_qemu_cmd FIRMWARE WORKDIR: fills the array PS_QEMU with the command line.
# FIRMWARE is bios (SeaBIOS, QEMU's default) or uefi (OVMF).
ps_qemu_cmd() {
	local fw=$1 work=$2 d name bus serial mib i=0 port=1
	PS_QEMU=(qemu-system-x86_64 -M q35 -accel "${PS_ACCEL:-tcg}" -m "$PS_MEM_MIB" -smp 2
		-nodefaults -vga std -display none -no-reboot
		-serial "file:$work/serial.log"
		-smbios "type=17,loc_pfx=DIMM,bank=BANK,manufacturer=probestick,serial=PSDIMM0001,part=PS-QEMU-RAM,speed=3200")
	if [ -n "${PS_KERNEL:-}" ]; then
		PS_QEMU+=(-kernel "$PS_KERNEL" -initrd "$PS_INITRD" -append "${PS_CMDLINE:-}")
	fi
	if [ "$fw" = uefi ]; then
		cp "$OVMF_VARS" "$work/OVMF_VARS.fd"
		PS_QEMU+=(-drive "if=pflash,format=raw,readonly=on,file=$OVMF_CODE"
			-drive "if=pflash,format=raw,file=$work/OVMF_VARS.fd")
	fi
	# PCIe devices each behind their own root port, as on real boards, so
	# that each has a link of its own (QEMU trains them at 2.5 GT/s x1).
	rootport() {
		PS_QEMU+=(-device "pcie-root-port,id=rp$port,bus=pcie.0,chassis=$port,addr=$(printf 0x%x $((port + 15)))")
		port=$((port + 1))
	}
	rootport
	PS_QEMU+=(-device "qemu-xhci,id=xhci,bus=rp$((port - 1))"
		-drive "if=none,id=stick,format=raw,file=$work/stick.img"
		-device "usb-storage,bus=xhci.0,drive=stick$([ -n "${PS_KERNEL:-}" ] || echo ,bootindex=0),removable=on")
	for d in "${PS_DISKS[@]}"; do
		read -r name bus serial mib <<<"$d"
		PS_QEMU+=(-drive "if=none,id=$name,format=raw,file=$work/$name.raw")
		case $bus in
		sata) PS_QEMU+=(-device "ide-hd,bus=ide.0,drive=$name,serial=$serial") ;;
		nvme)
			rootport
			PS_QEMU+=(-device "nvme,bus=rp$((port - 1)),drive=$name,serial=$serial")
			;;
		virtio)
			rootport
			PS_QEMU+=(-device "virtio-blk-pci,bus=rp$((port - 1)),drive=$name,serial=$serial")
			;;
		esac
	done
	for i in "${!PS_MACS[@]}"; do
		rootport
		PS_QEMU+=(-netdev "hubport,id=n$i,hubid=0"
			-device "e1000e,bus=rp$((port - 1)),netdev=n$i,mac=${PS_MACS[$i]}")
	done
}

# ps_boot FIRMWARE WORKDIR TIMEOUT_S: boots, waits for the guest to power
# off. Sets PS_BANNER_S (seconds from QEMU start to the first line starting
# with "probestick" or "init: probestick" after the kernel started: /init's
# banner; "" if none) and PS_KERNEL_S (the kernel's first message on the serial line).
# Returns 0 when QEMU exited by itself, 1 on timeout (QEMU is then killed).
ps_boot() {
	local fw=$1 work=$2 limit=$3 pid start now rc
	# The first kernel message with a timestamp: on UEFI the serial console
	# does not always replay the "Linux version" line.
	local kmark='^\[ *[0-9]*\.[0-9]*\] '
	ps_qemu_cmd "$fw" "$work"
	: >"$work/serial.log"
	printf '%q ' "${PS_QEMU[@]}" >"$work/qemu.cmd"
	echo >>"$work/qemu.cmd"
	PS_BANNER_S="" PS_KERNEL_S=""
	start=$EPOCHREALTIME
	"${PS_QEMU[@]}" >"$work/qemu.out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		now=$EPOCHREALTIME
		if [ -z "$PS_KERNEL_S" ] && grep -aq "$kmark" "$work/serial.log"; then
			PS_KERNEL_S=$(ps_elapsed "$start" "$now")
		fi
		if [ -n "$PS_KERNEL_S" ] && [ -z "$PS_BANNER_S" ] &&
			tr -d '\r' <"$work/serial.log" | sed -n "/$kmark/,\$p" | grep -aq '^\(init: *\)\?probestick[ :]'; then
			PS_BANNER_S=$(ps_elapsed "$start" "$now")
		fi
		if [ "$(ps_elapsed "$start" "$now" | cut -d. -f1)" -ge "$limit" ]; then
			kill "$pid" 2>/dev/null
			sleep 1
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			ps_log "$fw: no power-off within $limit s; QEMU killed. Last 50 serial lines:"
			ps_serial_tail "$work" 50 >&2
			return 1
		fi
		sleep 0.25
	done
	wait "$pid"
	rc=$?
	if [ $rc -ne 0 ]; then
		ps_log "$fw: QEMU exited with status $rc:"
		sed 's/^/    /' "$work/qemu.out" >&2
		return 1
	fi
	ps_log "$fw: powered off after $(ps_elapsed "$start" "$EPOCHREALTIME") s; kernel at ${PS_KERNEL_S:-?} s, banner at ${PS_BANNER_S:-?} s"
	return 0
}

ps_elapsed() {
	local a=${1/./} b=${2/./}
	local d=$(((10#$b - 10#$a) / 10000))
	printf '%d.%02d\n' $((d / 100)) $((d % 100))
}

# ps_fetch_reports WORKDIR: copies /reports from the image copy to
# WORKDIR/reports; prints the newest report.json path (empty if none).
ps_fetch_reports() {
	local work=$1
	rm -rf "$work/reports"
	mkdir -p "$work/reports"
	mcopy -s -n -i "$work/stick.img@@1M" '::/reports/*' "$work/reports/" 2>/dev/null || true
	find "$work/reports" -name report.json -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-
}

# ps_serial_tail WORKDIR [N]: the last N lines the guest printed, readable.
ps_serial_tail() {
	tr -d '\r' <"$1/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | tail -n "${2:-50}" | sed 's/^/    /'
}

# ps_expect_json WORKDIR PLAN: what check_report.py compares the report with.
ps_expect_json() {
	local work=$1 plan=$2 d name bus serial mib disks="" macs="" abi steps
	for d in "${PS_DISKS[@]}"; do
		read -r name bus serial mib <<<"$d"
		disks+="${disks:+,}{\"bus\":\"$bus\",\"serial\":\"$serial\",\"size\":$((mib << 20))}"
	done
	for d in "${PS_MACS[@]}"; do macs+="${macs:+,}\"$d\""; done
	mcopy -n -i "$work/stick.img@@1M" ::/manifest.json "$work/manifest.json" 2>/dev/null ||
		echo null >"$work/manifest.json"
	# The module and the userland are built from the same uapi header.
	abi=$(sed -n 's/^#define PROBESTICK_ABI_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$PS_TOP/kmod/uapi/probestick.h")
	# The steps the plan must have run: those compiled in for it, as the program lists them.
	steps=$("$PS_TOP/${OUT:-out}/probestick" steps 2>/dev/null |
		awk -v plan="$plan" 'NR > 1 && ("," $2 ",") ~ ("," plan ",") {printf "%s\"%s\"", n++ ? "," : "", $1}')
	printf '{"plan":"%s","disks":[%s],"macs":[%s],"mem":%d,"stick_size":%d,"manifest":%s,"module_abi":%d,"steps":[%s]}\n' \
		"$plan" "$disks" "$macs" $((PS_MEM_MIB << 20)) "$(stat -c %s "$work/stick.img")" \
		"$(cat "$work/manifest.json")" "${abi:-0}" "$steps"
}

ps_need_tools() {
	local fw=$1
	command -v qemu-system-x86_64 >/dev/null || { echo "skip: qemu-system-x86_64 is not installed (scripts/deps.sh)"; return 77; }
	command -v mcopy >/dev/null || { echo "skip: mtools is not installed (scripts/deps.sh)"; return 77; }
	if [ "$fw" = uefi ] && { [ ! -r "$OVMF_CODE" ] || [ ! -r "$OVMF_VARS" ]; }; then
		echo "skip: OVMF ($OVMF_CODE) is not installed (scripts/deps.sh: ovmf)"
		return 77
	fi
	return 0
}

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
	ps_boot "$fw" "$work" "$limit" || return 1
	report=$(ps_fetch_reports "$work")
	if [ -z "$report" ]; then
		ps_log "$fw: the guest powered off but left no report.json in /reports on the stick. Serial tail:"
		ps_serial_tail "$work" 50 >&2
		return 1
	fi
	ps_expect_json "$work" quick >"$work/expect.json"
	$PS_PY "$PS_TOP/tests/boot/check_report.py" "$report" "$work/expect.json" "$PS_TOP/docs/report-schema.json"
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
