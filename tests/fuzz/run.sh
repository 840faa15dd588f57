#!/usr/bin/env bash
# Run the libFuzzer harnesses one after the other and print, per harness,
# executions, coverage and crashes. Usage: tests/fuzz/run.sh [-t SECONDS] [HARNESS...]
# (default: 600 s each, every harness built in $OUT/fuzz). Each run starts
# from tests/fuzz/corpus/<h> and tests/fuzz/regressions/<h>, grows
# $FUZZ_WORK/corpus/<h>, and leaves what crashed in $FUZZ_WORK/artifacts/<h>/.
# libFuzzer writes what it finds into the first directory it is given only, so
# the scratch corpus goes first and the checked-in seeds after it; a run that
# still left a file in tests/fuzz/ fails (a seed is added on purpose, by hand).
# Exit 1 when any harness crashed, timed out, ran out of memory or did not start.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bins=$OUT/fuzz
work=${FUZZ_WORK:-$OUT/fuzz}
secs=600
while getopts t: opt; do
	case $opt in
	t) secs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $(realpath -m "$work")/ in "$(realpath tests/fuzz)"/*)
	echo "fuzz: FUZZ_WORK=$work is inside tests/fuzz/: libFuzzer would write into the checked-in seeds" >&2
	exit 2
	;;
esac
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
	for src in tests/fuzz/fuzz_*.c; do
		h=${src#tests/fuzz/fuzz_}
		harnesses+=("${h%.c}")
	done
fi

rows=() bad=0
run_marker=$(mktemp)
trap 'rm -f "$run_marker"' EXIT
for h in "${harnesses[@]}"; do
	bin=$bins/fuzz_$h
	if [ ! -x "$bin" ]; then
		echo "fuzz: $bin is not built (make fuzz-build)" >&2
		rows+=("$(printf '%-16s %s' "$h" "NOT BUILT")")
		bad=1
		continue
	fi
	corpus=$work/corpus/$h artifacts=$work/artifacts/$h log=$work/logs/$h.log
	mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
	seeds=()
	for d in tests/fuzz/corpus/$h tests/fuzz/regressions/$h; do
		[ -d "$d" ] && seeds+=("$d")
	done
	opts=(-max_total_time="$secs" -print_final_stats=1 -timeout="${FUZZ_TIMEOUT:-10}"
		-rss_limit_mb="${FUZZ_RSS_MB:-2048}" -artifact_prefix="$artifacts/")
	[ -f "tests/fuzz/dict/$h.dict" ] && opts+=(-dict="tests/fuzz/dict/$h.dict")
	marker=$(mktemp)
	echo "fuzz: $h for $secs s ..." >&2
	start=$SECONDS
	"$bin" "${opts[@]}" "$corpus" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	took=$((SECONDS - start))
	# The final figures: executions from the stats, cov/ft/corp from the last status line.
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's|.* corp: \([0-9]*\)/.*|\1|p' <<<"$last")
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
	found=()
	while IFS= read -r f; do
		found+=("$f")
	done < <(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
		-o -name 'oom-*' \) -newer "$marker" 2>/dev/null)
	rm -f "$marker"
	status=ok
	if [ ${#found[@]} -gt 0 ]; then
		status="CRASH ${found[0]}"
		bad=1
	elif [ $rc -ne 0 ]; then
		status="FAILED (exit $rc, see $log)"
		bad=1
	fi
	rows+=("$(printf '%-16s %5s %11s %8s %6s %6s %6s %6s %7s  %s' "$h" "$took" "${execs:--}" \
		"$([ -n "$execs" ] && [ "$took" -gt 0 ] && echo $((execs / took)) || echo -)" \
		"${cov:--}" "${ft:--}" "${corp:--}" "${rss:--}" "${#found[@]}" "$status")")
	echo "${rows[-1]}" >&2
done

written=$(find tests/fuzz/corpus tests/fuzz/regressions -newer "$run_marker" ! -type d 2>/dev/null)
if [ -n "$written" ]; then
	echo "fuzz: the run wrote into the checked-in seeds (remove them; new inputs belong in $work/corpus/):" >&2
	head -n 5 <<<"$written" >&2
	bad=1
fi

printf '\n%-16s %5s %11s %8s %6s %6s %6s %6s %7s  %s\n' harness secs execs exec/s cov ft corpus rss_mb crashes status
printf '%s\n' "${rows[@]}"
exit $bad
