#!/usr/bin/env bash
# The rooms of userland/ keep to the table of tests/build/layering.sh, and
# the table has teeth: a copy of the tree with one include running back up
# (a lib/ file including core/, an engine including a step's core header,
# hw/ including record/, the report including the collector) fails it, each
# for its own edge.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail() {
	echo "FAIL: $*"
	exit 1
}

tests/build/layering.sh || fail "userland/ breaks the table (above)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for edge in "lib/util.c core/plan.h lib -> core" \
	"engines/io/uring_io.c core/step.h engines/io -> core" \
	"engines/net/ports.c engines/io/uring_io.h engines/net -> engines/io" \
	"hw/drives.c record/kmsg.h hw -> record" \
	"decode/kmsg.c hw/inventory.h decode -> hw" \
	"report/index.c collect/collect.h report -> collect"; do
	read -r file header src arrow dst <<<"$edge"
	rm -rf "$tmp/userland"
	cp -r userland "$tmp/userland"
	sed -i "0,/^#include \"/s||#include \"$header\"\n#include \"|" "$tmp/userland/$file"
	out=$(tests/build/layering.sh "$tmp/userland" 2>&1) &&
		fail "an include of $header in $file passed the table"
	grep -q "$src may not include $dst" <<<"$out" ||
		fail "the table did not name $src -> $dst for $file: $out"
	[ "$(tests/build/layering.sh --count "$tmp/userland")" = 1 ] ||
		fail "--count did not count the one back edge $src -> $dst"
done
echo "layering: 6 back edges put in a copy of the tree fail the table"
echo "layering: back edges in userland/: $(tests/build/layering.sh --count)"
