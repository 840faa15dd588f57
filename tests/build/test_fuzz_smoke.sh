#!/usr/bin/env bash
# Every libFuzzer harness still builds, replays its regression inputs (each
# crash fuzzing found once) and its seeds, and fuzzes a few seconds
# (FUZZ_SMOKE_S, default 3) without a crash. make fuzz is the long run.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
secs=${FUZZ_SMOKE_S:-3}
if ! command -v "${FUZZ_CC:-clang-14}" >/dev/null; then
	echo "FAIL: ${FUZZ_CC:-clang-14} is missing: run make deps (scripts/deps.sh installs it)"
	exit 1
fi
# A make of its own: the jobserver of a calling make is not passed down here.
env -u MAKEFLAGS -u MAKELEVEL make -s -j2 PS_SKIP_DEPS=1 fuzz-build

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 replayed=0
for dir in tests/fuzz/regressions/*/; do
	[ -d "$dir" ] || continue
	h=$(basename "$dir")
	mapfile -t inputs < <(find "$dir" -type f ! -name '*.md' | sort)
	[ ${#inputs[@]} -gt 0 ] || continue
	if ! "$OUT/fuzz/fuzz_$h" -runs=1 "${inputs[@]}" >"$tmp/replay-$h.log" 2>&1; then
		echo "FAIL: a regression input of $h crashes again:"
		grep -E 'Running:|ERROR|check failed|runtime error' "$tmp/replay-$h.log" | tail -n 5
		bad=1
	fi
	replayed=$((replayed + ${#inputs[@]}))
done
echo "replayed $replayed regression inputs"

# Seeds and regressions are loaded first, so a harness that crashes at once fails here.
if ! FUZZ_WORK=$tmp tests/fuzz/run.sh -t "$secs"; then
	for log in "$tmp"/logs/*.log; do
		grep -q -E 'ERROR|check failed|runtime error' "$log" || continue
		echo "--- $log"
		grep -E -m 3 -A 12 'ERROR|check failed|runtime error' "$log" | head -n 30
	done
	bad=1
fi
exit $bad
