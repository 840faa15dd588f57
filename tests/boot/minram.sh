#!/usr/bin/env bash
# How much memory the stick needs (issue 29): boots the built image with the
# quick plan in guests of different sizes, as the boot tests' standard
# machine (three target disks, two NICs), and says which sizes completed it.
# Not part of make test: every boot takes 2-4 minutes. Each boot takes
# /tmp/ps-qemu.lock for itself (one guest at a time on a shared host), so
# other tests' guests run between them; do not wrap the script in flock.
#
#   tests/boot/minram.sh bisect FW [LO HI]   the smallest size in MiB (a
#       multiple of MINRAM_STEP, default 8) at which the plan completes,
#       between LO (default 128) and HI (default 256), which must complete
#   tests/boot/minram.sh repeat FW MIB N     N boots at MIB: how many completed
#   tests/boot/minram.sh pad FW MIB [HI]     the most incompressible MiB the
#       initramfs can grow by (a multiple of MINRAM_STEP, at most HI, default
#       64) and still complete at MIB: the headroom test_initramfs_budget holds
#   tests/boot/minram.sh profile FW MIB      one boot whose memory is sampled
#       every 0.25 s (tests/boot/guest/memsample.sh on a second serial port):
#       per step, the lowest MemAvailable, the initramfs in tmpfs (Shmem),
#       page cache beyond it, the program's peak RSS and its pinned pages
#
# FW is bios (SeaBIOS, syslinux), uefi (OVMF, GRUB, Secure Boot off) or
# uefi-secure. MINRAM_NO_MODULE=1 boots with module_blacklist=probestick:
# the machine as a Secure Boot kernel that refuses the module leaves it.
# "Completes" means the guest powered off by itself after the quick plan
# and its report.json on the stick says complete, every step pass or warn
# (or skipped as the boot tests expect: disk_write without a scratch drive,
# the peer steps without a peer). Each boot's line gives /init's memory line
# (MemTotal, the lowest MemAvailable of its 1 s watch, the peak use); a boot
# that did not complete says where it stopped. Logs: out/minram/.
. "$(dirname "$0")/lib.sh"

