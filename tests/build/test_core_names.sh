#!/usr/bin/env bash
# The runner (core/plan.c), the CLI (cli/cli.c) and the OCP export
# (report/ocp.c) name no step and no recorder: they find them through the
# registry (steps register themselves, the inventory phase by its flag,
# recorders by theirs). Every name `probestick steps` lists is looked for as
# a quoted string in those files; a planted one must be found (the check can
# fail).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
[ -x "$bin" ] || {
	echo "needs $bin: run make first"
	exit 77
}
files=(userland/core/plan.c userland/cli/cli.c userland/report/ocp.c)
mapfile -t names < <("$bin" steps | awk 'NF && $1 != "STEP" && $1 != "RECORDER" && $1 !~ /^\(/ {print $1}')
[ ${#names[@]} -ge 20 ] || {
	echo "FAIL: probestick steps listed ${#names[@]} steps and recorders"
	exit 1
}
scan() { # scan FILE...: every name found as "name"
	for n in "${names[@]}"; do
		grep -Hn "\"$n\"" "$@" | sed "s|^|    $n: |"
	done
}
hits=$(scan "${files[@]}")
if [ -n "$hits" ]; then
	echo "FAIL: these name a step or a recorder:"
	echo "$hits"
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp userland/core/plan.c "$tmp/plan.c"
echo 'static const char *planted = "kmsg";' >>"$tmp/plan.c"
[ -n "$(scan "$tmp/plan.c")" ] || {
	echo "FAIL: a planted recorder name was not found"
	exit 1
}
echo "core names: ${#names[@]} steps and recorders, none named in ${files[*]}"
