# Helpers for the CLI tests (tests/cli/*.sh), sourced by each.
#
# The harness (tests/local.mk) exports MUSTER_BIN, MUSTER_TEST_SRCDIR,
# MUSTER_TEST_BUILDDIR and MUSTER_PLUGIN_PATH, and unsets TF_CONFIG and
# MUSTER_CONF.  Tests write only under a mktemp -d directory: make
# distcheck makes the source tree read-only.

: "${MUSTER_BIN:?MUSTER_BIN is not set: run this test with make check}"
: "${MUSTER_TEST_SRCDIR:?MUSTER_TEST_SRCDIR is not set: run this test with make check}"
: "${MUSTER_TEST_BUILDDIR:=$(pwd)}"
unset TF_CONFIG MUSTER_CONF

fixtures=$MUSTER_TEST_SRCDIR/tests/cli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

ntests=0
nfailed=0
status=0

pass() {
	ntests=$((ntests + 1))
	echo "ok $ntests - $1"
}

fail() {
	ntests=$((ntests + 1))
	nfailed=$((nfailed + 1))
	echo "not ok $ntests - $1"
	shift
	for line in "$@"; do
		echo "#   $line"
	done
	if [ -s "$tmp/out" ]; then
		echo "#   stdout:"
		sed 's/^/#     /' "$tmp/out"
	fi
	if [ -s "$tmp/err" ]; then
		echo "#   stderr:"
		sed 's/^/#     /' "$tmp/err"
	fi
}

# A sanitizer's report must not pass for one of our exit statuses (ASan
# exits 1 by default, as "notfound" does).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99
export ASAN_OPTIONS

# run ARGS...: run muster; stdout in $tmp/out, stderr in $tmp/err, the exit
# status in $status.  A sanitizer report on stderr is a failure of its own.
run() {
	status=0
	"$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
		fail "no sanitizer report from: muster $*"
	fi
}

# expect_status N DESCRIPTION: the last run exited with N.
expect_status() {
	if [ "$status" -eq "$1" ]; then
		pass "$2 (exit $1)"
	else
		fail "$2" "expected exit status $1, got $status"
	fi
}

# expect_out TEXT DESCRIPTION: stdout is exactly TEXT and a newline.
expect_out() {
	printf '%s\n' "$1" >"$tmp/expected"
	if cmp -s "$tmp/expected" "$tmp/out"; then
		pass "$2"
	else
		fail "$2" "expected stdout: $1"
	fi
}

# expect_err_match REGEX DESCRIPTION: some line of stderr matches (grep -E).
expect_err_match() {
	if grep -E -q -e "$1" "$tmp/err"; then
		pass "$2"
	else
		fail "$2" "expected stderr to match: $1"
	fi
}

# expect_err_nomatch REGEX DESCRIPTION
expect_err_nomatch() {
	if grep -E -q -e "$1" "$tmp/err"; then
		fail "$2" "expected stderr not to match: $1"
	else
		pass "$2"
	fi
}

# expect_out_match REGEX DESCRIPTION
expect_out_match() {
	if grep -E -q -e "$1" "$tmp/out"; then
		pass "$2"
	else
		fail "$2" "expected stdout to match: $1"
	fi
}

# expect_empty_err DESCRIPTION: nothing on stderr (no warning, no leak report).
expect_empty_err() {
	if [ -s "$tmp/err" ]; then
		fail "$1" "expected nothing on stderr"
	else
		pass "$1"
	fi
}

have_python3() {
	command -v python3 >/dev/null 2>&1
}

# expect_json JSON DESCRIPTION: stdout is one line of JSON equal to JSON,
# objects compared with their key order (jobs are an ordered map).
expect_json() {
	if ! have_python3; then
		skip "$2" "python3 not found"
		return 0
	fi
	if python3 -c '
import json, sys
def load(s):
    return json.loads(s, object_pairs_hook=lambda kv: list(kv))
text = open(sys.argv[1]).read()
if not text.endswith("\n") or text.count("\n") != 1:
    sys.exit("output is not exactly one line")
got = load(text)
want = load(sys.argv[2])
if got != want:
    sys.exit("got  %r\nwant %r" % (got, want))
' "$tmp/out" "$1" 2>"$tmp/pyerr"; then
		pass "$2"
	else
		fail "$2" "expected JSON: $1" "$(cat "$tmp/pyerr")"
	fi
}

# have_plugin NAME: the plugin's shared object is in the build tree.
have_plugin() {
	old_ifs=$IFS
	IFS=:
	for dir in ${MUSTER_PLUGIN_PATH:-}; do
		if [ -f "$dir/$1.so" ]; then
			IFS=$old_ifs
			return 0
		fi
	done
	IFS=$old_ifs
	return 1
}

# skip DESCRIPTION REASON
skip() {
	ntests=$((ntests + 1))
	echo "ok $ntests - $1 # SKIP $2"
}

# finish: the plan, and the exit status for the harness.
finish() {
	echo "1..$ntests"
	if [ "$nfailed" -ne 0 ]; then
		echo "# $nfailed of $ntests failed"
		exit 1
	fi
	exit 0
}
