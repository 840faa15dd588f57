#!/usr/bin/env bash
# make soak: the quick plan booted N times in a row, as test_bios_quick
# boots it (copy of the stick, report checked), counting hangs and failures.
# Not part of make test. Environment: SOAK_N (30), SOAK_FW (bios, uefi, or
# both: alternating), SOAK_RETRY (1: a TCG hang is retried single-threaded
# and a panic of the boot-time timer check once more,
# as in every boot test, and counted; 0: no retry, the hang fails the boot).
# Per-boot logs in out/soak/NNN.log, the summary in out/soak/summary.txt.
. "$(dirname "$0")/lib.sh"

n=${SOAK_N:-30}
fws=${SOAK_FW:-bios}
case $n in '' | *[!0-9]* | 0)
	echo "soak: SOAK_N takes a whole number above 0, not '$n'" >&2
	exit 2
	;;
esac
case $fws in
bios | uefi) fws=("$fws") ;;
both) fws=(bios uefi) ;;
*)
	echo "soak: SOAK_FW is bios, uefi or both, not '$fws'" >&2
	exit 2
	;;
esac
out=$PS_TOP/${OUT:-out}
case $out in /*) ;; *) out=$PWD/$out ;; esac
dir=$out/soak
rm -rf "$dir"
mkdir -p "$dir"
ps_need_tools "${fws[-1]}" || exit $?
[ "${SOAK_RETRY:-1}" = 1 ] || export PS_NO_RETRY=1

passed=0 retried_ok=0 tcg_hangs=0 other_hangs=0 timer_panics=0 failed=0 total_s=0 slowest=0
hang_list="" fail_list=""
start_all=$SECONDS
for i in $(seq 1 "$n"); do
	fw=${fws[$(((i - 1) % ${#fws[@]}))]}
	log=$dir/$(printf %03d "$i").log
	start=$SECONDS
	QM_FIRST_STATUS="" QM_FIRST_SIGNATURE="" QM_STATUS="" QM_RETRIED=0
	ps_scenario "$fw" "$([ "$fw" = uefi ] && echo 360 || echo 240)" soak >"$log" 2>&1
	rc=$?
	s=$((SECONDS - start))
	total_s=$((total_s + s))
	[ $s -le $slowest ] || slowest=$s
	first=${QM_FIRST_STATUS:-?} sig=${QM_FIRST_SIGNATURE:-}
	case $first in
	lockup | rcu_stall | silence | timeout)
		if [ "$sig" = tcg-stale-int3 ]; then
			tcg_hangs=$((tcg_hangs + 1))
		else
			other_hangs=$((other_hangs + 1))
		fi
		hang_list+="${hang_list:+ }$i:$first${sig:+($sig)}"
		# Keep the hung attempt's console for the record.
		cp -r "$out/boot-tests/soak/hang-1" "$dir/$(printf %03d "$i")-hang" 2>/dev/null ||
			cp "$out/boot-tests/soak/serial.log" "$dir/$(printf %03d "$i")-hang.serial.log" 2>/dev/null
		;;
	panic)
		# the boot-time timer check on a busy host: retried, counted apart from hangs
		[ "$sig" != ioapic-timer-check ] || timer_panics=$((timer_panics + 1))
		;;
	esac
	if [ $rc -eq 0 ]; then
		if [ "$QM_RETRIED" = 1 ]; then
			retried_ok=$((retried_ok + 1))
			what="passed on the retry after a $first${sig:+ ($sig)}"
		else
			passed=$((passed + 1))
			what=passed
		fi
	else
		failed=$((failed + 1))
		fail_list+="${fail_list:+ }$i"
		what="FAILED ($QM_STATUS: $(grep -a -m1 -E 'report:|check|FAIL|stopped' "$log" | cut -c1-60))"
	fi
	printf 'soak %3d/%d %-4s %4d s  %s\n' "$i" "$n" "$fw" "$s" "$what"
done

{
	echo "soak: $n boots of the quick plan (${fws[*]}) in $(((SECONDS - start_all) / 60)) min $(((SECONDS - start_all) % 60)) s"
	echo "  passed first time:            $passed"
	echo "  passed on a retry:            $retried_ok"
	echo "  failed:                       $failed${fail_list:+ (boots $fail_list)}"
	echo "  hangs seen:                   $((tcg_hangs + other_hangs)) (TCG signature $tcg_hangs, other $other_hangs)${hang_list:+: $hang_list}"
	echo "  timer-check panics (retried): $timer_panics"
	echo "  boot time:                    mean $((total_s / n)) s, slowest $slowest s"
	echo "  logs:                         $dir"
} | tee "$dir/summary.txt"
[ $failed -eq 0 ] && [ $((tcg_hangs + other_hangs)) -eq 0 ]
