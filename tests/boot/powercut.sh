#!/usr/bin/env bash
# powercut.sh WORK BOOT...: the power cut test. Boots the standard machine
# (tests/boot/lib.sh) again and again on one stick, the stick on usb-storage
# with cache=writethrough (what the guest saw written is on the image), runs
# the unattended quick plan and cuts the power (SIGKILL to QEMU) at the
# moment each BOOT names; after every boot tests/boot/check_powercut.py
# checks the stick (fsck.fat -n, every report.json parses, earlier reports
# byte-identical, the run cut before marked as such). BOOT is one of
#   after-write:STEP   right after the write that follows STEP
#   in-write:STEP      while that write runs
#   during:STEP:S      S seconds into STEP
#   at:S               S seconds into the plan
#   random             a moment drawn at random over the plan (PS_POWERCUT_SEED); one
#                      that falls after that boot's plan ended is drawn again (5 at most)
#   measure            no cut: the plan runs to its end, timed (random needs it)
#   final              no cut: the plan runs to its end
# A boot the serial watcher stops (a lockup, RCU stall or silence), or that
# panicked, is checked as a cut at that moment; when it shows QEMU's
# multi-threaded TCG hang (docs/design.md) the same boot runs once more under
# -accel tcg,thread=single and the hang is counted, after the kernel's
# boot-time timer check panicked on a busy host it runs once more; any other
# hang or panic fails.
# Prints one line per boot and the figures; summary in WORK/summary.txt.
# Exit 0 when every check passed.
. "$(dirname "$0")/lib.sh"

