#!/usr/bin/env bash
# KUnit suites of probestick.ko's decoders, run in a UML kernel built from
# Debian's linux-source (the shipped kernel has no CONFIG_KUNIT).
# Usage: tests/kunit/run.sh [kunit.py filter glob, e.g. 'probestick_pcie_link']
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
PS_CACHE=${PS_CACHE:-$HOME/.cache/probestick}
src=$PS_CACHE/linux-source-6.1
build=$PS_CACHE/kunit-build
tarball=/usr/src/linux-source-6.1.tar.xz
python=/usr/bin/python3
start=$SECONDS

die() {
	echo "kunit: $*" >&2
	exit 1
}

mkdir -p "$PS_CACHE"
# One build dir, one builder: two kunit.py runs in it would corrupt it.
exec 9>"$PS_CACHE/kunit-build.lock"
if ! flock -n 9; then
	echo "kunit: waiting for another KUnit run in $build"
	flock 9
fi

if [ ! -f "$src/tools/testing/kunit/kunit.py" ]; then
	[ -f "$tarball" ] || die "$tarball is missing: install linux-source-6.1 (scripts/deps.sh does)"
	echo "kunit: extracting $tarball into $PS_CACHE"
	tmp=$(mktemp -d "$PS_CACHE/linux-source.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" || {
		rm -rf "$tmp"
		die "cannot extract $tarball"
	}
	rm -rf "$src"
	mv "$tmp/linux-source-6.1" "$src"
	rmdir "$tmp"
fi

# Copy only what changed, so unchanged files keep their mtime and the
# rebuild stays incremental.
place() {
	local from=$1 to=$2
	mkdir -p "$(dirname "$to")"
	if ! cmp -s "$from" "$to"; then
		cp "$from" "$to"
	fi
}

# Append a hook line once; its file's mtime changes only the first time.
hook() {
	local line=$1 file=$2
	grep -qxF "$line" "$file" || printf '%s\n' "$line" >>"$file"
}

dst=$src/drivers/misc/probestick
for f in pcie_decode.c pcie_decode.h pcie_decode_kunit.c pcie_verdict.h pcie_fields.h hist_layout.h \
	smbios17.h smbios17_kunit.c imc_decode.c imc_decode.h imc_decode_kunit.c \
	mce_decode.h mce_decode_kunit.c \
	kc_tables.c kc_tables.h kc_window.c kc_window.h kc_registry.c kc_registry.h kc_core.h \
	kc_hist_kunit.c kc_rqpair_kunit.c kc_window_kunit.c kc_registry_kunit.c; do
	place "$repo/kmod/$f" "$dst/$f"
done
place "$repo/kmod/uapi/probestick.h" "$dst/uapi/probestick.h"
place "$repo/kmod/wrapper/pci_regs.h" "$dst/wrapper/pci_regs.h"
place "$here/Kconfig" "$dst/Kconfig"
place "$here/Makefile" "$dst/Makefile"
place "$here/probestick.kunitconfig" "$build/probestick.kunitconfig"
hook 'source "drivers/misc/probestick/Kconfig"' "$src/drivers/misc/Kconfig"
hook 'obj-$(CONFIG_PROBESTICK_KUNIT_TEST)	+= probestick/' "$src/drivers/misc/Makefile"

log=$build/probestick-kunit.log
json=$build/probestick-kunit.json
rm -f "$json"
echo "kunit: building and running in $build (log: $log)"
set +e
(cd "$src" && "$python" tools/testing/kunit/kunit.py run \
	--build_dir="$build" \
	--kunitconfig="$build/probestick.kunitconfig" \
	--jobs=2 --timeout=300 --json="$json" "$@" </dev/null) >"$log" 2>&1
rc=$?
set -e
grep -E '^\[[0-9:]+\] ' "$log" | grep -v 'stty' || true

if [ ! -s "$json" ]; then
	tail -n 40 "$log" >&2
	die "kunit.py produced no results (exit $rc): see $log"
fi

# Leaf test cases of the KernelCI-style JSON: each parameter of a
# parameterised case is one test.
read -r passed failed skipped < <("$python" - "$json" <<'PY'
import json, sys
counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
def walk(group):
    for case in group.get("test_cases", []):
        status = case.get("status", "FAIL")
        counts[status if status in counts else "FAIL"] += 1
    for sub in group.get("sub_groups", []):
        walk(sub)
walk(json.load(open(sys.argv[1])))
print(counts["PASS"], counts["FAIL"], counts["SKIP"])
PY
)

echo "kunit: $((SECONDS - start)) s, kunit.py exit $rc"
echo "$passed passed, $failed failed, $skipped skipped"
if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
	exit 1
fi
if [ "$passed" -eq 0 ]; then
	die "no test passed: are the probestick suites in the kunitconfig?"
fi
