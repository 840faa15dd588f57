#!/usr/bin/env bash
# Host check of `probestick bench` before make bench spends minutes in QEMU:
# option errors, a missing device, and short runs of probes, engine (with fio)
# and mem to JSON.
# Usage: tests/bench/selftest.sh [PROBESTICK]
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
ps=${1:-$OUT/probestick}
work=$OUT/bench-selftest
fail() {
	echo "bench selftest: $*" >&2
	exit 1
}
[ -x "$ps" ] || fail "$ps is missing (make userland)"
rm -rf "$work"
mkdir -p "$work"

expect_rc() { # RC ARGS...
	local want=$1 rc=0
	shift
	"$ps" bench "$@" >"$work/out" 2>&1 || rc=$?
	[ "$rc" -eq "$want" ] || fail "'probestick bench $*' exited $rc, not $want: $(cat "$work/out")"
}
expect_rc 2
expect_rc 2 nonsense
expect_rc 2 probes --pairs 0
expect_rc 2 probes --bs 1000
expect_rc 2 probes --seconds x
expect_rc 2 probes --frobnicate 1
expect_rc 1 probes --dev "$work/missing"
expect_rc 2 engine --pairs 0
expect_rc 2 engine --cap x
expect_rc 2 mem --pairs 0
expect_rc 2 mem --ref nonsense
expect_rc 2 mem --array-mib 1

# A sparse file: no module on the host, so one probes-off run per tool.
truncate -s 64M "$work/disk.img"
fio_arg=()
command -v fio >/dev/null || fio_arg=(--fio none)
"$ps" bench probes --dev "$work/disk.img" --pairs 2 --seconds 1 --json "$work/r.json" \
	"${fio_arg[@]}" >"$work/out" 2>&1 || fail "the short run failed: $(cat "$work/out")"
/usr/bin/python3 - "$work/r.json" "${#fio_arg[@]}" <<'PY' || fail "bad JSON: $(cat "$work/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
with_fio = sys.argv[2] == "0"
tools = ["probestick"] + (["fio"] if with_fio else [])
assert r["bs"] == 4096 and r["qd"] == 32 and r["goal_ratio"] == 0.97, r
assert sorted(r["tools"]) == sorted(tools), r["tools"]
for t in tools:
    s = r["tools"][t]
    if r["module"]:
        assert s["verdict"] in ("above", "below", "undecided") and len(s["pairs"]) >= 2, s
    else:
        assert s["off_iops"] > 0, s
PY

# The engine against fio: two pairs per case cannot decide, and say so.
if [ ${#fio_arg[@]} -eq 0 ]; then
	"$ps" bench engine --dev "$work/disk.img" --pairs 2 --seconds 1 --cap 0 \
		--json "$work/e.json" >"$work/out" 2>&1 || fail "the short engine run failed: $(cat "$work/out")"
	/usr/bin/python3 - "$work/e.json" <<'PY' || fail "bad JSON: $(cat "$work/e.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert [c["case"] for c in r["cases"]] == ["random 4K QD32", "sequential 1M QD8"], r
for c in r["cases"]:
    assert len(c["pairs"]) == 2 and c["verdict"] == "undecided", c
    assert [p["first"] for p in c["pairs"]] == ["probestick", "fio"], c
    assert all(p["a"] > 0 and p["b"] > 0 for p in c["pairs"]), c
    assert c["interval95"] == [None, None] and "needs 6 pairs" in c["why"], c
PY
	grep -q 'goal probestick/fio >= 1.05: undecided after 2 pairs' "$work/out" ||
		fail "no judgement line in: $(cat "$work/out")"
fi

# bench mem: a short run with the reference there is.
if command -v likwid-bench >/dev/null || command -v stress-ng >/dev/null; then
	"$ps" bench mem --pairs 2 --cap 0 --array-mib 8 --passes 3 --json "$work/m.json" \
		>"$work/out" 2>&1 || fail "the short memory run failed: $(cat "$work/out")"
	/usr/bin/python3 - "$work/m.json" <<'PY' || fail "bad JSON: $(cat "$work/m.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["array_bytes"] == 8 << 20 and r["passes"] == 3 and len(r["pairs"]) == 2, r
assert r["median_a"] > 0 and r["median_b"] > 0 and r["verdict"] == "undecided", r
PY
fi
echo "bench selftest: ok$([ ${#fio_arg[@]} -eq 0 ] && echo ", with fio")"
