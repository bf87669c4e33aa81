# Shared by the slurm backend's tests: a scratch directory, configs whose
# only entry is the slurm plugin, and `muster` runs under exactly the
# Slurm variables a case names.  Sourced by tests/slurm/*.sh.
set -u

here="$MUSTER_TEST_SRCDIR/tests/slurm"
. "$MUSTER_TEST_SRCDIR/tests/lib/checks.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-slurm-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# A sanitizer's report must not pass for one of our exit statuses.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99
export ASAN_OPTIONS

# conf NAME BODY: a muster.conf whose only entry is slurm with BODY.
conf() {
	printf 'chain = ( { plugin = "slurm"; config = { %s }; } );\n' "$2" >"$tmp/$1.conf"
	echo "$tmp/$1.conf"
}
plain=$(conf plain '')

# slurm CONF [VAR=VALUE...] [-- MUSTER_ARGS...]: `muster -c CONF resolve`
# (or MUSTER_ARGS) in an environment holding only the given variables.
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
	out=$(eval "env -i PATH=\"\$PATH\" ASAN_OPTIONS=\"\$ASAN_OPTIONS\" \
		LSAN_OPTIONS=\"\${LSAN_OPTIONS:-}\" UBSAN_OPTIONS=\"\${UBSAN_OPTIONS:-}\" \
		MUSTER_PLUGIN_PATH=\"\$MUSTER_PLUGIN_PATH\" $vars \"\$MUSTER_BIN\" -c \"\$c\" \"\$@\"" \
		2>"$tmp/err") || rc=$?
	err=$(cat "$tmp/err")
	case "$err" in
	*AddressSanitizer* | *LeakSanitizer* | *"runtime error:"*) fail "sanitizer report: $err" ;;
	esac
}

# expect_json NAME WANT_RC WANT_JSON: the status and stdout equal as JSON.
expect_json() {
	checks=$((checks + 1))
	if [ "$rc" != "$2" ] || ! python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' "$out" "$3" 2>/dev/null; then
		fail "$1: exit $rc (want $2)"
		printf '  stdout: %s\n  want:   %s\n  stderr: %s\n' "$out" "$3" "$err"
	fi
}
