# Shared by the slurm backend's tests: configs whose only entry is the
# slurm plugin, and `muster` runs under exactly the Slurm variables a case
# names.  Sourced by tests/slurm/*.sh after tests/lib/tap.sh's setup.
set -u
. "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
require_plugin slurm

# conf NAME BODY: a muster.conf whose only entry is slurm with BODY.
conf() {
	printf 'chain = ( { plugin = "slurm"; config = { %s }; } );\n' "$2" >"$tmp/$1.conf"
	echo "$tmp/$1.conf"
}
plain=$(conf plain '')

# slurm CONF [VAR=VALUE...] [-- MUSTER_ARGS...]: `muster -c CONF resolve`
# (or MUSTER_ARGS) in an environment holding only the given variables;
# sets rc, out and err as run_muster does.
slurm() {
	c=$1
	shift
	set -- "$@" --
	vars=""
	while [ "$1" != "--" ]; do
		vars="$vars $(printf '%s' "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
		shift
	done
	shift
	[ $# -gt 0 ] || set -- resolve
	rc=0
	eval "env -i PATH=\"\$PATH\" ASAN_OPTIONS=\"\$ASAN_OPTIONS\" \
		LSAN_OPTIONS=\"\${LSAN_OPTIONS:-}\" UBSAN_OPTIONS=\"\${UBSAN_OPTIONS:-}\" \
		MUSTER_PLUGIN_PATH=\"\$MUSTER_PLUGIN_PATH\" $vars \"\$MUSTER_BIN\" -c \"\$c\" \"\$@\"" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	status=$rc
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "muster -c $c $*"
}

# expect_result WHAT WANT_RC WANT_JSON: the status, and stdout equal to
# WANT_JSON (key order included).
expect_result() {
	if [ "$rc" != "$2" ]; then
		fail "$1: exit $rc (want $2)"
	else
		expect_json "$3" "$1"
	fi
}

# expect_out_has WHAT FRAGMENT: the status is 0 and stdout holds FRAGMENT.
expect_out_has() {
	case "$rc:$out" in
	"0:"*"$2"*) pass "$1" ;;
	*) fail "$1: exit $rc" "want in stdout: $2" ;;
	esac
}
