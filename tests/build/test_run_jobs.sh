#!/usr/bin/env bash
# tests/run runs PS_JOBS scenarios at a time: two scenarios overlap with
# PS_JOBS=2 and never with PS_JOBS=1, one marked "tests/run: alone" runs
# with nothing beside it (after the rest), and every result is counted once.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/boot"
cp tests/run "$tmp/tests/run"
# test_a and test_b each wait up to 4 s to see the other running; b then
# runs on, so that c would start beside it if "alone" were not kept.
for me in a b; do
	other=$([ $me = a ] && echo b || echo a)
	linger=$([ $me = a ] && echo 0.2 || echo 2)
	cat >"$tmp/tests/boot/test_$me" <<T
#!/bin/sh
touch "\$OUT/running.$me"
i=0
while [ \$i -lt 40 ]; do
	[ -e "\$OUT/running.$other" ] && { echo $me >>"\$OUT/overlap"; break; }
	sleep 0.1; i=\$((i + 1))
done
sleep $linger
rm -f "\$OUT/running.$me"
T
done
cat >"$tmp/tests/boot/test_c" <<'T'
#!/bin/sh
# tests/run: alone
touch "$OUT/running.c"
ls "$OUT" | grep -q '^running\.[abd]$' && { echo "c ran beside $(ls "$OUT")"; exit 1; }
sleep 1
rm -f "$OUT/running.c"
T
cat >"$tmp/tests/boot/test_d" <<'T'
#!/bin/sh
touch "$OUT/running.d"
[ -e "$OUT/running.c" ] && { echo "d ran beside c"; exit 1; }
rm -f "$OUT/running.d"
exit 77
T
chmod +x "$tmp"/tests/boot/test_*
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
for jobs in 2 1; do
	out=$tmp/out$jobs
	set +e
	(cd "$tmp" && env -u PS_ACCEL OUT="$out" PS_JOBS=$jobs tests/run boot) >"$tmp/run$jobs.txt" 2>&1
	rc=$?
	set -e
	sed "s/^/PS_JOBS=$jobs: /" "$tmp/run$jobs.txt"
	[ $rc -eq 0 ] || bad "PS_JOBS=$jobs: tests/run exited $rc"
	grep -q '^3 passed, 0 failed, 1 skipped' "$tmp/run$jobs.txt" || bad "PS_JOBS=$jobs: the summary does not count 3 passed, 1 skipped"
	for t in a b c d; do
		[ "$(grep -c "^boot/test_$t " "$tmp/run$jobs.txt")" -eq 1 ] || bad "PS_JOBS=$jobs: test_$t is not reported once"
	done
done
[ "$(sort "$tmp/out2/overlap" 2>/dev/null | tr -d '\n')" = ab ] || bad "PS_JOBS=2: test_a and test_b did not run at the same time"
[ ! -e "$tmp/out1/overlap" ] || bad "PS_JOBS=1: two scenarios ran at the same time"
set +e
(cd "$tmp" && OUT="$tmp/o" PS_JOBS=x tests/run boot) >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || bad "PS_JOBS=x was not refused (exit $rc)"
[ $fail -eq 0 ] && echo "PASS: PS_JOBS lanes, alone scenarios and the counts"
exit $fail
