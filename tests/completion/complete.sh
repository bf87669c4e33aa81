#!/bin/sh
# bash completion of muster (completion/muster): commands and options come
# from the program's --help, option values where they are known.
set -u
: "${MUSTER_TEST_SRCDIR:?run me from make check}" "${MUSTER_BIN:?}"
lib=/usr/share/bash-completion/bash_completion
if ! command -v bash >/dev/null 2>&1 || [ ! -f "$lib" ]; then
	echo "SKIP: bash-completion is not installed"
	exit 77
fi
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
if [ "$out" = "$want" ]; then
	echo "PASS: completions"
	exit 0
fi
echo "FAIL: completions"
printf 'got:\n%s\nwant:\n%s\n' "$out" "$want"
exit 1