mode=${1:-} fw=${2:-}
step=${MINRAM_STEP:-8}
usage() {
	sed -n '5,/^# FW is/p' "$0" >&2
	exit 2
}
case $fw in bios | uefi | uefi-secure) ;; *) usage ;; esac
ps_need_tools "$fw" || exit $?
out=$PS_TOP/${OUT:-out}
case $out in /*) ;; *) out=$PWD/$out ;; esac
dir=$out/minram
mkdir -p "$dir"
img=${PS_IMAGE:-$out/probestick.img}
[ -s "$img" ] || {
	echo "minram: $img is missing (make)" >&2
	exit 2
}
if [ "${MINRAM_NO_MODULE:-0}" = 1 ]; then
	export PS_APPEND="${PS_APPEND:+$PS_APPEND }module_blacklist=probestick"
	what="without the module"
else
	what="with the module"
fi
n_boot=0

# boot MIB: one boot; 0 when the quick plan completed. Prints one line.
boot() {
	local mib=$1 work=$dir/boot rc=0 why mem lock stuck
	n_boot=$((n_boot + 1))
	PS_MEM_MIB=$mib
	ps_prepare "$img" "$work" quick poweroff >/dev/null 2>&1 || {
		echo "minram: cannot prepare the image copy" >&2
		exit 2
	}
	ps_machine "$fw" "$work" || exit 2
	[ "$mode" != profile ] || qm_arg -serial "file:$work/serial2.log"
	QM_MARKS=()
	QM_RETRY_HOOK=""
	exec {lock}>/tmp/ps-qemu.lock
	flock "$lock"
	qm_start "$([ "$fw" = bios ] && echo 420 || echo 540)" 150 >"$dir/qemu.log" 2>&1
	# a boot that cannot get anywhere is stopped at once: the kernel's panic
	# (it would wait for ever) or GRUB going round its menu after a failure
	stuck=0
	while kill -0 "$QM_PID" 2>/dev/null; do
		if tr -d '\r' 2>/dev/null <"$work/serial.log" |
			grep -aqE 'Kernel panic|Failed to boot both default and fallback|error: out of memory'; then
			sleep 2
			qm_kill >/dev/null 2>&1
			stuck=1
			break
		fi
		sleep 1
	done
	if [ $stuck = 1 ]; then
		rc=1 QM_STATUS=stopped QM_REASON="it cannot go on"
	else
		qm_wait >>"$dir/qemu.log" 2>&1 || rc=1
	fi
	exec {lock}>&-
	tr -d '\r' <"$work/serial.log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g' >"$dir/$fw-$mib-$n_boot.log"
	mem=$(grep -a -o 'memory: [0-9]* MiB in all.*' "$dir/$fw-$mib-$n_boot.log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		why=$(report_complete "$work") || rc=1
	else
		why="$QM_STATUS: $QM_REASON"
	fi
	if [ $rc -ne 0 ]; then
		# where it stopped: the last words of the boot loader, the kernel or /init
		why="$why; $(grep -a -E 'out of memory|Decompression failed|Initramfs unpacking failed|Out of memory: Killed|Kernel panic|crashed|error:' \
			"$dir/$fw-$mib-$n_boot.log" | head -n 2 | tr '\n' ' ' | cut -c1-160)"
	fi
	printf 'minram %-11s %4d MiB%s (%s): %s  %s\n' "$fw" "$mib" \
		"$([ "${PS_INITRD_PAD_MIB:-0}" -gt 0 ] && echo ", initrd +$PS_INITRD_PAD_MIB MiB")" "$what" \
		"$([ $rc -eq 0 ] && echo completed || echo "FAILED ($why)")" "${mem:-no memory line}"
	return $rc
}

# report_complete WORK: the newest report on the stick copy says the quick plan completed.
report_complete() {
	local report
	report=$(ps_fetch_reports "$1")
	[ -n "$report" ] || {
		echo "no report.json on the stick"
		return 1
	}
	PS_BOOT_DIR=$PS_TOP/tests/boot $PS_PY - "$report" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["PS_BOOT_DIR"])
from check_report import skipped_as_expected
r = json.load(open(sys.argv[1]))
bad = []
if r.get("plan") != "quick" or r.get("complete") is not True:
    bad.append("report: plan %r, complete %r" % (r.get("plan"), r.get("complete")))
for s in r.get("steps") or []:
    if not skipped_as_expected(s.get("name"), s) and s.get("status") not in ("pass", "warn"):
        bad.append("step %s %s" % (s.get("name"), s.get("status")))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}

case $mode in
bisect)
	lo=${3:-128} hi=${4:-256}
	boot "$hi" || {
		echo "minram: the plan does not complete at the upper bound $hi MiB" >&2
		exit 1
	}
	# invariant: hi completes, lo does not (or is the floor)
	if boot "$lo"; then
		echo "minram: $fw $what: completes at the lower bound $lo MiB already"
		exit 0
	fi
	while [ $((hi - lo)) -gt "$step" ]; do
		mid=$(((lo + hi) / 2 / step * step))
		[ "$mid" -gt "$lo" ] || mid=$((lo + step))
		if boot "$mid"; then hi=$mid; else lo=$mid; fi
	done
	echo "minram: $fw $what: the quick plan completes at $hi MiB, not at $lo MiB ($n_boot boots)"
	;;
repeat)
	mib=${3:-} n=${4:-}
	[[ $mib =~ ^[0-9]+$ && $n =~ ^[0-9]+$ ]] || usage
	ok=0
	for _ in $(seq 1 "$n"); do
		boot "$mib" && ok=$((ok + 1))
	done
	echo "minram: $fw $what at $mib MiB: $ok of $n boots completed the quick plan"
	[ "$ok" -eq "$n" ]
	;;
pad)
	mib=${3:-} hi=${4:-64}
	[[ $mib =~ ^[0-9]+$ && $hi =~ ^[0-9]+$ ]] || usage
	lo=0
	# invariant: lo MiB of padding completes, hi does not
	boot "$mib" || {
		echo "minram: the plan does not complete at $mib MiB even without padding" >&2
		exit 1
	}
	PS_INITRD_PAD_MIB=$hi
	if boot "$mib"; then
		echo "minram: $fw at $mib MiB completes even with $hi MiB more initramfs"
		exit 0
	fi
	while [ $((hi - lo)) -gt "$step" ]; do
		mid=$(((lo + hi) / 2 / step * step))
		[ "$mid" -gt "$lo" ] || mid=$((lo + step))
		PS_INITRD_PAD_MIB=$mid
		if boot "$mib"; then lo=$mid; else hi=$mid; fi
	done
	echo "minram: $fw $what at $mib MiB: completes with $lo MiB more initramfs, not with $hi MiB ($n_boot boots)"
	;;
profile)
	mib=${3:-}
	[[ $mib =~ ^[0-9]+$ ]] || usage
	export PS_APPEND="${PS_APPEND:+$PS_APPEND }rdinit=/sbin/memprofile"
	PS_INITRD_ADD="sbin/memprofile=$PS_TOP/tests/boot/guest/memsample.sh"
	rc=0
	boot "$mib" || rc=1
	cp "$dir/boot/serial2.log" "$dir/$fw-$mib-profile.log" 2>/dev/null
	$PS_PY - "$dir/$fw-$mib-profile.log" <<'PY'
import re, sys
rows, order = {}, []
oom = []
for line in open(sys.argv[1], errors="replace"):
    if "Out of memory: Killed" in line:
        oom.append(line.split(";", 1)[-1].strip())
    if not line.startswith("M "):
        continue
    head, *procs = line.rstrip("\n").split(" | ")
    f = head.split()
    step = f[2] if len(f) > 2 and "=" not in f[2] else "(boot)"
    kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
    if step not in rows:
        rows[step] = {"avail": 1 << 60, "shmem": 0, "cache": 0, "rss": 0, "pin": 0}
        order.append(step)
    r = rows[step]
    try:
        r["avail"] = min(r["avail"], int(kv["MemAvailable"]))
        r["shmem"] = max(r["shmem"], int(kv["Shmem"]))
        r["cache"] = max(r["cache"], int(kv["Cached"]) - int(kv["Shmem"]))
    except (KeyError, ValueError):
        continue
    for p in procs:
        m = re.match(r"\d+:probestick rss=(\d*) hwm=(\d*) pin=(\d*)", p)
        if m:
            r["rss"] = max(r["rss"], int(m.group(1) or 0))
            r["pin"] = max(r["pin"], int(m.group(3) or 0))
if not order:
    sys.exit("profile: no samples on the second serial port")
print("%-14s %9s %9s %9s %9s %9s" % ("phase", "avail min", "tmpfs", "cache", "prog rss", "pinned"))
for s in order:
    r = rows[s]
    print("%-14s %6d KiB %6d KiB %6d KiB %6d KiB %6d KiB" % (s, r["avail"], r["shmem"], r["cache"], r["rss"], r["pin"]))
for o in oom:
    print("OOM: " + o)
PY
	exit $rc
	;;
*) usage ;;
esac
