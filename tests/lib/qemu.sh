# The QEMU launcher (sourced): every test that boots a guest describes its
# machine with these functions, boots it with qm_run and reads the stick
# back with qm_stick_get. Nothing else in the tree builds a QEMU command line.
#
#   qm_new WORK                  a q35 machine, QM_MEM MiB, QM_SMP CPUs, TCG,
#                                no devices; its files go in WORK
#   qm_firmware bios|uefi|uefi-secure
#   qm_kernel KERNEL INITRD CMDLINE      direct kernel boot
#   qm_smbios17 PROPS            one memory device (SMBIOS type 17)
#   qm_rootport [SPEED [WIDTH]]  a PCIe root port (x-speed 2_5|5|8|16, x-width
#                                1..32); its id in QM_PORT
#   qm_stick IMG [boot]          the stick: USB mass storage behind an xHCI
#                                on a root port of its own (QM_STICK_CACHE: the
#                                drive's cache= mode, e.g. writethrough)
#   qm_disk NAME BUS SERIAL MIB [FILE [PROPS]]
#                                a disk (sata, nvme, virtio, usb) with a raw
#                                file of MIB MiB (made sparse when missing);
#                                nvme and virtio each behind a root port
#   qm_blkdebug NAME CONF        disk NAME behind blkdebug (injected errors)
#   qm_nic MAC [MODEL [NETDEV [PROPS]]]  a NIC (e1000e by default) behind a
#                                root port; NETDEV hub[:N] (a QEMU hub,
#                                default hub 0), listen:PORT or connect:PORT
#                                (stream socket on 127.0.0.1),
#                                dgram:LOCAL:REMOTE (UDP on 127.0.0.1), or
#                                tap:IFNAME (a tap device the caller made in
#                                a network namespace of its own: refused in
#                                the machine's own namespace)
#   qm_device PROPS / qm_drive PROPS / qm_arg ARGS...   anything else
#   qm_run LIMIT_S [SILENCE_S]   boot, watch the console, wait for power-off
#   qm_start LIMIT_S [SILENCE_S], qm_expect REGEX TIMEOUT_S, qm_wait
#                                the same in steps, to act while it runs
#   qm_kill                      SIGKILL the running guest's QEMU (a power
#                                cut) and wait for the watcher: QM_STATUS=killed
#   qm_mon COMMAND               an HMP command on the running guest
#                                (set_link, pcie_aer_inject_error, qom-get ...)
#   QM_SERIAL_IN=1 (after qm_new), qm_serial_send TEXT
#                                type on the guest's serial line (the log is
#                                written as before; TEXT takes printf escapes)
#   qm_stick_get IMG SRC DEST, qm_stick_put IMG SRC DEST, qm_stick_ls IMG DIR
#
# Every guest runs under TCG (-accel tcg, QM_ACCEL; KVM hangs on this host).
# QM_QEMU names the emulator (default qemu-system-x86_64; tests use a fake).
# qm_run follows the serial console (tests/lib/serial_watch.py) and stops a
# guest that printed a soft lockup or RCU stall, or printed nothing for
# SILENCE_S; it then prints the last 50 console lines and fails. A hang with
# the signature of QEMU's stale-translation bug under multi-threaded TCG
# (docs/design.md, "Hangs under multi-threaded TCG") is retried once under
# -accel tcg,thread=single, and the output says so.

QM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
QM_PY=/usr/bin/python3
export MTOOLS_SKIP_CHECK=1 MTOOLSRC=/dev/null
QM_OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
QM_OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
# Secure Boot: the SMM build of OVMF and variables with Microsoft's keys enrolled.
QM_OVMF_SB_CODE=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
QM_OVMF_SB_VARS=/usr/share/OVMF/OVMF_VARS_4M.ms.fd

qm_log() { echo "qemu: $*" >&2; }

