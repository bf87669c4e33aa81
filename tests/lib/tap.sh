# The shell tests' one helper library: TAP for Automake's TAP driver
# (tests/local.mk), a scratch directory, runs of `muster`, and checks.
# A test sources it, runs checks and ends with `finish`:
#   . "${MUSTER_TEST_SRCDIR:?run me with make check}/tests/lib/tap.sh"
# Every check prints one TAP line ("ok N - WHAT", "not ok N - WHAT" with
# "#" diagnostics, "ok N - WHAT # SKIP WHY"); `finish` prints the plan.
#
# The harness exports MUSTER_BIN, MUSTER_TEST_SRCDIR, MUSTER_TEST_BUILDDIR
# and MUSTER_PLUGIN_PATH.  Tests write only under $tmp: make distcheck
# makes the source tree read-only.
: "${MUSTER_BIN:?MUSTER_BIN is not set: run this test with make check}"
: "${MUSTER_TEST_SRCDIR:?MUSTER_TEST_SRCDIR is not set: run this test with make check}"
: "${MUSTER_TEST_BUILDDIR:=$(pwd)}"
unset TF_CONFIG MUSTER_CONF
# The test's own directory, with its fixtures.
here=$(cd "$(dirname "$0")" && pwd)

ntests=0
nfailed=0
status=0

# Exit statuses of muster(1).
EX_OK=0 EX_NOTFOUND=1 EX_UNAVAIL=2 EX_TRYAGAIN=3 EX_CONFIG=4

