#!/bin/sh
# bash completion of muster (completion/muster): commands and options come
# from the program's --help, option values where they are known.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_tools bash
lib=/usr/share/bash-completion/bash_completion
[ -f "$lib" ] || skip_all "bash-completion is not installed"
out=$(PATH="$(dirname "$MUSTER_BIN"):$PATH" bash -c '
. "$1"
. "$2"
t() {
	COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
	_muster muster
	echo "$*|${COMPREPLY[*]}"
}
t muster ""
t muster re
t muster -c x resolve --
t muster tf-config --s
t muster resolve --format t
t muster --ver
' sh "$lib" "$MUSTER_TEST_SRCDIR/completion/muster" 2>&1)
# Every command of `muster --help`, none twice.
commands=$("$MUSTER_BIN" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p' | tr '\n' ' ')
want="muster |${commands% }
muster re|$(printf '%s\n' $commands | grep '^re' | tr '\n' ' ' | sed 's/ $//')
muster -c x resolve --|--format --exec --help
muster tf-config --s|--sparse
muster resolve --format t|tf_config text
muster --ver|--verbose --version"
printf '%s\n' "$want" | while IFS='|' read -r words completions; do
	got=$(printf '%s\n' "$out" | grep -F -x -m1 "$words|$completions")
	if [ -n "$got" ]; then
		echo "ok - $words"
	else
		echo "not ok - $words"
		printf '%s\n' "$out" | grep -F "$words|" | sed 's/^/#   got: /'
		printf '#   want: %s\n' "$completions"
	fi
done >"$tmp/results"
while read -r line; do
	case $line in
	"ok - "*) pass "completes: ${line#ok - }" ;;
	"not ok - "*) fail "completes: ${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done <"$tmp/results"
finish
