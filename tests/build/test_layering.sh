#!/usr/bin/env bash
# The rooms of userland/ keep to their roles (docs/design.md, "The house"):
# steps include only core, hw, engines and the report's JSON and view
# descriptions; report never includes steps or record; only cli prints to
# stdout or ends the program; nothing outside cli includes cli.
set -uo pipefail
cd "$(dirname "$0")/../.."
bad=0
complain() {
	echo "layering: $*"
	bad=1
}

# includes "room/file.h" of each file, as "file: room"
includes() {
	grep -Ho '^#include "[a-z_]*/[a-z_0-9]*\.h"' "$@" 2>/dev/null |
		sed 's|^\([^:]*\):#include "\([a-z_]*\)/.*|\1 \2|'
}

while read -r file room; do
	case $room in core | hw | engines | lib | decode) ;;
	report) grep -qE '^#include "report/view\.h"' "$file" ||
		complain "$file includes a report header other than json.h and view.h" ;;
	*) complain "$file (a step) includes $room/: steps use core, hw, engines and lib/json.h" ;;
	esac
	if grep -qE '^#include "report/(doc|report|render|text)' "$file"; then
		complain "$file (a step) includes the report's document or renderers"
	fi
done < <(includes userland/steps/*.c)

while read -r file room; do
	case $room in steps | record | cli)
		complain "$file (report) includes $room/: the report knows no step and no recorder" ;;
	esac
done < <(includes userland/report/*.[ch])

for dir in core hw engines record report boot steps; do
	while read -r file room; do
		[ "$room" = cli ] && complain "$file includes cli/: only cli sits on top"
	done < <(includes userland/$dir/*.[ch] userland/$dir/*/*.[ch])
done

# Only cli talks to stdout or ends the program (a forked child's _exit is its own).
hits=$(grep -nE '\b(printf|puts|putchar|exit)\(|\bstdout\b' \
	$(find userland -name '*.[ch]' ! -path 'userland/cli/*') |
	grep -vE 'snprintf|vsnprintf|asprintf|_exit\(|queue_exit' |
	grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$hits" ]; then
	complain "outside cli/, printing to stdout or ending the program:"
	echo "$hits" | sed 's/^/    /'
fi

[ $bad -eq 0 ] && echo "layering: $(find userland -name '*.[ch]' | wc -l) files keep to their rooms"
exit $bad
