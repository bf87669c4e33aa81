# Checks shared by the backend test scripts (tests/gce, tests/kubernetes,
# tests/libvirt), sourced by their lib.sh.  A check reads the last run's
# $rc, $out and $err; failures are counted and `finish` exits with them.
failures=0
checks=0

fail() {
	failures=$((failures + 1))
	echo "FAIL: $*"
}

# expect NAME WANT_RC WANT_STDOUT: exact stdout and exit status.
expect() {
	checks=$((checks + 1))
	if [ "$rc" != "$2" ] || [ "$out" != "$3" ]; then
		fail "$1: exit $rc (want $2)"
		printf '  stdout: %s\n  want:   %s\n  stderr: %s\n' "$out" "$3" "$err"
	fi
}

# expect_err NAME WANT_RC FRAGMENT...: the status and each fragment in stderr.
expect_err() {
	name=$1
	want=$2
	shift 2
	checks=$((checks + 1))
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc (want $want)"
		printf '  stdout: %s\n  stderr: %s\n' "$out" "$err"
		return
	fi
	for frag in "$@"; do
		case "$err" in
		*"$frag"*) ;;
		*) fail "$name: stderr lacks: $frag"; printf '  stderr: %s\n' "$err" ;;
		esac
	done
}

# The request log: one JSON object per line; py_log EXPR prints EXPR over
# `reqs` (the list of requests).
py_log() {
	python3 -c "import json,sys; reqs=[json.loads(l) for l in open(sys.argv[1])]; print($1)" \
		"$tmp/requests.log"
}

check_eq() {
	checks=$((checks + 1))
	if [ "$2" != "$3" ]; then
		fail "$1: got '$2', want '$3'"
	fi
}

finish() {
	echo "$checks checks, $failures failures"
	[ "$failures" = 0 ]
	exit $?
}

# Exit statuses of muster(1).
EX_OK=0 EX_NOTFOUND=1 EX_UNAVAIL=2 EX_TRYAGAIN=3 EX_CONFIG=4