# cleanup: what a test or a backend's lib.sh stops on exit (servers);
# redefine it.  The scratch directory goes after it.
cleanup() { :; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muster-test.XXXXXX") || { echo "Bail out! mktemp"; exit 99; }
trap 'cleanup; rm -rf "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# A sanitizer's report must not pass for one of our exit statuses (ASan
# exits 1 by default, as "notfound" does).
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99
export ASAN_OPTIONS

# lsan_suppress [FILE...]: LeakSanitizer's suppressions are tests/lib's
# (lsan.supp: leaks that are glibc's, not ours) and FILE's, one file, as
# LSAN_OPTIONS takes only one.
lsan_suppress() {
	cat "$MUSTER_TEST_SRCDIR/tests/lib/lsan.supp" "$@" >"$tmp/lsan.supp"
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$tmp/lsan.supp"
	export LSAN_OPTIONS
}
lsan_suppress

pass() {
	ntests=$((ntests + 1))
	echo "ok $ntests - $1"
}

# fail WHAT [DETAIL...]: a failed check, with the details and the last
# run's output as diagnostics.
fail() {
	ntests=$((ntests + 1))
	nfailed=$((nfailed + 1))
	echo "not ok $ntests - $1"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/#   /'
	done
	for stream in out err; do
		if [ -s "$tmp/$stream" ]; then
			echo "#   std$stream:"
			sed 's/^/#     /' "$tmp/$stream"
		fi
	done
}

# check WHAT COMMAND...: passes when COMMAND succeeds.
check() {
	what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}

# skip WHAT REASON: a check that cannot run here, reported as a skip.
skip() {
	ntests=$((ntests + 1))
	echo "ok $ntests - $1 # SKIP $2"
}

# skip_all REASON: the whole test cannot run here.
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# bail_out REASON: the test cannot go on (its setup failed).
bail_out() {
	echo "Bail out! $1"
	exit 99
}

# finish: the plan, and the exit status.
finish() {
	echo "1..$ntests"
	if [ "$nfailed" -ne 0 ]; then
		echo "# $nfailed of $ntests failed"
		exit 1
	fi
	exit 0
}

have_python3() {
	command -v python3 >/dev/null 2>&1
}

# require_tools TOOL...: skip the whole test without them.
require_tools() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || skip_all "$tool is not installed"
	done
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

# require_plugin NAME: skip the whole test when the plugin is not built.
require_plugin() {
	have_plugin "$1" || skip_all "the $1 plugin is not built"
}

# no_sanitizer_report WHAT: a sanitizer report on the last run's stderr is
# a failure of its own.
no_sanitizer_report() {
	if grep -E -q 'runtime error:|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
		fail "no sanitizer report from: $1"
	fi
}

# run ARGS...: run muster; stdout in $tmp/out, stderr in $tmp/err, the exit
# status in $status.
run() {
	status=0
	"$MUSTER_BIN" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
	no_sanitizer_report "muster $*"
}

# run_muster CONF ARGS...: muster -c CONF $muster_opts ARGS; sets rc, out
# and err (and $tmp/out, $tmp/err), then calls the backend's after_run.
muster_opts=
before_run() { :; }
after_run() { :; }
run_muster() {
	c=$1
	shift
	before_run
	rc=0
	# shellcheck disable=SC2086 # options split on purpose
	"$MUSTER_BIN" $muster_opts -c "$c" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	status=$rc
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	no_sanitizer_report "muster -c $c $*"
	after_run "$@"
}

# expect_status N WHAT: the last run exited with N.
expect_status() {
	if [ "$status" -eq "$1" ]; then
		pass "$2 (exit $1)"
	else
		fail "$2" "expected exit status $1, got $status"
	fi
}

# expect_out TEXT WHAT: stdout is exactly TEXT and a newline.
expect_out() {
	printf '%s\n' "$1" >"$tmp/expected"
	if cmp -s "$tmp/expected" "$tmp/out"; then
		pass "$2"
	else
		fail "$2" "expected stdout: $1"
	fi
}

# expect_err_match REGEX WHAT: some line of stderr matches (grep -E).
expect_err_match() {
	if grep -E -q -e "$1" "$tmp/err"; then
		pass "$2"
	else
		fail "$2" "expected stderr to match: $1"
	fi
}

# expect_err_nomatch REGEX WHAT
expect_err_nomatch() {
	if grep -E -q -e "$1" "$tmp/err"; then
		fail "$2" "expected stderr not to match: $1"
	else
		pass "$2"
	fi
}

# expect_out_match REGEX WHAT
expect_out_match() {
	if grep -E -q -e "$1" "$tmp/out"; then
		pass "$2"
	else
		fail "$2" "expected stdout to match: $1"
	fi
}

# expect_empty_err WHAT: nothing on stderr (no warning, no leak report).
expect_empty_err() {
	if [ -s "$tmp/err" ]; then
		fail "$1" "expected nothing on stderr"
	else
		pass "$1"
	fi
}

# expect_json JSON WHAT: stdout is one line of JSON equal to JSON, objects
# compared with their key order (jobs are an ordered map).
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

# expect WHAT WANT_RC WANT_STDOUT: run_muster's exact stdout and status.
expect() {
	if [ "$rc" = "$2" ] && [ "$out" = "$3" ]; then
		pass "$1"
	else
		fail "$1: exit $rc (want $2)" "want stdout: $3"
	fi
}

# expect_err WHAT WANT_RC FRAGMENT...: run_muster's status, and each
# fragment in its stderr.
expect_err() {
	what=$1
	want=$2
	shift 2
	if [ "$rc" != "$want" ]; then
		fail "$what: exit $rc (want $want)"
		return
	fi
	for frag in "$@"; do
		case "$err" in
		*"$frag"*) ;;
		*) fail "$what: stderr lacks: $frag"; return ;;
		esac
	done
	pass "$what"
}

# check_eq WHAT GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

# expect_peak_under KIB WHAT COMMAND...: COMMAND's peak resident memory
# (the kernel's ru_maxrss, what GNU time's %M prints; python3 rather than
# GNU time, which CI does not install) stays under KIB KiB.  A COMMAND
# killed by a signal fails: a crash at start would read as a low peak.
expect_peak_under() {
	limit=$1
	what=$2
	shift 2
	if ! have_python3; then
		skip "$what: peak memory" "python3 not found"
		return 0
	fi
	set -- "$(python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@")"
	rc=${1% *}
	peak=${1#* }
	if [ "$rc" -lt 0 ]; then
		fail "$what: peak memory" "killed by signal $((-rc))"
	elif [ "$peak" -lt "$limit" ]; then
		pass "$what: peak memory $peak KiB"
	else
		fail "$what: peak memory $peak KiB, want under $limit KiB"
	fi
}

# py_log EXPR: EXPR over `reqs`, the requests a loopback server logged
# (one JSON object per line of $tmp/requests.log).
py_log() {
	python3 -c "import json,sys; reqs=[json.loads(l) for l in open(sys.argv[1])]; print($1)" \
		"$tmp/requests.log"
}