work=$1
shift
case $work in /*) ;; *) work=$PWD/$work ;; esac
img=${PS_IMAGE:-$PS_TOP/${OUT:-out}/probestick.img}
limit=${PS_BOOT_TIMEOUT:-240}
ps_need_tools bios || exit $?
command -v fsck.fat >/dev/null || { echo "skip: fsck.fat is not installed (scripts/deps.sh: dosfstools)"; exit 77; }
rm -rf "$work"
ps_prepare "$img" "$work" quick poweroff || exit 1
state=$work/state.json results=$work/results.jsonl
: >"$results"
seed=${PS_POWERCUT_SEED:-$$}
RANDOM=$seed
plan_s=""
fails=0
here=$PS_TOP/tests/boot

# The fresh stick, before any boot: nothing for fsck.fat to say.
$PS_PY "$here/check_powercut.py" --image "$work/stick.img" --state "$work/fresh.json" \
	--serial /dev/null --fresh || fails=$((fails + 1))

# hung: the watcher stopped boot $n. The stick is checked as after a cut;
# QEMU's TCG hang queues the same boot again, single-threaded, once.
hung() {
	$PS_PY "$here/check_powercut.py" --image "$work/stick.img" --state "$state" \
		--serial "$work/serial.log" --hung "$QM_STATUS${QW_SIGNATURE:+, signature $QW_SIGNATURE}" \
		--result "$results" || fails=$((fails + 1))
	cp "$work/serial.log" "$work/serial-$n-hung.log"
	if [ "$QW_SIGNATURE" = tcg-stale-int3 ] && [ -z "$accel" ] && [ "${PS_ACCEL:-tcg}" = tcg ]; then
		ps_log "boot $n: QEMU's multi-threaded TCG hang (docs/design.md): this boot once more under -accel tcg,thread=single"
		queue=("${queue[@]:0:$n}" "$boot" "${queue[@]:$n}")
		single=1 tcg_hangs=$((tcg_hangs + 1))
	elif [ "$QW_SIGNATURE" = ioapic-timer-check ] && [ "$timer_retries" -lt 2 ]; then
		ps_log "boot $n: the kernel's boot-time timer check panicked on a busy host: this boot once more"
		queue=("${queue[@]:0:$n}" "$boot" "${queue[@]:$n}")
		timer_retries=$((timer_retries + 1))
	else
		fails=$((fails + 1))
	fi
}

n=0 retries=0 single="" tcg_hangs=0 timer_retries=0
queue=("$@")
while [ "$n" -lt "${#queue[@]}" ]; do
	boot=${queue[$n]}
	n=$((n + 1))
	accel=${single:+tcg,thread=single} single=""
	PS_ACCEL=${accel:-${PS_ACCEL:-}} PS_STICK_CACHE=writethrough ps_machine bios "$work" || exit 1
	qm_start "$limit" "${PS_SILENCE:-120}" || exit 1
	wait=(--serial "$work/serial.log" --image "$work/stick.img" --pid-file "$work/qemu.pid" --limit "$limit")
	final=() cutline=""
	case $boot in
	final | measure)
		if [ "$boot" = measure ]; then
			out=$($PS_PY "$here/powercut_wait.py" "${wait[@]}" --measure)
			plan_s=${out#plan: }
		fi
		if ! qm_wait; then
			ps_log "boot $n ($boot) did not end with a power-off: $QM_STATUS"
			case $QM_STATUS in lockup | rcu_stall | silence | timeout | panic) hung ;; *) fails=$((fails + 1)) ;; esac
			continue
		fi
		final=(--final)
		;;
	*)
		case $boot in
		after-write:*) how=(--after-write "${boot#*:}") ;;
		in-write:*) how=(--in-write "${boot#*:}") ;;
		during:*:*)
			b=${boot#during:}
			how=(--during "${b%%:*}" "${b#*:}")
			;;
		at:*) how=(--at "${boot#at:}") ;;
		random)
			[ -n "$plan_s" ] || { ps_log "random needs a measure boot first"; exit 2; }
			# a moment in [0, plan) in tenths of a second
			t=$((RANDOM * 32768 + RANDOM))
			t=$((t % ${plan_s%.*}0))
			how=(--at "$((t / 10)).$((t % 10))")
			;;
		*)
			ps_log "unknown boot '$boot'"
			exit 2
			;;
		esac
		cutline=$($PS_PY "$here/powercut_wait.py" "${wait[@]}" "${how[@]}")
		if ! qm_kill; then
			ps_log "boot $n ($boot): the guest ended before the cut ($QM_STATUS: $QM_REASON)"
			case $QM_STATUS in
			poweroff) final=(--final) ;;
			lockup | rcu_stall | silence | timeout | panic)
				hung
				continue
				;;
			*)
				fails=$((fails + 1))
				continue
				;;
			esac
			# a random moment after this boot's plan ended cut nothing: draw
			# another, so that the figure counts the cuts asked for
			if [ "$boot" = random ] && [ "$retries" -lt 5 ]; then
				retries=$((retries + 1))
				queue=("${queue[@]:0:$n}" random "${queue[@]:$n}")
			fi
		fi
		;;
	esac
	$PS_PY "$here/check_powercut.py" --image "$work/stick.img" --state "$state" \
		--serial "$work/serial.log" --cut "$cutline" --result "$results" "${final[@]}" ||
		fails=$((fails + 1))
	cp "$work/serial.log" "$work/serial-$n.log"
done

$PS_PY - "$results" "$seed" "$plan_s" "$tcg_hangs" <<'PY' | tee "$work/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cuts = [r for r in rows if not r["final"] and not r.get("hung")]
hangs = [r for r in rows if r.get("hung")]
between = [r for r in cuts if not r["in_write"]]
inside = [r for r in cuts if r["in_write"]]
failed = [r for r in rows if r["failures"]]
print("power cuts: %d (seed %s, plan %s s)" % (len(cuts), sys.argv[2], sys.argv[3] or "?"))
print("  between writes: %d, stick clean (fsck.fat -n) right after the cut: %d" %
      (len(between), sum(r["fsck_clean"] for r in between)))
print("  inside a write (dirty flag set): %d, left for the next boot to repair" % len(inside))
stopped = {}
for r in cuts:
    k = "after the plan's last write" if r.get("run_complete") else \
        "before the first write" if not r["run"] else "during " + str(r["running_step"])
    stopped[k] = stopped.get(k, 0) + 1
print("  where the runs stopped: %s" % ", ".join("%s %d" % kv for kv in sorted(stopped.items())))
print("boots: %d, with every check passed: %d" % (len(rows), len(rows) - len(failed)))
print("hangs the watcher stopped (the stick checked as after a cut): %d, QEMU's TCG hang rerun "
      "single-threaded: %s%s" % (len(hangs), sys.argv[4], "".join("\n  boot %d: %s" % (r["boot"], r["hung"]) for r in hangs)))
for r in failed:
    print("  boot %d (%s): %s" % (r["boot"], r["cut"] or "final", "; ".join(r["failures"])))
PY
[ $fails -eq 0 ]
