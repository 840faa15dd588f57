#!/usr/bin/env bash
# The probe-cost benchmark (tests/bench/probe_cost, make bench) still builds
# probestick.ko's probe and core code unchanged over its host shims, and the
# code it times really records: every completion it times lands in the block
# latency histograms. Not a timing: a handful of events, no figure checked.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
export OUT
out=$(tests/bench/probe_cost.sh 2000 2)
echo "$out"
grep -q '^check: the block latency histograms hold 4000 values, for the 4000 completions timed$' <<<"$out"
for what in 'block: request issue + completion' 'hardirq: handler entry + exit' 'softirq: entry + exit'; do
	grep -q "^  $what  *[0-9.]* ns" <<<"$out"
done
echo "test_probe_cost: ok"
