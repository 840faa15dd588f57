#!/usr/bin/env bash
# tests/run gives a boot test that failed with QEMU's multi-threaded TCG hang
# signature one more run under -accel tcg,thread=single, one that panicked in
# the boot-time timer check (signature ioapic-timer-check) one more run, and
# only those: a plain failure, or one already retried by tests/lib/qemu.sh,
# is not rerun.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/boot"
cp tests/run "$tmp/tests/run"
# hangs multi-threaded, passes single-threaded
cat >"$tmp/tests/boot/test_hangs" <<'T'
#!/bin/sh
[ "${PS_ACCEL:-}" = tcg,thread=single ] && { echo "ran single"; exit 0; }
echo "qemu: stopped the guest after 99 s: silent: no output (signature tcg-stale-int3)"
exit 1
T
# panics in the boot-time timer check, then passes: one plain rerun
cat >"$tmp/tests/boot/test_panics" <<'T'
#!/bin/sh
echo "run ${PS_ACCEL:-default}" >>"$OUT/panics.count"
[ "$(wc -l <"$OUT/panics.count")" -gt 1 ] && { echo "booted"; exit 0; }
echo "qemu: stopped the guest after 1 s: panic: Kernel panic - not syncing: IO-APIC + timer doesn't work! (signature ioapic-timer-check)"
exit 1
T
# fails for another reason: no retry
cat >"$tmp/tests/boot/test_fails" <<'T'
#!/bin/sh
echo "run $PS_ACCEL" >>"$OUT/fails.count"
exit 1
T
# already retried by qm_run: no second retry
cat >"$tmp/tests/boot/test_retried" <<'T'
#!/bin/sh
echo "run" >>"$OUT/retried.count"
echo "qemu: Retrying once under -accel tcg,thread=single; first attempt's log in x"
echo "qemu: stopped the guest after 99 s: silent: no output (signature tcg-stale-int3)"
exit 1
T
chmod +x "$tmp"/tests/boot/test_*
set +e
(cd "$tmp" && env -u PS_ACCEL OUT="$tmp/out" tests/run boot) >"$tmp/out.txt" 2>&1
rc=$?
set -e
cat "$tmp/out.txt"
fail=0
[ $rc -ne 0 ] || { echo "FAIL: tests/run passed with two failing tests"; fail=1; }
grep -q '^boot/test_hangs .*(TCG hang, single-threaded retry) ok' "$tmp/out.txt" ||
	{ echo "FAIL: test_hangs was not retried single-threaded and passed"; fail=1; }
grep -q 'ran single' "$tmp/out/test-logs/boot_test_hangs.log" ||
	{ echo "FAIL: the retry's output is not in the test's log"; fail=1; }
[ -s "$tmp/out/test-logs/boot_test_hangs.hang-1.log" ] ||
	{ echo "FAIL: the first attempt's log was not kept"; fail=1; }
[ "$(wc -l <"$tmp/out/fails.count")" -eq 1 ] || { echo "FAIL: a plain failure was rerun"; fail=1; }
grep -q '^boot/test_panics .*(timer check panic, retry) ok' "$tmp/out.txt" ||
	{ echo "FAIL: test_panics was not run once more and passed"; fail=1; }
[ "$(paste -sd' ' "$tmp/out/panics.count")" = "run default run default" ] ||
	{ echo "FAIL: test_panics ran $(paste -sd' ' "$tmp/out/panics.count"), not twice as it was"; fail=1; }
[ "$(wc -l <"$tmp/out/retried.count")" -eq 1 ] ||
	{ echo "FAIL: a test qemu.sh had retried was rerun"; fail=1; }
grep -q '2 failed' "$tmp/out.txt" || { echo "FAIL: the summary should count 2 failures"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: only the hung boot test got its single-threaded run"
exit $fail
