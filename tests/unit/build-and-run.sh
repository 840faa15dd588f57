#!/usr/bin/env bash
# Build one unit test against out/libprobestick.a and run it.
# Usage: tests/unit/build-and-run.sh SRC BIN
set -euo pipefail
src=$1 bin=$2
OUT=${OUT:-out}
mkdir -p "$(dirname "$bin")"
# A test that renders whole reports needs the real steps' views: it says so
# with a "/* link: steps */" line, and gets the step objects. The recorders
# (userland/record, registered like steps) are linked into every test.
extra=${TEST_EXTRA_OBJS:-}
for rec in userland/record/*.c; do
	extra="$extra $OUT/obj/${rec%.c}.o"
done
if grep -q '^/\* link: steps \*/' "$src"; then
	extra="$extra $(ls "$OUT"/obj/userland/steps/*.o)"
fi
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-omit-frame-pointer \
	-Iuserland -Ikmod/uapi -I"$OUT/gen" -Itests/unit \
	-DFIXTURES='"tests/fixtures"' \
	$(pkg-config --cflags libkmod json-c liburing libmnl libzstd blkid libpci) \
	-o "$bin" "$src" $extra "$OUT/libprobestick.a" $(pkg-config --libs libkmod json-c liburing libmnl libzstd blkid libpci) -liperf -lm
exec "$bin"
