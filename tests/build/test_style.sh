#!/usr/bin/env bash
# Style gate: userland follows .clang-format, kmod/ is checkpatch-clean.
set -euo pipefail
cd "$(dirname "$0")/../.."
bad=0
mapfile -t cfiles < <(git ls-files 'userland/*.c' 'userland/*.h' 'userland/**/*.c' 'userland/**/*.h' 'tests/unit/*.c' 'tests/unit/*.h' 'tests/fuzz/*.c' 'tests/fuzz/*.h')
if [ ${#cfiles[@]} -gt 0 ]; then
	if ! clang-format --dry-run -Werror "${cfiles[@]}"; then
		echo "style: run clang-format -i on the files above" >&2
		bad=1
	fi
fi
checkpatch=${PS_CACHE:-$HOME/.cache/probestick}/linux-source-6.1/scripts/checkpatch.pl
if [ ! -x "$checkpatch" ]; then
	mkdir -p "$(dirname "$(dirname "$checkpatch")")"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "${PS_CACHE:-$HOME/.cache/probestick}" \
		linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi
mapfile -t kfiles < <(git ls-files 'kmod/*.c' 'kmod/*.h')
for f in "${kfiles[@]}"; do
	if ! "$checkpatch" --no-tree --quiet --show-types --ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES -f "$f"; then
		bad=1
	fi
done
echo "style: ${#cfiles[@]} userland files, ${#kfiles[@]} kernel files checked"
exit $bad
