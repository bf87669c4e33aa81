#!/bin/sh
# bash completion of muster (completion/muster): commands and options come
# from the program's --help, option values where they are known: each
# command's own --format and --for values, the very lists the program
# shows or accepts.
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
t muster env --format ""
t muster -c x resolve --format ""
t muster watch --format ""
t muster doctor --format ""
t muster doctor --for ""
t muster topo --format ""
t muster status --format ""
t muster status --w
t muster reserve --metrics-p
t muster env --for ""
t muster -q run --for ""
t muster hostfile --for ""
t muster run --for p
t muster hostfile --nproc-per-node ""
t muster env --jobs ""
' sh "$lib" "$MUSTER_TEST_SRCDIR/completion/muster" 2>&1)
# Every command of `muster --help`, none twice.
commands=$("$MUSTER_BIN" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p' | tr '\n' ' ')
# formats CMD: the --format values of CMD's usage line.
formats() {
	"$MUSTER_BIN" "$1" --help | sed -n 's/.*--format \([a-z_|]*\).*/\1/p' | head -n 1 | tr '|' ' '
}
# frameworks CMD [ARGS]: the list CMD's "unknown framework" error gives.
frameworks() {
	cmd=$1
	shift
	"$MUSTER_BIN" -c "$MUSTER_TEST_SRCDIR/tests/cli/static.conf" "$cmd" --for nonesuch "$@" 2>&1 |
		sed -n "s/.*unknown framework 'nonesuch' (\(.*\))\$/\1/p"
}
for list in "$(formats env)" "$(formats resolve)" "$(formats watch)" "$(formats topo)" \
	"$(formats status)" "$(formats doctor)" "$(frameworks env)" "$(frameworks doctor)" \
	"$(frameworks run -- true)" "$(frameworks hostfile)"; do
	[ -n "$list" ] || bail_out "a value list could not be read from muster's help or errors"
done
want="muster |${commands% }
muster re|$(printf '%s\n' $commands | grep '^re' | tr '\n' ' ' | sed 's/ $//')
muster -c x resolve --|--format --exec --help
muster tf-config --s|--sparse
muster resolve --format t|tf_config text
muster --ver|--verbose --version
muster env --format |$(formats env)
muster -c x resolve --format |$(formats resolve)
muster watch --format |$(formats watch)
muster doctor --format |$(formats doctor)
muster doctor --for |$(frameworks doctor)
muster topo --format |$(formats topo)
muster status --format |$(formats status)
muster status --w|--watch
muster reserve --metrics-p|--metrics-port
muster env --for |$(frameworks env)
muster -q run --for |$(frameworks run -- true)
muster hostfile --for |$(frameworks hostfile)
muster run --for p|pytorch
muster hostfile --nproc-per-node |gpu
muster env --jobs |"
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
