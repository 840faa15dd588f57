#!/usr/bin/env bash
# Host check of `probestick bench probes` before make bench spends minutes in
# QEMU: option errors, a missing device, and one short run (with fio) to JSON.
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
expect_rc 2 probes --runs 0
expect_rc 2 probes --bs 1000
expect_rc 2 probes --seconds x
expect_rc 2 probes --frobnicate 1
expect_rc 1 probes --dev "$work/missing"

# A sparse file: no module on the host, so only probes-off runs.
truncate -s 64M "$work/disk.img"
fio_arg=()
command -v fio >/dev/null || fio_arg=(--fio none)
"$ps" bench probes --dev "$work/disk.img" --runs 2 --seconds 1 --json "$work/r.json" \
	"${fio_arg[@]}" >"$work/out" 2>&1 || fail "the short run failed: $(cat "$work/out")"
/usr/bin/python3 - "$work/r.json" "${#fio_arg[@]}" <<'PY' || fail "bad JSON: $(cat "$work/r.json")"
import json, sys
r = json.load(open(sys.argv[1]))
with_fio = sys.argv[2] == "0"
tools = ["probestick"] + (["fio"] if with_fio else [])
assert r["bs"] == 4096 and r["qd"] == 32 and r["runs_per_mode"] == 2, r
assert [x["tool"] for x in r["runs"]] == [t for _ in range(2) for t in tools], r["runs"]
for t in tools:
    s = r["summary"][t]
    assert s["off"]["runs"] == 2 and s["off"]["median_iops"] > 0, s
    assert s["off"]["min_iops"] <= s["off"]["median_iops"] <= s["off"]["max_iops"], s
    if not r["module"]:
        assert s["on"]["runs"] == 0 and s["ratio_on_off"] is None, s
if with_fio:
    assert r["ours_over_fio"]["off"] > 0, r
PY
grep -q '^probestick  ' "$work/out" || fail "no summary line in: $(cat "$work/out")"

# bench mem: option errors, then a short run with the reference there is.
expect_rc 2 mem --runs 0
expect_rc 2 mem --ref nonsense
expect_rc 2 mem --array-mib 1
"$ps" bench mem --runs 2 --array-mib 8 --passes 3 --json "$work/m.json" >"$work/out" 2>&1 ||
	fail "the short memory run failed: $(cat "$work/out")"
/usr/bin/python3 - "$work/m.json" <<'PY' || fail "bad JSON: $(cat "$work/m.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["array_bytes"] == 8 << 20 and r["runs"] == 2 and r["passes"] == 3, r
assert r["ours"]["runs"] == 2 and r["ours"]["median_gbps"] > 0, r
if r["reference"] != "none":
    assert r["ref"]["runs"] == 2 and r["ratio"] > 0, r
assert r["goal"] in ("met", "missed", "not measurable here"), r
PY
echo "bench selftest: ok$([ ${#fio_arg[@]} -eq 0 ] && echo ", with fio")"
