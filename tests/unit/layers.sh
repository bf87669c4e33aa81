#!/bin/sh
# The floors hold: lib/ includes nothing of the project's but the public
# <muster/muster.h> (it is the leaf every floor links), and no plugin, tfos,
# CLI or Python file includes a header of core/ (they reach libmuster
# through its public headers, and shared helpers through lib/).  Read from
# the sources, as a grep would.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
src=$MUSTER_TEST_SRCDIR

# The quoted includes of the C and C++ files under the folders given, as
# "FILE:HEADER" lines.
quoted_includes() {
	for dir in "$@"; do
		find "$src/$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print
	done | sort | while read -r file; do
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file" |
			while read -r header; do
				echo "${file#"$src"/}:$header"
			done
	done
}

# lib/: only its own headers and config.h.
bad=$(quoted_includes lib | while IFS=: read -r file header; do
	case $header in
	*/*) echo "$file includes \"$header\"" ;;
	*) [ -f "$src/lib/$header" ] || echo "$file includes \"$header\", not in lib/" ;;
	esac
done)
check_eq "lib/ includes only lib/" "$bad" ""
bad=$(for file in "$src"/lib/*.[ch]; do
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\(muster\/[^>]*\)>.*/\1/p' "$file" |
		grep -v -x 'muster/muster.h' | sed "s|^|${file#"$src"/} includes |"
done)
check_eq "lib/ includes no public header but muster.h (not the plugin SDK)" "$bad" ""

# Elsewhere: a header is core's when its path says so, or when it is not
# beside the file, at the top or under include/, but is under core/ (a
# folder reaching it through -I core).
bad=$(quoted_includes plugins tfos cli python | while IFS=: read -r file header; do
	dir=$(dirname "$src/$file")
	case $header in
	*core/*) echo "$file includes \"$header\"" ;;
	*)
		if [ ! -f "$dir/$header" ] && [ ! -f "$src/$header" ] &&
			[ ! -f "$src/include/$header" ] && [ -f "$src/core/$header" ]; then
			echo "$file includes core's \"$header\""
		fi
		;;
	esac
done)
check_eq "no plugin, tfos, cli or python file includes core/" "$bad" ""

# config.h: the build tree's header, found through -I, so in angle
# brackets; first, so that its feature macros reach every system header.
# Not in the files built without configure's config.h: the Python
# extension (Python.h first; pip builds it against an installed
# libmuster), the example plugin and the test plugins that stand for a
# third party's (the installed SDK alone).
sources=$(for dir in bench cli core lib plugins tests tfos; do
	find "$src/$dir" -type f \( -name '*.c' -o -name '*.cc' \) -print
done | sort | grep -v -e '/tests/abi/good\.c$' -e '/tests/abi/broken\.c$' \
	-e '/tests/abi/placed\.c$')
bad=$(for file in $sources; do
	first=$(grep -m1 '^[[:space:]]*#' "$file")
	case $first in
	'#include <config.h>'*) ;;
	*) echo "${file#"$src"/} starts with '$first'" ;;
	esac
done)
check_eq "every C and C++ file starts with #include <config.h>" "$bad" ""
bad=$(for dir in bench cli core include lib plugins python tests tfos; do
	find "$src/$dir" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' \) -print
done | sort | xargs grep -l -e '^[[:space:]]*#[[:space:]]*include[[:space:]]*"config\.h"' \
	-e '^[[:space:]]*#[[:space:]]*define[[:space:]]*_GNU_SOURCE' | sed "s|^$src/||")
check_eq "no \"config.h\" and no _GNU_SOURCE of a file's own" "$bad" ""
finish
