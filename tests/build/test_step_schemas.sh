#!/usr/bin/env bash
# Every compiled-in step passes the registry: its view names only paths its
# data schema has (a typo in a view is a refusal, printed here, not a "-" in a
# report; tests/unit/test_registry.c shows one refused), and a step with a
# result table has no //schema: lines beside it. In out/gen/report-schema.json
# every step has a fragment, and a typed step's is strict at every level (no
# member it does not name), so a key a step writes without naming it fails
# the unit tests that run the step (tests/unit/step_harness.h).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
schema=$OUT/gen/report-schema.json
if [ ! -x "$bin" ] || [ ! -s "$schema" ]; then
	echo "needs $bin and $schema: run make first"
	exit 77
fi
refused=$("$bin" steps 2>&1 >/dev/null)
if [ -n "$refused" ]; then
	echo "FAIL: the registry refuses steps:"
	echo "$refused"
	exit 1
fi
typed=$(grep -l '^    \.result = ' userland/steps/*.c | xargs -n1 basename | sed 's/\.c$//')
mapfile -t names < <("$bin" steps | awk 'NR > 1 && NF && $1 != "RECORDER" {print $1} $1 == "RECORDER" {exit}')
/usr/bin/python3 - "$schema" "${names[*]}" "$typed" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
names, typed = sys.argv[2].split(), sys.argv[3].split()
frags = {r["if"]["properties"]["name"]["const"]: r["then"]["properties"]["data"]
         for r in schema["$defs"]["step"]["allOf"]}
bad = [n for n in names if n not in frags]
def loose(s, at):
    out = []
    if not isinstance(s, dict):
        return out
    t = s.get("type")
    if t == "object" or (isinstance(t, list) and "object" in t):
        if "properties" in s and s.get("additionalProperties") is not False:
            out.append(at or "/")
    for k, v in s.get("properties", {}).items():
        out += loose(v, f"{at}/{k}")
    if "items" in s:
        out += loose(s["items"], f"{at}/[]")
    for alt in s.get("anyOf", []):
        out += loose(alt, at)
    return out
for n in typed:
    for at in loose(frags.get(n, {}), ""):
        bad.append(f"{n}: {at} is not strict")
if bad:
    print("FAIL:", *bad, sep="\n  ")
    sys.exit(1)
print(f"step schemas: {len(names)} steps pass the registry; {len(typed)} typed ({', '.join(typed)}) strict at every level")
PY