# qm_new WORK: forget the previous machine, start describing a new one.
# Callers may change QM_MEM, QM_SMP, QM_ACCEL, QM_VGA (std or none) after it.
qm_new() {
	QM_WORK=$1
	case $QM_WORK in /*) ;; *) QM_WORK=$PWD/$QM_WORK ;; esac
	mkdir -p "$QM_WORK"
	QM_MEM=512 QM_SMP=2 QM_ACCEL=${PS_ACCEL:-tcg} QM_VGA=std QM_FW=bios
	QM_KERNEL=() QM_SMBIOS=() QM_DEVS=()
	QM_NEXT_PORT=1 QM_PORT="" QM_XHCI="" QM_SATA_NEXT=0 QM_NIC_NEXT=0
	unset QM_BLKDEBUG
	declare -gA QM_BLKDEBUG=()
	# What a test may set before qm_run: marks to time, a function to call
	# before the single-threaded retry (it gets the same WORK), and whether
	# to retry at all.
	QM_MARKS=() QM_RETRY_HOOK="" QM_RETRY_SINGLE=1 QM_STICK_CACHE=""
	# 1: the serial line also reads what qm_serial_send types (a socket).
	QM_SERIAL_IN=0
	# 0: let a hung guest run on (experiments on the hang itself).
	QM_STOP_ON_HANG=1
}

qm_firmware() {
	case $1 in
	bios | uefi | uefi-secure) QM_FW=$1 ;;
	*)
		qm_log "qm_firmware: '$1' is not bios, uefi or uefi-secure"
		return 1
		;;
	esac
}

qm_kernel() { QM_KERNEL=(-kernel "$1" -initrd "$2" -append "$3"); }

qm_smbios17() { QM_SMBIOS+=(-smbios "type=17,$1"); }

qm_arg() { QM_DEVS+=("$@"); }
qm_device() { QM_DEVS+=(-device "$1"); }
qm_drive() { QM_DEVS+=(-drive "$1"); }

# qm_rootport [SPEED [WIDTH]]: root ports sit on pcie.0 from slot 0x10 up,
# one chassis each, as on real boards: every device behind one has a link
# of its own. Without SPEED/WIDTH QEMU's defaults apply.
qm_rootport() {
	local p=$QM_NEXT_PORT props
	props="pcie-root-port,id=rp$p,bus=pcie.0,chassis=$p,addr=$(printf 0x%x $((p + 15)))"
	[ -z "${1:-}" ] || props+=",x-speed=$1"
	[ -z "${2:-}" ] || props+=",x-width=$2"
	QM_DEVS+=(-device "$props")
	QM_PORT=rp$p
	QM_NEXT_PORT=$((p + 1))
}

qm_xhci() {
	[ -z "$QM_XHCI" ] || return 0
	qm_rootport
	QM_DEVS+=(-device "qemu-xhci,id=xhci,bus=$QM_PORT")
	QM_XHCI=xhci
}

# qm_stick IMG [boot]: the boot stick (removable USB mass storage); with
# "boot" it is the first boot device.
qm_stick() {
	qm_xhci
	QM_DEVS+=(-drive "if=none,id=stick,format=raw,file=$1${QM_STICK_CACHE:+,cache=$QM_STICK_CACHE}"
		-device "usb-storage,bus=xhci.0,drive=stick${2:+,bootindex=0},removable=on")
}

# qm_blkdebug NAME CONF: the next qm_disk NAME goes through QEMU's blkdebug
# driver with config file CONF (injected I/O errors).
qm_blkdebug() { QM_BLKDEBUG[$1]=$2; }

# qm_disk NAME BUS SERIAL MIB [FILE [PROPS]]: FILE defaults to WORK/NAME.raw,
# created sparse with MIB MiB when missing; PROPS are added to the -device.
qm_disk() {
	local name=$1 bus=$2 serial=$3 mib=$4 file=${5:-$QM_WORK/$1.raw} props=${6:+,$6} drive
	[ -e "$file" ] || truncate -s "${mib}M" "$file" || return 1
	drive=$file
	[ -z "${QM_BLKDEBUG[$name]:-}" ] || drive=blkdebug:${QM_BLKDEBUG[$name]}:$file
	QM_DEVS+=(-drive "if=none,id=$name,format=raw,file=$drive")
	case $bus in
	sata)
		QM_DEVS+=(-device "ide-hd,bus=ide.$QM_SATA_NEXT,drive=$name,serial=$serial$props")
		QM_SATA_NEXT=$((QM_SATA_NEXT + 1))
		;;
	nvme)
		qm_rootport
		QM_DEVS+=(-device "nvme,bus=$QM_PORT,drive=$name,serial=$serial$props")
		;;
	virtio)
		qm_rootport
		QM_DEVS+=(-device "virtio-blk-pci,bus=$QM_PORT,drive=$name,serial=$serial$props")
		;;
	usb)
		qm_xhci
		QM_DEVS+=(-device "usb-storage,bus=xhci.0,drive=$name,serial=$serial$props")
		;;
	*)
		qm_log "qm_disk $name: bus '$bus' is not sata, nvme, virtio or usb"
		return 1
		;;
	esac
}

# qm_nic MAC [MODEL [NETDEV [PROPS]]]: back-ends stay inside QEMU (hub), on
# 127.0.0.1, or on a tap device inside a namespace the test made (never in
# the host's own); never user-mode networking.
qm_nic() {
	local mac=$1 model=${2:-e1000e} netdev=${3:-hub} props=${4:+,$4} id=n$QM_NIC_NEXT nd
	case $netdev in
	hub) nd="hubport,id=$id,hubid=0" ;;
	hub:*) nd="hubport,id=$id,hubid=${netdev#hub:}" ;;
	listen:*) nd="socket,id=$id,listen=127.0.0.1:${netdev#listen:}" ;;
	connect:*) nd="socket,id=$id,connect=127.0.0.1:${netdev#connect:}" ;;
	dgram:*:*)
		local ports=${netdev#dgram:}
		nd="dgram,id=$id,local.type=inet,local.host=127.0.0.1,local.port=${ports%%:*}"
		nd+=",remote.type=inet,remote.host=127.0.0.1,remote.port=${ports#*:}"
		;;
	tap:*)
		if [ "$(readlink /proc/self/ns/net)" = "$(readlink /proc/1/ns/net)" ]; then
			qm_log "qm_nic $mac: a tap device only inside a network namespace of the test's own"
			return 1
		fi
		nd="tap,id=$id,ifname=${netdev#tap:},script=no,downscript=no"
		;;
	*)
		qm_log "qm_nic $mac: netdev '$netdev' is not hub[:N], listen:PORT, connect:PORT, dgram:L:R or tap:IF"
		return 1
		;;
	esac
	qm_rootport
	QM_DEVS+=(-netdev "$nd" -device "$model,bus=$QM_PORT,netdev=$id,mac=$mac$props")
	QM_NIC_NEXT=$((QM_NIC_NEXT + 1))
}

# qm_cmd: the command line, in the array QM_CMD (and WORK/qemu.cmd).
qm_cmd() {
	case $QM_ACCEL in
	tcg | tcg,*) ;;
	*)
		qm_log "QM_ACCEL=$QM_ACCEL: guests run under TCG only (-accel tcg...; KVM hangs on this host)"
		return 1
		;;
	esac
	local serial=(-serial "file:$QM_WORK/serial.log")
	if [ "$QM_SERIAL_IN" = 1 ]; then
		# A socket nobody needs to hold open: QEMU logs every byte sent to the file.
		serial=(-chardev "socket,id=ser0,path=$QM_WORK/serial.sock,server=on,wait=off,logfile=$QM_WORK/serial.log"
			-serial chardev:ser0)
	fi
	QM_CMD=("${QM_QEMU:-qemu-system-x86_64}" -M q35 -accel "$QM_ACCEL" -m "$QM_MEM" -smp "$QM_SMP"
		-nodefaults -vga "$QM_VGA" -display none -no-reboot
		"${serial[@]}"
		"${QM_SMBIOS[@]}" "${QM_KERNEL[@]}")
	case $QM_FW in
	uefi)
		cp "$QM_OVMF_VARS" "$QM_WORK/OVMF_VARS.fd" || return 1
		QM_CMD+=(-drive "if=pflash,format=raw,readonly=on,file=$QM_OVMF_CODE"
			-drive "if=pflash,format=raw,file=$QM_WORK/OVMF_VARS.fd")
		;;
	uefi-secure)
		cp "$QM_OVMF_SB_VARS" "$QM_WORK/OVMF_VARS.fd" || return 1
		QM_CMD+=(-global driver=cfi.pflash01,property=secure,value=on -machine smm=on
			-drive "if=pflash,format=raw,unit=0,readonly=on,file=$QM_OVMF_SB_CODE"
			-drive "if=pflash,format=raw,unit=1,file=$QM_WORK/OVMF_VARS.fd")
		;;
	esac
	QM_CMD+=("${QM_DEVS[@]}")
	# The monitor, for qm_mon and for the registers of a hung guest. A unix
	# socket path is limited to 107 bytes.
	QM_QMP=$QM_WORK/qmp.sock
	if [ ${#QM_QMP} -lt 100 ]; then
		QM_CMD+=(-qmp "unix:$QM_QMP,server=on,wait=off")
	else
		QM_QMP=""
	fi
	printf '%q ' "${QM_CMD[@]}" >"$QM_WORK/qemu.cmd"
	echo >>"$QM_WORK/qemu.cmd"
}

qm_need_tools() {
	local fw=${1:-bios}
	command -v qemu-system-x86_64 >/dev/null || { echo "skip: qemu-system-x86_64 is not installed (scripts/deps.sh)"; return 77; }
	command -v mcopy >/dev/null || { echo "skip: mtools is not installed (scripts/deps.sh)"; return 77; }
	case $fw in
	uefi) [ -r "$QM_OVMF_CODE" ] && [ -r "$QM_OVMF_VARS" ] ||
		{ echo "skip: OVMF ($QM_OVMF_CODE) is not installed (scripts/deps.sh: ovmf)"; return 77; } ;;
	uefi-secure) [ -r "$QM_OVMF_SB_CODE" ] && [ -r "$QM_OVMF_SB_VARS" ] ||
		{ echo "skip: OVMF with Secure Boot ($QM_OVMF_SB_CODE) is not installed (scripts/deps.sh: ovmf)"; return 77; } ;;
	esac
	return 0
}

# qm_run LIMIT_S [SILENCE_S]: boots the machine and waits until it powers
# off. Returns 0 when it did, 1 otherwise. Sets QM_STATUS (poweroff, exit,
# panic, timeout, silence, lockup, rcu_stall), QM_REASON, QM_ELAPSED,
# QM_MAX_GAP (longest console silence seen, s), QM_RETRIED (1 when the
# single-threaded retry ran), QM_FIRST_STATUS and QM_FIRST_SIGNATURE (the
# first attempt's, for counting hangs that a retry passed) and QM_MARK_<name> for every "name=REGEX" in
# QM_MARKS (seconds from start to the first matching line, each looked for
# after the one before it; "" if none).
qm_run() {
	local limit=$1 silence=${2:-} rc
	QM_RETRIED=0
	qm_run_once "$limit" "$silence"
	rc=$?
	QM_FIRST_STATUS=$QM_STATUS QM_FIRST_SIGNATURE=$QW_SIGNATURE
	[ $rc -ne 0 ] && [ "$QM_RETRY_SINGLE" = 1 ] || return $rc
	# A known failure that says nothing of the image gets one more boot: which
	# accelerator it runs under and what the log says depend on the signature.
	local accel=$QM_ACCEL passed
	case $QW_SIGNATURE in
	tcg-stale-int3)
		[ "$QM_ACCEL" = tcg ] || [ "$QM_ACCEL" = tcg,thread=multi ] || return $rc
		qm_log "the guest hung under multi-threaded TCG ($QM_STATUS: $QM_REASON) with the CPUs in"
		qm_log "a code patch's int3: QEMU's stale-translation hang (docs/design.md, tests/known/)."
		qm_log "Retrying once under -accel tcg,thread=single; first attempt's log in $QM_WORK/hang-1/"
		accel=tcg,thread=single passed="passed on the single-threaded retry (-accel tcg,thread=single)"
		;;
	ioapic-timer-check)
		qm_log "Retrying once: the kernel panicked in its boot-time timer check (\"IO-APIC + timer"
		qm_log "doesn't work!\"): a busy host kept the guest's CPU off its timer, which says nothing"
		qm_log "of the image; first attempt's log in $QM_WORK/hang-1/"
		passed="passed on the retry after the timer check's panic"
		;;
	*) return $rc ;;
	esac
	rm -rf "$QM_WORK/hang-1"
	mkdir -p "$QM_WORK/hang-1"
	cp "$QM_WORK"/serial.log "$QM_WORK"/qemu.cmd "$QM_WORK/hang-1/" 2>/dev/null
	[ ! -e "$QM_WORK/hang.txt" ] || mv "$QM_WORK/hang.txt" "$QM_WORK/hang-1/"
	if [ -n "$QM_RETRY_HOOK" ]; then
		"$QM_RETRY_HOOK" || return 1
	fi
	QM_ACCEL=$accel QM_RETRIED=1
	qm_run_once "$limit" "$silence"
	rc=$?
	[ $rc -ne 0 ] || qm_log "$passed"
	return $rc
}

qm_run_once() {
	qm_start "$@" || return 1
	qm_wait
}

# qm_start LIMIT_S [SILENCE_S]: boots the machine in the background (for a
# test that talks to it while it runs: qm_mon, qm_expect); qm_wait then
# waits for the end. No retry on this path: tests/run reruns a boot test that
# failed with the hang signature once under -accel tcg,thread=single.
qm_start() {
	local limit=$1 silence=${2:-} m args=()
	qm_cmd || return 1
	for m in "${QM_MARKS[@]}"; do args+=(--mark "$m"); done
	[ -z "$silence" ] || args+=(--silence "$silence")
	[ -z "$QM_QMP" ] || args+=(--qmp "$QM_QMP" --hang-info "$QM_WORK/hang.txt")
	[ "$QM_STOP_ON_HANG" = 1 ] || args+=(--keep-running)
	rm -f "$QM_WORK/hang.txt" "$QM_WORK/watch.result" "$QM_WORK/serial.log" "$QM_WORK/qemu.pid"
	$QM_PY "$QM_LIB/serial_watch.py" run --serial "$QM_WORK/serial.log" --pid-file "$QM_WORK/qemu.pid" \
		--timing "$QM_WORK/serial.timing" --result "$QM_WORK/watch.result" \
		--qemu-out "$QM_WORK/qemu.out" --limit "$limit" "${args[@]}" -- "${QM_CMD[@]}" &
	QM_PID=$!
}

# qm_expect REGEX TIMEOUT_S: waits until a console line matches the
# extended regular expression; fails when the guest ends or time runs out.
qm_expect() {
	local rx=$1 until=$((SECONDS + $2))
	while [ $SECONDS -lt $until ]; do
		tr -d '\r' 2>/dev/null <"$QM_WORK/serial.log" | grep -aqE -- "$rx" && return 0
		kill -0 "$QM_PID" 2>/dev/null || break
		sleep 0.25
	done
	tr -d '\r' 2>/dev/null <"$QM_WORK/serial.log" | grep -aqE -- "$rx"
}

# qm_wait: waits for the guest started by qm_start; as qm_run, without the retry.
qm_wait() {
	local m v
	wait "$QM_PID"
	QW_STATUS=exit QW_REASON="the serial watcher failed" QW_SIGNATURE="" QW_ELAPSED=0 QW_MAX_GAP=0
	# shellcheck disable=SC1091 # written by serial_watch.py just now
	[ ! -s "$QM_WORK/watch.result" ] || . "$QM_WORK/watch.result"
	QM_STATUS=$QW_STATUS QM_REASON=$QW_REASON QM_ELAPSED=$QW_ELAPSED QM_MAX_GAP=$QW_MAX_GAP
	for m in "${QM_MARKS[@]}"; do
		v="QW_MARK_${m%%=*}"
		printf -v "QM_MARK_${m%%=*}" '%s' "${!v:-}"
	done
	case $QM_STATUS in
	poweroff) return 0 ;;
	exit)
		qm_log "$QM_REASON:"
		sed 's/^/    /' "$QM_WORK/qemu.out" >&2
		;;
	*)
		qm_log "stopped the guest after $QM_ELAPSED s: $QM_STATUS: $QM_REASON${QW_SIGNATURE:+ (signature $QW_SIGNATURE)}"
		[ ! -s "$QM_WORK/hang.txt" ] || qm_log "the virtual CPUs' registers at that moment: $QM_WORK/hang.txt"
		qm_log "last 50 serial lines ($QM_WORK/serial.log):"
		qm_serial_tail 50 >&2
		;;
	esac
	return 1
}

# qm_kill: the power cut: SIGKILL to QEMU itself (not to the watcher), so
# the guest gets no chance to flush or unmount; waits for the watcher.
# Returns 0 when QEMU died of it (QM_STATUS=killed), 1 when it had ended before.
qm_kill() {
	local pid i
	for i in $(seq 1 40); do
		[ -s "$QM_WORK/qemu.pid" ] && break
		sleep 0.05
	done
	pid=$(cat "$QM_WORK/qemu.pid" 2>/dev/null)
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	qm_wait >/dev/null 2>&1
	[ "$QM_STATUS" = killed ]
}

# qm_serial_send TEXT: types TEXT (printf escapes: '3\r') on the serial line
# of the guest started by qm_start with QM_SERIAL_IN=1, one byte at a time
# as a person would.
qm_serial_send() {
	$QM_PY - "$QM_WORK/serial.sock" "$(printf '%b' "$1")" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
for _ in range(50):
    try:
        s.connect(sys.argv[1])
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("qm_serial_send: no serial socket at " + sys.argv[1])
for ch in sys.argv[2].encode():
    s.sendall(bytes([ch]))
    time.sleep(0.05)
time.sleep(0.2)
s.close()
PY
}

# qm_serial_tail [N [WORK]]: the last N lines the guest printed, readable.
qm_serial_tail() {
	tr -d '\r' <"${2:-$QM_WORK}/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' | tail -n "${1:-50}" | sed 's/^/    /'
}

# qm_mon COMMAND: runs an HMP command on the running guest, prints its answer.
qm_mon() {
	[ -n "${QM_QMP:-}" ] && [ -S "$QM_QMP" ] || {
		qm_log "qm_mon: no monitor socket (is the guest running?)"
		return 1
	}
	$QM_PY "$QM_LIB/serial_watch.py" mon "$QM_QMP" "$1"
}

# The stick's FAT partition starts at 1 MiB (image/build.sh).
# qm_stick_get IMG SRC DEST [MCOPY_FLAGS...] (-s: a folder tree).
qm_stick_get() {
	local img=$1 src=$2 dst=$3
	shift 3
	mcopy -n "$@" -i "$img@@1M" "::$src" "$dst"
}
qm_stick_put() { mcopy -o -i "$1@@1M" "$2" "::$3"; }
qm_stick_ls() { mdir -b -i "$1@@1M" "::$2"; }
