#!/usr/bin/env bash
# Build one unit test against out/libprobestick.a and run it.
# Usage: tests/unit/build-and-run.sh SRC BIN
set -euo pipefail
src=$1 bin=$2
OUT=${OUT:-out}
mkdir -p "$(dirname "$bin")"
# shellcheck disable=SC2046
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-omit-frame-pointer \
	-Iuserland -Ikmod/uapi -I"$OUT/gen" -Itests/unit \
	-DFIXTURES='"tests/fixtures"' \
	$(pkg-config --cflags libkmod json-c liburing libmnl) \
	-o "$bin" "$src" ${TEST_EXTRA_OBJS:-} "$OUT/libprobestick.a" $(pkg-config --libs libkmod json-c liburing libmnl) -liperf
exec "$bin"
