#!/usr/bin/env bash
# The rooms of userland/ and who may include whom (docs/design.md, "The
# house"), as one table. Usage: tests/build/layering.sh [--count] [TREE]
# (TREE: a checkout's userland/ folder, default this one's). Prints every
# include of a header in another room that the table does not allow, and
# fails when there is one; --count prints only how many distinct room-to-room
# edges are not allowed (the back edges) and never fails.
#
# A room is a folder of userland/, or a folder below engines/ (engines/io):
# a file's room is its folder, a header's room the folder it names.
set -uo pipefail
cd "$(dirname "$0")/../.."

count=0
if [ "${1:-}" = --count ]; then
	count=1
	shift
fi
tree=${1:-userland}

# room: the rooms it may include, bottom floor first. Everything a room
# includes must be listed; a room includes its own files freely.
declare -A allowed=(
	[lib]=""
	[decode]="lib"
	[report]="lib"
	[hw]="lib decode"
	[boot]="lib decode"
	[engines]="lib decode report hw"
	[engines/io]="lib decode report hw engines"
	[engines/mem]="lib decode report hw engines"
	[engines/net]="lib decode report hw engines"
	[engines/stress]="lib decode report hw engines"
	[record]="lib decode hw report"
	[collect]="lib decode report engines engines/net"
	[core]="lib decode hw report record collect engines engines/io engines/mem engines/net engines/stress"
	[steps]="lib decode hw report core engines engines/io engines/mem engines/net engines/stress"
	[cli]="lib decode hw report record collect core engines engines/io engines/mem engines/net engines/stress boot"
)

room_of() { # ROOM VAR: the room of a file's path relative to the tree, into VAR
	local dir=${1%/*} top
	top=${dir%%/*}
	if [ "$top" = engines ] && [ "$dir" != engines ]; then
		dir=${dir#engines/}
		printf -v "$2" 'engines/%s' "${dir%%/*}"
	else
		printf -v "$2" '%s' "$top"
	fi
}

bad=0
declare -A back=()
while IFS=: read -r file inc; do
	rel=${file#"$tree"/}
	room_of "$rel" src
	room_of "$inc" dst
	[ "$src" = "$dst" ] && continue
	if [ -z "${allowed[$src]+x}" ]; then
		echo "layering: $file is in a room the table does not know ($src): add it"
		bad=1
		continue
	fi
	case " ${allowed[$src]} " in *" $dst "*) continue ;; esac
	back["$src -> $dst"]=1
	[ $count -eq 1 ] || echo "layering: $file includes $inc: $src may not include $dst"
	bad=1
done < <(grep -rHo --include='*.[ch]' '^#include "[a-z_]*/[a-z_/0-9]*\.h"' "$tree" |
	sed 's|:#include "\(.*\)"|:\1|')

if [ $count -eq 1 ]; then
	echo "${#back[@]}"
	exit 0
fi

# Inside the allowed edges, two finer rules.
# A step uses the report only through view.h (how its data is shown).
hits=$(grep -HnE '^#include "report/' "$tree"/steps/*.c 2>/dev/null | grep -v 'report/view\.h' || true)
if [ -n "$hits" ]; then
	echo "layering: steps include the report's document or renderers:"
	echo "$hits" | sed 's/^/    /'
	bad=1
fi

# Only cli talks to stdout or ends the program (a forked child's _exit is its own).
hits=$(grep -nE '\b(printf|puts|putchar|exit)\(|\bstdout\b' \
	$(find "$tree" -name '*.[ch]' ! -path "$tree/cli/*") |
	grep -vE 'snprintf|vsnprintf|asprintf|_exit\(|queue_exit' |
	grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)' || true)
if [ -n "$hits" ]; then
	echo "layering: outside cli/, printing to stdout or ending the program:"
	echo "$hits" | sed 's/^/    /'
	bad=1
fi

[ $bad -eq 0 ] && echo "layering: $(find "$tree" -name '*.[ch]' | wc -l) files keep to the table of rooms"
exit $bad
